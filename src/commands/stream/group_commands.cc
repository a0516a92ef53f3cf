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

// The options after `XGROUP CREATE|SETID key group id`. Replies and returns false on error.
bool parse_group_options(Context& ctx, bool create, bool& mkstream, int64_t& entries_read) {
  for (std::size_t i = 5; i < ctx.argc();) {
    std::string_view arg = ctx.arg(i);
    if (create && iequals(arg, "mkstream")) {
      mkstream = true;
      ++i;
    } else if (iequals(arg, "entriesread") && i + 1 < ctx.argc()) {
      auto n = parse_int(ctx.arg(i + 1));
      if (!n) {
        ctx.reply.error(errors::kNotInteger);
        return false;
      }
      if (*n < 0 && *n != engine::kEntriesReadUnknown) {
        ctx.reply.error(errors::kEntriesReadInvalid);
        return false;
      }
      entries_read = *n;
      i += 2;
    } else {
      ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "XGROUP"));
      return false;
    }
  }
  return true;
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
  bool mkstream = false;
  int64_t entries_read = engine::kEntriesReadUnknown;
  if (!parse_group_options(ctx, true, mkstream, entries_read)) return;
  std::string_view key = ctx.arg(2);
  bool replied = false;
  Stream* s = find_stream(ctx, key, replied);
  if (replied) return;
  if (!s && !mkstream) {
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
  auto g = s->groups().create(ctx.arg(3), id, engine::capped_entries_read(*s, entries_read));
  if (!g) {
    ctx.reply.error(errors::text(g.err()));
    if (key_created) ctx.modified(key);  // MKSTREAM created the key
    return;
  }
  ctx.reply.ok();
  ctx.modified(key, events::kXgroupCreate);
}

void xgroup_setid(Context& ctx) {
  bool mkstream = false;
  int64_t entries_read = engine::kEntriesReadUnknown;
  if (!parse_group_options(ctx, false, mkstream, entries_read)) return;
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
  g->set_last_delivered_id(id, engine::capped_entries_read(*s, entries_read));
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
  std::vector<StreamId> ids(ctx.argc() - 3);
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    if (!parse_strict_id_or_reply(ctx, ctx.arg(j), ids[j - 3])) return;
  }
  uint64_t acked = g->ack(ids);
  ctx.reply.integer(static_cast<long long>(acked));
  if (acked) ctx.mark_dirty(acked);  // propagates; Redis counts one change per entry
}

void xpending(Context& ctx) {
  std::size_t argc = ctx.argc();
  bool summary = argc == 3;
  if (argc != 3 && (argc < 6 || argc > 9)) {
    ctx.reply.error(errors::kSyntax);
    return;
  }
  long long count = 0, min_idle = 0;
  StreamId start, end;
  std::optional<std::string_view> consumer;
  if (argc >= 6) {
    std::size_t at = 3;
    if (iequals(ctx.arg(3), "idle")) {
      auto n = parse_int(ctx.arg(4));
      if (!n) {
        ctx.reply.error(errors::kNotInteger);
        return;
      }
      min_idle = *n;
      if (argc < 8) {
        ctx.reply.error(errors::kSyntax);
        return;
      }
      at += 2;
    }
    auto n = parse_int(ctx.arg(at + 2));
    if (!n) {
      ctx.reply.error(errors::kNotInteger);
      return;
    }
    count = *n < 0 ? 0 : *n;
    auto st = engine::parse_range_start(ctx.arg(at));
    if (!st) {
      ctx.reply.error(errors::text(st.err()));
      return;
    }
    auto en = engine::parse_range_end(ctx.arg(at + 1));
    if (!en) {
      ctx.reply.error(errors::text(en.err()));
      return;
    }
    start = *st;
    end = *en;
    if (at + 3 < argc) consumer = ctx.arg(at + 3);
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
  if (summary) {
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
  std::vector<engine::PendingRecord> recs =
      g->pending_range(start, end, static_cast<std::size_t>(count), min_idle, ctx.now_ms, consumer);
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

// XNACK key group <SILENT|FAIL|FATAL> IDS numids id... [RETRYCOUNT n] [FORCE] (Redis 8.8). The
// options and the IDS block may come in any order after the mode.
void xnack(Context& ctx) {
  engine::NackMode mode;
  std::string_view m = ctx.arg(3);
  if (iequals(m, "silent")) {
    mode = engine::NackMode::kSilent;
  } else if (iequals(m, "fail")) {
    mode = engine::NackMode::kFail;
  } else if (iequals(m, "fatal")) {
    mode = engine::NackMode::kFatal;
  } else {
    ctx.reply.error(errors::kXnackMode);
    return;
  }
  bool force = false, have_ids = false;
  std::optional<uint64_t> retry;
  std::vector<StreamId> ids;
  for (std::size_t j = 4; j < ctx.argc();) {
    std::string_view opt = ctx.arg(j);
    bool more = j + 1 < ctx.argc();
    if (iequals(opt, "ids") && more && !have_ids) {
      auto n = parse_int(ctx.arg(j + 1));
      if (!n || *n <= 0) {
        ctx.reply.error(errors::kXnackNumIds);
        return;
      }
      if (static_cast<unsigned long long>(*n) > ctx.argc() - j - 2) {
        ctx.reply.error(errors::kXnackNumIdsMismatch);
        return;
      }
      ids.resize(static_cast<std::size_t>(*n));
      for (std::size_t k = 0; k < ids.size(); ++k) {
        if (!parse_strict_id_or_reply(ctx, ctx.arg(j + 2 + k), ids[k])) return;
      }
      have_ids = true;
      j += 2 + ids.size();
    } else if (iequals(opt, "retrycount") && more) {
      auto n = parse_int(ctx.arg(j + 1));
      if (!n) {
        ctx.reply.error(errors::kNotInteger);
        return;
      }
      if (*n < 0) {
        ctx.reply.error(errors::kXnackRetryCount);
        return;
      }
      retry = static_cast<uint64_t>(*n);
      j += 2;
    } else if (iequals(opt, "force")) {
      force = true;
      ++j;
    } else {
      ctx.reply.error(errors::xnack_unrecognized_option(opt));
      return;
    }
  }
  if (!have_ids) {
    ctx.reply.error(errors::kXnackNoIds);
    return;
  }
  bool replied = false;
  Stream* s = find_stream(ctx, ctx.arg(1), replied);
  if (replied) return;
  ConsumerGroup* g = s ? s->groups().find(ctx.arg(2)) : nullptr;
  if (!g) {
    ctx.reply.error(errors::nogroup_key_or_group(ctx.arg(1), ctx.arg(2)));
    return;
  }
  // FATAL may dead-letter: its dead-letter stream must be usable before anything changes.
  if (mode == engine::NackMode::kFatal && !dead_letter_ready(ctx, *g)) return;
  engine::NackResult r = g->nack(*s, ids, mode, retry, force);
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
