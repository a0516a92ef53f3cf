// The runner startup loads the AOF with: every command of the file goes through the normal
// dispatcher as one client whose replies go nowhere (as Redis's loading client). Kept apart from
// AofService so that the AOF loader fuzz target (tests/fuzz/aof_loader_fuzz.cc) loads through
// exactly what the server uses.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/session.h"
#include "streamd/persist/aof_loader.h"

namespace streamd::persist {

class LoadingRunner final : public AofCommandRunner {
 public:
  explicit LoadingRunner(cmd::Dispatcher& d);

  bool known(std::span<const std::string_view> argv) const override;
  void run(std::span<const std::string_view> argv) override;
  void discard_transaction() override;

  // Commands whose reply was an error (the first five are logged).
  uint64_t failed() const { return failed_; }

 private:
  cmd::Dispatcher& d_;
  cmd::Session session_;
  std::string out_;
  uint64_t failed_ = 0;
};

}  // namespace streamd::persist
