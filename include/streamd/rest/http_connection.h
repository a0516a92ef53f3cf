// One HTTP/1.1 connection to the REST listener (plain or HTTPS): reads requests, parses them
// with HttpRequestParser, runs each through a RestExecutor on a fresh cmd::Session (registered
// with the server for the request's lifetime, so CLIENT LIST, CLIENT KILL, stats and blocking
// see it as a client), and writes the JSON responses in order. Keep-alive and pipelined requests
// are served one at a time; a blocked request holds the ones behind it, as RESP does.
//
// Invariants: at most one request is in progress (exec_ set, session_ registered); the session
// is removed only at a safe point (never from inside a command handler: CLIENT KILL closes
// connections while it iterates the sessions, so close() only posts the removal).
#pragma once

#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl/context.hpp>
#include <asio/ssl/stream.hpp>
#include <asio/steady_timer.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "streamd/net/input_buffer.h"
#include "streamd/rest/http_request.h"
#include "streamd/rest/rest_executor.h"

namespace streamd::cmd {
struct Session;
}

namespace streamd::rest {

class RestServer;

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  using Socket = asio::ip::tcp::socket;

  HttpConnection(RestServer& rs, Socket socket, asio::ssl::context* tls);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  void start();
  // Closes the socket now; a request in progress is abandoned (its session removed soon after).
  void close();
  // Idle: no request in progress, no output waiting, and nothing received for `idle_ms`. Such
  // a connection costs a descriptor and a buffer and serves nobody (an HTTP keep-alive client
  // that went quiet, or one that sends a request a byte a minute).
  bool idle_for(int64_t now_ms, int64_t idle_ms) const;
  const std::string& peer() const { return peer_; }

 private:
  asio::awaitable<void> read_loop(std::shared_ptr<HttpConnection> self);
  asio::awaitable<bool> tls_handshake();
  // Parses and serves requests until one blocks or the input runs out, then flushes.
  void process();
  void begin_request(const HttpRequest& req);
  // GET /metrics (either role); false if the request is not for it.
  bool serve_metrics(const HttpRequest& req);
  void complete_request();
  void end_session();
  void on_resume();
  void respond(int status, const std::string& json_body);
  void respond_error(int status, std::string_view text);
  void respond_text(int status, std::string_view content_type, std::string_view body);
  void flush();
  void on_written(const asio::error_code& ec);

  RestServer& rs_;
  Socket socket_;
  std::unique_ptr<asio::ssl::stream<Socket&>> tls_;
  bool handshaking_ = false;
  asio::steady_timer timer_;
  std::string peer_, local_;

  net::InputBuffer in_;
  HttpRequestParser parser_;
  bool keep_alive_ = true;  // of the request in progress
  bool head_only_ = false;

  std::unique_ptr<RestExecutor> exec_;
  cmd::Session* session_ = nullptr;
  uint64_t session_id_ = 0;
  bool resume_posted_ = false;

  std::string out_, wbuf_;
  bool write_in_flight_ = false;
  bool close_after_write_ = false;  // Connection: close, or a malformed request was answered
  bool closing_ = false;
  int64_t last_input_ms_ = 0;  // steady clock, ms
};

}  // namespace streamd::rest
