// Helpers shared by the generic keyspace, string and transaction commands: key lookups that
// behave like Redis's lookupKeyRead / lookupKeyWrite (lazy expiry, access time, keyspace
// hits/misses), expire-time arguments and MEMORY USAGE estimates. (Glob patterns for KEYS and
// SCAN MATCH are text::GlobMatcher.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"
#include "streamd/engine/keyspace.h"

namespace streamd::cmd {

// Whether a lookup records the access (OBJECT IDLETIME / FREQ, eviction).
enum class Touch : uint8_t {
  kNo,             // OBJECT, TYPE, TTL, EXISTS...: Redis's LOOKUP_NOTOUCH
  kUnlessNoTouch,  // reads: unless the client asked for CLIENT NO-TOUCH
  kAlways,         // TOUCH: recording the access is what it is for (Redis exempts it by name)
};

// A lookup for reading: expires the key if due, records the access as `touch` says, and counts
// a keyspace hit or miss. A miss is also the "keymiss" keyspace event unless `miss_event` is
// false (OBJECT, as Redis's LOOKUP_NONOTIFY).
engine::Entry* lookup_read(Context& ctx, std::string_view key, Touch touch = Touch::kUnlessNoTouch,
                           bool miss_event = true);
// A lookup before writing: like lookup_read but without hit/miss statistics.
engine::Entry* lookup_write(Context& ctx, std::string_view key);

// Looks a string key up for reading (GET, GETDEL, GETEX...). Returns nullptr after writing the
// reply for the two common cases: null for a missing key, WRONGTYPE for another type.
engine::Entry* lookup_string_or_reply(Context& ctx, std::string_view key);

// An integer argument as Redis's getLongLongFromObjectOrReply reads it: on failure the reply is
// "value is not an integer or out of range" and the result is empty.
std::optional<long long> int_arg_or_reply(Context& ctx, std::string_view arg);

// Turns an expire argument of SET / SETEX / PSETEX / GETEX into absolute Unix milliseconds, as
// Redis does: must be a positive integer, seconds are scaled, relative times are added to now;
// anything that overflows is "invalid expire time in '<cmd>' command". Replies on failure.
enum class ExpireUnit { kSeconds, kMilliseconds };
std::optional<int64_t> expire_arg_or_reply(Context& ctx, std::string_view arg, ExpireUnit unit,
                                           bool relative);

// The TYPE name of a value ("string", "stream").
std::string_view type_name(const engine::Value& v);
// OBJECT ENCODING's name of a value and OBJECT REFCOUNT's count (DEBUG OBJECT shows both).
std::string_view encoding_name(const engine::Value& v);
long long object_refcount(const engine::Value& v);

// MEMORY USAGE: bytes Redis would account for the key, its value and the dict entry, with
// jemalloc's size classes. Streams use engine::Stream::memory_usage().
std::size_t allocation_size(std::size_t requested);
std::size_t value_memory_usage(const engine::Value& v);
std::size_t key_memory_usage(std::string_view key, const engine::Value& v);

// The generic-family files register their own rows (called by register_keyspace_commands).
void register_expire_commands(CommandTable& t);
void register_object_commands(CommandTable& t);
void register_dump_commands(CommandTable& t);  // DUMP, RESTORE, RESTORE-ASKING
void register_migrate_command(CommandTable& t);

}  // namespace streamd::cmd
