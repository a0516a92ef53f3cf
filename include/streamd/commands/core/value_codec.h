// What DUMP, RESTORE (and MIGRATE) need from persistence: a value to and from a DUMP payload (one
// RDB value, the RDB version, a CRC64). Declared here and implemented in persist/
// (persist::rdb::DumpCodec), so the command layer stays free of the RDB format; startup (and the
// command harness) attach it with Server::set_value_codec.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "streamd/engine/keyspace.h"
#include "streamd/engine/stream.h"

namespace streamd::cmd {

class ValueCodec {
 public:
  enum class Status {
    kOk,
    kBadVersionOrChecksum,  // a footer that is too short, a newer RDB version, a wrong CRC
    kBadData,               // the value itself does not parse or is inconsistent
  };

  virtual ~ValueCodec() = default;
  // The payload of `v` at RDB `rdb_version` (rdb-version), LZF-compressing strings when
  // `compression` (rdbcompression).
  virtual std::string dump(const engine::Value& v, int rdb_version, bool compression) const = 0;
  // Reads a payload into *out (untouched unless kOk); streams get `limits` for later appends.
  virtual Status restore(std::string_view payload, const engine::StreamLimits& limits,
                         uint64_t now_ms, engine::Value* out) const = 0;
};

}  // namespace streamd::cmd
