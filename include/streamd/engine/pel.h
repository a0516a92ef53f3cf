// Pel: the pending entries list (PEL) of a consumer group, and PendingEntry, the view of one of
// its records.
//
// A pending entry (what Redis calls a NACK) is an entry delivered to a consumer and not
// acknowledged yet: its ID, delivery time, delivery count and owner. The Pel answers three walks:
//   - by ID over the whole group (XPENDING, XAUTOCLAIM, XINFO STREAM FULL, AOF rewrite);
//   - by ID over one owner's share (XPENDING ... consumer, XREADGROUP with an ID, XINFO);
//   - in claim order, "the time index" (XREADGROUP CLAIM, XNACK, AOF rewrite):
//       [NACK zone, in release order] [owned records by (delivery time, ID)]
//     The NACK zone holds exactly the records released by XNACK (Redis 8.8): no owner, delivery
//     time 0. So the k records a claim wants (NACKed first, then the idlest) are the first k.
//
// Representation (issue 16: memory per pending entry). One radix tree holds the records
// themselves, 16 bytes inline in the tree (PelRecord: time, a 32-bit count, a 32-bit owner
// slot), keyed by PelKey. The other two walks do not index records one by one: they index
// *runs*. A run is a maximal sequence of records that are consecutive in ID order (in the tree)
// and share an attribute: the owner for the owner walks, the (zone, delivery time or release
// number) for the time walk. Deliveries come in batches (one XREADGROUP COUNT n hands n
// consecutive IDs to one consumer at one time), so a run usually covers many records, and a run
// costs one key in a small tree. Walking an owner or the time index = walking its runs in key
// order and, inside each, the record tree from the run's first ID to its last: every record
// between them has the attribute (that is what maximal runs over consecutive records mean).
// Each record change looks at its two neighbours in ID order to split, extend, shrink or merge
// runs: O(log n) per change, O(1) per step of a walk, O(k + runs) for k records.
// Invariants (check() verifies them, debug builds check each touched ID):
//   - the runs of each index are exactly the maximal same-attribute runs of the record tree
//     (canonical: recomputing them from the records gives the same keys and ends);
//   - NACKed records (owner kNoOwner) have no owner run; the others' owner is a live slot;
//   - per-owner counts and the NACKed count add up to size(); a count of kBigCount means the
//     real value (>= 2^32 - 1) is in big_counts_.
// Memory: 17-36 bytes per pending entry (tests/unit/engine/pel_memory_test.cc), against
// 75-82 for the earlier layout (56-byte records in a slot pool, the group tree and one tree per
// consumer, each keyed per record, and a list threaded through the records).
// The engine runs on one thread (the Redis model); a fork (AOF rewrite child) only reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/engine/radix_tree.h"
#include "streamd/engine/stream_id.h"

namespace streamd::engine {

class Consumer;

// One pending entry, by value (built from the record; changing the PEL does not change it).
struct PendingEntry {
  StreamId id;
  int64_t delivery_time_ms = 0;     // Unix ms of the last delivery; 0 for a NACKed entry
  uint64_t delivery_count = 0;      // deliveries so far (XCLAIM RETRYCOUNT may set any value)
  const Consumer* owner = nullptr;  // null = released by XNACK
};

// A PEL tree key: an ID in a compact, order-preserving encoding (byte order = ID order):
//   head   9 bytes, big-endian, of the 66-bit number ms * 4 + min(seq, 3);
//   tail   only when seq > 3, of r = seq - 3: one byte for 1..247, else one byte 0xF7 + n
//          followed by the n bytes of r big-endian (n = 1..8, minimal).
// Why not the plain 16 bytes (ms then seq): a radix tree keeps a key inline in its parent's slot
// only when the key ends at the byte where it branches off. IDs one per millisecond (XADD * at
// ordinary rates, or explicit `N-1` IDs) differ in the low bits of ms; with seq after ms every
// one of them would need a leaf node of its own (about 48 bytes) for its seq bytes. With the
// small seqs 0..3 in the head's lowest bits, consecutive IDs differ in the head's last byte and
// sit inline (64 to a node). A burst of many IDs in one millisecond shares the head and differs
// in the tail's last byte: inline as well.
// Order: heads compare as the numbers they encode, so by ms first and then by min(seq, 3); only
// seqs >= 3 of one ms share a head, and their tails (empty for 3, then one byte, then longer
// tags) compare as r does. No key is a prefix of another except the tail-less key of seq 3.
class PelKey {
 public:
  static constexpr int kSeqBits = 2;  // the head's low bits, holding min(seq, kHeadSeqs - 1)
  static constexpr uint64_t kHeadSeqs = uint64_t{1} << kSeqBits;  // seqs 0..3 need no tail
  static constexpr std::size_t kHeadSize = 9;  // 64 + kSeqBits bits, rounded up to bytes
  static constexpr std::size_t kMaxSize = kHeadSize + 1 + 8;
  static constexpr uint64_t kOneByteMax = 0xF7;

  explicit PelKey(StreamId id) {
    constexpr uint64_t kTop = kHeadSeqs - 1;  // the seq that starts the tailed range
    const uint64_t low = id.seq < kTop ? id.seq : kTop;
    const uint64_t head_low = (id.ms << kSeqBits) | low;  // the head's low 64 bits
    bytes_[0] = static_cast<uint8_t>(id.ms >> (64 - kSeqBits));
    for (int i = 0; i < 8; ++i) bytes_[1 + i] = static_cast<uint8_t>(head_low >> (56 - 8 * i));
    len_ = kHeadSize;
    if (id.seq <= kTop) return;
    const uint64_t r = id.seq - kTop;
    if (r <= kOneByteMax) {
      bytes_[len_++] = static_cast<uint8_t>(r);
      return;
    }
    int n = 1;
    while (n < 8 && (r >> (8 * n)) != 0) ++n;
    bytes_[len_++] = static_cast<uint8_t>(kOneByteMax + n);
    for (int i = n - 1; i >= 0; --i) bytes_[len_++] = static_cast<uint8_t>(r >> (8 * i));
  }
  std::string_view view() const { return {reinterpret_cast<const char*>(bytes_), len_}; }

  // The ID of a key made by PelKey.
  static StreamId decode(std::string_view key) {
    auto byte = [&](std::size_t i) { return static_cast<uint64_t>(static_cast<uint8_t>(key[i])); };
    uint64_t head_low = 0;
    for (std::size_t i = 1; i < kHeadSize; ++i) head_low = (head_low << 8) | byte(i);
    StreamId id;
    id.ms = (byte(0) << (64 - kSeqBits)) | (head_low >> kSeqBits);
    id.seq = head_low & (kHeadSeqs - 1);
    if (key.size() == kHeadSize + 1) {
      id.seq += byte(kHeadSize);
    } else if (key.size() > kHeadSize + 1) {
      uint64_t r = 0;
      for (std::size_t i = kHeadSize + 1; i < key.size(); ++i) r = (r << 8) | byte(i);
      id.seq += r;
    }
    return id;
  }

 private:
  uint8_t bytes_[kMaxSize];
  std::size_t len_;
};

// A record as the tree stores it (inline, 16 bytes).
struct PelRecord {
  int64_t time;    // delivery time; for a NACKed record its release number (see Pel::release)
  uint32_t count;  // delivery count, or Pel::kBigCount (the value is then in big_counts_)
  uint32_t owner;  // owner slot (Pel::add_owner), or Pel::kNoOwner when NACKed
};

class Pel {
 public:
  static constexpr uint32_t kNoOwner = 0xFFFFFFFF;
  static constexpr uint32_t kBigCount = 0xFFFFFFFF;
  static constexpr uint64_t kMaxCount = 0x7FFFFFFFFFFFFFFF;

  // The two run indexes.
  enum class Index : uint8_t { kOwner = 0, kTime = 1 };

  // Walks records: all of them in ID order, one owner's share in ID order, or the time index in
  // claim order. add/add_nacked/erase invalidate every iterator. redeliver/release/set_count
  // change records in place: an ID walk stays valid, and so does an owner walk across changes
  // that keep the owner (they touch only the time index), but a time walk does not survive a
  // change of time or owner.
  class Iterator {
   public:
    Iterator() = default;
    bool valid() const { return rec_.valid(); }
    explicit operator bool() const { return valid(); }
    StreamId id() const { return PelKey::decode(rec_.key()); }
    PendingEntry entry() const { return pel_->entry_of(id(), rec_.value()); }
    const PelRecord& record() const { return rec_.value(); }
    Iterator& operator++();

   private:
    friend class Pel;
    using RecIt = RadixTree<PelRecord>::ConstIterator;
    using RunIt = RadixTree<StreamId>::ConstIterator;
    // Positions rec_ on the current run's first record (or invalidates when runs are over).
    void enter_run();

    const Pel* pel_ = nullptr;
    RecIt rec_;
    bool by_runs_ = false;
    RunIt run_;
    StreamId run_end_;
    std::size_t attr_len_ = 0;  // bytes of attribute before the run's first ID in run_'s key
    std::string prefix_;        // by_runs_: only runs whose key starts with this (one owner)
  };

  // One owner's share, as a read-only view (what Consumer::pel() returns).
  class OwnerView {
   public:
    OwnerView(const Pel& pel, uint32_t owner) : pel_(&pel), owner_(owner) {}
    std::size_t size() const { return pel_->owner_size(owner_); }
    bool empty() const { return size() == 0; }
    Iterator begin() const { return pel_->owner_seek(owner_, StreamId::min()); }
    Iterator seek(StreamId from) const { return pel_->owner_seek(owner_, from); }
    bool contains(StreamId id) const;

   private:
    const Pel* pel_;
    uint32_t owner_;
  };

  Pel() = default;
  // Copies keep the owner slots: the caller points them at its own consumers (set_owner).
  Pel(const Pel&) = default;
  Pel& operator=(const Pel&) = default;

  std::size_t size() const { return tree_.size(); }
  bool empty() const { return tree_.empty(); }
  std::size_t nacked() const { return nacked_; }

  bool contains(StreamId id) const { return tree_.contains(PelKey(id).view()); }
  std::optional<PendingEntry> find(StreamId id) const;

  Iterator begin() const { return seek(StreamId::min()); }
  // The first ID >= from (kGe) or > from (kGt).
  Iterator seek(StreamId from, SeekOp op = SeekOp::kGe) const;
  // The time index from its head.
  Iterator by_time() const;
  // Smallest and greatest IDs; only on a non-empty Pel.
  // Straight from the record tree (a Pel::Iterator seek also positions run walks: 10x the work).
  StreamId first_id() const { return PelKey::decode(tree_.begin().key()); }
  StreamId last_id() const { return PelKey::decode(tree_.last().key()); }
  // The head of the time index (the next record a claim takes), if any.
  std::optional<PendingEntry> time_head() const;

  // ---- owners ---------------------------------------------------------------------------------
  // A slot for a consumer (reuses freed ones); the slot is the record's owner field.
  uint32_t add_owner(const Consumer* c);
  // Frees a slot that owns nothing.
  void remove_owner(uint32_t owner);
  // Points a slot at another consumer object (after a copy of the Pel).
  void set_owner(uint32_t owner, const Consumer* c) { owners_[owner] = c; }
  std::size_t owner_size(uint32_t owner) const { return owner_sizes_[owner]; }
  Iterator owner_seek(uint32_t owner, StreamId from) const;

  // ---- changes ----------------------------------------------------------------------------------
  // A new owned record; false (and no change) if the ID is pending.
  bool add(StreamId id, int64_t time, uint64_t count, uint32_t owner);
  // A new record appended to the NACK zone; false if the ID is pending.
  bool add_nacked(StreamId id, uint64_t count);
  // Moves a pending record to `owner` at `time` (out of the NACK zone if it was there).
  void redeliver(StreamId id, uint32_t owner, int64_t time);
  // Releases a pending record: no owner, appended to the end of the NACK zone (a NACKed one
  // moves there).
  void release(StreamId id);
  void set_count(StreamId id, uint64_t count);
  uint64_t count(StreamId id) const;
  // Adds one delivery to a pending record's count, saturating at INT64_MAX (the largest count
  // RESP, and so XPENDING and the AOF, can carry); returns the new count.
  uint64_t bump_count(StreamId id);
  // The count bump_count makes of `n`.
  static uint64_t bumped(uint64_t n) { return n < kMaxCount ? n + 1 : n; }
  // Removes a record; false if it was not pending.
  bool erase(StreamId id);
  void clear();

  // ---- batches ----------------------------------------------------------------------------------
  // Claims and deliveries change many records that are neighbours in ID order (a claim takes
  // the head of a time run, XAUTOCLAIM walks IDs, XREADGROUP hands out consecutive IDs, a
  // consumer acknowledges what it read). These update the run indexes once per group of
  // ID-adjacent records instead of once per record, and walk each group with one iterator.
  // redeliver() for each of `ids` (all pending, no duplicates, any order), and with `bump`
  // bump_count() too.
  void redeliver_many(std::span<const StreamId> ids, uint32_t owner, int64_t time, bool bump);
  // XREADGROUP's delivery of `ids` (strictly ascending) to `owner` at `time` with count 1: a
  // new record for each one not pending, the pending ones reset to that.
  void deliver(std::span<const StreamId> ids, uint32_t owner, int64_t time);
  // erase() for each of `ids` (any order, duplicates allowed); how many were pending.
  std::size_t erase_many(std::span<const StreamId> ids);

  // Heap bytes of the trees (records included) and side tables.
  std::size_t memory_usage() const;
  // Every invariant listed at the top of this file; on failure says which in *why.
  bool check(std::string* why) const;
  // Debug builds: the record of `id` (if pending) sits in a run of each index that says so.
  bool check_id(StreamId id) const;

 private:
  // An attribute as the prefix of its run keys: 4 bytes of owner, or zone + 8 bytes of time.
  struct Attr {
    uint8_t bytes[9];
    uint8_t len;  // 0: no run (a NACKed record's owner)
    bool operator==(const Attr& o) const {
      return len == o.len && std::string_view(reinterpret_cast<const char*>(bytes), len) ==
                                 std::string_view(reinterpret_cast<const char*>(o.bytes), o.len);
    }
    std::string_view view() const { return {reinterpret_cast<const char*>(bytes), len}; }
  };
  // A record's ID neighbours (the records just before and after it in ID order).
  struct Neighbour {
    bool present = false;
    StreamId id;
    PelRecord rec{};
  };
  struct Neighbours {
    Neighbour prev, next;
  };
  // A maximal sequence of ID-adjacent records with one attribute (len 0: in no run, which still
  // separates the runs around it), the unit the run updates work in.
  struct Seg {
    Attr a;
    StreamId first, last;
  };
  // A group of ID-adjacent records being changed: its neighbours and, per index, the segments
  // of the records it had before (records a batch has just added are in none).
  struct Group {
    Neighbours nb;
    std::vector<Seg> segs[2];
    StreamId first, last;
    std::size_t records = 0;
  };
  // Owner value of a record deliver() has just put in the tree, not in any run yet.
  static constexpr uint32_t kUnlinked = 0xFFFFFFFE;

  static Attr attr(Index ix, const PelRecord& r);
  RadixTree<StreamId>& runs(Index ix) { return runs_[static_cast<int>(ix)]; }
  const RadixTree<StreamId>& runs(Index ix) const { return runs_[static_cast<int>(ix)]; }
  // A run's key, built on the stack (keys are looked up on every change).
  struct RunKey {
    char bytes[9 + PelKey::kMaxSize];
    std::size_t len;
    std::string_view view() const { return {bytes, len}; }
  };
  static RunKey run_key(const Attr& a, StreamId start);
  // The end of the run of attribute `a` that holds `id` (which must be in one).
  StreamId run_end(Index ix, const Attr& a, StreamId id) const;
  Neighbours neighbours(StreamId id) const;
  // Adds the ID-adjacent records first..last (in the tree, all with attribute `a`, between the
  // neighbours nb) to index ix / takes the segments `segs` of such records out of it, as if
  // they had not been there: splits, extends, shrinks and merges runs so that they stay maximal.
  void attach(Index ix, StreamId first, StreamId last, const Attr& a, const Neighbours& nb);
  void detach(Index ix, std::span<const Seg> segs, const Neighbours& nb);
  // Single records.
  void attach(Index ix, StreamId id, const Attr& a, const Neighbours& nb) {
    attach(ix, id, id, a, nb);
  }
  void detach(Index ix, StreamId id, const Attr& a, const Neighbours& nb) {
    Seg s{a, id, id};
    detach(ix, std::span<const Seg>(&s, 1), nb);
  }
  // Walks the group of ID-adjacent records that starts at ids[i] (sorted ids, all in the tree),
  // filling g and calling visit(id, record) on each (after noting its old attributes); returns
  // the index past the group, or i + 1 with g.records == 0 if ids[i] is not in the tree.
  template <class Visit>
  std::size_t walk_group(std::span<const StreamId> ids, std::size_t i, Group& g, Visit&& visit);
  // Detaches g's old segments and attaches its records with attribute of `now` in both indexes.
  void relink_group(const Group& g, const PelRecord& now);
  // Inserts a new record and links it into both indexes; false if the ID is pending.
  bool insert_record(StreamId id, PelRecord rec, uint64_t count);
  // The release number for releasing `id` now (see release_seq_).
  int64_t next_release(StreamId id);
  // Changes a record's owner and time (the count is left alone), keeping both indexes.
  void change(StreamId id, PelRecord* r, uint32_t owner, int64_t time);
  void account(const PelRecord& r, int delta);
  PendingEntry entry_of(StreamId id, const PelRecord& r) const;
  uint64_t count_of(StreamId id, const PelRecord& r) const;
  void store_count(StreamId id, PelRecord* r, uint64_t count);
  bool check_index(Index ix, std::string* why) const;

  RadixTree<PelRecord> tree_;            // PelKey(id) -> record
  RadixTree<StreamId> runs_[2];          // attr + PelKey(first ID) -> last ID of the run
  RadixTree<uint64_t> big_counts_;       // PelKey(id) -> count, for counts >= kBigCount
  std::vector<const Consumer*> owners_;  // slot -> consumer (null = free)
  std::vector<std::size_t> owner_sizes_;
  std::vector<uint32_t> free_owners_;
  std::size_t nacked_ = 0;
  // Release numbers: the NACK zone's order. Releases that come in ascending ID order share one
  // number (one run), so a batch of XNACK IDs costs one run; last_release_id_ is the greatest ID
  // ever released under release_seq_.
  int64_t release_seq_ = 0;
  StreamId last_release_id_;
};

}  // namespace streamd::engine
