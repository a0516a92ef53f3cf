// Placeholder: the server command family registers its rows here (being written).
#include "streamd/commands/command_table.h"

namespace streamd::cmd {

void register_server_commands(CommandTable&) {}

}  // namespace streamd::cmd
