// XGROUP (CREATE, SETID, DESTROY, CREATECONSUMER, DELCONSUMER, HELP), XACK and XPENDING: the
// group administration and bookkeeping commands. Reading and claiming live in
// stream_group_read_commands.cc.
#include <algorithm>
#include <optional>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"
#include "streamd/commands/stream/commands.h"
#include "streamd/commands/stream/dead_letters.h"
#include "streamd/commands/stream/group_render.h"
#include "streamd/commands/stream/propagation.h"
#include "streamd/commands/stream/support.h"
#include "streamd/engine/consumer_group.h"

namespace streamd::cmd {

using engine::ConsumerGroup;
using engine::Stream;
using engine::StreamId;

namespace {

// The options after `XGROUP CREATE|SETID key group id`.
struct GroupOptions {
  bool mkstream = false;  // CREATE only
  int64_t entries_read = engine::kEntriesReadUnknown;
};

bool parse_group_options(Context& ctx, ArgCursor& cur, bool create, GroupOptions& o) {
  while (!cur.done()) {
    if (create && cur.match("mkstream")) {
      o.mkstream = true;
    } else if (cur.match("entriesread", 1)) {
      long long n = 0;
      if (!cur.next_int(n)) return false;
      if (!cur.require(n >= 0 || n == engine::kEntriesReadUnknown, errors::kEntriesReadInvalid)) {
        return false;
      }
      o.entries_read = n;
    } else {
      return cur.fail(errors::unknown_subcommand_or_arity(ctx.arg(1), "XGROUP"));
    }
  }
  return true;
}

// parse_group_options from the argument after the ID; replies the error and returns false.
bool group_options_or_reply(Context& ctx, bool create, GroupOptions& o) {
  ArgCursor cur(ctx.argv, 5);
  if (parse_group_options(ctx, cur, create, o)) return true;
  ctx.reply.error(cur.error());
  return false;
}

// Finds the stream for an XGROUP subcommand that needs it (all but CREATE ... MKSTREAM).
Stream* xgroup_stream(Context& ctx, bool& replied) {
  Stream* s = find_stream(ctx, ctx.arg(2), replied);
  if (!s && !replied) {
    ctx.reply.error(errors::kXgroupKeyMissing);
    replied = true;
  }
  return s;
}

ConsumerGroup* xgroup_group(Context& ctx, Stream& s) {
  ConsumerGroup* g = s.groups().find(ctx.arg(3));
  if (!g) ctx.reply.error(errors::nogroup_for_key(ctx.arg(2), ctx.arg(3)));
  return g;
}

void xgroup_create(Context& ctx) {
  GroupOptions o;
  if (!group_options_or_reply(ctx, true, o)) return;
  std::string_view key = ctx.arg(2);
  bool replied = false;
  Stream* s = find_stream(ctx, key, replied);
  if (replied) return;
  if (!s && !o.mkstream) {
    ctx.reply.error(errors::kXgroupKeyMissing);
    return;
  }
  if (ctx.argc() > 8) {
    ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "XGROUP"));
    return;
  }
  StreamId id;
  if (ctx.arg(4) == "$") {
    id = s ? s->last_id() : StreamId::min();
  } else if (!parse_strict_id_or_reply(ctx, ctx.arg(4), id)) {
    return;
  }
  const bool key_created = !s;
  if (!s) s = find_or_create_stream(ctx, key, true, replied);
  auto g = s->groups().create(ctx.arg(3), id, engine::capped_entries_read(*s, o.entries_read));
  if (!g) {
    ctx.reply.error(errors::text(g.err()));
    if (key_created) ctx.modified(key);  // MKSTREAM created the key
    return;
  }
  ctx.reply.ok();
  ctx.modified(key, events::kXgroupCreate);
}

void xgroup_setid(Context& ctx) {
  GroupOptions o;
  if (!group_options_or_reply(ctx, false, o)) return;
  bool replied = false;
  Stream* s = xgroup_stream(ctx, replied);
  if (!s) return;
  ConsumerGroup* g = xgroup_group(ctx, *s);
  if (!g) return;
  if (ctx.argc() != 5 && ctx.argc() != 7) {
    ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "XGROUP"));
    return;
  }
  StreamId id;
  if (ctx.arg(4) == "$") {
    id = s->last_id();
  } else {
    // SETID reads its ID non-strictly: "-" and "+" are accepted.
    auto p = engine::parse_stream_id(ctx.arg(4), engine::IdParseOptions{});
    if (!p) {
      ctx.reply.error(errors::text(p.err()));
      return;
    }
    id = p->id;
  }
  g->set_last_delivered_id(id, engine::capped_entries_read(*s, o.entries_read));
  ctx.reply.ok();
  ctx.modified(ctx.arg(2), events::kXgroupSetid);
}

void xgroup_destroy(Context& ctx) {
  bool replied = false;
  Stream* s = xgroup_stream(ctx, replied);
  if (!s) return;
  bool destroyed = s->groups().destroy(ctx.arg(3));
  ctx.reply.integer(destroyed ? 1 : 0);
  // Clients blocked in XREADGROUP on this group wake up and get NOGROUP.
  if (destroyed) ctx.modified(ctx.arg(2), events::kXgroupDestroy);
}

void xgroup_createconsumer(Context& ctx) {
  bool replied = false;
  Stream* s = xgroup_stream(ctx, replied);
  if (!s) return;
  ConsumerGroup* g = xgroup_group(ctx, *s);
  if (!g) return;
  auto [c, created] = g->create_consumer(ctx.arg(4), ctx.now_ms);
  (void)c;
  ctx.reply.integer(created ? 1 : 0);
  if (created) {
    ctx.mark_dirty();  // propagates
    ctx.notify(events::kXgroupCreateConsumer, ctx.arg(2));
  }
}

void xgroup_delconsumer(Context& ctx) {
  bool replied = false;
  Stream* s = xgroup_stream(ctx, replied);
  if (!s) return;
  ConsumerGroup* g = xgroup_group(ctx, *s);
  if (!g) return;
  auto pending = g->delete_consumer(ctx.arg(4));
  ctx.reply.integer(pending ? static_cast<long long>(*pending) : 0);
  if (pending) {
    ctx.mark_dirty();  // propagates
    ctx.notify(events::kXgroupDelConsumer, ctx.arg(2));
  }
}

void xgroup_help(Context& ctx) {
  reply_help(ctx.reply, "XGROUP",
             {
                 "CREATE <key> <groupname> <id|$> [option]",
                 "    Create a new consumer group. Options are:",
                 "    * MKSTREAM",
                 "      Create the empty stream if it does not exist.",
                 "    * ENTRIESREAD entries_read",
                 "      Set the group's entries_read counter (internal use).",
                 "CREATECONSUMER <key> <groupname> <consumer>",
                 "    Create a new consumer in the specified group.",
                 "DELCONSUMER <key> <groupname> <consumer>",
                 "    Remove the specified consumer.",
                 "DESTROY <key> <groupname>",
                 "    Remove the specified group.",
                 "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
                 "    Set the current group ID and entries_read counter.",
             });
}

void xack(Context& ctx) {
  bool replied = false;
  Stream* s = find_stream(ctx, ctx.arg(1), replied, StreamLookup::kRead);
  if (replied) return;
  // A missing key or group acknowledges nothing, before any ID is looked at (as in Redis).
  ConsumerGroup* g = s ? s->groups().find(ctx.arg(2)) : nullptr;
  if (!g) {
    ctx.reply.integer(0);
    return;
  }
  // Every ID is parsed before any is acknowledged: acknowledging is all or nothing.
  ArgCursor cur(ctx.argv, 3);
  std::vector<StreamId> ids(cur.remaining());
  for (StreamId& id : ids) {
    if (!next_strict_id(cur, id)) {
      ctx.reply.error(cur.error());
      return;
    }
  }
  uint64_t acked = g->ack(ids);
  ctx.reply.integer(static_cast<long long>(acked));
  if (acked) ctx.mark_dirty(acked);  // propagates; Redis counts one change per entry
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]: the summary form
// without the extended part.
struct PendingArgs {
  bool summary = false;
  long long count = 0, min_idle = 0;
  StreamId start, end;
  std::optional<std::string_view> consumer;
};

// Checks in Redis's order: the argument count, IDLE's number, COUNT (which comes after the
// bounds) and then the bounds. Arguments after the consumer are ignored, as in Redis.
bool parse_xpending(ArgCursor& cur, PendingArgs& a) {
  const std::size_t given = cur.remaining();  // after key and group
  a.summary = given == 0;
  if (a.summary) return true;
  if (given < 3 || given > 6) return cur.fail(errors::kSyntax);
  if (cur.match("idle")) {
    if (!cur.next_int(a.min_idle)) return false;
    if (given < 5) return cur.fail(errors::kSyntax);
  }
  auto count = parse_int(cur.peek(2));
  if (!count) return cur.fail(errors::kNotInteger);
  a.count = *count < 0 ? 0 : *count;
  if (!take_parsed(cur, engine::parse_range_start(cur.next()), a.start)) return false;
  if (!take_parsed(cur, engine::parse_range_end(cur.next()), a.end)) return false;
  cur.skip();  // COUNT, read above
  if (!cur.done()) a.consumer = cur.next();
  return true;
}

void xpending(Context& ctx) {
  ArgCursor cur(ctx.argv, 3);
  PendingArgs a;
  if (!parse_xpending(cur, a)) {
    ctx.reply.error(cur.error());
    return;
  }
  bool replied = false;
  Stream* s = find_stream(ctx, ctx.arg(1), replied, StreamLookup::kRead);
  if (replied) return;
  const ConsumerGroup* g = s ? s->groups().find(ctx.arg(2)) : nullptr;
  if (!g) {
    ctx.reply.error(errors::nogroup_key_or_group(ctx.arg(1), ctx.arg(2)));
    return;
  }
  resp::ReplyWriter& w = ctx.reply;
  if (a.summary) {
    engine::PendingSummary ps = g->pending_summary();
    w.array(4);
    w.integer(static_cast<long long>(ps.count));
    if (ps.count == 0) {
      w.null();
      w.null();
      w.null_array();
      return;
    }
    write_id(w, ps.first);
    write_id(w, ps.last);
    w.array(ps.consumers.size());
    for (auto& [name, n] : ps.consumers) {
      w.array(2);
      w.bulk(name);
      w.bulk_integer(static_cast<long long>(n));  // a bulk string in Redis, not an integer
    }
    return;
  }
  std::vector<engine::PendingRecord> recs = g->pending_range(
      a.start, a.end, static_cast<std::size_t>(a.count), a.min_idle, ctx.now_ms, a.consumer);
  w.array(recs.size());
  for (const auto& r : recs) {
    // A NACKed entry has no owner and no delivery time: Redis 8.8 shows "" and idle -1.
    int64_t idle = r.nacked ? -1 : std::max<int64_t>(ctx.now_ms - r.delivery_time_ms, 0);
    w.array(4);
    write_id(w, r.id);
    w.bulk(r.consumer);
    w.integer(idle);
    w.integer(static_cast<long long>(r.delivery_count));
  }
}

struct NackArgs {
  engine::NackMode mode = engine::NackMode::kSilent;
  bool force = false;
  std::optional<uint64_t> retry;
  std::vector<StreamId> ids;
};

bool parse_xnack(ArgCursor& cur, NackArgs& a) {
  std::string_view m = cur.next();
  if (iequals(m, "silent")) {
    a.mode = engine::NackMode::kSilent;
  } else if (iequals(m, "fail")) {
    a.mode = engine::NackMode::kFail;
  } else if (iequals(m, "fatal")) {
    a.mode = engine::NackMode::kFatal;
  } else {
    return cur.fail(errors::kXnackMode);
  }
  bool have_ids = false;  // a second IDS block is an unrecognized option
  while (!cur.done()) {
    if (!have_ids && cur.match("ids", 1)) {
      long long n = 0;
      if (!cur.next_int(n, errors::kXnackNumIds) || !cur.require(n > 0, errors::kXnackNumIds)) {
        return false;
      }
      if (!cur.require(static_cast<unsigned long long>(n) <= cur.remaining(),
                       errors::kXnackNumIdsMismatch)) {
        return false;
      }
      a.ids.resize(static_cast<std::size_t>(n));
      for (StreamId& id : a.ids) {
        if (!next_strict_id(cur, id)) return false;
      }
      have_ids = true;
    } else if (cur.match("retrycount", 1)) {
      long long n = 0;
      if (!cur.next_int(n) || !cur.require(n >= 0, errors::kXnackRetryCount)) return false;
      a.retry = static_cast<uint64_t>(n);
    } else if (cur.match("force")) {
      a.force = true;
    } else {
      return cur.fail(errors::xnack_unrecognized_option(cur.peek()));
    }
  }
  return cur.require(have_ids, errors::kXnackNoIds);
}

// XNACK key group <SILENT|FAIL|FATAL> IDS numids id... [RETRYCOUNT n] [FORCE] (Redis 8.8). The
// options and the IDS block may come in any order after the mode.
void xnack(Context& ctx) {
  ArgCursor cur(ctx.argv, 3);
  NackArgs a;
  if (!parse_xnack(cur, a)) {
    ctx.reply.error(cur.error());
    return;
  }
  if (refuse_without_redis70_form(ctx, "XNACK")) return;
  bool replied = false;
  Stream* s = find_stream(ctx, ctx.arg(1), replied);
  if (replied) return;
  ConsumerGroup* g = s ? s->groups().find(ctx.arg(2)) : nullptr;
  if (!g) {
    ctx.reply.error(errors::nogroup_key_or_group(ctx.arg(1), ctx.arg(2)));
    return;
  }
  // FATAL may dead-letter: its dead-letter stream must be usable before anything changes.
  if (a.mode == engine::NackMode::kFatal && !dead_letter_ready(ctx, *g)) return;
  engine::NackResult r = g->nack(*s, a.ids, a.mode, a.retry, a.force);
  ctx.reply.integer(static_cast<long long>(r.released));
  if (r.released == 0) return;
  ctx.mark_dirty();
  ctx.propagate_nothing();  // only the records below (none if every ID was dead-lettered)
  // Released entries are claimable at once: blocked XREADGROUP ... CLAIM readers look again.
  if (!r.records.empty()) ctx.server.blocking().signal_ready(ctx.session.db, ctx.arg(1));
  propagate_nack(ctx, ctx.arg(1), ctx.arg(2), r.records);
  deliver_dead_letters(ctx, ctx.arg(1), *g, r.dead_lettered);
}

}  // namespace

void register_stream_group_read_commands(CommandTable& t);

void register_stream_group_commands(CommandTable& t) {
  t.add({"xgroup",
         -2,
         0,
         "slow",
         0,
         0,
         0,
         nullptr,
         {
             {"create", -5, kWrite | kDenyOom, "write stream slow", 2, 2, 1, xgroup_create},
             {"createconsumer", 5, kWrite | kDenyOom, "write stream slow", 2, 2, 1,
              xgroup_createconsumer},
             {"delconsumer", 5, kWrite, "write stream slow", 2, 2, 1, xgroup_delconsumer},
             {"destroy", 4, kWrite, "write stream slow", 2, 2, 1, xgroup_destroy},
             {"help", 2, kLoading | kStale, "stream slow", 0, 0, 0, xgroup_help},
             {"setid", -5, kWrite, "write stream slow", 2, 2, 1, xgroup_setid},
         },
         nullptr,
         "stream"});
  t.add({"xack", -4, kWrite | kFast, "write stream fast", 1, 1, 1, xack, {}, nullptr, "stream"});
  t.add({"xpending", -3, kReadonly, "read stream slow", 1, 1, 1, xpending, {}, nullptr, "stream"});
  t.add({"xnack", -7, kWrite | kFast, "write stream fast", 1, 1, 1, xnack, {}, nullptr, "stream"});
  register_stream_group_read_commands(t);
}

}  // namespace streamd::cmd
