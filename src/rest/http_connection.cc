#include "streamd/rest/http_connection.h"

#include <spdlog/spdlog.h>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

#include <chrono>

#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/commands/server/metrics.h"
#include "streamd/net/front_end.h"
#include "streamd/net/tls.h"
#include "streamd/rest/access.h"
#include "streamd/rest/error_text.h"
#include "streamd/rest/http_response.h"
#include "streamd/rest/resp_to_json.h"
#include "streamd/rest/rest_call.h"
#include "streamd/rest/rest_server.h"

namespace streamd::rest {

namespace {

constexpr auto kAwait = asio::experimental::as_tuple(asio::use_awaitable);

int64_t steady_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// Pipelined requests are not run while this much of their output waits for a client that does
// not read: they resume once the socket drains, so memory stays bounded.
constexpr std::size_t kMaxPendingOutput = 16 * 1024 * 1024;

std::string endpoint_text(const asio::ip::tcp::endpoint& ep) {
  const auto a = ep.address();
  return a.is_v6() ? fmt::format("[{}]:{}", a.to_string(), ep.port())
                   : fmt::format("{}:{}", a.to_string(), ep.port());
}

}  // namespace

HttpConnection::HttpConnection(RestServer& rs, Socket socket, asio::ssl::context* tls)
    : rs_(rs), socket_(std::move(socket)), timer_(rs.front_end().io()) {
  if (tls) tls_ = std::make_unique<asio::ssl::stream<Socket&>>(socket_, *tls);
  asio::error_code ec;
  peer_ = endpoint_text(socket_.remote_endpoint(ec));
  local_ = endpoint_text(socket_.local_endpoint(ec));
  parser_.set_limits(rs_.limits());
  last_input_ms_ = steady_ms();
}

bool HttpConnection::idle_for(int64_t now_ms, int64_t idle_ms) const {
  return !closing_ && !exec_ && !write_in_flight_ && out_.empty() &&
         now_ms - last_input_ms_ > idle_ms;
}

HttpConnection::~HttpConnection() {
  rs_.forget(this);
}

void HttpConnection::start() {
  asio::co_spawn(rs_.front_end().io(), read_loop(shared_from_this()), asio::detached);
}

asio::awaitable<bool> HttpConnection::tls_handshake() {
  handshaking_ = true;
  timer_.expires_after(std::chrono::milliseconds(net::kTlsHandshakeTimeoutMs));
  timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (ec || !self->handshaking_ || self->closing_) return;
    spdlog::info("Closing REST client that did not complete its TLS handshake in time: {}",
                 self->peer_);
    self->close();
  });
  auto [ec] = co_await tls_->async_handshake(asio::ssl::stream_base::server, kAwait);
  handshaking_ = false;
  timer_.cancel();
  if (closing_) co_return false;
  if (ec) {
    spdlog::info("Error accepting a REST client connection: {} (addr={})", ec.message(), peer_);
    close();
    co_return false;
  }
  co_return true;
}

asio::awaitable<void> HttpConnection::read_loop(std::shared_ptr<HttpConnection> self) {
  (void)self;
  if (tls_ && !co_await tls_handshake()) co_return;
  const HttpLimits lim = rs_.limits();
  while (!closing_) {
    char* at = in_.prepare(net::InputBuffer::kReadChunk);
    auto buf = asio::buffer(at, in_.free_space());
    auto [ec, n] = tls_ ? co_await tls_->async_read_some(buf, kAwait)
                        : co_await socket_.async_read_some(buf, kAwait);
    if (closing_) break;
    if (ec) {
      close();
      break;
    }
    in_.commit(n);
    last_input_ms_ = steady_ms();
    rs_.server().stats().net_input_bytes += n;
    // Requests queued behind a blocked one are kept, but not without bound.
    if (in_.size() > lim.max_header_bytes + lim.max_body_bytes + net::InputBuffer::kReadChunk) {
      spdlog::warn("Closing REST client that sent too much while a request was waiting: {}", peer_);
      close();
      break;
    }
    process();
  }
}

void HttpConnection::process() {
  while (!closing_ && !exec_ && !close_after_write_ &&
         out_.size() + wbuf_.size() < kMaxPendingOutput) {
    std::size_t used = 0;
    HttpRequestParser::Status st = parser_.feed(in_.view(), used);
    in_.consume(used);
    if (st == HttpRequestParser::Status::kNeedMore) break;
    if (st == HttpRequestParser::Status::kError) {
      keep_alive_ = false;
      head_only_ = false;
      respond_error(parser_.error_status(), parser_.error_text());
      break;
    }
    begin_request(parser_.request());
    parser_.reset();
  }
  if (closing_) return;
  // Blocked clients whose keys this batch touched are served now (RESP ones too), and a new
  // blocking deadline moves the front end's timer.
  rs_.front_end().after_batch();
  flush();
}

bool HttpConnection::serve_metrics(const HttpRequest& req) {
  std::string_view path = std::string_view(req.target).substr(0, req.target.find('?'));
  if (path != "/metrics") {
    if (rs_.role() != RestServer::Role::kMetrics) return false;
    respond_text(404, "text/plain", errors::kMetricsNotFound);
    return true;
  }
  if (req.method != "GET" && req.method != "HEAD") {
    respond_text(405, "text/plain", errors::kMetricsMethodNotAllowed);
    return true;
  }
  // metrics-token when set; otherwise the REST port takes its own tokens and the metrics port
  // is open (bind it to an address only the scraper reaches).
  std::string_view given = bearer_token(req.authorization);
  bool allowed = true;
  if (!rs_.metrics_token().empty()) {
    allowed = check_token(given, rs_.metrics_token(), {}) != Access::kDenied;
  } else if (rs_.role() == RestServer::Role::kRest) {
    allowed = check_token(given, rs_.token(), rs_.readonly_token()) != Access::kDenied;
  }
  if (!allowed) {
    respond_text(401, "text/plain", errors::kMetricsUnauthorized);
    return true;
  }
  respond_text(200, cmd::kMetricsContentType,
               cmd::metrics_text(rs_.server(), rs_.stream_selection()));
  rs_.keep_selecting();
  return true;
}

void HttpConnection::begin_request(const HttpRequest& req) {
  keep_alive_ = req.keep_alive;
  head_only_ = req.method == "HEAD";
  if (serve_metrics(req)) return;
  RestCall call;
  std::string error;
  bool decoded = decode_call(req, call, error);
  Access access = check_token(call.token, rs_.token(), rs_.readonly_token());
  if (access == Access::kDenied) {
    respond_error(401, errors::kUnauthorized);
    return;
  }
  if (!decoded) {
    respond_error(400, error);
    return;
  }

  cmd::Server& server = rs_.server();
  auto s = std::make_unique<cmd::Session>();
  s->id = server.next_client_id();
  s->addr = peer_;
  s->laddr = local_;
  s->fd = socket_.native_handle();
  s->name = "rest";
  s->created_ms = server.clock().now_ms();
  s->last_interaction_ms = s->created_ms;
  s->authenticated = true;  // the token stands for AUTH
  std::weak_ptr<HttpConnection> weak = weak_from_this();
  s->kill = [weak] {
    if (auto c = weak.lock()) c->close();
  };
  s->resume = [weak] {
    auto c = weak.lock();
    if (!c || c->resume_posted_) return;
    c->resume_posted_ = true;
    // Posted: the registry calls this from inside its own loop over blocked clients.
    asio::post(c->rs_.front_end().io(), [c] { c->on_resume(); });
  };
  s->flush = [] {};
  session_id_ = s->id;
  session_ = &server.add_session(std::move(s));
  exec_ = std::make_unique<RestExecutor>(rs_.front_end().dispatcher(), *session_, std::move(call),
                                         access);
  if (exec_->run()) complete_request();
}

void HttpConnection::on_resume() {
  resume_posted_ = false;
  if (closing_ || !exec_) return;
  if (!exec_->resume()) return;  // blocked again (a pipeline with another blocking read)
  complete_request();
  process();
}

void HttpConnection::complete_request() {
  cmd::Server& server = rs_.server();
  // Group commit: with appendfsync always the answer may only leave once the AOF has the writes;
  // a REST request is one round, so sync now rather than hold the connection.
  if (server.must_hold_replies(*session_)) server.sync_propagation();
  if (session_->close_after_reply) keep_alive_ = false;
  respond(exec_->status(), exec_->body());
  end_session();
}

void HttpConnection::end_session() {
  exec_.reset();
  if (!session_) return;
  session_ = nullptr;
  rs_.server().remove_session(session_id_);
}

void HttpConnection::respond(int status, const std::string& json_body) {
  append_response(out_, status, json_body, keep_alive_, head_only_);
  if (!keep_alive_) close_after_write_ = true;
}

void HttpConnection::respond_text(int status, std::string_view content_type,
                                  std::string_view body) {
  append_response(out_, status, body, content_type, keep_alive_, head_only_);
  if (!keep_alive_) close_after_write_ = true;
}

void HttpConnection::respond_error(int status, std::string_view text) {
  nlohmann::json j = nlohmann::json::object();
  j["error"] = std::string(text);
  respond(status, json_text(j));
}

void HttpConnection::flush() {
  if (closing_ || write_in_flight_ || out_.empty()) return;
  wbuf_.swap(out_);
  out_.clear();
  write_in_flight_ = true;
  auto done = [self = shared_from_this()](const asio::error_code& ec, std::size_t n) {
    self->rs_.server().stats().net_output_bytes += n;
    self->on_written(ec);
  };
  if (tls_) {
    asio::async_write(*tls_, asio::buffer(wbuf_), done);
  } else {
    asio::async_write(socket_, asio::buffer(wbuf_), done);
  }
}

void HttpConnection::on_written(const asio::error_code& ec) {
  write_in_flight_ = false;
  wbuf_.clear();
  if (closing_) return;
  if (ec) {
    close();
    return;
  }
  if (!out_.empty()) {
    flush();
    return;
  }
  if (close_after_write_) {
    close();
    return;
  }
  // Requests that waited for the output to drain (or arrived meanwhile) run now.
  if (!exec_ && !in_.empty()) process();
}

void HttpConnection::close() {
  if (closing_) return;
  closing_ = true;
  asio::error_code ec;
  socket_.close(ec);
  timer_.cancel();
  if (session_) {
    // Never woken again; the session itself goes once the current handler (maybe CLIENT KILL,
    // iterating the sessions) has returned.
    rs_.server().blocking().forget(*session_);
    asio::post(rs_.front_end().io(), [self = shared_from_this()] { self->end_session(); });
  }
}

}  // namespace streamd::rest
