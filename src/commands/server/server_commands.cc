// Server commands: INFO (info_command.cc), CONFIG (config_command.cc), TIME, DEBUG, FUNCTION
// FLUSH, SLOWLOG, MONITOR and SHUTDOWN (WAIT is in commands/repl/), with redis-server 7.0.15's
// replies.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"
#include "streamd/commands/core/value_codec.h"
#include "streamd/commands/keyspace/keyspace_support.h"
#include "streamd/commands/server/config_command.h"
#include "streamd/commands/server/dataset_digest.h"
#include "streamd/commands/server/info.h"
#include "streamd/commands/server/monitor.h"

namespace streamd::cmd {

namespace {

void time_cmd(Context& ctx) {
  int64_t us = ctx.server.clock().now_us();
  ctx.reply.array(2);
  ctx.reply.bulk_integer(us / 1000000);
  ctx.reply.bulk_integer(us % 1000000);
}

// ---- DEBUG --------------------------------------------------------------------------------------

void debug_help(Context& ctx) {
  // The subcommands streamd implements, worded as Redis 7.0.15's DEBUG HELP words them.
  reply_help(ctx.reply, "DEBUG",
             {
                 "DIGEST",
                 "    Output a hex signature representing the current DB content.",
                 "DIGEST-VALUE <key> [<key> ...]",
                 "    Output a hex signature of the values of all the specified keys.",
                 "OBJECT <key>",
                 "    Show low level info about `key` and associated value.",
                 "LOG <message>",
                 "    Write <message> to the server log.",
                 "LOADAOF",
                 "    Flush the AOF buffers on disk and reload the AOF in memory.",
                 "POPULATE <count> [<prefix>] [<size>]",
                 "    Create <count> string keys named key:<num>. If <prefix> is specified then",
                 "    it is used instead of the 'key' prefix. These are not propagated to",
                 "    replicas. Cluster slots are not respected so keys not belonging to the",
                 "    current node can be created in cluster mode.",
                 "PROTOCOL <type>",
                 "    Reply with a test value of the specified type. <type> can be: string,",
                 "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
                 "    true, false.",
                 "SET-ACTIVE-EXPIRE <0|1>",
                 "    Setting it to 0 disables expiring keys in background when they are not",
                 "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
                 "    default.",
                 "SLEEP <seconds>",
                 "    Stop the server for <seconds>. Decimals allowed.",
             });
}

void debug_protocol(Context& ctx, std::string_view type) {
  auto& w = ctx.reply;
  if (iequals(type, "string")) {
    w.bulk("Hello World");
  } else if (iequals(type, "integer")) {
    w.integer(12345);
  } else if (iequals(type, "double")) {
    w.dbl(3.141);
  } else if (iequals(type, "bignum")) {
    w.big_number("1234567999999999999999999999999999999");
  } else if (iequals(type, "null")) {
    w.null();
  } else if (iequals(type, "array") || iequals(type, "set")) {
    if (iequals(type, "array")) {
      w.array(3);
    } else {
      w.set(3);
    }
    for (int j = 0; j < 3; ++j) w.integer(j);
  } else if (iequals(type, "map")) {
    w.map(3);
    for (int j = 0; j < 3; ++j) {
      w.integer(j);
      w.boolean(j == 1);
    }
  } else if (iequals(type, "verbatim")) {
    w.verbatim("This is a verbatim\nstring");
  } else if (iequals(type, "true") || iequals(type, "false")) {
    w.boolean(iequals(type, "true"));
  } else if (iequals(type, "attrib")) {
    if (w.protocol() == resp::Protocol::kResp3) {
      w.attribute(1);
      w.bulk("key-popularity");
      w.array(2);
      w.bulk("key:123");
      w.integer(90);
    }
    // An attribute is not a reply: a real one follows it.
    w.bulk("Some real reply following the attribute");
  } else if (iequals(type, "push")) {
    if (w.protocol() != resp::Protocol::kResp3) return w.error(errors::kResp2NotSupported);
    w.push(2);
    w.bulk("server-cpu-usage");
    w.integer(42);
    // A push is out of band: a client waiting for the reply still gets one.
    w.bulk("Some real reply following the push reply");
  } else {
    w.error(errors::kDebugProtocolType);
  }
}

// DEBUG POPULATE count [prefix] [size]: string keys prefix:0 .. prefix:count-1 ("key" by
// default) holding "value:N", or `size` bytes that start with it and are zeros after, as Redis's
// (a sizing and test aid). A key that exists is left alone. Like Redis's: nothing propagated, the
// keys' names cut at 127 bytes (its snprintf buffer), each new key Redis's "new" event and a
// modification for WATCH and tracking.
void debug_populate(Context& ctx) {
  // Redis's getPositiveLongFromObjectOrReply: one message for a non-number and a negative one.
  auto positive = [&](std::string_view a) -> std::optional<long long> {
    auto v = parse_int(a);
    if (!v || *v < 0) {
      ctx.reply.error(errors::kNotPositive);
      return std::nullopt;
    }
    return v;
  };
  auto count = positive(ctx.arg(2));
  if (!count) return;
  long long size = 0;
  if (ctx.argc() == 5) {
    auto s = positive(ctx.arg(4));
    if (!s) return;
    size = *s;
  }
  constexpr std::size_t kRedisBuffer = 127;  // Redis formats names into char buf[128]
  const std::string_view prefix = ctx.argc() >= 4 ? ctx.arg(3) : std::string_view("key");
  engine::Database& db = ctx.db();
  for (long long i = 0; i < *count; ++i) {
    std::string key = fmt::format("{}:{}", prefix, i);
    if (key.size() > kRedisBuffer) key.resize(kRedisBuffer);
    std::string value = fmt::format("value:{}", i);
    if (size > 0) value.resize(static_cast<std::size_t>(size), '\0');
    const auto encoding = engine::Value::plain_encoding_for(value.size());
    // add leaves an existing key alone (an expired one expires first, as a write lookup).
    if (db.add(key, engine::Value(std::move(value), encoding))) {
      ctx.server.signal_modified(ctx.session.db, key);
    }
  }
  ctx.reply.ok();
}

// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: SAVE, empty the keyspace, load the file back, as
// Redis does. MERGE is accepted but streamd loads only into an empty keyspace, so NOFLUSH with
// data fails the load.
void debug_reload(Context& ctx) {
  bool flush = true, save = true;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    std::string_view opt = ctx.arg(i);
    if (iequals(opt, "noflush")) {
      flush = false;
    } else if (iequals(opt, "nosave")) {
      save = false;
    } else if (!iequals(opt, "merge")) {
      return ctx.reply.error(errors::kDebugReloadOptions);
    }
  }
  Snapshots* snap = ctx.server.snapshots();
  if (!snap) return ctx.reply.error(errors::kSaveFailed);
  switch (snap->reload(save, flush)) {
    case Snapshots::Reload::kOk:
      return ctx.reply.ok();
    case Snapshots::Reload::kSaveFailed:
      return ctx.reply.error(errors::kSaveFailed);
    case Snapshots::Reload::kLoadFailed:
      return ctx.reply.error(errors::kDebugReloadLoadFailed);
  }
}

// DEBUG OBJECT key, Redis's line: the stored value (expired or not), its refcount and encoding
// (as OBJECT shows them), its RDB length (rdbSavedObjectLen: the DUMP payload without its type
// byte, RDB version and CRC), and Redis's 24-bit LRU clock of its last access with the idle time.
void debug_object(Context& ctx) {
  const engine::Entry* e = ctx.db().peek_stored(ctx.arg(2));
  if (!e) return ctx.reply.error(errors::kNoSuchKey);
  std::size_t serialized = 0;
  if (const ValueCodec* codec = ctx.server.value_codec()) {
    const config::Config& cfg = ctx.server.config();
    std::string payload =
        codec->dump(e->value, static_cast<int>(cfg.ref<std::int64_t>("rdb-version")),
                    cfg.ref<bool>("rdbcompression"));
    constexpr std::size_t kTypeAndFooter = 1 + 2 + 8;
    serialized = payload.size() > kTypeAndFooter ? payload.size() - kTypeAndFooter : 0;
  }
  constexpr int64_t kLruClockMax = (int64_t{1} << 24) - 1;  // LRU_CLOCK_MAX, in seconds
  int64_t idle_s = std::max<int64_t>(0, ctx.now_ms / 1000 - e->access_ms / 1000);
  ctx.reply.simple(fmt::format(
      "Value at:{} refcount:{} encoding:{} serializedlength:{} lru:{} lru_seconds_idle:{}",
      fmt::ptr(&e->value), object_refcount(e->value), encoding_name(e->value), serialized,
      (e->access_ms / 1000) & kLruClockMax, idle_s));
}

void debug(Context& ctx) {
  if (!debug_allowed(ctx)) return ctx.reply.error(errors::kDebugNotAllowed);
  std::string_view sub = ctx.arg(1);
  if (iequals(sub, "help") && ctx.argc() == 2) return debug_help(ctx);
  if (iequals(sub, "sleep") && ctx.argc() == 3) {
    // As Redis: strtod, so garbage sleeps 0 seconds; negative values do not sleep.
    std::string text(ctx.arg(2));
    double seconds = std::strtod(text.c_str(), nullptr);
    if (seconds > 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6)));
    }
    return ctx.reply.ok();
  }
  if (iequals(sub, "log") && ctx.argc() == 3) {
    spdlog::warn("DEBUG LOG: {}", ctx.arg(2));
    return ctx.reply.ok();
  }
  if (iequals(sub, "protocol") && ctx.argc() == 3) return debug_protocol(ctx, ctx.arg(2));
  if (iequals(sub, "reload")) return debug_reload(ctx);
  if (iequals(sub, "populate") && ctx.argc() >= 3 && ctx.argc() <= 5) return debug_populate(ctx);
  if (iequals(sub, "set-active-expire") && ctx.argc() == 3) {
    // As Redis: atoi, so anything not a number turns it off.
    ctx.server.set_active_expire(std::atoi(std::string(ctx.arg(2)).c_str()) != 0);
    return ctx.reply.ok();
  }
  if (iequals(sub, "object") && ctx.argc() == 3) return debug_object(ctx);
  if (iequals(sub, "digest") && ctx.argc() == 2) {
    return ctx.reply.simple(dataset_digest(ctx.server.keyspace()));
  }
  if (iequals(sub, "digest-value")) {
    // What is stored, expired or not, in the client's database; a missing key digests as zeros.
    const engine::Database& db = ctx.db();
    ctx.reply.array(ctx.argc() - 2);
    for (std::size_t i = 2; i < ctx.argc(); ++i) {
      const engine::Entry* e = db.peek_stored(ctx.arg(i));
      ctx.reply.simple(e ? value_digest(*e) : std::string(40, '0'));
    }
    return;
  }
  if (iequals(sub, "loadaof") && ctx.argc() == 2) {
    Persistence* p = ctx.server.persistence();
    if (!p || !p->debug_load()) return ctx.reply.error(errors::kDebugLoadAofFailed);
    return ctx.reply.ok();
  }
  ctx.reply.error(errors::unknown_subcommand_or_arity(sub, "DEBUG"));
}

// ---- FUNCTION -----------------------------------------------------------------------------------

// streamd has no functions, so there is never anything to flush.
void function_flush(Context& ctx) {
  if (ctx.argc() > 3)
    return ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "FUNCTION"));
  if (ctx.argc() == 3 && !iequals(ctx.arg(2), "async") && !iequals(ctx.arg(2), "sync")) {
    return ctx.reply.error(errors::kFunctionFlushMode);
  }
  ctx.reply.ok();
}

// FUNCTION HELP: the one subcommand streamd has (it has no functions to load, list or call),
// worded as Redis 7.0.15's FUNCTION HELP words it.
void function_help(Context& ctx) {
  reply_help(
      ctx.reply, "FUNCTION",
      {
          "FLUSH [ASYNC|SYNC]",
          "    Delete all the libraries.",
          "    When called without the optional mode argument, the behavior is determined by the",
          "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
          "    * ASYNC: Asynchronously flush the libraries.",
          "    * SYNC: Synchronously flush the libraries.",
      });
}

// ---- SLOWLOG ------------------------------------------------------------------------------------

void slowlog_get(Context& ctx) {
  long long count = 10;
  if (ctx.argc() > 3) {
    return ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "SLOWLOG"));
  }
  if (ctx.argc() == 3) {
    auto n = parse_int(ctx.arg(2));
    if (!n || *n < -1) return ctx.reply.error(errors::kSlowlogCount);
    count = *n;
  }
  const auto& log = ctx.server.stats().slowlog;
  std::size_t n = count < 0 ? log.size() : std::min(log.size(), static_cast<std::size_t>(count));
  ctx.reply.array(n);
  for (std::size_t i = 0; i < n; ++i) {
    const SlowlogEntry& e = log[i];
    ctx.reply.array(6);
    ctx.reply.integer(static_cast<long long>(e.id));
    ctx.reply.integer(e.time_s);
    ctx.reply.integer(e.duration_us);
    ctx.reply.array(e.argv.size());
    for (const auto& a : e.argv) ctx.reply.bulk(a);
    ctx.reply.bulk(e.addr);
    ctx.reply.bulk(e.name);
  }
}

void slowlog_len(Context& ctx) {
  ctx.reply.integer(static_cast<long long>(ctx.server.stats().slowlog.size()));
}

void slowlog_reset(Context& ctx) {
  ctx.server.stats().slowlog.clear();
  ctx.reply.ok();
}

void slowlog_help(Context& ctx) {
  reply_help(ctx.reply, "SLOWLOG",
             {
                 "GET [<count>]",
                 "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
                 "    Entries are made of:",
                 "    id, timestamp, time in microseconds, arguments array, client IP and port,",
                 "    client name",
                 "LEN",
                 "    Return the length of the slowlog.",
                 "RESET",
                 "    Reset the slowlog.",
             });
}

// ---- MONITOR, SHUTDOWN
// ---------------------------------------------------------------------

void monitor(Context& ctx) {
  // Inside EXEC the client expects one reply per command, which a monitor cannot promise.
  if (ctx.session.executing) return ctx.reply.error(errors::kMonitorDenyBlocking);
  // Already monitoring: Redis ignores the command without a reply.
  if (ctx.session.monitor) return;
  start_monitor(ctx.server, ctx.session);
  ctx.reply.ok();
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: the shutdown sequence (core/shutdown.h). The
// caller gets no reply when the server exits (its connection closes); while the sequence waits
// for replicas it stays blocked, and re-runs (answering the error) if the shutdown is cancelled.
void shutdown(Context& ctx) {
  uint32_t flags = 0;
  bool abort = false;
  for (ArgCursor cur(ctx.argv, 1); !cur.done();) {
    if (cur.match("nosave")) {
      flags |= ShutdownSequence::kNoSave;
    } else if (cur.match("save")) {
      flags |= ShutdownSequence::kSave;
    } else if (cur.match("now")) {
      flags |= ShutdownSequence::kNow;
    } else if (cur.match("force")) {
      flags |= ShutdownSequence::kForce;
    } else if (cur.match("abort")) {
      abort = true;
    } else {
      return ctx.reply.error(errors::kSyntax);
    }
  }
  constexpr uint32_t kBoth = ShutdownSequence::kSave | ShutdownSequence::kNoSave;
  if ((abort && flags != 0) || (flags & kBoth) == kBoth) return ctx.reply.error(errors::kSyntax);
  ShutdownSequence& seq = ctx.server.shutdown();
  if (abort) {
    if (!seq.abort()) return ctx.reply.error(errors::kNoShutdownInProgress);
    return ctx.reply.ok();
  }
  if (ctx.rerun_deadline_ms >= 0) {
    // Woken: the shutdown this client waited for was cancelled (ABORT, or a failed save).
    if (!seq.waiting()) return ctx.reply.error(errors::kShutdownFailed);
  } else {
    if (!ctx.server.request_shutdown) return ctx.reply.error(errors::kShutdownFailed);
    switch (seq.begin(flags)) {
      case ShutdownSequence::Outcome::kFailed:
        return ctx.reply.error(errors::kShutdownFailed);
      case ShutdownSequence::Outcome::kExiting:
        // As Redis, no reply: the server closes the connection as it exits.
        ctx.session.close_after_reply = true;
        return;
      case ShutdownSequence::Outcome::kWaiting:
        break;
    }
  }
  std::vector<std::string> rerun(ctx.argv.begin(), ctx.argv.end());
  ctx.block({{kShutdownWaitDb, std::string(kShutdownWaitKey)}}, 0, std::move(rerun));
}

}  // namespace

void register_server_commands(CommandTable& t) {
  record_startup_memory();
  t.add({"info", -1, kLoading | kStale, "slow dangerous", 0, 0, 0, info, {}, nullptr, "server"});
  t.add({"time", 1, kLoading | kStale | kFast, "fast", 0, 0, 0, time_cmd, {}, nullptr, "server"});
  t.add({"debug", -2, kAdminFlags, kAdminAcl, 0, 0, 0, debug, {}, nullptr, "server"});
  t.add({"monitor", 1, kAdminFlags, kAdminAcl, 0, 0, 0, monitor, {}, nullptr, "server"});
  t.add({"shutdown",
         -1,
         kAdminFlags | kNoMulti | kAllowBusy,
         kAdminAcl,
         0,
         0,
         0,
         shutdown,
         {},
         nullptr,
         "server"});
  t.add({.name = "function",
         .arity = -2,
         .flags = 0,
         .acl_categories = "slow",
         .first_key = 0,
         .last_key = 0,
         .step = 0,
         .handler = nullptr,
         .subcommands = {{"flush", -2, kWrite | kNoScript, "write slow scripting", 0, 0, 0,
                          function_flush},
                         {"help", 2, kLoading | kStale, "slow scripting", 0, 0, 0, function_help}},
         .group = "scripting"});
  t.add({.name = "slowlog",
         .arity = -2,
         .flags = 0,
         .acl_categories = "slow",
         .first_key = 0,
         .last_key = 0,
         .step = 0,
         .handler = nullptr,
         .subcommands =
             {
                 {"get", -2, kAdmin | kLoading | kStale, kAdminAcl, 0, 0, 0, slowlog_get},
                 {"help", 2, kLoading | kStale, "slow", 0, 0, 0, slowlog_help},
                 {"len", 2, kAdmin | kLoading | kStale, kAdminAcl, 0, 0, 0, slowlog_len},
                 {"reset", 2, kAdmin | kLoading | kStale, kAdminAcl, 0, 0, 0, slowlog_reset},
             },
         .group = "server"});
  register_config_command(t);
  register_module_command(t);
}

}  // namespace streamd::cmd
