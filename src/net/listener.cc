// FrontEnd's listening half: binding the TCP and unix sockets, the accept coroutines, and turning
// an accepted socket into a session and a connection (or refusing it at maxclients).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/ip/v6_only.hpp>
#include <cerrno>
#include <cstring>

#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/config/config.h"
#include "streamd/net/accept_loop.h"
#include "streamd/net/connection.h"
#include "streamd/net/front_end.h"
#include "streamd/net/tls.h"

namespace streamd::net {

namespace {

// "ip:port" as CLIENT LIST shows it: "127.0.0.1:6379", "[::1]:6379".
std::string format_address(const sockaddr_storage& sa) {
  char ip[INET6_ADDRSTRLEN] = "?";
  if (sa.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(sa);
    inet_ntop(AF_INET, &in.sin_addr, ip, sizeof ip);
    return fmt::format("{}:{}", ip, ntohs(in.sin_port));
  }
  if (sa.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(sa);
    inet_ntop(AF_INET6, &in6.sin6_addr, ip, sizeof ip);
    return fmt::format("[{}]:{}", ip, ntohs(in6.sin6_port));
  }
  return "?:0";
}

std::string peer_address(int fd, bool local) {
  sockaddr_storage sa{};
  socklen_t len = sizeof sa;
  int rc = local ? getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len)
                 : getpeername(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  return rc == 0 ? format_address(sa) : "?:0";
}

// TCP keepalive as Redis sets it: probes start after `interval` seconds of silence, then every
// interval/3 seconds, and three missed probes drop the connection.
void set_keepalive(int fd, int interval) {
  int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &yes, sizeof yes);
  int idle = interval;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  int intvl = std::max(1, interval / 3);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  int cnt = 3;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}

// Errors that mean the address family or address does not exist here: a '-' address is skipped.
bool unavailable(const asio::error_code& ec) {
  if (ec.category() != asio::error::get_system_category()) return false;
  int e = ec.value();
  return e == EAFNOSUPPORT || e == EADDRNOTAVAIL || e == EPROTONOSUPPORT || e == ESOCKTNOSUPPORT ||
         e == EPFNOSUPPORT || e == ENOPROTOOPT;
}

}  // namespace

bool FrontEnd::setup_tls() {
  std::string error;
  tls_ctx_ = make_tls_context(tls_settings_from(cfg_), error);
  if (!tls_ctx_) {
    spdlog::warn("{}", error);
    spdlog::warn("Failed to configure TLS. Check logs for more info.");
    return false;
  }
  return true;
}

bool FrontEnd::setup_tls_client() {
  // tls-replication yes at startup needs the context now (a failure stops startup, as the
  // server context's does); with only tls-port it is built for a later CONFIG SET, quietly.
  bool wanted = cfg_.ref<bool>("tls-replication");
  if (!wanted && settings_.tls_port == 0) return true;
  std::string error;
  tls_client_ctx_ = make_tls_client_context(tls_settings_from(cfg_), error);
  if (tls_client_ctx_ || !wanted) return true;
  spdlog::warn("{}", error);
  spdlog::warn("Failed to configure TLS. Check logs for more info.");
  return false;
}

bool FrontEnd::listen() {
  if (!poller_.open()) {
    spdlog::warn("Could not create the client event set: {}", std::strerror(errno));
    return false;
  }
  io_batch_.open(settings_.io_uring);
  if ((settings_.tls_port != 0 || settings_.rest_tls) && !setup_tls()) return false;
  if (!setup_tls_client()) return false;
  if (settings_.port != 0) {
    for (const std::string& spec : settings_.bind) {
      if (!add_tcp_listener(spec, settings_.port, false)) return false;
    }
  }
  if (settings_.tls_port != 0) {
    for (const std::string& spec : settings_.bind) {
      if (!add_tcp_listener(spec, settings_.tls_port, true)) return false;
    }
  }
  if (!settings_.unixsocket.empty() && !add_unix_listener()) return false;
  if (tcp_acceptors_.empty() && !unix_acceptor_) {
    spdlog::warn("Configured to not listen anywhere, exiting.");
    return false;
  }
  return true;
}

bool FrontEnd::add_tcp_listener(const std::string& spec, int port, bool tls) {
  bool optional = !spec.empty() && spec[0] == '-';
  std::string host = optional ? spec.substr(1) : spec;
  if (host == "*") host = "0.0.0.0";
  if (host == "::*") host = "::";

  asio::error_code ec;
  asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) {
    spdlog::warn("Warning: Could not create server TCP listening socket {}:{}: invalid address",
                 host, port);
    return false;
  }
  asio::ip::tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(io_);
  const char* step = "socket";
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) {
    asio::error_code ignored;
    acceptor->set_option(asio::socket_base::reuse_address(true), ignored);
    // An IPv6 wildcard must not also take IPv4, so "* ::*" binds both.
    if (address.is_v6()) acceptor->set_option(asio::ip::v6_only(true), ignored);
    step = "bind";
    acceptor->bind(endpoint, ec);
  }
  if (!ec) {
    step = "listen";
    acceptor->listen(settings_.tcp_backlog, ec);
  }
  if (ec) {
    std::string where =
        address.is_v6() ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
    if (optional && unavailable(ec)) {
      spdlog::debug("Skipping optional listening address {}: {}", where, ec.message());
      return true;
    }
    spdlog::warn("Warning: Could not create server TCP listening socket {}: {}: {}", where, step,
                 ec.message());
    return false;
  }
  endpoints_.push_back(format_address(
      *reinterpret_cast<const sockaddr_storage*>(acceptor->local_endpoint().data())));
  tcp_acceptors_.push_back({std::move(acceptor), tls});
  return true;
}

bool FrontEnd::add_unix_listener() {
  const std::string& path = settings_.unixsocket;
  ::unlink(path.c_str());  // a stale socket file from an earlier run
  asio::error_code ec;
  auto acceptor = std::make_unique<asio::local::stream_protocol::acceptor>(io_);
  asio::local::stream_protocol::endpoint endpoint;
  try {
    endpoint = asio::local::stream_protocol::endpoint(path);
  } catch (const std::exception& e) {  // the path is longer than sun_path
    spdlog::warn("Failed opening Unix socket: {}: {}", path, e.what());
    return false;
  }
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) acceptor->bind(endpoint, ec);
  if (!ec) acceptor->listen(settings_.tcp_backlog, ec);
  if (ec) {
    spdlog::warn("Failed opening Unix socket: {}: {}", path, ec.message());
    return false;
  }
  if (settings_.unixsocketperm != 0) ::chmod(path.c_str(), settings_.unixsocketperm);
  endpoints_.push_back(path);
  unix_acceptor_ = std::move(acceptor);
  return true;
}

void FrontEnd::accept_on(TcpListener& l) {
  bool tls = l.tls;
  asio::co_spawn(io_,
                 accept_until_closed(
                     *l.acceptor, "client connection", [this] { return shutting_down_; },
                     [this, tls](asio::ip::tcp::socket s) {
                       on_accept(Connection::Socket(std::move(s)), false, tls);
                     }),
                 asio::detached);
}

std::optional<std::string> FrontEnd::rebind(std::string_view error) {
  // Closes the listeners first (the new addresses may include the old ones, which a listener
  // still open would hold), then listens as CONFIG SET asks; if that fails, listens again as
  // before (settings_ still holds the old port and addresses: it follows after the apply hooks).
  auto listen_on = [this](int port, const std::vector<std::string>& bind) {
    tcp_acceptors_.clear();
    endpoints_.clear();
    for (const std::string& spec : bind) {
      if (port != 0 && !add_tcp_listener(spec, port, false)) return false;
      if (settings_.tls_port != 0 && !add_tcp_listener(spec, settings_.tls_port, true)) {
        return false;
      }
    }
    return true;
  };
  for (TcpListener& l : tcp_acceptors_) {
    asio::error_code ec;
    l.acceptor->close(ec);
    closed_acceptors_.push_back(std::move(l));
  }
  std::optional<std::string> result;
  if (!listen_on(static_cast<int>(cfg_.port()), cfg_.bind())) {
    result = std::string(error);
    if (!listen_on(settings_.port, settings_.bind)) {
      spdlog::warn("Failed to restore the old listening addresses after a failed CONFIG SET");
    }
  }
  if (unix_acceptor_) endpoints_.push_back(settings_.unixsocket);
  for (TcpListener& l : tcp_acceptors_) accept_on(l);
  if (!result) {
    for (const std::string& ep : endpoints_) spdlog::info("Ready to accept connections at {}", ep);
  }
  return result;
}

void FrontEnd::start_accepting() {
  for (auto& l : tcp_acceptors_) accept_on(l);
  if (unix_acceptor_) {
    asio::co_spawn(io_,
                   accept_until_closed(
                       *unix_acceptor_, "client connection", [this] { return shutting_down_; },
                       [this](asio::local::stream_protocol::socket s) {
                         on_accept(Connection::Socket(std::move(s)), true, false);
                       }),
                   asio::detached);
  }
}

void FrontEnd::reject(Connection::Socket& socket, bool tls, std::string_view reply) {
  // As Redis: a best-effort write of the error, then close (the socket is new, so the message
  // fits in the kernel buffer).
  const std::string line = fmt::format("-{}\r\n", reply);
  asio::error_code ec;
  socket.non_blocking(true, ec);
  // A TLS client could not read plain text; it just sees the connection close.
  if (!tls) socket.write_some(asio::buffer(line), ec);
  socket.close(ec);
  ++server_.stats().rejected_connections;
}

void FrontEnd::reap_hung_up() {
  // A client that already hung up may not have been noticed yet (its EOF waits behind this
  // accept in the event queue): close those now so their slots count as the free slots they are.
  std::vector<Connection*> snapshot = conns_;
  for (Connection* c : snapshot) {
    if (!c->session_ || c->closing_) continue;
    char byte;
    if (::recv(c->session_->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) c->close();
  }
  reap_retired();
}

void FrontEnd::on_accept(Connection::Socket socket, bool is_unix, bool tls) {
  if (conns_.size() >= settings_.maxclients) reap_hung_up();
  if (conns_.size() >= settings_.maxclients) {
    reject(socket, tls, cmd::errors::kMaxClients);
    return;
  }
  asio::error_code ec;
  socket.non_blocking(true, ec);
  int fd = socket.native_handle();
  if (!is_unix) {
    int yes = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    if (settings_.tcp_keepalive_s > 0) set_keepalive(fd, settings_.tcp_keepalive_s);
  }

  auto session = std::make_unique<cmd::Session>();
  session->id = server_.next_client_id();
  session->fd = fd;
  session->unix_socket = is_unix;
  if (is_unix) {
    session->addr = settings_.unixsocket + ":0";
    session->laddr = session->addr;
  } else {
    session->addr = peer_address(fd, false);
    session->laddr = peer_address(fd, true);
  }
  // protected-mode: while the default user needs no password, only local clients (Redis checks
  // this on accept).
  const cmd::acl::User& default_user = *server_.acl().default_user();
  if (cfg_.protected_mode() && default_user.nopass && !session->local()) {
    reject(socket, tls, cmd::errors::kProtectedMode);
    return;
  }
  session->created_ms = server_.clock().now_ms();
  session->last_interaction_ms = session->created_ms;
  // As Redis decides at accept: when the default user needs a password (or is off), a new client
  // must AUTH first (clients already connected when CONFIG SET adds a password stay
  // authenticated).
  session->authenticated = default_user.nopass && default_user.enabled;
  spdlog::debug("Accepted {}", session->addr);

  cmd::Session& s = server_.add_session(std::move(session));
  auto conn =
      std::make_shared<Connection>(*this, std::move(socket), s, tls ? tls_ctx_.get() : nullptr);
  conn->registry_index_ = conns_.size();
  conns_.push_back(conn.get());
  conn->start();
}

}  // namespace streamd::net
