// AofService: the append-only file of a running server. It ties the pieces together (manifest,
// loader, writer, rewrite) and is what the command layer sees as cmd::Persistence.
//
// Startup (start()): with appendonly yes, the AOF directory's manifest is read and its files
// loaded through the normal command dispatcher by a loading session whose replies go nowhere;
// then the last incremental file is opened for appending. A missing directory or manifest
// starts a fresh AOF (an empty base file, the first incremental file and the manifest), unless
// an old single-file AOF (`appendfilename` in `dir`, Redis 6 style) is there: it is moved into
// the directory and becomes the base, as redis-server 7 upgrades it.
//
// Rewrite (BGREWRITEAOF, or automatic when the AOF grew by auto-aof-rewrite-percentage over its
// size after the last rewrite and is at least auto-aof-rewrite-min-size): as Redis 7 does it,
//   1. the current incremental file is flushed and fsynced, a new one is opened and added to
//      the manifest (atomically), and new records go there from now on;
//   2. fork(): the child writes the dataset of its copy-on-write snapshot (which is exactly the
//      state after the last record of the previous incremental files) to a temporary file,
//      fsyncs it and exits; the parent keeps serving;
//   3. when the child succeeded (checked from cron), its file becomes the next base and the
//      manifest is switched atomically to {new base, the incremental file opened in step 1};
//      the older files are deleted. A failed or killed child changes nothing: the manifest
//      still lists the old base and all incremental files.
// A crash at any point leaves a manifest whose files load to the acknowledged state.
//
// CONFIG SET appendonly yes (at runtime) starts with a rewrite too, as in Redis: until that
// first base exists, new records go to a temporary incremental file that no manifest lists (the
// manifest on disk, if any, still describes an older AOF); when the rewrite succeeds, the
// temporary file is renamed to the next incremental name and the manifest switches to
// {new base, that file} at once. A failed first rewrite is retried.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "streamd/commands/core/persistence.h"
#include "streamd/persist/aof_writer.h"
#include "streamd/persist/manifest.h"

namespace streamd::cmd {
class Server;
class Dispatcher;
}  // namespace streamd::cmd

namespace streamd::config {
class Config;
}

namespace streamd::persist {

struct AofOptions {
  bool enabled = true;                      // appendonly
  std::string dirname = "appendonlydir";    // appenddirname, relative to the working directory
  std::string filename = "appendonly.aof";  // appendfilename
  FsyncPolicy fsync = FsyncPolicy::kEverysec;
  bool load_truncated = true;               // aof-load-truncated
  long long rewrite_percentage = 100;       // auto-aof-rewrite-percentage (0 = off)
  long long rewrite_min_size = 64ll << 20;  // auto-aof-rewrite-min-size
};

class AofService final : public cmd::Persistence {
 public:
  AofService(cmd::Server& server, cmd::Dispatcher& dispatcher, AofOptions opts);
  ~AofService() override;
  AofService(const AofService&) = delete;
  AofService& operator=(const AofService&) = delete;

  // The options the configuration gives (appendonly, appendfsync, appenddirname, ...).
  static AofOptions options_from(const config::Config& cfg);

  // Loads (or creates) the AOF and attaches to the server. False: startup must stop (logged).
  // Then follows CONFIG SET of appendonly, appendfsync and auto-aof-rewrite-*.
  bool start();
  // Settings that CONFIG SET may change while running (appendfsync, auto-aof-rewrite-*).
  void update_options(FsyncPolicy fsync, long long rewrite_percentage, long long rewrite_min_size);
  // CONFIG SET appendonly: on starts an AOF with a rewrite of the current data (as Redis does);
  // off flushes and closes it.
  void set_enabled(bool on);
  // A replica loaded its master's snapshot: the AOF it has describes the old data, so (with
  // appendonly yes) it is stopped and started again, as Redis does after a full sync: the
  // loaded data becomes the base of a new AOF by a rewrite, and until that succeeds the files on
  // disk still load to the old data set, never to a mix of old data and the master's stream.
  void restart_after_full_sync();

  // ---- cmd::PropagationSink ----
  uint64_t append(const cmd::PropagationBatch& unit) override;
  uint64_t buffer_allocation() const override {
    return opts_.enabled ? writer_.buffer_allocation() : 0;
  }
  bool must_hold_replies(uint64_t ticket) const override;
  void sync() override;
  std::string write_error() const override;
  bool refuses_writes() const override;
  void cron(int64_t now_ms) override;

  // ---- cmd::Persistence ----
  RewriteStart start_rewrite(bool schedule_only) override;
  bool fsync_through(uint64_t ticket) override;
  bool aof_enabled() const override { return opts_.enabled; }
  uint64_t synced_ticket() const override { return opts_.enabled ? writer_.synced_seq() : 0; }
  cmd::PersistenceInfo info() const override;
  bool shutdown_flush() override;
  bool debug_load() override;

  // For tests and the benchmark: the pid of a running rewrite child (0 if none), and a blocking
  // wait for it to finish (returns whether the rewrite succeeded).
  pid_t rewrite_child() const { return child_pid_; }
  bool wait_rewrite();
  const Manifest& manifest() const { return manifest_; }

 private:
  void listen_to_config();
  bool load_existing();
  // The manifest in the AOF directory, parsed; false (logged) when missing or invalid.
  bool read_manifest(Manifest& out);
  // Replays the files `m` lists into the keyspace, with INFO's loading fields kept current.
  bool replay(const Manifest& m);
  bool create_fresh();
  bool upgrade_legacy(const std::string& legacy);
  bool open_incr_for_append(const AofFileInfo& f);
  // Adds a new incremental file to the manifest and switches the writer to it.
  bool open_next_incr(const char* why);
  bool write_manifest(const Manifest& m);
  bool open_temp_incr();
  // The rewrite_done() success path when CONFIG SET appendonly yes waited for its first base.
  bool adopt_temp_incr(Manifest& next);
  void remove_temp_files();
  bool fork_rewrite();
  void rewrite_done(int status);
  void maybe_auto_rewrite();
  void remove_in_background(std::vector<std::string> paths);
  uint64_t current_size() const;
  bool bgsave_running() const;

  cmd::Server& server_;
  cmd::Dispatcher& dispatcher_;
  AofOptions opts_;
  Manifest manifest_;
  AofWriter writer_;

  uint64_t base_size_ = 0;          // size of the base file
  uint64_t closed_incr_size_ = 0;   // sizes of the incremental files before the current one
  uint64_t rewrite_base_size_ = 0;  // aof size after the last rewrite (or load): growth base

  // Rewrite state.
  pid_t child_pid_ = 0;
  std::string child_temp_;       // the child's temporary file name (in the AOF directory)
  bool child_rdb_base_ = false;  // the child writes an RDB base (aof-use-rdb-preamble yes)
  int64_t rewrite_start_ms_ = 0;
  bool rewrite_scheduled_ = false;
  // CONFIG SET appendonly yes: records go to the temporary incr file until the first base.
  bool waiting_first_rewrite_ = false;
  int64_t last_rewrite_time_sec_ = -1;
  bool last_rewrite_ok_ = true;
  uint64_t rewrites_ = 0;
  uint64_t rewrite_failures_ = 0;
  int64_t last_fork_us_ = 0;
  // The child reports its copy-on-write size (bytes it no longer shares with the parent) through
  // this pipe just before it exits: INFO aof_last_cow_size.
  int cow_pipe_ = -1;
  uint64_t last_cow_bytes_ = 0;
  uint64_t total_forks_ = 0;
  // Deletes the files a rewrite made obsolete: unlinking a large file takes tens of milliseconds,
  // which clients would otherwise see as a pause (Redis deletes them in the background too).
  std::thread remover_;
  int64_t next_auto_attempt_ms_ = 0;

  std::vector<uint64_t> config_listeners_;

  // Loading state, for INFO while start() runs.
  bool loading_ = false;
  int64_t loading_start_sec_ = 0;
  uint64_t loading_total_ = 0;
  uint64_t loading_done_ = 0;
};

}  // namespace streamd::persist
