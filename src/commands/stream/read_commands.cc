// XRANGE, XREVRANGE, XLEN and XREAD (with BLOCK). A blocking XREAD that finds nothing asks to be
// parked with `$` already resolved to a concrete ID, so when it is re-run on a wake-up it serves
// exactly the entries added since it blocked (the same handler builds both replies).
#include <climits>
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

// XRANGE key start end [COUNT n] / XREVRANGE key end start [COUNT n]: the bounds (start first,
// wherever it is written) and COUNT are checked before the key is looked up. `count` is -1
// without COUNT and 0 for COUNT 0 or below. Returns false with the error in `cur`.
bool parse_range(ArgCursor& cur, bool rev, StreamId& start, StreamId& end, long long& count) {
  std::string_view first = cur.next(), second = cur.next();
  if (!take_parsed(cur, engine::parse_range_start(rev ? second : first), start) ||
      !take_parsed(cur, engine::parse_range_end(rev ? first : second), end)) {
    return false;
  }
  count = -1;
  while (!cur.done()) {
    if (!cur.match("count", 1)) return cur.fail(errors::kSyntax);
    if (!cur.next_int(count)) return false;
    if (count < 0) count = 0;
  }
  return true;
}

void range_generic(Context& ctx, bool rev) {
  StreamId start, end;
  long long count = -1;
  ArgCursor cur(ctx.argv, 2);
  if (!parse_range(cur, rev, start, end, count)) {
    ctx.reply.error(cur.error());
    return;
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
  write_range(ctx.reply, *s, start, end, count < 0 ? 0 : static_cast<std::size_t>(count),
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

namespace {

// The options of XREAD / XREADGROUP up to STREAMS. Returns false with the error in `cur`.
bool parse_read_options(const Context& ctx, ArgCursor& cur, bool xreadgroup, ReadArgs& a) {
  while (!cur.done()) {
    if (cur.match("block", 1)) {
      if (!next_block_timeout(ctx, cur, a.deadline_ms)) return false;
      a.block = true;
    } else if (cur.match("count", 1)) {
      if (!cur.next_int(a.count)) return false;
      if (a.count < 0) a.count = 0;
    } else if (cur.match("maxcount", 1)) {
      // One text for a malformed and a non-positive value.
      if (!cur.next_int_in(a.maxcount, 1, LLONG_MAX, errors::kMaxCountNotPositive,
                           errors::kMaxCountNotPositive)) {
        return false;
      }
    } else if (cur.match("maxsize", 1)) {
      if (!cur.next_int_in(a.maxsize, 1, LLONG_MAX, errors::kMaxSizeNotPositive,
                           errors::kMaxSizeNotPositive)) {
        return false;
      }
    } else if (cur.match("streams", 1)) {
      a.streams_pos = cur.pos();
      if (cur.remaining() % 2 != 0) {
        return cur.fail(xreadgroup ? errors::kXreadgroupUnbalanced : errors::kXreadUnbalanced);
      }
      a.nstreams = cur.remaining() / 2;
      break;
    } else if (cur.match("group", 2)) {
      if (!xreadgroup) return cur.fail(errors::kGroupOnlyInXreadgroup);
      a.group = cur.next();
      a.consumer = cur.next();
      a.has_group = true;
    } else if (cur.match("claim", 1)) {
      if (!xreadgroup) return cur.fail(errors::kClaimOnlyInXreadgroup);
      long long idle = 0;
      if (!cur.next_int(idle, errors::kMinIdleNotInteger) ||
          !cur.require(idle >= 0, errors::kMinIdleNegative)) {
        return false;
      }
      a.claim = true;
      a.claim_min_idle_ms = idle;
    } else if (cur.match("noack")) {
      if (!xreadgroup) return cur.fail(errors::kNoackOnlyInXreadgroup);
      a.noack = true;
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  if (a.streams_pos == 0) return cur.fail(errors::kSyntax);
  if (xreadgroup && !a.has_group) return cur.fail(errors::kXreadgroupMissingGroup);
  return cur.require(a.maxcount == 0 || a.count <= a.maxcount, errors::kMaxCountBelowCount);
}

}  // namespace

bool parse_read_args(Context& ctx, bool xreadgroup, ReadArgs& a) {
  ArgCursor cur(ctx.argv, 1);
  if (parse_read_options(ctx, cur, xreadgroup, a)) return true;
  ctx.reply.error(cur.error());
  return false;
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
