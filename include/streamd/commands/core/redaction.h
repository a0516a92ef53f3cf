// Which arguments of a command are secrets, shown as "(redacted)" wherever the server shows a
// command line back (MONITOR, SLOWLOG), as Redis's redactClientCommandArgument does: all of
// AUTH's, HELLO AUTH's user and password, MIGRATE's AUTH password and AUTH2 user and password,
// and CONFIG SET's values of secret directives (requirepass, masterauth, masteruser,
// tls-key-file-pass, tls-client-key-file-pass: their rows are sensitive()).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "streamd/commands/core/command_table.h"

namespace streamd::config {
class Config;
}

namespace streamd::cmd {

inline constexpr std::string_view kRedacted = "(redacted)";

// One flag per argument of `argv` (which `spec` runs); `cfg` names the secret directives.
std::vector<bool> redacted_arguments(const CommandSpec& spec,
                                     std::span<const std::string_view> argv,
                                     const config::Config& cfg);

}  // namespace streamd::cmd
