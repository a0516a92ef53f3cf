// Pub/sub commands: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, SSUBSCRIBE, SUNSUBSCRIBE,
// PUBLISH, SPUBLISH and the PUBSUB container. Confirmations are one push frame per channel
// (`*3` in RESP2, `>3` in RESP3), written through the reply writer like any reply; messages go
// through PubSub::publish (pubsub.h). Replies follow newest Redis (checked against a Redis built
// from its main branch and redis-server 7.0.15; docs/commands.md lists the differences).
#include <string>
#include <vector>

#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/pubsub/pubsub.h"

namespace streamd::cmd {

namespace {

std::string_view confirmation(PubSubKind kind, bool subscribing) {
  switch (kind) {
    case PubSubKind::kChannel:
      return subscribing ? "subscribe" : "unsubscribe";
    case PubSubKind::kPattern:
      return subscribing ? "psubscribe" : "punsubscribe";
    case PubSubKind::kShard:
      return subscribing ? "ssubscribe" : "sunsubscribe";
  }
  return {};
}

// [kind, name (null when there was nothing to unsubscribe from), count of this family]
void confirm(Context& ctx, PubSubKind kind, bool subscribing, const std::string_view* name) {
  ctx.reply.push(3);
  ctx.reply.bulk(confirmation(kind, subscribing));
  if (name) {
    ctx.reply.bulk(*name);
  } else {
    ctx.reply.null();
  }
  ctx.reply.integer(
      static_cast<long long>(ctx.session.subs ? ctx.session.subs->count_for(kind) : 0));
}

// Handlers are instantiated per kind (the table wants plain function pointers).
template <PubSubKind kind>
void subscribe_to(Context& ctx) {
  PubSub& ps = ctx.server.pubsub();
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    std::string_view name = ctx.arg(i);
    ps.subscribe(ctx.session, kind, name);
    confirm(ctx, kind, true, &name);
  }
}

template <PubSubKind kind>
void unsubscribe_from(Context& ctx) {
  PubSub& ps = ctx.server.pubsub();
  if (ctx.argc() > 1) {
    for (std::size_t i = 1; i < ctx.argc(); ++i) {
      std::string_view name = ctx.arg(i);
      ps.unsubscribe(ctx.session, kind, name);
      confirm(ctx, kind, false, &name);
    }
    return;
  }
  // No argument: every subscription of this family, one confirmation each, or a single one
  // with a null name when there is none.
  Subscriptions* subs = ctx.session.subs.get();
  if (!subs || subs->of(kind).empty()) return confirm(ctx, kind, false, nullptr);
  std::vector<std::string> names(subs->of(kind).names().begin(), subs->of(kind).names().end());
  for (const std::string& n : names) {
    ps.unsubscribe(ctx.session, kind, n);
    std::string_view name = n;
    confirm(ctx, kind, false, &name);
  }
}

void ssubscribe(Context& ctx) {
  // Redis refuses SSUBSCRIBE to a client that must get one reply per command, which includes a
  // command run by EXEC (SUBSCRIBE and PSUBSCRIBE are let through there for compatibility).
  if (ctx.session.executing) return ctx.reply.error(errors::kSsubscribeDenyBlocking);
  subscribe_to<PubSubKind::kShard>(ctx);
}
// Both go to the replicas too (never the AOF), so that a replica's subscribers hear what is
// published on its master, as Redis does outside cluster mode; they propagate as the client
// named them.
void publish(Context& ctx) {
  ctx.reply.integer(static_cast<long long>(ctx.server.pubsub().publish(ctx.arg(1), ctx.arg(2))));
  ctx.server.propagate_to_replicas(ctx.session.db, {ctx.arg(0), ctx.arg(1), ctx.arg(2)});
}

void spublish(Context& ctx) {
  ctx.reply.integer(static_cast<long long>(ctx.server.pubsub().spublish(ctx.arg(1), ctx.arg(2))));
  ctx.server.propagate_to_replicas(ctx.session.db, {ctx.arg(0), ctx.arg(1), ctx.arg(2)});
}

// ---- PUBSUB ------------------------------------------------------------------------------------

template <PubSubKind kind>
void list_active(Context& ctx) {
  if (ctx.argc() > 3)
    return ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "PUBSUB"));
  std::optional<std::string_view> pattern;
  if (ctx.argc() == 3) pattern = ctx.arg(2);
  std::vector<std::string_view> names = ctx.server.pubsub().active(kind, pattern);
  ctx.reply.array(names.size());
  for (std::string_view n : names) ctx.reply.bulk(n);
}

template <PubSubKind kind>
void count_subscribers(Context& ctx) {
  // A flat [name, count, ...] array in both protocols, as Redis sends it (not a map).
  ctx.reply.array((ctx.argc() - 2) * 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    ctx.reply.bulk(ctx.arg(i));
    ctx.reply.integer(static_cast<long long>(ctx.server.pubsub().subscribers(kind, ctx.arg(i))));
  }
}

void pubsub_numpat(Context& ctx) {
  ctx.reply.integer(static_cast<long long>(ctx.server.pubsub().pattern_count()));
}

void pubsub_help(Context& ctx) {
  // Newest Redis's text ("Print this help."; 7.0.15 says "Prints this help.").
  static constexpr std::string_view kLines[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]",
      "    Return the currently active shard level channels matching a <pattern> (default: '*').",
      "SHARDNUMSUB [<shardchannel> ...]",
      "    Return the number of subscribers for the specified shard level channel(s)",
      "HELP",
      "    Print this help.",
  };
  ctx.reply.array(std::size(kLines));
  for (auto l : kLines) ctx.reply.simple(l);
}

constexpr uint32_t kSubscribeFlags = kPubsub | kNoScript | kLoading | kStale;
// may_replicate (hidden from COMMAND INFO, as Redis): a CLIENT PAUSE WRITE holds a publish.
constexpr uint32_t kPublishFlags = kPubsub | kLoading | kStale | kFast | kMayReplicate;
constexpr uint32_t kIntrospectFlags = kPubsub | kLoading | kStale;

}  // namespace

void register_pubsub_commands(CommandTable& t) {
  // The shard forms name their channels as keys (cluster routing), as Redis's table does.
  struct Row {
    std::string_view name;
    int arity;
    uint32_t flags;
    std::string_view acl;
    int first_key, last_key;
    Handler handler;
  };
  const Row rows[] = {
      {"subscribe", -2, kSubscribeFlags, "pubsub slow", 0, 0, subscribe_to<PubSubKind::kChannel>},
      {"unsubscribe", -1, kSubscribeFlags, "pubsub slow", 0, 0,
       unsubscribe_from<PubSubKind::kChannel>},
      {"psubscribe", -2, kSubscribeFlags, "pubsub slow", 0, 0, subscribe_to<PubSubKind::kPattern>},
      {"punsubscribe", -1, kSubscribeFlags, "pubsub slow", 0, 0,
       unsubscribe_from<PubSubKind::kPattern>},
      {"ssubscribe", -2, kSubscribeFlags, "pubsub slow", 1, -1, ssubscribe},
      {"sunsubscribe", -1, kSubscribeFlags, "pubsub slow", 1, -1,
       unsubscribe_from<PubSubKind::kShard>},
      {"publish", 3, kPublishFlags, "pubsub fast", 0, 0, publish},
      {"spublish", 3, kPublishFlags, "pubsub fast", 1, 1, spublish},
  };
  for (const Row& r : rows) {
    int step = r.first_key ? 1 : 0;
    t.add({r.name,
           r.arity,
           r.flags,
           r.acl,
           r.first_key,
           r.last_key,
           step,
           r.handler,
           {},
           nullptr,
           "pubsub"});
  }
  t.add({.name = "pubsub",
         .arity = -2,
         .flags = 0,
         .acl_categories = "slow",
         .first_key = 0,
         .last_key = 0,
         .step = 0,
         .handler = nullptr,
         .subcommands =
             {
                 {"channels", -2, kIntrospectFlags, "pubsub slow", 0, 0, 0,
                  list_active<PubSubKind::kChannel>},
                 {"help", 2, kLoading | kStale, "slow", 0, 0, 0, pubsub_help},
                 {"numpat", 2, kIntrospectFlags, "pubsub slow", 0, 0, 0, pubsub_numpat},
                 {"numsub", -2, kIntrospectFlags, "pubsub slow", 0, 0, 0,
                  count_subscribers<PubSubKind::kChannel>},
                 {"shardchannels", -2, kIntrospectFlags, "pubsub slow", 0, 0, 0,
                  list_active<PubSubKind::kShard>},
                 {"shardnumsub", -2, kIntrospectFlags, "pubsub slow", 0, 0, 0,
                  count_subscribers<PubSubKind::kShard>},
             },
         .group = "pubsub"});
}

}  // namespace streamd::cmd
