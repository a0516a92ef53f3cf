// BGREWRITEAOF, WAITAOF, SAVE, BGSAVE and LASTSAVE, and the lines of INFO persistence. They
// reach the AOF through Server::persistence() (see persistence.h) and the RDB through
// Server::snapshots() (snapshots.h).
#pragma once

#include <string>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/persistence.h"
#include "streamd/commands/core/snapshots.h"

namespace streamd::cmd {

class Server;

void register_persistence_commands(CommandTable& t);

// What INFO persistence reports for the AOF; a server without persistence reports appendonly
// off and nothing in progress.
PersistenceInfo persistence_info(Server& server);
// What INFO persistence reports for RDB snapshots; without a snapshot service, no save ever
// happened (the last save time is the start time, as Redis reports before its first).
SnapshotInfo snapshot_info(Server& server);

}  // namespace streamd::cmd
