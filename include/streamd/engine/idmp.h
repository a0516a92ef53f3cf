// IdmpTable: a stream's idempotent-production state (Redis 8.6, XADD IDMP / IDMPAUTO, XCFGSET).
// For each producer id (pid) it remembers the most recent idempotent ids (iids) and the stream
// ID each one was added as, so a retried XADD with the same (pid, iid) answers the original ID
// and adds nothing, even if that entry has been deleted since.
//
// Bounds, per stream (XCFGSET): IDMP-DURATION seconds (1..86400, default 100) and IDMP-MAXSIZE
// iids per producer (1..10000, default 100). An iid is forgotten once it is DURATION old, or
// when a newer one of the same producer needs its slot (MAXSIZE is the stronger bound).
// An iid's age counts from the millisecond part of the stream ID it was added as. IDMP only
// accompanies `*` IDs, so that is the time of the XADD (or later, never earlier), and it makes
// the state a pure function of the (pid, iid, ID) records: replaying XIDMPRECORD from the AOF
// rebuilds exactly what the live server had, with no clock stored anywhere.
// Expiry is lazy: a producer's old iids go when that producer is next looked up or recorded,
// and expire_all() sweeps everything (XINFO STREAM calls it so its counts are current).
//
// Memory: the table exists only once a stream has used IDMP or XCFGSET (a stream without it
// pays one pointer). Per producer: a hash map and a FIFO (~100 bytes plus the pid). Per iid: one
// hash node holding the iid string and the ID (~80 bytes with malloc overhead), a bucket slot
// and a FIFO slot (~16 bytes): about 96 bytes, plus the iid itself when it is longer than 15
// bytes (the string's inline buffer). IDMPAUTO iids are 15-byte digests, so they stay inline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "streamd/engine/stream_id.h"
#include "streamd/engine/stream_node.h"

namespace streamd::engine {

class IdmpTable {
 public:
  static constexpr uint32_t kDefaultDurationSec = 100;
  static constexpr uint32_t kDefaultMaxSize = 100;
  static constexpr uint32_t kMaxDurationSec = 86400;
  static constexpr uint32_t kMaxMaxSize = 10000;
  // IDMPAUTO digests are this long (fits std::string's inline buffer).
  static constexpr std::size_t kAutoIidSize = 15;

  IdmpTable() = default;
  IdmpTable(const IdmpTable&) = delete;  // the FIFOs point into the maps: use clone()
  IdmpTable& operator=(const IdmpTable&) = delete;

  // Deep copy (COPY).
  std::unique_ptr<IdmpTable> clone() const;

  uint32_t duration_sec() const { return duration_sec_; }
  uint32_t maxsize() const { return maxsize_; }
  // XCFGSET was called on the stream (its settings are then reported and persisted).
  bool configured() const { return configured_; }

  // XCFGSET: sets the given bounds (already range-checked by the caller). Any value that
  // differs from the current one clears every producer's iids; returns whether it did.
  bool configure(std::optional<uint32_t> duration_sec, std::optional<uint32_t> maxsize);

  // The ID (pid, iid) was added as, if it is still remembered at now_ms.
  std::optional<StreamId> find(std::string_view pid, std::string_view iid, uint64_t now_ms);
  // Remembers (pid, iid) → id (XADD after adding the entry, XIDMPRECORD on replay). Expired
  // iids of that producer go first, then the oldest ones beyond MAXSIZE. An iid the producer
  // already has is left as it was. Counts towards iids_added either way.
  void record(std::string_view pid, std::string_view iid, StreamId id, uint64_t now_ms);
  void count_duplicate() { ++duplicates_; }
  // Snapshot loading (stream_builder.h): the counters as they were saved.
  void restore_counters(uint64_t added, uint64_t duplicates) {
    added_ = added;
    duplicates_ = duplicates;
  }

  // Forgets every expired iid (and producers left with none).
  void expire_all(uint64_t now_ms);

  // XINFO STREAM.
  std::size_t pids_tracked() const { return producers_.size(); }
  std::size_t iids_tracked() const { return iids_; }
  uint64_t iids_added() const { return added_; }
  uint64_t iids_duplicates() const { return duplicates_; }

  // Calls f(pid, iid, id) for every remembered iid, producers in pid order, each producer's
  // iids oldest first: the order in which XIDMPRECORD rebuilds the same table.
  template <class F>
  void for_each(F&& f) const {
    for (const auto& [pid, p] : producers_) {
      for (auto it : p.order) f(std::string_view(pid), std::string_view(it->first), it->second);
    }
  }

  // Estimated heap bytes (see the numbers above).
  std::size_t memory_usage() const;

  // The IDMPAUTO iid of an entry: a 120-bit digest of its field/value pairs (order matters),
  // stable across runs and builds so a restarted server recognises a resent entry.
  static std::string auto_iid(std::span<const FieldValue> fields);

 private:
  struct Producer {
    using Map = std::unordered_map<std::string, StreamId>;
    Map by_iid;
    std::deque<Map::const_iterator> order;  // oldest first
  };
  // Drops the producer's iids older than the duration at now_ms.
  void expire(Producer& p, uint64_t now_ms);
  void pop_oldest(Producer& p);
  bool expired(StreamId id, uint64_t now_ms) const {
    uint64_t duration_ms = uint64_t{duration_sec_} * 1000;
    return now_ms >= id.ms && now_ms - id.ms >= duration_ms;
  }

  uint32_t duration_sec_ = kDefaultDurationSec;
  uint32_t maxsize_ = kDefaultMaxSize;
  bool configured_ = false;
  std::map<std::string, Producer, std::less<>> producers_;
  std::size_t iids_ = 0;
  uint64_t added_ = 0;
  uint64_t duplicates_ = 0;
};

}  // namespace streamd::engine
