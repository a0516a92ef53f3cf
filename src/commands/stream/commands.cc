// Registers every stream command family (see stream_commands.h for the split).
#include "streamd/commands/stream/commands.h"

namespace streamd::cmd {

void register_stream_commands(CommandTable& t) {
  register_stream_write_commands(t);
  register_stream_read_commands(t);
  register_stream_info_commands(t);
  register_stream_group_commands(t);
  register_stream_ref_commands(t);
  register_stream_idmp_commands(t);
  register_stream_dead_letter_commands(t);
}

}  // namespace streamd::cmd
