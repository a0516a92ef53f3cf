// Placeholder: the connection command family registers its rows here (being written).
#include "streamd/commands/command_table.h"

namespace streamd::cmd {

void register_connection_commands(CommandTable&) {}

}  // namespace streamd::cmd
