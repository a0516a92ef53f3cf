// Lag and entries-read: how far behind the stream's end a consumer group is.
//
// A group counts the entries it has read (entries_read, -1 = unknown). The stream counts every
// entry ever added (entries_added). When the counter is known and no deleted entry lies ahead
// of the group, lag = entries_added - entries_read. Otherwise the counter of the group's
// position is estimated from the stream's metadata, which works only at a few positions (the
// stream's last ID, its first entry, or before it when nothing was XDEL'd after the first
// entry); anywhere else the lag is unknown and XINFO replies null.
//
// These rules reproduce redis-server 7.0.15 as observed (tests/unit/engine/group_lag_test.cc
// holds the cases checked against it), including its known inaccuracies, which newer Redis
// versions fixed:
//   - an entry deleted *behind* the next delivery is not noticed: the counter is just
//     incremented, so it undercounts after an XDEL between two reads;
//   - trimming (which does not move max_deleted_entry_id) keeps a known counter, so the lag of a
//     group behind the trimmed entries still counts them (newer Redis answers `length`).
// Only XDEL tombstones matter here: Stream::max_deleted_entry_id() is moved by erase() only.
#pragma once

#include <cstdint>
#include <optional>

#include "streamd/engine/stream.h"
#include "streamd/engine/stream_id.h"

namespace streamd::engine {

// entries_read value meaning "unknown" (XINFO shows null).
inline constexpr int64_t kEntriesReadUnknown = -1;

// True when an entry deleted by XDEL may lie at or after `from`: the stream is non-empty, has a
// max_deleted_entry_id, that ID is not before the first entry, and from <= it.
bool stream_has_tombstones_from(const Stream& s, StreamId from);

// The entries_read counter a group positioned at `id` would have (how many entries were added
// up to and including id), or kEntriesReadUnknown when it cannot be known:
//   - nothing ever added: 0;
//   - id == last_id, or the stream is empty and id <= last_id: entries_added;
//   - id > last_id: unknown;
//   - no XDEL at or after the first entry: entries_added - length before the first entry,
//     one more at the first entry;
//   - anything else: unknown.
int64_t estimate_entries_read(const Stream& s, StreamId id);

// XINFO's lag of a group (nullopt = null):
//   - nothing ever added: 0;
//   - a known counter and no tombstone at or after last_delivered: entries_added - entries_read
//     (negative if ENTRIESREAD was set too high, as in Redis);
//   - otherwise entries_added - estimate_entries_read(last_delivered), null if unknown.
std::optional<int64_t> group_lag(const Stream& s, StreamId last_delivered, int64_t entries_read);

// The new entries_read after delivering `id` (greater than the group's last_delivered_id):
// counting on when the counter is known and no tombstone lies at or after id, else estimating.
int64_t entries_read_after_delivery(const Stream& s, StreamId id, int64_t entries_read);

}  // namespace streamd::engine
