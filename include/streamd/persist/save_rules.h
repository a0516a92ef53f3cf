// The decisions around RDB snapshots that depend only on numbers, kept apart from files and
// processes so unit tests can walk them: which `save <seconds> <changes>` rule fires in a cron
// tick, when a scheduled BGSAVE may start, and whether SHUTDOWN writes a final snapshot. They
// follow redis-server 7.0.15's serverCron and prepareForShutdown.
#pragma once

#include <cstdint>
#include <optional>

#include "streamd/commands/core/snapshots.h"
#include "streamd/config/values.h"

namespace streamd::persist {

// After a failed BGSAVE, the rules and a scheduled BGSAVE wait this long before the next try
// (Redis's CONFIG_BGSAVE_RETRY_DELAY), so a full disk is not hammered by a fork per tick.
inline constexpr int64_t kBgsaveRetryDelaySec = 5;

struct SaveClock {
  uint64_t dirty = 0;      // changes since the last successful save
  int64_t now_s = 0;       // Unix seconds
  int64_t lastsave_s = 0;  // the last successful save (startup time before the first)
  int64_t last_try_s = 0;  // the last BGSAVE attempt (0: none yet)
  bool last_ok = true;     // whether the last BGSAVE succeeded
};

// The first rule (in configuration order) that asks for a BGSAVE now: at least `changes`
// changes and strictly more than `seconds` seconds since the last save, and the last attempt
// either succeeded or is more than kBgsaveRetryDelaySec old. nullopt: nothing to do.
std::optional<config::SavePoint> due_save_point(const config::SavePoints& rules,
                                                const SaveClock& c);

// Whether a BGSAVE SCHEDULE (postponed while another child ran) may start now that no child
// runs: the same retry delay after a failure.
bool scheduled_bgsave_may_start(const SaveClock& c);

// Whether SHUTDOWN (or SIGTERM) writes a final snapshot: SAVE always, NOSAVE never, otherwise
// when save rules are set.
bool shutdown_saves(bool has_rules, cmd::Snapshots::ShutdownSave mode);

}  // namespace streamd::persist
