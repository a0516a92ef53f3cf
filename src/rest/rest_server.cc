#include "streamd/rest/rest_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>

#include <spdlog/spdlog.h>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/ip/v6_only.hpp>
#include <asio/steady_timer.hpp>

#include "streamd/commands/core/server.h"
#include "streamd/commands/server/stream_selection.h"
#include "streamd/config/config.h"
#include "streamd/net/accept_loop.h"
#include "streamd/net/front_end.h"
#include "streamd/rest/http_connection.h"

namespace streamd::rest {

RestServer::RestServer(net::FrontEnd& fe, config::Config& cfg, Role role)
    : fe_(fe),
      cfg_(cfg),
      role_(role),
      token_(cfg.ref<std::string>("rest-token")),
      readonly_token_(cfg.ref<std::string>("rest-readonly-token")),
      metrics_token_(cfg.ref<std::string>("metrics-token")),
      tls_(cfg.ref<bool>(directive("tls"))),
      sweep_timer_(fe.io()),
      selection_timer_(fe.io()) {}

RestServer::~RestServer() = default;

std::string RestServer::directive(std::string_view suffix) const {
  return std::string(role_ == Role::kRest ? "rest-" : "metrics-") + std::string(suffix);
}

bool RestServer::enabled() const {
  return cfg_.ref<std::int64_t>(directive("port")) != 0;
}

cmd::Server& RestServer::server() {
  return fe_.server();
}

HttpLimits RestServer::limits() const {
  HttpLimits l;
  l.max_body_bytes = cfg_.ref<std::uint64_t>("rest-max-body-size");
  return l;
}

bool RestServer::listen() {
  if (!enabled()) return true;
  if (role_ == Role::kRest && token_.empty() && readonly_token_.empty()) {
    spdlog::warn(
        "rest-port is set but neither rest-token nor rest-readonly-token is: refusing to "
        "serve the REST API without authentication.");
    return false;
  }
  if (tls_ && !fe_.tls_context()) {
    spdlog::warn("{} yes needs the TLS settings (tls-cert-file, tls-key-file...).",
                 directive("tls"));
    return false;
  }
  int port = static_cast<int>(cfg_.ref<std::int64_t>(directive("port")));
  for (const std::string& spec : cfg_.ref<std::vector<std::string>>(directive("bind"))) {
    if (!add_listener(spec, port)) return false;
  }
  if (acceptors_.empty()) {
    spdlog::warn("{} is set but no {} address could be used.", directive("port"),
                 directive("bind"));
    return false;
  }
  return true;
}

bool RestServer::add_listener(const std::string& spec, int port) {
  bool optional = !spec.empty() && spec[0] == '-';
  std::string host = optional ? spec.substr(1) : spec;
  if (host == "*") host = "0.0.0.0";
  if (host == "::*") host = "::";
  asio::error_code ec;
  asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) {
    spdlog::warn("Could not create {} listening socket {}:{}: invalid address", directive("port"),
                 host, port);
    return false;
  }
  asio::ip::tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(fe_.io());
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) {
    asio::error_code ignored;
    acceptor->set_option(asio::socket_base::reuse_address(true), ignored);
    if (address.is_v6()) acceptor->set_option(asio::ip::v6_only(true), ignored);
    acceptor->bind(endpoint, ec);
  }
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    // As for `bind`: a '-' address the system lacks is skipped.
    if (optional && ec.category() == asio::error::get_system_category() &&
        (ec.value() == EADDRNOTAVAIL || ec.value() == EAFNOSUPPORT)) {
      return true;
    }
    spdlog::warn("Could not create {} listening socket {}:{}: {}", directive("port"), host, port,
                 ec.message());
    return false;
  }
  std::string where =
      address.is_v6() ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
  std::string_view what = role_ == Role::kRest ? "REST" : "metrics";
  endpoints_.push_back(fmt::format("{} ({}, {})", where, what, tls_ ? "https" : "http"));
  acceptors_.push_back(std::move(acceptor));
  return true;
}

void RestServer::start() {
  for (auto& a : acceptors_) {
    asio::co_spawn(fe_.io(),
                   net::accept_until_closed(
                       *a, "REST connection", [this] { return stopped_; },
                       [this](asio::ip::tcp::socket s) { on_accept(std::move(s)); }),
                   asio::detached);
  }
  if (!acceptors_.empty()) sweep_idle();
}

void RestServer::sweep_idle() {
  int64_t idle_s = cfg_.ref<std::int64_t>("rest-idle-timeout");
  if (idle_s > 0 && !conns_.empty()) {
    using namespace std::chrono;
    int64_t now = duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
    std::vector<HttpConnection*> idle;
    for (HttpConnection* c : conns_) {
      if (c->idle_for(now, idle_s * 1000)) idle.push_back(c);
    }
    for (HttpConnection* c : idle) {
      spdlog::debug("Closing idle REST client {}", c->peer());
      c->close();
    }
  }
  sweep_timer_.expires_after(std::chrono::seconds(1));
  sweep_timer_.async_wait([this](const asio::error_code& ec) {
    if (!ec && !stopped_) sweep_idle();
  });
}

void RestServer::keep_selecting() {
  if (selecting_ || stopped_ || !selection_ || !selection_->pass_running()) return;
  selecting_ = true;
  selection_timer_.expires_after(std::chrono::milliseconds(cmd::StreamSelection::kStepPeriodMs));
  selection_timer_.async_wait([this](const asio::error_code& ec) {
    if (!ec && !stopped_) selection_tick();
  });
}

void RestServer::selection_tick() {
  selecting_ = false;
  selection_->step(server());
  keep_selecting();
}

void RestServer::on_accept(asio::ip::tcp::socket socket) {
  // HTTP connections count against maxclients with the RESP ones' budget, separately.
  if (conns_.size() >= fe_.settings().maxclients) {
    asio::error_code ignored;
    socket.close(ignored);
    ++server().stats().rejected_connections;
    return;
  }
  int yes = 1;
  setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  auto conn = std::make_shared<HttpConnection>(*this, std::move(socket),
                                               tls_ ? fe_.tls_context() : nullptr);
  conns_.insert(conn.get());
  conn->start();
}

void RestServer::shutdown() {
  stopped_ = true;
  sweep_timer_.cancel();
  selection_timer_.cancel();
  asio::error_code ec;
  for (auto& a : acceptors_) a->close(ec);
  std::vector<HttpConnection*> all(conns_.begin(), conns_.end());
  for (HttpConnection* c : all) c->close();
}

}  // namespace streamd::rest
