// cmd::ValueCodec over dump.h: what DUMP, RESTORE and MIGRATE use. Stateless; startup attaches
// one instance to the server (Server::set_value_codec).
#pragma once

#include "streamd/commands/core/value_codec.h"

namespace streamd::persist::rdb {

class DumpCodec final : public cmd::ValueCodec {
 public:
  std::string dump(const engine::Value& v, int rdb_version, bool compression) const override;
  Status restore(std::string_view payload, const engine::StreamLimits& limits, uint64_t now_ms,
                 engine::Value* out) const override;
};

}  // namespace streamd::persist::rdb
