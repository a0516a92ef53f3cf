#include "streamd/persist/rdb_service.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstring>

#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/replication.h"
#include "streamd/commands/core/server.h"
#include "streamd/config/config.h"
#include "streamd/engine/clock.h"
#include "streamd/persist/file_util.h"
#include "streamd/persist/save_rules.h"
#include "streamd/persist/snapshot_child.h"

namespace streamd::persist {

namespace {

std::string temp_name(int pid) {
  return "temp-" + std::to_string(pid) + ".rdb";
}

// A boolean directive that another part of issue 14 adds (rdbcompression, ...): its default
// until the table has it.
bool flag_or(const config::Config& cfg, std::string_view name, bool def) {
  return cfg.find(name) ? cfg.ref<bool>(name) : def;
}

std::string_view aux_value(const rdb::LoadStats& st, std::string_view key) {
  for (const auto& [k, v] : st.aux) {
    if (k == key) return v;
  }
  return {};
}

uint64_t key_count(engine::Keyspace& ks) {
  uint64_t n = 0;
  for (int i = 0; i < ks.databases(); ++i) n += ks.db(i).size();
  return n;
}

// The replication fields of a loaded file, when all three are there and make sense (Redis
// ignores them otherwise: an id of 40 characters, an offset and a database that are numbers).
std::optional<cmd::ReplSaveInfo> repl_info_from_aux(const rdb::LoadStats& st) {
  std::string_view id = aux_value(st, "repl-id");
  std::string_view off = aux_value(st, "repl-offset");
  std::string_view db = aux_value(st, "repl-stream-db");
  cmd::ReplSaveInfo i;
  auto number = [](std::string_view v, auto& out) {
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    return !v.empty() && ec == std::errc() && p == v.data() + v.size();
  };
  if (id.size() != 40 || !number(off, i.offset) || !number(db, i.stream_db)) return std::nullopt;
  if (i.offset < 0 || i.stream_db < 0) return std::nullopt;
  i.replid = std::string(id);
  return i;
}

}  // namespace

RdbService::RdbService(cmd::Server& server)
    : server_(server), lastsave_s_(server.start_ms() / 1000) {}

RdbService::~RdbService() {
  if (server_.snapshots() == this) server_.set_snapshots(nullptr);
  kill_child();
}

void RdbService::attach() {
  server_.set_snapshots(this);
}

int64_t RdbService::now_s() const {
  return server_.clock().now_ms() / 1000;
}

bool RdbService::has_rules() const {
  return !server_.config().save().empty();
}

bool RdbService::sync_child() const {
  const cmd::Replication* r = server_.replication();
  return r && r->sync_child_active();
}

bool RdbService::other_child_active() const {
  const cmd::Persistence* p = server_.persistence();
  return sync_child() || (p && p->info().aof_rewrite_in_progress);
}

rdb::SaveOptions rdb_save_options(const config::Config& cfg) {
  rdb::SaveOptions o;
  o.version = static_cast<int>(cfg.ref<std::int64_t>("rdb-version"));
  o.compression = flag_or(cfg, "rdbcompression", o.compression);
  o.checksum = flag_or(cfg, "rdbchecksum", o.checksum);
  return o;
}

rdb::LoadOptions rdb_load_options(cmd::Server& server) {
  const config::Config& cfg = server.config();
  rdb::LoadOptions o;
  o.skip_unsupported_types = flag_or(cfg, "rdb-skip-unsupported-types", false);
  o.now_ms = server.clock().now_ms();
  o.stream_limits = engine::StreamLimits{static_cast<uint64_t>(cfg.stream_node_max_entries()),
                                         static_cast<uint64_t>(cfg.stream_node_max_bytes())};
  o.log = [](std::string_view line) { spdlog::warn("{}", line); };
  return o;
}

bool load_rdb_file(cmd::Server& server, const std::string& path, rdb::LoadStats* stats,
                   std::string* error, bool* missing) {
  if (missing) *missing = false;
  int err = 0;
  auto bytes = read_file(path, &err);
  if (!bytes) {
    if (missing) *missing = err == ENOENT;
    *error = std::strerror(err);
    return false;
  }
  return rdb::load(*bytes, server.keyspace(), rdb_load_options(server), stats, error);
}

// ---- writing -----------------------------------------------------------------------------------

bool RdbService::write_file(const std::string& name, int temp_pid) const {
  std::string tmp = temp_name(temp_pid);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    char cwd[4096];
    spdlog::warn("Failed opening the temp RDB file {} (in server root dir {}) for saving: {}", tmp,
                 ::getcwd(cwd, sizeof cwd) ? cwd : "unknown", std::strerror(errno));
    return false;
  }
  int err = 0;
  const char* op = "write";
  bool ok = rdb::save(
      server_.keyspace(), server_.clock().now_ms(), save_options(),
      [&](std::string_view bytes) { return write_fully(fd, bytes, &err) == bytes.size(); });
  if (ok && (err = sync_file(fd)) != 0) {
    ok = false;
    op = "fsync";
  }
  if (::close(fd) != 0 && ok) {
    err = errno;
    ok = false;
    op = "close";
  }
  if (!ok) {
    spdlog::warn("Write error saving DB on disk({}): {}", op, std::strerror(err));
    ::unlink(tmp.c_str());
    return false;
  }
  if (::rename(tmp.c_str(), name.c_str()) != 0) {
    char cwd[4096];
    spdlog::warn(
        "Error moving temp DB file {} on the final destination {} (in server root dir {}): {}", tmp,
        name, ::getcwd(cwd, sizeof cwd) ? cwd : "unknown", std::strerror(errno));
    ::unlink(tmp.c_str());
    return false;
  }
  if ((err = sync_dir(".")) != 0) {
    spdlog::warn("Write error saving DB on disk(fsyncFileDir): {}", std::strerror(err));
    return false;
  }
  spdlog::info("DB saved on disk");
  return true;
}

rdb::SaveOptions RdbService::save_options() const {
  rdb::SaveOptions o = rdb_save_options(server_.config());
  const cmd::Replication* r = server_.replication();
  if (std::optional<cmd::ReplSaveInfo> ri = r ? r->rdb_save_info() : std::nullopt) {
    o.aux = {{"repl-stream-db", std::to_string(ri->stream_db)},
             {"repl-id", ri->replid},
             {"repl-offset", std::to_string(ri->offset)}};
  }
  return o;
}

bool RdbService::save() {
  return save_now(true);
}

bool RdbService::save_now(bool count) {
  // Only this service's own child conflicts (the SAVE command refuses during a full sync's
  // child too; a shutdown or a FLUSHALL saves regardless of it).
  if (child_pid_ > 0) return false;
  if (count) ++saves_;
  if (!write_file(server_.config().ref<std::string>("dbfilename"), ::getpid())) return false;
  server_.reset_dirty();
  lastsave_s_ = now_s();
  last_ok_ = true;
  return true;
}

cmd::Snapshots::BgsaveStart RdbService::bgsave(bool schedule, bool in_exec) {
  if (bgsave_in_progress()) return BgsaveStart::kAlreadyInProgress;
  if (other_child_active() || in_exec) {
    if (!schedule && !in_exec) return BgsaveStart::kOtherChild;
    scheduled_ = true;
    return BgsaveStart::kScheduled;
  }
  return fork_bgsave() ? BgsaveStart::kStarted : BgsaveStart::kFailed;
}

bool RdbService::fork_bgsave() {
  ++saves_;
  dirty_before_ = server_.dirty();
  last_try_s_ = now_s();
  if (cow_pipe_ >= 0) {
    ::close(cow_pipe_);  // left by a child that was killed
    cow_pipe_ = -1;
  }
  ForkedChild child = fork_snapshot_child({});
  if (child.pid < 0) {
    last_ok_ = false;
    spdlog::warn("Can't save in background: fork: {}", std::strerror(errno));
    return false;
  }
  if (child.pid == 0) {
    bool ok = write_file(server_.config().ref<std::string>("dbfilename"), ::getpid());
    if (ok) report_cow();
    ::_exit(ok ? 0 : 1);
  }
  child_pid_ = child.pid;
  cow_pipe_ = child.report_fd;
  last_fork_us_ = child.fork_us;
  ++forks_;
  child_start_s_ = now_s();
  int64_t now_ms = server_.clock().now_ms();
  server_.stats().latency.add_if_needed("fork", last_fork_us_ / 1000, now_ms / 1000,
                                        server_.config().latency_monitor_threshold());
  spdlog::info("Background saving started by pid {}", child.pid);
  return true;
}

void RdbService::bgsave_done(int status) {
  pid_t pid = child_pid_;
  child_pid_ = 0;
  if (cow_pipe_ >= 0) {
    last_cow_bytes_ = read_cow_report(cow_pipe_);
    cow_pipe_ = -1;
    spdlog::info("Fork CoW for RDB: {} MB", last_cow_bytes_ >> 20);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    spdlog::info("Background saving terminated with success");
    uint64_t d = server_.dirty();
    server_.set_dirty(d > dirty_before_ ? d - dirty_before_ : 0);
    lastsave_s_ = now_s();
    last_ok_ = true;
  } else if (WIFEXITED(status)) {
    spdlog::warn("Background saving error");
    last_ok_ = false;
  } else {
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    spdlog::warn("Background saving terminated by signal {}", sig);
    ::unlink(temp_name(pid).c_str());
    // SIGUSR1 is how an operator stops a child without making it an error (as in Redis).
    if (sig != SIGUSR1) last_ok_ = false;
  }
  last_bgsave_time_sec_ = now_s() - child_start_s_;
  child_start_s_ = -1;
}

bool RdbService::wait_child() {
  if (child_pid_ <= 0) return last_ok_;
  int st = 0;
  while (::waitpid(child_pid_, &st, 0) < 0 && errno == EINTR) {
  }
  bgsave_done(st);
  return last_ok_;
}

void RdbService::kill_child() {
  if (child_pid_ <= 0) return;
  kill_and_reap(child_pid_);
  ::unlink(temp_name(child_pid_).c_str());
  child_pid_ = 0;
  child_start_s_ = -1;
  if (cow_pipe_ >= 0) {
    ::close(cow_pipe_);
    cow_pipe_ = -1;
  }
}

void RdbService::cron(int64_t now_ms) {
  if (child_pid_ > 0) {
    int st = 0;
    if (child_ended(child_pid_, "BGSAVE", &st)) bgsave_done(st);
    return;
  }
  if (other_child_active()) return;
  SaveClock c{server_.dirty(), now_ms / 1000, lastsave_s_, last_try_s_, last_ok_};
  if (auto p = due_save_point(server_.config().save(), c)) {
    spdlog::info("{} changes in {} seconds. Saving...", p->changes, p->seconds);
    fork_bgsave();
    return;
  }
  if (scheduled_ && scheduled_bgsave_may_start(c) && fork_bgsave()) scheduled_ = false;
}

// ---- INFO, MISCONF, shutdown -------------------------------------------------------------------

cmd::SnapshotInfo RdbService::info() const {
  cmd::SnapshotInfo i;
  i.changes_since_last_save = server_.dirty();
  i.bgsave_in_progress = bgsave_in_progress();
  i.last_save_time = lastsave_s_;
  i.last_bgsave_ok = last_ok_;
  i.last_bgsave_time_sec = last_bgsave_time_sec_;
  i.current_bgsave_time_sec = child_pid_ > 0 ? now_s() - child_start_s_ : -1;
  i.saves = saves_;
  i.last_cow_size = last_cow_bytes_;
  i.last_load_keys_expired = load_keys_expired_;
  i.last_load_keys_loaded = load_keys_loaded_;
  i.latest_fork_usec = last_fork_us_;
  i.total_forks = forks_;
  return i;
}

bool RdbService::refuses_writes() const {
  return !last_ok_ && has_rules() && server_.config().ref<bool>("stop-writes-on-bgsave-error");
}

std::string RdbService::write_error() const {
  if (!refuses_writes()) return {};
  return std::string(cmd::errors::kRdbMisconf);
}

bool RdbService::shutdown_save(ShutdownSave mode) {
  if (shutdown_done_) return true;
  if (child_pid_ > 0) {
    spdlog::warn("There is a child saving an .rdb. Killing it!");
    kill_child();
  }
  if (!shutdown_saves(has_rules(), mode)) {
    shutdown_done_ = true;
    return true;
  }
  spdlog::info("Saving the final RDB snapshot before exiting.");
  if (!save()) {
    spdlog::warn("Error trying to save the DB, can't exit.");
    return false;
  }
  shutdown_done_ = true;
  return true;
}

bool RdbService::flushed_all() {
  if (child_pid_ > 0) {
    spdlog::info("FLUSHALL: killing the background save child {}", child_pid_);
    kill_child();
  }
  return has_rules() && save_now(false);
}

// ---- loading -----------------------------------------------------------------------------------

bool RdbService::load_file(const std::string& path, bool* missing) {
  int64_t t0 = engine::monotonic_us();
  rdb::LoadStats st;
  std::string why;
  if (!load_rdb_file(server_, path, &st, &why, missing)) {
    if (!*missing) spdlog::warn("Fatal error loading the DB {}: {}. Exiting.", path, why);
    return false;
  }
  if (std::string_view v = aux_value(st, "redis-ver"); !v.empty()) {
    spdlog::info("Loading RDB produced by version {}", v);
  }
  if (std::string_view ctime = aux_value(st, "ctime"); !ctime.empty()) {
    spdlog::info("RDB age {} seconds", now_s() - std::atoll(std::string(ctime).c_str()));
  }
  repl_info_ = repl_info_from_aux(st);
  load_keys_loaded_ = st.keys;
  load_keys_expired_ = st.expired_skipped;
  spdlog::info("Done loading RDB, keys loaded: {}, keys expired: {}.", st.keys, st.expired_skipped);
  if (st.unsupported_skipped) {
    spdlog::warn("{} keys of types streamd does not hold were skipped", st.unsupported_skipped);
  }
  spdlog::info("DB loaded from disk: {:.3f} seconds",
               static_cast<double>(engine::monotonic_us() - t0) / 1e6);
  return true;
}

bool RdbService::load_at_startup() {
  bool missing = false;
  if (load_file(server_.config().ref<std::string>("dbfilename"), &missing)) return true;
  return missing;
}

cmd::Snapshots::Reload RdbService::reload(bool save_first, bool flush) {
  if (save_first && !save()) return Reload::kSaveFailed;
  if (flush) server_.keyspace().flush_all();
  if (key_count(server_.keyspace()) != 0) {
    spdlog::warn("DEBUG RELOAD NOFLUSH: the keyspace is not empty, nothing loaded");
    return Reload::kLoadFailed;
  }
  bool missing = false;
  if (!load_file(server_.config().ref<std::string>("dbfilename"), &missing)) {
    return Reload::kLoadFailed;
  }
  spdlog::warn("DB reloaded by DEBUG RELOAD");
  return Reload::kOk;
}

}  // namespace streamd::persist
