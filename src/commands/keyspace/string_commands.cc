// String commands: GET, SET (NX|XX, EX|PX|EXAT|PXAT|KEEPTTL, GET), SETNX, SETEX, PSETEX, GETSET,
// GETDEL, GETEX, MGET, MSET, MSETNX, APPEND, STRLEN. The counters (INCR, DECR, INCRBY, DECRBY,
// INCRBYFLOAT) are in string_counter_commands.cc.
//
// Stored encodings follow redis-server 7.0 so OBJECT ENCODING agrees: a value taken from a
// client argument is encoded as SET would (engine::Value's constructor), APPEND leaves a raw
// string behind.
#include <optional>
#include <string>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/keyspace/keyspace_support.h"

namespace streamd::cmd {

void register_string_counter_commands(CommandTable& t);

namespace {

// ---- SET and GETEX options ------------------------------------------------------------------

enum class OptionsFor { kSet, kGetex };

enum class ExpireKind { kNone, kEx, kPx, kExat, kPxat };

struct StringOptions {
  bool nx = false;
  bool xx = false;
  bool get = false;
  bool keepttl = false;
  bool persist = false;
  ExpireKind expire = ExpireKind::kNone;
  std::string_view expire_arg;
};

// Parses the options after the key (and value); false with "syntax error" in the cursor on a
// repeated or conflicting option, an option that needs a value at the end, or an unknown word.
// (Repeating the same option is allowed, as in Redis: the last value wins.) Each branch checks
// its conditions before match(), so a refused keyword is not consumed.
bool parse_string_options(ArgCursor& cur, OptionsFor cmd, StringOptions& o) {
  const bool set = cmd == OptionsFor::kSet;
  while (!cur.done()) {
    bool no_expire_yet = o.expire == ExpireKind::kNone;
    auto expire_opt = [&](std::string_view word, ExpireKind kind) {
      if (o.keepttl || o.persist || !(no_expire_yet || o.expire == kind) || !cur.match(word, 1)) {
        return false;
      }
      o.expire = kind;
      o.expire_arg = cur.next();
      return true;
    };
    if (set && !o.xx && cur.match("nx")) {
      o.nx = true;
    } else if (set && !o.nx && cur.match("xx")) {
      o.xx = true;
    } else if (set && cur.match("get")) {
      o.get = true;
    } else if (set && no_expire_yet && cur.match("keepttl")) {
      o.keepttl = true;
    } else if (cmd == OptionsFor::kGetex && no_expire_yet && cur.match("persist")) {
      o.persist = true;
    } else if (!expire_opt("ex", ExpireKind::kEx) && !expire_opt("px", ExpireKind::kPx) &&
               !expire_opt("exat", ExpireKind::kExat) && !expire_opt("pxat", ExpireKind::kPxat)) {
      return cur.fail(errors::kSyntax);
    }
  }
  return true;
}

// The absolute expire time the options ask for; replies on an invalid time.
std::optional<int64_t> option_expire_ms(Context& ctx, const StringOptions& o) {
  switch (o.expire) {
    case ExpireKind::kEx:
      return expire_arg_or_reply(ctx, o.expire_arg, ExpireUnit::kSeconds, true);
    case ExpireKind::kPx:
      return expire_arg_or_reply(ctx, o.expire_arg, ExpireUnit::kMilliseconds, true);
    case ExpireKind::kExat:
      return expire_arg_or_reply(ctx, o.expire_arg, ExpireUnit::kSeconds, false);
    case ExpireKind::kPxat:
      return expire_arg_or_reply(ctx, o.expire_arg, ExpireUnit::kMilliseconds, false);
    case ExpireKind::kNone:
      break;
  }
  return -1;
}

// Stores `value` at `key` (a fresh string object: any previous TTL is dropped unless
// `keep_ttl`), sets the expiry if `expire_ms` >= 0 and signals the change: "set", then
// "expire" when there is one (Redis's order).
void store_string(Context& ctx, std::string_view key, std::string_view value, int64_t expire_ms,
                  bool keep_ttl = false) {
  engine::Value v{std::string(value)};
  if (keep_ttl) {
    ctx.db().set(key, std::move(v), true);
  } else {
    ctx.db().set_with_expiry(key, std::move(v), expire_ms);
  }
  ctx.modified(key, events::kSet);
  if (expire_ms >= 0) ctx.notify(events::kExpire, key);
}

// GET's lookup for SET ... GET and GETSET: replies with the old value (or null) and returns
// true, or replies WRONGTYPE and returns false.
bool reply_old_value(Context& ctx, std::string_view key) {
  engine::Entry* e = lookup_read(ctx, key);
  if (!e) {
    ctx.reply.null();
    return true;
  }
  if (!e->value.is_string()) {
    ctx.reply.error(errors::kWrongType);
    return false;
  }
  ctx.reply.bulk(e->value.str());
  return true;
}

// ---- GET / SET family -----------------------------------------------------------------------

void get_command(Context& ctx) {
  if (engine::Entry* e = lookup_string_or_reply(ctx, ctx.arg(1))) ctx.reply.bulk(e->value.str());
}

void set_command(Context& ctx) {
  StringOptions o;
  ArgCursor cur(ctx.argv, 3);
  if (!parse_string_options(cur, OptionsFor::kSet, o)) return ctx.reply.error(cur.error());
  auto expire_ms = option_expire_ms(ctx, o);
  if (!expire_ms) return;
  std::string_view key = ctx.arg(1);
  // With GET the reply is the old value whether or not NX/XX let the write happen.
  if (o.get && !reply_old_value(ctx, key)) return;
  bool found = lookup_write(ctx, key) != nullptr;
  if ((o.nx && found) || (o.xx && !found)) {
    if (!o.get) ctx.reply.null();
    return;
  }
  store_string(ctx, key, ctx.arg(2), *expire_ms, o.keepttl);
  if (!o.get) ctx.reply.ok();
}

void setnx_command(Context& ctx) {
  std::string_view key = ctx.arg(1);
  if (lookup_write(ctx, key)) {
    ctx.reply.integer(0);
    return;
  }
  store_string(ctx, key, ctx.arg(2), -1);
  ctx.reply.integer(1);
}

void setex_generic(Context& ctx, ExpireUnit unit) {
  auto expire_ms = expire_arg_or_reply(ctx, ctx.arg(2), unit, true);
  if (!expire_ms) return;
  store_string(ctx, ctx.arg(1), ctx.arg(3), *expire_ms);
  ctx.reply.ok();
}

void setex_command(Context& ctx) {
  setex_generic(ctx, ExpireUnit::kSeconds);
}
void psetex_command(Context& ctx) {
  setex_generic(ctx, ExpireUnit::kMilliseconds);
}

void getset_command(Context& ctx) {
  std::string_view key = ctx.arg(1);
  if (!reply_old_value(ctx, key)) return;
  store_string(ctx, key, ctx.arg(2), -1);
}

void getdel_command(Context& ctx) {
  std::string_view key = ctx.arg(1);
  engine::Entry* e = lookup_string_or_reply(ctx, key);
  if (!e) return;
  ctx.reply.bulk(e->value.str());
  ctx.db().erase(key);
  ctx.modified(key, events::kDel);
}

void getex_command(Context& ctx) {
  StringOptions o;
  ArgCursor cur(ctx.argv, 2);
  if (!parse_string_options(cur, OptionsFor::kGetex, o)) return ctx.reply.error(cur.error());
  std::string_view key = ctx.arg(1);
  engine::Entry* e = lookup_string_or_reply(ctx, key);
  if (!e) return;
  auto expire_ms = option_expire_ms(ctx, o);
  if (!expire_ms) return;
  ctx.reply.bulk(e->value.str());
  bool absolute = o.expire == ExpireKind::kExat || o.expire == ExpireKind::kPxat;
  if (absolute && *expire_ms <= ctx.now_ms) {
    ctx.db().erase(key);
    ctx.modified(key, events::kDel);
  } else if (*expire_ms >= 0) {
    ctx.db().set_expire(key, *e, *expire_ms);
    ctx.modified(key, events::kExpire);
  } else if (o.persist && ctx.db().persist(key, *e)) {
    ctx.modified(key, events::kPersist);
  }
}

// ---- MGET / MSET / MSETNX -------------------------------------------------------------------

void mget_command(Context& ctx) {
  ctx.reply.array(ctx.argc() - 1);
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    engine::Entry* e = lookup_read(ctx, ctx.arg(i));
    if (e && e->value.is_string()) {
      ctx.reply.bulk(e->value.str());
    } else {
      ctx.reply.null();
    }
  }
}

// MSET and MSETNX need key/value pairs; an odd pair count is an arity error as Redis reports it.
bool pairs_ok(Context& ctx) {
  if (ctx.argc() % 2 == 1) return true;
  ctx.reply.error(errors::wrong_arity(ctx.spec.full_name));
  return false;
}

void mset_command(Context& ctx) {
  if (!pairs_ok(ctx)) return;
  for (std::size_t i = 1; i + 1 < ctx.argc(); i += 2) {
    store_string(ctx, ctx.arg(i), ctx.arg(i + 1), -1);
  }
  ctx.reply.ok();
}

void msetnx_command(Context& ctx) {
  if (!pairs_ok(ctx)) return;
  for (std::size_t i = 1; i + 1 < ctx.argc(); i += 2) {
    if (lookup_write(ctx, ctx.arg(i))) {
      ctx.reply.integer(0);
      return;
    }
  }
  for (std::size_t i = 1; i + 1 < ctx.argc(); i += 2) {
    store_string(ctx, ctx.arg(i), ctx.arg(i + 1), -1);
  }
  ctx.reply.integer(1);
}

// ---- APPEND / STRLEN ------------------------------------------------------------------------

void append_command(Context& ctx) {
  std::string_view key = ctx.arg(1), tail = ctx.arg(2);
  engine::Entry* e = lookup_write(ctx, key);
  if (!e) {
    // A new key holds the argument itself, encoded as SET would store it.
    engine::Entry* created = ctx.db().add(key, engine::Value(std::string(tail)));
    ctx.modified(key, events::kAppend);
    ctx.reply.integer(static_cast<long long>(created->value.str().size()));
    return;
  }
  if (!e->value.is_string()) {
    ctx.reply.error(errors::kWrongType);
    return;
  }
  std::string& s = e->value.str();
  long long limit = ctx.server.config().proto_max_bulk_len();
  if (static_cast<long long>(s.size() + tail.size()) > limit) {
    ctx.reply.error(errors::kStringTooLong);
    return;
  }
  s.append(tail);
  e->value.set_str_encoding(engine::StrEncoding::kRaw);
  ctx.modified(key, events::kAppend);
  ctx.reply.integer(static_cast<long long>(s.size()));
}

void strlen_command(Context& ctx) {
  engine::Entry* e = lookup_read(ctx, ctx.arg(1));
  if (!e) {
    ctx.reply.integer(0);
  } else if (!e->value.is_string()) {
    ctx.reply.error(errors::kWrongType);
  } else {
    ctx.reply.integer(static_cast<long long>(e->value.str().size()));
  }
}

}  // namespace

void register_string_commands(CommandTable& t) {
  GroupRows rows(t, "string");
  constexpr uint32_t kWriteOom = kWrite | kDenyOom;
  rows.add_single_key("get", 2, kReadonly | kFast, "read string fast", get_command);
  rows.add_single_key("set", -3, kWriteOom, "write string slow", set_command);
  rows.add_single_key("setnx", 3, kWriteOom | kFast, "write string fast", setnx_command);
  rows.add_single_key("setex", 4, kWriteOom, "write string slow", setex_command);
  rows.add_single_key("psetex", 4, kWriteOom, "write string slow", psetex_command);
  rows.add_single_key("getset", 3, kWriteOom | kFast, "write string fast", getset_command);
  rows.add_single_key("getdel", 2, kWrite | kFast, "write string fast", getdel_command);
  rows.add_single_key("getex", -2, kWrite | kFast, "write string fast", getex_command);
  rows.add("mget", -2, kReadonly | kFast, "read string fast", {1, -1, 1}, mget_command);
  rows.add("mset", -3, kWriteOom, "write string slow", {1, -1, 2}, mset_command);
  rows.add("msetnx", -3, kWriteOom, "write string slow", {1, -1, 2}, msetnx_command);
  rows.add_single_key("append", 3, kWriteOom | kFast, "write string fast", append_command);
  rows.add_single_key("strlen", 2, kReadonly | kFast, "read string fast", strlen_command);
  register_string_counter_commands(t);
}

}  // namespace streamd::cmd
