#include "streamd/commands/core/dispatch.h"

#include <chrono>

#include "streamd/commands/acl/acl.h"
#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/propagation_rewrite.h"
#include "streamd/commands/core/redaction.h"
#include "streamd/commands/pubsub/pubsub.h"
#include "streamd/commands/server/client_info.h"
#include "streamd/commands/server/monitor.h"
#include "streamd/engine/clock.h"
#include "streamd/resp/reply_writer.h"
#include "streamd/resp/request_bytes.h"

namespace streamd::cmd {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  }
  return out;
}

// Commands that run immediately even inside MULTI (everything else is queued).
bool runs_inside_multi(const CommandSpec& top) {
  static constexpr std::string_view kImmediate[] = {"exec",  "discard", "multi",
                                                    "watch", "quit",    "reset"};
  for (auto n : kImmediate) {
    if (top.name == n) return true;
  }
  return false;
}

// (P|S)SUBSCRIBE and (P|S)UNSUBSCRIBE: their replies are push frames (confirmations), which
// CLIENT REPLY OFF|SKIP does not suppress (Redis delivers pushes regardless).
bool is_subscription_command(const CommandSpec& top) {
  static constexpr std::string_view kNames[] = {"subscribe",   "psubscribe",   "ssubscribe",
                                                "unsubscribe", "punsubscribe", "sunsubscribe"};
  for (auto n : kNames) {
    if (top.name == n) return true;
  }
  return false;
}

// What a RESP2 client in pub/sub mode may still run (see resp2_subscribed()).
bool allowed_while_subscribed(const CommandSpec& top) {
  return is_subscription_command(top) || top.name == "ping" || top.name == "quit" ||
         top.name == "reset";
}

// Messages for the client whose command runs wait until its reply is written (pubsub.h). The
// outermost scope for a session appends them; nested runs (EXEC's commands) only defer.
class DeferPushes {
 public:
  DeferPushes(Session& s, std::string& out) : s_(s), out_(out), outer_(!s.defer_pushes) {
    s_.defer_pushes = true;
  }
  ~DeferPushes() {
    if (!outer_) return;
    s_.defer_pushes = false;
    if (!s_.deferred_pushes.empty()) {
      out_.append(s_.deferred_pushes);
      s_.deferred_pushes.clear();
    }
  }
  DeferPushes(const DeferPushes&) = delete;
  DeferPushes& operator=(const DeferPushes&) = delete;

 private:
  Session& s_;
  std::string& out_;
  bool outer_;
};

bool arity_ok(const CommandSpec& spec, std::size_t argc) {
  long long n = static_cast<long long>(argc);
  return spec.arity > 0 ? n == spec.arity : n >= -spec.arity;
}

std::string fmt_more_args(std::size_t n) {
  return "... (" + std::to_string(n) + " more arguments)";
}

std::string fmt_more_bytes(std::size_t n) {
  return "... (" + std::to_string(n) + " more bytes)";
}

}  // namespace

Dispatcher::RunFlags Dispatcher::run_flags(const Session& s, const CommandSpec& spec) const {
  RunFlags f{spec.flags, spec.flags};
  if (spec.name != "exec" || !s.in_multi) return f;
  for (const auto& q : s.queued) {
    // The row the queued line runs: a subcommand's flags, not its container's (XGROUP CREATE
    // writes, the XGROUP row does not say so).
    const CommandSpec* c = table_.lookup(q).spec;
    if (!c) continue;
    f.any |= c->flags;
    f.all &= c->flags;
  }
  return f;
}

std::string_view Dispatcher::replica_error(const Session& s, const CommandSpec& spec) const {
  // The master link (and only it) writes on a replica, stale or not.
  const Replication* r = server_.replication_role();
  if (!r || s.master || !r->is_replica()) return {};
  RunFlags f = run_flags(s, spec);
  if ((f.any & kWrite) && r->refuses_writes()) return errors::kReadOnlyReplica;
  if (!(f.all & kStale) && r->refuses_stale()) return errors::kMasterDown;
  return {};
}

bool Dispatcher::out_of_memory(const Session& s, const CommandSpec& spec) {
  // Loading evicts nothing and refuses nothing (Redis does not evict while loading): the file
  // holds what was acknowledged; the first command after it enforces the limit.
  if (s.aof_loader) return false;
  if (server_.memory_limit().enforce()) return false;
  // The master link's commands always apply: what the master accepted is not the replica's to
  // refuse (with replica-ignore-maxmemory, the default, enforce() never fails on a replica).
  if (s.master) return false;
  // Commands flagged denyoom, and EXEC when it would run one. Queueing a command that is not
  // denyoom is allowed: Redis 7.0 refused anything queued while over the limit, 7.4 reverted
  // that (redis/redis#12961).
  return (run_flags(s, spec).any & kDenyOom) != 0;
}

Dispatcher::Dispatcher(Server& server) : server_(server), table_(CommandTable::instance()) {}

std::string Dispatcher::persistence_error(const CommandSpec& spec) const {
  // While the last background save failed (stop-writes-on-bgsave-error) or the AOF cannot be
  // written, writes are refused, and PING too (as Redis does, so that monitoring notices); reads
  // keep working. The RDB's refusal comes first, as in Redis.
  if (!((spec.flags & kWrite) || spec.full_name == "ping")) return {};
  Snapshots* rdb = server_.snapshots();
  if (rdb && rdb->refuses_writes()) return rdb->write_error();
  Persistence* p = server_.persistence();
  return p && p->refuses_writes() ? p->write_error() : std::string();
}

void Dispatcher::prefetch(const Session& s, std::span<const QueuedCommand> queued) const {
  const engine::Database& db = server_.keyspace().db(s.db);
  if (!db.worth_prefetching()) return;
  constexpr std::size_t kMax = engine::Database::kPrefetchBatch;
  std::string_view keys[kMax];
  std::size_t n = 0;
  // A pipeline mostly repeats one command: look a name up again only when it changes.
  std::string_view name;
  const CommandSpec* spec = nullptr;
  for (const QueuedCommand& h : queued) {
    if (n == kMax) break;
    if (h.argc < 2) continue;
    if (h.name != name) {
      name = h.name;
      spec = table_.find(name);
    }
    // The same key again (a pipeline to one key) needs no second prefetch.
    if (spec && spec->first_key == 1 && (n == 0 || keys[n - 1] != h.first_arg)) {
      keys[n++] = h.first_arg;
    }
  }
  if (n > 0) db.prefetch(std::span<const std::string_view>(keys, n));
}

DispatchResult Dispatcher::execute(Session& s, std::span<const std::string_view> argv,
                                   std::string& client_out, bool argv_is_request) {
  if (argv.empty()) return DispatchResult::kDone;
  // A replica link's output is the command stream: its own commands (REPLCONF ACK, a PING) are
  // never answered, as Redis answers no replica once it is attached. Their replies go to a
  // buffer that is dropped, not cut off the link's: the stream appended to it meanwhile stays
  // (the first ACK after a diskless snapshot starts the stream). PSYNC's own reply (+CONTINUE)
  // is sent: the client becomes a replica during it.
  std::string dropped;
  std::string& out = s.replica ? dropped : client_out;
  // Declared first: its destructor runs after the reply (and any CLIENT REPLY cut) is final.
  DeferPushes defer(s, out);

  // CLIENT REPLY OFF|SKIP: the reply is produced as usual, then cut off the buffer.
  ReplyMode mode_before = s.reply_mode;
  std::size_t reply_start = out.size();
  resp::ReplyWriter w(out, s.proto);
  Stats& st = server_.stats();

  auto reject = [&](const CommandSpec* spec, std::string_view msg) {
    if (s.in_multi) s.multi_error = true;
    if (spec && spec->name == "exec") {
      // A rejected EXEC discards the transaction (in or out of MULTI, as Redis does).
      s.reset_transaction(server_);
      w.error(errors::exec_abort(msg));
    } else {
      w.error(msg);
    }
    ++st.total_error_replies;
    ++st.errors[std::string(w.last_error_code())];
    if (spec) ++st.commands.of(spec->full_name).rejected_calls;
  };

  DispatchResult result = DispatchResult::kDone;
  bool pushes_only = false;  // the reply is confirmations, kept even with CLIENT REPLY OFF
  const auto [top, spec] = table_.lookup(argv);
  // The command as looked up, before any check refuses it (Redis's c->lastcmd): CLIENT LIST's
  // cmd= and ACL LOG's client-info name a refused command, and NULL after an unknown one.
  s.last_command = spec ? std::string_view(spec->full_name) : std::string_view();
  if (!top) {
    reject(nullptr, errors::unknown_command(argv[0], argv.subspan(1)));
  } else {
    if (!spec) {
      // The name as the client typed it (a renamed CONFIG says "Try GUESSME HELP."), as Redis.
      reject(nullptr, errors::unknown_subcommand(argv[1], upper(argv[0])));
    } else if (!arity_ok(*spec, argv.size())) {
      reject(spec, errors::wrong_arity(spec->full_name));
    } else if (server_.auth_required(s) && !(spec->flags & kNoAuth)) {
      reject(spec, errors::kNoAuth);
    } else if (s.in_multi && (spec->flags & kNoMulti)) {
      // Right after the AUTH check, as Redis orders it; the transaction then aborts at EXEC.
      reject(spec, errors::kNotAllowedInMulti);
    } else if (std::string e = acl_checked(s) ? acl_refusal(s, *spec, argv, false) : std::string();
               !e.empty()) {
      reject(spec, e);
    } else if (out_of_memory(s, *spec)) {
      reject(spec, errors::kOom);
    } else if (std::string e = persistence_error(*spec); !e.empty()) {
      reject(spec, e);
    } else if ((spec->flags & kWrite) && server_.replication_role() &&
               !server_.replication_role()->enough_good_replicas()) {
      reject(spec, errors::kNoReplicas);
    } else if (std::string_view e = replica_error(s, *spec); !e.empty()) {
      reject(spec, e);
    } else if (resp2_subscribed(s) && !allowed_while_subscribed(*top)) {
      reject(spec, errors::pubsub_context(spec->full_name));
    } else if (s.in_multi && !runs_inside_multi(*top)) {
      // A transaction that can only abort (EXECABORT) or answer null (a WATCHed key changed)
      // keeps nothing more, as Redis's queueMultiCommand: the client may go on queueing.
      if (!s.multi_error && !s.dirty_cas) {
        std::vector<std::string> copy(argv.begin(), argv.end());
        for (const std::string& a : copy) s.queued_bytes += a.size() + sizeof(void*);
        s.queued.push_back(std::move(copy));
      }
      w.simple("QUEUED");
    } else {
      pushes_only = is_subscription_command(*top);
      result = run(s, *spec, argv, out, -1, argv_is_request);
    }
  }

  // CLIENT CACHING applies to the next command, or to the whole of the next transaction (any
  // CLIENT subcommand in between keeps it), as Redis's resetClient.
  if (s.tracking.caching && !s.in_multi && !(top && top->name == "client")) {
    s.tracking.caching = false;
  }

  if (result == DispatchResult::kDone) {
    bool discard =
        !pushes_only && (mode_before == ReplyMode::kSkipNext || s.reply_mode == ReplyMode::kSkip ||
                         s.reply_mode == ReplyMode::kOff);
    if (discard) out.resize(reply_start);
    if (s.reply_mode == ReplyMode::kSkip) {
      s.reply_mode = ReplyMode::kSkipNext;
    } else if (mode_before == ReplyMode::kSkipNext && s.reply_mode == ReplyMode::kSkipNext) {
      s.reply_mode = ReplyMode::kOn;
    }
  }
  return result;
}

DispatchResult Dispatcher::run(Session& s, const CommandSpec& spec,
                               std::span<const std::string_view> argv, std::string& out,
                               int64_t rerun_deadline, bool argv_is_request) {
  resp::ReplyWriter w(out, s.proto);
  // The command's time (ctx.now_ms and every expiry check in the keyspace) is taken once, as it
  // starts, and stands still until it ends; a command nested in EXEC keeps EXEC's time.
  engine::CommandClock& clock = server_.command_clock();
  int64_t t0 = clock.enter();
  Context ctx(server_, s, w, *this, argv, spec, clock.now_ms());
  ctx.rerun_deadline_ms = rerun_deadline;
  ctx.argv_is_request = argv_is_request;

  uint64_t changes_before = server_.changes();
  int db_before = s.db;
  server_.begin_unit();
  {
    // Leaves on every way out of the handler (a handler may throw std::bad_alloc).
    struct Leave {
      engine::CommandClock& c;
      Server& server;
      Session* running_before;
      ~Leave() {
        c.leave();
        server.set_running(running_before);
      }
    } leave{clock, server_, server_.running()};
    server_.set_running(&s);
    spec.handler(ctx);
  }
  // Client-side caching: a read-only command's keys are remembered for the client (a blocking
  // read's too, as Redis's call()); pub/sub commands' channels are not keys to cache.
  if (s.tracking.on && !s.tracking.bcast && (spec.flags & kReadonly) && !(spec.flags & kPubsub)) {
    server_.tracking().remember(s, argv, CommandTable::key_positions(spec, argv));
  }
  int64_t dur = engine::monotonic_us() - t0;
  // A write that changed something propagates its own argv unless it gave explicit records (a
  // command that parks the client has not done its work yet).
  if (!ctx.explicit_propagation && !ctx.block_requested && (spec.flags & kWrite) &&
      (ctx.dirty > 0 || server_.changes() != changes_before) && server_.propagating()) {
    if (!propagate_rewritten(server_, db_before, spec, argv)) {
      // As the client sent it: its own bytes when they are the canonical encoding.
      std::string_view raw = argv_is_request ? resp::raw_args(argv, 0) : std::string_view();
      if (!raw.empty()) {
        server_.propagate(db_before, argv.size(), raw, std::span<const std::string_view>(), {});
      } else {
        server_.propagate(db_before, argv);
      }
    }
  }
  // INFO's change counter: what the handler counted; a write that changed keys without counting
  // (e.g. through the keyspace) counts one. A command that blocks counts what it did before
  // blocking (XREADGROUP creates its consumer).
  uint64_t dirty = ctx.dirty;
  if (dirty == 0 && !ctx.dirty_counted && (spec.flags & kWrite) &&
      server_.changes() != changes_before) {
    dirty = 1;
  }
  server_.add_dirty(dirty);
  server_.end_unit(&s, !(spec.flags & kTouchesArbitraryKeys));
  // MONITOR shows a command once, when it first runs (a wake-up re-run is not shown again).
  if (rerun_deadline < 0) feed_monitors(server_, s, spec, argv);

  if (ctx.block_requested) {
    std::vector<std::string> rerun = std::move(ctx.block_argv);
    if (rerun.empty()) rerun.assign(argv.begin(), argv.end());
    server_.blocking().block(s, std::move(ctx.block_keys), ctx.block_deadline_ms, std::move(rerun),
                             ctx.block_wake_ms);
    return DispatchResult::kBlocked;
  }

  Stats& st = server_.stats();
  ++st.total_commands;
  ++s.commands;
  s.last_command = spec.full_name;
  CommandStats& cs = st.commands.of(spec.full_name);
  ++cs.calls;
  cs.usec += static_cast<uint64_t>(dur);
  st.eventloop_cmd_us += static_cast<uint64_t>(dur);
  // Redis measures in microseconds and records nanoseconds: the histogram then holds what
  // Redis's would for the same durations.
  if (server_.config().latency_tracking()) {
    if (!cs.histogram) cs.histogram = std::make_unique<LatencyHistogram>();
    cs.histogram->record(dur * 1000);
  }
  if (int64_t threshold = server_.config().latency_monitor_threshold(); threshold > 0) {
    st.latency.add_if_needed((spec.flags & kFast) ? "fast-command" : "command", dur / 1000,
                             server_.clock().now_ms() / 1000, threshold);
  }
  if (w.errors_written() > 0) {
    ++cs.failed_calls;
    st.total_error_replies += w.errors_written();
    ++st.errors[std::string(w.last_error_code())];
  }

  // As newest Redis (7.0 still numbered entries it dropped at once): slowlog-max-len 0 turns
  // the log off, so no entry takes an id.
  long long slower_than = server_.config().slowlog_log_slower_than();
  if (slower_than >= 0 && dur >= slower_than && !(spec.flags & kSkipSlowlog) &&
      server_.config().slowlog_max_len() > 0) {
    SlowlogEntry e;
    e.id = st.slowlog_next_id++;
    e.time_s = server_.clock().now_ms() / 1000;
    e.duration_us = dur;
    // Redis keeps at most 32 arguments and 128 bytes per argument, and hides secrets.
    std::vector<bool> secret = redacted_arguments(spec, argv, server_.config());
    for (std::size_t i = 0; i < argv.size() && i < 32; ++i) {
      if (i == 31 && argv.size() > 32) {
        e.argv.push_back(fmt_more_args(argv.size() - 31));
        break;
      }
      if (secret[i]) {
        e.argv.emplace_back(kRedacted);
        continue;
      }
      std::string a(argv[i].substr(0, 128));
      if (argv[i].size() > 128) a += fmt_more_bytes(argv[i].size() - 128);
      e.argv.push_back(std::move(a));
    }
    e.addr = s.addr;
    e.name = s.name;
    st.slowlog.push_front(std::move(e));
    auto max_len = static_cast<std::size_t>(server_.config().slowlog_max_len());
    while (st.slowlog.size() > max_len) st.slowlog.pop_back();
  }
  return DispatchResult::kDone;
}

DispatchResult Dispatcher::rerun_blocked(Session& s, const std::vector<std::string>& argv,
                                         int64_t deadline_ms) {
  std::vector<std::string_view> views(argv.begin(), argv.end());
  const CommandSpec* spec = table_.lookup(views).spec;
  if (!spec || !s.out) return DispatchResult::kDone;
  DeferPushes defer(s, *s.out);
  // Woken, the command is processed again, ACL check included (Redis 7.2+): a user whose rules
  // changed while it waited gets NOPERM.
  if (std::string e = acl_checked(s) ? acl_refusal(s, *spec, views, false) : std::string();
      !e.empty()) {
    reply_refusal(s, *spec, *s.out, e);
    return DispatchResult::kDone;
  }
  return run(s, *spec, views, *s.out, deadline_ms);
}

void Dispatcher::reply_refusal(Session& s, const CommandSpec& spec, std::string& out,
                               std::string_view error) {
  resp::ReplyWriter w(out, s.proto);
  w.error(error);
  Stats& st = server_.stats();
  ++st.total_error_replies;
  ++st.errors[std::string(w.last_error_code())];
  ++st.commands.of(spec.full_name).rejected_calls;
}

void Dispatcher::execute_queued(Session& s, std::span<const std::string_view> argv,
                                std::string& out) {
  const CommandSpec* spec = table_.lookup(argv).spec;
  if (!spec) return;  // validated when queued
  // The user's rules may have changed since the command was queued: checked again, as Redis.
  if (std::string e = acl_checked(s) ? acl_refusal(s, *spec, argv, true) : std::string();
      !e.empty()) {
    reply_refusal(s, *spec, out, e);
    return;
  }
  run(s, *spec, argv, out, -1);
}

std::string Dispatcher::acl_refusal(Session& s, const CommandSpec& spec,
                                    std::span<const std::string_view> argv, bool in_exec) {
  const acl::User& u = server_.user_of(s);
  acl::Check c = acl::check_command(u, spec, argv);
  if (c.denied == acl::Denied::kNone) return {};
  Stats& st = server_.stats();
  acl::LogReason reason = acl::LogReason::kCommand;
  std::string object = spec.full_name;
  if (c.denied == acl::Denied::kKey) {
    reason = acl::LogReason::kKey;
    ++st.acl_denied_key;
  } else if (c.denied == acl::Denied::kChannel) {
    reason = acl::LogReason::kChannel;
    ++st.acl_denied_channel;
  } else {
    ++st.acl_denied_cmd;
  }
  if (c.denied != acl::Denied::kCommand) object = argv[static_cast<std::size_t>(c.arg)];
  server_.acl().log(
      reason, s.in_multi || in_exec ? acl::LogContext::kMulti : acl::LogContext::kToplevel,
      std::move(object), u.name, client_info_line(server_, s, nullptr), server_.clock().now_ms());
  if (in_exec) return errors::acl_changed_in_exec(c.denied);
  return errors::noperm(c.denied, u.name, spec.full_name);
}

bool Dispatcher::postpones_slow(Session& s, std::span<const std::string_view> argv) {
  if (argv.empty()) return false;
  const auto [top, spec] = table_.lookup(argv);
  if (!top || !spec || !arity_ok(*spec, argv.size())) return false;
  if (server_.auth_required(s) && !(spec->flags & kNoAuth)) return false;
  ClientPause& pause = server_.client_pause();
  if (!pause.covers(s, run_flags(s, *spec).any)) return false;
  pause.postpone(s);
  return true;
}

void Dispatcher::after_batch() {
  server_.check_pause_end();
  // What BCAST tracking clients' prefixes collected, once per batch (Redis: before sleeping).
  if (server_.tracking().prefixes() > 0) server_.tracking().broadcast();
  auto& b = server_.blocking();
  if (b.has_ready()) b.serve_ready(*this);
  if (b.blocked_clients() > 0) b.expire(server_.clock().now_ms(), *this);
}

}  // namespace streamd::cmd
