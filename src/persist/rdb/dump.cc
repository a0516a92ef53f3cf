#include "streamd/persist/rdb/dump.h"

#include <optional>

#include "streamd/persist/rdb/crc64.h"
#include "streamd/persist/rdb/encoding.h"
#include "streamd/persist/rdb/rdb.h"
#include "streamd/persist/rdb/value_codec.h"

namespace streamd::persist::rdb {

namespace {

constexpr std::size_t kFooter = 10;

}  // namespace

std::string dump_payload(const engine::Value& v, int version, bool compression) {
  std::string out;
  Writer w(out, compression);
  write_value(w, v, version);
  if (v.is_stream()) w.raw(stream_ext(v.stream()));
  w.byte(static_cast<uint8_t>(version & 0xff));
  w.byte(static_cast<uint8_t>(version >> 8));
  w.u64_le(crc64(0, out));
  return out;
}

RestoreStatus restore_payload(std::string_view payload, const engine::StreamLimits& limits,
                              uint64_t now_ms, engine::Value* out) {
  if (payload.size() < kFooter) return RestoreStatus::kBadVersionOrChecksum;
  std::string_view footer = payload.substr(payload.size() - kFooter);
  int version = static_cast<uint8_t>(footer[0]) | (static_cast<uint8_t>(footer[1]) << 8);
  if (version > kMaxReadVersion) return RestoreStatus::kBadVersionOrChecksum;
  Reader fr(footer.substr(2));
  if (fr.u64_le() != crc64(0, payload.substr(0, payload.size() - 8))) {
    return RestoreStatus::kBadVersionOrChecksum;
  }
  std::string_view body = payload.substr(0, payload.size() - kFooter);
  Reader r(body);
  uint8_t type = r.byte();
  if (!r.ok() || !is_value_type(type)) return RestoreStatus::kBadData;
  ReadValue v;
  if (read_value(r, type, limits, false, v, nullptr) != ReadStatus::kOk) {
    return RestoreStatus::kBadData;
  }
  if (v.is_stream && !r.at_end()) {
    std::string_view ext = body.substr(r.pos());
    if (!apply_stream_ext(ext, *v.builder, now_ms)) return RestoreStatus::kBadData;
  }
  engine::Result<engine::Value> val = finish_value(v);
  if (!val) return RestoreStatus::kBadData;
  *out = std::move(*val);
  return RestoreStatus::kOk;
}

}  // namespace streamd::persist::rdb
