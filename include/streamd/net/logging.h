// Logging through spdlog with Redis's line shape and levels:
//   "12345:M 29 Nov 2026 14:26:57.183 * Ready to accept connections tcp"
// Redis's levels map onto spdlog's: debug → trace ('.'), verbose → debug ('-'),
// notice → info ('*'), warning → warn ('#'), nothing → off.
#pragma once

#include <string>
#include <string_view>

namespace streamd::net {

// Sends the default logger to `logfile` (appending), or to stdout when it is empty. Returns an
// error message when the file cannot be opened, an empty string on success.
std::string setup_logging(const std::string& logfile, std::string_view level);

// Applies a Redis log level name; unknown names are ignored (the config layer validates them).
void set_log_level(std::string_view level);

}  // namespace streamd::net
