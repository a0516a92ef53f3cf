// maxmemory: Redis's performEvictions. Before each command (and on each cron tick) the server
// compares used memory with maxmemory; over it, keys are evicted by maxmemory-policy until it is
// under; when nothing more may be evicted (noeviction, or no key the policy may take), commands
// that would grow the dataset are refused with -OOM (the dispatcher decides which).
//
// Used memory is engine::used_memory() less what Redis does not count against the limit: the
// replication buffer beyond repl-backlog-size (what slow replicas hold). Evicted keys propagate
// as DEL (UNLINK with lazyfree-lazy-eviction), fire the "evicted" keyspace event and count in
// INFO evicted_keys. One call evicts for at most the time maxmemory-eviction-tenacity allows
// (Redis's formula); the next command or cron tick goes on.
#pragma once

#include <cstdint>
#include <vector>

#include "streamd/config/config.h"
#include "streamd/engine/eviction.h"

namespace streamd::cmd {

class Server;

class MemoryLimit {
 public:
  explicit MemoryLimit(Server& server);
  ~MemoryLimit();
  MemoryLimit(const MemoryLimit&) = delete;
  MemoryLimit& operator=(const MemoryLimit&) = delete;

  // Evicts as the policy allows. False: memory is still over maxmemory and nothing more may be
  // evicted (Redis's EVICT_FAIL). True when under the limit, when there is no limit, when the
  // time budget ran out with keys left to evict, or when this server may not evict now (a
  // replica ignoring maxmemory, paused clients, loading).
  bool enforce() {
    // Without a limit there is nothing to do, unless a period over one must end.
    if (*maxmemory_ == 0 && exceeded_since_us_ == 0) return true;
    return enforce_slow();
  }

  // INFO stats: the time spent over the limit, in ms (total_eviction_exceeded_time includes
  // the current period, as Redis's does).
  uint64_t total_exceeded_ms(int64_t now_us) const;
  uint64_t current_exceeded_ms(int64_t now_us) const;

  // What the eviction's time budget is for a tenacity (Redis's evictionTimeLimitUs): 50 us per
  // step up to 10, then growing 15% per step; 100 means no limit.
  static uint64_t time_limit_us(int64_t tenacity);

  // What maxmemory does not count (Redis's freeMemoryGetNotCountedMemory, INFO
  // mem_not_counted_for_evict): the replication buffer beyond repl-backlog-size (what lagging
  // replicas hold) and the AOF buffer.
  uint64_t not_counted_memory() const;

 private:
  bool enforce_slow();
  bool may_evict() const;
  // Used memory as maxmemory sees it: used_memory less not_counted_memory().
  uint64_t counted_memory() const;
  // Access tracking and integer sharing, by policy and limit (on every change of either).
  void apply_tracking();
  void note_state(bool over, int64_t now_us);

  Server& server_;
  const std::uint64_t* maxmemory_;  // the directive's storage (stable for the Config's life)
  engine::EvictionPicker picker_;
  std::vector<config::Config::ListenerId> listeners_;
  int64_t exceeded_since_us_ = 0;  // 0 while under the limit
  uint64_t exceeded_total_us_ = 0;
};

}  // namespace streamd::cmd
