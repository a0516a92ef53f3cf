// ConsumerGroup: read-only views (XPENDING, XINFO), deep copy, memory estimate and the
// invariant check.
#include <unordered_map>

#include "streamd/engine/consumer_group.h"

namespace streamd::engine {

namespace {

PendingRecord record_of(StreamId id, const PendingEntry* e) {
  PendingRecord r{id, "", false, e->delivery_time_ms, e->delivery_count};
  if (e->owner) {
    r.consumer = e->owner->name();
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
  for_each_consumer([&](const Consumer& c) {
    if (!c.pel_.empty()) r.consumers.emplace_back(c.name(), c.pel_.size());
  });
  return r;
}

std::vector<PendingRecord> ConsumerGroup::pending_range(
    StreamId start, StreamId end, std::size_t count, int64_t min_idle_ms, int64_t now_ms,
    std::optional<std::string_view> consumer) const {
  std::vector<PendingRecord> r;
  const Pel* pel = &pel_;
  if (consumer) {
    const Consumer* c = find_consumer(*consumer);
    if (!c) return r;
    pel = &c->pel_;
  }
  for (Pel::Iterator it = pel->seek(start); it.valid() && r.size() < count; ++it) {
    StreamId id = it.id();
    if (id > end) break;
    const PendingEntry* e = it.entry();
    if (min_idle_ms != 0 && now_ms - e->delivery_time_ms < min_idle_ms) continue;
    r.push_back(record_of(id, e));
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
    r.push_back({c.name(), c.pel_.size(), c.seen_time_ms_, c.active_time_ms_});
  });
  return r;
}

GroupFullInfo ConsumerGroup::full_info(const Stream& s, std::size_t count) const {
  GroupFullInfo r;
  r.info = info(s);
  auto capped = [count](std::size_t n) { return count != 0 && n >= count; };
  for (Pel::Iterator it = pel_.begin(); it.valid() && !capped(r.pending.size()); ++it) {
    r.pending.push_back(record_of(it.id(), it.entry()));
  }
  r.nacked = by_time_.nacked();
  for_each_consumer([&](const Consumer& c) {
    ConsumerFullInfo& ci = r.consumers.emplace_back();
    ci.info = {c.name(), c.pel_.size(), c.seen_time_ms_, c.active_time_ms_};
    for (Pel::Iterator it = c.pel_.begin(); it.valid() && !capped(ci.pending.size()); ++it) {
      const PendingEntry* e = it.entry();
      ci.pending.push_back({it.id(), c.name(), false, e->delivery_time_ms, e->delivery_count});
    }
  });
  return r;
}

// ---- copy, memory, checks --------------------------------------------------------------------

std::unique_ptr<ConsumerGroup> ConsumerGroup::clone() const {
  auto g = std::make_unique<ConsumerGroup>(name_, last_delivered_id_, entries_read_);
  std::unordered_map<const Consumer*, Consumer*> map;
  map.reserve(consumers_.size());
  for_each_consumer([&](const Consumer& c) {
    Consumer* n = g->create_consumer(c.name(), c.seen_time_ms_).first;
    n->active_time_ms_ = c.active_time_ms_;
    map.emplace(&c, n);
  });
  // In claim order, so that the copy's time index is the same list (each link is an append).
  for (const PendingEntry* e = by_time_.head(); e; e = e->time_next) {
    Consumer* owner = e->owner ? map.at(e->owner) : nullptr;
    auto* copy = new PendingEntry{e->delivery_time_ms, e->delivery_count, owner, e->id};
    g->pel_.insert(e->id, copy);
    if (owner) {
      owner->pel_.insert(e->id, copy);
      g->by_time_.insert(copy);
    } else {
      g->by_time_.push_nacked(copy);
    }
  }
  if (dead_letter_) g->dead_letter_ = std::make_unique<DeadLetterPolicy>(*dead_letter_);
  return g;
}

std::size_t ConsumerGroup::pel_memory_usage() const {
  std::size_t bytes = pel_.memory_usage() + pel_.size() * PendingEntry::record_bytes();
  for_each_consumer([&](const Consumer& c) { bytes += c.pel_.memory_usage(); });
  return bytes;
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
  if (!pel_.check_tree()) return fail("group PEL tree is malformed");
  if (!consumers_.check_invariants()) return fail("consumer tree is malformed");
  std::size_t owned = 0;
  for (auto it = consumers_.begin(); it.valid(); ++it) {
    const Consumer* c = it.value();
    if (!c) return fail("null consumer");
    if (it.key() != c->name())
      return fail("consumer '" + c->name() + "' stored under another name");
    if (!c->pel_.check_tree()) return fail("PEL tree of '" + c->name() + "' is malformed");
    for (Pel::Iterator p = c->pel_.begin(); p.valid(); ++p) {
      const PendingEntry* e = p.entry();
      if (e == nullptr) return fail("null record in the PEL of '" + c->name() + "'");
      if (e->owner != c) {
        return fail(p.id().to_string() + " is in the PEL of '" + c->name() +
                    "' but owned by another consumer");
      }
      if (pel_.find(p.id()) != e) {
        return fail(p.id().to_string() + " of '" + c->name() +
                    "' is not the same record in the group PEL");
      }
    }
    owned += c->pel_.size();
  }
  for (Pel::Iterator p = pel_.begin(); p.valid(); ++p) {
    const PendingEntry* e = p.entry();
    if (e == nullptr) return fail("null record in the group PEL at " + p.id().to_string());
    if (e->id != p.id()) return fail(p.id().to_string() + " holds the record of another ID");
    if (e->owner == nullptr) continue;  // NACKed: the time index check covers it
    if (find_consumer(e->owner->name()) != e->owner) {
      return fail(p.id().to_string() + " is owned by a consumer not in the group");
    }
    if (e->owner->pel_.find(p.id()) != e) {
      return fail(p.id().to_string() + " is missing from its owner's PEL");
    }
  }
  std::string index_why;
  if (!by_time_.check(&index_why)) return fail(index_why);
  if (by_time_.size() != pel_.size()) {
    return fail("time index holds " + std::to_string(by_time_.size()) + " records, the PEL " +
                std::to_string(pel_.size()));
  }
  for (const PendingEntry* e = by_time_.head(); e; e = e->time_next) {
    if (pel_.find(e->id) != e) return fail(e->id.to_string() + " is in the time index only");
  }
  if (owned + by_time_.nacked() != pel_.size()) {
    return fail("consumer PELs hold " + std::to_string(owned) + " entries and " +
                std::to_string(by_time_.nacked()) + " are NACKed, the group PEL " +
                std::to_string(pel_.size()));
  }
  return true;
}

}  // namespace streamd::engine
