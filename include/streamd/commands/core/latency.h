// Latency statistics: per-command latency histograms (LATENCY HISTOGRAM, INFO latencystats,
// Prometheus buckets) and the latency monitor's event series (LATENCY LATEST/HISTORY/DOCTOR/
// GRAPH, fed by samples at or above latency-monitor-threshold). Engine-free and protocol-free:
// the command and persistence layers record, the server family renders.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::cmd {

// A histogram of durations in nanoseconds with the bucket layout of Redis's hdr_histogram as
// Redis configures it for commands (1 ns .. 1 s, 2 significant digits): 128 linear sub-buckets
// per power of two (256 below 256 ns), so every value is kept within 1/128 (< 0.8%) of itself.
// Why this and not a plain log2 histogram: LATENCY HISTOGRAM's power-of-two buckets are what
// such a histogram would give, but INFO latencystats' percentiles would then be off by up to 2x;
// with this layout both come out exactly as Redis computes them for the same durations.
// Recording is a bit_width, a shift and one increment (no search, no allocation); the counts
// take 24 KiB, allocated on a command's first call, as Redis does.
//
// Invariant: total_ is the sum of counts_.
class LatencyHistogram {
 public:
  static constexpr int64_t kMinNs = 1;
  static constexpr int64_t kMaxNs = 1'000'000'000;
  // 23 power-of-two buckets cover kMaxNs; the first holds 256 sub-buckets, the others 128 each.
  static constexpr int kCounts = 24 * 128;

  // Values outside [kMinNs, kMaxNs] are clamped into it, as Redis does.
  void record(int64_t ns) {
    if (ns < kMinNs) ns = kMinNs;
    if (ns > kMaxNs) ns = kMaxNs;
    ++counts_[static_cast<std::size_t>(index_of(ns))];
    ++total_;
  }
  uint64_t total() const { return total_; }

  // hdr_value_at_percentile: the highest value equivalent to the one at `percentile` (0..100;
  // the lowest equivalent for 0). 0 for an empty histogram.
  int64_t value_at_percentile(double percentile) const;

  // LATENCY HISTOGRAM's buckets: (upper bound in microseconds, cumulative count) at 1024 ns,
  // 2048 ns, ... (each bound is the highest value equivalent to the power of two, so the labels
  // read 1, 2, 4, 8, 16, 33, 66 ...), only where the cumulative count grows. The last bucket
  // takes everything above 2^29 ns up to the 1 s clamp.
  std::vector<std::pair<int64_t, uint64_t>> log2_buckets() const;

  // The same levels, all of them (for Prometheus buckets, whose set must not change between
  // scrapes): the cumulative count at each level, and each level's inclusive upper bound in ns.
  static constexpr int kLog2Levels = 21;
  std::array<uint64_t, kLog2Levels> cumulative_log2() const;
  static int64_t log2_bound_ns(int level);

  // For tests and the metrics exporter: the bucket layout.
  static int index_of(int64_t v);
  static int64_t value_at_index(int index);
  static int64_t lowest_equivalent(int64_t v);
  static int64_t highest_equivalent(int64_t v);

 private:
  std::array<uint64_t, kCounts> counts_{};
  uint64_t total_ = 0;
};

// One latency monitor sample: the second it was taken and the latency in milliseconds.
struct LatencySample {
  int64_t time_s = 0;  // 0: the slot is unused
  int64_t latency_ms = 0;
};

// The last kLength seconds that had a sample of one event, oldest first from `next`.
// Invariants: within one second only the largest sample is kept; max is the largest latency ever
// added (survives the ring wrapping); next is the slot the next new second goes to.
struct LatencySeries {
  static constexpr int kLength = 160;
  std::array<LatencySample, kLength> samples{};
  int next = 0;
  int64_t max = 0;

  const LatencySample& latest() const { return samples[(next + kLength - 1) % kLength]; }
  // The used slots, oldest first.
  std::vector<LatencySample> in_order() const;
};

// Statistics of one series, as LATENCY DOCTOR reports them.
struct LatencyAnalysis {
  int samples = 0;
  int64_t avg = 0;
  int64_t mad = 0;     // mean absolute deviation from avg
  int64_t period = 0;  // seconds from the oldest sample to now (at least 1 when there are any)
  int64_t min = 0;
  int64_t max = 0;
};

// The latency monitor: one series per event name, created on its first sample. Event names used
// by streamd (see docs/commands.md, LATENCY): command, fast-command, expire-cycle, aof-write,
// aof-fsync-always, fork.
class LatencyMonitor {
 public:
  // Adds a sample unconditionally (callers check the threshold: add_if_needed).
  void add(std::string_view event, int64_t latency_ms, int64_t now_s);
  // What every measuring site calls: a sample only when monitoring is on (threshold > 0) and the
  // latency reaches the threshold.
  void add_if_needed(std::string_view event, int64_t latency_ms, int64_t now_s,
                     int64_t threshold_ms) {
    if (threshold_ms > 0 && latency_ms >= threshold_ms) add(event, latency_ms, now_s);
  }
  // Removes the named event's series (matched case-insensitively) and returns how many were
  // removed; reset_all removes every series.
  int reset(std::string_view event);
  int reset_all();

  const LatencySeries* find(std::string_view event) const;
  // By event name (sorted: Redis lists its dict in hash order, so no order is promised).
  const std::map<std::string, LatencySeries, std::less<>>& events() const { return events_; }
  LatencyAnalysis analyze(const LatencySeries& s, int64_t now_s) const;

 private:
  std::map<std::string, LatencySeries, std::less<>> events_;
};

}  // namespace streamd::cmd
