// The configuration values the network layer uses, as plain numbers and strings. The front end
// reads them from config::Config at startup and again whenever CONFIG SET changes a directive,
// so a new limit, idle timeout, hz or loglevel takes effect at once, and the hot path reads a
// plain struct.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace streamd::config {
class Config;
}

namespace streamd::net {

// client-output-buffer-limit for one class of clients; 0 means "no limit".
struct OutputLimit {
  uint64_t hard_bytes = 0;
  uint64_t soft_bytes = 0;
  int64_t soft_seconds = 0;
};

struct Settings {
  // Listening (read once at startup).
  int port = 6379;
  std::vector<std::string> bind = {"127.0.0.1", "-::1"};  // '-' prefix: skip if unavailable
  int tls_port = 0;                                       // 0 = no TLS listener
  bool rest_tls = false;  // the REST listener needs the TLS context too
  int tcp_backlog = 511;
  std::string unixsocket;       // empty: no unix socket
  unsigned unixsocketperm = 0;  // octal mode bits; 0 leaves the umask's choice
  bool io_uring = true;         // batch client reads and writes through io_uring if possible

  // Per-client limits and the rest (follow CONFIG SET).
  std::size_t maxclients = 10000;
  int64_t timeout_s = 0;      // idle timeout, 0 = never
  int tcp_keepalive_s = 300;  // 0 = no SO_KEEPALIVE
  std::size_t proto_max_bulk_len = 512ull * 1024 * 1024;
  std::size_t client_query_buffer_limit = 1024ull * 1024 * 1024;
  OutputLimit normal_output_limit = {256ull * 1024 * 1024, 0, 0};
  // Clients subscribed to a channel, pattern or shard channel (Redis's default 32mb 8mb 60).
  OutputLimit pubsub_output_limit = {32ull * 1024 * 1024, 8ull * 1024 * 1024, 60};
  // Replica links (Redis's default 256mb 64mb 60).
  OutputLimit replica_output_limit = {256ull * 1024 * 1024, 64ull * 1024 * 1024, 60};
  int hz = 10;
  std::string loglevel = "notice";  // debug, verbose, notice, warning, nothing
};

// Reads the settings from the configuration.
Settings settings_from(const config::Config& cfg);

}  // namespace streamd::net
