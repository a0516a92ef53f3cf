// XCFGSET (Redis 8.6: a stream's IDMP-DURATION / IDMP-MAXSIZE) and XIDMPRECORD (Redis 8.8's
// internal command: one idempotency record, written to the AOF after each XADD IDMP/IDMPAUTO and
// by the AOF rewrite, so a restart rebuilds the same IDMP table; see engine/idmp.h).
// Both propagate their own argv.
#include <optional>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/stream/commands.h"
#include "streamd/commands/stream/propagation.h"
#include "streamd/commands/stream/support.h"
#include "streamd/engine/idmp.h"

namespace streamd::cmd {

using engine::IdmpTable;
using engine::Stream;
using engine::StreamId;

namespace {

// An option value in [1, max]: the integer error for a malformed one, `range_error` outside.
bool parse_bound(ArgCursor& cur, uint32_t max, std::string_view range_error,
                 std::optional<uint32_t>& out) {
  long long v = 0;
  if (!cur.next_int_in(v, 1, max, range_error)) return false;
  out = static_cast<uint32_t>(v);
  return true;
}

// XCFGSET key [IDMP-DURATION s] [IDMP-MAXSIZE n], checked before the key is looked up.
bool parse_cfgset(ArgCursor& cur, std::optional<uint32_t>& duration,
                  std::optional<uint32_t>& maxsize) {
  while (!cur.done()) {
    // Options come in pairs: a lone last word is a syntax error, whatever it is.
    if (cur.remaining() < 2) return cur.fail(errors::kSyntax);
    if (cur.match("idmp-duration")) {
      if (!parse_bound(cur, IdmpTable::kMaxDurationSec, errors::kIdmpDuration, duration)) {
        return false;
      }
    } else if (cur.match("idmp-maxsize")) {
      if (!parse_bound(cur, IdmpTable::kMaxMaxSize, errors::kIdmpMaxsize, maxsize)) return false;
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  return cur.require(duration || maxsize, errors::kXcfgsetNoOption);
}

void xcfgset(Context& ctx) {
  std::optional<uint32_t> duration, maxsize;
  ArgCursor cur(ctx.argv, 2);
  if (!parse_cfgset(cur, duration, maxsize)) {
    ctx.reply.error(cur.error());
    return;
  }
  if (refuse_without_redis70_form(ctx, "XCFGSET")) return;
  Stream* s = existing_stream(ctx, ctx.arg(1));
  if (!s) return;
  s->idmp_or_create().configure(duration, maxsize);
  ctx.reply.ok();
  // "xcfgset" follows the command's name as every stream event does (unverified: the reference
  // build here predates XCFGSET).
  ctx.modified(ctx.arg(1), events::kXcfgset);
}

void xidmprecord(Context& ctx) {
  StreamId id;
  ArgCursor cur(ctx.argv, 4);  // key pid iid id (a fixed arity)
  if (!next_strict_id(cur, id)) {
    ctx.reply.error(cur.error());
    return;
  }
  if (refuse_without_redis70_form(ctx, "XIDMPRECORD")) return;
  Stream* s = existing_stream(ctx, ctx.arg(1));
  if (!s) return;
  s->idmp_or_create().record(ctx.arg(2), ctx.arg(3), id, static_cast<uint64_t>(ctx.now_ms));
  ctx.reply.ok();
  ctx.mark_dirty();
}

}  // namespace

void register_stream_idmp_commands(CommandTable& t) {
  t.add({"xcfgset",
         -2,
         kWrite | kFast,
         "write stream fast",
         1,
         1,
         1,
         xcfgset,
         {},
         nullptr,
         "stream"});
  t.add({"xidmprecord",
         5,
         kWrite | kDenyOom | kFast,
         "write stream fast",
         1,
         1,
         1,
         xidmprecord,
         {},
         nullptr,
         "stream"});
}

}  // namespace streamd::cmd
