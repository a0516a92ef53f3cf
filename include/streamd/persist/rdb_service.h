// RdbService: the RDB snapshot file (`dbfilename` in `dir`, the working directory) of a running
// server, as redis-server 7.0.15 keeps it; what the command layer sees as cmd::Snapshots.
//
// - Startup (load_at_startup, when appendonly is no: the AOF wins when enabled, as in Redis):
//   the file is read whole and loaded all or nothing through rdb::load; a missing file starts
//   empty, a bad one stops startup. Keys already expired are dropped (streamd loads as a master).
// - SAVE writes in the event loop; BGSAVE forks (persist/snapshot_child.h) and the child writes
//   from its copy-on-write image. Both write temp-<pid>.rdb, fsync it, rename it over the file
//   and fsync the directory, so a crash leaves the old file or the new one, never half of one.
// - The `save` rules fire from cron (changes since the last save and seconds since it); a failed
//   BGSAVE is retried after kBgsaveRetryDelaySec, and with stop-writes-on-bgsave-error writes are
//   refused (MISCONF) until a save succeeds.
// - One child at a time with the AOF rewrite and a full sync's snapshot (repl/full_sync.cc):
//   BGSAVE while a rewrite runs is refused or, with SCHEDULE (or inside EXEC), started by the
//   cron once the rewrite is gone; while a full sync's child runs, which Redis counts as an RDB
//   child, SAVE and BGSAVE answer "Background save already in progress" and the save rules wait.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "streamd/commands/core/replication.h"
#include "streamd/commands/core/snapshots.h"
#include "streamd/persist/rdb/rdb.h"

namespace streamd::cmd {
class Server;
}

namespace streamd::config {
class Config;
}

namespace streamd::persist {

// The options RDB output is written with (rdb-version, rdbcompression, rdbchecksum: SAVE,
// BGSAVE, an AOF rewrite with aof-use-rdb-preamble) and RDB input is read with
// (rdb-skip-unsupported-types, stream node limits; keys already expired are dropped), from the
// live configuration.
rdb::SaveOptions rdb_save_options(const config::Config& cfg);
rdb::LoadOptions rdb_load_options(cmd::Server& server);

// Reads `path` whole and loads it into the server's keyspace (which must be empty), all or
// nothing. False with `*error` set (and `*missing` when there is no such file).
bool load_rdb_file(cmd::Server& server, const std::string& path, rdb::LoadStats* stats,
                   std::string* error, bool* missing = nullptr);

class RdbService final : public cmd::Snapshots {
 public:
  explicit RdbService(cmd::Server& server);
  ~RdbService() override;
  RdbService(const RdbService&) = delete;
  RdbService& operator=(const RdbService&) = delete;

  // Loads `dbfilename` into the (empty) keyspace if the file exists. False: startup must stop
  // (logged, naming the offending key where there is one).
  bool load_at_startup();
  // Attaches to the server (SAVE, BGSAVE, cron, INFO).
  void attach();

  // ---- cmd::Snapshots ----
  bool save() override;
  BgsaveStart bgsave(bool schedule, bool in_exec) override;
  bool bgsave_in_progress() const override { return child_pid_ > 0 || sync_child(); }
  int64_t lastsave() const override { return lastsave_s_; }
  cmd::SnapshotInfo info() const override;
  std::string write_error() const override;
  bool refuses_writes() const override;
  void cron(int64_t now_ms) override;
  bool shutdown_save(ShutdownSave mode) override;
  Reload reload(bool save, bool flush) override;
  bool flushed_all() override;

  // The replication fields (repl-id, repl-offset, repl-stream-db) of the file loaded at
  // startup, for the replication side to continue that history (main hands them over once
  // replication is set up); nullopt when the file had none.
  const std::optional<cmd::ReplSaveInfo>& loaded_repl_info() const { return repl_info_; }

  // For tests: the pid of a running BGSAVE child (0 if none), and a blocking wait for it
  // (returns whether it succeeded).
  pid_t child() const { return child_pid_; }
  bool wait_child();

 private:
  // Writes the keyspace to temp-<temp_pid>.rdb and renames it over `name`. Logs failures.
  bool write_file(const std::string& name, int temp_pid) const;
  // Loads `path` into the server's keyspace (which must be empty). `*missing`: no such file.
  bool load_file(const std::string& path, bool* missing);
  // rdb_save_options plus the replication fields the file records (Replication::rdb_save_info).
  rdb::SaveOptions save_options() const;
  // SAVE's work; `count` says whether it counts in rdb_saves (FLUSHALL's save does not).
  bool save_now(bool count);
  bool fork_bgsave();
  void bgsave_done(int status);
  void kill_child();
  // A full sync's child (replication) or an AOF rewrite's: no BGSAVE may fork meanwhile.
  bool other_child_active() const;
  bool sync_child() const;
  bool has_rules() const;
  int64_t now_s() const;

  cmd::Server& server_;
  int64_t lastsave_s_ = 0;
  int64_t last_try_s_ = 0;
  bool last_ok_ = true;
  uint64_t saves_ = 0;
  bool scheduled_ = false;
  bool shutdown_done_ = false;

  pid_t child_pid_ = 0;
  int64_t child_start_s_ = -1;
  uint64_t dirty_before_ = 0;
  int64_t last_bgsave_time_sec_ = -1;
  int cow_pipe_ = -1;
  uint64_t last_cow_bytes_ = 0;
  int64_t last_fork_us_ = 0;
  uint64_t forks_ = 0;

  std::optional<cmd::ReplSaveInfo> repl_info_;
  uint64_t load_keys_loaded_ = 0;
  uint64_t load_keys_expired_ = 0;
};

}  // namespace streamd::persist
