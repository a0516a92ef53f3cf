// Server statistics shown by INFO (stats, commandstats, errorstats, latencystats), SLOWLOG and
// LATENCY.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/latency.h"

namespace streamd::cmd {

struct CommandStats {
  uint64_t calls = 0;
  uint64_t usec = 0;
  uint64_t rejected_calls = 0;
  uint64_t failed_calls = 0;
  // The command's latency histogram (LATENCY HISTOGRAM, INFO latencystats): created on the first
  // call recorded while latency-tracking is on, dropped by CONFIG RESETSTAT.
  std::unique_ptr<LatencyHistogram> histogram;
};

// The per-command statistics, keyed by full command name ("xgroup|create"), sorted as INFO lists
// them: a std::map with a small cache in front for the dispatcher, which counts every command it
// runs through of(). The cache is keyed by the address of the name (a CommandSpec's own
// full_name: the process-wide table's rows never move once registered), so a hit costs no string
// comparison; erase() and clear() forget it, so it never points at a freed node.
class CommandStatsTable {
 public:
  using Map = std::map<std::string, CommandStats, std::less<>>;

  CommandStats& of(const std::string& full_name) {
    Slot& c = cache_[(reinterpret_cast<uintptr_t>(&full_name) >> 4) % kSlots];
    if (c.name != &full_name) c = {&full_name, &map_[full_name]};
    return *c.stats;
  }

  CommandStats& operator[](const std::string& name) { return map_[name]; }
  Map::const_iterator find(std::string_view name) const { return map_.find(name); }
  std::size_t count(std::string_view name) const { return map_.find(name) != map_.end(); }
  std::size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  Map::iterator begin() { return map_.begin(); }
  Map::iterator end() { return map_.end(); }
  Map::const_iterator begin() const { return map_.begin(); }
  Map::const_iterator end() const { return map_.end(); }
  void erase(std::string_view name) {
    if (auto it = map_.find(name); it != map_.end()) map_.erase(it);
    forget();
  }
  void clear() {
    map_.clear();
    forget();
  }

 private:
  struct Slot {
    const std::string* name = nullptr;
    CommandStats* stats = nullptr;
  };
  static constexpr std::size_t kSlots = 64;
  void forget() {
    for (Slot& c : cache_) c = {};
  }
  Map map_;
  Slot cache_[kSlots];
};

struct SlowlogEntry {
  uint64_t id;
  int64_t time_s;
  int64_t duration_us;
  std::vector<std::string> argv;
  std::string addr;
  std::string name;
};

struct Stats {
  uint64_t total_commands = 0;
  uint64_t total_connections = 0;
  uint64_t rejected_connections = 0;
  // SYNC / PSYNC served as a master (Redis's rules): every full resynchronisation, every PSYNC
  // continued from the backlog, and every PSYNC naming a history ("?" excepted) that could not.
  uint64_t sync_full = 0;
  uint64_t sync_partial_ok = 0;
  uint64_t sync_partial_err = 0;
  uint64_t total_error_replies = 0;
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t expired_keys = 0;
  uint64_t evicted_keys = 0;              // deleted by maxmemory (commands/core/memory_limit.h)
  uint64_t expire_cycle_us = 0;           // time spent in active expiry (cron)
  uint64_t expired_time_cap_reached = 0;  // active-expiry cycles stopped by their time limit
  double expired_stale_perc = 0;          // estimated share of TTL keys expired, not yet deleted
  uint64_t net_input_bytes = 0;
  uint64_t net_output_bytes = 0;
  uint64_t client_output_limit_disconnections = 0;
  uint64_t dead_lettered = 0;  // entries moved to dead-letter streams (STREAMD.DEADLETTER)
  uint64_t client_query_limit_disconnections = 0;
  // Read and write operations the network layer completed (Redis's total_reads_processed /
  // total_writes_processed: one per read or write it issues, whatever the byte count).
  uint64_t total_reads = 0;
  uint64_t total_writes = 0;
  // A connection's output buffer grown beyond / released back to its resting capacity.
  uint64_t reply_buffer_expands = 0;
  uint64_t reply_buffer_shrinks = 0;
  // The event loop: one cycle per turn of client I/O (net/turn.cc), its time in microseconds,
  // and the part of it spent running commands.
  uint64_t eventloop_cycles = 0;
  uint64_t eventloop_us = 0;
  uint64_t eventloop_cmd_us = 0;
  // ACL refusals (INFO acl_access_denied_*): AUTH / HELLO AUTH attempts, commands, keys and
  // channels a user may not use.
  uint64_t acl_denied_auth = 0;
  uint64_t acl_denied_cmd = 0;
  uint64_t acl_denied_key = 0;
  uint64_t acl_denied_channel = 0;
  CommandStatsTable commands;
  std::map<std::string, uint64_t> errors;  // error code ("ERR", "WRONGTYPE") → count

  // The instantaneous_* rates: cron samples the counters (Redis keeps 16 samples, one per
  // 100 ms, and reports the average rate over them).
  struct Sample {
    int64_t ms;
    uint64_t commands, net_in, net_out, cycles, loop_us;
  };
  std::deque<Sample> samples;

  std::deque<SlowlogEntry> slowlog;
  uint64_t slowlog_next_id = 0;

  // The latency monitor's events: LATENCY RESET clears them, CONFIG RESETSTAT does not (as in
  // Redis).
  LatencyMonitor latency;

  void reset();  // CONFIG RESETSTAT
  void sample(int64_t now_ms);
  // Per second over the sampled window, of the counter `field` picks.
  double rate(uint64_t Sample::*field) const;
  double ops_per_sec() const { return rate(&Sample::commands); }
  // instantaneous_eventloop_duration_usec: mean cycle time over the window (0 without cycles).
  uint64_t recent_cycle_us() const;
};

}  // namespace streamd::cmd
