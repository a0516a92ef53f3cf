#include "streamd/persist/aof_writer.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "streamd/engine/clock.h"
#include "streamd/persist/file_util.h"
#include "streamd/resp/command_encoder.h"

namespace streamd::persist {

namespace {

// Like Redis, repeated write errors are logged at most this often.
constexpr int64_t kErrorLogPeriodMs = 30000;

int64_t mono_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

AofWriter::AofWriter() = default;

AofWriter::~AofWriter() {
  stop_thread();
  if (fd_ >= 0) ::close(fd_);
}

void AofWriter::set_policy(FsyncPolicy p) {
  policy_ = p;
  if (p == FsyncPolicy::kEverysec) {
    start_thread();
  } else {
    stop_thread();
  }
}

void AofWriter::open_file(int fd, std::string path, uint64_t size) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  path_ = std::move(path);
  file_size_ = size;
  selected_db_ = -1;
  if (policy_ == FsyncPolicy::kEverysec) start_thread();
}

int AofWriter::close_file() {
  if (fd_ < 0) return 0;
  write_buffer();
  int err = write_errno_;
  if (err == 0) {
    err = sync_file(fd_);
    if (err == 0) raise_synced(written_seq_.load());
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    ::close(fd_);
    fd_ = -1;
  }
  selected_db_ = -1;
  return err;
}

uint64_t AofWriter::append(const cmd::PropagationBatch& unit) {
  cmd::encode_unit(unit, &selected_db_, buf_, cmd::PropagationTarget::kAof);
  return ++appended_seq_;
}

void AofWriter::append_raw(std::string_view bytes) {
  buf_.append(bytes);
  ++appended_seq_;
}

void AofWriter::write_buffer() {
  if (buf_.empty() || fd_ < 0) return;
  int err = 0;
  std::size_t n = write_fully(fd_, buf_, &err);
  if (n == buf_.size()) {
    file_size_ += n;
    buf_.clear();
    written_seq_.store(appended_seq_);
    if (write_errno_ != 0) {
      spdlog::warn("AOF write error looks solved, streamd can write again.");
      write_errno_ = 0;
    }
    return;
  }
  // Nothing half-written may stay in the file: cut it back to the last complete unit. If even
  // that fails, keep what was written and drop it from the buffer, so that the next write
  // completes the record instead of repeating its start.
  if (n > 0) {
    if (::ftruncate(fd_, static_cast<off_t>(file_size_)) == 0) {
      n = 0;
    } else {
      spdlog::warn(
          "Could not remove the short write from the AOF file ({}): the next successful write "
          "completes it",
          std::strerror(errno));
      file_size_ += n;
      buf_.erase(0, n);
    }
  }
  bool first = write_errno_ == 0;
  write_errno_ = err;
  int64_t now = mono_ms();
  if (first || now - last_error_log_ms_ >= kErrorLogPeriodMs) {
    last_error_log_ms_ = now;
    spdlog::warn("Error writing to the AOF file {}: {} ({} bytes waiting)", path_,
                 std::strerror(err), buf_.size());
  }
}

void AofWriter::raise_synced(uint64_t to) {
  uint64_t cur = synced_seq_.load();
  while (cur < to && !synced_seq_.compare_exchange_weak(cur, to)) {
  }
}

AofWriter::SyncTimes AofWriter::sync() {
  SyncTimes t;
  if (!buf_.empty() && fd_ >= 0) {
    int64_t t0 = engine::monotonic_us();
    write_buffer();
    t.write_us = engine::monotonic_us() - t0;
  }
  if (policy_ != FsyncPolicy::kAlways || write_errno_ != 0 || fd_ < 0) return t;
  uint64_t w = written_seq_.load();
  if (synced_seq_.load() >= w) return t;
  int64_t t0 = engine::monotonic_us();
  if (int e = sync_file(fd_); e != 0) {
    // The kernel may have dropped the pages it failed to write: retrying fsync could report
    // success for data that is not on disk. Exit without acknowledging anything (as Redis does).
    spdlog::critical(
        "Can't persist AOF for fsync error when the AOF fsync policy is 'always': {}. Exiting...",
        std::strerror(e));
    std::exit(1);
  }
  t.fsync_us = engine::monotonic_us() - t0;
  raise_synced(w);
  return t;
}

bool AofWriter::fsync_through(uint64_t ticket) {
  if (ticket <= synced_seq_.load()) return true;
  write_buffer();
  uint64_t w = written_seq_.load();
  if (w < ticket || fd_ < 0) return false;
  if (int e = sync_file(fd_); e != 0) {
    fsync_errno_.store(e);
    return false;
  }
  fsync_errno_.store(0);
  raise_synced(w);
  return true;
}

bool AofWriter::must_hold(uint64_t ticket) const {
  bool healthy = write_errno_ == 0;
  if (policy_ == FsyncPolicy::kAlways) {
    return healthy ? synced_seq_.load() < appended_seq_ : ticket > synced_seq_.load();
  }
  return healthy && written_seq_.load() < appended_seq_;
}

void AofWriter::start_thread() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { fsync_loop(); });
}

void AofWriter::stop_thread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void AofWriter::fsync_loop() {
  // Runs beside the event loop: it must not log (spdlog from two threads around fork() is
  // not worth the risk) nor allocate; it reports through the atomics.
  std::unique_lock<std::mutex> l(mu_);
  while (!stop_) {
    cv_.wait_for(l, std::chrono::seconds(1), [this] { return stop_; });
    if (stop_) break;
    uint64_t target = written_seq_.load();
    if (target <= synced_seq_.load() || fd_ < 0) continue;
    int fd = ::dup(fd_);
    if (fd < 0) continue;
    l.unlock();
    int e = sync_file(fd);
    ::close(fd);
    l.lock();
    if (e == 0) {
      fsync_errno_.store(0);
      raise_synced(target);
    } else {
      fsync_errno_.store(e);
    }
  }
}

}  // namespace streamd::persist
