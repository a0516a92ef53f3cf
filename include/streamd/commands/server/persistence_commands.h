// BGREWRITEAOF and WAITAOF, and the AOF lines of INFO persistence. They reach the AOF through
// Server::persistence() (see persistence.h).
#pragma once

#include <string>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/persistence.h"

namespace streamd::cmd {

class Server;

void register_persistence_commands(CommandTable& t);

// What INFO persistence reports for the AOF; a server without persistence reports appendonly
// off and nothing in progress.
PersistenceInfo persistence_info(Server& server);

}  // namespace streamd::cmd
