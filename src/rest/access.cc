#include "streamd/rest/access.h"

#include <openssl/crypto.h>
#include <strings.h>

#include "streamd/commands/core/command_table.h"
#include "streamd/rest/error_text.h"

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

std::string_view bearer_token(std::string_view authorization) {
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.size() <= kBearer.size() ||
      ::strncasecmp(authorization.data(), kBearer.data(), kBearer.size()) != 0) {
    return {};
  }
  return authorization.substr(kBearer.size());
}

Access check_token(std::string_view given, std::string_view full_token,
                   std::string_view readonly_token) {
  if (same_token(given, full_token)) return Access::kFull;
  if (same_token(given, readonly_token)) return Access::kReadOnly;
  return Access::kDenied;
}

std::optional<std::string> refuse_command(const std::vector<std::string>& argv, Access access) {
  if (argv.empty()) return std::string(errors::kNoCommand);
  const auto [top, row] = cmd::CommandTable::instance().lookup(argv);
  if (!top) return std::nullopt;
  // An unknown subcommand is judged by its container (dispatch then answers the error).
  const cmd::CommandSpec* spec = row ? row : top;
  if (unsupported(spec->full_name)) return errors::unsupported(spec->full_name);
  if (access == Access::kReadOnly &&
      (spec->flags & (cmd::kWrite | cmd::kAdmin | cmd::kPubsub)) != 0) {
    return errors::readonly(spec->full_name);
  }
  return std::nullopt;
}

}  // namespace streamd::rest
