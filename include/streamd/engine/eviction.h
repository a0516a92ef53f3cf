// Which key maxmemory evicts next (Redis's evict.c, the choosing half): the command layer
// measures memory and deletes what this picks (Database::evict).
//
// As Redis: the LRU, LFU and TTL policies sample `samples` keys of every database into a pool
// of the 16 best candidates kept across calls, and evict the best one that still exists (a
// candidate deleted meanwhile is a ghost and skipped); the random policies take a random key of
// the next database in turn. volatile-* policies consider only keys with a TTL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "streamd/engine/keyspace.h"

namespace streamd::engine {

enum class EvictionPolicy : uint8_t {
  kNoEviction,
  kAllkeysLru,
  kAllkeysLfu,
  kAllkeysRandom,
  kVolatileLru,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
};

// The access tracking a policy needs (LFU counters or access times).
AccessTracking tracking_for(EvictionPolicy p);
// Whether the policy ranks keys by their accesses (LRU or LFU): Redis then gives every key an
// object of its own (no shared integers) to carry them.
bool ranks_by_access(EvictionPolicy p);

struct EvictionVictim {
  int db = -1;
  std::string key;
};

class EvictionPicker {
 public:
  static constexpr std::size_t kPoolSize = 16;  // Redis's EVPOOL_SIZE

  // The key `policy` evicts next; false when no database holds a key the policy may evict
  // (always for kNoEviction).
  bool pick(Keyspace& ks, EvictionPolicy policy, std::size_t samples, EvictionVictim& out);

 private:
  struct Candidate {
    uint64_t score;  // higher is evicted first: idle time, 255 - frequency, or time to expiry
    int db;
    std::string key;
  };
  void populate(const Database& db, EvictionPolicy policy, std::size_t samples, int64_t now);
  bool pick_random(Keyspace& ks, bool with_ttl, EvictionVictim& out);

  std::vector<Candidate> pool_;                          // ascending by score, at most kPoolSize
  EvictionPolicy policy_ = EvictionPolicy::kNoEviction;  // what the pool's scores measure
  unsigned next_db_ = 0;                                 // where the random policies look next
};

}  // namespace streamd::engine
