// Lag and entries-read: how far behind the stream's end a consumer group is.
//
// A group counts the entries it has read (entries_read, -1 = unknown). The stream counts every
// entry ever added (entries_added). When the counter is known and no deleted entry lies ahead
// of the group, lag = entries_added - entries_read. Otherwise the counter of the group's
// position is estimated from the stream's metadata, which works only at a few positions (the
// stream's last ID, its first entry, or before it when nothing was XDEL'd after the first
// entry); anywhere else the lag is unknown and XINFO replies null.
//
// These rules follow newest Redis (the lag fixes of Redis 7.4/8.0, redis #13338 and #13473, and
// the ENTRIESREAD cap of 8.2.2), checked against a Redis built from its main branch
// (tests/unit/engine/group_lag_test.cc holds the cases). redis-server 7.0.15 differs: it missed a
// deleted entry just behind the next delivery (undercounting from then on), kept counting
// trimmed entries in the lag, and let ENTRIESREAD make the lag negative
// (tests/differential/versions records those differences).
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
// max_deleted_entry_id and from <= it (even if that ID is before the first entry, as Redis
// checks it).
bool stream_has_tombstones_from(const Stream& s, StreamId from);

// The entries_read counter a group positioned at `id` would have (how many entries were added
// up to and including id), or kEntriesReadUnknown when it cannot be known:
//   - nothing ever added: 0;
//   - the stream is empty and id <= last_id: entries_added;
//   - id is not 0-0 and an XDEL'd ID lies after it: unknown;
//   - id == last_id: entries_added;
//   - id > last_id: unknown;
//   - no XDEL at or after the first entry: entries_added - length before the first entry,
//     one more at the first entry;
//   - anything else: unknown.
int64_t estimate_entries_read(const Stream& s, StreamId id);

// XINFO's lag of a group (nullopt = null):
//   - nothing ever added, or the stream is empty: 0;
//   - last_delivered and max_deleted_entry_id both before the first entry: the length;
//   - a known counter and no tombstone at or after last_delivered: entries_added - entries_read;
//   - otherwise entries_added - estimate_entries_read(last_delivered), null if unknown.
std::optional<int64_t> group_lag(const Stream& s, StreamId last_delivered, int64_t entries_read);

// The new entries_read after delivering `id` (greater than last_delivered, the group's position
// before it): counting on when the counter is known and no tombstone lies at or after
// last_delivered, else estimating the counter of id.
int64_t entries_read_after_delivery(const Stream& s, StreamId last_delivered, StreamId id,
                                    int64_t entries_read);

// XGROUP CREATE/SETID ... ENTRIESREAD n (Redis 8.2.2): a counter above entries_added is capped at
// entries_added, so the lag is never negative. kEntriesReadUnknown stays unknown.
int64_t capped_entries_read(const Stream& s, int64_t entries_read);

}  // namespace streamd::engine
