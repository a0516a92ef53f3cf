// Key expiry commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (NX|XX|GT|LT), TTL, PTTL,
// EXPIRETIME, PEXPIRETIME, PERSIST. Times are absolute Unix milliseconds in the engine; a time
// already in the past deletes the key at once, as Redis does.
#include <limits>
#include <string>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/keyspace/keyspace_support.h"

namespace streamd::cmd {

namespace {

enum ExpireFlag : unsigned { kNx = 1, kXx = 2, kGt = 4, kLt = 8 };

// The NX|XX|GT|LT options after the time; false with the error in the cursor.
bool parse_expire_flags(ArgCursor& cur, unsigned& flags) {
  flags = 0;
  while (!cur.done()) {
    if (cur.match("nx")) {
      flags |= kNx;
    } else if (cur.match("xx")) {
      flags |= kXx;
    } else if (cur.match("gt")) {
      flags |= kGt;
    } else if (cur.match("lt")) {
      flags |= kLt;
    } else {
      return cur.fail(errors::unsupported_option(cur.peek()));
    }
  }
  if (!cur.require(!((flags & kNx) && (flags & (kXx | kGt | kLt))),
                   errors::kExpireNxIncompatible)) {
    return false;
  }
  return cur.require(!((flags & kGt) && (flags & kLt)), errors::kExpireGtLtIncompatible);
}

// Does the NX/XX/GT/LT condition allow replacing `current` (-1 = no TTL, i.e. infinite) by `when`?
bool condition_allows(unsigned flags, int64_t current, int64_t when) {
  if ((flags & kNx) && current != -1) return false;
  if ((flags & kXx) && current == -1) return false;
  if ((flags & kGt) && (current == -1 || when <= current)) return false;
  if ((flags & kLt) && current != -1 && when >= current) return false;
  return true;
}

// EXPIRE key time [NX|XX|GT|LT]: `base` is now for relative commands, 0 for the *AT ones.
void expire_generic(Context& ctx, int64_t base, ExpireUnit unit) {
  constexpr long long kMax = std::numeric_limits<long long>::max();
  constexpr long long kMin = std::numeric_limits<long long>::min();
  unsigned flags = 0;
  ArgCursor cur(ctx.argv, 3);
  if (!parse_expire_flags(cur, flags)) return ctx.reply.error(cur.error());
  auto v = int_arg_or_reply(ctx, ctx.arg(2));
  if (!v) return;
  // Negative times are allowed (they delete the key); only overflow is an error.
  long long when = *v;
  bool overflow = false;
  if (unit == ExpireUnit::kSeconds) {
    if (when > kMax / 1000 || when < kMin / 1000) {
      overflow = true;
    } else {
      when *= 1000;
    }
  }
  if (!overflow && when > kMax - base) overflow = true;
  if (overflow) {
    ctx.reply.error(errors::invalid_expire_time(ctx.spec.full_name));
    return;
  }
  when += base;

  std::string_view key = ctx.arg(1);
  engine::Entry* e = lookup_write(ctx, key);
  if (!e || !condition_allows(flags, e->expire_ms, when)) {
    ctx.reply.integer(0);
    return;
  }
  // A time already past deletes the key: "del", not "expire" or "expired" (as in Redis).
  if (when <= ctx.now_ms) {
    ctx.db().erase(key);
    ctx.modified(key, events::kDel);
  } else {
    ctx.db().set_expire(key, *e, when);
    ctx.modified(key, events::kExpire);
  }
  ctx.reply.integer(1);
}

void expire_command(Context& ctx) {
  expire_generic(ctx, ctx.now_ms, ExpireUnit::kSeconds);
}
void pexpire_command(Context& ctx) {
  expire_generic(ctx, ctx.now_ms, ExpireUnit::kMilliseconds);
}
void expireat_command(Context& ctx) {
  expire_generic(ctx, 0, ExpireUnit::kSeconds);
}
void pexpireat_command(Context& ctx) {
  expire_generic(ctx, 0, ExpireUnit::kMilliseconds);
}

// TTL / PTTL / EXPIRETIME / PEXPIRETIME: -2 for a missing key, -1 without expiry.
void ttl_generic(Context& ctx, bool milliseconds, bool absolute) {
  engine::Entry* e = lookup_read(ctx, ctx.arg(1), Touch::kNo);
  if (!e) {
    ctx.reply.integer(-2);
    return;
  }
  if (e->expire_ms < 0) {
    ctx.reply.integer(-1);
    return;
  }
  long long t = absolute ? e->expire_ms : e->expire_ms - ctx.now_ms;
  if (t < 0) t = 0;
  // Seconds round half up, as Redis's (t + 500) / 1000, without its overflow: PEXPIREAT k
  // 9223372036854775807 makes EXPIRETIME 9223372036854776 (Redis 7.0.15 and 7.4.1 reply that).
  ctx.reply.integer(milliseconds ? t : t / 1000 + (t % 1000 >= 500 ? 1 : 0));
}

void ttl_command(Context& ctx) {
  ttl_generic(ctx, false, false);
}
void pttl_command(Context& ctx) {
  ttl_generic(ctx, true, false);
}
void expiretime_command(Context& ctx) {
  ttl_generic(ctx, false, true);
}
void pexpiretime_command(Context& ctx) {
  ttl_generic(ctx, true, true);
}

void persist_command(Context& ctx) {
  std::string_view key = ctx.arg(1);
  engine::Entry* e = lookup_write(ctx, key);
  if (e && ctx.db().persist(key, *e)) {
    ctx.modified(key, events::kPersist);
    ctx.reply.integer(1);
  } else {
    ctx.reply.integer(0);
  }
}

}  // namespace

void register_expire_commands(CommandTable& t) {
  GroupRows rows(t, "generic");
  constexpr uint32_t kWriteFast = kWrite | kFast;
  constexpr uint32_t kReadFast = kReadonly | kFast;
  rows.add_single_key("expire", -3, kWriteFast, "keyspace write fast", expire_command);
  rows.add_single_key("pexpire", -3, kWriteFast, "keyspace write fast", pexpire_command);
  rows.add_single_key("expireat", -3, kWriteFast, "keyspace write fast", expireat_command);
  rows.add_single_key("pexpireat", -3, kWriteFast, "keyspace write fast", pexpireat_command);
  rows.add_single_key("ttl", 2, kReadFast, "keyspace read fast", ttl_command);
  rows.add_single_key("pttl", 2, kReadFast, "keyspace read fast", pttl_command);
  rows.add_single_key("expiretime", 2, kReadFast, "keyspace read fast", expiretime_command);
  rows.add_single_key("pexpiretime", 2, kReadFast, "keyspace read fast", pexpiretime_command);
  rows.add_single_key("persist", 2, kWriteFast, "keyspace write fast", persist_command);
}

}  // namespace streamd::cmd
