#include "streamd/net/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <memory>

namespace streamd::net {

namespace {

// The level mark Redis prints after the time.
class RedisLevelMark final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    char mark = '#';
    switch (msg.level) {
      case spdlog::level::trace:
        mark = '.';
        break;
      case spdlog::level::debug:
        mark = '-';
        break;
      case spdlog::level::info:
        mark = '*';
        break;
      default:
        break;
    }
    dest.push_back(mark);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<RedisLevelMark>();
  }
};

bool to_spdlog_level(std::string_view name, spdlog::level::level_enum& out) {
  if (name == "debug") {
    out = spdlog::level::trace;
  } else if (name == "verbose") {
    out = spdlog::level::debug;
  } else if (name == "notice") {
    out = spdlog::level::info;
  } else if (name == "warning") {
    out = spdlog::level::warn;
  } else if (name == "nothing") {
    out = spdlog::level::off;
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::string setup_logging(const std::string& logfile, std::string_view level) {
  spdlog::sink_ptr sink;
  if (logfile.empty()) {
    sink = std::make_shared<spdlog::sinks::stdout_sink_st>();
  } else {
    try {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_st>(logfile, /*truncate=*/false);
    } catch (const spdlog::spdlog_ex& e) {
      return "Can't open the log file: " + std::string(e.what());
    }
  }
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  // 'M': this process is a master, as Redis marks its lines.
  formatter->add_flag<RedisLevelMark>('*').set_pattern("%P:M %d %b %Y %H:%M:%S.%e %* %v");
  sink->set_formatter(std::move(formatter));
  auto logger = std::make_shared<spdlog::logger>("streamd", std::move(sink));
  // Every line reaches the file at once, as with Redis (logs are rare; a crash loses nothing).
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(std::move(logger));
  set_log_level(level);
  return {};
}

void log_banner(const Banner& b, bool logs_to_terminal) {
  if (!b.forced && !logs_to_terminal) {
    spdlog::info("Running mode={}, port={}.", b.mode, b.port);
    return;
  }
  spdlog::info("  .----------.");
  spdlog::info("  | streamd  |   streamd {} (Redis protocol, streams first)", b.version);
  spdlog::info("  |  >>>>>>  |   Running in {} mode", b.mode);
  spdlog::info("  | >>>>>>>> |   Port: {}", b.port);
  spdlog::info("  '----------'   PID: {}", b.pid);
}

void set_log_level(std::string_view level) {
  spdlog::level::level_enum l;
  if (to_spdlog_level(level, l)) spdlog::set_level(l);
}

}  // namespace streamd::net
