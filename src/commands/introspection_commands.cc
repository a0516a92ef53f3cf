// Placeholder: the introspection command family registers its rows here (being written).
#include "streamd/commands/command_table.h"

namespace streamd::cmd {

void register_introspection_commands(CommandTable&) {}

}  // namespace streamd::cmd
