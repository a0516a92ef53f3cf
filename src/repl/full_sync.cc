// Full resynchronisation: a forked child sends the snapshot straight to the replicas' sockets
// (the parent's copy-on-write image is the dataset at exactly master_repl_offset), while the
// parent keeps serving and buffers each replica's stream from that offset on. The parent writes
// nothing to those sockets until the child is gone, so the bytes arrive in order:
//   +FULLRESYNC <replid> <offset>\r\n   (not after the old SYNC)
//   $EOF:<40 hex>\r\n <payload> <the same 40 hex>     diskless, to replicas that sent capa eof
//   $<length>\r\n <payload>                            otherwise (written to a temp file first)
//   the command stream from offset + 1
// A replica on a TLS connection cannot be written to by the child (the TLS session's state is
// the parent's): the child writes the same bytes into a pipe of its own, and the parent's
// connection relays the pipe into the TLS stream as fast as the replica takes it (Redis does the
// same for TLS diskless syncs; the disk-based framing goes through the pipe too). The child waits
// on such a pipe without a timeout: the relay closes the connection (and so the pipe) after
// repl-timeout without progress, and a closed pipe is an EPIPE here.
// The payload is an RDB file (persist/rdb/rdb.h) of version rdb-version (10 for a redis-server
// 7.0 replica), with Redis's replication aux fields (repl-stream-db, repl-id, repl-offset).
#include <fcntl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "streamd/commands/core/persistence.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/commands/core/snapshots.h"
#include "streamd/config/config.h"
#include "streamd/persist/file_util.h"
#include "streamd/persist/rdb/rdb.h"
#include "streamd/persist/snapshot_child.h"
#include "streamd/repl/master.h"
#include "streamd/text/random_hex.h"

namespace streamd::repl {

namespace {

// In the child: the replicas' sockets (non-blocking: the open file is the parent's too), each
// dropped on an error or when it takes nothing for `timeout_ms`, and the TLS replicas' relay
// pipes (blocking, dropped on an error only).
class SocketFanout {
 public:
  SocketFanout(std::vector<int> fds, int timeout_ms)
      : fds_(std::move(fds)), timeout_ms_(timeout_ms) {}

  // Writes `bytes` to every descriptor still alive; false once none is.
  bool write(std::string_view bytes) {
    for (int& fd : fds_) {
      if (fd >= 0 && !write_one(fd, bytes)) {
        // The parent sees the connection end and forgets the replica (a pipe fails only when
        // the parent closed its end).
        if (::shutdown(fd, SHUT_RDWR) != 0) ::close(fd);
        fd = -1;
      }
    }
    return std::any_of(fds_.begin(), fds_.end(), [](int fd) { return fd >= 0; });
  }

 private:
  bool write_one(int fd, std::string_view bytes) const {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == ENOTSOCK) n = ::write(fd, bytes.data(), bytes.size());
      if (n > 0) {
        bytes.remove_prefix(static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        pollfd p{fd, POLLOUT, 0};
        if (::poll(&p, 1, timeout_ms_) <= 0) return false;
        continue;
      }
      return false;
    }
    return true;
  }

  std::vector<int> fds_;
  int timeout_ms_;
};

// The child's whole job; returns its exit code.
int send_snapshot(cmd::Server& server, SocketFanout& out, const std::vector<std::string>& preambles,
                  const std::vector<int>& fds, bool diskless, int64_t now_ms,
                  const persist::rdb::SaveOptions& rdb) {
  // Each replica's own first line (+FULLRESYNC, or nothing after SYNC).
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (preambles[i].empty()) continue;
    SocketFanout one({fds[i]}, 60000);
    one.write(preambles[i]);
  }
  auto& ks = server.keyspace();
  if (diskless) {
    std::string mark = text::random_hex(40);
    if (!out.write("$EOF:" + mark + "\r\n")) return 1;
    bool ok = persist::rdb::save(ks, now_ms, rdb, [&](std::string_view b) { return out.write(b); });
    return ok && out.write(mark) ? 0 : 1;
  }
  std::string path = "temp-" + std::to_string(::getpid()) + ".streamd-sync";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 2;
  ::unlink(path.c_str());  // the descriptor keeps it until the child exits
  bool ok = persist::rdb::save(ks, now_ms, rdb, [fd](std::string_view b) {
    int err = 0;
    return persist::write_fully(fd, b, &err) == b.size();
  });
  off_t len = ok ? ::lseek(fd, 0, SEEK_CUR) : -1;
  if (len < 0 || ::lseek(fd, 0, SEEK_SET) != 0) return 3;
  if (!out.write("$" + std::to_string(len) + "\r\n")) return 1;
  std::string buf(64 * 1024, '\0');
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return 3;
    if (n == 0) break;
    if (!out.write(std::string_view(buf.data(), static_cast<std::size_t>(n)))) return 1;
  }
  return 0;
}

}  // namespace

void ReplicationMaster::maybe_start_full_sync(int64_t now_ms) {
  if (child_) return;  // replicas arriving now wait for the next snapshot
  int64_t oldest = -1;
  std::size_t waiting = 0;
  bool all_eof = true;
  for (const ReplicaLink& r : replicas_) {
    if (r.state != ReplicaState::kWaitBgsaveStart) continue;
    ++waiting;
    all_eof = all_eof && r.capa_eof;
    if (oldest < 0 || r.ack_time_ms < oldest) oldest = r.ack_time_ms;
  }
  if (waiting == 0) return;
  // One fork at a time, as in Redis: a BGSAVE or an AOF rewrite running makes the replicas
  // wait for its end (a BGSAVE of the user's is no snapshot of this replica's offset).
  const cmd::Snapshots* snap = server_.snapshots();
  const cmd::Persistence* aof = server_.persistence();
  if ((snap && snap->bgsave_in_progress()) || (aof && aof->info().aof_rewrite_in_progress)) {
    if (!waiting_for_child_) {
      spdlog::info("Another child process is active: waiting for it to end before the SYNC");
      waiting_for_child_ = true;
    }
    return;
  }
  waiting_for_child_ = false;
  const config::Config& cfg = server_.config();
  // Diskless: wait repl-diskless-sync-delay seconds for more replicas to share one snapshot
  // (or until repl-diskless-sync-max-replicas are waiting), as Redis does.
  if (cfg.ref<bool>("repl-diskless-sync") && all_eof) {
    int64_t delay_ms = cfg.ref<std::int64_t>("repl-diskless-sync-delay") * 1000;
    int64_t max = cfg.ref<std::int64_t>("repl-diskless-sync-max-replicas");
    bool enough = max > 0 && static_cast<int64_t>(waiting) >= max;
    if (!enough && now_ms - oldest < delay_ms) return;
  }
  if (!start_full_sync(now_ms)) {
    // No snapshot can be made: the replicas cannot be served, as Redis closes them.
    for (ReplicaLink& r : replicas_) {
      if (r.state == ReplicaState::kWaitBgsaveStart && r.session->kill) r.session->kill();
    }
  }
}

bool ReplicationMaster::start_full_sync(int64_t now_ms) {
  const config::Config& cfg = server_.config();
  bool diskless = cfg.ref<bool>("repl-diskless-sync");
  std::vector<int> fds;
  std::vector<std::string> preambles;
  std::vector<uint64_t> ids;
  // TLS replicas: (session id, the pipe's read end), and the write ends (also in `fds`).
  std::vector<std::pair<uint64_t, int>> relays;
  std::vector<int> write_ends;
  auto close_write_ends = [&] {
    for (int fd : write_ends) ::close(fd);
  };
  for (ReplicaLink& r : replicas_) {
    if (r.state != ReplicaState::kWaitBgsaveStart || r.session->fd < 0) continue;
    int fd = r.session->fd;
    r.relayed = tls_links_.is_tls && tls_links_.relay && tls_links_.is_tls(*r.session);
    r.relay_done = r.child_done = false;
    if (r.relayed) {
      int p[2];
      if (::pipe2(p, O_CLOEXEC) != 0) {
        spdlog::warn("Can't create the pipe of a TLS replica's full sync: {}",
                     std::strerror(errno));
        if (r.session->kill) r.session->kill();
        continue;
      }
      relays.emplace_back(r.session->id, p[0]);
      write_ends.push_back(p[1]);
      fd = p[1];
    }
    diskless = diskless && r.capa_eof;
    fds.push_back(fd);
    ids.push_back(r.session->id);
    preambles.push_back(r.sent_sync ? std::string()
                                    : "+FULLRESYNC " + id_.replid + " " +
                                          std::to_string(id_.offset) + "\r\n");
  }
  if (fds.empty()) return false;  // (no pipe was made either)
  int timeout_ms = static_cast<int>(cfg.ref<std::int64_t>("repl-timeout") * 1000);
  persist::rdb::SaveOptions rdb;
  rdb.version = static_cast<int>(cfg.ref<std::int64_t>("rdb-version"));
  rdb.compression = cfg.ref<bool>("rdbcompression");
  rdb.checksum = cfg.ref<bool>("rdbchecksum");
  // Redis's replication aux fields. The stream names its database first after a full sync
  // (reset_selected_db below), so the stream db the file records is 0.
  rdb.aux = {{"repl-stream-db", "0"},
             {"repl-id", id_.replid},
             {"repl-offset", std::to_string(id_.offset)}};
  persist::ForkedChild child = persist::fork_snapshot_child(fds);
  if (child.pid < 0) {
    spdlog::warn("Can't start the full synchronization of replicas: fork: {}",
                 std::strerror(errno));
    close_write_ends();
    for (auto& [id, rd] : relays) ::close(rd);
    return false;
  }
  if (child.pid == 0) {
    std::vector<int> mine;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      mine.push_back(persist::kFirstKeptFd + static_cast<int>(i));
    }
    SocketFanout out(mine, timeout_ms);
    int code = send_snapshot(server_, out, preambles, mine, diskless, now_ms, rdb);
    persist::report_cow();
    ::_exit(code);
  }
  // The child holds the pipes' write ends now: the relays see their end when it exits.
  close_write_ends();
  for (auto& [id, rd] : relays) {
    const cmd::Session* s = server_.session(id);
    if (!s) {
      ::close(rd);
      continue;
    }
    tls_links_.relay(*s, rd, timeout_ms, [this, id = id](bool ok) { relay_finished(id, ok); });
  }
  child_ = SyncChild{child.pid, child.report_fd, std::move(ids)};
  // From here on the stream of these replicas is what follows the snapshot; it starts by naming
  // its database (the replica's is whatever the payload's last SELECT left).
  for (ReplicaLink& r : replicas_) {
    if (std::find(child_->sessions.begin(), child_->sessions.end(), r.session->id) !=
        child_->sessions.end()) {
      r.state = ReplicaState::kWaitBgsaveEnd;
      r.stream_on_ack = diskless;
      // The snapshot holds the stream up to here (a backlog exists once a replica asked for a
      // sync); what follows it waits in the backlog.
      r.held_from = backlog_ ? backlog_->next_offset() : -1;
      r.session->held_output = 0;
    }
  }
  readers_moved();
  reset_selected_db();
  server_.stats().latency.add_if_needed("fork", child.fork_us / 1000, now_ms / 1000,
                                        cfg.latency_monitor_threshold());
  spdlog::info("Starting BGSAVE for SYNC with target: {} (pid {}, fork took {} us)",
               diskless ? "replicas sockets" : "disk", child.pid, child.fork_us);
  return true;
}

void ReplicationMaster::check_full_sync() {
  if (!child_) return;
  int st = 0;
  pid_t r = ::waitpid(child_->pid, &st, WNOHANG);
  if (r == 0) return;
  if (r < 0 && errno == EINTR) return;
  bool ok = r == child_->pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
  if (!ok) {
    spdlog::warn("Background sync for replicas failed ({})",
                 r < 0 ? std::strerror(errno)
                 : WIFSIGNALED(st)
                     ? "signal " + std::to_string(WTERMSIG(st))
                     : "exit code " + std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : -1));
  }
  full_sync_done(ok);
}

void ReplicationMaster::full_sync_done(bool ok) {
  SyncChild c = std::move(*child_);
  child_.reset();
  uint64_t cow = persist::read_cow_report(c.report_fd);
  if (ok)
    spdlog::info("Background sync for replicas terminated with success (CoW {} MB)", cow >> 20);
  int64_t now = server_.clock().now_ms();
  for (ReplicaLink& r : replicas_) {
    if (std::find(c.sessions.begin(), c.sessions.end(), r.session->id) == c.sessions.end()) {
      continue;
    }
    if (!ok) {
      if (r.session->kill) r.session->kill();
      continue;
    }
    // A TLS replica's relay may still hold the snapshot's last bytes.
    r.child_done = true;
    if (!r.relayed || r.relay_done) go_online(r, now);
  }
}

void ReplicationMaster::relay_finished(uint64_t session_id, bool ok) {
  for (ReplicaLink& r : replicas_) {
    if (r.session->id != session_id || !r.relayed) continue;
    if (!ok) {
      if (r.session->kill) r.session->kill();
      return;
    }
    r.relay_done = true;
    if (r.child_done && r.state == ReplicaState::kWaitBgsaveEnd) {
      go_online(r, server_.clock().now_ms());
    }
    return;
  }
}

void ReplicationMaster::go_online(ReplicaLink& r, int64_t now_ms) {
  r.state = ReplicaState::kOnline;
  r.ack_time_ms = now_ms;
  if (r.stream_on_ack) {
    spdlog::info(
        "Streamed RDB transfer with replica {} succeeded (socket). Waiting for REPLCONF ACK from "
        "replica to enable streaming",
        r.session->addr);
    return;
  }
  spdlog::info("Synchronization with replica {} succeeded", r.session->addr);
  start_stream(r);
}

void ReplicationMaster::start_stream(ReplicaLink& r) {
  // The stream since the fork follows the snapshot (the connection writes its own output, the
  // snapshot's end, before any shared bytes).
  const int64_t from = r.held_from;
  r.held_from = -1;
  r.session->held_output = 0;
  if (!backlog_) return;
  // readers_moved kept every byte from `from` on. Only a backlog freed meanwhile (this server
  // turned replica: free_backlog cleared held_from, and the link is being closed) lacks them; a
  // stream with a gap must not start.
  if (from < 0 || !backlog_->retains(from)) {
    spdlog::debug("The stream after the snapshot for replica {} is gone; closing its link",
                  r.session->addr);
    if (r.session->kill) r.session->kill();
    return;
  }
  start_cursor(r, from);
}

}  // namespace streamd::repl
