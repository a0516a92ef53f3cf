// PendingEntry and Pel: the pending entries list (PEL) of a consumer group.
//
// A PendingEntry is the one record Redis calls a NACK: an entry delivered to a consumer and not
// acknowledged yet. It is a heap object with a stable address, owned by its ConsumerGroup and
// reachable three ways:
//   - from the group's PEL, which holds every pending entry of the group, by ID;
//   - from the PEL of its owner consumer, which holds that consumer's share, by ID;
//   - from the group's time index (PelTimeIndex below), a doubly linked list threaded through
//     the records themselves, in delivery-time order (XREADGROUP CLAIM, XNACK).
// Both Pels are keyed by the entry's ID (see PelKey: byte order is ID order), and the two
// pointers for one ID are always the same object: changing the owner moves the pointer from one
// consumer's Pel to another's and rewrites `owner`; nothing is ever copied. ConsumerGroup keeps
// that invariant (and checks it in debug builds).
//
// An entry released by XNACK (Redis 8.8) has no owner (owner == nullptr), delivery time 0, is in
// no consumer Pel, and sits in the "NACK zone" at the head of the time index.
//
// Memory (tests/unit/engine/pel_memory_test.cc, 1M pending entries, 4 consumers, 16 / 1 entries
// per ms): before the time index the record was 24 bytes (a 32-byte malloc chunk) and the PEL
// cost 57.8 / 50.9 bytes per pending entry; the index adds the ID (needed to get from the list
// back to the trees) and two pointers, 56 bytes, which malloc would round to 64 (89.8 / 82.9);
// records therefore come from a slot pool (56 bytes each): 81.8 / 74.9 bytes per pending entry,
// +24. Each Pel costs about 10-12 bytes per key when consecutive IDs differ in their last key
// byte (they then share a tree node and are stored inline in it; see RadixTree and PelKey).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "streamd/engine/radix_tree.h"
#include "streamd/engine/stream_id.h"

namespace streamd::engine {

class Consumer;

struct PendingEntry {
  int64_t delivery_time_ms = 0;  // Unix ms of the last delivery (or what XCLAIM IDLE/TIME set)
  uint64_t delivery_count = 0;   // deliveries so far (XCLAIM RETRYCOUNT may set any value)
  Consumer* owner = nullptr;     // the consumer whose PEL also holds this record; null = NACKed
  StreamId id;                   // the entry's ID (the time index has no other way to it)
  PendingEntry* time_prev = nullptr;  // neighbours in the group's PelTimeIndex
  PendingEntry* time_next = nullptr;

  // Records live in a pool of fixed-size slots (pel_pool.cc), not one malloc chunk each: 56
  // bytes instead of malloc's 64 for this size. Freed slots are reused by later records (of any
  // group); the pool keeps its peak size. Sanitizer builds use plain new/delete.
  static void* operator new(std::size_t size);
  static void operator delete(void* p) noexcept;
  // Heap bytes one record costs.
  static std::size_t record_bytes();
  // False in sanitizer builds (plain new/delete there).
  static bool pooled();
  // The pool: bytes obtained from malloc, and bytes of the slots holding live records.
  static std::size_t pool_reserved_bytes();
  static std::size_t pool_used_bytes();
};

// The time-ordered index of a group's PEL: a doubly linked list through the records,
//   [head .. nack_tail]  [owned records ..................... tail]
//    NACK zone (FIFO)     ordered by (delivery_time_ms, id)
// The NACK zone holds exactly the records with owner == nullptr, in the order XNACK released
// them; every other record is in the owned part, ascending by delivery time, ties by ID. So the
// k records a claim wants (NACKed first, then the idlest) are the first k: O(k).
// Costs: unlink and push_nacked are O(1). insert() walks to the record's place from the nearer
// end of the owned part: deliveries happen at "now", which is never older than the tail except
// when the system clock stepped back, so they are O(1) appends (a tie in the same millisecond
// walks back over the same-millisecond records with greater IDs); XCLAIM IDLE/TIME (and AOF
// replay of a claim with an old TIME) places a record at an arbitrary time and pays the walk,
// O(min(records before it, records after it)) in the owned part.
// The caller keeps the zone rule: unlink a record before changing its owner, and link NACKed
// records with push_nacked(), owned ones with insert().
class PelTimeIndex {
 public:
  PendingEntry* head() const { return head_; }
  PendingEntry* tail() const { return tail_; }
  std::size_t nacked() const { return nacked_; }
  std::size_t size() const { return size_; }

  // Appends a NACKed record (owner == nullptr) to the end of the NACK zone.
  void push_nacked(PendingEntry* e);
  // Inserts an owned record at its (delivery_time_ms, id) place.
  void insert(PendingEntry* e);
  // Removes a linked record (its owner must still be what it was when it was linked).
  void unlink(PendingEntry* e);
  void clear() { head_ = tail_ = nack_tail_ = nullptr, nacked_ = size_ = 0; }

  // Links, order, zone and counts; on failure says which in *why.
  bool check(std::string* why) const;

 private:
  static bool before(const PendingEntry* a, const PendingEntry* b) {
    return a->delivery_time_ms != b->delivery_time_ms ? a->delivery_time_ms < b->delivery_time_ms
                                                      : a->id < b->id;
  }
  void link_after(PendingEntry* pos, PendingEntry* e);  // pos == nullptr: at the head

  PendingEntry* head_ = nullptr;
  PendingEntry* tail_ = nullptr;
  PendingEntry* nack_tail_ = nullptr;  // last record of the NACK zone, or null if it is empty
  std::size_t nacked_ = 0;
  std::size_t size_ = 0;
};

// A PEL tree key: an ID in a compact, order-preserving encoding (byte order = ID order):
//   ms      8 bytes big-endian;
//   seq     nothing when 0; one byte for 1..247; else one byte 0xF7 + n followed by the n bytes
//           of seq big-endian (n = 1..8, minimal).
// Why not the plain 16 bytes: IDs made by XADD * at ordinary rates all have seq 0 and differ in
// the last bytes of ms. With 16-byte keys each would then need a leaf node of its own for its
// 8 seq bytes (about 41 bytes per key and tree); dropping the zero seq makes consecutive IDs
// differ in their last byte, so the RadixTree keeps them inline (about 10 bytes per key). IDs
// made in bursts (many per millisecond) cost the same as with 16-byte keys.
// No key is a prefix of another key with the same ms except the seq-0 key, which sorts first,
// as 0 does.
class PelKey {
 public:
  static constexpr std::size_t kMaxSize = 17;
  static constexpr uint64_t kOneByteMax = 0xF7;

  explicit PelKey(StreamId id) {
    for (int i = 0; i < 8; ++i) bytes_[i] = static_cast<uint8_t>(id.ms >> (56 - 8 * i));
    len_ = 8;
    if (id.seq == 0) return;
    if (id.seq <= kOneByteMax) {
      bytes_[len_++] = static_cast<uint8_t>(id.seq);
      return;
    }
    int n = 1;
    while (n < 8 && (id.seq >> (8 * n)) != 0) ++n;
    bytes_[len_++] = static_cast<uint8_t>(kOneByteMax + n);
    for (int i = n - 1; i >= 0; --i) bytes_[len_++] = static_cast<uint8_t>(id.seq >> (8 * i));
  }
  std::string_view view() const { return {reinterpret_cast<const char*>(bytes_), len_}; }

  // The ID of a key made by PelKey.
  static StreamId decode(std::string_view key) {
    auto byte = [&](std::size_t i) { return static_cast<uint64_t>(static_cast<uint8_t>(key[i])); };
    StreamId id;
    for (std::size_t i = 0; i < 8; ++i) id.ms = (id.ms << 8) | byte(i);
    if (key.size() == 9) {
      id.seq = byte(8);
    } else if (key.size() > 9) {
      for (std::size_t i = 9; i < key.size(); ++i) id.seq = (id.seq << 8) | byte(i);
    }
    return id;
  }

 private:
  uint8_t bytes_[kMaxSize];
  std::size_t len_;
};

// An ordered map ID → PendingEntry* that does not own the records.
class Pel {
  using Tree = RadixTree<PendingEntry*>;

 public:
  // Walks a Pel in ID order. Any insert or erase on the same Pel invalidates it (changing a
  // record it points to does not).
  class Iterator {
   public:
    Iterator() = default;
    bool valid() const { return it_.valid(); }
    explicit operator bool() const { return valid(); }
    StreamId id() const { return PelKey::decode(it_.key()); }
    PendingEntry* entry() const { return it_.value(); }
    Iterator& operator++() {
      ++it_;
      return *this;
    }

   private:
    friend class Pel;
    explicit Iterator(Tree::ConstIterator it) : it_(std::move(it)) {}
    Tree::ConstIterator it_;
  };

  std::size_t size() const { return tree_.size(); }
  bool empty() const { return tree_.empty(); }

  PendingEntry* find(StreamId id) const {
    PelKey k(id);
    PendingEntry* const* v = tree_.find(k.view());
    return v ? *v : nullptr;
  }
  // Adds id → e; false (and no change) if the ID is present.
  bool insert(StreamId id, PendingEntry* e) {
    PelKey k(id);
    return tree_.insert(k.view(), e).second;
  }
  // Removes the ID and returns its record, or nullptr if it was not there.
  PendingEntry* erase(StreamId id) {
    PelKey k(id);
    PendingEntry* out = nullptr;
    tree_.erase(k.view(), &out);
    return out;
  }
  void clear() { tree_.clear(); }

  Iterator begin() const { return Iterator(tree_.begin()); }
  // The first ID >= from (kGe) or > from (kGt).
  Iterator seek(StreamId from, SeekOp op = SeekOp::kGe) const {
    PelKey k(from);
    return Iterator(tree_.seek(op, k.view()));
  }
  // Smallest and greatest IDs; only on a non-empty Pel.
  StreamId first_id() const { return begin().id(); }
  StreamId last_id() const { return PelKey::decode(tree_.last().key()); }

  // Heap bytes of the tree (not of the records).
  std::size_t memory_usage() const { return tree_.memory_usage(); }
  bool check_tree() const { return tree_.check_invariants(); }

 private:
  Tree tree_;
};

}  // namespace streamd::engine
