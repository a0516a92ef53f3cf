// Counters on string values: INCR, DECR, INCRBY, DECRBY, INCRBYFLOAT. A counter keeps the key's
// TTL. Integer results are stored as Redis's int encoding (shared for 0..9999); INCRBYFLOAT
// stores the formatted number as a plain string, as Redis does.
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/keyspace/keyspace_support.h"

namespace streamd::cmd {

void register_string_counter_commands(CommandTable& t);

namespace {

// Replaces the value of `key` keeping its TTL (or creates the key) and signals the change as
// `ev` (incrby for every integer counter, as in Redis; incrbyfloat).
void store_counter(Context& ctx, std::string_view key, engine::Entry* e, std::string text,
                   engine::StrEncoding enc, const KeyspaceEvent& ev) {
  if (e) {
    e->value = engine::Value(std::move(text), enc);
  } else {
    ctx.db().set(key, engine::Value(std::move(text), enc));
  }
  ctx.modified(key, ev);
}

void incr_by(Context& ctx, long long incr) {
  constexpr long long kMax = std::numeric_limits<long long>::max();
  constexpr long long kMin = std::numeric_limits<long long>::min();
  std::string_view key = ctx.arg(1);
  engine::Entry* e = lookup_write(ctx, key);
  long long value = 0;
  if (e) {
    if (!e->value.is_string()) {
      ctx.reply.error(errors::kWrongType);
      return;
    }
    auto v = parse_int(e->value.str());
    if (!v) {
      ctx.reply.error(errors::kNotInteger);
      return;
    }
    value = *v;
  }
  if ((incr < 0 && value < 0 && incr < kMin - value) ||
      (incr > 0 && value > 0 && incr > kMax - value)) {
    ctx.reply.error(errors::kOverflow);
    return;
  }
  value += incr;
  bool shared = value >= 0 && value < 10000 && ctx.db().shared_integers();
  store_counter(ctx, key, e, std::to_string(value),
                shared ? engine::StrEncoding::kSharedInt : engine::StrEncoding::kInt,
                events::kIncrBy);
  ctx.reply.integer(value);
}

void incr_command(Context& ctx) {
  incr_by(ctx, 1);
}
void decr_command(Context& ctx) {
  incr_by(ctx, -1);
}

void incrby_command(Context& ctx) {
  if (auto v = int_arg_or_reply(ctx, ctx.arg(2))) incr_by(ctx, *v);
}

void decrby_command(Context& ctx) {
  auto v = int_arg_or_reply(ctx, ctx.arg(2));
  if (!v) return;
  if (*v == std::numeric_limits<long long>::min()) {
    ctx.reply.error(errors::kDecrementOverflow);
    return;
  }
  incr_by(ctx, -*v);
}

// Redis's "human friendly" long double text: 17 decimals, then trailing zeros (and a trailing
// point) removed; "-0" becomes "0".
std::string format_long_double(long double v) {
  char buf[5200];
  int n = std::snprintf(buf, sizeof buf, "%.17Lf", v);
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf) return std::string();
  std::string s(buf, static_cast<std::size_t>(n));
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s.erase(0, 1);  // not s = "0": GCC 12 warns falsely (-Wrestrict) on that

  return s;
}

void incrbyfloat_command(Context& ctx) {
  std::string_view key = ctx.arg(1);
  engine::Entry* e = lookup_write(ctx, key);
  long double value = 0;
  if (e) {
    if (!e->value.is_string()) {
      ctx.reply.error(errors::kWrongType);
      return;
    }
    auto v = parse_long_double(e->value.str());
    if (!v) {
      ctx.reply.error(errors::kNotFloat);
      return;
    }
    value = *v;
  }
  auto incr = parse_long_double(ctx.arg(2));
  if (!incr) {
    ctx.reply.error(errors::kNotFloat);
    return;
  }
  value += *incr;
  if (std::isnan(value) || std::isinf(value)) {
    ctx.reply.error(errors::kNanOrInf);
    return;
  }
  std::string text = format_long_double(value);
  ctx.reply.bulk(text);
  auto enc = engine::Value::plain_encoding_for(text.size());
  store_counter(ctx, key, e, std::move(text), enc, events::kIncrByFloat);
}

}  // namespace

void register_string_counter_commands(CommandTable& t) {
  GroupRows rows(t, "string");
  constexpr uint32_t kCounter = kWrite | kDenyOom | kFast;
  rows.add_single_key("incr", 2, kCounter, "write string fast", incr_command);
  rows.add_single_key("decr", 2, kCounter, "write string fast", decr_command);
  rows.add_single_key("incrby", 3, kCounter, "write string fast", incrby_command);
  rows.add_single_key("decrby", 3, kCounter, "write string fast", decrby_command);
  rows.add_single_key("incrbyfloat", 3, kCounter, "write string fast", incrbyfloat_command);
}

}  // namespace streamd::cmd
