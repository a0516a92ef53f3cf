// ConsumerGroup: XCLAIM, XAUTOCLAIM, XREADGROUP CLAIM (ownership transfer of pending entries)
// and XNACK (release back to the group), and at their decision points the dead-letter rule
// (dead_letter.h): a claim that would add a delivery to an entry at the group's maximum, or an
// XNACK FATAL, takes the entry out of the group instead of handing it out.
#include <algorithm>
#include <cassert>
#include <limits>

#include "streamd/engine/consumer_group.h"

namespace streamd::engine {

ClaimResult ConsumerGroup::claim(const Stream& s, std::string_view consumer,
                                 std::span<const StreamId> ids, const ClaimOptions& opts,
                                 int64_t now_ms) {
  ClaimResult r;
  // Redis 7.2+: the consumer exists from the attempt on, whatever gets claimed.
  auto [c, created] = create_consumer(consumer, now_ms);
  r.consumer_created = created;
  c->seen_time_ms_ = now_ms;
  if (opts.last_id && *opts.last_id > last_delivered_id_) {
    last_delivered_id_ = *opts.last_id;
    r.last_id_changed = true;
  }
  int64_t delivery_time = opts.delivery_time_ms.value_or(now_ms);
  if (delivery_time < 0 || delivery_time > now_ms) delivery_time = now_ms;
  const int64_t min_idle = std::max<int64_t>(opts.min_idle_ms, 0);

  for (StreamId id : ids) {
    std::optional<PendingEntry> e = pel_.find(id);
    // The entry must still be in the stream; a record for a deleted one is dropped.
    if (!s.contains(id)) {
      if (e) {
        drop(id);
        r.deleted.push_back(id);
      }
      continue;
    }
    if (!e && !opts.force) continue;
    // A NACKed record (no owner) is claimable whatever min_idle: its delivery time is 0. A record
    // FORCE creates skips the idle check.
    if (e && e->owner && min_idle != 0 && now_ms - e->delivery_time_ms < min_idle) continue;
    // Only a claim that counts a delivery dead-letters (not JUSTID, not RETRYCOUNT: the forms
    // the AOF and replicas replay). A record FORCE creates starts at 1, never at a maximum.
    const bool counts = !opts.justid && !opts.retry_count;
    if (e && counts && dead_letter_due(*e) &&
        take_dead_letter(s, *e, DeadLetterReason::kMaxDeliveries, r.dead_lettered)) {
      continue;
    }
    uint64_t count = 1;
    if (!e) {
      pel_.add(id, delivery_time, 1, c->slot_);
    } else {
      pel_.redeliver(id, c->slot_, delivery_time);
      count = e->delivery_count;
    }
    if (opts.retry_count) {
      count = *opts.retry_count;
      pel_.set_count(id, count);
    } else if (!opts.justid) {
      count = bump_count(id);
    }
    c->active_time_ms_ = now_ms;
    debug_check_id(id);
    GroupEntry& out = opts.justid ? r.claimed.add(id, {}) : *add_stream_entry(s, id, r.claimed);
    out.pending = true;
    out.delivery_time_ms = delivery_time;
    out.delivery_count = count;
  }
  return r;
}

AutoClaimResult ConsumerGroup::autoclaim(const Stream& s, std::string_view consumer,
                                         int64_t min_idle_ms, StreamId start, std::size_t count,
                                         bool justid, int64_t now_ms) {
  AutoClaimResult r;
  auto [c, created] = create_consumer(consumer, now_ms);  // Redis 7.2+, as XCLAIM
  r.consumer_created = created;
  c->seen_time_ms_ = now_ms;
  // Redis examines at most COUNT * 10 PEL entries per call.
  constexpr std::size_t kAttemptsFactor = 10;
  std::size_t attempts = count > std::numeric_limits<std::size_t>::max() / kAttemptsFactor
                             ? std::numeric_limits<std::size_t>::max()
                             : count * kAttemptsFactor;
  // The claimed records change after the walk, in one batch (Pel::redeliver_many: the walk goes
  // through ID neighbours); until then the walk sees them as they were, which it never looks
  // at again.
  std::vector<StreamId> claimed;
  Pel::Iterator it = pel_.seek(start);
  while (attempts != 0 && count != 0 && it.valid()) {
    --attempts;
    StreamId id = it.id();
    if (!s.contains(id)) {
      drop(id);  // invalidates the iterator: seek past the dropped ID again
      r.deleted.push_back(id);
      --count;
      it = pel_.seek(id, SeekOp::kGt);
      continue;
    }
    PendingEntry e = it.entry();
    ++it;
    if (min_idle_ms > 0 && now_ms - e.delivery_time_ms < min_idle_ms) continue;
    if (!justid && dead_letter_due(e)) {
      // Counts against COUNT as a deleted entry does: the call did its work on it.
      take_dead_letter(s, e, DeadLetterReason::kMaxDeliveries, r.dead_lettered);
      --count;
      it = pel_.seek(id, SeekOp::kGt);  // the drop invalidated the iterator
      continue;
    }
    claimed.push_back(id);
    uint64_t n = justid ? e.delivery_count : Pel::bumped(e.delivery_count);
    c->active_time_ms_ = now_ms;
    GroupEntry& out = justid ? r.claimed.add(id, {}) : *add_stream_entry(s, id, r.claimed);
    out.pending = true;
    out.delivery_time_ms = now_ms;
    out.delivery_count = n;
    --count;
  }
  r.next_cursor = it.valid() ? it.id() : StreamId{};
  pel_.redeliver_many(claimed, c->slot_, now_ms, !justid);
  for (StreamId id : claimed) debug_check_id(id);
  return r;
}

ClaimIdleResult ConsumerGroup::claim_idle(const Stream& s, std::string_view consumer,
                                          int64_t min_idle_ms, std::size_t count, int64_t now_ms,
                                          Admission* admit) {
  ClaimIdleResult r;
  Consumer* c = find_consumer(consumer);
  if (c) c->seen_time_ms_ = now_ms;
  const int64_t min_idle = std::max<int64_t>(min_idle_ms, 0);
  // The walk only reads: claiming changes the records' times, which a time walk would not
  // survive, and the claimed records come back at "now", where the walk would meet them again.
  // So it looks at the k records first (copying the claimed entries into the reply, one stream
  // lookup each) and changes them after: O(k + deleted + dead-lettered).
  enum class Kind { kClaim, kDeleted, kDeadLetter };
  struct Taken {
    PendingEntry e;
    Kind kind;
    std::size_t out;  // kClaim: its index in r.claimed
  };
  std::vector<Taken> taken;
  std::vector<StreamId> claimed;
  std::size_t claimable = 0;
  for (Pel::Iterator it = pel_.by_time(); it.valid() && (count == 0 || claimable < count); ++it) {
    PendingEntry e = it.entry();
    // The owned part is ordered by delivery time: the first one not idle enough ends the walk.
    if (e.owner && now_ms - e.delivery_time_ms < min_idle) break;
    // Not counted against `count`: the reader gets up to count entries it can work on.
    if (dead_letter_due(e)) {
      taken.push_back({e, Kind::kDeadLetter, 0});
      continue;
    }
    if (!s.lookup(e.id, scratch_)) {
      taken.push_back({e, Kind::kDeleted, 0});
      continue;
    }
    if (admit) {
      GroupEntry offer{.id = e.id,
                       .fields = scratch_,
                       .claimed = true,
                       .idle_ms = e.owner ? now_ms - e.delivery_time_ms : -1,
                       .previous_count = e.delivery_count};
      if (!admit->admit(offer)) break;
    }
    r.claimed.add(e.id, scratch_);
    taken.push_back({e, Kind::kClaim, r.claimed.size() - 1});
    ++claimable;
  }
  if (admit) {
    // The walk ends at the last admitted entry (see the header).
    while (!taken.empty() && taken.back().kind != Kind::kClaim) taken.pop_back();
  }
  for (const Taken& t : taken) {
    if (t.kind == Kind::kDeadLetter &&
        take_dead_letter(s, t.e, DeadLetterReason::kMaxDeliveries, r.dead_lettered)) {
      continue;
    }
    if (t.kind != Kind::kClaim) {  // gone from the stream (a dead letter's too)
      r.deleted.push_back(t.e.id);
      drop(t.e.id);
      continue;
    }
    if (!c) {
      c = create_consumer(consumer, now_ms).first;
      r.consumer_created = true;
    }
    GroupEntry& out = r.claimed.entries_[t.out];
    out.claimed = true;
    out.idle_ms = t.e.owner ? now_ms - t.e.delivery_time_ms : -1;
    out.previous_count = t.e.delivery_count;
    out.pending = true;
    out.delivery_time_ms = now_ms;
    out.delivery_count = Pel::bumped(t.e.delivery_count);
    claimed.push_back(t.e.id);
  }
  // One batch: the claimed records are heads of time runs, so mostly ID neighbours.
  if (c) pel_.redeliver_many(claimed, c->slot_, now_ms, true);
  for (StreamId id : claimed) debug_check_id(id);
  if (claimable != 0) c->active_time_ms_ = now_ms;
  return r;
}

std::optional<int64_t> ConsumerGroup::next_claimable_ms(int64_t min_idle_ms, int64_t now_ms) const {
  if (pel_.nacked() != 0) return now_ms;
  std::optional<PendingEntry> head = pel_.time_head();
  if (!head) return std::nullopt;
  int64_t min_idle = std::max<int64_t>(min_idle_ms, 0);
  if (head->delivery_time_ms > std::numeric_limits<int64_t>::max() - min_idle) {
    return std::numeric_limits<int64_t>::max();
  }
  return head->delivery_time_ms + min_idle;
}

NackResult ConsumerGroup::nack(const Stream& s, std::span<const StreamId> ids, NackMode mode,
                               std::optional<uint64_t> retry_count, bool force) {
  constexpr uint64_t kMaxCount = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  NackResult r;
  for (StreamId id : ids) {
    std::optional<PendingEntry> e = pel_.find(id);
    if (e && mode == NackMode::kFatal && dead_letter_ &&
        take_dead_letter(s, *e, DeadLetterReason::kFatal, r.dead_lettered)) {
      ++r.released;
      continue;
    }
    uint64_t n;
    if (e) {
      n = e->delivery_count;
      if (retry_count) {
        n = *retry_count;
      } else if (mode == NackMode::kSilent) {
        if (n > 0) --n;
      } else if (mode == NackMode::kFatal) {
        n = kMaxCount;
      }
      pel_.release(id);
      pel_.set_count(id, n);
    } else {
      if (!force || !s.contains(id)) continue;
      n = retry_count ? *retry_count : mode == NackMode::kFatal ? kMaxCount : 0;
      pel_.add_nacked(id, n);
    }
    debug_check_id(id);
    ++r.released;
    r.records.emplace_back(id, n);
  }
  return r;
}

void ConsumerGroup::set_dead_letter(std::optional<DeadLetterPolicy> policy) {
  if (!policy) {
    dead_letter_.reset();
    return;
  }
  if (dead_letter_) policy->dead_lettered = dead_letter_->dead_lettered;
  dead_letter_ = std::make_unique<DeadLetterPolicy>(std::move(*policy));
}

bool ConsumerGroup::take_dead_letter(const Stream& s, const PendingEntry& e, DeadLetterReason why,
                                     std::vector<DeadLetter>& out) {
  if (!s.lookup(e.id, scratch_)) return false;
  DeadLetter& d = out.emplace_back();
  d.id = e.id;
  d.deliveries = e.delivery_count;
  if (e.owner) d.consumer = e.owner->name();
  d.reason = why;
  d.fields.reserve(scratch_.size());
  for (const FieldValue& fv : scratch_) d.fields.emplace_back(fv.field, fv.value);
  drop(e.id);
  ++dead_letter_->dead_lettered;
  return true;
}

}  // namespace streamd::engine
