// Server statistics shown by INFO (stats, commandstats, errorstats, latencystats), SLOWLOG and
// LATENCY.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
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
  uint64_t total_error_replies = 0;
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t expired_keys = 0;
  uint64_t net_input_bytes = 0;
  uint64_t net_output_bytes = 0;
  uint64_t client_output_limit_disconnections = 0;
  uint64_t dead_lettered = 0;  // entries moved to dead-letter streams (STREAMD.DEADLETTER)
  // Keyed by full command name ("xgroup|create"), sorted as INFO lists them.
  std::map<std::string, CommandStats> commands;
  std::map<std::string, uint64_t> errors;  // error code ("ERR", "WRONGTYPE") → count

  // instantaneous_ops_per_sec: samples of total_commands taken by cron.
  std::deque<std::pair<int64_t, uint64_t>> ops_samples;

  std::deque<SlowlogEntry> slowlog;
  uint64_t slowlog_next_id = 0;

  // The latency monitor's events: LATENCY RESET clears them, CONFIG RESETSTAT does not (as in
  // Redis).
  LatencyMonitor latency;

  void reset();  // CONFIG RESETSTAT
  double ops_per_sec() const;
  void sample_ops(int64_t now_ms);
};

}  // namespace streamd::cmd
