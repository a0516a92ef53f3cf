#include "streamd/commands/server/monitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "streamd/commands/core/args.h"
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

// Which arguments are secrets: all of AUTH's, the two after each HELLO AUTH, and MIGRATE's AUTH
// password and AUTH2 user and password.
std::vector<bool> redacted(const CommandSpec& spec, std::span<const std::string_view> argv) {
  std::vector<bool> r(argv.size(), false);
  if (spec.full_name == "auth") {
    for (std::size_t i = 1; i < argv.size(); ++i) r[i] = true;
  } else if (spec.full_name == "migrate") {
    for (std::size_t i = 6; i < argv.size(); ++i) {
      std::size_t more = argv.size() - 1 - i;
      if (iequals(argv[i], "auth") && more >= 1) {
        r[++i] = true;
      } else if (iequals(argv[i], "auth2") && more >= 2) {
        r[i + 1] = r[i + 2] = true;
        i += 2;
      } else if (iequals(argv[i], "keys")) {
        break;
      }
    }
  } else if (spec.full_name == "hello") {
    for (std::size_t i = 2; i < argv.size(); ++i) {
      std::size_t more = argv.size() - 1 - i;
      if (iequals(argv[i], "auth") && more >= 2) {
        r[i + 1] = r[i + 2] = true;
        i += 2;
      } else if (iequals(argv[i], "setname") && more >= 1) {
        i += 1;
      } else {
        break;
      }
    }
  }
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
                         std::span<const std::string_view> argv) {
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
  std::vector<bool> secret = redacted(spec, argv);
  for (std::size_t i = 0; i < argv.size(); ++i) {
    line += ' ';
    text::append_repr(line, secret[i] ? std::string_view("(redacted)") : argv[i]);
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
    if (line.empty()) line = monitor_line(server.clock().now_us(), from, spec, argv);
    resp::ReplyWriter w(*m->out, m->proto);
    w.simple(line);
    if (m->flush) m->flush();
  }
}

}  // namespace streamd::cmd
