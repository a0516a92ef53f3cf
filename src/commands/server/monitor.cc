#include "streamd/commands/server/monitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "streamd/commands/core/redaction.h"
#include "streamd/resp/reply_writer.h"
#include "streamd/text/repr.h"

namespace streamd::cmd {

namespace {

// Monitoring sessions by (server, id). Entries whose session left or stopped monitoring (RESET)
// are dropped lazily, so the common case, nobody monitoring, costs one emptiness check.
std::vector<std::pair<const Server*, uint64_t>>& registry() {
  static std::vector<std::pair<const Server*, uint64_t>> r;
  return r;
}

}  // namespace

void start_monitor(Server& server, Session& s) {
  s.monitor = true;
  auto& r = registry();
  auto entry = std::make_pair(static_cast<const Server*>(&server), s.id);
  if (std::find(r.begin(), r.end(), entry) == r.end()) r.push_back(entry);
}

std::string monitor_line(int64_t now_us, const Session& from, const CommandSpec& spec,
                         std::span<const std::string_view> argv, const config::Config& cfg) {
  std::string line = fmt::format("{}.{:06} [{} ", now_us / 1000000, now_us % 1000000, from.db);
  if (from.unix_socket) {
    std::string_view path = from.addr;
    if (path.size() >= 2 && path.substr(path.size() - 2) == ":0") path.remove_suffix(2);
    line += "unix:";
    line += path;
  } else {
    line += from.addr;
  }
  line += ']';
  std::vector<bool> secret = redacted_arguments(spec, argv, cfg);
  for (std::size_t i = 0; i < argv.size(); ++i) {
    line += ' ';
    text::append_repr(line, secret[i] ? kRedacted : argv[i]);
  }
  return line;
}

void feed_monitors(Server& server, const Session& from, const CommandSpec& spec,
                   std::span<const std::string_view> argv) {
  auto& r = registry();
  if (r.empty()) return;
  if (spec.flags & (kAdmin | kSkipMonitor)) return;
  std::string line;
  for (std::size_t i = 0; i < r.size();) {
    if (r[i].first != &server) {
      ++i;
      continue;
    }
    Session* m = server.session(r[i].second);
    if (!m || !m->monitor) {
      r.erase(r.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    ++i;
    if (!m->out) continue;
    if (line.empty())
      line = monitor_line(server.clock().now_us(), from, spec, argv, server.config());
    resp::ReplyWriter w(*m->out, m->proto);
    w.simple(line);
    if (m->flush) m->flush();
  }
}

}  // namespace streamd::cmd
