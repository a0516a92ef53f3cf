// DUMP and RESTORE (RESTORE-ASKING is the same command for cluster migrations). The payload
// format belongs to persist/ (cmd::ValueCodec); this file has Redis's argument order, checks,
// keyspace effects and propagation (observed from redis-server 7.0.15):
//   - options are parsed first (syntax, IDLETIME/FREQ ranges; IDLETIME and FREQ exclude each
//     other), then BUSYKEY, then the TTL, then the payload;
//   - a TTL already in the past creates nothing: with REPLACE the old key is deleted and the
//     command propagates as DEL, otherwise it propagates nothing, and either way replies OK;
//   - a relative TTL propagates as an absolute one with ABSTTL appended, so replicas and the AOF
//     get the same expiry whenever they apply it.
#include <limits>
#include <string>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/keyspace/keyspace_support.h"
#include "streamd/commands/stream/support.h"

namespace streamd::cmd {

namespace {

struct RestoreOptions {
  bool replace = false;
  bool absttl = false;
  long long idle_s = -1;  // IDLETIME, -1 when not given
  long long freq = -1;    // FREQ, -1 when not given
};

bool parse_restore_options(ArgCursor& cur, RestoreOptions& o) {
  while (!cur.done()) {
    if (cur.match("replace")) {
      o.replace = true;
    } else if (cur.match("absttl")) {
      o.absttl = true;
    } else if (o.freq == -1 && cur.match("idletime", 1)) {
      if (!cur.next_int(o.idle_s) || !cur.require(o.idle_s >= 0, errors::kInvalidIdletime)) {
        return false;
      }
    } else if (o.idle_s == -1 && cur.match("freq", 1)) {
      if (!cur.next_int_in(o.freq, 0, 255, errors::kInvalidFreq)) return false;
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  return true;
}

void dump_command(Context& ctx) {
  const ValueCodec* codec = ctx.server.value_codec();
  if (!codec) {
    ctx.reply.error(errors::kNoValueCodec);
    return;
  }
  engine::Entry* e = lookup_read(ctx, ctx.arg(1));
  if (!e) {
    ctx.reply.null();
    return;
  }
  const config::Config& cfg = ctx.server.config();
  ctx.reply.bulk(codec->dump(e->value, static_cast<int>(cfg.ref<std::int64_t>("rdb-version")),
                             cfg.ref<bool>("rdbcompression")));
}

void restore_command(Context& ctx) {
  RestoreOptions opt;
  ArgCursor cur(ctx.argv, 4);
  if (!parse_restore_options(cur, opt)) {
    ctx.reply.error(cur.error());
    return;
  }
  std::string_view key = ctx.arg(1);
  if (!opt.replace && lookup_write(ctx, key)) {
    ctx.reply.error(errors::kBusyKey);
    return;
  }
  auto ttl = parse_int(ctx.arg(2));
  if (!ttl) {
    ctx.reply.error(errors::kNotInteger);
    return;
  }
  if (*ttl < 0) {
    ctx.reply.error(errors::kInvalidTtl);
    return;
  }
  const ValueCodec* codec = ctx.server.value_codec();
  if (!codec) {
    ctx.reply.error(errors::kNoValueCodec);
    return;
  }
  engine::Value value{std::string()};
  switch (codec->restore(ctx.arg(3), configured_stream_limits(ctx),
                         static_cast<uint64_t>(ctx.now_ms), &value)) {
    case ValueCodec::Status::kOk:
      break;
    case ValueCodec::Status::kBadVersionOrChecksum:
      ctx.reply.error(errors::kDumpPayloadBad);
      return;
    case ValueCodec::Status::kBadData:
      ctx.reply.error(errors::kBadDataFormat);
      return;
  }

  bool deleted = opt.replace && ctx.db().erase(key);
  long long when = *ttl;
  bool expired = false;
  if (when != 0 && !opt.absttl) {
    // Redis adds the time without an overflow check, so a sum past the range wraps to a time in
    // the past: the key is not created. Say the same without the undefined behaviour.
    if (when > std::numeric_limits<long long>::max() - ctx.now_ms) {
      expired = true;
    } else {
      when += ctx.now_ms;
    }
  }
  if (when != 0 && when <= ctx.now_ms) expired = true;
  if (expired) {
    if (deleted) {
      ctx.propagate({"DEL", key});
      ctx.modified(key, events::kDel);
    } else {
      ctx.propagate_nothing();
    }
    ctx.reply.ok();
    return;
  }

  engine::Entry& e = ctx.db().set_with_expiry(key, std::move(value), when != 0 ? when : -1);
  if (when != 0) {
    if (!opt.absttl) {
      std::vector<std::string_view> argv(ctx.argv.begin(), ctx.argv.end());
      std::string abs = std::to_string(when);
      argv[2] = abs;
      argv.push_back("ABSTTL");
      ctx.propagate(std::span<const std::string_view>(argv));
    }
  }
  // Under an LFU policy Redis keeps FREQ and ignores IDLETIME; otherwise the reverse.
  const bool lfu = ctx.db().access_tracking() == engine::AccessTracking::kLfu;
  if (opt.idle_s >= 0 && !lfu) {
    // OBJECT IDLETIME counts whole seconds back from now.
    long long max_idle = ctx.now_ms / 1000;
    e.access_ms = ctx.now_ms - (opt.idle_s < max_idle ? opt.idle_s : max_idle) * 1000;
  }
  if (opt.freq >= 0 && lfu) {
    e.access_ms = engine::lfu_with_counter(static_cast<uint8_t>(opt.freq), ctx.now_ms);
  }
  ctx.modified(key, events::kRestore);
  ctx.reply.ok();
}

}  // namespace

void register_dump_commands(CommandTable& t) {
  GroupRows generic(t, "generic");
  GroupRows server(t, "server");
  generic.add_single_key("dump", 2, kReadonly, "keyspace read slow", dump_command);
  generic.add_single_key("restore", -4, kWrite | kDenyOom, "keyspace write slow dangerous",
                         restore_command);
  server.add_single_key("restore-asking", -4, kWrite | kDenyOom | kAsking,
                        "keyspace write slow dangerous", restore_command);
}

}  // namespace streamd::cmd
