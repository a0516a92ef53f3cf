// MIGRATE's connection to other servers (cmd::Outbound, implemented in net/): startup attaches
// one per server; without one MIGRATE answers as if the target could not be reached.
#pragma once

#include "streamd/commands/core/outbound.h"
#include "streamd/commands/core/server.h"

namespace streamd::cmd {

// `o` null detaches (tests attach a scripted one and detach it before the server goes).
void set_migrate_connector(Server& server, Outbound* o);

}  // namespace streamd::cmd
