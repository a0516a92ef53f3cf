// ROLE, REPLCONF, PSYNC, SYNC, WAIT, WAITAOF, and INFO replication's data. Replies as redis-server
// 7.0.15's (tests/differential/scripts/replication.txt; the protocol itself in
// tests/integration/test_replication_master.py with a raw-socket replica).
#include "streamd/commands/repl/commands.h"

#include <string>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/server.h"
#include "streamd/text/random_hex.h"

namespace streamd::cmd {

ReplicationInfo replication_info(Server& server) {
  if (const Replication* r = server.replication()) return r->info();
  ReplicationInfo i;
  static const std::string replid = text::random_hex(40);
  i.replid = replid;
  return i;
}

namespace {

// ROLE, master form: ["master", offset, [[ip, "port", "acked offset"] for each online replica]]
// (Redis lists only replicas that are online); replica form: ["slave", master host, master port,
// link state, offset applied (-1 while not connected)].
void role(Context& ctx) {
  ReplicationInfo info = replication_info(ctx.server);
  if (info.role == "slave") {
    ctx.reply.array(5);
    ctx.reply.bulk("slave");
    ctx.reply.bulk(info.master_host);
    ctx.reply.integer(info.master_port);
    ctx.reply.bulk(info.link_state);
    ctx.reply.integer(info.link_offset);
    return;
  }
  std::size_t online = 0;
  for (const auto& r : info.replicas) online += r.online ? 1 : 0;
  ctx.reply.array(3);
  ctx.reply.bulk("master");
  ctx.reply.integer(info.offset);
  ctx.reply.array(online);
  for (const auto& r : info.replicas) {
    if (!r.online) continue;
    ctx.reply.array(3);
    ctx.reply.bulk(r.ip);
    ctx.reply.bulk(std::to_string(r.port));
    ctx.reply.bulk(std::to_string(r.ack_offset));
  }
}

// REPLCONF <option> <value> ...: what a replica tells its master before and after SYNC/PSYNC.
// ACK (from an attached replica) and GETACK are never answered, as in Redis.
void replconf(Context& ctx) {
  if (ctx.argc() % 2 == 0) return ctx.reply.error(errors::kSyntax);
  Replication* repl = ctx.server.replication();
  for (std::size_t j = 1; j < ctx.argc(); j += 2) {
    std::string_view opt = ctx.arg(j);
    std::string_view value = ctx.arg(j + 1);
    if (iequals(opt, "listening-port")) {
      auto port = parse_int(value);
      if (!port) return ctx.reply.error(errors::kNotInteger);
      if (repl) repl->replconf_listening_port(ctx.session, *port);
    } else if (iequals(opt, "ip-address")) {
      // Redis keeps at most NET_HOST_STR_LEN - 1 (255) bytes.
      if (value.size() >= 256) return ctx.reply.error(errors::replconf_ip_too_long(value.size()));
      if (repl) repl->replconf_ip_address(ctx.session, value);
    } else if (iequals(opt, "capa")) {
      if (repl) repl->replconf_capa(ctx.session, value);
    } else if (iequals(opt, "ack")) {
      // Only an attached replica's ACK counts; a malformed one is ignored. Never answered.
      auto offset = parse_int(value);
      if (!ctx.session.replica || !offset || !repl) return;
      repl->replconf_ack(ctx.session, *offset);
      // Redis 7.2+: ACK <offset> FACK <aof offset>.
      if (j + 3 < ctx.argc() && iequals(ctx.arg(j + 2), "fack")) {
        if (auto aof = parse_int(ctx.arg(j + 3))) repl->replconf_fack(ctx.session, *aof);
      }
      return;
    } else if (iequals(opt, "getack")) {
      // A master's own replicas never ask it; the replica side answers its master's GETACK.
      return;
    } else {
      return ctx.reply.error(errors::replconf_unknown_option(opt));
    }
  }
  ctx.reply.ok();
}

// PSYNC <replid> <offset> and SYNC: the client becomes a replica. A partial resync answers
// +CONTINUE and the backlog follows; a full one answers nothing now ("+FULLRESYNC" and the
// snapshot come when the snapshot starts, repl/full_sync.cc).
void sync_common(Context& ctx, bool psync) {
  Replication* repl = ctx.server.replication();
  if (!repl) return ctx.reply.error(errors::kSyncPendingOutput);
  long long offset = -1;
  if (psync) {
    auto o = parse_int(ctx.arg(2));
    if (!o) return ctx.reply.error(errors::kNotInteger);
    offset = *o;
  }
  SyncStart r = repl->sync(ctx.session, psync, psync ? ctx.arg(1) : std::string_view(), offset);
  switch (r.kind) {
    case SyncStart::Kind::kRefused:
      if (!r.error.empty()) ctx.reply.error(r.error);
      return;
    case SyncStart::Kind::kContinue:
      ctx.reply.simple(r.replid.empty() ? std::string("CONTINUE") : "CONTINUE " + r.replid);
      repl->sync_replied(ctx.session);
      return;
    case SyncStart::Kind::kFull:
      return;
  }
}

// PSYNC <replid> <offset> [FAILOVER]: FAILOVER comes from a master handing its role to this
// replica (its FAILOVER command): the replica becomes a master, then answers as any master.
void psync(Context& ctx) {
  if (ctx.argc() > 3 && iequals(ctx.arg(3), "failover")) {
    Replication* repl = ctx.server.replication();
    std::string error =
        repl ? repl->psync_failover(ctx.arg(1)) : std::string(errors::kPsyncFailoverToMaster);
    if (!error.empty()) return ctx.reply.error(error);
  }
  sync_common(ctx, true);
}
void sync(Context& ctx) {
  sync_common(ctx, false);
}

// WAIT and WAITAOF: the deadline of a wait of `timeout_ms` (0 = none), kept across re-runs.
int64_t ack_deadline(const Context& ctx, long long timeout_ms) {
  return ctx.rerun_deadline_ms >= 0 ? ctx.rerun_deadline_ms
         : timeout_ms > 0           ? ctx.now_ms + timeout_ms
                                    : 0;
}

// Whether a wait that is not satisfied yet may block: not inside MULTI, not past its deadline.
bool may_wait(const Context& ctx, int64_t deadline) {
  return ctx.may_block() && !(deadline > 0 && ctx.now_ms >= deadline);
}

// Blocks on the acks' pseudo-key: the command re-runs on every REPLCONF ACK and at the deadline
// (where it answers its counts: the registry's own timeout reply is a null).
void block_for_acks(Context& ctx, Replication& repl, int64_t deadline) {
  std::vector<std::string> rerun(ctx.argv.begin(), ctx.argv.end());
  ctx.block({{kWaitAckDb, std::string(kWaitAckKey)}}, deadline, std::move(rerun));
  ctx.block_wake_ms = deadline;
  repl.request_acks();
}

// WAIT numreplicas timeout: the number of replicas whose acknowledged offset covers this
// client's last write. Blocks until numreplicas have it or the timeout passes; inside MULTI it
// answers at once, as Redis.
void wait_cmd(Context& ctx) {
  auto replicas = parse_int(ctx.arg(1));
  if (!replicas) return ctx.reply.error(errors::kNotInteger);
  auto timeout = parse_int(ctx.arg(2));
  if (!timeout) return ctx.reply.error(errors::kTimeoutNotInteger);
  if (*timeout < 0) return ctx.reply.error(errors::kTimeoutNegative);
  Replication* repl = ctx.server.replication();
  int64_t acked = repl ? repl->replicas_acked(ctx.session.repl_offset) : 0;
  int64_t deadline = ack_deadline(ctx, *timeout);
  if (acked >= *replicas || !repl || !may_wait(ctx, deadline)) return ctx.reply.integer(acked);
  block_for_acks(ctx, *repl, deadline);
}

// WAITAOF numlocal numreplicas timeout (Redis 7.2+): [1 if this client's writes are fsynced to
// the local AOF, the number of replicas whose AOF is fsynced past them (REPLCONF ACK ... FACK)].
// The local part fsyncs now if needed (Redis waits for its background fsync); blocks like WAIT
// until both counts are reached or the timeout passes.
void waitaof(Context& ctx) {
  auto numlocal = parse_int(ctx.arg(1));
  auto numreplicas = parse_int(ctx.arg(2));
  if (!numlocal || !numreplicas) return ctx.reply.error(errors::kNotInteger);
  auto timeout = parse_int(ctx.arg(3));
  if (!timeout) return ctx.reply.error(errors::kTimeoutNotInteger);
  if (*timeout < 0) return ctx.reply.error(errors::kTimeoutNegative);
  Replication* repl = ctx.server.replication();
  if (repl && repl->is_replica()) return ctx.reply.error(errors::kWaitaofReplica);
  Persistence* p = ctx.server.persistence();
  bool enabled = p && p->aof_enabled();
  if (*numlocal && !enabled) return ctx.reply.error(errors::kWaitaofAppendonlyOff);
  // Everything this client wrote before WAITAOF: fsynced now if it was not yet.
  bool local = enabled && p->fsync_through(ctx.session.propagation_ticket);
  int64_t replicas = repl ? repl->replicas_aof_acked(ctx.session.repl_offset) : 0;
  int64_t deadline = ack_deadline(ctx, *timeout);
  bool done = (local || *numlocal <= 0) && replicas >= *numreplicas;
  if (!done && repl && may_wait(ctx, deadline)) return block_for_acks(ctx, *repl, deadline);
  ctx.reply.array(2);
  ctx.reply.integer(local ? 1 : 0);
  ctx.reply.integer(replicas);
}

// REPLICAOF host port | NO ONE (and SLAVEOF): follow a master, or become one keeping the data.
void replicaof(Context& ctx) {
  Replication* repl = ctx.server.replication();
  if (repl && repl->failing_over()) return ctx.reply.error(errors::kReplicaofWhileFailingOver);
  if (iequals(ctx.arg(1), "no") && iequals(ctx.arg(2), "one")) {
    if (repl) repl->replicaof({}, 0);
    return ctx.reply.ok();
  }
  // A replica link cannot: it involves dropping every replica, itself included.
  if (ctx.session.replica) return ctx.reply.error(errors::kReplicaofFromReplica);
  auto port = parse_int(ctx.arg(2));
  if (!port || *port < 0 || *port > 65535) return ctx.reply.error(errors::kInvalidMasterPort);
  if (!repl) return ctx.reply.ok();
  ctx.reply.simple(repl->replicaof(ctx.arg(1), static_cast<int>(*port)));
}

// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms]: the master pauses writes, waits for a
// replica (the one named, or the first) to acknowledge everything, then becomes its replica,
// telling it with PSYNC ... FAILOVER to become the master (repl/failover.cc). Options are parsed
// as Redis parses them: each at most once, ABORT only alone.
void failover(Context& ctx) {
  Replication* repl = ctx.server.replication();
  if (ctx.argc() == 2 && iequals(ctx.arg(1), "abort")) {
    std::string error = repl ? repl->failover_abort() : std::string(errors::kNoFailoverInProgress);
    if (!error.empty()) return ctx.reply.error(error);
    return ctx.reply.ok();
  }
  FailoverRequest req;
  for (std::size_t j = 1; j < ctx.argc(); ++j) {
    if (iequals(ctx.arg(j), "timeout") && j + 1 < ctx.argc() && req.timeout_ms == 0) {
      auto ms = parse_int(ctx.arg(j + 1));
      if (!ms) return ctx.reply.error(errors::kNotInteger);
      if (*ms <= 0) return ctx.reply.error(errors::kFailoverTimeoutNotPositive);
      req.timeout_ms = *ms;
      ++j;
    } else if (iequals(ctx.arg(j), "to") && j + 2 < ctx.argc() && !req.has_target) {
      auto port = parse_int(ctx.arg(j + 2));
      if (!port) return ctx.reply.error(errors::kNotInteger);
      req.has_target = true;
      req.host = std::string(ctx.arg(j + 1));
      req.port = *port;
      j += 2;
    } else if (iequals(ctx.arg(j), "force") && !req.force) {
      req.force = true;
    } else {
      return ctx.reply.error(errors::kSyntax);
    }
  }
  std::string error = repl ? repl->failover(req) : std::string(errors::kFailoverNoReplicas);
  if (!error.empty()) return ctx.reply.error(error);
  ctx.reply.ok();
}

}  // namespace

void register_replication_commands(CommandTable& t) {
  t.add({"role",
         1,
         kNoScript | kLoading | kStale | kFast,
         "admin fast dangerous",
         0,
         0,
         0,
         role,
         {},
         nullptr,
         "server"});
  t.add({"replconf",
         -1,
         kAdmin | kNoScript | kLoading | kStale | kAllowBusy,
         "admin slow dangerous",
         0,
         0,
         0,
         replconf,
         {},
         nullptr,
         "server"});
  t.add({"psync",
         -3,
         kAdmin | kNoScript | kNoAsyncLoading | kNoMulti,
         "admin slow dangerous",
         0,
         0,
         0,
         psync,
         {},
         nullptr,
         "server"});
  t.add({"sync",
         1,
         kAdmin | kNoScript | kNoAsyncLoading | kNoMulti,
         "admin slow dangerous",
         0,
         0,
         0,
         sync,
         {},
         nullptr,
         "server"});
  for (const char* name : {"replicaof", "slaveof"}) {
    t.add({name,
           3,
           kAdmin | kNoScript | kStale | kNoAsyncLoading,
           "admin slow dangerous",
           0,
           0,
           0,
           replicaof,
           {},
           nullptr,
           "server"});
  }
  t.add({"failover",
         -1,
         kAdmin | kNoScript | kStale,
         "admin slow dangerous",
         0,
         0,
         0,
         failover,
         {},
         nullptr,
         "server"});
  t.add({"wait", 3, kNoScript, "slow connection", 0, 0, 0, wait_cmd, {}, nullptr, "generic"});
  t.add({"waitaof", 4, kNoScript, "slow connection", 0, 0, 0, waitaof, {}, nullptr, "generic"});
}

}  // namespace streamd::cmd
