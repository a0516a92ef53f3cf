#include "streamd/commands/core/notify.h"

namespace streamd::cmd {

void Notifier::publish(std::string_view event, std::string_view key, int db) {
  uint32_t flags = cfg_.notify_keyspace_events();
  std::string db_text = std::to_string(db);
  // Keyspace before keyevent, as Redis publishes them.
  if (flags & config::notify::kKeyspace) {
    channel_.assign("__keyspace@").append(db_text).append("__:").append(key);
    sink_->publish(channel_, event);
  }
  if (flags & config::notify::kKeyevent) {
    channel_.assign("__keyevent@").append(db_text).append("__:").append(event);
    sink_->publish(channel_, key);
  }
}

}  // namespace streamd::cmd
