// Connection commands: PING, ECHO, HELLO, AUTH, SELECT, QUIT, RESET and the CLIENT container.
//
// Replies follow redis-server 7.0.15 byte for byte. CLIENT SETINFO and CLIENT NO-TOUCH come from
// Redis 7.2 (client libraries send SETINFO on connect and expect OK). Users are the ACL's
// (commands/acl/acl.h); requirepass is the default user's password.
#include <limits>
#include <string>
#include <vector>

#include "streamd/commands/acl/acl.h"
#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"
#include "streamd/commands/core/redis_version.h"
#include "streamd/commands/pubsub/pubsub.h"
#include "streamd/commands/server/client_info.h"
#include "streamd/commands/server/tracking_commands.h"

namespace streamd::cmd {

namespace {

// AUTH / HELLO AUTH: true if the pair is valid (the session then runs as that user). A refusal
// is counted and written to the ACL log under the name the client gave.
bool authenticate(Context& ctx, std::string_view user, std::string_view pass) {
  std::shared_ptr<acl::User> u = ctx.server.acl().authenticate(user, pass);
  Session& s = ctx.session;
  if (!u) {
    ++ctx.server.stats().acl_denied_auth;  // INFO's acl_access_denied_auth
    ctx.server.acl().log(acl::LogReason::kAuth,
                         s.in_multi ? acl::LogContext::kMulti : acl::LogContext::kToplevel,
                         std::string(ctx.arg(0)), std::string(user),
                         client_info_line(ctx.server, s, &ctx), ctx.server.clock().now_ms());
    return false;
  }
  s.user = std::move(u);
  s.authenticated = true;
  return true;
}

// Redis accepts client names (and library names) made of '!'..'~' only.
bool valid_client_attr(std::string_view s) {
  for (char c : s) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

void ping(Context& ctx) {
  // Arity is -1 in the table (as in Redis); more than one message is an arity error.
  if (ctx.argc() > 2) return ctx.reply.error(errors::wrong_arity("ping"));
  if (resp2_subscribed(ctx.session)) {
    // In RESP2 pub/sub mode a reply must look like a message: ["pong", message or ""].
    ctx.reply.array(2);
    ctx.reply.bulk("pong");
    ctx.reply.bulk(ctx.argc() == 2 ? ctx.arg(1) : std::string_view());
    return;
  }
  if (ctx.argc() == 1) return ctx.reply.simple("PONG");
  ctx.reply.bulk(ctx.arg(1));
}

void echo(Context& ctx) {
  ctx.reply.bulk(ctx.arg(1));
}

void hello(Context& ctx) {
  resp::Protocol proto = ctx.session.proto;
  if (ctx.argc() >= 2) {
    auto ver = parse_int(ctx.arg(1));
    if (!ver) return ctx.reply.error(errors::kProtocolVersionNotInteger);
    if (*ver < 2 || *ver > 3) return ctx.reply.error(errors::kNoProto);
    proto = *ver == 3 ? resp::Protocol::kResp3 : resp::Protocol::kResp2;
  }
  // Options take effect one by one, as Redis applies them: an AUTH before a bad option has
  // already authenticated, a SETNAME before a failed AUTH has already renamed.
  // (So they are not parsed into a struct first: each runs as soon as it is read.)
  ArgCursor cur(ctx.argv, 2);
  while (!cur.done()) {
    if (cur.match("auth", 2)) {
      std::string_view user = cur.next(), pass = cur.next();
      if (!authenticate(ctx, user, pass)) return ctx.reply.error(errors::kWrongPass);
    } else if (cur.match("setname", 1)) {
      std::string_view name = cur.next();
      if (!valid_client_attr(name)) return ctx.reply.error(errors::kInvalidClientName);
      ctx.session.name = std::string(name);
    } else {
      return ctx.reply.error(errors::hello_syntax(cur.peek()));
    }
  }
  if (!ctx.session.authenticated) return ctx.reply.error(errors::kHelloNoAuth);

  // The reply already uses the new protocol.
  ctx.session.proto = proto;
  ctx.reply.set_protocol(proto);
  ctx.reply.map(7);
  ctx.reply.bulk("server");
  ctx.reply.bulk("redis");
  ctx.reply.bulk("version");
  ctx.reply.bulk(kRedisVersion);
  ctx.reply.bulk("proto");
  ctx.reply.integer(static_cast<int>(proto));
  ctx.reply.bulk("id");
  ctx.reply.integer(static_cast<long long>(ctx.session.id));
  ctx.reply.bulk("mode");
  ctx.reply.bulk("standalone");
  ctx.reply.bulk("role");
  const Replication* repl = ctx.server.replication_role();
  ctx.reply.bulk(repl && repl->is_replica() ? "replica" : "master");
  ctx.reply.bulk("modules");
  ctx.reply.empty_array();
}

void auth(Context& ctx) {
  if (ctx.argc() > 3) return ctx.reply.error(errors::kSyntax);
  std::string_view user = ctx.argc() == 3 ? ctx.arg(1) : std::string_view("default");
  std::string_view pass = ctx.arg(ctx.argc() - 1);
  if (ctx.argc() == 2 && ctx.server.acl().default_user()->nopass) {
    return ctx.reply.error(errors::kAuthNoPassword);
  }
  if (!authenticate(ctx, user, pass)) return ctx.reply.error(errors::kWrongPass);
  ctx.reply.ok();
}

void select(Context& ctx) {
  auto id = parse_int(ctx.arg(1));
  if (!id || *id < INT32_MIN || *id > INT32_MAX) return ctx.reply.error(errors::kNotInteger);
  if (*id < 0 || *id >= ctx.server.keyspace().databases()) {
    return ctx.reply.error(errors::kDbOutOfRange);
  }
  ctx.session.db = static_cast<int>(*id);
  ctx.reply.ok();
}

void quit(Context& ctx) {
  ctx.session.close_after_reply = true;
  ctx.reply.ok();
}

// RESET: back to the state of a new connection (protocol 2, db 0, no name, no MULTI/WATCH, not
// monitoring, no subscriptions, replies on), the default user, not authenticated when it needs a
// password.
void reset(Context& ctx) {
  Session& s = ctx.session;
  ctx.server.pubsub().unsubscribe_all(s);
  ctx.server.tracking().disable(s);
  s.reset_transaction(ctx.server);
  s.monitor = false;
  s.reply_mode = ReplyMode::kOn;
  s.no_evict = false;
  s.no_touch = false;
  s.db = 0;
  s.name.clear();
  s.proto = resp::Protocol::kResp2;
  ctx.reply.set_protocol(s.proto);
  s.user = nullptr;  // the default user, authenticated only if it needs no password
  const acl::User& d = *ctx.server.acl().default_user();
  s.authenticated = d.nopass && d.enabled;
  ctx.reply.simple("RESET");
}

// ---- CLIENT -------------------------------------------------------------------------------------

void client_id(Context& ctx) {
  ctx.reply.integer(static_cast<long long>(ctx.session.id));
}

void client_setname(Context& ctx) {
  std::string_view name = ctx.arg(2);
  if (!valid_client_attr(name)) return ctx.reply.error(errors::kInvalidClientName);
  ctx.session.name = std::string(name);
  ctx.reply.ok();
}

void client_getname(Context& ctx) {
  if (ctx.session.name.empty()) return ctx.reply.null();
  ctx.reply.bulk(ctx.session.name);
}

void client_setinfo(Context& ctx) {
  std::string_view attr = ctx.arg(2), value = ctx.arg(3);
  std::string* field = nullptr;
  if (iequals(attr, "lib-name")) {
    field = &ctx.session.lib_name;
  } else if (iequals(attr, "lib-ver")) {
    field = &ctx.session.lib_ver;
  } else {
    return ctx.reply.error(errors::unrecognized_option(attr));
  }
  if (!valid_client_attr(value)) return ctx.reply.error(errors::invalid_client_attr(attr));
  *field = std::string(value);
  ctx.reply.ok();
}

void client_info(Context& ctx) {
  ctx.reply.verbatim(client_info_line(ctx.server, ctx.session, &ctx) + "\n");
}

std::optional<ClientType> parse_client_type(std::string_view s) {
  if (iequals(s, "normal")) return ClientType::kNormal;
  if (iequals(s, "master")) return ClientType::kMaster;
  if (iequals(s, "replica") || iequals(s, "slave")) return ClientType::kReplica;
  if (iequals(s, "pubsub")) return ClientType::kPubsub;
  return std::nullopt;
}

void client_list(Context& ctx) {
  std::optional<ClientType> type;
  std::vector<long long> ids;
  bool by_id = false;
  if (ctx.argc() == 4 && iequals(ctx.arg(2), "type")) {
    type = parse_client_type(ctx.arg(3));
    if (!type) return ctx.reply.error(errors::unknown_client_type(ctx.arg(3)));
  } else if (ctx.argc() > 3 && iequals(ctx.arg(2), "id")) {
    by_id = true;
    for (ArgCursor cur(ctx.argv, 3); !cur.done();) {
      auto id = parse_int(cur.next());
      if (!id) return ctx.reply.error(errors::kInvalidClientId);
      ids.push_back(*id);
    }
  } else if (ctx.argc() != 2) {
    return ctx.reply.error(errors::kSyntax);
  }
  std::string text;
  auto add = [&](Session& s) {
    text += client_info_line(ctx.server, s, s.id == ctx.session.id ? &ctx : nullptr);
    text += '\n';
  };
  if (by_id) {
    // In the order the ids were given, as Redis does.
    for (long long id : ids) {
      if (id <= 0) continue;
      if (Session* s = ctx.server.session(static_cast<uint64_t>(id))) add(*s);
    }
  } else {
    for (auto& [id, s] : ctx.server.sessions()) {
      if (!type || client_type(*s) == *type) add(*s);
    }
  }
  ctx.reply.verbatim(text);
}

// Closes `target`, or marks the caller to close once this reply is written.
void kill_session(Context& ctx, uint64_t id) {
  if (id == ctx.session.id) {
    ctx.session.close_after_reply = true;
    return;
  }
  Session* s = ctx.server.session(id);
  if (s && s->kill) s->kill();
}

// CLIENT KILL's filters (the new form), each a word and a value.
struct KillFilter {
  std::optional<long long> id;
  long long max_age = 0;  // seconds; 0: any age (Redis 7.4's MAXAGE)
  std::optional<ClientType> type;
  std::optional<std::string_view> addr, laddr;
  const acl::User* user = nullptr;
  bool skipme = true;
};

// False with the error in the cursor; values are checked in the order the filters come.
bool parse_kill_filter(Server& server, ArgCursor& cur, KillFilter& f) {
  while (!cur.done()) {
    if (!cur.require(cur.remaining() >= 2, errors::kSyntax)) return false;
    std::string_view opt = cur.next(), val = cur.next();
    if (iequals(opt, "id")) {
      auto id = parse_int(val);
      if (!cur.require(id && *id > 0, errors::kClientIdNotPositive)) return false;
      f.id = *id;
    } else if (iequals(opt, "maxage")) {
      auto age = parse_int(val);
      if (!cur.require(age.has_value(), errors::kMaxAgeNotInteger) ||
          !cur.require(*age > 0, errors::kMaxAgeNotPositive)) {
        return false;
      }
      f.max_age = *age;
    } else if (iequals(opt, "type")) {
      f.type = parse_client_type(val);
      if (!cur.require(f.type.has_value(), errors::unknown_client_type(val))) return false;
    } else if (iequals(opt, "addr")) {
      f.addr = val;
    } else if (iequals(opt, "laddr")) {
      f.laddr = val;
    } else if (iequals(opt, "user")) {
      std::shared_ptr<acl::User> u = server.acl().find(val);
      if (!cur.require(u != nullptr, errors::no_such_user(val))) return false;
      f.user = u.get();
    } else if (iequals(opt, "skipme")) {
      if (iequals(val, "yes")) {
        f.skipme = true;
      } else if (iequals(val, "no")) {
        f.skipme = false;
      } else {
        return cur.fail(errors::kSyntax);
      }
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  return true;
}

void client_kill(Context& ctx) {
  // Old form: CLIENT KILL <ip:port>.
  if (ctx.argc() == 3) {
    for (auto& [id, s] : ctx.server.sessions()) {
      if (s->addr == ctx.arg(2)) {
        uint64_t target = id;
        ctx.reply.ok();
        kill_session(ctx, target);
        return;
      }
    }
    return ctx.reply.error(errors::kNoSuchClient);
  }

  // New form: CLIENT KILL <filter> <value> ... Every filter given must match.
  KillFilter f;
  ArgCursor cur(ctx.argv, 2);
  if (!parse_kill_filter(ctx.server, cur, f)) return ctx.reply.error(cur.error());
  const auto& [want_id, max_age, want_type, want_addr, want_laddr, want_user, skipme] = f;
  std::vector<uint64_t> targets;
  for (auto& [id, s] : ctx.server.sessions()) {
    if (want_id && static_cast<long long>(id) != *want_id) continue;
    if (want_type && client_type(*s) != *want_type) continue;
    if (want_addr && s->addr != *want_addr) continue;
    if (want_laddr && s->laddr != *want_laddr) continue;
    if (want_user && &ctx.server.user_of(*s) != want_user) continue;
    if (skipme && id == ctx.session.id) continue;
    // Ages in whole seconds, as Redis compares them (a client of 1.9 s is 1 s old).
    if (max_age != 0 && ctx.now_ms / 1000 - s->created_ms / 1000 < max_age) continue;
    targets.push_back(id);
  }
  // Reply first: killing the caller only marks it to close after this reply.
  ctx.reply.integer(static_cast<long long>(targets.size()));
  for (uint64_t id : targets) kill_session(ctx, id);
}

bool parse_on_off(std::string_view s, bool& out) {
  if (iequals(s, "on")) {
    out = true;
  } else if (iequals(s, "off")) {
    out = false;
  } else {
    return false;
  }
  return true;
}

void client_no_evict(Context& ctx) {
  if (!parse_on_off(ctx.arg(2), ctx.session.no_evict)) return ctx.reply.error(errors::kSyntax);
  ctx.reply.ok();
}

void client_no_touch(Context& ctx) {
  if (!parse_on_off(ctx.arg(2), ctx.session.no_touch)) return ctx.reply.error(errors::kSyntax);
  ctx.reply.ok();
}

// The reply is written in every mode; dispatch drops it for OFF and SKIP.
void client_reply(Context& ctx) {
  std::string_view mode = ctx.arg(2);
  if (iequals(mode, "on")) {
    ctx.session.reply_mode = ReplyMode::kOn;
  } else if (iequals(mode, "off")) {
    ctx.session.reply_mode = ReplyMode::kOff;
  } else if (iequals(mode, "skip")) {
    if (ctx.session.reply_mode == ReplyMode::kOn) ctx.session.reply_mode = ReplyMode::kSkip;
  } else {
    return ctx.reply.error(errors::kSyntax);
  }
  ctx.reply.ok();
}

void client_unblock(Context& ctx) {
  auto id = parse_int(ctx.arg(2));
  if (!id) return ctx.reply.error(errors::kNotInteger);
  bool error = false;
  if (ctx.argc() == 4) {
    if (iequals(ctx.arg(3), "error")) {
      error = true;
    } else if (!iequals(ctx.arg(3), "timeout")) {
      return ctx.reply.error(errors::kUnblockReason);
    }
  } else if (ctx.argc() > 4) {
    return ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "CLIENT"));
  }
  Session* target = *id > 0 ? ctx.server.session(static_cast<uint64_t>(*id)) : nullptr;
  bool done =
      target && target->blocked && ctx.server.blocking().unblock(*target, error, ctx.dispatcher);
  ctx.reply.integer(done ? 1 : 0);
}

// CLIENT PAUSE timeout [WRITE|ALL] (milliseconds; ALL when no mode is given). The mode is
// checked before the timeout, as Redis does; 0 ends no pause and starts none that lasts.
void client_pause(Context& ctx) {
  ClientPause::Mode mode = ClientPause::Mode::kAll;
  if (ctx.argc() == 4) {
    if (iequals(ctx.arg(3), "write")) {
      mode = ClientPause::Mode::kWrite;
    } else if (!iequals(ctx.arg(3), "all")) {
      return ctx.reply.error(errors::kClientPauseMode);
    }
  } else if (ctx.argc() > 4) {
    return ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "CLIENT"));
  }
  auto ms = parse_int(ctx.arg(2));
  if (!ms) return ctx.reply.error(errors::kTimeoutNotInteger);
  if (*ms < 0) return ctx.reply.error(errors::kTimeoutNegative);
  int64_t end = 0;
  if (*ms > 0) {
    if (*ms > std::numeric_limits<int64_t>::max() - ctx.now_ms) {
      return ctx.reply.error(errors::kTimeoutOutOfRange);
    }
    end = ctx.now_ms + *ms;
  }
  ctx.server.pause_clients(ClientPause::Purpose::kClientCommand, mode, end);
  ctx.reply.ok();
}

void client_unpause(Context& ctx) {
  ctx.server.unpause_clients(ClientPause::Purpose::kClientCommand);
  ctx.reply.ok();
}

void client_help(Context& ctx) {
  // The newest Redis's text, verbatim (7.0.15 lacks KILL ID/MAXAGE, SETINFO and NO-TOUCH).
  reply_help(ctx.reply, "CLIENT",
             {
                 "CACHING (YES|NO)",
                 "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
                 "GETREDIR",
                 "    Return the client ID we are redirecting to when tracking is enabled.",
                 "GETNAME",
                 "    Return the name of the current connection.",
                 "ID",
                 "    Return the ID of the current connection.",
                 "INFO",
                 "    Return information about the current client connection.",
                 "KILL <ip:port>",
                 "    Kill connection made from <ip:port>.",
                 "KILL <option> <value> [<option> <value> [...]]",
                 "    Kill connections. Options are:",
                 "    * ADDR (<ip:port>|<unixsocket>:0)",
                 "      Kill connections made from the specified address",
                 "    * LADDR (<ip:port>|<unixsocket>:0)",
                 "      Kill connections made to specified local address",
                 "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
                 "      Kill connections by type.",
                 "    * USER <username>",
                 "      Kill connections authenticated by <username>.",
                 "    * SKIPME (YES|NO)",
                 "      Skip killing current connection (default: yes).",
                 "    * ID <client-id>",
                 "      Kill connections by client id.",
                 "    * MAXAGE <maxage>",
                 "      Kill connections older than the specified age.",
                 "LIST [options ...]",
                 "    Return information about client connections. Options:",
                 "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
                 "      Return clients of specified type.",
                 "UNPAUSE",
                 "    Stop the current client pause, resuming traffic.",
                 "PAUSE <timeout> [WRITE|ALL]",
                 "    Suspend all, or just write, clients for <timeout> milliseconds.",
                 "REPLY (ON|OFF|SKIP)",
                 "    Control the replies sent to the current connection.",
                 "SETNAME <name>",
                 "    Assign the name <name> to the current connection.",
                 "SETINFO <option> <value>",
                 "    Set client meta attr. Options are:",
                 "    * LIB-NAME: the client lib name.",
                 "    * LIB-VER: the client lib version.",
                 "UNBLOCK <clientid> [TIMEOUT|ERROR]",
                 "    Unblock the specified blocked client.",
                 "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
                 "         [OPTIN] [OPTOUT] [NOLOOP]",
                 "    Control server assisted client side caching.",
                 "TRACKINGINFO",
                 "    Report tracking status for the current connection.",
                 "NO-EVICT (ON|OFF)",
                 "    Protect current client connection from eviction.",
                 "NO-TOUCH (ON|OFF)",
                 "    Will not touch LRU/LFU stats when this mode is on.",
             });
}

constexpr uint32_t kClientFlags = kNoScript | kLoading | kStale;
constexpr uint32_t kClientAdminFlags = kAdmin | kNoScript | kLoading | kStale;
constexpr std::string_view kClientAcl = "slow connection";
constexpr std::string_view kClientAdminAcl = "admin slow dangerous connection";
constexpr uint32_t kAlwaysFlags = kNoScript | kLoading | kStale | kFast | kNoAuth | kAllowBusy;

}  // namespace

void register_connection_commands(CommandTable& t) {
  t.add({"ping", -1, kFast, "fast connection", 0, 0, 0, ping, {}, nullptr, "connection"});
  t.add({"echo",
         2,
         kLoading | kStale | kFast,
         "fast connection",
         0,
         0,
         0,
         echo,
         {},
         nullptr,
         "connection"});
  t.add({"hello", -1, kAlwaysFlags, "fast connection", 0, 0, 0, hello, {}, nullptr, "connection"});
  t.add({"auth", -2, kAlwaysFlags, "fast connection", 0, 0, 0, auth, {}, nullptr, "connection"});
  t.add({"select",
         2,
         kLoading | kStale | kFast,
         "fast connection",
         0,
         0,
         0,
         select,
         {},
         nullptr,
         "connection"});
  t.add({"quit", -1, kAlwaysFlags, "fast connection", 0, 0, 0, quit, {}, nullptr, "connection"});
  t.add({"reset", 1, kAlwaysFlags, "fast connection", 0, 0, 0, reset, {}, nullptr, "connection"});
  t.add({.name = "client",
         .arity = -2,
         .flags = 0,
         .acl_categories = "slow",
         .first_key = 0,
         .last_key = 0,
         .step = 0,
         .handler = nullptr,
         .subcommands =
             {
                 {"getname", 2, kClientFlags, kClientAcl, 0, 0, 0, client_getname},
                 {"caching", 3, kClientFlags, kClientAcl, 0, 0, 0, client_caching},
                 {"getredir", 2, kClientFlags, kClientAcl, 0, 0, 0, client_getredir},
                 {"help", 2, kLoading | kStale, kClientAcl, 0, 0, 0, client_help},
                 {"id", 2, kClientFlags, kClientAcl, 0, 0, 0, client_id},
                 {"info", 2, kClientFlags, kClientAcl, 0, 0, 0, client_info},
                 {"kill", -3, kClientAdminFlags, kClientAdminAcl, 0, 0, 0, client_kill},
                 {"list", -2, kClientAdminFlags, kClientAdminAcl, 0, 0, 0, client_list},
                 {"no-evict", 3, kClientAdminFlags, kClientAdminAcl, 0, 0, 0, client_no_evict},
                 {"no-touch", 3, kClientFlags, kClientAcl, 0, 0, 0, client_no_touch},
                 {"pause", -3, kClientAdminFlags, kClientAdminAcl, 0, 0, 0, client_pause},
                 {"reply", 3, kClientFlags, kClientAcl, 0, 0, 0, client_reply},
                 {"setinfo", 4, kClientFlags, kClientAcl, 0, 0, 0, client_setinfo},
                 {"setname", 3, kClientFlags, kClientAcl, 0, 0, 0, client_setname},
                 {"tracking", -3, kClientFlags, kClientAcl, 0, 0, 0, client_tracking},
                 {"trackinginfo", 2, kClientFlags, kClientAcl, 0, 0, 0, client_trackinginfo},
                 {"unblock", -3, kClientAdminFlags, kClientAdminAcl, 0, 0, 0, client_unblock},
                 {"unpause", 2, kClientAdminFlags, kClientAdminAcl, 0, 0, 0, client_unpause},
             },
         .group = "connection"});
}

}  // namespace streamd::cmd
