// Placeholder: the stream command family registers its rows here (being written).
#include "streamd/commands/command_table.h"

namespace streamd::cmd {

void register_stream_commands(CommandTable&) {}

}  // namespace streamd::cmd
