// XADD, XTRIM, XDEL, XSETID: the commands that change a stream's entries or its metadata.
#include <string>
#include <vector>

#include <algorithm>
#include <array>
#include <span>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/stream/commands.h"
#include "streamd/commands/stream/propagation.h"
#include "streamd/commands/stream/support.h"
#include "streamd/engine/idmp.h"
#include "streamd/engine/stream_refs.h"

namespace streamd::cmd {

using engine::Stream;
using engine::StreamId;
using engine::TrimStrategy;

namespace {

struct AddOrTrimArgs {
  engine::TrimSpec trim;
  engine::RefPolicy policy = engine::RefPolicy::kKeepRef;  // KEEPREF | DELREF | ACKED (8.2)
  bool limit_given = false;
  long long limit = 0;
  bool nomkstream = false;
  bool id_given = false;  // an explicit ID (not `*`)
  engine::IdSpec id;
  // XADD IDMP pid iid | IDMPAUTO pid (8.6): iid is empty with IDMPAUTO (derived from the fields).
  bool idmp = false;
  bool idmp_auto = false;
  std::string_view pid, iid;
};

// MAXLEN|MINID (already consumed) [=|~] threshold. "=" and "~" are operators only when a
// threshold follows them: "MAXLEN ~" reads "~" as the threshold (and fails on it), as in Redis.
bool parse_trim_threshold(ArgCursor& cur, TrimStrategy strategy, engine::TrimSpec& t) {
  if (t.strategy != TrimStrategy::kNone) return cur.fail(errors::kTrimBothStrategies);
  t.approx = false;
  if (cur.remaining() >= 2) {
    if (cur.match("~")) {
      t.approx = true;
    } else {
      cur.match("=");
    }
  }
  if (strategy == TrimStrategy::kMaxLen) {
    long long n = 0;
    if (!cur.next_int(n) || !cur.require(n >= 0, errors::kMaxlenNegative)) return false;
    t.maxlen = static_cast<uint64_t>(n);
  } else if (!next_strict_id(cur, t.minid)) {
    return false;
  }
  t.strategy = strategy;
  return true;
}

// The checks Redis makes once every option is read, and the effort bound of a "~" trim.
bool finish_trim(Context& ctx, ArgCursor& cur, bool xadd, AddOrTrimArgs& a) {
  if (a.limit && a.trim.strategy == TrimStrategy::kNone) {
    return cur.fail(errors::kLimitWithoutStrategy);
  }
  if (!xadd && a.trim.strategy == TrimStrategy::kNone) return cur.fail(errors::kXtrimNoStrategy);
  if (a.limit_given) {
    if (!a.trim.approx) return cur.fail(errors::kLimitWithoutApprox);
    a.trim.limit = static_cast<uint64_t>(a.limit);
  } else if (a.trim.approx) {
    // Redis's default effort bound for "~": 100 nodes' worth of entries, within [1, 1000000].
    long long def = 100 * static_cast<long long>(configured_stream_limits(ctx).max_entries);
    if (def <= 0) def = 10000;
    if (def > 1000000) def = 1000000;
    a.trim.limit = static_cast<uint64_t>(def);
  } else {
    a.trim.limit = 0;
  }
  return true;
}

// Reads XADD's options and its ID (the cursor is then at the first field), or XTRIM's options to
// the end. Returns false with the error in `cur`. Mirrors Redis's order of checks so the first
// error reported is the same; an XADD that runs out of arguments before an ID is left done (its
// arity error comes from the caller).
bool parse_add_or_trim(Context& ctx, ArgCursor& cur, bool xadd, AddOrTrimArgs& a) {
  while (!cur.done()) {
    if (xadd && cur.peek() == "*") {
      cur.skip();
      a.id = engine::IdSpec::automatic();
      break;
    }
    if (cur.match("maxlen", 1)) {
      if (!parse_trim_threshold(cur, TrimStrategy::kMaxLen, a.trim)) return false;
    } else if (cur.match("minid", 1)) {
      if (!parse_trim_threshold(cur, TrimStrategy::kMinId, a.trim)) return false;
    } else if (cur.match("limit", 1)) {
      if (!cur.next_int(a.limit) || !cur.require(a.limit >= 0, errors::kLimitNegative)) {
        return false;
      }
      a.limit_given = true;
    } else if (xadd && cur.match("nomkstream")) {
      a.nomkstream = true;
    } else if (xadd && !a.idmp && cur.match("idmpauto", 1)) {
      a.idmp = a.idmp_auto = true;
      a.pid = cur.next();
    } else if (xadd && !a.idmp && cur.match("idmp", 2)) {
      a.idmp = true;
      a.pid = cur.next();
      a.iid = cur.next();
    } else if (auto policy = match_ref_policy(cur)) {
      a.policy = *policy;  // the last one given wins
    } else if (xadd) {
      // Anything else is the ID: a malformed one is an ID error, not a syntax error.
      if (!take_parsed(cur, engine::parse_xadd_id(cur.next()), a.id)) return false;
      a.id_given = true;
      break;
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  return finish_trim(ctx, cur, xadd, a);
}

void xadd(Context& ctx) {
  AddOrTrimArgs a;
  ArgCursor cur(ctx.argv, 2);
  if (!parse_add_or_trim(ctx, cur, true, a)) {
    ctx.reply.error(cur.error());
    return;
  }
  std::span<const std::string_view> args = cur.rest();  // field value ...
  std::size_t nfields = args.size();
  if (nfields < 2 || nfields % 2 == 1) {
    ctx.reply.error(errors::wrong_arity("xadd"));
    return;
  }
  // 0-0 is refused before the key is looked up (and possibly created), as in Redis.
  if (a.id_given && a.id.kind == engine::IdSpec::Kind::kExplicit && a.id.id.is_zero()) {
    ctx.reply.error(errors::text(engine::Err::kIdZero));
    return;
  }
  if (a.idmp && a.id_given) {
    // An explicit ID would let a retry add a second entry elsewhere: IDMP goes with `*` only.
    ctx.reply.error(errors::kIdmpWithExplicitId);
    return;
  }
  if (a.idmp && (a.pid.empty() || (!a.idmp_auto && a.iid.empty()))) {
    ctx.reply.error(errors::kIdmpEmpty);
    return;
  }
  if (a.idmp && refuse_without_redis70_form(ctx, a.idmp_auto ? "IDMPAUTO" : "IDMP")) return;
  std::string_view key = ctx.arg(1);
  bool replied = false;
  Stream* s = find_or_create_stream(ctx, key, !a.nomkstream, replied);
  if (replied) return;
  if (!s) {
    ctx.reply.null();
    return;
  }
  if (s->last_id().is_max()) {
    ctx.reply.error(errors::text(engine::Err::kIdExhausted));
    return;
  }
  // The pairs point into the arguments. Entries rarely have many fields: up to kInlineFields
  // they are gathered on the stack, so the common XADD allocates nothing here.
  constexpr std::size_t kInlineFields = 16;
  std::array<engine::FieldValue, kInlineFields> inline_fields;
  std::vector<engine::FieldValue> heap_fields;
  std::span<engine::FieldValue> fields(inline_fields.data(), nfields / 2);
  if (nfields / 2 > kInlineFields) {
    heap_fields.resize(nfields / 2);
    fields = heap_fields;
  }
  for (std::size_t k = 0; k < fields.size(); ++k) {
    fields[k] = engine::FieldValue{args[2 * k], args[2 * k + 1]};
  }
  uint64_t now = static_cast<uint64_t>(ctx.now_ms);
  std::string auto_iid;
  if (a.idmp_auto) {
    auto_iid = engine::IdmpTable::auto_iid(fields);
    a.iid = auto_iid;
  }
  if (a.idmp && s->idmp()) {
    if (auto original = s->idmp()->find(a.pid, a.iid, now)) {
      // A retry: the original entry's ID, nothing added, nothing to propagate.
      s->idmp()->count_duplicate();
      write_id(ctx.reply, *original);
      ctx.propagate_nothing();
      return;
    }
  }
  auto id = s->append(a.id, fields, now);
  if (!id) {
    // A stream created by this XADD stays (empty), as in Redis.
    ctx.reply.error(errors::text(id.err()));
    return;
  }
  if (a.idmp) s->idmp_or_create().record(a.pid, a.iid, *id, now);
  char id_buf[engine::StreamId::kMaxTextSize];
  std::string_view id_text(id_buf, id->format(id_buf));
  ctx.reply.bulk(id_text);  // write_id's reply, formatted once for propagate_xadd too
  engine::TrimResult trimmed;
  engine::RefEffects fx;
  engine::RefEffects* as_redis70 = nullptr;
  if (a.trim.strategy != TrimStrategy::kNone) {
    if (a.policy != engine::RefPolicy::kKeepRef && redis70_forms(ctx)) as_redis70 = &fx;
    trimmed = engine::trim_with_policy(*s, a.trim, a.policy, as_redis70);
  }
  ctx.modified(key, events::kXadd);
  if (trimmed.removed > 0) ctx.notify(events::kXtrim, key);
  // The generated ID and the exact trim, so the AOF replays this entry and no other.
  propagate_xadd(ctx, key, id_text, a.trim.strategy,
                 a.trim.strategy != TrimStrategy::kNone ? &trimmed : nullptr, fields, a.policy,
                 as_redis70);
  if (a.idmp) propagate_idmp_record(ctx, key, a.pid, a.iid, *id);
}

void xtrim(Context& ctx) {
  AddOrTrimArgs a;
  // Every option is checked before the key is looked up, as in Redis: a missing key answers 0
  // only to a valid command, and a bad option on a key of another type is a syntax error.
  ArgCursor cur(ctx.argv, 2);
  if (!parse_add_or_trim(ctx, cur, false, a)) {
    ctx.reply.error(cur.error());
    return;
  }
  std::string_view key = ctx.arg(1);
  bool replied = false;
  Stream* s = find_stream(ctx, key, replied);
  if (replied) return;
  if (!s) {
    ctx.reply.integer(0);
    return;
  }
  uint64_t pending_before = total_pending(*s);
  engine::RefEffects fx;
  engine::RefEffects* as_redis70 =
      a.policy != engine::RefPolicy::kKeepRef && redis70_forms(ctx) ? &fx : nullptr;
  engine::TrimResult r = engine::trim_with_policy(*s, a.trim, a.policy, as_redis70);
  ctx.reply.integer(static_cast<long long>(r.removed));
  if (r.removed || total_pending(*s) != pending_before) {
    // "xtrim" only when entries went (an ACKED/DELREF trim may only drop PEL references).
    // Redis counts one change per removed entry.
    ctx.modified(key, std::max<uint64_t>(r.removed, 1));
    if (r.removed) ctx.notify(events::kXtrim, key);
    // "~" becomes the exact trim it did
    propagate_xtrim(ctx, key, a.trim.strategy, r, a.policy, as_redis70);
  }
}

void xdel(Context& ctx) {
  std::string_view key = ctx.arg(1);
  bool replied = false;
  Stream* s = find_stream(ctx, key, replied);
  if (replied) return;
  if (!s) {
    ctx.reply.integer(0);
    return;
  }
  // Every ID is parsed before anything is deleted: a bad ID deletes nothing.
  ArgCursor cur(ctx.argv, 2);
  std::vector<StreamId> ids(cur.remaining());
  for (StreamId& id : ids) {
    if (!next_strict_id(cur, id)) {
      ctx.reply.error(cur.error());
      return;
    }
  }
  long long deleted = 0;
  for (StreamId id : ids) {
    if (s->erase(id)) ++deleted;
  }
  ctx.reply.integer(deleted);
  // Redis counts one change per deleted entry.
  if (deleted) ctx.modified(key, events::kXdel, static_cast<uint64_t>(deleted));
}

// XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id]: every option is checked before the key
// is looked up. Returns false with the error in `cur`.
bool parse_setid(ArgCursor& cur, StreamId& id, std::optional<uint64_t>& entries_added,
                 std::optional<StreamId>& max_deleted) {
  if (!next_strict_id(cur, id)) return false;
  while (!cur.done()) {
    if (cur.match("entriesadded", 1)) {
      long long n = 0;
      if (!cur.next_int(n) ||
          !cur.require(n >= 0, errors::text(engine::Err::kEntriesAddedNotPositive))) {
        return false;
      }
      entries_added = static_cast<uint64_t>(n);
    } else if (cur.match("maxdeletedid", 1)) {
      StreamId md;
      if (!next_strict_id(cur, md) ||
          !cur.require(!(id < md),
                       errors::text(engine::Err::kSetIdSmallerThanProvidedMaxDeleted))) {
        return false;
      }
      max_deleted = md;
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  return true;
}

void xsetid(Context& ctx) {
  StreamId id;
  std::optional<uint64_t> entries_added;
  std::optional<StreamId> max_deleted;
  ArgCursor cur(ctx.argv, 2);
  if (!parse_setid(cur, id, entries_added, max_deleted)) {
    ctx.reply.error(cur.error());
    return;
  }
  std::string_view key = ctx.arg(1);
  Stream* s = existing_stream(ctx, key);
  if (!s) return;
  engine::Err err = s->set_id(id, entries_added, max_deleted);
  if (err != engine::Err::kOk) {
    ctx.reply.error(errors::text(err));
    return;
  }
  ctx.reply.ok();
  ctx.modified(key, events::kXsetid);
}

}  // namespace

void register_stream_write_commands(CommandTable& t) {
  t.add({"xadd",
         -5,
         kWrite | kDenyOom | kFast,
         "write stream fast",
         1,
         1,
         1,
         xadd,
         {},
         nullptr,
         "stream"});
  t.add({"xtrim", -4, kWrite, "write stream slow", 1, 1, 1, xtrim, {}, nullptr, "stream"});
  t.add({"xdel", -3, kWrite | kFast, "write stream fast", 1, 1, 1, xdel, {}, nullptr, "stream"});
  t.add({"xsetid",
         -3,
         kWrite | kDenyOom | kFast,
         "write stream fast",
         1,
         1,
         1,
         xsetid,
         {},
         nullptr,
         "stream"});
}

}  // namespace streamd::cmd
