#include "streamd/commands/core/latency.h"

#include <strings.h>
#include <bit>
#include <cmath>

namespace streamd::cmd {

// ---- LatencyHistogram -------------------------------------------------------------------------
//
// Layout (hdr_histogram with lowest value 1, two significant digits): bucket b >= 1 holds the
// values [128 << b, 256 << b) in 128 sub-buckets of width 1 << b; bucket 0 holds [0, 256) in 256
// sub-buckets of width 1. Index = (b + 1) * 128 + (v >> b) - 128, so bucket 0 is indexes 0..255
// and bucket b starts at (b + 1) * 128.

namespace {

int bucket_of(int64_t v) {
  return std::bit_width(static_cast<uint64_t>(v) | 255u) - 8;
}

}  // namespace

int LatencyHistogram::index_of(int64_t v) {
  int b = bucket_of(v);
  return ((b + 1) << 7) + static_cast<int>(v >> b) - 128;
}

int64_t LatencyHistogram::value_at_index(int index) {
  int b = (index >> 7) - 1;
  int64_t sub = (index & 127) + 128;
  if (b < 0) {
    sub -= 128;
    b = 0;
  }
  return sub << b;
}

int64_t LatencyHistogram::lowest_equivalent(int64_t v) {
  int b = bucket_of(v);
  return (v >> b) << b;
}

int64_t LatencyHistogram::highest_equivalent(int64_t v) {
  int b = bucket_of(v);
  return lowest_equivalent(v) + (int64_t{1} << b) - 1;
}

int64_t LatencyHistogram::value_at_percentile(double percentile) const {
  if (total_ == 0) return 0;
  double p = percentile < 100.0 ? percentile : 100.0;
  auto wanted = static_cast<int64_t>((p / 100) * static_cast<double>(total_) + 0.5);
  if (wanted < 1) wanted = 1;
  uint64_t seen = 0;
  for (int i = 0; i < kCounts; ++i) {
    seen += counts_[static_cast<std::size_t>(i)];
    if (seen >= static_cast<uint64_t>(wanted)) {
      int64_t v = value_at_index(i);
      return percentile == 0.0 ? lowest_equivalent(v) : highest_equivalent(v);
    }
  }
  return 0;
}

// Reporting levels 1024 ns, 2048 ns, ... 2^29 ns: a level's bucket ends with the sub-bucket
// holding the level itself. The last level takes everything up to the last index (the 1 s
// clamp lies below 2^30).
namespace {
int log2_level_last_index(int level) {
  return level + 1 < LatencyHistogram::kLog2Levels
             ? LatencyHistogram::index_of(int64_t{1024} << level)
             : LatencyHistogram::kCounts - 1;
}
}  // namespace

int64_t LatencyHistogram::log2_bound_ns(int level) {
  return highest_equivalent(value_at_index(log2_level_last_index(level)));
}

std::array<uint64_t, LatencyHistogram::kLog2Levels> LatencyHistogram::cumulative_log2() const {
  std::array<uint64_t, kLog2Levels> out{};
  uint64_t cumulative = 0;
  int i = 0;
  for (int level = 0; level < kLog2Levels; ++level) {
    int last = log2_level_last_index(level);
    for (; i <= last; ++i) cumulative += counts_[static_cast<std::size_t>(i)];
    out[static_cast<std::size_t>(level)] = cumulative;
  }
  return out;
}

std::vector<std::pair<int64_t, uint64_t>> LatencyHistogram::log2_buckets() const {
  std::vector<std::pair<int64_t, uint64_t>> out;
  if (total_ == 0) return out;
  auto cumulative = cumulative_log2();
  uint64_t prev = 0;
  for (int level = 0; level < kLog2Levels; ++level) {
    uint64_t c = cumulative[static_cast<std::size_t>(level)];
    if (c > prev) out.emplace_back(log2_bound_ns(level) / 1000, c);
    prev = c;
    if (c == total_) break;
  }
  return out;
}

// ---- LatencySeries / LatencyMonitor -----------------------------------------------------------

std::vector<LatencySample> LatencySeries::in_order() const {
  std::vector<LatencySample> out;
  for (int j = 0; j < kLength; ++j) {
    const LatencySample& s = samples[static_cast<std::size_t>((next + j) % kLength)];
    if (s.time_s != 0) out.push_back(s);
  }
  return out;
}

void LatencyMonitor::add(std::string_view event, int64_t latency_ms, int64_t now_s) {
  auto it = events_.find(event);
  if (it == events_.end()) it = events_.emplace(std::string(event), LatencySeries{}).first;
  LatencySeries& s = it->second;
  if (latency_ms > s.max) s.max = latency_ms;
  LatencySample& prev = s.samples[static_cast<std::size_t>((s.next + LatencySeries::kLength - 1) %
                                                           LatencySeries::kLength)];
  if (prev.time_s == now_s) {
    if (latency_ms > prev.latency_ms) prev.latency_ms = latency_ms;
    return;
  }
  s.samples[static_cast<std::size_t>(s.next)] = {now_s, latency_ms};
  s.next = (s.next + 1) % LatencySeries::kLength;
}

int LatencyMonitor::reset(std::string_view event) {
  int n = 0;
  for (auto it = events_.begin(); it != events_.end();) {
    if (it->first.size() == event.size() &&
        strncasecmp(it->first.data(), event.data(), event.size()) == 0) {
      it = events_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

int LatencyMonitor::reset_all() {
  int n = static_cast<int>(events_.size());
  events_.clear();
  return n;
}

const LatencySeries* LatencyMonitor::find(std::string_view event) const {
  auto it = events_.find(event);
  return it == events_.end() ? nullptr : &it->second;
}

LatencyAnalysis LatencyMonitor::analyze(const LatencySeries& s, int64_t now_s) const {
  LatencyAnalysis a;
  std::vector<LatencySample> used = s.in_order();
  if (used.empty()) return a;
  int64_t sum = 0, oldest = 0;
  a.min = a.max = used.front().latency_ms;
  for (const auto& x : used) {
    a.min = std::min(a.min, x.latency_ms);
    a.max = std::max(a.max, x.latency_ms);
    sum += x.latency_ms;
    if (oldest == 0 || x.time_s < oldest) oldest = x.time_s;
  }
  a.samples = static_cast<int>(used.size());
  a.avg = sum / a.samples;
  a.period = now_s - oldest;
  if (a.period == 0) a.period = 1;
  int64_t dev = 0;
  for (const auto& x : used) dev += std::llabs(a.avg - x.latency_ms);
  a.mad = dev / a.samples;
  return a;
}

}  // namespace streamd::cmd
