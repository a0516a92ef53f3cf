// PointerSet<T>: a set of non-null T* with O(1) insert and erase, a uniform random pick and a
// resumable cursor. A database keeps the dict nodes of its keys that have a TTL in one (Redis's
// db->expires): active expiry walks it with the cursor and the volatile-* eviction policies pick
// from it, so neither has to look through the keys without a TTL.
//
// Open addressing with linear probing over a power-of-two table. erase moves later members of the
// probe run back into the hole (no tombstones), so a lookup ends at the first empty slot.
// Invariants: slots_ is empty or its size is a power of two >= kMinSlots; at most half the slots
// are used (insert grows past that); at least an eighth are once the table is larger than
// kMinSlots (erase shrinks below that), so random() finds a member within a few probes.
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
  // The table's own bytes (MEMORY STATS overhead.hashtable.expires).
  std::size_t table_bytes() const { return slots_.size() * sizeof(T*); }

  // `p` must not be a member.
  void insert(T* p) {
    assert(p && !contains(p));
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? kMinSlots : slots_.size() * 2);
    std::size_t i = home(p);
    while (slots_[i]) i = (i + 1) & mask();
    slots_[i] = p;
    ++size_;
  }

  // False if `p` was not a member.
  bool erase(T* p) {
    if (slots_.empty()) return false;
    std::size_t i = home(p);
    while (slots_[i] != p) {
      if (!slots_[i]) return false;
      i = (i + 1) & mask();
    }
    // Backward shift: a later member of the run whose home is not between the hole and itself
    // (cyclically) would be unreachable past the hole, so it moves into it.
    for (std::size_t j = (i + 1) & mask(); slots_[j]; j = (j + 1) & mask()) {
      std::size_t h = home(slots_[j]);
      bool reachable = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (reachable) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i] = nullptr;
    --size_;
    if (slots_.size() > kMinSlots && size_ * 8 < slots_.size()) rehash(slots_.size() / 2);
    return true;
  }

  bool contains(const T* p) const {
    if (slots_.empty()) return false;
    for (std::size_t i = home(p); slots_[i]; i = (i + 1) & mask()) {
      if (slots_[i] == p) return true;
    }
    return false;
  }

  // A member chosen uniformly (random slots until a used one); nullptr when empty.
  template <class Rng>
  T* random(Rng& rng) const {
    if (size_ == 0) return nullptr;
    for (;;) {
      if (T* p = slots_[rng() & mask()]) return p;
    }
  }

  // Visits the members in the slots from `cursor` on, until `count` were visited or the table
  // ends; returns the cursor to continue from, 0 after the last slot. `visit` must not change the
  // set. Members inserted or erased between calls (and a resize) may make a pass miss or repeat
  // some members: a walk for sampling, not an exact enumeration.
  template <class F>
  std::size_t scan(std::size_t cursor, std::size_t count, F&& visit) const {
    std::size_t seen = 0;
    for (std::size_t i = cursor; i < slots_.size(); ++i) {
      if (seen == count) return i;
      if (T* p = slots_[i]) {
        visit(p);
        ++seen;
      }
    }
    return 0;
  }

  void clear() {
    slots_ = ZeroedArray<T*>();
    size_ = 0;
  }

  void swap(PointerSet& o) noexcept {
    slots_.swap(o.slots_);
    std::swap(size_, o.size_);
  }

 private:
  static constexpr std::size_t kMinSlots = 16;

  std::size_t mask() const { return slots_.size() - 1; }
  // Fibonacci hashing of the address: the top bits of a multiply spread the low-entropy
  // (aligned, allocator-ordered) addresses over the table.
  std::size_t home(const T* p) const {
    auto bits = static_cast<unsigned>(std::countr_zero(slots_.size()));
    uint64_t h = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h >> (64 - bits));
  }

  void rehash(std::size_t count) {
    ZeroedArray<T*> old(count);
    old.swap(slots_);
    for (T* p : old) {
      if (!p) continue;
      std::size_t i = home(p);
      while (slots_[i]) i = (i + 1) & mask();
      slots_[i] = p;
    }
  }

  ZeroedArray<T*> slots_;
  std::size_t size_ = 0;
};

}  // namespace streamd::engine
