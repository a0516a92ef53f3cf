// PelTimeIndex: the delivery-time ordered list through a group's PendingEntry records (see
// pel.h for the layout and the cost of each operation).
#include <cassert>

#include "streamd/engine/pel.h"

namespace streamd::engine {

void PelTimeIndex::link_after(PendingEntry* pos, PendingEntry* e) {
  e->time_prev = pos;
  e->time_next = pos ? pos->time_next : head_;
  if (e->time_next) {
    e->time_next->time_prev = e;
  } else {
    tail_ = e;
  }
  if (pos) {
    pos->time_next = e;
  } else {
    head_ = e;
  }
  ++size_;
}

void PelTimeIndex::push_nacked(PendingEntry* e) {
  assert(e->owner == nullptr);
  link_after(nack_tail_, e);
  nack_tail_ = e;
  ++nacked_;
}

void PelTimeIndex::insert(PendingEntry* e) {
  assert(e->owner != nullptr);
  PendingEntry* first = nack_tail_ ? nack_tail_->time_next : head_;  // first owned record
  if (!first || !before(e, tail_)) {
    link_after(tail_, e);  // the usual case: a delivery at "now"
    return;
  }
  if (before(e, first)) {
    link_after(nack_tail_, e);
    return;
  }
  // Somewhere strictly inside the owned part: walk from the nearer end (by time).
  uint64_t from_first = static_cast<uint64_t>(e->delivery_time_ms - first->delivery_time_ms);
  uint64_t to_tail = static_cast<uint64_t>(tail_->delivery_time_ms - e->delivery_time_ms);
  if (from_first < to_tail) {
    PendingEntry* p = first;
    while (p->time_next && before(p->time_next, e)) p = p->time_next;
    link_after(p, e);
  } else {
    PendingEntry* p = tail_;
    while (before(e, p)) p = p->time_prev;
    link_after(p, e);
  }
}

void PelTimeIndex::unlink(PendingEntry* e) {
  if (e->owner == nullptr) {
    assert(nacked_ > 0);
    if (e == nack_tail_) nack_tail_ = e->time_prev;
    --nacked_;
  }
  if (e->time_prev) {
    e->time_prev->time_next = e->time_next;
  } else {
    head_ = e->time_next;
  }
  if (e->time_next) {
    e->time_next->time_prev = e->time_prev;
  } else {
    tail_ = e->time_prev;
  }
  e->time_prev = e->time_next = nullptr;
  --size_;
}

bool PelTimeIndex::check(std::string* why) const {
  auto fail = [why](std::string msg) {
    if (why) *why = std::move(msg);
    return false;
  };
  std::size_t n = 0, nacked = 0;
  const PendingEntry* prev = nullptr;
  bool in_zone = true;
  for (const PendingEntry* e = head_; e; prev = e, e = e->time_next) {
    if (++n > size_) return fail("time index is longer than its size (a cycle?)");
    if (e->time_prev != prev) return fail("time index back link broken at " + e->id.to_string());
    if (e->owner == nullptr) {
      if (!in_zone) return fail(e->id.to_string() + " is NACKed but outside the NACK zone");
      ++nacked;
      if (e->delivery_time_ms != 0) return fail(e->id.to_string() + " is NACKed with a time");
      if (nacked == nacked_ && e != nack_tail_) return fail("NACK zone tail is wrong");
    } else {
      in_zone = false;
      if (prev && prev->owner && !before(prev, e)) {
        return fail("time index out of order at " + e->id.to_string());
      }
    }
  }
  if (prev != tail_) return fail("time index tail is wrong");
  if (n != size_) return fail("time index size is wrong");
  if (nacked != nacked_) return fail("NACK zone count is wrong");
  if (nacked_ == 0 && nack_tail_) return fail("empty NACK zone with a tail");
  return true;
}

}  // namespace streamd::engine
