// What the command layer needs from persistence beyond propagation: BGREWRITEAOF, WAITAOF and
// the INFO persistence fields. Declared here, implemented by persist::AofService, so commands
// stay free of files and processes. When the server runs without one (tests, or before startup
// attached it) the commands answer as a server with appendonly no would.
#pragma once

#include <cstdint>
#include <string>

#include "streamd/commands/core/propagation.h"

namespace streamd::cmd {

// The INFO persistence fields that depend on the AOF (names as Redis spells them).
struct PersistenceInfo {
  bool loading = false;
  int64_t loading_start_time = 0;  // Unix seconds
  uint64_t loading_total_bytes = 0;
  uint64_t loading_loaded_bytes = 0;
  bool aof_enabled = false;
  bool aof_rewrite_in_progress = false;
  bool aof_rewrite_scheduled = false;
  int64_t aof_last_rewrite_time_sec = -1;
  int64_t aof_current_rewrite_time_sec = -1;
  bool aof_last_bgrewrite_ok = true;
  uint64_t aof_rewrites = 0;
  uint64_t aof_rewrites_consecutive_failures = 0;
  bool aof_last_write_ok = true;
  uint64_t aof_last_cow_size = 0;
  uint64_t aof_current_size = 0;
  uint64_t aof_base_size = 0;
  bool aof_pending_rewrite = false;
  uint64_t aof_buffer_length = 0;
  uint64_t aof_pending_bio_fsync = 0;
  uint64_t aof_delayed_fsync = 0;
  // INFO stats: the rewrite's fork.
  int64_t latest_fork_usec = 0;
  uint64_t total_forks = 0;
};

class Persistence : public PropagationSink {
 public:
  enum class RewriteStart { kStarted, kScheduled, kAlreadyInProgress, kFailed };

  // BGREWRITEAOF: starts a background rewrite now, or schedules it (for the next cron tick) when
  // one cannot start yet or `schedule_only` (inside EXEC: forking there would snapshot a
  // transaction whose records are not written yet).
  virtual RewriteStart start_rewrite(bool schedule_only) = 0;

  // WAITAOF: makes sure everything up to `ticket` is fsynced (fsyncing now if needed); returns
  // whether it is.
  virtual bool fsync_through(uint64_t ticket) = 0;

  virtual bool aof_enabled() const = 0;
  // The newest ticket (PropagationSink::append's) whose unit is fsynced; 0 without an AOF. A
  // replica's FACK is the stream offset of its newest fsynced unit.
  virtual uint64_t synced_ticket() const { return 0; }
  virtual PersistenceInfo info() const = 0;
  // The memory the AOF buffer holds (allocated, written or not). maxmemory does not count it, as
  // Redis's freeMemoryGetNotCountedMemory leaves out aof_buf: evictions themselves grow it.
  virtual uint64_t buffer_allocation() const { return 0; }

  // SHUTDOWN / SIGTERM: write and fsync everything, stop background work. Returns false (and
  // logs why) if the data could not be made durable.
  virtual bool shutdown_flush() = 0;

  // DEBUG LOADAOF: writes what is buffered, empties every database and replays the AOF files
  // its manifest on disk lists (also with appendonly off, as Redis does). Nothing replayed is
  // propagated. Returns false (and logs why) when there is no AOF or it did not load.
  virtual bool debug_load() { return false; }
};

}  // namespace streamd::cmd
