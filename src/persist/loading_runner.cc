#include "streamd/persist/loading_runner.h"

#include <spdlog/spdlog.h>

#include "streamd/commands/core/command_table.h"

namespace streamd::persist {

namespace {

// The start of a command line for a log message (8 arguments of at most 64 bytes).
std::string describe(std::span<const std::string_view> argv) {
  std::string out;
  for (std::size_t i = 0; i < argv.size() && i < 8; ++i) {
    if (i) out += ' ';
    out.append(argv[i].substr(0, 64));
  }
  if (argv.size() > 8) out += " ...";
  return out;
}

}  // namespace

LoadingRunner::LoadingRunner(cmd::Dispatcher& d) : d_(d) {
  session_.authenticated = true;
  session_.name = "aof-loader";
  session_.aof_loader = true;
}

bool LoadingRunner::known(std::span<const std::string_view> argv) const {
  return cmd::CommandTable::instance().find(argv[0]) != nullptr;
}

void LoadingRunner::run(std::span<const std::string_view> argv) {
  out_.clear();
  d_.execute(session_, argv, out_);
  if (!out_.empty() && out_[0] == '-') {
    // Redis ignores replies while loading; a failing command still deserves a trace, since it
    // means the file and this server disagree about something.
    if (++failed_ <= 5) {
      auto eol = out_.find('\r');
      spdlog::warn("A command of the AOF failed while loading: {} -> {}", describe(argv),
                   out_.substr(1, eol == std::string::npos ? std::string::npos : eol - 1));
    }
  }
}

void LoadingRunner::discard_transaction() {
  session_.reset_transaction(d_.server());
}

}  // namespace streamd::persist
