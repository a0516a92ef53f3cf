// ConsumerGroup: read-only views (XPENDING, XINFO), deep copy, memory estimate and the
// invariant check.

#include <algorithm>

#include "streamd/engine/consumer_group.h"

namespace streamd::engine {

namespace {

PendingRecord record_of(const PendingEntry& e) {
  PendingRecord r{e.id, "", false, e.delivery_time_ms, e.delivery_count};
  if (e.owner) {
    r.consumer = e.owner->name();
  } else {
    r.nacked = true;
  }
  return r;
}

}  // namespace

// ---- XPENDING --------------------------------------------------------------------------------

PendingSummary ConsumerGroup::pending_summary() const {
  PendingSummary r;
  r.count = pel_.size();
  if (r.count == 0) return r;
  r.first = pel_.first_id();
  r.last = pel_.last_id();
  r.consumers.reserve(consumer_count());  // one allocation, not one per doubling
  for_each_consumer([&](const Consumer& c) {
    if (c.pending_count() != 0) r.consumers.emplace_back(c.name(), c.pending_count());
  });
  return r;
}

std::vector<PendingRecord> ConsumerGroup::pending_range(
    StreamId start, StreamId end, std::size_t count, int64_t min_idle_ms, int64_t now_ms,
    std::optional<std::string_view> consumer) const {
  std::vector<PendingRecord> r;
  Pel::Iterator it;
  std::size_t most = pel_.size();
  if (consumer) {
    const Consumer* c = find_consumer(*consumer);
    if (!c) return r;
    it = c->pel().seek(start);
    most = c->pending_count();
  } else {
    it = pel_.seek(start);
  }
  // Room for what the walk can return at most, up to a bound (a large COUNT over a narrow range
  // must not reserve for the whole PEL): no regrowth while filling for the usual COUNTs.
  constexpr std::size_t kReserveMax = 1024;
  r.reserve(std::min({count, most, kReserveMax}));
  for (; it.valid() && r.size() < count; ++it) {
    PendingEntry e = it.entry();  // decodes the ID once (it.id() would again)
    if (e.id > end) break;
    if (min_idle_ms != 0 && now_ms - e.delivery_time_ms < min_idle_ms) continue;
    r.push_back(record_of(e));
  }
  return r;
}

// ---- XINFO -----------------------------------------------------------------------------------

GroupInfo ConsumerGroup::info(const Stream& s) const {
  GroupInfo r;
  r.name = name_;
  r.consumers = consumers_.size();
  r.pending = pel_.size();
  r.last_delivered_id = last_delivered_id_;
  if (entries_read_ != kEntriesReadUnknown) r.entries_read = entries_read_;
  r.lag = lag(s);
  return r;
}

std::vector<ConsumerInfo> ConsumerGroup::consumers_info() const {
  std::vector<ConsumerInfo> r;
  r.reserve(consumers_.size());
  for_each_consumer([&](const Consumer& c) {
    r.push_back({c.name(), c.pending_count(), c.seen_time_ms_, c.active_time_ms_});
  });
  return r;
}

GroupFullInfo ConsumerGroup::full_info(const Stream& s, std::size_t count) const {
  GroupFullInfo r;
  r.info = info(s);
  auto capped = [count](std::size_t n) { return count != 0 && n >= count; };
  for (Pel::Iterator it = pel_.begin(); it.valid() && !capped(r.pending.size()); ++it) {
    r.pending.push_back(record_of(it.entry()));
  }
  r.nacked = pel_.nacked();
  for_each_consumer([&](const Consumer& c) {
    ConsumerFullInfo& ci = r.consumers.emplace_back();
    ci.info = {c.name(), c.pending_count(), c.seen_time_ms_, c.active_time_ms_};
    for (Pel::Iterator it = c.pel().begin(); it.valid() && !capped(ci.pending.size()); ++it) {
      PendingEntry e = it.entry();
      ci.pending.push_back({e.id, c.name(), false, e.delivery_time_ms, e.delivery_count});
    }
  });
  return r;
}

// ---- copy, memory, checks --------------------------------------------------------------------

std::unique_ptr<ConsumerGroup> ConsumerGroup::clone() const {
  auto g = std::make_unique<ConsumerGroup>(name_, last_delivered_id_, entries_read_);
  // The copy keeps every owner slot; each one is pointed at the copy's own consumer.
  g->pel_ = pel_;
  for_each_consumer([&](const Consumer& c) {
    auto* n = new Consumer(c.name(), c.seen_time_ms_, &g->pel_);
    n->active_time_ms_ = c.active_time_ms_;
    n->slot_ = c.slot_;
    g->pel_.set_owner(c.slot_, n);
    g->consumers_.insert(c.name(), n);
  });
  if (dead_letter_) g->dead_letter_ = std::make_unique<DeadLetterPolicy>(*dead_letter_);
  return g;
}

std::size_t ConsumerGroup::pel_memory_usage() const {
  return pel_.memory_usage();
}

std::size_t ConsumerGroup::memory_usage() const {
  auto string_bytes = [](const std::string& s) {
    return s.capacity() > std::string().capacity() ? malloc_size_estimate(s.capacity() + 1) : 0;
  };
  std::size_t bytes = malloc_size_estimate(sizeof(ConsumerGroup)) + string_bytes(name_) +
                      consumers_.memory_usage() + pel_memory_usage();
  if (dead_letter_) {
    bytes += malloc_size_estimate(sizeof(DeadLetterPolicy)) + string_bytes(dead_letter_->stream);
  }
  for_each_consumer([&](const Consumer& c) {
    bytes += malloc_size_estimate(sizeof(Consumer)) + string_bytes(c.name_);
  });
  return bytes;
}

bool ConsumerGroup::check_invariants(std::string* why) const {
  auto fail = [why](std::string msg) {
    if (why) *why = std::move(msg);
    return false;
  };
  if (!consumers_.check_invariants()) return fail("consumer tree is malformed");
  std::string pel_why;
  if (!pel_.check(&pel_why)) return fail(pel_why);
  std::size_t owned = 0;
  for (auto it = consumers_.begin(); it.valid(); ++it) {
    const Consumer* c = it.value();
    if (!c) return fail("null consumer");
    if (it.key() != c->name())
      return fail("consumer '" + c->name() + "' stored under another name");
    if (c->group_pel_ != &pel_) return fail("consumer '" + c->name() + "' of another PEL");
    std::size_t n = 0;
    for (Pel::Iterator p = c->pel().begin(); p.valid(); ++p, ++n) {
      PendingEntry e = p.entry();
      if (e.owner != c) {
        return fail(e.id.to_string() + " is in the PEL of '" + c->name() +
                    "' but owned by another consumer");
      }
    }
    if (n != c->pending_count()) return fail("the PEL of '" + c->name() + "' has a wrong size");
    owned += n;
  }
  for (Pel::Iterator p = pel_.begin(); p.valid(); ++p) {
    PendingEntry e = p.entry();
    if (e.owner == nullptr) continue;  // NACKed: the Pel's check covers it
    if (find_consumer(e.owner->name()) != e.owner) {
      return fail(e.id.to_string() + " is owned by a consumer not in the group");
    }
  }
  // The time index walks every record once, NACKed ones first, the others by (time, ID).
  std::size_t walked = 0, nacked = 0;
  std::optional<PendingEntry> prev;
  for (Pel::Iterator p = pel_.by_time(); p.valid(); ++p, ++walked) {
    PendingEntry e = p.entry();
    if (!e.owner) {
      if (prev && prev->owner) return fail(e.id.to_string() + " is NACKed but outside the zone");
      ++nacked;
      if (e.delivery_time_ms != 0) return fail(e.id.to_string() + " is NACKed with a time");
    } else if (prev && prev->owner &&
               (prev->delivery_time_ms > e.delivery_time_ms ||
                (prev->delivery_time_ms == e.delivery_time_ms && !(prev->id < e.id)))) {
      return fail("time index out of order at " + e.id.to_string());
    }
    prev = e;
  }
  if (walked != pel_.size()) {
    return fail("time index holds " + std::to_string(walked) + " records, the PEL " +
                std::to_string(pel_.size()));
  }
  if (nacked != pel_.nacked()) return fail("NACK zone count is wrong");
  if (owned + pel_.nacked() != pel_.size()) {
    return fail("consumer PELs hold " + std::to_string(owned) + " entries and " +
                std::to_string(pel_.nacked()) + " are NACKed, the group PEL " +
                std::to_string(pel_.size()));
  }
  return true;
}

}  // namespace streamd::engine
