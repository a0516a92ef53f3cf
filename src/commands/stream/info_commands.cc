// XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS, XINFO HELP.
#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"
#include "streamd/commands/stream/commands.h"
#include "streamd/commands/stream/group_render.h"
#include "streamd/commands/stream/support.h"
#include "streamd/engine/idmp.h"

namespace streamd::cmd {

using engine::Stream;
using engine::StreamId;

namespace {

void write_first_or_last(resp::ReplyWriter& w, const Stream& s, bool last) {
  bool found = false;
  auto visit = [&](StreamId id, std::span<const engine::FieldValue> fields) {
    write_entry(w, id, fields);
    found = true;
  };
  if (last) {
    s.last_entry(visit);
  } else {
    s.first_entry(visit);
  }
  if (!found) w.null();
}

void xinfo_stream(Context& ctx) {
  // The key is looked up before the options are read (as in Redis): a missing key is "no such
  // key" whatever follows it. Options are FULL or FULL COUNT n; anything else is the
  // subcommand-syntax error naming the subcommand as the client spelled it.
  Stream* s = existing_stream(ctx, ctx.arg(2), StreamLookup::kRead);
  if (!s) return;
  bool full = false;
  long long count = 10;
  ArgCursor cur(ctx.argv, 3);
  if (!cur.done()) {
    // Exactly FULL or FULL COUNT n (COUNT 0 is all entries, a negative COUNT the default 10).
    if ((cur.remaining() != 1 && cur.remaining() != 3) || !cur.match("full") ||
        (!cur.done() && !cur.match("count"))) {
      ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "XINFO"));
      return;
    }
    full = true;
    if (!cur.done()) {
      if (!cur.next_int(count)) {
        ctx.reply.error(cur.error());
        return;
      }
      if (count < 0) count = 10;
    }
  }
  // Redis 8.6+: every stream carries the IDMP fields (redis-py 8.1.0's tests expect them with
  // their defaults on a stream that never used IDMP), after recorded-first-entry-id.
  engine::IdmpTable* idmp = s->idmp();
  if (idmp) idmp->expire_all(static_cast<uint64_t>(ctx.now_ms));
  resp::ReplyWriter& w = ctx.reply;
  w.map(full ? 15 : 16);
  w.bulk("length");
  w.integer(static_cast<long long>(s->length()));
  w.bulk("radix-tree-keys");
  w.integer(static_cast<long long>(s->radix_tree_keys()));
  w.bulk("radix-tree-nodes");
  w.integer(static_cast<long long>(s->radix_tree_nodes()));
  w.bulk("last-generated-id");
  write_id(w, s->last_id());
  w.bulk("max-deleted-entry-id");
  write_id(w, s->max_deleted_entry_id());
  w.bulk("entries-added");
  w.integer(static_cast<long long>(s->entries_added()));
  w.bulk("recorded-first-entry-id");
  write_id(w, s->first_id());
  w.bulk("idmp-duration");
  w.integer(idmp ? idmp->duration_sec() : engine::IdmpTable::kDefaultDurationSec);
  w.bulk("idmp-maxsize");
  w.integer(idmp ? idmp->maxsize() : engine::IdmpTable::kDefaultMaxSize);
  w.bulk("pids-tracked");
  w.integer(idmp ? static_cast<long long>(idmp->pids_tracked()) : 0);
  w.bulk("iids-tracked");
  w.integer(idmp ? static_cast<long long>(idmp->iids_tracked()) : 0);
  w.bulk("iids-added");
  w.integer(idmp ? static_cast<long long>(idmp->iids_added()) : 0);
  w.bulk("iids-duplicates");
  w.integer(idmp ? static_cast<long long>(idmp->iids_duplicates()) : 0);
  if (!full) {
    w.bulk("groups");
    w.integer(static_cast<long long>(s->group_count()));
    w.bulk("first-entry");
    write_first_or_last(w, *s, false);
    w.bulk("last-entry");
    write_first_or_last(w, *s, true);
    return;
  }
  w.bulk("entries");
  write_range(w, *s, StreamId::min(), StreamId::max(), static_cast<std::size_t>(count),
              engine::Direction::kForward);
  w.bulk("groups");
  write_groups_full(ctx, *s, static_cast<std::size_t>(count));
}

void xinfo_groups(Context& ctx) {
  Stream* s = existing_stream(ctx, ctx.arg(2), StreamLookup::kRead);
  if (!s) return;
  write_groups_summary(ctx, *s);
}

void xinfo_consumers(Context& ctx) {
  Stream* s = existing_stream(ctx, ctx.arg(2), StreamLookup::kRead);
  if (!s) return;
  write_consumers(ctx, *s, ctx.arg(3));
}

void xinfo_help(Context& ctx) {
  reply_help(ctx.reply, "XINFO",
             {
                 "CONSUMERS <key> <groupname>",
                 "    Show consumers of <groupname>.",
                 "GROUPS <key>",
                 "    Show the stream consumer groups.",
                 "STREAM <key> [FULL [COUNT <count>]",
                 "    Show information about the stream.",
             });
}

}  // namespace

void register_stream_info_commands(CommandTable& t) {
  t.add({"xinfo",
         -2,
         0,
         "slow",
         0,
         0,
         0,
         nullptr,
         {
             {"consumers", 4, kReadonly, "read stream slow", 2, 2, 1, xinfo_consumers},
             {"groups", 3, kReadonly, "read stream slow", 2, 2, 1, xinfo_groups},
             {"help", 2, kLoading | kStale, "stream slow", 0, 0, 0, xinfo_help},
             {"stream", -3, kReadonly, "read stream slow", 2, 2, 1, xinfo_stream},
         },
         nullptr,
         "stream"});
}

}  // namespace streamd::cmd
