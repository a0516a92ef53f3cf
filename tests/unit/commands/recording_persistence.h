// A cmd::Persistence for tests that records every propagated unit, decoded into words, as if it
// were the AOF (attach it with Server::set_persistence; aof_enabled() is true).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/persistence.h"

namespace streamd::test {

// Records every propagated unit, decoded, as if it were the AOF.
class RecordingPersistence : public cmd::Persistence {
 public:
  std::vector<std::string> records;  // "XADD dlq 1-0 f v" ...

  uint64_t append(const cmd::PropagationBatch& unit) override {
    for (std::size_t i = 0; i < unit.size(); ++i) {
      if (unit.replicas_only(i)) continue;  // as the AOF writer (PUBLISH)
      // Decode the RESP array back into words.
      std::string_view r = unit.record(i);
      std::string line;
      std::size_t pos = r.find("\r\n") + 2;
      while (pos < r.size()) {
        std::size_t eol = r.find("\r\n", pos);
        std::size_t len = std::stoul(std::string(r.substr(pos + 1, eol - pos - 1)));
        line += (line.empty() ? "" : " ") + std::string(r.substr(eol + 2, len));
        pos = eol + 2 + len + 2;
      }
      records.push_back(line);
    }
    return ++seq_;
  }
  bool must_hold_replies(uint64_t) const override { return false; }
  void sync() override {}
  std::string write_error() const override { return {}; }
  void cron(int64_t) override {}
  RewriteStart start_rewrite(bool) override { return RewriteStart::kFailed; }
  bool fsync_through(uint64_t) override { return true; }
  bool aof_enabled() const override { return true; }
  cmd::PersistenceInfo info() const override { return {}; }
  bool shutdown_flush() override { return true; }

 private:
  uint64_t seq_ = 0;
};

}  // namespace streamd::test
