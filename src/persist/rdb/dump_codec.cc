#include "streamd/persist/rdb/dump_codec.h"

#include "streamd/persist/rdb/dump.h"

namespace streamd::persist::rdb {

std::string DumpCodec::dump(const engine::Value& v, int rdb_version, bool compression) const {
  return dump_payload(v, rdb_version, compression);
}

cmd::ValueCodec::Status DumpCodec::restore(std::string_view payload,
                                           const engine::StreamLimits& limits, uint64_t now_ms,
                                           engine::Value* out) const {
  switch (restore_payload(payload, limits, now_ms, out)) {
    case RestoreStatus::kOk:
      return Status::kOk;
    case RestoreStatus::kBadVersionOrChecksum:
      return Status::kBadVersionOrChecksum;
    case RestoreStatus::kBadData:
      break;
  }
  return Status::kBadData;
}

}  // namespace streamd::persist::rdb
