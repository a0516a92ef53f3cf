// The stream command families, registered by register_stream_commands (stream_commands.cc), and
// the XREAD/XREADGROUP argument parser they share.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"

namespace streamd::cmd {

void register_stream_write_commands(CommandTable& t);  // XADD XTRIM XDEL XSETID
void register_stream_read_commands(CommandTable& t);   // XRANGE XREVRANGE XLEN XREAD
void register_stream_info_commands(CommandTable& t);   // XINFO
void register_stream_group_commands(CommandTable& t);  // XGROUP XREADGROUP XACK XCLAIM ...
void register_stream_ref_commands(CommandTable& t);    // XDELEX XACKDEL (8.2)
void register_stream_idmp_commands(CommandTable& t);   // XCFGSET XIDMPRECORD (8.6/8.8)
// STREAMD.DEADLETTER (a streamd extension: dead-letter streams)
void register_stream_dead_letter_commands(CommandTable& t);

// XREAD / XREADGROUP options, as Redis parses them (up to STREAMS; IDs are the caller's).
struct ReadArgs {
  long long count = 0;     // per stream; 0 = no limit
  long long maxcount = 0;  // MAXCOUNT (8.10): entries across all streams; 0 = no limit
  long long maxsize = 0;   // MAXSIZE (8.10): soft cap on the reply's bytes; 0 = no limit
  bool block = false;
  int64_t deadline_ms = 0;  // absolute; 0 = forever (with block)
  bool noack = false;
  std::string_view group, consumer;
  bool has_group = false;
  std::size_t streams_pos = 0;  // index of the first key
  std::size_t nstreams = 0;
  bool claim = false;  // XREADGROUP CLAIM min-idle-time (Redis 8.4)
  int64_t claim_min_idle_ms = 0;
};

// Parses XREAD/XREADGROUP options; replies with the error and returns false on bad input.
bool parse_read_args(Context& ctx, bool xreadgroup, ReadArgs& out);

// XREAD's key finder: keys follow STREAMS, half of what remains.
std::vector<int> xread_keys(std::span<const std::string_view> argv);

}  // namespace streamd::cmd
