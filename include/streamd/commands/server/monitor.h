// MONITOR: every command executed is shown to the clients in monitor mode as one simple-string
// line, as Redis formats it:
//   +1700000000.123456 [0 127.0.0.1:5555] "set" "key" "va\"lue"
// Dispatch calls feed_monitors() after a command ran (or parked); admin and skip_monitor commands
// are not shown, and AUTH / HELLO AUTH passwords are shown as "(redacted)".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"

namespace streamd::cmd {

// Puts `s` in monitor mode (MONITOR).
void start_monitor(Server& server, Session& s);

// Shows a command run by `from` to the monitors of `server`. Cheap when nobody monitors.
void feed_monitors(Server& server, const Session& from, const CommandSpec& spec,
                   std::span<const std::string_view> argv);

// The line without the leading '+' and trailing CRLF (exposed for tests).
std::string monitor_line(int64_t now_us, const Session& from, const CommandSpec& spec,
                         std::span<const std::string_view> argv, const config::Config& cfg);

}  // namespace streamd::cmd
