// STREAMD.DEADLETTER (a streamd extension): a consumer group's dead-letter policy, and the
// command side of dead-lettering that the claim commands call (dead_letters.h).
//
//   STREAMD.DEADLETTER SET key group MAXDELIVERIES n STREAM dead-letter-key
//   STREAMD.DEADLETTER GET key group      -> map, or null without a policy
//   STREAMD.DEADLETTER REMOVE key group   -> 1 if the group had a policy, else 0
//   STREAMD.DEADLETTER HELP
//
// Why this name: Redis core commands never contain a dot (dotted names are the modules'
// namespace), so no present or future Redis command can collide with it, while an X-prefixed
// name or an XGROUP subcommand could (Redis keeps adding both). docs/commands.md has the rest.
//
// SET and REMOVE propagate their own argv (the AOF rewrite writes SET after the group's
// records), so the policy survives restarts and reaches replicas; with rdb-version 10 both are
// refused (a Redis 7.0 replica could not follow: stream/propagation.h). SET does not look at the
// dead-letter key: its type is checked when an entry is dead-lettered, so that an AOF whose
// keys were written in another order (the rewrite) always replays the policy.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"
#include "streamd/commands/stream/commands.h"
#include "streamd/commands/stream/dead_letters.h"
#include "streamd/commands/stream/propagation.h"
#include "streamd/commands/stream/support.h"
#include "streamd/engine/consumer_group.h"
#include "streamd/engine/dead_letter.h"

namespace streamd::cmd {

using engine::ConsumerGroup;
using engine::DeadLetter;
using engine::Stream;
using engine::StreamId;

// ---- the claim commands' side ----------------------------------------------------------------

bool dead_letter_ready(Context& ctx, const ConsumerGroup& g) {
  const engine::DeadLetterPolicy* p = g.dead_letter();
  if (!p) return true;
  bool replied = false;
  const Stream* dl = find_stream(ctx, p->stream, replied);  // WRONGTYPE replied
  if (replied) return false;
  if (engine::Err err = engine::dead_letter_stream_ready(dl); err != engine::Err::kOk) {
    ctx.reply.error(errors::text(err));
    return false;
  }
  return true;
}

void deliver_dead_letters(Context& ctx, std::string_view key, const ConsumerGroup& g,
                          std::span<const DeadLetter> letters) {
  if (letters.empty()) return;
  const engine::DeadLetterPolicy* p = g.dead_letter();
  // The engine only hands out letters for a group with a policy, and dead_letter_ready() ran.
  if (!p) return;
  const std::string& dl_key = p->stream;  // nothing below changes the policy
  bool replied = false;
  Stream* dl = find_or_create_stream(ctx, dl_key, true, replied);
  if (!dl) return;  // ruled out by dead_letter_ready()
  std::vector<StreamId> ids =
      engine::append_dead_letters(*dl, key, g.name(), letters, static_cast<uint64_t>(ctx.now_ms));
  ctx.server.stats().dead_lettered += letters.size();
  if (ctx.propagating()) {
    std::vector<std::string> text;
    std::vector<std::string_view> argv;
    for (std::size_t i = 0; i < letters.size(); ++i) {
      if (ids[i] == StreamId{}) continue;  // not appended (see append_dead_letters)
      std::vector<engine::FieldValue> fields;
      if (!dl->lookup(ids[i], fields)) continue;
      std::string id = ids[i].to_string();
      argv.assign({"XADD", dl_key, id});
      for (const auto& fv : fields) argv.insert(argv.end(), {fv.field, fv.value});
      ctx.propagate(std::span<const std::string_view>(argv));
    }
    for (const DeadLetter& d : letters) text.push_back(d.id.to_string());
    argv.assign({"XACK", key, g.name()});
    argv.insert(argv.end(), text.begin(), text.end());
    ctx.propagate(std::span<const std::string_view>(argv));
  } else {
    ctx.propagate_nothing();
  }
  // XADD's signal (blocked readers of the dead-letter stream, WATCH) and event; XACK has none.
  ctx.modified(dl_key, events::kXadd, letters.size());
  ctx.mark_dirty(letters.size());
}

std::size_t dead_letter_info_pairs(const ConsumerGroup& g) {
  return g.dead_letter() ? 2 : 0;
}

void write_dead_letter_info(resp::ReplyWriter& w, const ConsumerGroup& g) {
  const engine::DeadLetterPolicy* p = g.dead_letter();
  if (!p) return;
  w.bulk("max-deliveries");
  w.integer(static_cast<long long>(p->max_deliveries));
  w.bulk("dead-letter-stream");
  w.bulk(p->stream);
}

namespace {

// ---- STREAMD.DEADLETTER ----------------------------------------------------------------------

// MAXDELIVERIES n and STREAM key, in any order, each once or more (the last one wins, as
// Redis's option loops do).
bool parse_set(ArgCursor& cur, engine::DeadLetterPolicy& out) {
  bool have_max = false, have_stream = false;
  while (!cur.done()) {
    if (cur.match("maxdeliveries", 1)) {
      long long n = 0;
      if (!cur.next_int_in(n, 1, std::numeric_limits<long long>::max(),
                           errors::kDeadLetterMaxDeliveries)) {
        return false;
      }
      out.max_deliveries = static_cast<uint64_t>(n);
      have_max = true;
    } else if (cur.match("stream", 1)) {
      out.stream = std::string(cur.next());
      have_stream = true;
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  return cur.require(have_max && have_stream, errors::kDeadLetterMissingOption);
}

// The group named by `<subcommand> key group`: NOGROUP for a missing key or group, WRONGTYPE.
ConsumerGroup* policy_group(Context& ctx) {
  bool replied = false;
  Stream* s = find_stream(ctx, ctx.arg(2), replied);
  if (replied) return nullptr;
  ConsumerGroup* g = s ? s->groups().find(ctx.arg(3)) : nullptr;
  if (!g) ctx.reply.error(errors::nogroup_key_or_group(ctx.arg(2), ctx.arg(3)));
  return g;
}

void deadletter_set(Context& ctx) {
  engine::DeadLetterPolicy policy;
  ArgCursor cur(ctx.argv, 4);
  if (!parse_set(cur, policy)) {
    ctx.reply.error(cur.error());
    return;
  }
  if (refuse_without_redis70_form(ctx, "STREAMD.DEADLETTER SET")) return;
  ConsumerGroup* g = policy_group(ctx);
  if (!g) return;
  // Dead letters would come back to the group as new entries, for ever.
  if (policy.stream == ctx.arg(2)) {
    ctx.reply.error(errors::kDeadLetterSameKey);
    return;
  }
  g->set_dead_letter(std::move(policy));
  ctx.reply.ok();
  ctx.modified(ctx.arg(2));  // WATCH; propagates this argv
}

void deadletter_get(Context& ctx) {
  ConsumerGroup* g = policy_group(ctx);
  if (!g) return;
  const engine::DeadLetterPolicy* p = g->dead_letter();
  if (!p) {
    ctx.reply.null();
    return;
  }
  resp::ReplyWriter& w = ctx.reply;
  w.map(3);
  w.bulk("max-deliveries");
  w.integer(static_cast<long long>(p->max_deliveries));
  w.bulk("stream");
  w.bulk(p->stream);
  w.bulk("dead-lettered");
  w.integer(static_cast<long long>(p->dead_lettered));
}

void deadletter_remove(Context& ctx) {
  if (refuse_without_redis70_form(ctx, "STREAMD.DEADLETTER REMOVE")) return;
  ConsumerGroup* g = policy_group(ctx);
  if (!g) return;
  const bool had = g->dead_letter() != nullptr;
  g->set_dead_letter(std::nullopt);
  ctx.reply.integer(had ? 1 : 0);
  if (had) ctx.modified(ctx.arg(2));
}

void deadletter_help(Context& ctx) {
  reply_help(ctx.reply, "STREAMD.DEADLETTER",
             {
                 "SET <key> <groupname> MAXDELIVERIES <count> STREAM <deadletterkey>",
                 "    Move an entry of the group to the dead-letter stream instead of handing it",
                 "    out once more than <count> times (XREADGROUP CLAIM, XCLAIM, XAUTOCLAIM),",
                 "    and entries released by XNACK FATAL.",
                 "GET <key> <groupname>",
                 "    Show the group's dead-letter settings and how many entries it moved.",
                 "REMOVE <key> <groupname>",
                 "    Remove the group's dead-letter settings.",
             });
}

}  // namespace

void register_stream_dead_letter_commands(CommandTable& t) {
  t.add({"streamd.deadletter",
         -2,
         0,
         "slow",
         0,
         0,
         0,
         nullptr,
         {
             {"get", 4, kReadonly, "read stream slow", 2, 2, 1, deadletter_get},
             {"help", 2, kLoading | kStale, "stream slow", 0, 0, 0, deadletter_help},
             {"remove", 4, kWrite, "write stream slow", 2, 2, 1, deadletter_remove},
             {"set", -8, kWrite | kDenyOom, "write stream slow", 2, 2, 1, deadletter_set},
         },
         nullptr,
         "stream"});
}

}  // namespace streamd::cmd
