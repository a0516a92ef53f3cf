#include "streamd/commands/core/stats.h"

namespace streamd::cmd {

void Stats::reset() {
  total_commands = 0;
  total_connections = 0;
  rejected_connections = 0;
  total_error_replies = 0;
  keyspace_hits = 0;
  keyspace_misses = 0;
  expired_keys = 0;
  net_input_bytes = 0;
  net_output_bytes = 0;
  client_output_limit_disconnections = 0;
  commands.clear();
  errors.clear();
  ops_samples.clear();
}

void Stats::sample_ops(int64_t now_ms) {
  ops_samples.emplace_back(now_ms, total_commands);
  while (ops_samples.size() > 16) ops_samples.pop_front();
}

double Stats::ops_per_sec() const {
  if (ops_samples.size() < 2) return 0;
  auto& a = ops_samples.front();
  auto& b = ops_samples.back();
  if (b.first <= a.first) return 0;
  return static_cast<double>(b.second - a.second) * 1000.0 / static_cast<double>(b.first - a.first);
}

}  // namespace streamd::cmd
