// Stream: the log behind one stream key. Entries live in packed StreamNodes kept in a
// RadixTree keyed by each node's master (first) ID, encoded big-endian so byte order is ID
// order. No sockets, no RESP, no client text: commands parse arguments, call this API and
// render what it returns.
//
// Metadata, as Redis keeps it (and XINFO STREAM reports it):
// - length: live entries; entries_added: every entry ever appended (XSETID may overwrite);
// - last_id: the last ID handed out (never lowered by deletes, only by XSETID);
// - first_id: the first live entry, 0-0 when empty;
// - max_deleted_entry_id: the greatest ID removed by erase() (XDEL); trimming leaves it alone.
// Node rules follow redis-server 7.0.15 so node boundaries match Redis:
// - appends go to the last node until its Redis-equivalent listpack size plus the new
//   elements' length reaches max_bytes, or its live + deleted entries reach max_entries;
// - erase() tombstones in place and frees a node when nothing live is left in it;
// - exact trimming tombstones inside the first partially trimmed node and, like Redis, keeps
//   that node even if it ends up with no live entries (the next trim or an erase frees it).
// Empty streams persist (the keyspace decides when to delete a key, never the Stream).
// Views handed out (fields, iterators) are valid until the next mutation of the stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "streamd/engine/radix_tree.h"
#include "streamd/engine/status.h"
#include "streamd/engine/stream_groups.h"
#include "streamd/engine/stream_id.h"
#include "streamd/engine/stream_node.h"

namespace streamd::engine {

class IdmpTable;  // idmp.h

// stream-node-max-entries / stream-node-max-bytes. 0 = no limit (a node still stops at 1 GiB).
struct StreamLimits {
  uint64_t max_entries = 100;
  uint64_t max_bytes = 4096;
};

enum class TrimStrategy : uint8_t { kNone, kMaxLen, kMinId };

struct TrimSpec {
  TrimStrategy strategy = TrimStrategy::kNone;
  uint64_t maxlen = 0;  // kMaxLen: keep at most this many entries
  StreamId minid;       // kMinId: remove entries with smaller IDs
  bool approx = false;  // "~": remove whole nodes only, stop at the first that cannot go whole
  uint64_t limit = 0;   // with approx: at most this many entries removed; 0 = no limit
                        // (the command layer supplies Redis's default of 100 × max_entries)

  static TrimSpec max_len(uint64_t n, bool approx = false, uint64_t limit = 0) {
    return {TrimStrategy::kMaxLen, n, {}, approx, limit};
  }
  static TrimSpec min_id(StreamId id, bool approx = false, uint64_t limit = 0) {
    return {TrimStrategy::kMinId, 0, id, approx, limit};
  }
};

struct TrimResult {
  uint64_t removed = 0;
  // For propagation: an exact (=) threshold that reproduces this trim on a replica or in the
  // AOF. MAXLEN: the resulting length. MINID: the first remaining ID, MAX-MAX if none remain.
  uint64_t exact_maxlen = 0;
  StreamId exact_minid;
};

enum class Direction : uint8_t { kForward, kBackward };

class Stream {
 public:
  class Iterator;

  // Redis refuses an entry whose fields and values add up to more than this (XADD).
  static constexpr std::size_t kMaxElementsLength = std::size_t{1} << 30;

  // Out of line: the IdmpTable member is an incomplete type here.
  explicit Stream(StreamLimits limits = {});
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();

  // Deep copy (COPY).
  std::unique_ptr<Stream> clone() const;

  // Prefetch stages for a batch of appends (Database::prefetch): the object's first lines, then,
  // once they are in, the node tree's root block. Hints only: nothing is changed.
  void prefetch_object() const {
    __builtin_prefetch(this);
    __builtin_prefetch(reinterpret_cast<const char*>(this) + 64);
  }
  void prefetch_tree() const { nodes_.prefetch_root(); }

  const StreamLimits& limits() const { return limits_; }
  // As with Redis's CONFIG SET, limits are checked on every append against the last node, so
  // they take effect at once for where new entries go; existing nodes are never re-split.
  void set_limits(StreamLimits limits) { limits_ = limits; }

  // ---- writes -------------------------------------------------------------------------------
  // XADD: appends an entry with the ID the spec asks for (see next_stream_id) at time now_ms.
  // Errors: kIdZero, kIdExhausted, kIdTooSmall, kElementsTooLarge.
  Result<StreamId> append(const IdSpec& id, std::span<const FieldValue> fields, uint64_t now_ms);
  Result<StreamId> append(StreamId id, std::span<const FieldValue> fields) {
    return append(IdSpec::explicit_id(id), fields, 0);
  }

  // XTRIM / XADD MAXLEN|MINID. Returns the number removed and the exact thresholds.
  TrimResult trim(const TrimSpec& spec);

  // XDEL of one ID: false if there is no live entry with it. `record_deleted` = false removes the
  // entry without raising max_deleted_entry_id (a trim that picks entries, see stream_refs.h).
  bool erase(StreamId id, bool record_deleted = true);

  // XSETID. Checks in Redis 7.2+'s order:
  //   kSetIdSmallerThanProvidedMaxDeleted (last_id < max_deleted),
  //   kSetIdSmallerThanMaxDeleted (last_id < the current max_deleted_entry_id; 7.0 had no such
  //   check), then, if the stream has entries, kSetIdSmallerThanTop (last_id < last live
  //   entry) and kEntriesAddedSmallerThanLength (entries_added < length).
  // A max_deleted of 0-0 leaves the current one unchanged (as in Redis).
  Err set_id(StreamId last_id, std::optional<uint64_t> entries_added = std::nullopt,
             std::optional<StreamId> max_deleted = std::nullopt);

  // ---- reads --------------------------------------------------------------------------------
  bool contains(StreamId id) const;
  // The fields of the live entry `id` (views into the stream); false if there is none.
  bool lookup(StreamId id, std::vector<FieldValue>& out) const;

  // Live entries with start <= id <= end, in ID order (kForward) or reverse order.
  Iterator scan(StreamId start, StreamId end, Direction dir = Direction::kForward) const;

  // Calls visit(StreamId, std::span<const FieldValue>) for at most `count` entries (0 = no
  // limit) of scan(start, end, dir). The visitor may return bool: false stops early. Returns
  // the number of entries visited.
  template <class F>
  std::size_t range(StreamId start, StreamId end, std::size_t count, Direction dir,
                    F&& visit) const;

  // The first / last live entry, passed to visit(StreamId, span); false if the stream is empty.
  template <class F>
  bool first_entry(F&& visit) const {
    return range(StreamId::min(), StreamId::max(), 1, Direction::kForward, visit) == 1;
  }
  template <class F>
  bool last_entry(F&& visit) const {
    return range(StreamId::min(), StreamId::max(), 1, Direction::kBackward, visit) == 1;
  }

  // ---- metadata -----------------------------------------------------------------------------
  uint64_t length() const { return length_; }
  StreamId last_id() const { return last_id_; }
  StreamId first_id() const { return first_id_; }
  StreamId max_deleted_entry_id() const { return max_deleted_; }
  uint64_t entries_added() const { return entries_added_; }
  // The last live entry's ID ("top item"), 0-0 when empty.
  StreamId last_entry_id() const;
  // XINFO STREAM: radix-tree-keys (packed nodes) and radix-tree-nodes (tree nodes).
  std::size_t radix_tree_keys() const { return nodes_.size(); }
  std::size_t radix_tree_nodes() const { return nodes_.node_count(); }
  std::size_t group_count() const { return groups_.size(); }
  // The consumer groups hanging off this stream (consumer_group.h for the group API).
  StreamGroups& groups() { return groups_; }
  const StreamGroups& groups() const { return groups_; }

  // Idempotent production state (XADD IDMP/IDMPAUTO, XCFGSET; see idmp.h): null until the
  // stream first uses it, so a stream without IDMP pays one pointer.
  IdmpTable* idmp() { return idmp_.get(); }
  const IdmpTable* idmp() const { return idmp_.get(); }
  IdmpTable& idmp_or_create();

  // MEMORY USAGE: estimated heap bytes (the object, tree nodes, node buffers incl. malloc
  // overhead, consumer groups). O(1) in the number of entries; linear in groups and consumers.
  std::size_t memory_usage() const;

  // Calls f(const StreamNode&) for every packed node in ID order (snapshot writers).
  template <class F>
  void for_each_node(F&& f) const {
    for (auto it = nodes_.begin(); it.valid(); ++it) f(std::as_const(it.value()));
  }

 private:
  friend class StreamBuilder;  // stream_builder.h: assembles a stream from snapshot values
  StreamNode* tail_for(StreamId id, std::span<const FieldValue> fields);
  void remove_node(StreamId master);
  StreamId first_live_id() const;

  // What an XADD reads and writes comes first, in as few cache lines as the object allows: on
  // 10,000 streams written at random each line of it is a miss (the 10k-key benchmark).
  RadixTree<StreamNode> nodes_;  // master ID (16 bytes big-endian) → node
  StreamId last_id_;
  uint64_t length_ = 0;
  uint64_t entries_added_ = 0;
  StreamLimits limits_;
  std::size_t node_bytes_ = 0;  // Σ malloc_size_estimate(node capacity)
  // False only while the last node's last entry is known to be last_id_ (right after an
  // append): a new ID, greater than last_id_, then goes after it without reading that entry
  // (tail_for's third test; on 10,000 streams written at random it is a cache miss per XADD).
  // Anything else that changes the last node or last_id_ sets it.
  bool check_tail_last_ = true;
  std::unique_ptr<IdmpTable> idmp_;

  StreamId first_id_;
  StreamId max_deleted_;

  // Where forward walks start in a node (the format has no index inside a node). A hint says:
  // in the node whose master is `master`, every live entry with an ID >= `lo` sits at `offset`
  // or after it. So a forward scan from an ID >= lo that begins in that node starts there
  // instead of at the node's first entry. Two are kept, both set by forward walks:
  //   [0] where the last walk got to (lo = the ID of the last entry it returned): consumers
  //       reading one after another each seek just past where the previous read stopped;
  //   [1] where the last walk began (lo = its start, offset = its first entry): readers woken
  //       together by one XADD all read from the same last ID (200 readers each walked the
  //       node from its first entry: a quarter of streamd's own CPU in that fan-out).
  // Valid because entries never move inside a node (deletes set a bit, appends go after with
  // greater IDs, shrinking keeps offsets), and both are dropped whenever a node is created or
  // removed, so `master` names the same node throughout.
  struct SeekHint {
    StreamId master;
    StreamId lo;
    uint32_t offset = 0;
    bool valid = false;
  };
  mutable SeekHint seek_hints_[2];
  void drop_seek_hints() {
    for (SeekHint& h : seek_hints_) h.valid = false;
  }

  StreamGroups groups_;  // consumer groups by name
};

// Walks the live entries of a range; see Stream::scan. Invalidated by any mutation.
//   for (auto it = s.scan(a, b); it.next();) use(it.id(), it.fields());
class Stream::Iterator {
 public:
  Iterator() = default;
  // Moves to the next entry; false when the range is exhausted.
  bool next();
  StreamId id() const { return id_; }
  // The current entry's field/value pairs, decoded on first call (views into the stream).
  std::span<const FieldValue> fields() const;

 private:
  friend class Stream;
  Iterator(const Stream& s, StreamId start, StreamId end, Direction dir);
  void load_node();

  RadixTree<StreamNode>::ConstIterator tree_it_;
  const StreamNode* node_ = nullptr;
  SeekHint* hints_ = nullptr;  // forward walks: the stream's seek_hints_ (updated as it goes)
  bool returned_any_ = false;
  StreamId master_;  // forward walks: node_'s master ID
  StreamId start_, end_;
  Direction dir_ = Direction::kForward;
  bool done_ = true;
  uint32_t off_ = 0;            // forward: next entry to read
  std::vector<uint32_t> offs_;  // backward: the node's entry offsets
  std::size_t oi_ = 0;          // backward: entries of offs_ not read yet
  StreamId id_;
  uint32_t cur_ = 0;  // offset of the current entry
  mutable std::vector<FieldValue> fields_;
  mutable bool fields_ready_ = false;
};

template <class F>
std::size_t Stream::range(StreamId start, StreamId end, std::size_t count, Direction dir,
                          F&& visit) const {
  Iterator it = scan(start, end, dir);
  std::size_t n = 0;
  while ((count == 0 || n < count) && it.next()) {
    ++n;
    using R = std::invoke_result_t<F&, StreamId, std::span<const FieldValue>>;
    if constexpr (std::is_convertible_v<R, bool>) {
      if (!visit(it.id(), it.fields())) break;
    } else {
      visit(it.id(), it.fields());
    }
  }
  return n;
}

}  // namespace streamd::engine
