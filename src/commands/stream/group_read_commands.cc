// XREADGROUP (new entries with `>`, history with an ID, BLOCK), XCLAIM and XAUTOCLAIM: the
// commands that hand entries to consumers. A blocking XREADGROUP that finds nothing parks with
// the same command line; its re-run on a wake-up goes through this same handler, which also
// answers NOGROUP or WRONGTYPE if the group or key went away meanwhile.
#include <climits>
#include <limits>
#include <span>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/stream/commands.h"
#include "streamd/commands/stream/dead_letters.h"
#include "streamd/commands/stream/group_render.h"
#include "streamd/commands/stream/propagation.h"
#include "streamd/commands/stream/read_budget.h"
#include "streamd/commands/stream/support.h"
#include "streamd/engine/consumer_group.h"

namespace streamd::cmd {

using engine::ConsumerGroup;
using engine::Stream;
using engine::StreamId;

namespace {

struct GroupRead {
  Stream* stream = nullptr;
  ConsumerGroup* group = nullptr;
  bool new_entries = false;  // ">"
  StreamId after;            // history: entries with ID > after
};

void xreadgroup(Context& ctx) {
  ReadArgs a;
  if (!parse_read_args(ctx, true, a)) return;

  std::vector<GroupRead> reads(a.nstreams);
  for (std::size_t i = 0; i < a.nstreams; ++i) {
    std::string_view key = ctx.arg(a.streams_pos + i);
    std::string_view id = ctx.arg(a.streams_pos + a.nstreams + i);
    bool replied = false;
    // A blocked XREADGROUP woken because its key went away (DEL, FLUSHALL, a RENAME or SWAPDB
    // that replaced it), changed type or lost its group re-runs like a fresh call and gets the
    // errors a fresh call gets (Redis 7.4+; 7.0 answered -UNBLOCKED).
    Stream* s = find_stream(ctx, key, replied, StreamLookup::kRead);
    if (replied) return;
    ConsumerGroup* g = s ? s->groups().find(a.group) : nullptr;
    if (!g) {
      ctx.reply.error(errors::nogroup_xreadgroup(key, a.group));
      return;
    }
    reads[i].stream = s;
    reads[i].group = g;
    if (id == "$") {
      ctx.reply.error(errors::kDollarInXreadgroup);
      return;
    }
    if (id == "+") {
      ctx.reply.error(errors::kPlusInXreadgroup);
      return;
    }
    if (id == ">") {
      reads[i].new_entries = true;
    } else if (!parse_strict_id_or_reply(ctx, id, reads[i].after)) {
      return;
    } else if (reads[i].after.is_max()) {
      // Redis stores `>` as the maximal ID and tells the two reads apart by it, so an explicit
      // 18446744073709551615-18446744073709551615 reads new entries as `>` does.
      reads[i].new_entries = true;
    }
    // CLAIM (with `>`) may dead-letter: the dead-letter stream must be usable before anything
    // changes.
    if (a.claim && reads[i].new_entries && !dead_letter_ready(ctx, *g)) return;
  }

  resp::ReplyWriter& w = ctx.reply;
  std::size_t served = 0;
  resp::ReplyWriter::Deferred d{};
  // XREADGROUP itself never propagates: its deliveries do, as XCLAIM ... FORCE JUSTID.
  ctx.propagate_nothing();
  ReadBudget budget(static_cast<uint64_t>(a.maxcount), static_cast<uint64_t>(a.maxsize));
  for (std::size_t i = 0; i < a.nstreams && !budget.stopped(); ++i) {
    GroupRead& r = reads[i];
    std::string_view key = ctx.arg(a.streams_pos + i);
    repeat_read_lookup(ctx, key, true);  // Redis looks every key up again to serve it
    // Redis 7.2+: the consumer exists from the attempt on (also when nothing is served and the
    // call blocks), and every attempt is "seen". CLAIM (only with `>`): first the NACKed and
    // idle pending entries, oldest delivery first, then new entries, COUNT shared between the
    // two (per stream, as COUNT always is). MAXCOUNT/MAXSIZE: the walks offer the budget each
    // entry before they deliver it.
    engine::GroupReadRequest req{.consumer = a.consumer,
                                 .new_entries = r.new_entries,
                                 .start = r.after.next().value_or(StreamId::max()),
                                 .count = static_cast<std::size_t>(a.count),
                                 .noack = a.noack};
    if (a.claim) req.claim_min_idle_ms = a.claim_min_idle_ms;
    engine::GroupReadResult fx =
        r.group->read(*r.stream, req, ctx.now_ms, budget.limited() ? &budget : nullptr);
    const bool claim = a.claim && r.new_entries;
    // History reads are always served, unless the budget refused their first entry; `>` reads
    // when they delivered or claimed something.
    const bool shown = !fx.claimed.empty() ||
                       (r.new_entries ? !fx.read.empty() : !(fx.read.empty() && fx.refused));
    propagate_group_effects(ctx, key, a.group, a.consumer, *r.group, fx);
    // Redis counts the created consumer, and one change per served stream whose delivery
    // propagated something (new entries, claims, drops); a history read changes delivery counts
    // but counts (and propagates) nothing.
    if (fx.consumer_created) ctx.mark_dirty();
    if (shown &&
        ((fx.read_new && !fx.read.empty()) || !fx.claimed.empty() || !fx.deleted.empty())) {
      ctx.mark_dirty();
    }
    if (!shown) {
      // Nothing of this stream is rendered: no view the dead letters' append could move.
      deliver_dead_letters(ctx, key, *r.group, fx.dead_lettered);
      if (fx.refused) break;
      continue;
    }
    if (served == 0) d = w.defer();
    ++served;
    w.pair();
    w.bulk(ctx.arg(a.streams_pos + i));
    if (claim) {
      write_claim_delivery(w, fx.claimed, fx.read);
    } else {
      write_delivery(w, fx.read, false);
    }
    // After rendering: the append may be to this very stream (after a RENAME), moving views.
    deliver_dead_letters(ctx, key, *r.group, fx.dead_lettered);
  }
  if (served) {
    w.end_pair_map(d, served);
    return;
  }
  if (!a.block || !ctx.may_block()) {
    w.null_array();
    return;
  }
  std::vector<std::pair<int, std::string>> keys;
  for (std::size_t i = 0; i < a.nstreams; ++i) {
    keys.emplace_back(ctx.session.db, std::string(ctx.arg(a.streams_pos + i)));
  }
  ctx.block(std::move(keys), a.deadline_ms, {});
  if (a.claim) {
    // Also wake when the first pending entry becomes claimable (a XADD, XNACK or XCLAIM to an
    // older time wakes it through the keys as usual). Only CLAIM readers pay for this timer.
    int64_t wake = 0;
    for (const GroupRead& r : reads) {
      if (!r.new_entries) continue;
      std::optional<int64_t> t = r.group->next_claimable_ms(a.claim_min_idle_ms, ctx.now_ms);
      if (t && (wake == 0 || *t < wake)) wake = *t;
    }
    if (wake != 0 && wake <= ctx.now_ms) wake = ctx.now_ms + 1;
    // No timer when the timeout comes first (or never: min-idle-time near LLONG_MAX).
    if (wake == std::numeric_limits<int64_t>::max() ||
        (a.deadline_ms > 0 && wake >= a.deadline_ms)) {
      wake = 0;
    }
    ctx.block_wake_ms = wake;
  }
}

// XCLAIM / XAUTOCLAIM (key group consumer ...): propagates what the claim did and counts it as
// Redis does: the consumer it created (Redis 7.2+ creates it even when nothing is claimed, and
// only an explicit record recreates it on replay), each record it dropped and each entry it
// claimed; a moved LASTID once, unless a claim or drop carried it.
void record_claim(Context& ctx, const ConsumerGroup& g, const engine::GroupEffects& fx) {
  ctx.propagate_nothing();
  propagate_group_effects(ctx, ctx.arg(1), ctx.arg(2), ctx.arg(3), g, fx);
  if (fx.consumer_created) ctx.mark_dirty();
  ctx.mark_dirty(fx.deleted.size() + fx.claimed.size());
  if (fx.last_id_changed && fx.claimed.empty() && fx.deleted.empty()) ctx.mark_dirty();
}

// XCLAIM / XAUTOCLAIM: the stream and group, or NOGROUP / WRONGTYPE.
ConsumerGroup* claim_group(Context& ctx, Stream*& s) {
  bool replied = false;
  s = find_stream(ctx, ctx.arg(1), replied, StreamLookup::kRead);
  if (replied) return nullptr;
  ConsumerGroup* g = s ? s->groups().find(ctx.arg(2)) : nullptr;
  if (!g) ctx.reply.error(errors::nogroup_key_or_group(ctx.arg(1), ctx.arg(2)));
  return g;
}

// XCLAIM key group consumer min-idle-time id... [options]: the arguments after the consumer.
struct ClaimArgs {
  std::vector<StreamId> ids;
  engine::ClaimOptions opts;
};

bool parse_xclaim(const Context& ctx, ArgCursor& cur, ClaimArgs& a) {
  long long min_idle = 0;
  if (!cur.next_int(min_idle, errors::kXclaimMinIdle)) return false;
  a.opts.min_idle_ms = min_idle < 0 ? 0 : min_idle;
  // IDs run until the first argument that is not an ID; the rest are options.
  while (!cur.done()) {
    auto id = engine::parse_strict_id(cur.peek());
    if (!id) break;
    a.ids.push_back(*id);
    cur.skip();
  }
  engine::ClaimOptions& opts = a.opts;
  while (!cur.done()) {
    long long v = 0;
    if (cur.match("force")) {
      opts.force = true;
    } else if (cur.match("justid")) {
      opts.justid = true;
    } else if (cur.match("idle", 1)) {
      if (!cur.next_int(v, errors::kXclaimIdle)) return false;
      opts.delivery_time_ms = ConsumerGroup::delivery_time_from_idle(ctx.now_ms, v);
    } else if (cur.match("time", 1)) {
      if (!cur.next_int(v, errors::kXclaimTime)) return false;
      opts.delivery_time_ms = v;
    } else if (cur.match("retrycount", 1)) {
      if (!cur.next_int(v, errors::kXclaimRetryCount)) return false;
      // The last RETRYCOUNT wins, and a negative one means "not given" (Redis keeps -1 as
      // its unset value), so it also cancels an earlier valid one.
      opts.retry_count = v >= 0 ? std::optional<uint64_t>(static_cast<uint64_t>(v)) : std::nullopt;
    } else if (cur.match("lastid", 1)) {
      StreamId last;
      if (!next_strict_id(cur, last)) return false;
      opts.last_id = last;
    } else {
      return cur.fail(errors::xclaim_unrecognized_option(cur.peek()));
    }
  }
  return true;
}

void xclaim(Context& ctx) {
  Stream* s = nullptr;
  ConsumerGroup* g = claim_group(ctx, s);
  if (!g) return;
  ArgCursor cur(ctx.argv, 4);
  ClaimArgs a;
  if (!parse_xclaim(ctx, cur, a)) {
    ctx.reply.error(cur.error());
    return;
  }
  if (!dead_letter_ready(ctx, *g)) return;
  const engine::ClaimOptions& opts = a.opts;
  const std::vector<StreamId>& ids = a.ids;
  engine::ClaimResult r = g->claim(*s, ctx.arg(3), ids, opts, ctx.now_ms);
  // An explicit IDLE/TIME may make an entry claimable sooner: blocked CLAIM readers look again.
  if (opts.delivery_time_ms && !r.claimed.empty()) {
    ctx.server.blocking().signal_ready(ctx.session.db, ctx.arg(1));
  }
  write_delivery(ctx.reply, r.claimed, opts.justid);
  record_claim(ctx, *g, r);
  deliver_dead_letters(ctx, ctx.arg(1), *g, r.dead_lettered);
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID].
struct AutoClaimArgs {
  long long min_idle = 0;
  StreamId start;
  long long count = 100;
  bool justid = false;
};

bool parse_xautoclaim(ArgCursor& cur, AutoClaimArgs& a) {
  if (!cur.next_int(a.min_idle, errors::kXautoclaimMinIdle)) return false;
  if (!take_parsed(cur, engine::parse_range_start(cur.next()), a.start)) return false;
  while (!cur.done()) {
    if (cur.match("count", 1)) {
      // Redis bounds COUNT so that COUNT * 10 attempts cannot overflow.
      constexpr long long kMaxCount = LONG_MAX / 16;
      if (!cur.next_int_in(a.count, 1, kMaxCount, errors::kXautoclaimCount,
                           errors::kXautoclaimCount)) {
        return false;
      }
    } else if (cur.match("justid")) {
      a.justid = true;
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  return true;
}

void xautoclaim(Context& ctx) {
  ArgCursor cur(ctx.argv, 4);
  AutoClaimArgs a;
  if (!parse_xautoclaim(cur, a)) {
    ctx.reply.error(cur.error());
    return;
  }
  Stream* s = nullptr;
  ConsumerGroup* g = claim_group(ctx, s);
  if (!g) return;
  if (!dead_letter_ready(ctx, *g)) return;
  engine::AutoClaimResult r = g->autoclaim(*s, ctx.arg(3), a.min_idle < 0 ? 0 : a.min_idle, a.start,
                                           static_cast<std::size_t>(a.count), a.justid, ctx.now_ms);
  record_claim(ctx, *g, r);
  resp::ReplyWriter& w = ctx.reply;
  w.array(3);
  write_id(w, r.next_cursor);
  write_delivery(w, r.claimed, a.justid);
  w.array(r.deleted.size());
  for (StreamId id : r.deleted) write_id(w, id);
  // Dead-lettered entries are in neither list: they are not deleted from the stream.
  deliver_dead_letters(ctx, ctx.arg(1), *g, r.dead_lettered);
}

std::vector<int> xreadgroup_keys(std::span<const std::string_view> argv) {
  return xread_keys(argv);
}

}  // namespace

void register_stream_group_read_commands(CommandTable& t) {
  t.add({"xreadgroup",
         -7,
         kWrite | kBlocking | kMovableKeys,
         "write stream slow blocking",
         0,
         0,
         0,
         xreadgroup,
         {},
         xreadgroup_keys,
         "stream"});
  t.add(
      {"xclaim", -6, kWrite | kFast, "write stream fast", 1, 1, 1, xclaim, {}, nullptr, "stream"});
  t.add({"xautoclaim",
         -6,
         kWrite | kFast,
         "write stream fast",
         1,
         1,
         1,
         xautoclaim,
         {},
         nullptr,
         "stream"});
}

}  // namespace streamd::cmd
