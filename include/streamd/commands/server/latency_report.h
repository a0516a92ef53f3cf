// The two text reports of LATENCY: DOCTOR (an analysis of every event series with advice) and
// GRAPH (an ASCII sparkline of one series), worded and laid out as Redis's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "streamd/commands/core/latency.h"

namespace streamd::cmd {

// What DOCTOR's advice depends on besides the series.
struct DoctorFacts {
  int64_t threshold_ms = 0;  // latency-monitor-threshold
  int64_t slowlog_log_slower_than = 0;
  int64_t slowlog_max_len = 0;
  bool fsync_always = false;
  int64_t hz = 10;
  bool transparent_huge_pages = false;  // the process has AnonHugePages
  double fork_rate_gb_per_s = 0;        // used memory / last fork time
};

std::string latency_doctor_report(const LatencyMonitor& monitor, const DoctorFacts& facts,
                                  int64_t now_s);

// The graph of `series`: a title line, 80 dashes, then 4 rows of bars with the age of each
// sample written vertically underneath (80 samples per block).
std::string latency_graph(std::string_view event, const LatencySeries& series, int64_t now_s);

// Bytes of AnonHugePages in /proc/self/smaps_rollup (0 if unreadable).
uint64_t anon_huge_pages_bytes();

}  // namespace streamd::cmd
