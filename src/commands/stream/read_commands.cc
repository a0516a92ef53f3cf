// XRANGE, XREVRANGE, XLEN and XREAD (with BLOCK). A blocking XREAD that finds nothing asks to be
// parked with `$` already resolved to a concrete ID, so when it is re-run on a wake-up it serves
// exactly the entries added since it blocked (the same handler builds both replies).
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/stream/commands.h"
#include "streamd/commands/stream/read_budget.h"
#include "streamd/commands/stream/support.h"

namespace streamd::cmd {

using engine::Stream;
using engine::StreamId;

namespace {

void range_generic(Context& ctx, bool rev) {
  std::string_view start_arg = rev ? ctx.arg(3) : ctx.arg(2);
  std::string_view end_arg = rev ? ctx.arg(2) : ctx.arg(3);
  auto start = engine::parse_range_start(start_arg);
  if (!start) {
    ctx.reply.error(errors::text(start.err()));
    return;
  }
  auto end = engine::parse_range_end(end_arg);
  if (!end) {
    ctx.reply.error(errors::text(end.err()));
    return;
  }
  long long count = -1;
  for (std::size_t j = 4; j < ctx.argc(); ++j) {
    if (iequals(ctx.arg(j), "count") && j + 1 < ctx.argc()) {
      auto n = parse_int(ctx.arg(j + 1));
      if (!n) {
        ctx.reply.error(errors::kNotInteger);
        return;
      }
      count = *n < 0 ? 0 : *n;
      ++j;
    } else {
      ctx.reply.error(errors::kSyntax);
      return;
    }
  }
  bool replied = false;
  Stream* s = find_stream(ctx, ctx.arg(1), replied, StreamLookup::kRead);
  if (replied) return;
  if (!s) {
    ctx.reply.empty_array();
    return;
  }
  if (count == 0) {  // COUNT 0 (or negative) answers a null array
    ctx.reply.null_array();
    return;
  }
  write_range(ctx.reply, *s, *start, *end, count < 0 ? 0 : static_cast<std::size_t>(count),
              rev ? engine::Direction::kBackward : engine::Direction::kForward);
}

void xrange(Context& ctx) {
  range_generic(ctx, false);
}
void xrevrange(Context& ctx) {
  range_generic(ctx, true);
}

void xlen(Context& ctx) {
  bool replied = false;
  Stream* s = find_stream(ctx, ctx.arg(1), replied, StreamLookup::kRead);
  if (replied) return;
  ctx.reply.integer(s ? static_cast<long long>(s->length()) : 0);
}

void xread(Context& ctx) {
  ReadArgs a;
  if (!parse_read_args(ctx, false, a)) return;

  // Resolve every ID first (a bad ID or a wrong type anywhere fails the whole command).
  std::vector<StreamId> after(a.nstreams);
  std::vector<Stream*> streams(a.nstreams, nullptr);
  std::vector<bool> looked_up(a.nstreams, false);  // skipped: a woken read's non-stream key
  for (std::size_t i = 0; i < a.nstreams; ++i) {
    std::string_view key = ctx.arg(a.streams_pos + i);
    std::string_view id = ctx.arg(a.streams_pos + a.nstreams + i);
    bool replied = false;
    if (ctx.rerun_deadline_ms >= 0) {
      // A woken XREAD whose key now holds another type keeps waiting, as in Redis (only a
      // stream makes a plain XREAD ready).
      engine::Entry* e = ctx.db().find(key);
      if (e && !e->value.is_stream()) continue;
    }
    streams[i] = find_stream(ctx, key, replied, StreamLookup::kRead);
    looked_up[i] = true;
    if (replied) return;
    if (id == "$") {
      after[i] = streams[i] ? streams[i]->last_id() : StreamId::min();
    } else if (id == "+") {
      // Redis 7.4+: "+" is the ID just below the stream's last ID, so the last entry is served
      // if it is still there (nothing if it was deleted), and a stream whose last ID is 0-0
      // has nothing below it: an error. A missing key reads as 0-0 and waits. "+" is not
      // resolved for blocking: a woken XREAD re-reads it and serves the last entry then.
      if (Stream* s = streams[i]) {
        auto below = s->last_id().prev();
        if (!below) {
          ctx.reply.error(errors::kXreadPlusOnZeroId);
          return;
        }
        after[i] = *below;
      } else {
        after[i] = StreamId::min();
      }
    } else if (id == ">") {
      ctx.reply.error(errors::kXreadGreaterThanId);
      return;
    } else if (!parse_strict_id_or_reply(ctx, id, after[i])) {
      return;
    }
  }

  // Serve every stream that has an entry after its ID, within MAXCOUNT/MAXSIZE.
  resp::ReplyWriter& w = ctx.reply;
  std::size_t served = 0;
  resp::ReplyWriter::Deferred d{};
  ReadBudget budget(static_cast<uint64_t>(a.maxcount), static_cast<uint64_t>(a.maxsize));
  for (std::size_t i = 0; i < a.nstreams && !budget.stopped(); ++i) {
    Stream* s = streams[i];
    if (looked_up[i]) repeat_read_lookup(ctx, ctx.arg(a.streams_pos + i), s != nullptr);
    if (!s || s->length() == 0) continue;
    if (s->last_entry_id() <= after[i]) continue;
    StreamId start = after[i].next().value_or(StreamId::max());
    std::size_t limit = static_cast<std::size_t>(a.count);
    if (budget.limited() && (limit = read_fit(*s, start, limit, budget)) == 0) break;
    if (served == 0) d = w.defer();
    ++served;
    w.pair();
    w.bulk(ctx.arg(a.streams_pos + i));
    write_range(w, *s, start, StreamId::max(), limit, engine::Direction::kForward);
  }
  if (served) {
    w.end_pair_map(d, served);
    return;
  }
  if (!a.block || !ctx.may_block()) {
    w.null_array();
    return;
  }
  // Park the client. The re-run command has each `$` replaced by the ID it stood for now.
  std::vector<std::pair<int, std::string>> keys;
  std::vector<std::string> rerun(ctx.argv.begin(), ctx.argv.end());
  for (std::size_t i = 0; i < a.nstreams; ++i) {
    keys.emplace_back(ctx.session.db, std::string(ctx.arg(a.streams_pos + i)));
    std::string& id = rerun[a.streams_pos + a.nstreams + i];
    if (id == "$") id = after[i].to_string();
  }
  ctx.block(std::move(keys), a.deadline_ms, std::move(rerun));
}

}  // namespace

bool parse_read_args(Context& ctx, bool xreadgroup, ReadArgs& a) {
  std::size_t argc = ctx.argc();
  std::size_t i = 1;
  for (; i < argc; ++i) {
    std::size_t more = argc - i - 1;
    std::string_view opt = ctx.arg(i);
    if (iequals(opt, "block") && more) {
      ++i;
      if (!parse_block_timeout(ctx, ctx.arg(i), a.deadline_ms)) return false;
      a.block = true;
    } else if (iequals(opt, "count") && more) {
      ++i;
      auto n = parse_int(ctx.arg(i));
      if (!n) {
        ctx.reply.error(errors::kNotInteger);
        return false;
      }
      a.count = *n < 0 ? 0 : *n;
    } else if ((iequals(opt, "maxcount") || iequals(opt, "maxsize")) && more) {
      bool is_count = iequals(opt, "maxcount");
      auto n = parse_int(ctx.arg(++i));
      if (!n || *n <= 0) {
        ctx.reply.error(is_count ? errors::kMaxCountNotPositive : errors::kMaxSizeNotPositive);
        return false;
      }
      (is_count ? a.maxcount : a.maxsize) = *n;
    } else if (iequals(opt, "streams") && more) {
      a.streams_pos = i + 1;
      std::size_t rest = argc - a.streams_pos;
      if (rest % 2 != 0) {
        ctx.reply.error(xreadgroup ? errors::kXreadgroupUnbalanced : errors::kXreadUnbalanced);
        return false;
      }
      a.nstreams = rest / 2;
      break;
    } else if (iequals(opt, "group") && more >= 2) {
      if (!xreadgroup) {
        ctx.reply.error(errors::kGroupOnlyInXreadgroup);
        return false;
      }
      a.group = ctx.arg(i + 1);
      a.consumer = ctx.arg(i + 2);
      a.has_group = true;
      i += 2;
    } else if (iequals(opt, "claim") && more) {
      if (!xreadgroup) {
        ctx.reply.error(errors::kClaimOnlyInXreadgroup);
        return false;
      }
      ++i;
      auto n = parse_int(ctx.arg(i));
      if (!n) {
        ctx.reply.error(errors::kMinIdleNotInteger);
        return false;
      }
      if (*n < 0) {
        ctx.reply.error(errors::kMinIdleNegative);
        return false;
      }
      a.claim = true;
      a.claim_min_idle_ms = *n;
    } else if (iequals(opt, "noack")) {
      if (!xreadgroup) {
        ctx.reply.error(errors::kNoackOnlyInXreadgroup);
        return false;
      }
      a.noack = true;
    } else {
      ctx.reply.error(errors::kSyntax);
      return false;
    }
  }
  if (a.streams_pos == 0) {
    ctx.reply.error(errors::kSyntax);
    return false;
  }
  if (xreadgroup && !a.has_group) {
    ctx.reply.error(errors::kXreadgroupMissingGroup);
    return false;
  }
  if (a.maxcount != 0 && a.count > a.maxcount) {
    ctx.reply.error(errors::kMaxCountBelowCount);
    return false;
  }
  return true;
}

std::vector<int> xread_keys(std::span<const std::string_view> argv) {
  std::vector<int> keys;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (iequals(argv[i], "streams")) {
      std::size_t rest = argv.size() - i - 1;
      if (rest % 2 != 0) return {};
      for (std::size_t k = 0; k < rest / 2; ++k) keys.push_back(static_cast<int>(i + 1 + k));
      return keys;
    }
  }
  return keys;
}

void register_stream_read_commands(CommandTable& t) {
  t.add({"xrange", -4, kReadonly, "read stream slow", 1, 1, 1, xrange, {}, nullptr, "stream"});
  t.add(
      {"xrevrange", -4, kReadonly, "read stream slow", 1, 1, 1, xrevrange, {}, nullptr, "stream"});
  t.add({"xlen", 2, kReadonly | kFast, "read stream fast", 1, 1, 1, xlen, {}, nullptr, "stream"});
  t.add({"xread",
         -4,
         kReadonly | kBlocking | kMovableKeys,
         "read stream slow blocking",
         0,
         0,
         0,
         xread,
         {},
         xread_keys,
         "stream"});
}

}  // namespace streamd::cmd
