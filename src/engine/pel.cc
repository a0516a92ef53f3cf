// Pel: records, owners and counts (the run indexes and walks are in pel_runs.cc; see pel.h for
// the layout).
#include "streamd/engine/pel.h"

#include <cassert>

namespace streamd::engine {

// ---- lookups ---------------------------------------------------------------------------------

std::optional<PendingEntry> Pel::find(StreamId id) const {
  const PelRecord* r = tree_.find(PelKey(id).view());
  if (!r) return std::nullopt;
  return entry_of(id, *r);
}

PendingEntry Pel::entry_of(StreamId id, const PelRecord& r) const {
  PendingEntry e;
  e.id = id;
  e.delivery_count = count_of(id, r);
  if (r.owner != kNoOwner) {
    e.delivery_time_ms = r.time;
    e.owner = owners_[r.owner];
  }
  return e;
}

uint64_t Pel::count_of(StreamId id, const PelRecord& r) const {
  if (r.count != kBigCount) return r.count;
  const uint64_t* big = big_counts_.find(PelKey(id).view());
  assert(big);
  return big ? *big : kBigCount;
}

uint64_t Pel::count(StreamId id) const {
  const PelRecord* r = tree_.find(PelKey(id).view());
  return r ? count_of(id, *r) : 0;
}

std::optional<PendingEntry> Pel::time_head() const {
  Iterator it = by_time();
  if (!it.valid()) return std::nullopt;
  return it.entry();
}

bool Pel::OwnerView::contains(StreamId id) const {
  const PelRecord* r = pel_->tree_.find(PelKey(id).view());
  return r && r->owner == owner_;
}

// ---- owners ----------------------------------------------------------------------------------

uint32_t Pel::add_owner(const Consumer* c) {
  if (!free_owners_.empty()) {
    uint32_t o = free_owners_.back();
    free_owners_.pop_back();
    owners_[o] = c;
    owner_sizes_[o] = 0;
    return o;
  }
  // kNoOwner is never a slot: 2^32 - 1 consumers in one group would need far more memory than
  // any machine has (a consumer costs well over 100 bytes).
  assert(owners_.size() < kUnlinked);
  owners_.push_back(c);
  owner_sizes_.push_back(0);
  return static_cast<uint32_t>(owners_.size() - 1);
}

void Pel::remove_owner(uint32_t owner) {
  assert(owner_sizes_[owner] == 0);
  owners_[owner] = nullptr;
  free_owners_.push_back(owner);
}

// ---- changes ---------------------------------------------------------------------------------

void Pel::account(const PelRecord& r, int delta) {
  if (r.owner == kNoOwner) {
    nacked_ += static_cast<std::size_t>(delta);
  } else {
    owner_sizes_[r.owner] += static_cast<std::size_t>(delta);
  }
}

void Pel::store_count(StreamId id, PelRecord* r, uint64_t count) {
  if (count >= kBigCount) {
    PelKey k(id);
    auto [v, inserted] = big_counts_.insert(k.view(), count);
    if (!inserted) *v = count;
    r->count = kBigCount;
    return;
  }
  if (r->count == kBigCount) big_counts_.erase(PelKey(id).view());
  r->count = static_cast<uint32_t>(count);
}

bool Pel::insert_record(StreamId id, PelRecord rec, uint64_t count) {
  PelKey k(id);
  auto [r, inserted] = tree_.insert(k.view(), rec);
  if (!inserted) return false;
  r->count = 0;
  store_count(id, r, count);
  account(*r, 1);
  Neighbours nb = neighbours(id);
  attach(Index::kOwner, id, attr(Index::kOwner, *r), nb);
  attach(Index::kTime, id, attr(Index::kTime, *r), nb);
  return true;
}

bool Pel::add(StreamId id, int64_t time, uint64_t count, uint32_t owner) {
  assert(owner != kNoOwner && owners_[owner] != nullptr);
  return insert_record(id, PelRecord{time, 0, owner}, count);
}

int64_t Pel::next_release(StreamId id) {
  // Releases in ascending ID order share one release number: the zone walks a number's records
  // in ID order, which is then their release order.
  if (release_seq_ == 0 || !(id > last_release_id_)) ++release_seq_;
  last_release_id_ = id;
  return release_seq_;
}

bool Pel::add_nacked(StreamId id, uint64_t count) {
  if (contains(id)) return false;
  return insert_record(id, PelRecord{next_release(id), 0, kNoOwner}, count);
}

void Pel::change(StreamId id, PelRecord* r, uint32_t owner, int64_t time) {
  PelRecord next{time, r->count, owner};
  Attr old_owner = attr(Index::kOwner, *r), new_owner = attr(Index::kOwner, next);
  Attr old_time = attr(Index::kTime, *r), new_time = attr(Index::kTime, next);
  bool owner_moves = !(old_owner == new_owner);
  bool time_moves = !(old_time == new_time);
  if (owner_moves || time_moves) {
    Neighbours nb = neighbours(id);
    if (owner_moves) {
      detach(Index::kOwner, id, old_owner, nb);
      attach(Index::kOwner, id, new_owner, nb);
    }
    if (time_moves) {
      detach(Index::kTime, id, old_time, nb);
      attach(Index::kTime, id, new_time, nb);
    }
  }
  account(*r, -1);
  r->owner = owner;
  r->time = time;
  account(*r, 1);
}

void Pel::redeliver(StreamId id, uint32_t owner, int64_t time) {
  assert(owner != kNoOwner && owners_[owner] != nullptr);
  PelRecord* r = tree_.find(PelKey(id).view());
  assert(r);
  change(id, r, owner, time);
}

void Pel::release(StreamId id) {
  PelRecord* r = tree_.find(PelKey(id).view());
  assert(r);
  change(id, r, kNoOwner, next_release(id));
}

uint64_t Pel::bump_count(StreamId id) {
  PelRecord* r = tree_.find(PelKey(id).view());
  assert(r);
  uint64_t n = bumped(count_of(id, *r));
  store_count(id, r, n);
  return n;
}

void Pel::set_count(StreamId id, uint64_t count) {
  PelRecord* r = tree_.find(PelKey(id).view());
  assert(r);
  store_count(id, r, count);
}

bool Pel::erase(StreamId id) {
  PelKey k(id);
  PelRecord* r = tree_.find(k.view());
  if (!r) return false;
  Neighbours nb = neighbours(id);
  detach(Index::kOwner, id, attr(Index::kOwner, *r), nb);
  detach(Index::kTime, id, attr(Index::kTime, *r), nb);
  account(*r, -1);
  if (r->count == kBigCount) big_counts_.erase(k.view());
  tree_.erase(k.view());
  return true;
}

void Pel::clear() {
  tree_.clear();
  runs_[0].clear();
  runs_[1].clear();
  big_counts_.clear();
  for (std::size_t& n : owner_sizes_) n = 0;
  nacked_ = 0;
}

std::size_t Pel::memory_usage() const {
  // The slot tables by size, not capacity: a copy (COPY) then reports what the original does.
  auto vec = [](const auto& v) {
    return v.empty() ? 0 : malloc_size_estimate(v.size() * sizeof(v[0]));
  };
  return tree_.memory_usage() + runs_[0].memory_usage() + runs_[1].memory_usage() +
         big_counts_.memory_usage() + vec(owners_) + vec(owner_sizes_) + vec(free_owners_);
}

}  // namespace streamd::engine
