#include "streamd/persist/snapshot_child.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/engine/clock.h"
#include "streamd/persist/file_util.h"

namespace streamd::persist {

namespace {

// Closes every descriptor from `first` on.
void close_from(int first) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0u, 0u) == 0) return;
#endif
  long max = ::sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 1 << 20) max = 1 << 20;
  for (long fd = first; fd < max; ++fd) ::close(static_cast<int>(fd));
}

// The child's private dirty memory, from /proc/self/smaps_rollup: the pages copy-on-write has
// separated from the parent's. 0 if unknown.
uint64_t private_dirty_bytes() {
  int err = 0;
  auto text = read_file("/proc/self/smaps_rollup", &err);
  if (!text) return 0;
  uint64_t total = 0;
  std::string_view t = *text;
  constexpr std::string_view kKey = "Private_Dirty:";
  for (std::size_t pos = t.find(kKey); pos != std::string_view::npos; pos = t.find(kKey, pos + 1)) {
    total += std::strtoull(t.data() + pos + kKey.size(), nullptr, 10) * 1024;
  }
  return total;
}

// Moves the kept descriptors to 4, 5, ... (through copies above every target first, so moving one
// never overwrites another still to move) and the report pipe to 3.
void arrange_descriptors(int report, std::span<const int> keep) {
  int top = kFirstKeptFd + static_cast<int>(keep.size());
  std::vector<int> copies;
  for (int fd : keep) copies.push_back(::fcntl(fd, F_DUPFD, top));
  int report_copy = report >= 0 ? ::fcntl(report, F_DUPFD, top) : -1;
  if (report_copy >= 0) ::dup2(report_copy, 3);
  for (std::size_t i = 0; i < copies.size(); ++i) {
    if (copies[i] >= 0) ::dup2(copies[i], kFirstKeptFd + static_cast<int>(i));
  }
  close_from(report_copy >= 0 || !keep.empty() ? top : 3);
  if (report_copy < 0) ::close(3);
}

}  // namespace

ForkedChild fork_snapshot_child(std::span<const int> keep) {
  ForkedChild c;
  pid_t parent = ::getpid();
  int pfd[2] = {-1, -1};
  bool have_pipe = ::pipe2(pfd, O_CLOEXEC | O_NONBLOCK) == 0;
  int64_t t0 = engine::monotonic_us();
  c.pid = ::fork();
  if (c.pid < 0) {
    int e = errno;
    if (have_pipe) {
      ::close(pfd[0]);
      ::close(pfd[1]);
    }
    errno = e;
    return c;
  }
  if (c.pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    arrange_descriptors(have_pipe ? pfd[1] : -1, keep);
    return c;
  }
  c.fork_us = engine::monotonic_us() - t0;
  if (have_pipe) {
    ::close(pfd[1]);
    c.report_fd = pfd[0];
  }
  return c;
}

void report_cow() {
  uint64_t cow = private_dirty_bytes();
  [[maybe_unused]] ssize_t n = ::write(3, &cow, sizeof cow);
}

uint64_t read_cow_report(int fd) {
  if (fd < 0) return 0;
  uint64_t cow = 0;
  bool ok = ::read(fd, &cow, sizeof cow) == static_cast<ssize_t>(sizeof cow);
  ::close(fd);
  return ok ? cow : 0;
}

bool child_ended(pid_t pid, const char* what, int* status) {
  pid_t r = ::waitpid(pid, status, WNOHANG);
  if (r == pid) return true;
  if (r < 0 && errno != EINTR) {
    spdlog::warn("Lost track of the {} child {}: {}", what, pid, std::strerror(errno));
    *status = 1 << 8;
    return true;
  }
  return false;
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int st;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace streamd::persist
