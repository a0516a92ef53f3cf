// A NotificationSink for tests: records what the keyspace notifier publishes, each message as
// "channel message", in order (attach it with server.notifier().set_sink and detach it before
// it goes away).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/notify.h"

namespace streamd::test {

class CaptureSink : public cmd::NotificationSink {
 public:
  void publish(std::string_view channel, std::string_view message) override {
    got.push_back(std::string(channel) + " " + std::string(message));
  }
  std::vector<std::string> got;
};

}  // namespace streamd::test
