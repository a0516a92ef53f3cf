// PointerSet<T>: a set of non-null T* with O(1) insert and erase, a uniform random pick and a
// resumable cursor. A database keeps the dict nodes of its keys that have a TTL in one (Redis's
// db->expires): active expiry walks it with the cursor and the volatile-* eviction policies pick
// from it, so neither has to look through the keys without a TTL.
//
// Open addressing with linear probing over a power-of-two table (slots_). erase moves later
// members of the probe run back into the hole (no tombstones), so a lookup ends at the first empty
// slot. Invariants: slots_ is empty or its size is a power of two >= kMinSlots; at most half of
// it is used once a resize is over (insert grows past that); at least an eighth once it is larger
// than kMinSlots (erase shrinks below that), so random() finds a member within a few probes.
//
// Resizing is incremental from kIncrementalSlots on, like Dict's: doubling a table of 4 million
// at once stopped the server for 0.35 s. The old table becomes old_ and every insert and erase
// moves kMigrateSlots of its slots, in order, into the new slots_. A moved (or erased) old slot
// becomes a tombstone, never empty, so the probe runs of the old members still waiting stay
// whole; lookups try slots_, then old_. Nothing is inserted into old_.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "streamd/engine/zeroed_array.h"

namespace streamd::engine {

template <class T>
class PointerSet {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The tables' own bytes (MEMORY STATS overhead.hashtable.expires).
  std::size_t table_bytes() const { return (slots_.size() + old_.size()) * sizeof(T*); }
  bool migrating() const { return !old_.empty(); }

  // `p` must not be a member.
  void insert(T* p) {
    assert(p && p != tomb() && !contains(p));
    if (migrating()) migrate(kMigrateSlots);
    // A resize normally ends long before the new table is half full (it needs a quarter as many
    // steps as the new table has slots to half-fill); should inserts outrun it, it ends now.
    if (migrating() && (size_ + 1) * 2 > slots_.size()) migrate(old_.size());
    if (!migrating() && (size_ + 1) * 2 > slots_.size()) {
      resize(slots_.empty() ? kMinSlots : slots_.size() * 2);
    }
    place(slots_, p);
    ++size_;
  }

  // False if `p` was not a member.
  bool erase(T* p) {
    if (size_ == 0) return false;
    if (migrating()) migrate(kMigrateSlots);
    if (!erase_from_slots(p)) {
      T** s = find(old_, p);
      if (!s) return false;
      *s = tomb();
    }
    --size_;
    if (!migrating() && slots_.size() > kMinSlots && size_ * 8 < slots_.size()) {
      resize(slots_.size() / 2);
    }
    return true;
  }

  bool contains(const T* p) const { return find(slots_, p) || find(old_, p); }

  // A member chosen uniformly (random slots of either table until a member); nullptr when empty.
  template <class Rng>
  T* random(Rng& rng) const {
    if (size_ == 0) return nullptr;
    const std::size_t total = slots_.size() + old_.size();
    for (;;) {
      std::size_t i = rng() % total;
      T* s = i < slots_.size() ? slots_[i] : old_[i - slots_.size()];
      if (s && s != tomb()) return s;
    }
  }

  // Visits the members in the slots from `cursor` on (old_'s, then slots_'s: a member moved
  // during a walk goes from a part not yet walked to one not yet walked), until `count` were
  // visited or the tables end; returns the cursor to continue from, 0 after the last slot.
  // `visit` must not change the set. Members inserted or erased between calls (and a resize
  // starting or ending) may make a pass miss or repeat some: a walk for sampling, not an exact
  // enumeration.
  template <class F>
  std::size_t scan(std::size_t cursor, std::size_t count, F&& visit) const {
    std::size_t seen = 0;
    const std::size_t total = old_.size() + slots_.size();
    for (std::size_t i = cursor; i < total; ++i) {
      if (seen == count) return i;
      T* s = i < old_.size() ? old_[i] : slots_[i - old_.size()];
      if (s && s != tomb()) {
        visit(s);
        ++seen;
      }
    }
    return 0;
  }

  void clear() {
    slots_ = ZeroedArray<T*>();
    old_ = ZeroedArray<T*>();
    old_pos_ = 0;
    size_ = 0;
  }

  void swap(PointerSet& o) noexcept {
    slots_.swap(o.slots_);
    old_.swap(o.old_);
    std::swap(old_pos_, o.old_pos_);
    std::swap(size_, o.size_);
    std::swap(incremental_from_, o.incremental_from_);
  }

  // Resizes to at least this many slots are incremental (tests lower it).
  static constexpr std::size_t kIncrementalSlots = 4096;
  void set_incremental_from(std::size_t slots) { incremental_from_ = slots; }

 private:
  static constexpr std::size_t kMinSlots = 16;
  static constexpr std::size_t kMigrateSlots = 16;

  // Marks an old_ slot whose member moved or was erased. No T lives at address 1.
  static T* tomb() { return reinterpret_cast<T*>(std::uintptr_t{1}); }

  // Fibonacci hashing of the address: the top bits of a multiply spread the low-entropy
  // (aligned, allocator-ordered) addresses over the table.
  static std::size_t home(const ZeroedArray<T*>& table, const T* p) {
    auto bits = static_cast<unsigned>(std::countr_zero(table.size()));
    uint64_t h = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h >> (64 - bits));
  }

  // The slot holding `p` in `table`, or nullptr. Tombstones do not end a probe run.
  static T** find(const ZeroedArray<T*>& table, const T* p) {
    if (table.empty()) return nullptr;
    const std::size_t mask = table.size() - 1;
    for (std::size_t i = home(table, p); table[i]; i = (i + 1) & mask) {
      if (table[i] == p) return const_cast<T**>(&table[i]);
    }
    return nullptr;
  }

  static void place(ZeroedArray<T*>& table, T* p) {
    const std::size_t mask = table.size() - 1;
    std::size_t i = home(table, p);
    while (table[i]) i = (i + 1) & mask;
    table[i] = p;
  }

  bool erase_from_slots(T* p) {
    T** found = find(slots_, p);
    if (!found) return false;
    const std::size_t mask = slots_.size() - 1;
    auto i = static_cast<std::size_t>(found - slots_.begin());
    // Backward shift: a later member of the run whose home is not between the hole and itself
    // (cyclically) would be unreachable past the hole, so it moves into it.
    for (std::size_t j = (i + 1) & mask; slots_[j]; j = (j + 1) & mask) {
      std::size_t h = home(slots_, slots_[j]);
      bool reachable = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (reachable) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i] = nullptr;
    return true;
  }

  void resize(std::size_t count) {
    ZeroedArray<T*> fresh(count);
    fresh.swap(slots_);
    if (count < incremental_from_ && fresh.size() < incremental_from_) {
      for (T* p : fresh) {
        if (p) place(slots_, p);
      }
      return;
    }
    old_ = std::move(fresh);
    old_pos_ = 0;
  }

  // Moves the next `n` slots of old_ into slots_; frees old_ after its last.
  void migrate(std::size_t n) {
    for (; n > 0 && old_pos_ < old_.size(); --n, ++old_pos_) {
      T*& s = old_[old_pos_];
      if (!s) continue;
      if (s != tomb()) place(slots_, s);
      s = tomb();
    }
    if (old_pos_ == old_.size()) {
      old_ = ZeroedArray<T*>();
      old_pos_ = 0;
    }
  }

  ZeroedArray<T*> slots_;
  ZeroedArray<T*> old_;      // while migrating: the table being emptied; empty otherwise
  std::size_t old_pos_ = 0;  // while migrating: old_[0, old_pos_) were moved
  std::size_t size_ = 0;     // members in slots_ and old_
  std::size_t incremental_from_ = kIncrementalSlots;
};

}  // namespace streamd::engine
