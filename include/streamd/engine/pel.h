// PendingEntry and Pel: the pending entries list (PEL) of a consumer group.
//
// A PendingEntry is the one record Redis calls a NACK: an entry delivered to a consumer and not
// acknowledged yet. It is a heap object with a stable address, owned by its ConsumerGroup and
// pointed to from two Pels:
//   - the group's PEL, which holds every pending entry of the group, and
//   - the PEL of its owner consumer, which holds that consumer's share.
// Both are keyed by the entry's ID (see PelKey: byte order is ID order), and the two
// pointers for one ID are always the same object: changing the owner moves the pointer from one
// consumer's Pel to another's and rewrites `owner`; nothing is ever copied. ConsumerGroup keeps
// that invariant (and checks it in debug builds).
//
// Memory: the record is 24 bytes (32 with malloc's header); each Pel costs about 10-12 bytes per
// key when consecutive IDs differ in their last key byte (they then share a tree node and are
// stored inline in it; see RadixTree and PelKey).
//
// Room to grow: Redis 8.4 (XREADGROUP CLAIM) threads a doubly linked list through the records in
// delivery-time order, and 8.8 (XNACK) keeps unowned (owner == nullptr) entries at its head.
// Because the record is a stable heap object, that index is two more pointers here and no change
// to the trees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "streamd/engine/radix_tree.h"
#include "streamd/engine/stream_id.h"

namespace streamd::engine {

class Consumer;

struct PendingEntry {
  int64_t delivery_time_ms = 0;  // Unix ms of the last delivery (or what XCLAIM IDLE/TIME set)
  uint64_t delivery_count = 0;   // deliveries so far (XCLAIM RETRYCOUNT may set any value)
  Consumer* owner = nullptr;     // the consumer whose PEL also holds this record
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
