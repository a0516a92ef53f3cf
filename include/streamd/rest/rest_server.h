// The REST listener: rest-port on each rest-bind address (HTTPS with rest-tls, using the front
// end's TLS context), the HTTP connections it accepted, and the REST settings they read. It
// rides on the front end's event loop, dispatcher and shutdown; the network layer itself knows
// nothing of HTTP.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "streamd/rest/http_request.h"

namespace streamd::cmd {
class Server;
class StreamSelection;
}  // namespace streamd::cmd
namespace streamd::config {
class Config;
}
namespace streamd::net {
class FrontEnd;
}

namespace streamd::rest {

class HttpConnection;

class RestServer {
 public:
  // kRest: the REST API on rest-port (GET /metrics too); kMetrics: GET /metrics alone on
  // metrics-port (metrics-bind, metrics-tls), every other path 404.
  enum class Role { kRest, kMetrics };
  RestServer(net::FrontEnd& fe, config::Config& cfg, Role role = Role::kRest);
  ~RestServer();
  RestServer(const RestServer&) = delete;
  RestServer& operator=(const RestServer&) = delete;

  bool enabled() const;
  // Binds rest-port on every rest-bind address; false (after logging why) on failure or when no
  // token is configured.
  bool listen();
  void start();
  // Closes the listeners and every connection (a front-end shutdown hook).
  void shutdown();

  const std::vector<std::string>& endpoints() const { return endpoints_; }

  // ---- for connections ----
  net::FrontEnd& front_end() { return fe_; }
  cmd::Server& server();
  HttpLimits limits() const;
  // Read on every request, so CONFIG SET rest-token rotates a token at once.
  const std::string& token() const { return token_; }
  const std::string& readonly_token() const { return readonly_token_; }
  const std::string& metrics_token() const { return metrics_token_; }
  Role role() const { return role_; }
  void forget(HttpConnection* c) { conns_.erase(c); }

  // Which streams GET /metrics exports (commands/server/stream_selection.h), shared by the REST
  // and metrics listeners; without one, every scrape walks the whole keyspace.
  void set_stream_selection(cmd::StreamSelection* s) { selection_ = s; }
  cmd::StreamSelection* stream_selection() { return selection_; }
  // After a scrape: steps the selection's background pass every 20 ms while one runs.
  void keep_selecting();

 private:
  bool add_listener(const std::string& spec, int port);
  void on_accept(asio::ip::tcp::socket socket);
  // Once a second: closes connections idle for longer than rest-idle-timeout.
  void sweep_idle();
  void selection_tick();

  // The directive of this role ("rest-port" or "metrics-port"...).
  std::string directive(std::string_view suffix) const;

  net::FrontEnd& fe_;
  config::Config& cfg_;
  Role role_;
  const std::string& token_;
  const std::string& readonly_token_;
  const std::string& metrics_token_;
  bool tls_ = false;
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> acceptors_;
  std::vector<std::string> endpoints_;
  std::unordered_set<HttpConnection*> conns_;
  asio::steady_timer sweep_timer_;
  cmd::StreamSelection* selection_ = nullptr;
  asio::steady_timer selection_timer_;
  bool selecting_ = false;  // selection_timer_ is armed
  bool stopped_ = false;
};

}  // namespace streamd::rest
