// FAILOVER: a master hands its role to one of its replicas without losing a write, as Redis 6.2+
// does it (replication.c, failoverCommand and updateFailoverStatus):
//   1. FAILOVER pauses writes (ClientPause::Purpose::kFailover: CLIENT UNPAUSE does not end it),
//      so the replication offset stops moving; state waiting-for-sync.
//   2. Each cron, the target (named by TO, else the first replica found caught up) is checked:
//      once its acknowledged offset equals this master's, this server becomes its replica and
//      its PSYNC carries FAILOVER; state failover-in-progress. At TIMEOUT the failover is aborted,
//      or with FORCE goes ahead with a target that still lags.
//   3. The target, asked PSYNC <our replid> <offset> FAILOVER, becomes a master (its history
//      continues ours as replid2) and answers +CONTINUE; the failover is over: writes resume
//      here and meet READONLY. Any other answer aborts it: this server is a master again.
// FAILOVER ABORT ends it at any step. While it runs, REPLICAOF and SYNC/PSYNC are refused and
// no PING is fed to the replicas (each would move the offset the target has to reach).
#include <spdlog/spdlog.h>

#include <limits>

#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/repl/master.h"
#include "streamd/repl/replica.h"
#include "streamd/text/ascii.h"

namespace streamd::repl {

const char* failover_state_name(FailoverState s) {
  switch (s) {
    case FailoverState::kNone:
      return "no-failover";
    case FailoverState::kWaitForSync:
      return "waiting-for-sync";
    case FailoverState::kInProgress:
      return "failover-in-progress";
  }
  return "unknown";
}

std::string ReplicationMaster::failover(const cmd::FailoverRequest& request) {
  namespace errors = cmd::errors;
  // Redis's order of checks.
  if (failing_over()) return std::string(errors::kFailoverInProgress);
  if (replica_role_) return std::string(errors::kFailoverOnReplica);
  if (replicas_.empty()) return std::string(errors::kFailoverNoReplicas);
  if (request.force && (request.timeout_ms == 0 || !request.has_target)) {
    return std::string(errors::kFailoverForceArgs);
  }
  Failover f;
  if (request.has_target) {
    ReplicaLink* r = find_replica(request.host, request.port);
    if (!r) return std::string(errors::kFailoverTargetUnknown);
    if (r->state != ReplicaState::kOnline) return std::string(errors::kFailoverTargetOffline);
    f.host = request.host;
    f.port = static_cast<int>(request.port);
    spdlog::info("FAILOVER requested to {}:{}.", f.host, f.port);
  } else {
    spdlog::info("FAILOVER requested to any replica.");
  }
  int64_t now = server_.clock().now_ms();
  f.end_ms = request.timeout_ms > 0 ? now + request.timeout_ms : 0;
  f.force = request.force;
  f.state = FailoverState::kWaitForSync;
  failover_ = std::move(f);
  server_.pause_clients(cmd::ClientPause::Purpose::kFailover, cmd::ClientPause::Mode::kWrite,
                        std::numeric_limits<int64_t>::max());
  return {};
}

std::string ReplicationMaster::failover_abort() {
  if (!failing_over()) return std::string(cmd::errors::kNoFailoverInProgress);
  abort_failover("Failover manually aborted");
  return {};
}

void ReplicationMaster::update_failover(int64_t now_ms) {
  if (failover_.state != FailoverState::kWaitForSync) return;
  if (failover_.end_ms != 0 && failover_.end_ms <= now_ms) {
    if (!failover_.force) return abort_failover("Replica never caught up before timeout");
    spdlog::info("FAILOVER to {}:{} time out exceeded, failing over.", failover_.host,
                 failover_.port);
    return start_failover_psync();
  }
  ReplicaLink* target = nullptr;
  if (!failover_.host.empty()) {
    target = find_replica(failover_.host, failover_.port);
  } else {
    for (ReplicaLink& r : replicas_) {
      if (r.ack_offset != id_.offset) continue;
      target = &r;
      failover_.host = replica_ip(r);
      failover_.port = r.listening_port;
      break;
    }
  }
  if (!target || target->ack_offset != id_.offset) return;
  spdlog::info("Failover target {}:{} is synced, failing over.", failover_.host, failover_.port);
  start_failover_psync();
}

void ReplicationMaster::start_failover_psync() {
  failover_.state = FailoverState::kInProgress;
  // set_master drops nothing of the data: this server's history is what the target continues.
  if (replica_side_) replica_side_->set_master(failover_.host, failover_.port);
}

void ReplicationMaster::failover_psync_answered(bool accepted) {
  if (failover_.state != FailoverState::kInProgress) return;
  if (accepted) return clear_failover();
  abort_failover("Failover target rejected psync request");
}

void ReplicationMaster::abort_failover(std::string_view why) {
  if (!failing_over()) return;
  if (!failover_.host.empty()) {
    spdlog::info("FAILOVER to {}:{} aborted: {}", failover_.host, failover_.port, why);
  } else {
    spdlog::info("FAILOVER to any replica aborted: {}", why);
  }
  bool in_progress = failover_.state == FailoverState::kInProgress;
  // REPLICAOF is refused while failing over: the state goes first.
  clear_failover();
  if (in_progress && replica_side_) replica_side_->unset_master();
}

void ReplicationMaster::clear_failover() {
  failover_ = Failover{};
  server_.unpause_clients(cmd::ClientPause::Purpose::kFailover);
}

std::string ReplicationMaster::psync_failover(std::string_view replid) {
  spdlog::info("Failover request received for replid {}.", replid);
  if (!replica_role_ || !replica_side_) return std::string(cmd::errors::kPsyncFailoverToMaster);
  if (!text::iequals(replid, id_.replid)) return std::string(cmd::errors::kPsyncFailoverReplid);
  replica_side_->unset_master();
  spdlog::info("MASTER MODE enabled (failover request from the master)");
  return {};
}

std::string ReplicationMaster::replica_ip(const ReplicaLink& r) const {
  if (!r.announced_ip.empty()) return r.announced_ip;
  std::string_view a = r.session->addr;
  auto colon = a.rfind(':');
  if (colon != std::string_view::npos) a = a.substr(0, colon);
  if (a.size() >= 2 && a.front() == '[' && a.back() == ']') a = a.substr(1, a.size() - 2);
  return std::string(a);
}

ReplicaLink* ReplicationMaster::find_replica(std::string_view host, int64_t port) {
  for (ReplicaLink& r : replicas_) {
    if (r.listening_port == port && text::iequals(replica_ip(r), host)) return &r;
  }
  return nullptr;
}

}  // namespace streamd::repl
