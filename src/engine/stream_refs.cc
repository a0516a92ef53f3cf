#include "streamd/engine/stream_refs.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "streamd/engine/consumer_group.h"

namespace streamd::engine {

void RefEffects::drop(std::string_view group, StreamId id) {
  // Groups are few: a linear search finds the group's list.
  for (auto& [name, ids] : dropped) {
    if (name == group) {
      ids.push_back(id);
      return;
    }
  }
  dropped.emplace_back(std::string(group), std::vector<StreamId>{id});
}

bool entry_referenced(const Stream& s, StreamId id) {
  bool referenced = false;
  s.groups().for_each([&](const ConsumerGroup& g) {
    if (referenced) return;
    referenced = id > g.last_delivered_id() || g.pel().contains(id);
  });
  return referenced;
}

uint64_t drop_references(Stream& s, StreamId id, RefEffects* fx) {
  uint64_t groups = 0;
  s.groups().for_each([&](ConsumerGroup& g) {
    if (g.ack(std::span<const StreamId>(&id, 1)) == 0) return;
    ++groups;
    if (fx) fx->drop(g.name(), id);
  });
  return groups;
}

DeleteOutcome delete_entry(Stream& s, StreamId id, RefPolicy policy, RefEffects* fx) {
  if (!s.contains(id)) {
    if (policy == RefPolicy::kDelRef) drop_references(s, id, fx);
    return DeleteOutcome::kNotFound;
  }
  if (policy == RefPolicy::kAcked && entry_referenced(s, id)) return DeleteOutcome::kReferenced;
  s.erase(id);
  if (policy == RefPolicy::kDelRef) drop_references(s, id, fx);
  return DeleteOutcome::kDeleted;
}

namespace {

// Drops every PEL reference to an ID below `bound` (every reference when bound is nullopt).
void drop_references_below(Stream& s, std::optional<StreamId> bound, RefEffects* fx) {
  std::vector<StreamId> ids;
  s.groups().for_each([&](ConsumerGroup& g) {
    ids.clear();
    for (Pel::Iterator it = g.pel().begin(); it.valid(); ++it) {
      if (bound && it.id() >= *bound) break;
      ids.push_back(it.id());
    }
    g.ack(ids);
    if (fx && !ids.empty()) fx->dropped.emplace_back(g.name(), ids);
  });
}

TrimResult finish(const Stream& s, uint64_t removed) {
  TrimResult r;
  r.removed = removed;
  r.exact_maxlen = s.length();
  r.exact_minid = s.length() != 0 ? s.first_id() : StreamId::max();
  return r;
}

TrimResult trim_acked(Stream& s, const TrimSpec& spec, RefEffects* fx) {
  // Entries after the smallest last_delivered_id are undelivered for some group, hence
  // referenced, and so is everything after them: the walk stops there.
  StreamId horizon = StreamId::max();
  s.groups().for_each(
      [&](const ConsumerGroup& g) { horizon = std::min(horizon, g.last_delivered_id()); });
  bool by_len = spec.strategy == TrimStrategy::kMaxLen;
  std::vector<StreamId> victims;
  uint64_t length = s.length();
  for (Stream::Iterator it = s.scan(StreamId::min(), horizon); it.next();) {
    if (by_len && length - victims.size() <= spec.maxlen) break;
    if (!by_len && it.id() >= spec.minid) break;
    if (spec.approx && spec.limit != 0 && victims.size() >= spec.limit) break;
    if (entry_referenced(s, it.id())) continue;
    victims.push_back(it.id());
  }
  // Collected first: erasing invalidates the iterator.
  for (StreamId id : victims) s.erase(id, /*record_deleted=*/fx != nullptr);
  TrimResult r = finish(s, victims.size());
  if (fx) {
    fx->walked = true;
    fx->erased = std::move(victims);
  }
  return r;
}

}  // namespace

TrimResult trim_with_policy(Stream& s, const TrimSpec& spec, RefPolicy policy, RefEffects* fx) {
  if (spec.strategy == TrimStrategy::kNone) return finish(s, 0);
  // Without groups nothing is referenced: every policy is a plain trim (Redis: "if there are no
  // consumer groups, these arguments have no effect").
  if (policy == RefPolicy::kAcked && !s.groups().empty()) return trim_acked(s, spec, fx);
  TrimResult r = s.trim(spec);
  if (policy == RefPolicy::kDelRef && r.removed != 0) {
    drop_references_below(s, s.length() != 0 ? std::optional<StreamId>(s.first_id()) : std::nullopt,
                          fx);
  }
  return r;
}

}  // namespace streamd::engine
