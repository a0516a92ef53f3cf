#include "streamd/commands/core/client_pause.h"

#include <algorithm>
#include <utility>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/session.h"

namespace streamd::cmd {

void ClientPause::pause(Purpose purpose, Mode mode, int64_t end_ms) {
  Slot& s = slot(purpose);
  s.mode = mode;
  s.end_ms = std::max(s.end_ms, end_ms);
  update_mode();
}

void ClientPause::update_mode() {
  mode_ = Mode::kNone;
  for (const Slot& s : slots_) mode_ = std::max(mode_, s.mode);
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

std::vector<uint64_t> ClientPause::end(Purpose purpose) {
  slot(purpose) = Slot{};
  update_mode();
  return std::exchange(postponed_, {});
}

}  // namespace streamd::cmd
