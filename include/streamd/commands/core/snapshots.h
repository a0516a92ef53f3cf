// What the command layer needs from RDB snapshots: SAVE, BGSAVE [SCHEDULE], LASTSAVE, the
// SHUTDOWN save, DEBUG RELOAD, INFO persistence's rdb_* fields and the MISCONF refusal of writes
// after a failed background save. Declared here, implemented by persist::RdbService
// (persist/rdb_service.h), so commands stay free of files and processes. Without one attached
// (tests) the commands answer as a server whose saves fail.
#pragma once

#include <cstdint>
#include <string>

namespace streamd::cmd {

// INFO persistence's rdb_* fields (Redis's names) and the fork counters of INFO stats.
struct SnapshotInfo {
  uint64_t changes_since_last_save = 0;
  bool bgsave_in_progress = false;
  int64_t last_save_time = 0;  // Unix seconds
  bool last_bgsave_ok = true;
  int64_t last_bgsave_time_sec = -1;
  int64_t current_bgsave_time_sec = -1;
  uint64_t saves = 0;
  uint64_t last_cow_size = 0;
  uint64_t last_load_keys_expired = 0;
  uint64_t last_load_keys_loaded = 0;
  int64_t latest_fork_usec = 0;
  uint64_t total_forks = 0;
};

class Snapshots {
 public:
  enum class BgsaveStart { kStarted, kScheduled, kAlreadyInProgress, kOtherChild, kFailed };
  // How SHUTDOWN was asked to treat the final snapshot.
  enum class ShutdownSave { kDefault, kSave, kNoSave };

  virtual ~Snapshots() = default;

  // SAVE: writes the file in the event loop. False: it could not (logged); SAVE answers -ERR.
  virtual bool save() = 0;
  // BGSAVE: forks a child that writes the file. While another child (an AOF rewrite) runs it
  // is refused, or with `schedule` (BGSAVE SCHEDULE) postponed to the cron; inside EXEC it is
  // always postponed (forking there would snapshot a transaction half applied).
  virtual BgsaveStart bgsave(bool schedule, bool in_exec) = 0;
  // An RDB child runs: this BGSAVE's, or a full sync's (Replication::sync_child_active).
  virtual bool bgsave_in_progress() const = 0;
  // LASTSAVE: Unix seconds of the last successful save (startup time before the first).
  virtual int64_t lastsave() const = 0;
  virtual SnapshotInfo info() const = 0;
  // The MISCONF line (without '-') that refuses writes while the last background save failed
  // under stop-writes-on-bgsave-error with save rules set; empty when writes are allowed.
  virtual std::string write_error() const = 0;
  // Whether write_error() is non-empty, without building the text (asked before every write).
  virtual bool refuses_writes() const { return !write_error().empty(); }
  // The save rules and reaping the child; once per server cron tick.
  virtual void cron(int64_t now_ms) = 0;
  // SHUTDOWN / SIGTERM: kills a running BGSAVE child, then saves if the mode or the save rules
  // ask for it. False: the save failed (SHUTDOWN without FORCE then stays up).
  virtual bool shutdown_save(ShutdownSave mode) = 0;
  // DEBUG RELOAD [NOSAVE] [NOFLUSH]: saves (unless NOSAVE), empties the keyspace (unless
  // NOFLUSH) and loads the file back; a load into a keyspace that is not empty fails.
  enum class Reload { kOk, kSaveFailed, kLoadFailed };
  virtual Reload reload(bool save, bool flush) = 0;
  // FLUSHALL has emptied every database: a running BGSAVE is killed (it would write the old
  // data) and, when save rules are set, an empty file is saved in the event loop, as Redis does
  // (LASTSAVE moves, rdb_saves does not). True when it saved: the flush then counts no change.
  virtual bool flushed_all() { return false; }
};

}  // namespace streamd::cmd
