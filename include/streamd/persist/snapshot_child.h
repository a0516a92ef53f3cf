// Forking a child that writes a snapshot of the dataset from its copy-on-write image while the
// parent keeps serving: the AOF rewrite (aof_service.cc) and a replication full sync
// (repl/full_sync.cc) both fork through here.
//
// The child (fork_snapshot_child returned pid 0) dies with its parent (PR_SET_PDEATHSIG), has
// default SIGTERM/SIGINT, and holds only these descriptors: 0-2, the report pipe as 3, then the
// descriptors the parent asked to keep as 4, 5, ... in that order (never the parent's listening
// sockets or files: a restarted server could not bind its port). It must leave with _exit, after
// report_cow(), without running any destructor of the parent's world.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>

namespace streamd::persist {

struct ForkedChild {
  pid_t pid = -1;       // > 0 in the parent, 0 in the child, < 0 when fork failed (errno set)
  int report_fd = -1;   // the parent's read end of the CoW report (-1 if there is none)
  int64_t fork_us = 0;  // how long fork() took (INFO latest_fork_usec, the "fork" latency event)
};

// The first descriptor of `keep` in the child.
constexpr int kFirstKeptFd = 4;

ForkedChild fork_snapshot_child(std::span<const int> keep);

// In the child: reports its private dirty memory (what copy-on-write cost) on descriptor 3.
void report_cow();

// In the parent, once the child has exited: the bytes it reported (0 if none); closes `fd`.
uint64_t read_cow_report(int fd);

// In the parent, from cron: whether child `pid` has ended, without blocking; its wait status in
// `*status`. A child that can no longer be waited for counts as ended with exit code 1 (logged,
// naming it by `what`).
bool child_ended(pid_t pid, const char* what, int* status);

// Kills child `pid` (SIGKILL) and reaps it.
void kill_and_reap(pid_t pid);

}  // namespace streamd::persist
