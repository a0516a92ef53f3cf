// ConsumerGroup core: consumers, the shared-record bookkeeping, XREADGROUP and XACK.
// Claims are in group_claim.cc; XPENDING/XINFO data, memory and invariant checks in
// group_info.cc.
#include "streamd/engine/consumer_group.h"

#include <cassert>

namespace streamd::engine {

void bump_count(PendingEntry& e) {
  // Saturates at LLONG_MAX, the largest count RESP (and so XPENDING and the AOF) can carry; XNACK
  // FATAL sets exactly that.
  if (e.delivery_count < static_cast<uint64_t>(INT64_MAX)) ++e.delivery_count;
}

GroupEntry& DeliveryBatch::add(StreamId id, std::span<const FieldValue> fields) {
  const FieldValue* old_data = fields_.data();
  field_offsets_.push_back(static_cast<uint32_t>(fields_.size()));
  fields_.insert(fields_.end(), fields.begin(), fields.end());
  if (fields_.data() != old_data) {
    // The storage moved: point the earlier entries' spans at the new buffer.
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      std::size_t n = entries_[i].fields.size();
      if (n != 0) entries_[i].fields = {fields_.data() + field_offsets_[i], n};
    }
  }
  GroupEntry& e = entries_.emplace_back();
  e.id = id;
  if (!fields.empty()) e.fields = {fields_.data() + field_offsets_.back(), fields.size()};
  return e;
}

ConsumerGroup::ConsumerGroup(std::string_view name, StreamId last_delivered_id,
                             int64_t entries_read)
    : name_(name), last_delivered_id_(last_delivered_id), entries_read_(entries_read) {}

ConsumerGroup::~ConsumerGroup() {
  for (Pel::Iterator it = pel_.begin(); it.valid(); ++it) delete it.entry();
  for (auto it = consumers_.begin(); it.valid(); ++it) delete it.value();
}

// ---- consumers -------------------------------------------------------------------------------

Consumer* ConsumerGroup::find_consumer(std::string_view name) {
  Consumer** c = consumers_.find(name);
  return c ? *c : nullptr;
}

const Consumer* ConsumerGroup::find_consumer(std::string_view name) const {
  Consumer* const* c = consumers_.find(name);
  return c ? *c : nullptr;
}

std::pair<Consumer*, bool> ConsumerGroup::create_consumer(std::string_view name, int64_t now_ms) {
  auto [slot, inserted] = consumers_.insert(name, nullptr);
  if (!inserted) return {*slot, false};
  *slot = new Consumer(name, now_ms);
  return {*slot, true};
}

std::optional<uint64_t> ConsumerGroup::delete_consumer(std::string_view name) {
  Consumer* c = nullptr;
  if (!consumers_.erase(name, &c)) return std::nullopt;
  uint64_t pending = c->pel_.size();
  for (Pel::Iterator it = c->pel_.begin(); it.valid(); ++it) {
    [[maybe_unused]] PendingEntry* e = pel_.erase(it.id());
    assert(e == it.entry() && e->owner == c);
    by_time_.unlink(it.entry());
    delete it.entry();
  }
  delete c;
  return pending;
}

// ---- shared records --------------------------------------------------------------------------

void ConsumerGroup::assign(StreamId id, PendingEntry* e, Consumer* c) {
  if (e->owner == c) return;
  if (e->owner) {
    [[maybe_unused]] PendingEntry* old = e->owner->pel_.erase(id);
    assert(old == e);
  }
  [[maybe_unused]] bool inserted = c->pel_.insert(id, e);
  assert(inserted);
  e->owner = c;
}

void ConsumerGroup::drop(StreamId id, PendingEntry* e) {
  by_time_.unlink(e);
  [[maybe_unused]] PendingEntry* g = pel_.erase(id);
  assert(g == e);
  if (e->owner) {
    [[maybe_unused]] PendingEntry* o = e->owner->pel_.erase(id);
    assert(o == e);
  }
  delete e;
}

PendingEntry* ConsumerGroup::new_record(StreamId id, int64_t time, uint64_t count, Consumer* c) {
  auto* e = new PendingEntry{time, count, nullptr, id};
  pel_.insert(id, e);
  assign(id, e, c);
  by_time_.insert(e);
  return e;
}

void ConsumerGroup::redeliver(PendingEntry* e, Consumer* c, int64_t time) {
  by_time_.unlink(e);  // before the owner changes: a NACKed record leaves the NACK zone
  assign(e->id, e, c);
  e->delivery_time_ms = time;
  by_time_.insert(e);
}

void ConsumerGroup::debug_check_id([[maybe_unused]] StreamId id) const {
#ifndef NDEBUG
  PendingEntry* e = pel_.find(id);
  if (!e) return;
  assert(e->id == id);
  if (!e->owner) return;  // NACKed
  assert(e->owner->pel_.find(id) == e);
  assert(find_consumer(e->owner->name()) == e->owner);
#endif
}

GroupEntry* ConsumerGroup::add_stream_entry(const Stream& s, StreamId id, DeliveryBatch& out) {
  if (!s.lookup(id, scratch_)) return nullptr;
  return &out.add(id, scratch_);
}

// ---- XREADGROUP ------------------------------------------------------------------------------

bool ConsumerGroup::has_new_entries(const Stream& s) const {
  return s.length() != 0 && s.last_entry_id() > last_delivered_id_;
}

ReadResult ConsumerGroup::read_new(const Stream& s, Consumer& c, std::size_t count, bool noack,
                                   int64_t now_ms) {
  assert(find_consumer(c.name()) == &c);
  ReadResult r;
  c.seen_time_ms_ = now_ms;
  std::optional<StreamId> from = last_delivered_id_.next();
  if (from) {
    Stream::Iterator it = s.scan(*from, StreamId::max());
    while ((count == 0 || r.entries.size() < count) && it.next()) {
      StreamId id = it.id();
      entries_read_ = entries_read_after_delivery(s, last_delivered_id_, id, entries_read_);
      last_delivered_id_ = id;
      GroupEntry& out = r.entries.add(id, it.fields());
      if (noack) continue;
      PendingEntry* e = pel_.find(id);
      if (!e) {
        new_record(id, now_ms, 1, &c);
      } else {
        e->delivery_count = 1;
        redeliver(e, &c, now_ms);
      }
      debug_check_id(id);
      out.pending = true;
      out.delivery_time_ms = now_ms;
      out.delivery_count = 1;
    }
  }
  if (!r.entries.empty()) {
    // Redis counts only deliveries that created pending entries as activity: NOACK reads leave
    // active_time alone.
    if (!noack) c.active_time_ms_ = now_ms;
    r.last_id_changed = true;
  }
  r.last_delivered_id = last_delivered_id_;
  r.entries_read = entries_read_;
  return r;
}

ReadResult ConsumerGroup::read_history(const Stream& s, Consumer& c, StreamId start,
                                       std::size_t count, int64_t now_ms) {
  assert(find_consumer(c.name()) == &c);
  ReadResult r;
  c.seen_time_ms_ = now_ms;
  // Only records change below, never the Pel itself, so the iterator stays valid.
  for (Pel::Iterator it = c.pel_.seek(start); it.valid(); ++it) {
    if (count != 0 && r.entries.size() >= count) break;
    StreamId id = it.id();
    GroupEntry* out = add_stream_entry(s, id, r.entries);
    if (!out) {
      r.entries.add(id, {}).deleted = true;
      continue;
    }
    PendingEntry* e = it.entry();
    // Only the time index changes (same owner), so `it` stays valid.
    redeliver(e, &c, now_ms);
    bump_count(*e);
    out->pending = true;
    out->delivery_time_ms = now_ms;
    out->delivery_count = e->delivery_count;
  }
  // A history read is not activity (Redis leaves active_time alone): only new deliveries and
  // claims are.
  r.last_delivered_id = last_delivered_id_;
  r.entries_read = entries_read_;
  return r;
}

// ---- XACK ------------------------------------------------------------------------------------

uint64_t ConsumerGroup::ack(std::span<const StreamId> ids) {
  uint64_t acked = 0;
  for (StreamId id : ids) {
    PendingEntry* e = pel_.find(id);
    if (!e) continue;
    drop(id, e);
    ++acked;
  }
  return acked;
}

}  // namespace streamd::engine
