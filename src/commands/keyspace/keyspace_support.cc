#include "streamd/commands/keyspace/keyspace_support.h"

#include <bit>
#include <limits>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/engine/stream.h"

namespace streamd::cmd {

engine::Entry* lookup_read(Context& ctx, std::string_view key, Touch touch, bool miss_event) {
  bool record =
      touch == Touch::kAlways || (touch == Touch::kUnlessNoTouch && !ctx.session.no_touch);
  engine::Entry* e = ctx.db().find(key, record);
  if (e) {
    ++ctx.server.stats().keyspace_hits;
  } else {
    ++ctx.server.stats().keyspace_misses;
    if (miss_event) ctx.notify(events::kKeyMiss, key);
  }
  return e;
}

engine::Entry* lookup_write(Context& ctx, std::string_view key) {
  return ctx.db().find(key, !ctx.session.no_touch);
}

engine::Entry* lookup_string_or_reply(Context& ctx, std::string_view key) {
  engine::Entry* e = lookup_read(ctx, key);
  if (!e) {
    ctx.reply.null();
    return nullptr;
  }
  if (!e->value.is_string()) {
    ctx.reply.error(errors::kWrongType);
    return nullptr;
  }
  return e;
}

std::optional<long long> int_arg_or_reply(Context& ctx, std::string_view arg) {
  auto v = parse_int(arg);
  if (!v) ctx.reply.error(errors::kNotInteger);
  return v;
}

std::optional<int64_t> expire_arg_or_reply(Context& ctx, std::string_view arg, ExpireUnit unit,
                                           bool relative) {
  constexpr long long kMax = std::numeric_limits<long long>::max();
  auto v = int_arg_or_reply(ctx, arg);
  if (!v) return std::nullopt;
  long long ms = *v;
  bool bad = ms <= 0 || (unit == ExpireUnit::kSeconds && ms > kMax / 1000);
  if (!bad) {
    if (unit == ExpireUnit::kSeconds) ms *= 1000;
    if (relative) {
      if (ms > kMax - ctx.now_ms) {
        bad = true;
      } else {
        ms += ctx.now_ms;
      }
    }
  }
  if (bad) {
    ctx.reply.error(errors::invalid_expire_time(ctx.spec.full_name));
    return std::nullopt;
  }
  return ms;
}

std::string_view type_name(const engine::Value& v) {
  return v.is_stream() ? "stream" : "string";
}

std::string_view encoding_name(const engine::Value& v) {
  if (v.is_stream()) return "stream";
  switch (v.str_encoding()) {
    case engine::StrEncoding::kInt:
    case engine::StrEncoding::kSharedInt:
      return "int";
    case engine::StrEncoding::kEmbstr:
      return "embstr";
    case engine::StrEncoding::kRaw:
      break;
  }
  return "raw";
}

long long object_refcount(const engine::Value& v) {
  // Redis's objects from its shared pool (they are never freed) have refcount INT_MAX.
  bool shared = v.is_string() && v.str_encoding() == engine::StrEncoding::kSharedInt;
  return shared ? std::numeric_limits<int>::max() : 1;
}

std::size_t allocation_size(std::size_t n) {
  // jemalloc 5 size classes on x86-64 (16-byte quantum): 8, then multiples of 16 up to 128,
  // then four classes per doubling.
  if (n <= 8) return 8;
  if (n <= 128) return (n + 15) & ~std::size_t{15};
  std::size_t step = std::bit_floor(n - 1) / 4;
  return (n + step - 1) / step * step;
}

namespace {

constexpr std::size_t kObjectHeader = 16;  // Redis's robj
constexpr std::size_t kDictEntry = 24;

std::size_t sds_header(std::size_t len, bool allow_tiny) {
  if (allow_tiny && len > 0 && len < 32) return 1;
  if (len < (1u << 8)) return 3;
  if (len < (1u << 16)) return 5;
  if (len < (1ull << 32)) return 9;
  return 17;
}

}  // namespace

std::size_t value_memory_usage(const engine::Value& v) {
  if (v.is_stream()) return v.stream().memory_usage();
  std::size_t len = v.str().size();
  switch (v.str_encoding()) {
    case engine::StrEncoding::kInt:
    case engine::StrEncoding::kSharedInt:
      return kObjectHeader;
    case engine::StrEncoding::kEmbstr:
      return allocation_size(kObjectHeader + 3 + len + 1);
    case engine::StrEncoding::kRaw:
      break;
  }
  return kObjectHeader + allocation_size(sds_header(len, false) + len + 1);
}

std::size_t key_memory_usage(std::string_view key, const engine::Value& v) {
  std::size_t key_bytes = allocation_size(sds_header(key.size(), true) + key.size() + 1);
  return value_memory_usage(v) + key_bytes + kDictEntry;
}

}  // namespace streamd::cmd
