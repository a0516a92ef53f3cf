// Consumer-group references of stream entries (Redis 8.2: XDELEX, XACKDEL, and KEEPREF | DELREF |
// ACKED on XADD and XTRIM). An entry is *referenced* while some group still needs it:
//   - it is pending in that group (its PEL holds the ID), or
//   - that group has not delivered it yet (ID > the group's last_delivered_id).
// An unreferenced entry has been read and acknowledged by every group, which is what ACKED asks
// for. A stream without groups references nothing.
//
// Policies, applied to each entry a delete or trim removes:
//   - kKeepRef (Redis's default, XDEL/XTRIM behaviour): remove the entry, leave PEL references;
//   - kDelRef: remove the entry and its ID from every group's PEL (and the owners' PELs);
//   - kAcked: remove the entry only if it is unreferenced.
// These are free functions over Stream and its groups rather than Stream members, so the stream
// and group code stay as they are; they only use the public API of both.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamd/engine/stream.h"
#include "streamd/engine/stream_id.h"

namespace streamd::engine {

enum class RefPolicy : uint8_t { kKeepRef, kDelRef, kAcked };

// Per-ID outcome of XDELEX / XACKDEL (the integers the reply carries).
enum class DeleteOutcome : int8_t { kNotFound = -1, kDeleted = 1, kReferenced = 2 };

// What a delete or trim under a policy did, for a replay by commands that know no policies
// (Redis 7.0's XTRIM, XDEL and XACK: commands/stream/propagation.h). Filled only when a caller
// passes one, so the policies cost nothing extra otherwise.
struct RefEffects {
  // An ACKED walk ran (trim_with_policy): its removals are `erased`, which need not be a prefix
  // an exact trim could replay. Such removals then count as deletions (they raise
  // max_deleted_entry_id), as the XDEL that replays them will.
  bool walked = false;
  std::vector<StreamId> erased;
  // The PEL references DELREF dropped: per group, in the order they were dropped.
  std::vector<std::pair<std::string, std::vector<StreamId>>> dropped;

  void drop(std::string_view group, StreamId id);
};

// Whether some group still needs `id` (see above). O(groups × PEL lookup).
bool entry_referenced(const Stream& s, StreamId id);

// Removes `id` from every group's PEL; returns how many groups had it pending.
uint64_t drop_references(Stream& s, StreamId id, RefEffects* fx = nullptr);

// XDELEX of one ID. kNotFound if the stream has no live entry `id` (DELREF still drops dangling
// references to it); kReferenced if ACKED and some group still needs it (nothing changes).
// A deletion counts as an XDEL: it raises max_deleted_entry_id.
DeleteOutcome delete_entry(Stream& s, StreamId id, RefPolicy policy, RefEffects* fx = nullptr);

// XTRIM / XADD trimming under a policy. kKeepRef is Stream::trim. kDelRef is Stream::trim and
// then drops every PEL reference below the new first entry (all of them if the stream ended up
// empty): those entries are gone, so their references could only dangle.
// kAcked walks from the oldest entry and removes unreferenced entries only (referenced ones stay
// and are stepped over) until the threshold is met, the walk reaches an entry some group has not
// delivered yet (every later one is referenced too), or, with `~`, LIMIT entries were removed.
// `~` removes single entries here, not whole nodes: with references in the way, whole nodes
// rarely qualify, and the result still honours "at least threshold entries remain".
// For kAcked, TrimResult::exact_maxlen is the resulting length: `MAXLEN = exact_maxlen ACKED`
// replays the same removals on the same state (AOF), whatever the strategy was.
// kAcked removals do not move max_deleted_entry_id (every group has delivered those entries, so
// no lag computation depends on them), unless `fx` asks for a replay by XDEL (see RefEffects).
TrimResult trim_with_policy(Stream& s, const TrimSpec& spec, RefPolicy policy,
                            RefEffects* fx = nullptr);

}  // namespace streamd::engine
