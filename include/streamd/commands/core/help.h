// The HELP reply of container commands (CLIENT HELP, XINFO HELP, ...), built the one way Redis
// builds all of them, so the header and the footer cannot drift apart between commands.
#pragma once

#include <initializer_list>
#include <string_view>

#include "streamd/resp/reply_writer.h"

namespace streamd::cmd {

// An array of simple strings: "<CONTAINER> <subcommand> [<arg> [value] [opt] ...]. Subcommands
// are:", then `lines`, then "HELP" and "    Print this help." (Redis 7.2+ wording; 7.0 said
// "Prints"). `container` is the command's name in capitals.
void reply_help(resp::ReplyWriter& w, std::string_view container,
                std::initializer_list<std::string_view> lines);

}  // namespace streamd::cmd
