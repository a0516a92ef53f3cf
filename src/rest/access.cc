#include "streamd/rest/access.h"

#include <openssl/crypto.h>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/error_text.h"

namespace streamd::rest {

namespace {

bool same_token(std::string_view given, std::string_view want) {
  if (want.empty() || given.size() != want.size()) return false;
  return CRYPTO_memcmp(given.data(), want.data(), want.size()) == 0;
}

// Connection-state commands: each REST request is a fresh session that ends with the response, so
// these would do nothing useful (MULTI/WATCH: use /multi-exec) or break the one-reply-per-command
// contract the JSON conversion relies on (MONITOR, CLIENT REPLY, HELLO's protocol switch).
bool unsupported(std::string_view full_name) {
  static constexpr std::string_view kRefused[] = {
      "multi", "exec",         "discard",   "watch",      "unwatch",    "monitor", "quit", "reset",
      "hello", "client|reply", "subscribe", "psubscribe", "ssubscribe", "sync",    "psync"};
  for (auto n : kRefused) {
    if (full_name == n) return true;
  }
  return false;
}

}  // namespace

Access check_token(std::string_view given, std::string_view full_token,
                   std::string_view readonly_token) {
  if (same_token(given, full_token)) return Access::kFull;
  if (same_token(given, readonly_token)) return Access::kReadOnly;
  return Access::kDenied;
}

std::optional<std::string> refuse_command(const std::vector<std::string>& argv, Access access) {
  if (argv.empty()) return std::string(cmd::errors::kRestNoCommand);
  const cmd::CommandSpec* spec = cmd::CommandTable::instance().find(argv[0]);
  if (!spec) return std::nullopt;
  if (!spec->subcommands.empty() && argv.size() >= 2) {
    if (const cmd::CommandSpec* sub = cmd::CommandTable::find_sub(*spec, argv[1])) spec = sub;
  }
  if (unsupported(spec->full_name)) return cmd::errors::rest_unsupported(spec->full_name);
  if (access == Access::kReadOnly &&
      (spec->flags & (cmd::kWrite | cmd::kAdmin | cmd::kPubsub)) != 0) {
    return cmd::errors::rest_readonly(spec->full_name);
  }
  return std::nullopt;
}

}  // namespace streamd::rest
