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
  bool nomkstream = false;
  bool id_given = false;
  engine::IdSpec id;
  std::size_t id_pos = 0;  // XADD: index of the ID argument
  // XADD IDMP pid iid | IDMPAUTO pid (8.6): iid is empty with IDMPAUTO (derived from the fields).
  bool idmp = false;
  bool idmp_auto = false;
  std::string_view pid, iid;
};

// Parses XADD's options up to its ID, or XTRIM's options to the end. Replies and returns false
// on error. Mirrors Redis's order of checks so the first error reported is the same.
bool parse_add_or_trim(Context& ctx, bool xadd, AddOrTrimArgs& a) {
  std::size_t argc = ctx.argc();
  long long limit = 0;
  std::size_t i = 2;
  for (; i < argc; ++i) {
    std::size_t more = argc - 1 - i;
    std::string_view opt = ctx.arg(i);
    if (xadd && opt == "*") {
      a.id = engine::IdSpec::automatic();
      a.id_given = false;
      break;
    } else if (iequals(opt, "maxlen") && more) {
      if (a.trim.strategy != TrimStrategy::kNone) {
        ctx.reply.error(errors::kTrimBothStrategies);
        return false;
      }
      a.trim.approx = false;
      std::string_view next = ctx.arg(i + 1);
      if (next == "~" && more >= 2) {
        a.trim.approx = true;
        ++i;
      } else if (next == "=" && more >= 2) {
        ++i;
      }
      auto n = parse_int(ctx.arg(i + 1));
      if (!n) {
        ctx.reply.error(errors::kNotInteger);
        return false;
      }
      if (*n < 0) {
        ctx.reply.error(errors::kMaxlenNegative);
        return false;
      }
      a.trim.maxlen = static_cast<uint64_t>(*n);
      a.trim.strategy = TrimStrategy::kMaxLen;
      ++i;
    } else if (iequals(opt, "minid") && more) {
      if (a.trim.strategy != TrimStrategy::kNone) {
        ctx.reply.error(errors::kTrimBothStrategies);
        return false;
      }
      a.trim.approx = false;
      std::string_view next = ctx.arg(i + 1);
      if (next == "~" && more >= 2) {
        a.trim.approx = true;
        ++i;
      } else if (next == "=" && more >= 2) {
        ++i;
      }
      if (!parse_strict_id_or_reply(ctx, ctx.arg(i + 1), a.trim.minid)) return false;
      a.trim.strategy = TrimStrategy::kMinId;
      ++i;
    } else if (iequals(opt, "limit") && more) {
      auto n = parse_int(ctx.arg(i + 1));
      if (!n) {
        ctx.reply.error(errors::kNotInteger);
        return false;
      }
      if (*n < 0) {
        ctx.reply.error(errors::kLimitNegative);
        return false;
      }
      limit = *n;
      a.limit_given = true;
      ++i;
    } else if (xadd && iequals(opt, "nomkstream")) {
      a.nomkstream = true;
    } else if (xadd && iequals(opt, "idmpauto") && more >= 1 && !a.idmp) {
      a.idmp = a.idmp_auto = true;
      a.pid = ctx.arg(++i);
    } else if (xadd && iequals(opt, "idmp") && more >= 2 && !a.idmp) {
      a.idmp = true;
      a.pid = ctx.arg(i + 1);
      a.iid = ctx.arg(i + 2);
      i += 2;
    } else if (auto policy = parse_ref_policy(opt)) {
      a.policy = *policy;  // the last one given wins
    } else if (xadd) {
      auto id = engine::parse_xadd_id(opt);
      if (!id) {
        ctx.reply.error(errors::text(id.err()));
        return false;
      }
      a.id = *id;
      a.id_given = true;
      break;
    } else {
      ctx.reply.error(errors::kSyntax);
      return false;
    }
  }
  a.id_pos = i;
  if (limit && a.trim.strategy == TrimStrategy::kNone) {
    ctx.reply.error(errors::kLimitWithoutStrategy);
    return false;
  }
  if (!xadd && a.trim.strategy == TrimStrategy::kNone) {
    ctx.reply.error(errors::kXtrimNoStrategy);
    return false;
  }
  if (a.limit_given) {
    if (!a.trim.approx) {
      ctx.reply.error(errors::kLimitWithoutApprox);
      return false;
    }
    a.trim.limit = static_cast<uint64_t>(limit);
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

void xadd(Context& ctx) {
  AddOrTrimArgs a;
  if (!parse_add_or_trim(ctx, true, a)) return;
  std::size_t field_pos = a.id_pos + 1;
  std::size_t nfields = ctx.argc() > field_pos ? ctx.argc() - field_pos : 0;
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
  for (std::size_t i = field_pos, k = 0; i + 1 < ctx.argc(); i += 2, ++k) {
    fields[k] = engine::FieldValue{ctx.arg(i), ctx.arg(i + 1)};
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
  write_id(ctx.reply, *id);
  engine::TrimResult trimmed;
  if (a.trim.strategy != TrimStrategy::kNone) {
    trimmed = engine::trim_with_policy(*s, a.trim, a.policy);
  }
  ctx.modified(key, events::kXadd);
  if (trimmed.removed > 0) ctx.notify(events::kXtrim, key);
  // The generated ID and the exact trim, so the AOF replays this entry and no other.
  propagate_xadd(ctx, key, *id, a.trim.strategy,
                 a.trim.strategy != TrimStrategy::kNone ? &trimmed : nullptr, fields, a.policy);
  if (a.idmp) propagate_idmp_record(ctx, key, a.pid, a.iid, *id);
}

void xtrim(Context& ctx) {
  AddOrTrimArgs a;
  // Every option is checked before the key is looked up, as in Redis: a missing key answers 0
  // only to a valid command, and a bad option on a key of another type is a syntax error.
  if (!parse_add_or_trim(ctx, false, a)) return;
  std::string_view key = ctx.arg(1);
  bool replied = false;
  Stream* s = find_stream(ctx, key, replied);
  if (replied) return;
  if (!s) {
    ctx.reply.integer(0);
    return;
  }
  uint64_t pending_before = total_pending(*s);
  engine::TrimResult r = engine::trim_with_policy(*s, a.trim, a.policy);
  ctx.reply.integer(static_cast<long long>(r.removed));
  if (r.removed || total_pending(*s) != pending_before) {
    // "xtrim" only when entries went (an ACKED/DELREF trim may only drop PEL references).
    // Redis counts one change per removed entry.
    ctx.modified(key, std::max<uint64_t>(r.removed, 1));
    if (r.removed) ctx.notify(events::kXtrim, key);
    // "~" becomes the exact trim it did
    propagate_xtrim(ctx, key, a.trim.strategy, r, a.policy);
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
  std::vector<StreamId> ids(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (!parse_strict_id_or_reply(ctx, ctx.arg(i), ids[i - 2])) return;
  }
  long long deleted = 0;
  for (StreamId id : ids) {
    if (s->erase(id)) ++deleted;
  }
  ctx.reply.integer(deleted);
  // Redis counts one change per deleted entry.
  if (deleted) ctx.modified(key, events::kXdel, static_cast<uint64_t>(deleted));
}

void xsetid(Context& ctx) {
  StreamId id;
  if (!parse_strict_id_or_reply(ctx, ctx.arg(2), id)) return;
  std::optional<uint64_t> entries_added;
  std::optional<StreamId> max_deleted;
  for (std::size_t i = 3; i < ctx.argc();) {
    bool more = i + 1 < ctx.argc();
    std::string_view opt = ctx.arg(i);
    if (iequals(opt, "entriesadded") && more) {
      auto n = parse_int(ctx.arg(i + 1));
      if (!n) {
        ctx.reply.error(errors::kNotInteger);
        return;
      }
      if (*n < 0) {
        ctx.reply.error(errors::text(engine::Err::kEntriesAddedNotPositive));
        return;
      }
      entries_added = static_cast<uint64_t>(*n);
      i += 2;
    } else if (iequals(opt, "maxdeletedid") && more) {
      StreamId md;
      if (!parse_strict_id_or_reply(ctx, ctx.arg(i + 1), md)) return;
      if (id < md) {
        ctx.reply.error(errors::text(engine::Err::kSetIdSmallerThanProvidedMaxDeleted));
        return;
      }
      max_deleted = md;
      i += 2;
    } else {
      ctx.reply.error(errors::kSyntax);
      return;
    }
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
