#include "streamd/commands/core/help.h"

#include <string>

namespace streamd::cmd {

void reply_help(resp::ReplyWriter& w, std::string_view container,
                std::initializer_list<std::string_view> lines) {
  w.array(lines.size() + 3);
  w.simple(std::string(container) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
  for (std::string_view l : lines) w.simple(l);
  w.simple("HELP");
  w.simple("    Print this help.");
}

}  // namespace streamd::cmd
