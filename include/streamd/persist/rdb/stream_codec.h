// Stream bodies inside RDB values (the layout is in value_codec.h). Internal to persist/rdb.
#pragma once

#include <cstdint>
#include <string>

#include "streamd/engine/stream.h"
#include "streamd/persist/rdb/encoding.h"
#include "streamd/persist/rdb/value_codec.h"

namespace streamd::persist::rdb {

void write_stream_body(Writer& w, const engine::Stream& s, uint8_t type);
// Reads a body of `type` into out.builder (which the caller created).
ReadStatus read_stream_body(Reader& r, uint8_t type, ReadValue& out, std::string* why);

}  // namespace streamd::persist::rdb
