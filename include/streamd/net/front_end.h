// The network front end: everything between the sockets and the command layer, on one
// io_context run by one thread (the Redis model, so nothing here is synchronised).
//
// It owns the listeners (TCP on each `bind` address, TLS on `tls-port` at the same addresses,
// the unix socket) and the TLS context (also lent to the REST listener), the registry of live
// connections (maxclients, idle timeouts, output-limit checks, shutdown), one timer that drives
// both cmd::Server::cron at `hz` and the deadlines of blocked clients, and the SIGINT/SIGTERM
// handling. Connections call back into it after each batch of commands (after_batch) and when
// they close (retire).
//
// Invariants: a connection is in conns_ from accept until reap(); its cmd::Session lives in
// cmd::Server exactly as long. A closed connection is reaped at the next safe point (after a
// command, after a batch, on a timer tick), never from inside a command handler, because
// handlers such as CLIENT KILL iterate over the sessions while they close connections.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/generic/stream_protocol.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/local/stream_protocol.hpp>
#include <asio/signal_set.hpp>
#include <asio/ssl/context.hpp>
#include <asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/engine/clock.h"
#include "streamd/net/io_batch.h"
#include "streamd/net/poller.h"
#include "streamd/net/settings.h"

namespace streamd::cmd {
class Server;
class Dispatcher;
struct Session;
}  // namespace streamd::cmd

namespace streamd::config {
class Config;
}

namespace streamd::net {

class Connection;

class FrontEnd {
 public:
  FrontEnd(asio::io_context& io, cmd::Server& server, cmd::Dispatcher& dispatcher,
           config::Config& cfg);
  ~FrontEnd();
  FrontEnd(const FrontEnd&) = delete;
  FrontEnd& operator=(const FrontEnd&) = delete;

  // Opens every listener. Returns false, after logging why, when a required address cannot be
  // bound (an address written with a leading '-' is skipped if the system lacks it).
  bool listen();
  // Starts accepting, the cron timer and the signal handlers, and hooks SHUTDOWN.
  void start();
  // Stops serving: runs the shutdown hooks, closes the listeners and every client, cancels the
  // timer and the signals, so io_context::run() returns once the last handler has finished.
  // Safe to call from a handler (the work is posted) and more than once.
  void shutdown(std::string reason);
  // Runs at shutdown before any client is closed: the place for persistence to flush.
  void add_shutdown_hook(std::function<void()> hook) { shutdown_hooks_.push_back(std::move(hook)); }
  bool shutting_down() const { return shutting_down_; }

  // The addresses actually listened on ("127.0.0.1:6379", "/tmp/streamd.sock"), for the log.
  const std::vector<std::string>& endpoints() const { return endpoints_; }

  // ---- used by connections ----
  cmd::Server& server() { return server_; }
  cmd::Dispatcher& dispatcher() { return dispatcher_; }
  const Settings& settings() const { return settings_; }
  // Changes whenever settings() were re-read and differ, so connections can refresh cached
  // parser limits cheaply.
  uint64_t settings_generation() const { return settings_gen_; }
  // Pending output below this needs no limit check (the smallest configured output limit).
  std::size_t output_check_bytes() const { return output_check_bytes_; }
  asio::io_context& io() { return io_; }
  // Plain client sockets wait for readiness here.
  Poller& poller() { return poller_; }
  // The TLS server context, built by listen() when tls-port or rest-tls asks for it; else null.
  asio::ssl::context* tls_context() { return tls_ctx_.get(); }

  // The client context of a replica's TLS link to its master (tls-replication yes), built by
  // listen() when tls-replication or tls-port asks for TLS; else null.
  asio::ssl::context* tls_client_context() { return tls_client_ctx_.get(); }
  // For the full sync of TLS replicas (repl/full_sync.cc): whether `s` is a client of a TLS
  // connection, and Connection::relay_from on its connection (done(false) when it has none).
  bool is_tls(const cmd::Session& s) const;
  void relay_to(const cmd::Session& s, int fd, int64_t timeout_ms, std::function<void(bool)> done);
  // After a batch of commands: serves blocked clients whose keys became ready, brings the timer
  // forward when a new blocking deadline is earlier, and reaps closed connections.
  void after_batch();
  // Group commit: `c` has output that may only leave after the AOF sync of this event-loop
  // round. The first hold of a round posts release_held(), which runs after every connection
  // that is ready now has run its batch: one write (and fsync, per policy) covers them all.
  void hold(std::shared_ptr<Connection> c);
  // A connection closed: its session is removed at the next reap().
  void retire(std::shared_ptr<Connection> c);
  // Removes the sessions of closed connections and forgets the connections.
  void reap() {
    if (!retired_.empty()) reap_retired();
  }

  // ---- a turn of client I/O (turn.cc) ----
  // Everything that runs commands for clients happens inside a turn (a batch of poller events,
  // a batch of wake-ups, the release of held replies, a timer tick). Reads queued during the
  // turn run together at its end, then the commands they bring, then every queued write, each
  // group in one IoBatch; the clients woken during the turn are served before its writes.
  // Outside a turn a queued write or wake-up gets a turn of its own, posted.
  void begin_turn() {
    if (turn_depth_++ == 0) turn_start_us_ = engine::monotonic_us();
  }
  void end_turn();
  // Reads into `buf` for `c` at the end of the turn; c->on_read_done gets the result.
  void queue_read(std::shared_ptr<Connection> c, char* buf, std::size_t len);
  // c has output: Connection::start_batched_write runs at the end of the turn.
  void want_write(std::shared_ptr<Connection> c);
  // Runs c->on_wakeup() before the current turn's writes (outside a turn: in a posted turn of
  // its own), so a woken client's reply leaves in the same batch as, and before, the reply of
  // the command that woke it.
  void wake(std::shared_ptr<Connection> c);
  // A plain client unblocked inside a turn, its reply complete in its output: the reply is
  // written now, in batches that double from one (1, 2, 4 ... kMaxWokenBatch replies per
  // io_uring_enter) while the turn goes on serving the other clients woken with it, rather
  // than after all of them. The first of 200 readers woken by one XADD used to get its entry
  // only once all 200 re-runs were done (0.7 ms here); the ones not sent when the turn's
  // wake-ups are over leave before its other writes.
  void send_woken(std::shared_ptr<Connection> c);
  // Whether client reads and writes are batched through io_uring (else one call each).
  bool batches_io() const { return io_batch_.uses_ring(); }

 private:
  bool add_tcp_listener(const std::string& spec, int port, bool tls);
  // CONFIG SET port / bind: listens on the new addresses first and only then stops listening on
  // the old ones; if any new one fails, nothing changes and `error` is CONFIG SET's message.
  std::optional<std::string> rebind(std::string_view error);
  bool add_unix_listener();
  bool setup_tls();
  bool setup_tls_client();
  void start_accepting();
  void on_accept(asio::generic::stream_protocol::socket socket, bool is_unix, bool tls);
  // Writes `reply` (an error line without '-' and CRLF; not to a TLS client, which could not
  // read plain text) and closes the new connection, counted in rejected_connections.
  void reject(asio::generic::stream_protocol::socket& socket, bool tls, std::string_view reply);
  void reap_hung_up();
  void reap_retired();
  void release_held();
  void complete_reads();
  // Runs io_batch_ and hands each result to (connection->*on_done), the connection being
  // queued[tag]; queued is swapped into `running` first, and `done` holds the results (the
  // callbacks may queue and run more).
  void run_batch(std::vector<std::shared_ptr<Connection>>& queued,
                 std::vector<std::shared_ptr<Connection>>& running,
                 std::vector<IoBatch::Completion>& done, void (Connection::*on_done)(int64_t));
  void write_pending();
  void serve_wakeups();
  // Writes the replies of the clients send_woken collected, in one IoBatch.
  void write_woken();
  // Outside a turn: posts one that serves the queued wake-ups and writes.
  void post_turn();

  void arm_timer(int64_t target_ms);
  void on_timer();
  void clients_cron(int64_t now_ms);
  void refresh_settings();
  void wait_signal();
  void do_shutdown(const std::string& reason);

  asio::io_context& io_;
  cmd::Server& server_;
  cmd::Dispatcher& dispatcher_;
  config::Config& cfg_;
  uint64_t config_listener_ = 0;
  std::vector<uint64_t> apply_hooks_;
  Settings settings_;
  uint64_t settings_gen_ = 1;
  std::size_t output_check_bytes_ = 0;

  struct TcpListener {
    std::unique_ptr<asio::ip::tcp::acceptor> acceptor;
    bool tls = false;
  };
  void accept_on(TcpListener& l);
  std::vector<TcpListener> tcp_acceptors_;
  // Listeners a rebind closed: kept until the end, as their accept coroutines may still resume
  // (to find them closed) after the rebind.
  std::vector<TcpListener> closed_acceptors_;
  std::unique_ptr<asio::ssl::context> tls_ctx_;
  std::unique_ptr<asio::ssl::context> tls_client_ctx_;
  std::unique_ptr<asio::local::stream_protocol::acceptor> unix_acceptor_;
  std::vector<std::string> endpoints_;
  Poller poller_;

  // Live connections; Connection::registry_index_ is the position here (swap-removed).
  std::vector<Connection*> conns_;
  std::vector<std::shared_ptr<Connection>> retired_;
  std::vector<std::shared_ptr<Connection>> held_;
  IoBatch io_batch_;
  int turn_depth_ = 0;
  int64_t turn_start_us_ = 0;  // when the outermost turn began (INFO's eventloop_* fields)
  // Connections with a read queued in io_batch_ (its tag is the index here), with output to
  // write at the end of the turn, and woken (blocked clients served, MONITOR lines).
  std::vector<std::shared_ptr<Connection>> reading_;
  std::vector<std::shared_ptr<Connection>> writing_;
  std::vector<std::shared_ptr<Connection>> waking_;
  // What the three lists are swapped into while being served (kept for their capacity).
  std::vector<std::shared_ptr<Connection>> read_batch_;
  std::vector<std::shared_ptr<Connection>> write_batch_;
  std::vector<std::shared_ptr<Connection>> sent_;
  std::vector<std::shared_ptr<Connection>> wake_batch_;
  std::vector<IoBatch::Completion> done_scratch_;
  // send_woken's clients (the replies to write), the same being written (one write each in
  // io_batch_, the tag is the index) and being completed, the results (apart from
  // done_scratch_: a wake-up comes while complete_reads walks that), and how many woken clients
  // make the next batch leave.
  std::vector<std::shared_ptr<Connection>> woken_;
  std::vector<std::shared_ptr<Connection>> woken_batch_scratch_;
  std::vector<std::shared_ptr<Connection>> woken_sending_;
  std::vector<std::shared_ptr<Connection>> woken_sent_;
  std::vector<IoBatch::Completion> woken_done_;
  std::size_t woken_batch_ = 1;
  bool turn_posted_ = false;
  bool release_posted_ = false;
  bool releasing_ = false;

  asio::steady_timer timer_;
  int64_t timer_target_ms_ = 0;  // when the timer fires, in server clock ms; 0 = not armed
  int64_t next_cron_ms_ = 0;
  asio::signal_set signals_;

  std::vector<std::function<void()>> shutdown_hooks_;
  bool shutting_down_ = false;
  bool shutdown_posted_ = false;
};

}  // namespace streamd::net
