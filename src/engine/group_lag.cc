#include "streamd/engine/group_lag.h"

#include <algorithm>

namespace streamd::engine {

namespace {

// No XDEL happened at or after the first live entry, so the IDs before the first entry are
// exactly the entries_added - length entries that were removed (by trims or deletes).
bool no_fragmentation(const Stream& s) {
  StreamId max_deleted = s.max_deleted_entry_id();
  return max_deleted.is_zero() || max_deleted < s.first_id();
}

}  // namespace

bool stream_has_tombstones_from(const Stream& s, StreamId from) {
  if (s.length() == 0) return false;
  StreamId max_deleted = s.max_deleted_entry_id();
  if (max_deleted.is_zero()) return false;
  return from <= max_deleted;
}

int64_t estimate_entries_read(const Stream& s, StreamId id) {
  const auto added = static_cast<int64_t>(s.entries_added());
  const auto length = static_cast<int64_t>(s.length());
  if (added == 0) return 0;
  if (length == 0 && id <= s.last_id()) return added;
  // A deleted entry after `id`: how many of the IDs between were entries is unknown.
  if (!id.is_zero() && id < s.max_deleted_entry_id()) return kEntriesReadUnknown;
  if (id == s.last_id()) return added;
  if (id > s.last_id()) return kEntriesReadUnknown;
  if (no_fragmentation(s)) {
    if (id < s.first_id()) return added - length;
    if (id == s.first_id()) return added - length + 1;
  }
  return kEntriesReadUnknown;
}

std::optional<int64_t> group_lag(const Stream& s, StreamId last_delivered, int64_t entries_read) {
  const auto added = static_cast<int64_t>(s.entries_added());
  if (added == 0 || s.length() == 0) return 0;
  // Both the group and every deletion are behind the first entry: every live entry is unread.
  if (last_delivered < s.first_id() && s.max_deleted_entry_id() < s.first_id()) {
    return static_cast<int64_t>(s.length());
  }
  if (entries_read != kEntriesReadUnknown && !stream_has_tombstones_from(s, last_delivered)) {
    return added - entries_read;
  }
  int64_t estimate = estimate_entries_read(s, last_delivered);
  if (estimate == kEntriesReadUnknown) return std::nullopt;
  return added - estimate;
}

int64_t entries_read_after_delivery(const Stream& s, StreamId last_delivered, StreamId id,
                                    int64_t entries_read) {
  if (entries_read != kEntriesReadUnknown && !stream_has_tombstones_from(s, last_delivered)) {
    return entries_read + 1;
  }
  if (s.entries_added() == 0) return entries_read;
  return estimate_entries_read(s, id);
}

int64_t capped_entries_read(const Stream& s, int64_t entries_read) {
  if (entries_read == kEntriesReadUnknown) return entries_read;
  return std::min<int64_t>(entries_read, static_cast<int64_t>(s.entries_added()));
}

}  // namespace streamd::engine
