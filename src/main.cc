// streamd's entry point: the command line, the configuration, logging, and the single thread
// that runs the event loop (network, commands and timers) until SIGINT, SIGTERM or SHUTDOWN.
//
//   streamd [/path/to/streamd.conf] [--directive value ...]
//   streamd -v | --version
//   streamd -h | --help
#include <sys/resource.h>
#include <unistd.h>

#include <spdlog/spdlog.h>
#include <asio/io_context.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/keyspace/migrate.h"
#include "streamd/commands/server/stream_selection.h"
#include "streamd/config/config.h"
#include "streamd/engine/clock.h"
#include "streamd/net/front_end.h"
#include "streamd/net/logging.h"
#include "streamd/net/outbound_client.h"
#include "streamd/net/settings.h"
#include "streamd/persist/aof_service.h"
#include "streamd/persist/check_aof.h"
#include "streamd/persist/rdb/dump_codec.h"
#include "streamd/persist/rdb_service.h"
#include "streamd/persist/startup.h"
#include "streamd/repl/master.h"
#include "streamd/repl/replica.h"
#include "streamd/rest/rest_server.h"

namespace {

constexpr std::string_view kVersion = STREAMD_VERSION;

// A stable identifier of the build (version and compiler), shown as redis-server shows its
// build id.
std::string build_id() {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (std::string_view part : {std::string_view(STREAMD_VERSION), std::string_view(__VERSION__)}) {
    for (char c : part) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void print_version() {
  std::printf("streamd v=%s sha=00000000:0 malloc=libc bits=%d build=%s\n", kVersion.data(),
              static_cast<int>(sizeof(void*) * 8), build_id().c_str());
}

// The config's rename-command lines, in order, before anything looks a command up (AOF loading,
// clients). Prints the refused line's fatal error as a bad config line and returns false.
bool apply_renames(const streamd::config::Config& cfg) {
  using streamd::cmd::CommandTable;
  for (const auto& r : cfg.renames()) {
    const CommandTable::RenameResult res = CommandTable::instance().rename(r.from, r.to);
    if (res == CommandTable::RenameResult::kOk) continue;
    const auto why = res == CommandTable::RenameResult::kNoSuchCommand
                         ? streamd::config::RenameError::kNoSuchCommand
                         : streamd::config::RenameError::kTargetExists;
    const std::string product = "streamd " + std::string(kVersion);
    std::fprintf(stderr, "%s\n", streamd::config::rename_error(r, why).fatal_text(product).c_str());
    return false;
  }
  return true;
}

// ACL users at startup, as Redis's ACLLoadUsersAtStartup: `user` config lines or the aclfile,
// not both. Prints the error and returns false when startup must stop.
bool load_acl_users(const streamd::config::Config& cfg, streamd::cmd::acl::Acl& acl) {
  const std::string aclfile = cfg.get("aclfile").value_or("");
  if (!aclfile.empty() && !cfg.users().empty()) {
    spdlog::warn(
        "Configuring Redis with users defined in redis.conf and at the same setting an ACL file "
        "path is invalid. This setup is very likely to lead to configuration errors and security "
        "holes, please define either an ACL file or declare users directly in your redis.conf, "
        "but not both.");
    return false;
  }
  for (const auto& line : cfg.users()) {
    if (auto err = acl.load_config_user(line.words)) {
      streamd::config::LoadError e = line.at;
      e.message = *err;
      const std::string product = "streamd " + std::string(kVersion);
      std::fprintf(stderr, "%s\n", e.fatal_text(product).c_str());
      return false;
    }
  }
  if (!aclfile.empty()) {
    if (auto err = acl.load_file(aclfile)) {
      spdlog::warn("Aborting Redis startup because of ACL errors: {}", *err);
      return false;
    }
  }
  return true;
}

void print_usage() {
  std::fprintf(stderr,
               "Usage: ./streamd [/path/to/streamd.conf] [options]\n"
               "       ./streamd -v or --version\n"
               "       ./streamd -h or --help\n"
               "\n"
               "Every configuration directive can be given as an option: --directive value.\n"
               "Options override the configuration file.\n"
               "\n"
               "Examples:\n"
               "       ./streamd (run the server with the default configuration)\n"
               "       ./streamd /etc/streamd/streamd.conf\n"
               "       ./streamd --port 7777\n"
               "       ./streamd --port 7777 --bind \"127.0.0.1 -::1\" --dir /var/lib/streamd\n"
               "       ./streamd /etc/streamd/streamd.conf --loglevel verbose\n");
}

// Each client needs a descriptor; like Redis, ask for maxclients plus a reserve for listeners,
// files and the like, and warn when the system will not give that many.
void raise_open_files_limit(std::size_t maxclients) {
  constexpr rlim_t kReserved = 32;
  rlim_t want = static_cast<rlim_t>(maxclients) + kReserved;
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= want) return;
  rlimit raised = lim;
  raised.rlim_cur = want;
  if (raised.rlim_max < want) raised.rlim_max = want;
  if (setrlimit(RLIMIT_NOFILE, &raised) == 0) return;
  raised.rlim_cur = raised.rlim_max = lim.rlim_max;  // as much as an unprivileged process may
  if (lim.rlim_max > lim.rlim_cur && setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
  spdlog::warn(
      "You requested maxclients of {} requiring at least {} max file descriptors, but the open "
      "files limit is {}: clients beyond about {} will be refused by the system.",
      maxclients, want, lim.rlim_cur, lim.rlim_cur > kReserved ? lim.rlim_cur - kReserved : 0);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace streamd;

  // streamd --check-aof [--fix] <file.manifest|file.aof>: what redis-check-aof is to Redis.
  if (argc >= 2 && std::string_view(argv[1]) == "--check-aof") {
    return persist::check_aof_main(argc - 2, argv + 2, stdout);
  }

  switch (config::early_action(argc, argv)) {
    case config::EarlyAction::kVersion:
      print_version();
      return 0;
    case config::EarlyAction::kHelp:
      print_usage();
      return 1;  // as redis-server does
    case config::EarlyAction::kNone:
      break;
  }

  // ---- configuration: file, then flags; any error stops startup ----
  config::Config cfg;
  std::string config_file;
  {
    std::string error;
    if (!config::load_from_command_line(cfg, argc, argv, config_file, error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
  }
  if (!apply_renames(cfg)) return 1;
  // Like redis-server, work inside `dir` (where persistence files live; a relative logfile is
  // relative to it too), and report it as an absolute path.
  if (const std::string& dir = cfg.dir(); !dir.empty() && ::chdir(dir.c_str()) != 0) {
    std::fprintf(stderr, "Can't chdir to '%s': %s\n", dir.c_str(), std::strerror(errno));
    return 1;
  }
  if (char cwd[4096]; ::getcwd(cwd, sizeof cwd) != nullptr) cfg.force_set("dir", cwd);
  // CONFIG SET dir (where enable-protected-configs allows it) moves there too, as Redis does.
  cfg.add_apply_hook({"dir"}, [&cfg]() -> std::optional<std::string> {
    if (::chdir(cfg.dir().c_str()) != 0) return std::string(std::strerror(errno));
    return std::nullopt;
  });
  net::Settings settings = net::settings_from(cfg);

  if (std::string err = net::setup_logging(cfg.logfile(), settings.loglevel); !err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  spdlog::warn("oO0OoO0OoO0Oo streamd is starting oO0OoO0OoO0Oo");
  spdlog::warn("streamd version={}, bits={}, pid={}, port={}, config file={}, just started",
               kVersion, sizeof(void*) * 8, getpid(), settings.port,
               config_file.empty() ? "(none)" : config_file);
  for (std::string_view name : cfg.set_without_effect()) {
    spdlog::warn("'{}' is set to '{}': streamd accepts this Redis directive but does not act on it",
                 name, cfg.get(name).value_or(""));
  }
  if (config_file.empty()) {
    spdlog::warn(
        "Warning: no config file specified, using the default config. In order to specify a "
        "config file use {} /path/to/streamd.conf",
        argv[0]);
  }

  // A client that disconnects while we write must not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  raise_open_files_limit(settings.maxclients);

  engine::SystemClock clock;
  cmd::Server server(cfg, clock);
  if (!load_acl_users(cfg, server.acl())) return 1;
  cmd::Dispatcher dispatcher(server);
  persist::rdb::DumpCodec dump_codec;  // DUMP / RESTORE payloads
  server.set_value_codec(&dump_codec);
  asio::io_context io(1);  // one thread runs everything: the Redis model
  net::FrontEnd front_end(io, server, dispatcher, cfg);
  net::OutboundClient migrate_client(io, front_end);  // MIGRATE's connections to its targets
  cmd::set_migrate_connector(server, &migrate_client);

  if (!front_end.listen()) return 1;
  // The REST API (rest-port) shares the loop, the dispatcher and the TLS context.
  rest::RestServer rest_server(front_end, cfg);
  if (!rest_server.listen()) return 1;
  // GET /metrics on metrics-port (the REST port serves it too): the same HTTP code, its own role.
  rest::RestServer metrics_server(front_end, cfg, rest::RestServer::Role::kMetrics);
  if (!metrics_server.listen()) return 1;
  cmd::StreamSelection metrics_streams;  // which streams a scrape exports, on either port
  rest_server.set_stream_selection(&metrics_streams);
  metrics_server.set_stream_selection(&metrics_streams);
  net::log_banner({.version = kVersion,
                   .mode = "standalone",
                   .port = settings.port,
                   .pid = static_cast<long>(getpid()),
                   .forced = cfg.get("always-show-logo") == "yes"},
                  cfg.logfile().empty() && ::isatty(STDOUT_FILENO) != 0);

  // Persistence: load the AOF (or create it) before accepting clients, or with appendonly no the
  // RDB file (Redis's precedence); at shutdown, before clients are closed, flush and fsync what
  // was acknowledged, then write the final snapshot if save rules (or SHUTDOWN SAVE) ask.
  persist::RdbService rdb(server);
  persist::AofService aof(server, dispatcher, persist::AofService::options_from(cfg));
  if (!persist::load_dataset(rdb, aof, cfg.appendonly())) return 1;
  server.reset_dirty();  // what was loaded is saved, not a change since the last save
  rdb.attach();
  // Replication (repl/master.h): attached after loading, so the loaded data is not streamed.
  repl::ReplicationMaster replication(server);
  replication.start();
  // The replica side (replicaof, REPLICAOF): its link shares the event loop.
  repl::Replica replica(io, server, dispatcher, replication);
  // TLS: replicas on tls-port get their snapshot through their connection (the child cannot
  // write into a TLS session), and tls-replication yes makes our own link TLS.
  replication.set_tls_links({[&front_end](const cmd::Session& s) { return front_end.is_tls(s); },
                             [&front_end](const cmd::Session& s, int fd, int64_t timeout_ms,
                                          std::function<void(bool)> done) {
                               front_end.relay_to(s, fd, timeout_ms, std::move(done));
                             }});
  replica.set_tls_context(front_end.tls_client_context());
  replica.set_after_full_sync([&aof] { aof.restart_after_full_sync(); });
  replica.start();
  // A dump.rdb with replication fields: continue that history (a partial resync after restart).
  if (const auto& ri = rdb.loaded_repl_info()) replication.restore_rdb_info(*ri);
  front_end.add_shutdown_hook([&aof] { aof.shutdown_flush(); });
  front_end.add_shutdown_hook([&replica] { replica.shutdown(); });
  front_end.add_shutdown_hook(
      [&rdb] { rdb.shutdown_save(cmd::Snapshots::ShutdownSave::kDefault); });
  front_end.add_shutdown_hook([&rest_server] { rest_server.shutdown(); });
  front_end.add_shutdown_hook([&metrics_server] { metrics_server.shutdown(); });

  spdlog::warn("Server initialized");
  front_end.start();
  rest_server.start();
  metrics_server.start();
  for (const std::string& ep : front_end.endpoints()) {
    spdlog::info("Ready to accept connections at {}", ep);
  }
  for (const std::string& ep : rest_server.endpoints()) {
    spdlog::info("Ready to accept connections at {}", ep);
  }
  for (const std::string& ep : metrics_server.endpoints()) {
    spdlog::info("Ready to accept connections at {}", ep);
  }

  io.run();

  spdlog::warn("streamd is now ready to exit, bye bye...");
  return 0;
}
