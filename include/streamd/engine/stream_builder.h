// StreamBuilder: builds a Stream from plain values read from a snapshot (RDB files, DUMP
// payloads), node by node, with its groups, PEL and consumers, and validates every invariant the
// engine relies on before handing the stream out. It knows nothing about the snapshot format:
// the reader decodes, the builder checks and assembles. Every call returns Err::kBadData instead
// of building something inconsistent, so a hostile input can only produce an error:
// - nodes: entries strictly ascending within and across nodes, none empty, at least one field
//   per entry (Redis writes no other);
// - metadata: length = live entries, entries_added >= length, last_id >= the last live entry;
//   first_id is recomputed from the entries (the file's copy is not trusted);
// - groups: unique names, entries_read -1 or >= 0;
// - PEL: unique IDs, delivery times in [0, kMaxTime], every consumer's ID in the group PEL and
//   owned by one consumer only, every record owned unless released (XNACK, release());
// - consumers: unique names, seen time in [0, kMaxTime], active time -1 or in that range.
// The time bound keeps later arithmetic on those times (idle = now - time) far from overflow.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "streamd/engine/status.h"
#include "streamd/engine/stream.h"
#include "streamd/engine/stream_id.h"
#include "streamd/engine/stream_node.h"

namespace streamd::engine {

class ConsumerGroup;
class Consumer;

// One entry of a node as the snapshot holds it: a tombstone still has its fields.
struct BuiltEntry {
  StreamId id;
  bool deleted = false;
  std::span<const FieldValue> fields;
};

class StreamBuilder {
 public:
  // Times (ms) beyond this are refused: about 146 million years from 1970.
  static constexpr int64_t kMaxTime = int64_t{1} << 62;

  explicit StreamBuilder(StreamLimits limits);
  ~StreamBuilder();
  StreamBuilder(const StreamBuilder&) = delete;
  StreamBuilder& operator=(const StreamBuilder&) = delete;

  // The next node, in ID order (its first entry is its master).
  Err add_node(std::span<const BuiltEntry> entries);
  // The stream's metadata (after the nodes; checked in finish()).
  void set_metadata(uint64_t length, StreamId last_id, uint64_t entries_added,
                    StreamId max_deleted);
  // A new group; the PEL and consumer calls that follow belong to it.
  Err add_group(std::string_view name, StreamId last_delivered, int64_t entries_read);
  // A record of the current group's PEL, not yet owned.
  Err add_pending(StreamId id, int64_t delivery_time_ms, uint64_t delivery_count);
  // A consumer of the current group; own() calls that follow give it records.
  Err add_consumer(std::string_view name, int64_t seen_time_ms, int64_t active_time_ms);
  Err own(StreamId id);
  // A record of group `group` released by XNACK (no owner, delivery time 0); the calls' order
  // is the NACK zone's order. After the groups, before finish().
  Err add_released(std::string_view group, StreamId id, uint64_t delivery_count);
  // The stream's IDMP table (idmp.h): settings (configured = XCFGSET was used), counters, then
  // its records oldest first per producer, as IdmpTable::for_each lists them.
  Err set_idmp(bool configured, uint32_t duration_sec, uint32_t maxsize, uint64_t iids_added,
               uint64_t duplicates);
  Err add_idmp_record(std::string_view pid, std::string_view iid, StreamId id, uint64_t now_ms);
  // The dead-letter policy (dead_letter.h) of group `group`: max_deliveries >= 1, at most one
  // per group. After the groups, before finish().
  Err set_dead_letter(std::string_view group, uint64_t max_deliveries, std::string_view stream);

  // Checks what could only be checked at the end and returns the stream; kBadData otherwise.
  Result<std::unique_ptr<Stream>> finish();

 private:
  std::unique_ptr<Stream> s_;
  ConsumerGroup* group_ = nullptr;
  Consumer* consumer_ = nullptr;
  bool have_entry_ = false;
  StreamId last_entry_;  // the greatest entry ID so far (deleted or not)
  StreamId last_live_;   // the greatest live entry ID so far
  uint64_t live_ = 0;
  uint64_t length_ = 0, entries_added_ = 0;
  StreamId last_id_, max_deleted_;
  std::vector<FieldValue> scratch_;
  // The PEL records as they arrive (a record gets its owner after it is added), put into the
  // groups' Pels by finish(): owned ones in ID order, then the released ones in release order.
  struct Staged {
    int64_t delivery_time_ms;
    uint64_t delivery_count;
    Consumer* owner;
    bool released;
  };
  // One group's staged records. Snapshots list a PEL in ID order, so records are kept in a
  // vector, appended and found by binary search; the first record out of order (a crafted
  // payload, or the released records of the extension blob) moves them all into a map. Either
  // way a duplicate ID is refused.
  class StagedPel {
   public:
    bool add(StreamId id, const Staged& r);  // false for a duplicate
    Staged* find(StreamId id);
    template <class F>
    void for_each(F&& f) const {  // f(StreamId, const Staged&), in ID order
      if (in_map_) {
        for (const auto& [id, r] : map_) f(id, r);
      } else {
        for (const auto& [id, r] : sorted_) f(id, r);
      }
    }

   private:
    bool in_map_ = false;
    std::vector<std::pair<StreamId, Staged>> sorted_;  // strictly ascending
    // Where the last find() in sorted_ landed: a consumer's PEL lists its IDs in ascending
    // order, so the next one is usually just after it (searched forward by doubling steps).
    std::size_t hint_ = 0;
    std::map<StreamId, Staged> map_;
  };
  std::map<ConsumerGroup*, StagedPel> staged_;
  std::vector<std::pair<ConsumerGroup*, StreamId>> released_;  // in release order
};

}  // namespace streamd::engine
