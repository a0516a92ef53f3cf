// XCFGSET (Redis 8.6: a stream's IDMP-DURATION / IDMP-MAXSIZE) and XIDMPRECORD (Redis 8.8's
// internal command: one idempotency record, written to the AOF after each XADD IDMP/IDMPAUTO and
// by the AOF rewrite, so a restart rebuilds the same IDMP table; see engine/idmp.h).
// Both propagate their own argv.
#include <optional>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/stream/commands.h"
#include "streamd/commands/stream/support.h"
#include "streamd/engine/idmp.h"

namespace streamd::cmd {

using engine::IdmpTable;
using engine::Stream;
using engine::StreamId;

namespace {

// An option value in [1, max]; replies the range error (or the integer error) otherwise.
bool parse_bound(Context& ctx, std::string_view arg, uint32_t max, std::string_view range_error,
                 std::optional<uint32_t>& out) {
  auto v = parse_int(arg);
  if (!v) {
    ctx.reply.error(errors::kNotInteger);
    return false;
  }
  if (*v < 1 || *v > static_cast<long long>(max)) {
    ctx.reply.error(range_error);
    return false;
  }
  out = static_cast<uint32_t>(*v);
  return true;
}

void xcfgset(Context& ctx) {
  std::optional<uint32_t> duration, maxsize;
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    std::string_view opt = ctx.arg(i);
    if (i + 1 >= ctx.argc()) {
      ctx.reply.error(errors::kSyntax);
      return;
    }
    if (iequals(opt, "idmp-duration")) {
      if (!parse_bound(ctx, ctx.arg(i + 1), IdmpTable::kMaxDurationSec, errors::kIdmpDuration,
                       duration)) {
        return;
      }
    } else if (iequals(opt, "idmp-maxsize")) {
      if (!parse_bound(ctx, ctx.arg(i + 1), IdmpTable::kMaxMaxSize, errors::kIdmpMaxsize,
                       maxsize)) {
        return;
      }
    } else {
      ctx.reply.error(errors::kSyntax);
      return;
    }
  }
  if (!duration && !maxsize) {
    ctx.reply.error(errors::kXcfgsetNoOption);
    return;
  }
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
  if (!parse_strict_id_or_reply(ctx, ctx.arg(4), id)) return;
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
