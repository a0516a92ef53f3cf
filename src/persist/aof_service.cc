#include "streamd/persist/aof_service.h"

#include <dirent.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/config/config.h"
#include "streamd/engine/clock.h"
#include "streamd/persist/aof_loader.h"
#include "streamd/persist/dataset_writer.h"
#include "streamd/persist/file_util.h"
#include "streamd/persist/loading_runner.h"
#include "streamd/persist/rdb/rdb.h"
#include "streamd/persist/rdb_service.h"
#include "streamd/persist/snapshot_child.h"

namespace streamd::persist {

namespace {

constexpr std::string_view kTempRewritePrefix = "temp-rewriteaof-bg-";
// After a failed automatic rewrite, wait this long before trying again.
constexpr int64_t kAutoRewriteRetryMs = 10000;

}  // namespace

AofService::AofService(cmd::Server& server, cmd::Dispatcher& dispatcher, AofOptions opts)
    : server_(server), dispatcher_(dispatcher), opts_(std::move(opts)) {}

AofOptions AofService::options_from(const config::Config& cfg) {
  AofOptions o;
  o.enabled = cfg.appendonly();
  o.dirname = cfg.appenddirname();
  o.filename = cfg.appendfilename();
  switch (cfg.appendfsync()) {
    case config::AppendFsync::kAlways:
      o.fsync = FsyncPolicy::kAlways;
      break;
    case config::AppendFsync::kEverySec:
      o.fsync = FsyncPolicy::kEverysec;
      break;
    case config::AppendFsync::kNo:
      o.fsync = FsyncPolicy::kNo;
      break;
  }
  o.load_truncated = cfg.aof_load_truncated();
  o.rewrite_percentage = cfg.auto_aof_rewrite_percentage();
  o.rewrite_min_size = static_cast<long long>(cfg.auto_aof_rewrite_min_size());
  return o;
}

AofService::~AofService() {
  if (cow_pipe_ >= 0) ::close(cow_pipe_);
  if (remover_.joinable()) remover_.join();
  for (uint64_t id : config_listeners_) server_.config().remove(id);
  if (server_.persistence() == this) server_.set_persistence(nullptr);
  if (child_pid_ > 0) {
    ::kill(child_pid_, SIGKILL);
    int st;
    ::waitpid(child_pid_, &st, 0);
    ::unlink(join_path(opts_.dirname, child_temp_).c_str());
  }
}

bool AofService::start() {
  writer_.set_policy(opts_.fsync);
  if (!opts_.enabled) {
    server_.set_persistence(this);
    listen_to_config();
    return true;
  }
  std::string manifest_path = join_path(opts_.dirname, manifest_name(opts_.filename));
  bool ok;
  if (path_exists(manifest_path)) {
    ok = load_existing();
  } else if (path_exists(opts_.filename)) {
    ok = upgrade_legacy(opts_.filename);
  } else {
    ok = create_fresh();
  }
  if (!ok) return false;
  rewrite_base_size_ = current_size();
  server_.set_persistence(this);
  listen_to_config();
  return true;
}

void AofService::listen_to_config() {
  config::Config& cfg = server_.config();
  auto tunables = [this](const config::Directive&) {
    AofOptions o = options_from(server_.config());
    update_options(o.fsync, o.rewrite_percentage, o.rewrite_min_size);
  };
  for (const char* name :
       {"appendfsync", "auto-aof-rewrite-percentage", "auto-aof-rewrite-min-size"}) {
    config_listeners_.push_back(cfg.on_change(name, tunables));
  }
  config_listeners_.push_back(cfg.on_change("aof-load-truncated", [this](const config::Directive&) {
    opts_.load_truncated = server_.config().aof_load_truncated();
  }));
  config_listeners_.push_back(cfg.on_change("appendonly", [this](const config::Directive&) {
    set_enabled(server_.config().appendonly());
  }));
}

void AofService::restart_after_full_sync() {
  if (!opts_.enabled) return;
  spdlog::info("Restarting the append only file after the full sync from the master");
  set_enabled(false);
  set_enabled(true);
}

void AofService::set_enabled(bool on) {
  if (on == opts_.enabled) return;
  if (!on) {
    if (child_pid_ > 0) {
      ::kill(child_pid_, SIGKILL);
      int st;
      while (::waitpid(child_pid_, &st, 0) < 0 && errno == EINTR) {
      }
      ::unlink(join_path(opts_.dirname, child_temp_).c_str());
      child_pid_ = 0;
    }
    writer_.close_file();
    if (waiting_first_rewrite_) {
      ::unlink(join_path(opts_.dirname, temp_incr_file_name(opts_.filename)).c_str());
      waiting_first_rewrite_ = false;
    }
    rewrite_scheduled_ = false;
    opts_.enabled = false;
    server_.refresh_propagating();
    spdlog::info("Append only file disabled");
    return;
  }
  // The current data becomes the base of a new AOF. An AOF left on disk by an earlier run is
  // not what is in memory now: it is superseded, but its manifest is read so that the new files
  // continue its sequence numbers (no name is reused) and its files are removed afterwards.
  if (int e = make_dir(opts_.dirname); e != 0) {
    spdlog::warn("Can't enable the append only file: can't create {}: {}", opts_.dirname,
                 std::strerror(e));
    return;
  }
  manifest_ = Manifest{};
  int err = 0;
  if (auto text = read_file(join_path(opts_.dirname, manifest_name(opts_.filename)), &err)) {
    if (!parse_manifest(*text, manifest_, nullptr)) manifest_ = Manifest{};
  }
  base_size_ = 0;
  closed_incr_size_ = 0;
  if (child_pid_ > 0) {
    // A BGREWRITEAOF of the appendonly-no kind is running: its base would not match the
    // temporary incr file, which starts now. Start over.
    ::kill(child_pid_, SIGKILL);
    int st;
    while (::waitpid(child_pid_, &st, 0) < 0 && errno == EINTR) {
    }
    ::unlink(join_path(opts_.dirname, child_temp_).c_str());
    child_pid_ = 0;
  }
  if (!open_temp_incr()) return;
  opts_.enabled = true;
  server_.refresh_propagating();
  waiting_first_rewrite_ = true;
  if (bgsave_running()) {
    spdlog::info(
        "AOF was enabled but there is already another background operation. An AOF background "
        "was scheduled to start when possible.");
    rewrite_scheduled_ = true;
    return;
  }
  if (!fork_rewrite()) {
    spdlog::warn("Can't enable the append only file now: the rewrite could not start; retrying");
    last_rewrite_ok_ = false;
    ++rewrite_failures_;
    rewrite_scheduled_ = true;
    next_auto_attempt_ms_ = server_.clock().now_ms() + kAutoRewriteRetryMs;
    return;
  }
  spdlog::info("Append only file enabled: rewriting the current data into it");
}

bool AofService::open_temp_incr() {
  std::string path = join_path(opts_.dirname, temp_incr_file_name(opts_.filename));
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    spdlog::warn("Can't enable the append only file: can't create {}: {}", path,
                 std::strerror(errno));
    return false;
  }
  writer_.open_file(fd, path, 0);
  return true;
}

bool AofService::adopt_temp_incr(Manifest& next) {
  // Its content must be on disk before a manifest lists it.
  if (!writer_.fsync_through(writer_.appended_seq())) {
    spdlog::warn("Can't make the temporary AOF incr file durable: {}",
                 std::strerror(writer_.last_errno()));
    return false;
  }
  long long seq = manifest_.last_incr_seq() + 1;
  std::string name = incr_file_name(opts_.filename, seq);
  std::string path = join_path(opts_.dirname, name);
  if (::rename(writer_.path().c_str(), path.c_str()) != 0) {
    spdlog::warn("Can't rename the temporary AOF incr file into {}: {}", name,
                 std::strerror(errno));
    return false;
  }
  writer_.set_path(path);
  next.incrs.push_back(AofFileInfo{name, seq, AofFileType::kIncr});
  return true;
}

void AofService::update_options(FsyncPolicy fsync, long long rewrite_percentage,
                                long long rewrite_min_size) {
  if (fsync != writer_.policy()) writer_.set_policy(fsync);
  opts_.fsync = fsync;
  opts_.rewrite_percentage = rewrite_percentage;
  opts_.rewrite_min_size = rewrite_min_size;
}

bool AofService::load_existing() {
  if (!read_manifest(manifest_)) return false;
  remove_temp_files();
  if (!replay(manifest_)) return false;

  base_size_ =
      manifest_.base ? file_size(join_path(opts_.dirname, manifest_.base->name)).value_or(0) : 0;
  closed_incr_size_ = 0;
  if (manifest_.incrs.empty()) return open_next_incr("on server start");
  for (std::size_t i = 0; i + 1 < manifest_.incrs.size(); ++i) {
    closed_incr_size_ += file_size(join_path(opts_.dirname, manifest_.incrs[i].name)).value_or(0);
  }
  return open_incr_for_append(manifest_.incrs.back());
}

bool AofService::read_manifest(Manifest& out) {
  std::string path = join_path(opts_.dirname, manifest_name(opts_.filename));
  int err = 0;
  auto text = read_file(path, &err);
  if (!text) {
    spdlog::warn("Can't open the AOF manifest {}: {}", path, std::strerror(err));
    return false;
  }
  std::string why;
  Manifest m;
  if (!parse_manifest(*text, m, &why)) {
    spdlog::warn("Invalid AOF manifest file format in {}: {}", path, why);
    return false;
  }
  out = std::move(m);
  return true;
}

bool AofService::replay(const Manifest& m) {
  loading_ = true;
  loading_start_sec_ = server_.clock().now_ms() / 1000;
  LoadingRunner runner(dispatcher_);
  LoadOptions lo;
  lo.load_truncated = opts_.load_truncated;
  lo.load_rdb = [this](const std::string& file, std::string* why) {
    rdb::LoadStats st;
    return load_rdb_file(server_, file, &st, why);
  };
  lo.progress = [this](uint64_t done, uint64_t total) {
    loading_done_ = done;
    loading_total_ = total;
  };
  LoadResult r = load_aof(opts_.dirname, m, runner, lo);
  loading_ = false;
  if (!r.ok) return false;

  uint64_t keys = 0;
  int dbs = 0;
  for (int i = 0; i < server_.keyspace().databases(); ++i) {
    std::size_t n = server_.keyspace().db(i).size();
    keys += n;
    if (n) ++dbs;
  }
  spdlog::info("DB loaded from append only file: {:.3f} seconds", r.seconds);
  spdlog::info(
      "AOF loaded: {} commands ({} failed), {} bytes, {} keys in {} databases, {:.1f} MB/s",
      r.commands, runner.failed(), r.bytes, keys, dbs,
      r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds / 1e6 : 0.0);
  return true;
}

bool AofService::debug_load() {
  // What was acknowledged reaches the file first, so the replay ends where memory is now.
  if (opts_.enabled && writer_.has_file() && !writer_.fsync_through(writer_.appended_seq())) {
    spdlog::warn("DEBUG LOADAOF: can't write the AOF: {}", std::strerror(writer_.last_errno()));
    return false;
  }
  server_.keyspace().flush_all();
  Manifest m;
  if (!read_manifest(m)) return false;
  server_.set_replaying(true);
  bool ok = replay(m);
  server_.set_replaying(false);
  if (!ok) return false;
  server_.reset_dirty();
  spdlog::info("Append Only File loaded by DEBUG LOADAOF");
  return true;
}

bool AofService::create_fresh() {
  if (int e = make_dir(opts_.dirname); e != 0) {
    spdlog::warn("Can't create the AOF directory {}: {}", opts_.dirname, std::strerror(e));
    return false;
  }
  remove_temp_files();
  std::string base = base_file_name(opts_.filename, 1);
  std::string path = join_path(opts_.dirname, base);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    spdlog::warn("Can't create the AOF base file {}: {}", path, std::strerror(errno));
    return false;
  }
  int e = sync_file(fd);
  ::close(fd);
  if (e != 0) {
    spdlog::warn("Can't fsync the AOF base file {}: {}", path, std::strerror(e));
    return false;
  }
  spdlog::info("Creating AOF base file {} on server start", base);
  manifest_ = Manifest{};
  manifest_.base = AofFileInfo{base, 1, AofFileType::kBase};
  base_size_ = 0;
  closed_incr_size_ = 0;
  return open_next_incr("on server start");
}

bool AofService::upgrade_legacy(const std::string& legacy) {
  if (int e = make_dir(opts_.dirname); e != 0) {
    spdlog::warn("Can't create the AOF directory {}: {}", opts_.dirname, std::strerror(e));
    return false;
  }
  std::string dst = join_path(opts_.dirname, legacy);
  if (::rename(legacy.c_str(), dst.c_str()) != 0) {
    spdlog::warn("Can't move the old-style AOF {} into {}: {}", legacy, opts_.dirname,
                 std::strerror(errno));
    return false;
  }
  Manifest m;
  m.base = AofFileInfo{legacy, 1, AofFileType::kBase};
  if (!write_manifest(m)) return false;
  spdlog::info("Successfully migrated an old-style AOF {} into the AOF directory {}", legacy,
               opts_.dirname);
  return load_existing();
}

bool AofService::open_incr_for_append(const AofFileInfo& f) {
  std::string path = join_path(opts_.dirname, f.name);
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    spdlog::warn("Can't open the AOF incr file {}: {}", path, std::strerror(errno));
    return false;
  }
  writer_.open_file(fd, path, file_size(path).value_or(0));
  spdlog::info("Opening AOF incr file {} on server start", f.name);
  return true;
}

bool AofService::open_next_incr(const char* why) {
  // What the current file holds must be durable before the manifest stops ending with it.
  if (writer_.has_file() && !writer_.fsync_through(writer_.appended_seq())) {
    spdlog::warn("Can't switch AOF incr files: the current one cannot be written ({})",
                 std::strerror(writer_.last_errno()));
    return false;
  }
  long long seq = manifest_.last_incr_seq() + 1;
  std::string name = incr_file_name(opts_.filename, seq);
  std::string path = join_path(opts_.dirname, name);
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    spdlog::warn("Can't create the AOF incr file {}: {}", path, std::strerror(errno));
    return false;
  }
  Manifest next = manifest_;
  next.incrs.push_back(AofFileInfo{name, seq, AofFileType::kIncr});
  if (!write_manifest(next)) {
    ::close(fd);
    ::unlink(path.c_str());
    return false;
  }
  if (writer_.has_file()) {
    closed_incr_size_ += writer_.file_size();
    writer_.close_file();
  }
  writer_.open_file(fd, path, 0);
  manifest_ = std::move(next);
  spdlog::info("Creating AOF incr file {} {}", name, why);
  return true;
}

bool AofService::write_manifest(const Manifest& m) {
  int e = replace_file(opts_.dirname, manifest_name(opts_.filename),
                       temp_manifest_name(opts_.filename), m.serialize());
  if (e != 0) {
    spdlog::warn("Can't write the AOF manifest in {}: {}", opts_.dirname, std::strerror(e));
    return false;
  }
  return true;
}

void AofService::remove_temp_files() {
  DIR* d = ::opendir(opts_.dirname.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name.substr(0, kTempRewritePrefix.size()) == kTempRewritePrefix ||
        name == temp_incr_file_name(opts_.filename)) {
      ::unlink(join_path(opts_.dirname, name).c_str());
    }
  }
  ::closedir(d);
}

uint64_t AofService::current_size() const {
  return base_size_ + closed_incr_size_ + (writer_.has_file() ? writer_.file_size() : 0);
}

// ---- propagation ---------------------------------------------------------------------------

uint64_t AofService::append(const cmd::PropagationBatch& unit) {
  return opts_.enabled ? writer_.append(unit) : 0;
}

bool AofService::must_hold_replies(uint64_t ticket) const {
  return opts_.enabled && writer_.must_hold(ticket);
}

void AofService::sync() {
  if (!opts_.enabled) return;
  AofWriter::SyncTimes t = writer_.sync();
  // The latency monitor's AOF events (Redis's names): the write(2) of the buffered records, and
  // the fsync the event loop waits for under appendfsync always.
  int64_t threshold = server_.config().latency_monitor_threshold();
  if (threshold > 0) {
    int64_t now_s = server_.clock().now_ms() / 1000;
    auto& lm = server_.stats().latency;
    if (t.write_us >= 0) lm.add_if_needed("aof-write", t.write_us / 1000, now_s, threshold);
    if (t.fsync_us >= 0) lm.add_if_needed("aof-fsync-always", t.fsync_us / 1000, now_s, threshold);
  }
}

bool AofService::refuses_writes() const {
  return opts_.enabled && !writer_.write_ok();
}

std::string AofService::write_error() const {
  if (!refuses_writes()) return {};
  return cmd::errors::aof_write_error(std::strerror(writer_.last_errno()));
}

bool AofService::fsync_through(uint64_t ticket) {
  return opts_.enabled && writer_.fsync_through(ticket);
}

// ---- rewrite --------------------------------------------------------------------------------

bool AofService::bgsave_running() const {
  const cmd::Snapshots* rdb = server_.snapshots();
  return rdb && rdb->bgsave_in_progress();
}

cmd::Persistence::RewriteStart AofService::start_rewrite(bool schedule_only) {
  if (child_pid_ > 0) return RewriteStart::kAlreadyInProgress;
  // One child at a time, as in Redis: a BGSAVE running makes the rewrite wait for the cron.
  if (schedule_only || bgsave_running()) {
    rewrite_scheduled_ = true;
    return RewriteStart::kScheduled;
  }
  if (fork_rewrite()) return RewriteStart::kStarted;
  last_rewrite_ok_ = false;
  ++rewrite_failures_;
  return RewriteStart::kFailed;
}

bool AofService::fork_rewrite() {
  if (!opts_.enabled) {
    if (int e = make_dir(opts_.dirname); e != 0) {
      spdlog::warn("Can't create the AOF directory {}: {}", opts_.dirname, std::strerror(e));
      return false;
    }
  } else if (!waiting_first_rewrite_ && !open_next_incr("on background rewrite")) {
    return false;
  }
  rewrite_scheduled_ = false;
  int64_t now_ms = server_.clock().now_ms();
  if (cow_pipe_ >= 0) {
    ::close(cow_pipe_);  // left by a child that was killed
    cow_pipe_ = -1;
  }
  // aof-use-rdb-preamble yes: the new base is an RDB (Redis 7's layout), decided at the fork.
  bool rdb_base = server_.config().aof_use_rdb_preamble();
  ForkedChild child = fork_snapshot_child({});
  pid_t pid = child.pid;
  if (pid < 0) {
    spdlog::warn("Can't rewrite append only file in background: fork: {}", std::strerror(errno));
    return false;
  }
  if (pid == 0) {
    std::string path = join_path(
        opts_.dirname, std::string(kTempRewritePrefix) + std::to_string(::getpid()) + ".aof");
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) ::_exit(2);
    auto out = [fd](std::string_view bytes) {
      int err = 0;
      return write_fully(fd, bytes, &err) == bytes.size();
    };
    bool ok = rdb_base
                  ? rdb::save(server_.keyspace(), now_ms, rdb_save_options(server_.config()), out)
                  : write_dataset(server_.keyspace(), now_ms, out);
    ok = ok && sync_file(fd) == 0;
    ::close(fd);
    report_cow();
    ::_exit(ok ? 0 : 3);
  }
  cow_pipe_ = child.report_fd;
  last_fork_us_ = child.fork_us;
  ++total_forks_;
  server_.stats().latency.add_if_needed("fork", last_fork_us_ / 1000, now_ms / 1000,
                                        server_.config().latency_monitor_threshold());
  child_pid_ = pid;
  child_rdb_base_ = rdb_base;
  child_temp_ = std::string(kTempRewritePrefix) + std::to_string(pid) + ".aof";
  rewrite_start_ms_ = now_ms;
  spdlog::info("Background append only file rewriting started by pid {} (fork took {} us)", pid,
               last_fork_us_);
  return true;
}

void AofService::rewrite_done(int status) {
  std::string temp = join_path(opts_.dirname, child_temp_);
  int64_t now = server_.clock().now_ms();
  child_pid_ = 0;
  last_rewrite_time_sec_ = (now - rewrite_start_ms_) / 1000;
  if (cow_pipe_ >= 0) {
    last_cow_bytes_ = read_cow_report(cow_pipe_);
    cow_pipe_ = -1;
    spdlog::info("Fork CoW for AOF rewrite: {} MB", last_cow_bytes_ >> 20);
  }
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  auto fail = [&] {
    ::unlink(temp.c_str());
    last_rewrite_ok_ = false;
    ++rewrite_failures_;
    next_auto_attempt_ms_ = now + kAutoRewriteRetryMs;
    // CONFIG SET appendonly yes still has no base: keep trying (after the retry delay).
    if (waiting_first_rewrite_) rewrite_scheduled_ = true;
  };
  if (!ok) {
    if (WIFSIGNALED(status)) {
      spdlog::warn("Background AOF rewrite terminated by signal {}", WTERMSIG(status));
    } else {
      spdlog::warn("Background AOF rewrite terminated with error (exit code {})",
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    return fail();
  }
  spdlog::info("Background AOF rewrite terminated with success");
  long long seq = manifest_.base_seq() + 1;
  std::string base = child_rdb_base_ ? rdb_base_file_name(opts_.filename, seq)
                                     : base_file_name(opts_.filename, seq);
  std::string base_path = join_path(opts_.dirname, base);
  if (::rename(temp.c_str(), base_path.c_str()) != 0) {
    spdlog::warn("Error trying to rename the temporary AOF base file {} into {}: {}", child_temp_,
                 base, std::strerror(errno));
    return fail();
  }
  spdlog::info("Successfully renamed the temporary AOF base file {} into {}", child_temp_, base);
  Manifest next;
  next.base = AofFileInfo{base, seq, AofFileType::kBase};
  if (waiting_first_rewrite_) {
    if (!adopt_temp_incr(next)) {
      ::unlink(base_path.c_str());
      return fail();
    }
  } else if (opts_.enabled && !manifest_.incrs.empty()) {
    next.incrs.push_back(manifest_.incrs.back());
  }
  if (!write_manifest(next)) {
    if (waiting_first_rewrite_) {
      // Back to the temporary name, so the next attempt finds the file where it left it.
      std::string tmp = join_path(opts_.dirname, temp_incr_file_name(opts_.filename));
      if (::rename(writer_.path().c_str(), tmp.c_str()) == 0) writer_.set_path(tmp);
    }
    ::unlink(base_path.c_str());
    return fail();
  }
  waiting_first_rewrite_ = false;
  // The manifest no longer lists the old files: delete them.
  std::vector<std::string> old;
  if (manifest_.base) old.push_back(manifest_.base->name);
  for (const auto& f : manifest_.incrs) {
    if (next.incrs.empty() || f.name != next.incrs.back().name) old.push_back(f.name);
  }
  for (const auto& f : manifest_.history) old.push_back(f.name);
  std::vector<std::string> paths;
  for (const auto& name : old) {
    spdlog::info("Removing the history file {} in the background", name);
    paths.push_back(join_path(opts_.dirname, name));
  }
  remove_in_background(std::move(paths));
  manifest_ = std::move(next);
  base_size_ = file_size(base_path).value_or(0);
  closed_incr_size_ = 0;
  rewrite_base_size_ = current_size();
  last_rewrite_ok_ = true;
  ++rewrites_;
  rewrite_failures_ = 0;
  spdlog::info("Background AOF rewrite finished successfully");
}

void AofService::remove_in_background(std::vector<std::string> paths) {
  if (paths.empty()) return;
  // Rewrites are seconds apart: the previous removal has long finished.
  if (remover_.joinable()) remover_.join();
  remover_ = std::thread([paths = std::move(paths)] {
    for (const auto& p : paths) ::unlink(p.c_str());
  });
}

bool AofService::wait_rewrite() {
  if (child_pid_ <= 0) return last_rewrite_ok_;
  int st = 0;
  while (::waitpid(child_pid_, &st, 0) < 0 && errno == EINTR) {
  }
  rewrite_done(st);
  return last_rewrite_ok_;
}

void AofService::maybe_auto_rewrite() {
  if (!opts_.enabled || opts_.rewrite_percentage <= 0) return;
  uint64_t size = current_size();
  if (size <= static_cast<uint64_t>(opts_.rewrite_min_size)) return;
  if (server_.clock().now_ms() < next_auto_attempt_ms_) return;
  uint64_t base = rewrite_base_size_ ? rewrite_base_size_ : 1;
  long long growth = static_cast<long long>(size * 100 / base) - 100;
  if (growth < opts_.rewrite_percentage) return;
  spdlog::info("Starting automatic rewriting of AOF on {}% growth", growth);
  if (!fork_rewrite()) {
    last_rewrite_ok_ = false;
    ++rewrite_failures_;
    next_auto_attempt_ms_ = server_.clock().now_ms() + kAutoRewriteRetryMs;
  }
}

void AofService::cron(int64_t now_ms) {
  // Writes what no client is waiting for (active-expiry DELs) and retries after a write error.
  if (opts_.enabled) writer_.sync();
  if (child_pid_ > 0) {
    int st = 0;
    if (child_ended(child_pid_, "AOF rewrite", &st)) rewrite_done(st);
    return;
  }
  if (bgsave_running()) return;
  if (rewrite_scheduled_ && now_ms >= next_auto_attempt_ms_) {
    if (!fork_rewrite()) {
      last_rewrite_ok_ = false;
      ++rewrite_failures_;
      next_auto_attempt_ms_ = now_ms + kAutoRewriteRetryMs;
    }
    return;
  }
  maybe_auto_rewrite();
}

// ---- INFO and shutdown ----------------------------------------------------------------------

cmd::PersistenceInfo AofService::info() const {
  cmd::PersistenceInfo i;
  i.loading = loading_;
  i.loading_start_time = loading_start_sec_;
  i.loading_total_bytes = loading_total_;
  i.loading_loaded_bytes = loading_done_;
  i.aof_enabled = opts_.enabled;
  i.aof_rewrite_in_progress = child_pid_ > 0;
  i.aof_rewrite_scheduled = rewrite_scheduled_;
  i.aof_last_rewrite_time_sec = last_rewrite_time_sec_;
  i.aof_current_rewrite_time_sec =
      child_pid_ > 0 ? (server_.clock().now_ms() - rewrite_start_ms_) / 1000 : -1;
  i.aof_last_bgrewrite_ok = last_rewrite_ok_;
  i.aof_rewrites = rewrites_;
  i.aof_rewrites_consecutive_failures = rewrite_failures_;
  i.aof_last_write_ok = writer_.write_ok();
  i.aof_current_size = current_size();
  i.aof_base_size = base_size_;
  i.aof_pending_rewrite = rewrite_scheduled_;
  i.aof_buffer_length = writer_.buffered();
  i.aof_last_cow_size = last_cow_bytes_;
  i.latest_fork_usec = last_fork_us_;
  i.total_forks = total_forks_;
  return i;
}

bool AofService::shutdown_flush() {
  if (child_pid_ > 0 && waiting_first_rewrite_) {
    // Without this rewrite's base, the records of the temporary incr file mean nothing: let it
    // finish rather than exit with an AOF that does not hold the data.
    spdlog::info("Waiting for the initial AOF rewrite to finish before exiting...");
    wait_rewrite();
  }
  if (child_pid_ > 0) {
    spdlog::warn("There is a child rewriting the AOF. Killing it!");
    ::kill(child_pid_, SIGKILL);
    int st;
    while (::waitpid(child_pid_, &st, 0) < 0 && errno == EINTR) {
    }
    ::unlink(join_path(opts_.dirname, child_temp_).c_str());
    child_pid_ = 0;
  }
  if (remover_.joinable()) remover_.join();
  if (!opts_.enabled || !writer_.has_file()) return true;
  spdlog::info("Calling fsync() on the AOF file.");
  int e = writer_.close_file();
  if (e != 0) {
    spdlog::warn("Error flushing the AOF file at shutdown: {} ({} bytes not written)",
                 std::strerror(e), writer_.buffered());
    return false;
  }
  return true;
}

}  // namespace streamd::persist
