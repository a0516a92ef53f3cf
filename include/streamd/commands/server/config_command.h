// CONFIG GET / SET / RESETSTAT / REWRITE / HELP over the config layer, and the other decisions
// the server commands take from configuration.
#pragma once

#include "streamd/commands/core/command_table.h"
#include "streamd/config/values.h"

namespace streamd::cmd {

class Context;

// Adds the CONFIG container and its subcommands.
void register_config_command(CommandTable& t);
// Adds MODULE (module_command.cc: streamd loads no modules).
void register_module_command(CommandTable& t);

// Whether the client may do what a no / yes / local directive guards ("local": Session::local).
bool permitted(Context& ctx, config::LocalPermission p);
// enable-debug-command: "yes", or "local" for a client on a loopback or unix socket connection.
bool debug_allowed(Context& ctx);

}  // namespace streamd::cmd
