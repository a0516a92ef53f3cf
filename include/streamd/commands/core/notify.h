// Keyspace notifications (notify-keyspace-events). A change a command makes to a key is reported
// once, as a KeyspaceEvent (its class and Redis's event name); when the class is enabled it is
// published as up to two pub/sub messages, as Redis does:
//   K: channel __keyspace@<db>__:<key>    message <event>
//   E: channel __keyevent@<db>__:<event>  message <key>
// (keyspace first). Nothing is built while the event's class, or both K and E, is off: the
// check is one load and two tests, so notifications cost nothing when disabled.
//
// Who reports what:
// - commands report their own changes through Context::modified(key, event) (WATCH, blocked
//   readers, propagation and the event read that one call) or Context::notify(event, key) for a
//   second event of the same change (XADD's xtrim, SET's expire);
// - the engine reports what it does on its own (KeyObserver): a key created ("new", class n)
//   and a key expired lazily or by the active-expiry cycle ("expired", class x), see
//   Server::on_key_event;
// - stream consumers created implicitly are reported where their propagation record is made.
// Events are published at once, while the command runs, so the events of a MULTI/EXEC arrive in
// command order. They are not propagation records: they never reach the AOF.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "streamd/config/config.h"

namespace streamd::cmd {

// One kind of change: its class (a config::notify bit) and Redis's event name.
struct KeyspaceEvent {
  uint32_t type;
  std::string_view name;
};

// Redis's events for the commands streamd implements (names from redis-server's
// notifyKeyspaceEvent calls).
namespace events {
using namespace config::notify;
// Generic (g).
inline constexpr KeyspaceEvent kDel{kGeneric, "del"};
inline constexpr KeyspaceEvent kExpire{kGeneric, "expire"};
inline constexpr KeyspaceEvent kPersist{kGeneric, "persist"};
inline constexpr KeyspaceEvent kRenameFrom{kGeneric, "rename_from"};
inline constexpr KeyspaceEvent kRenameTo{kGeneric, "rename_to"};
inline constexpr KeyspaceEvent kMoveFrom{kGeneric, "move_from"};
inline constexpr KeyspaceEvent kMoveTo{kGeneric, "move_to"};
inline constexpr KeyspaceEvent kCopyTo{kGeneric, "copy_to"};
inline constexpr KeyspaceEvent kRestore{kGeneric, "restore"};
// Strings ($).
inline constexpr KeyspaceEvent kSet{kString, "set"};
inline constexpr KeyspaceEvent kSetRange{kString, "setrange"};
inline constexpr KeyspaceEvent kAppend{kString, "append"};
inline constexpr KeyspaceEvent kIncrBy{kString, "incrby"};
inline constexpr KeyspaceEvent kIncrByFloat{kString, "incrbyfloat"};
// Streams (t).
inline constexpr KeyspaceEvent kXadd{kStream, "xadd"};
inline constexpr KeyspaceEvent kXtrim{kStream, "xtrim"};
inline constexpr KeyspaceEvent kXdel{kStream, "xdel"};
inline constexpr KeyspaceEvent kXsetid{kStream, "xsetid"};
inline constexpr KeyspaceEvent kXgroupCreate{kStream, "xgroup-create"};
inline constexpr KeyspaceEvent kXgroupCreateConsumer{kStream, "xgroup-createconsumer"};
inline constexpr KeyspaceEvent kXgroupDelConsumer{kStream, "xgroup-delconsumer"};
inline constexpr KeyspaceEvent kXgroupDestroy{kStream, "xgroup-destroy"};
inline constexpr KeyspaceEvent kXgroupSetid{kStream, "xgroup-setid"};
inline constexpr KeyspaceEvent kXcfgset{kStream, "xcfgset"};
// Reported by the engine (see Server::on_key_event) and by read lookups.
inline constexpr KeyspaceEvent kNew{kNewKey, "new"};
inline constexpr KeyspaceEvent kExpired{config::notify::kExpired, "expired"};
inline constexpr KeyspaceEvent kEvicted{config::notify::kEvicted, "evicted"};
inline constexpr KeyspaceEvent kKeyMiss{config::notify::kKeyMiss, "keymiss"};
}  // namespace events

// Where published notifications go: the pub/sub layer's publish (a capturing sink in tests).
class NotificationSink {
 public:
  virtual ~NotificationSink() = default;
  virtual void publish(std::string_view channel, std::string_view message) = 0;
};

class Notifier {
 public:
  explicit Notifier(const config::Config& cfg) : cfg_(cfg) {}

  // Null (the default) publishes nothing.
  void set_sink(NotificationSink* sink) { sink_ = sink; }
  NotificationSink* sink() const { return sink_; }

  // Whether an event of class `type` would be published (its class and K or E are enabled).
  bool wants(uint32_t type) const {
    uint32_t flags = cfg_.notify_keyspace_events();
    return (flags & type) && (flags & (config::notify::kKeyspace | config::notify::kKeyevent)) &&
           sink_;
  }
  void notify(const KeyspaceEvent& ev, std::string_view key, int db) {
    if (wants(ev.type)) publish(ev.name, key, db);
  }

 private:
  void publish(std::string_view event, std::string_view key, int db);

  const config::Config& cfg_;
  NotificationSink* sink_ = nullptr;
  std::string channel_;  // reused between events
};

}  // namespace streamd::cmd
