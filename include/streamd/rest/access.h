// Who may run what over REST: the token decides between full access (rest-token) and read-only
// access (rest-readonly-token), and the one command table's flags decide what read-only means
// (no command flagged write, admin or pubsub). A few commands only make sense on a long-lived
// connection and are refused whatever the token.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::rest {

enum class Access { kDenied, kReadOnly, kFull };

// The token of an "Authorization: Bearer <token>" header value ("bearer" in any case), or "".
std::string_view bearer_token(std::string_view authorization);

// Compares in constant time, so response timing does not reveal how much of a token matched.
Access check_token(std::string_view given, std::string_view full_token,
                   std::string_view readonly_token);

// The error text when `argv` may not run with `access`; nullopt when it may (an unknown command
// is left to dispatch, which answers it as it answers RESP clients).
std::optional<std::string> refuse_command(const std::vector<std::string>& argv, Access access);

}  // namespace streamd::rest
