// Placeholder: the keyspace command family registers its rows here (being written).
#include "streamd/commands/command_table.h"

namespace streamd::cmd {

void register_keyspace_commands(CommandTable&) {}

}  // namespace streamd::cmd
