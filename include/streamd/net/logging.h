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

// What the startup banner names. Redis prints its ASCII logo (with "Port: N" and "PID: N") when
// always-show-logo is yes, or when it logs to a terminal; otherwise one line "Running mode=...".
// Tools that start servers (Redis's own test harness among them) find the process by that
// " PID: <pid>" text, so the banner keeps Redis's field names; the picture is streamd's own.
struct Banner {
  std::string_view version;
  std::string_view mode;  // "standalone"
  int port = 0;
  long pid = 0;
  bool forced = false;  // always-show-logo yes
};

// Logs the banner, or the single "Running mode=" line when it is not wanted.
void log_banner(const Banner& banner, bool logs_to_terminal);

// Applies a Redis log level name; unknown names are ignored (the config layer validates them).
void set_log_level(std::string_view level);

}  // namespace streamd::net
