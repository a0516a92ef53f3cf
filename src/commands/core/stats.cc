#include "streamd/commands/core/stats.h"

namespace streamd::cmd {

void Stats::reset() {
  total_commands = 0;
  total_connections = 0;
  rejected_connections = 0;
  sync_full = 0;
  sync_partial_ok = 0;
  sync_partial_err = 0;
  total_error_replies = 0;
  keyspace_hits = 0;
  keyspace_misses = 0;
  expired_keys = 0;
  expire_cycle_us = 0;
  expired_time_cap_reached = 0;
  expired_stale_perc = 0;
  net_input_bytes = 0;
  net_output_bytes = 0;
  client_output_limit_disconnections = 0;
  client_query_limit_disconnections = 0;
  total_reads = 0;
  total_writes = 0;
  reply_buffer_expands = 0;
  reply_buffer_shrinks = 0;
  eventloop_cycles = 0;
  eventloop_us = 0;
  eventloop_cmd_us = 0;
  acl_denied_auth = 0;
  acl_denied_cmd = 0;
  acl_denied_key = 0;
  acl_denied_channel = 0;
  commands.clear();
  errors.clear();
  samples.clear();
}

void Stats::sample(int64_t now_ms) {
  samples.push_back(
      {now_ms, total_commands, net_input_bytes, net_output_bytes, eventloop_cycles, eventloop_us});
  while (samples.size() > 16) samples.pop_front();
}

double Stats::rate(uint64_t Sample::*field) const {
  if (samples.size() < 2) return 0;
  const Sample& a = samples.front();
  const Sample& b = samples.back();
  // Counters only grow between resets, and a reset clears the samples.
  if (b.ms <= a.ms || b.*field < a.*field) return 0;
  return static_cast<double>(b.*field - a.*field) * 1000.0 / static_cast<double>(b.ms - a.ms);
}

uint64_t Stats::recent_cycle_us() const {
  if (samples.size() < 2) return 0;
  const Sample& a = samples.front();
  const Sample& b = samples.back();
  if (b.cycles <= a.cycles) return 0;
  return (b.loop_us - a.loop_us) / (b.cycles - a.cycles);
}

}  // namespace streamd::cmd
