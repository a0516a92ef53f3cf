// Placeholder: the transaction command family registers its rows here (being written).
#include "streamd/commands/command_table.h"

namespace streamd::cmd {

void register_transaction_commands(CommandTable&) {}

}  // namespace streamd::cmd
