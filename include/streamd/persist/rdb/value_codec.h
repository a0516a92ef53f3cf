// One RDB value: its type byte and body, as a key's value in an RDB file and as a DUMP payload's
// body. Strings (type 0) and streams (15, 19, 21) are read and written; every other type Redis
// has is recognised and can be skipped (rdb-skip-unsupported-types), except pre-GA module values
// (type 6), which cannot be skipped without their module.
//
// Stream body (what rdb.c writes, read from its documentation and output):
//   nodes: count, then per node: master ID (16-byte big-endian string), listpack (string);
//   length, last_id (ms, seq); type >= 19: first_id, max_deleted_entry_id, entries_added;
//   groups: count, then per group: name, last_delivered (ms, seq), type >= 19: entries_read (a
//   length; -1 as 2^64-1), PEL: count, per record: 16-byte raw ID, delivery time (ms),
//   delivery count; consumers: count, per consumer: name, seen time (ms), type 21: active time
//   (ms), PEL: count, per record a 16-byte raw ID.
//   Stream node listpack: master entry (live count, deleted count, field count, field names, 0),
//   then per entry: flags (1 deleted, 2 same fields as the master), ms - master.ms,
//   seq - master.seq, [field count], fields and values (values only with same fields), and the
//   entry's element count (for backward walks).
// Redis files have no place for what only streamd keeps (XNACK-released PEL records, IDMP
// tables): write_stream_ext() puts it in a blob that follows the value (in an AUX field in RDB
// files, after the body in DUMP payloads), and Redis ignores it; such records are left out of
// the PEL Redis sees, so Redis loads a consistent stream.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/engine/keyspace.h"
#include "streamd/engine/status.h"
#include "streamd/engine/stream.h"
#include "streamd/engine/stream_builder.h"
#include "streamd/persist/rdb/encoding.h"

namespace streamd::persist::rdb {

inline constexpr uint8_t kTypeString = 0;
inline constexpr uint8_t kTypeModulePreGa = 6;
inline constexpr uint8_t kTypeModule2 = 7;
inline constexpr uint8_t kTypeStreamListpacks = 15;
inline constexpr uint8_t kTypeStreamListpacks2 = 19;
inline constexpr uint8_t kTypeStreamListpacks3 = 21;

// The stream type an RDB version writes: 21 from RDB 11 (Redis 7.2), else 19.
uint8_t stream_type_for(int version);

// Type byte and body, or the body alone (after the type byte and the key in a file).
void write_value(Writer& w, const engine::Value& v, int version);
void write_value_body(Writer& w, const engine::Value& v, int version);
// The streamd-only state of a stream as a blob; empty when it has none.
std::string stream_ext(const engine::Stream& s);

// Redis's name for an RDB type ("list", "hash", ...; "unknown" for a byte that is no type).
std::string_view type_name(uint8_t type);
bool is_value_type(uint8_t type);

// A value being read: a string, or a stream still open for its extension blob.
struct ReadValue {
  bool is_stream = false;
  std::string str;
  std::unique_ptr<engine::StreamBuilder> builder;
  // Type 15 has no entries_read: it is estimated from the finished stream, as Redis does.
  bool estimate_entries_read = false;
};

enum class ReadStatus { kOk, kBadData, kUnsupported, kSkipped };

// Reads the body of a value of `type`. kUnsupported: a type streamd does not hold (nothing
// consumed unless skip is set, then kSkipped with the body consumed; a pre-GA module value is
// kBadData with skip). `*why` gets a short reason on kBadData.
ReadStatus read_value(Reader& r, uint8_t type, const engine::StreamLimits& limits, bool skip,
                      ReadValue& out, std::string* why);
// Applies a blob written by stream_ext() to a stream being read.
bool apply_stream_ext(std::string_view blob, engine::StreamBuilder& b, uint64_t now_ms);
// Finishes the value; kBadData if the stream is inconsistent.
engine::Result<engine::Value> finish_value(ReadValue& v);

}  // namespace streamd::persist::rdb
