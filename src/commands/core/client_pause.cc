#include "streamd/commands/core/client_pause.h"

#include <algorithm>
#include <utility>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/session.h"

namespace streamd::cmd {

void ClientPause::pause(Mode mode, int64_t end_ms) {
  mode_ = mode;
  end_ms_ = std::max(end_ms_, end_ms);
}

bool ClientPause::covers(const Session& s, uint32_t command_flags) const {
  if (mode_ == Mode::kNone || s.replica || s.master || s.aof_loader) return false;
  return mode_ == Mode::kAll || (command_flags & (kWrite | kMayReplicate)) != 0;
}

void ClientPause::postpone(Session& s) {
  if (s.postponed) return;
  s.postponed = true;
  postponed_.push_back(s.id);
}

void ClientPause::forget(uint64_t session_id) {
  std::erase(postponed_, session_id);
}

std::vector<uint64_t> ClientPause::end() {
  mode_ = Mode::kNone;
  end_ms_ = 0;
  return std::exchange(postponed_, {});
}

}  // namespace streamd::cmd
