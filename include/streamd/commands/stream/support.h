// Shared pieces of the stream command families: key lookup with type checks, stream creation
// with the configured node limits, argument parsers shared by several commands (trim options,
// IDs, COUNT), and the renderers that give XRANGE, XREAD, XREADGROUP, XCLAIM and XINFO one entry
// shape ([id, [f1, v1, ...]]).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/engine/stream.h"
#include "streamd/engine/stream_id.h"
#include "streamd/engine/stream_refs.h"

namespace streamd::cmd {

// How a command looks its key up, as Redis's lookupKeyRead / lookupKeyWrite: a read lookup
// (XLEN, XRANGE, XREAD, XREADGROUP, XPENDING, XACK, XCLAIM, XAUTOCLAIM, XINFO) also counts a
// keyspace hit or miss and publishes "keymiss" for a missing key.
enum class StreamLookup { kWrite, kRead };

// The stream at `key`: nullptr if the key is missing. If the key holds another type, replies
// WRONGTYPE, sets `replied` and returns nullptr.
engine::Stream* find_stream(Context& ctx, std::string_view key, bool& replied,
                            StreamLookup how = StreamLookup::kWrite);
// The stream at `key` for commands that need it to exist (XINFO, XSETID, XCFGSET...): nullptr
// after replying WRONGTYPE or "ERR no such key".
engine::Stream* existing_stream(Context& ctx, std::string_view key,
                                StreamLookup how = StreamLookup::kWrite);
// Redis's XREAD looks every key up a second time when it reads: that lookup's hit or miss (and
// "keymiss") again, for a key found (`found`) or not by the first.
void repeat_read_lookup(Context& ctx, std::string_view key, bool found);
// The stream at `key`, created empty (with the configured node limits) when missing and
// `create` is true. WRONGTYPE as above.
engine::Stream* find_or_create_stream(Context& ctx, std::string_view key, bool create,
                                      bool& replied);
engine::StreamLimits configured_stream_limits(Context& ctx);

// Renders "ms-seq" as a bulk string.
void write_id(resp::ReplyWriter& w, engine::StreamId id);
// Renders one entry: [id, [f1, v1, ...]].
void write_entry(resp::ReplyWriter& w, engine::StreamId id,
                 std::span<const engine::FieldValue> fields);
// Renders up to `count` entries (0 = all) of a range as an array of entries; returns how many.
std::size_t write_range(resp::ReplyWriter& w, const engine::Stream& s, engine::StreamId start,
                        engine::StreamId end, std::size_t count, engine::Direction dir);

// Replies with the error and returns false on a bad ID (Redis's wording per parse kind).
bool parse_strict_id_or_reply(Context& ctx, std::string_view arg, engine::StreamId& out,
                              uint64_t missing_seq = 0);

// ---- the stream arguments read through an ArgCursor (core/args.h); each consumes what it
// reads and, on bad input, records Redis's error in the cursor and returns false.
// A strict ID ("ms" or "ms-seq"; a bare "ms" gets `missing_seq`).
bool next_strict_id(ArgCursor& cur, engine::StreamId& out, uint64_t missing_seq = 0);
// The outcome of one of engine's ID parsers (range bounds, XADD IDs) for the argument just read.
template <class T>
bool take_parsed(ArgCursor& cur, engine::Result<T> r, T& out) {
  if (!r) return cur.fail(errors::text(r.err()));
  out = *r;
  return true;
}
// KEEPREF | DELREF | ACKED (case-insensitive), consumed if it is one; nullopt otherwise.
std::optional<engine::RefPolicy> match_ref_policy(ArgCursor& cur);
// A BLOCK timeout in milliseconds, as the absolute deadline (0 = forever). A wake-up re-run
// keeps the deadline it blocked with.
bool next_block_timeout(const Context& ctx, ArgCursor& cur, int64_t& deadline_ms);

// Entries pending across all groups of the stream (to tell whether a command changed any PEL).
uint64_t total_pending(const engine::Stream& s);

}  // namespace streamd::cmd
