// DUMP / RESTORE payloads: one RDB value (type byte and body), the RDB version as 2 bytes
// little-endian, then the CRC64 (crc64.h) of everything before it, 8 bytes little-endian.
// A stream's streamd-only state (value_codec.h) sits between the body and the version, where
// redis-server, which stops reading after the value, never looks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "streamd/engine/keyspace.h"
#include "streamd/engine/stream.h"

namespace streamd::persist::rdb {

// The payload of `v` in RDB `version` (10 or 12), with `compression` as rdbcompression.
std::string dump_payload(const engine::Value& v, int version, bool compression = true);

enum class RestoreStatus {
  kOk,
  kBadVersionOrChecksum,  // ERR DUMP payload version or checksum are wrong
  kBadData,               // ERR Bad data format
};

// Checks the footer (shorter than 10 bytes, a version above kMaxReadVersion, or a CRC that does
// not match are kBadVersionOrChecksum: a zero CRC is not accepted here, as in Redis) and reads
// the value into *out.
RestoreStatus restore_payload(std::string_view payload, const engine::StreamLimits& limits,
                              uint64_t now_ms, engine::Value* out);

}  // namespace streamd::persist::rdb
