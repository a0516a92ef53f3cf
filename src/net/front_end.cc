// FrontEnd: the connection registry, the timer (cron and blocking deadlines), signals and
// shutdown. The listeners and accepting are in listener.cc.
#include "streamd/net/front_end.h"

#include <unistd.h>
#include <algorithm>
#include <asio/post.hpp>
#include <chrono>

#include <spdlog/spdlog.h>
#include <csignal>
#include <limits>

#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/config/config.h"
#include "streamd/net/connection.h"
#include "streamd/net/logging.h"

namespace streamd::net {

namespace {

std::size_t smallest_limit(const OutputLimit& lim) {
  std::size_t n = std::numeric_limits<std::size_t>::max();
  if (lim.hard_bytes) n = std::min<std::size_t>(n, lim.hard_bytes);
  if (lim.soft_bytes) n = std::min<std::size_t>(n, lim.soft_bytes);
  return n;
}

bool same_limit(const OutputLimit& a, const OutputLimit& b) {
  return a.hard_bytes == b.hard_bytes && a.soft_bytes == b.soft_bytes &&
         a.soft_seconds == b.soft_seconds;
}

// The smallest output size at which some client class's limit needs checking.
std::size_t smallest_limit(const Settings& s) {
  return std::min({smallest_limit(s.normal_output_limit), smallest_limit(s.pubsub_output_limit),
                   smallest_limit(s.replica_output_limit)});
}

bool same_limits(const Settings& a, const Settings& b) {
  return a.maxclients == b.maxclients && a.timeout_s == b.timeout_s &&
         a.tcp_keepalive_s == b.tcp_keepalive_s && a.proto_max_bulk_len == b.proto_max_bulk_len &&
         a.client_query_buffer_limit == b.client_query_buffer_limit &&
         same_limit(a.normal_output_limit, b.normal_output_limit) &&
         same_limit(a.pubsub_output_limit, b.pubsub_output_limit) &&
         same_limit(a.replica_output_limit, b.replica_output_limit) && a.hz == b.hz &&
         a.loglevel == b.loglevel;
}

}  // namespace

FrontEnd::FrontEnd(asio::io_context& io, cmd::Server& server, cmd::Dispatcher& dispatcher,
                   config::Config& cfg)
    : io_(io),
      server_(server),
      dispatcher_(dispatcher),
      cfg_(cfg),
      settings_(settings_from(cfg)),
      output_check_bytes_(smallest_limit(settings_)),
      poller_(io),
      timer_(io),
      signals_(io) {
  // CONFIG SET of a limit, the idle timeout, hz or loglevel takes effect at once.
  config_listener_ = cfg_.on_any_change([this](const config::Directive&) { refresh_settings(); });
}

FrontEnd::~FrontEnd() {
  cfg_.remove(config_listener_);
  for (uint64_t id : apply_hooks_) cfg_.remove(id);
}

void FrontEnd::start() {
  poller_.set_turn_hooks([this] { begin_turn(); }, [this] { end_turn(); });
  poller_.start();
  start_accepting();
  apply_hooks_.push_back(
      cfg_.add_apply_hook({"port"}, [this] { return rebind(cmd::errors::kConfigPortListen); }));
  apply_hooks_.push_back(
      cfg_.add_apply_hook({"bind"}, [this] { return rebind(cmd::errors::kConfigBindFailed); }));
  server_.request_shutdown = [this] { shutdown("SHUTDOWN"); };

  signals_.add(SIGINT);
  signals_.add(SIGTERM);
  wait_signal();

  next_cron_ms_ = server_.clock().now_ms() + 1000 / std::clamp(settings_.hz, 1, 500);
  arm_timer(next_cron_ms_);
}

// ---- per batch ----

void FrontEnd::after_batch() {
  dispatcher_.after_batch();
  // A client that blocked in this batch may have a deadline before the next tick.
  int64_t deadline = server_.blocking().next_deadline();
  if (deadline != 0 && timer_target_ms_ != 0 && deadline < timer_target_ms_) arm_timer(deadline);
  reap();
}

bool FrontEnd::is_tls(const cmd::Session& s) const {
  for (const Connection* c : conns_) {
    if (c->session_ == &s) return c->tls();
  }
  return false;
}

void FrontEnd::relay_to(const cmd::Session& s, int fd, int64_t timeout_ms,
                        std::function<void(bool)> done) {
  for (Connection* c : conns_) {
    if (c->session_ == &s) return c->relay_from(fd, timeout_ms, std::move(done));
  }
  ::close(fd);
  done(false);
}

void FrontEnd::retire(std::shared_ptr<Connection> c) {
  retired_.push_back(std::move(c));
}

void FrontEnd::reap_retired() {
  std::vector<std::shared_ptr<Connection>> done;
  done.swap(retired_);
  for (auto& c : done) {
    if (c->session_) {
      uint64_t id = c->session_->id;
      c->session_ = nullptr;
      server_.remove_session(id);  // also forgets its WATCHes and blocking state
    }
    std::size_t i = c->registry_index_;
    if (i < conns_.size() && conns_[i] == c.get()) {
      conns_[i] = conns_.back();
      conns_[i]->registry_index_ = i;
      conns_.pop_back();
    }
  }
}

// ---- group commit ----

void FrontEnd::hold(std::shared_ptr<Connection> c) {
  c->held_ = true;
  held_.push_back(std::move(c));
  // While releasing, a connection that must still wait (the AOF could not be written) is left
  // for the timer, so a failing disk does not turn into a busy loop.
  if (release_posted_ || releasing_) return;
  release_posted_ = true;
  asio::post(io_, [this] {
    release_posted_ = false;
    release_held();
  });
}

void FrontEnd::release_held() {
  begin_turn();  // the released replies leave in one batch
  releasing_ = true;
  server_.sync_propagation();
  std::vector<std::shared_ptr<Connection>> batch;
  batch.swap(held_);
  for (auto& c : batch) {
    c->held_ = false;
    c->flush();
  }
  releasing_ = false;
  end_turn();
}

// ---- the timer: cron at hz, and blocked clients' deadlines to the millisecond ----

void FrontEnd::arm_timer(int64_t target_ms) {
  timer_target_ms_ = target_ms;
  int64_t delay = std::max<int64_t>(0, target_ms - server_.clock().now_ms());
  timer_.expires_after(std::chrono::milliseconds(delay));
  timer_.async_wait([this](const asio::error_code& ec) {
    if (ec == asio::error::operation_aborted || shutting_down_) return;  // re-armed or stopping
    on_timer();
  });
}

void FrontEnd::on_timer() {
  begin_turn();
  int64_t now = server_.clock().now_ms();
  if (now >= next_cron_ms_) {
    server_.cron();
    clients_cron(now);
    next_cron_ms_ = now + 1000 / std::clamp(settings_.hz, 1, 500);
  }
  dispatcher_.after_batch();  // replies to blocked clients whose deadline passed
  reap();
  // Records propagated outside any client batch (active expiry) and output still held after a
  // failed AOF write get their sync here.
  if (!release_posted_) release_held();
  int64_t target = next_cron_ms_;
  int64_t deadline = server_.blocking().next_deadline();
  if (deadline != 0 && deadline < target) target = deadline;
  arm_timer(target);
  end_turn();
}

void FrontEnd::clients_cron(int64_t now_ms) {
  // close() only queues the connection for reap(), so indexes stay valid during the loop.
  for (std::size_t i = 0; i < conns_.size(); ++i) conns_[i]->cron(now_ms);
  reap();
}

void FrontEnd::refresh_settings() {
  Settings fresh = settings_from(cfg_);
  if (same_limits(fresh, settings_)) return;
  if (fresh.loglevel != settings_.loglevel) set_log_level(fresh.loglevel);
  // Listening addresses are only read at startup.
  fresh.port = settings_.port;
  fresh.tls_port = settings_.tls_port;
  fresh.rest_tls = settings_.rest_tls;
  fresh.bind = settings_.bind;
  fresh.tcp_backlog = settings_.tcp_backlog;
  fresh.unixsocket = settings_.unixsocket;
  fresh.unixsocketperm = settings_.unixsocketperm;
  fresh.io_uring = settings_.io_uring;
  settings_ = std::move(fresh);
  output_check_bytes_ = smallest_limit(settings_);
  ++settings_gen_;
}

// ---- signals and shutdown ----

void FrontEnd::wait_signal() {
  signals_.async_wait([this](const asio::error_code& ec, int sig) {
    if (ec) return;
    cmd::ShutdownSequence& seq = server_.shutdown();
    if (sig == SIGINT && seq.waiting()) {
      // Redis exits at once on a second SIGINT; streamd still flushes the AOF on the way out.
      spdlog::warn("You insist... exiting now.");
      shutdown("signal");
      return;
    }
    spdlog::warn("Received {} scheduling shutdown...", sig == SIGINT ? "SIGINT" : "SIGTERM");
    // shutdown-on-sigint / shutdown-on-sigterm hold SHUTDOWN's flags ("default": none).
    auto flags = static_cast<uint32_t>(
        cfg_.ref<std::int64_t>(sig == SIGINT ? "shutdown-on-sigint" : "shutdown-on-sigterm"));
    // Waiting for replicas, or a failed save without FORCE (the server keeps running): a later
    // signal is still heard. Exiting: the posted shutdown stops the loop.
    if (seq.begin(flags) != cmd::ShutdownSequence::Outcome::kExiting) wait_signal();
    dispatcher_.after_batch();
  });
}

void FrontEnd::shutdown(std::string reason) {
  if (shutdown_posted_) return;
  shutdown_posted_ = true;
  // Posted: SHUTDOWN calls this from inside a command, while the caller's batch is running.
  asio::post(io_, [this, reason = std::move(reason)] { do_shutdown(reason); });
}

void FrontEnd::do_shutdown(const std::string& reason) {
  // ShutdownSequence::begin logged "User requested shutdown..." when the shutdown started (it
  // may have waited for replicas since); this is where the process winds down.
  spdlog::info("Closing listeners and connections ({}).", reason);
  shutting_down_ = true;

  // Persistence flushes here, while every client is still connected.
  for (auto& hook : shutdown_hooks_) hook();

  asio::error_code ec;
  for (auto& l : tcp_acceptors_) l.acceptor->close(ec);
  if (unix_acceptor_) {
    unix_acceptor_->close(ec);
    spdlog::info("Removing the unix socket file.");
    ::unlink(settings_.unixsocket.c_str());
  }
  for (std::size_t i = 0; i < conns_.size(); ++i) conns_[i]->close();
  reap();
  poller_.stop();
  timer_.cancel();
  timer_target_ms_ = 0;
  signals_.cancel();
  // Nothing is left to wait for: io_context::run() returns once the aborted operations have
  // delivered their completions.
}

}  // namespace streamd::net
