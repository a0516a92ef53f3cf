// ConsumerGroup: XCLAIM and XAUTOCLAIM (ownership transfer of pending entries).
#include <algorithm>
#include <limits>

#include "streamd/engine/consumer_group.h"

namespace streamd::engine {

ClaimResult ConsumerGroup::claim(const Stream& s, std::string_view consumer,
                                 std::span<const StreamId> ids, const ClaimOptions& opts,
                                 int64_t now_ms) {
  ClaimResult r;
  Consumer* c = find_consumer(consumer);
  if (c) c->seen_time_ms_ = now_ms;
  if (opts.last_id && *opts.last_id > last_delivered_id_) {
    last_delivered_id_ = *opts.last_id;
    r.last_id_changed = true;
  }
  int64_t delivery_time = opts.delivery_time_ms.value_or(now_ms);
  if (delivery_time < 0 || delivery_time > now_ms) delivery_time = now_ms;
  const int64_t min_idle = std::max<int64_t>(opts.min_idle_ms, 0);

  for (StreamId id : ids) {
    PendingEntry* e = pel_.find(id);
    // The entry must still be in the stream; a record for a deleted one is dropped.
    if (!s.contains(id)) {
      if (e) {
        drop(id, e);
        r.deleted.push_back(id);
      }
      continue;
    }
    if (!e && opts.force) {
      // A new record skips the idle check (it has no owner yet).
      e = new PendingEntry{now_ms, 1, nullptr};
      pel_.insert(id, e);
    }
    bool take = e != nullptr;
    if (take && e->owner && min_idle != 0 && now_ms - e->delivery_time_ms < min_idle) take = false;
    if (!take) continue;
    if (!c) {
      c = create_consumer(consumer, now_ms).first;
      r.consumer_created = true;
    }
    assign(id, e, c);
    e->delivery_time_ms = delivery_time;
    if (opts.retry_count) {
      e->delivery_count = *opts.retry_count;
    } else if (!opts.justid) {
      ++e->delivery_count;
    }
    c->active_time_ms_ = now_ms;
    debug_check_id(id);
    GroupEntry& out = opts.justid ? r.claimed.add(id, {}) : *add_stream_entry(s, id, r.claimed);
    out.pending = true;
    out.delivery_time_ms = e->delivery_time_ms;
    out.delivery_count = e->delivery_count;
  }
  return r;
}

AutoClaimResult ConsumerGroup::autoclaim(const Stream& s, std::string_view consumer,
                                         int64_t min_idle_ms, StreamId start, std::size_t count,
                                         bool justid, int64_t now_ms) {
  AutoClaimResult r;
  Consumer* c = find_consumer(consumer);
  if (c) c->seen_time_ms_ = now_ms;
  // Redis examines at most COUNT * 10 PEL entries per call.
  constexpr std::size_t kAttemptsFactor = 10;
  std::size_t attempts = count > std::numeric_limits<std::size_t>::max() / kAttemptsFactor
                             ? std::numeric_limits<std::size_t>::max()
                             : count * kAttemptsFactor;
  Pel::Iterator it = pel_.seek(start);
  while (attempts != 0 && count != 0 && it.valid()) {
    --attempts;
    StreamId id = it.id();
    PendingEntry* e = it.entry();
    if (!s.contains(id)) {
      drop(id, e);  // invalidates the iterator: seek past the dropped ID again
      r.deleted.push_back(id);
      --count;
      it = pel_.seek(id, SeekOp::kGt);
      continue;
    }
    ++it;
    if (min_idle_ms > 0 && now_ms - e->delivery_time_ms < min_idle_ms) continue;
    if (!c) {
      c = create_consumer(consumer, now_ms).first;
      r.consumer_created = true;
    }
    // Changing owners touches only consumer Pels, so `it` (on the group Pel) stays valid.
    assign(id, e, c);
    e->delivery_time_ms = now_ms;
    if (!justid) ++e->delivery_count;
    c->active_time_ms_ = now_ms;
    debug_check_id(id);
    GroupEntry& out = justid ? r.claimed.add(id, {}) : *add_stream_entry(s, id, r.claimed);
    out.pending = true;
    out.delivery_time_ms = e->delivery_time_ms;
    out.delivery_count = e->delivery_count;
    --count;
  }
  r.next_cursor = it.valid() ? it.id() : StreamId{};
  return r;
}

}  // namespace streamd::engine
