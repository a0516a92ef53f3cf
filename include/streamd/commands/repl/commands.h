// The replication commands (ROLE; the protocol commands a replica sends: REPLCONF, PSYNC, SYNC;
// WAIT) and the state INFO replication shows. They reach the replication layer (repl/) through
// Server::replication() (core/replication.h).
#pragma once

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/replication.h"

namespace streamd::cmd {

class Server;

void register_replication_commands(CommandTable& t);

// What INFO replication and ROLE show: the attached Replication's state, or that of a master
// that never had a replica (a process-wide random replid, offset 0) when none is attached.
ReplicationInfo replication_info(Server& server);

}  // namespace streamd::cmd
