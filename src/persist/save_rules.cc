#include "streamd/persist/save_rules.h"

namespace streamd::persist {

namespace {

bool retry_allowed(const SaveClock& c) {
  return c.last_ok || c.now_s - c.last_try_s > kBgsaveRetryDelaySec;
}

}  // namespace

std::optional<config::SavePoint> due_save_point(const config::SavePoints& rules,
                                                const SaveClock& c) {
  if (!retry_allowed(c)) return std::nullopt;
  for (const config::SavePoint& p : rules) {
    if (c.dirty >= static_cast<uint64_t>(p.changes) && c.now_s - c.lastsave_s > p.seconds) {
      return p;
    }
  }
  return std::nullopt;
}

bool scheduled_bgsave_may_start(const SaveClock& c) {
  return retry_allowed(c);
}

bool shutdown_saves(bool has_rules, cmd::Snapshots::ShutdownSave mode) {
  switch (mode) {
    case cmd::Snapshots::ShutdownSave::kSave:
      return true;
    case cmd::Snapshots::ShutdownSave::kNoSave:
      return false;
    case cmd::Snapshots::ShutdownSave::kDefault:
      break;
  }
  return has_rules;
}

}  // namespace streamd::persist
