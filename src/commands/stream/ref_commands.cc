// XDELEX and XACKDEL (Redis 8.2): deletes that know about consumer-group references, one integer
// per requested ID in the reply (-1 no such entry, 1 deleted, 2 kept because referenced). The
// reference rules live in the engine (stream_refs.h). Both propagate their own argv: replayed on
// the same state they make the same decisions. With rdb-version 10 they propagate what they did
// as XACK / XDEL instead (stream/propagation.h: redis70_forms).
#include <optional>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/stream/commands.h"
#include "streamd/commands/stream/propagation.h"
#include "streamd/commands/stream/support.h"
#include "streamd/engine/consumer_group.h"
#include "streamd/engine/stream_refs.h"

namespace streamd::cmd {

using engine::DeleteOutcome;
using engine::RefPolicy;
using engine::Stream;
using engine::StreamId;

namespace {

struct RefDeleteArgs {
  RefPolicy policy = RefPolicy::kKeepRef;
  std::vector<StreamId> ids;
};

// [KEEPREF | DELREF | ACKED] IDS numids id... in any order, each once. Every ID is parsed before
// anything changes, so a bad one changes nothing. Returns false with the error in `cur`.
bool parse_ref_delete(ArgCursor& cur, RefDeleteArgs& a) {
  bool policy_given = false, ids_given = false;
  while (!cur.done()) {
    std::optional<RefPolicy> p;
    if (!policy_given && (p = match_ref_policy(cur))) {
      a.policy = *p;
      policy_given = true;
    } else if (!ids_given && cur.match("ids", 1)) {
      long long n = 0;
      if (!cur.next_int(n, errors::kNumIdsNotPositive) ||
          !cur.require(n > 0, errors::kNumIdsNotPositive) ||
          !cur.require(static_cast<unsigned long long>(n) <= cur.remaining(),
                       errors::kNumIdsMismatch)) {
        return false;
      }
      a.ids.resize(static_cast<std::size_t>(n));
      for (StreamId& id : a.ids) {
        if (!next_strict_id(cur, id)) return false;
      }
      ids_given = true;
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  return cur.require(ids_given, errors::kSyntax);
}

// Parses from argument `first` on; replies the error and returns false on bad input.
bool parse_ref_delete_or_reply(Context& ctx, std::size_t first, RefDeleteArgs& a) {
  ArgCursor cur(ctx.argv, first);
  if (parse_ref_delete(cur, a)) return true;
  ctx.reply.error(cur.error());
  return false;
}

void reply_outcomes(Context& ctx, const std::vector<DeleteOutcome>& out) {
  ctx.reply.array(out.size());
  for (DeleteOutcome o : out) ctx.reply.integer(static_cast<long long>(o));
}

// Marks the command as a change (so it propagates its argv) when it deleted entries or dropped
// PEL references. Deleted entries are the "xdel" keyspace event, as XDEL's; dropped references
// alone publish nothing. (Valkey's port of XACKDEL, valkey-io/valkey#3466, does the same; not
// checked against a Redis 8.2 build: the reference build here predates XDELEX/XACKDEL.)
void note_changes(Context& ctx, std::string_view key, const Stream& s, uint64_t length_before,
                  uint64_t pending_before) {
  if (s.length() != length_before) {
    ctx.modified(key, events::kXdel);
  } else if (total_pending(s) != pending_before) {
    ctx.mark_dirty();
  }
}

// The IDs whose outcome is kDeleted, in request order.
std::vector<StreamId> deleted_ids(const std::vector<StreamId>& ids,
                                  const std::vector<DeleteOutcome>& out) {
  std::vector<StreamId> deleted;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (out[i] == DeleteOutcome::kDeleted) deleted.push_back(ids[i]);
  }
  return deleted;
}

void xdelex(Context& ctx) {
  RefDeleteArgs a;
  if (!parse_ref_delete_or_reply(ctx, 2, a)) return;
  std::string_view key = ctx.arg(1);
  bool replied = false;
  Stream* s = find_stream(ctx, key, replied);
  if (replied) return;
  std::vector<DeleteOutcome> out(a.ids.size(), DeleteOutcome::kNotFound);
  if (s) {
    uint64_t length_before = s->length(), pending_before = total_pending(*s);
    engine::RefEffects fx;
    bool as_redis70 = redis70_forms(ctx);
    for (std::size_t i = 0; i < a.ids.size(); ++i) {
      out[i] = engine::delete_entry(*s, a.ids[i], a.policy, as_redis70 ? &fx : nullptr);
    }
    note_changes(ctx, key, *s, length_before, pending_before);
    if (as_redis70) {
      propagate_ref_delete_as_redis70(ctx, key, {}, {}, deleted_ids(a.ids, out), fx);
    }
  }
  reply_outcomes(ctx, out);
}

void xackdel(Context& ctx) {
  RefDeleteArgs a;
  if (!parse_ref_delete_or_reply(ctx, 3, a)) return;
  std::string_view key = ctx.arg(1);
  bool replied = false;
  Stream* s = find_stream(ctx, key, replied);
  if (replied) return;
  engine::ConsumerGroup* g = s ? s->groups().find(ctx.arg(2)) : nullptr;
  std::vector<DeleteOutcome> out(a.ids.size(), DeleteOutcome::kNotFound);
  // A missing key or group answers -1 for every ID, as XACK answers 0 rather than NOGROUP.
  if (g) {
    uint64_t length_before = s->length(), pending_before = total_pending(*s);
    engine::RefEffects fx;
    bool as_redis70 = redis70_forms(ctx);
    std::vector<StreamId> acked;
    for (std::size_t i = 0; i < a.ids.size(); ++i) {
      if (g->ack(std::span<const StreamId>(&a.ids[i], 1)) != 0 && as_redis70) {
        acked.push_back(a.ids[i]);
      }
      out[i] = engine::delete_entry(*s, a.ids[i], a.policy, as_redis70 ? &fx : nullptr);
    }
    note_changes(ctx, key, *s, length_before, pending_before);
    if (as_redis70) {
      propagate_ref_delete_as_redis70(ctx, key, g->name(), acked, deleted_ids(a.ids, out), fx);
    }
  }
  reply_outcomes(ctx, out);
}

}  // namespace

void register_stream_ref_commands(CommandTable& t) {
  t.add(
      {"xdelex", -5, kWrite | kFast, "write stream fast", 1, 1, 1, xdelex, {}, nullptr, "stream"});
  t.add({"xackdel",
         -6,
         kWrite | kFast,
         "write stream fast",
         1,
         1,
         1,
         xackdel,
         {},
         nullptr,
         "stream"});
}

}  // namespace streamd::cmd
