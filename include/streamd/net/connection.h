// One client connection: the socket, the query buffer, the request parser and the output
// buffers.
//
// Reading: a plain (TCP or unix) connection owns its descriptor and is registered in the front
// end's Poller, level-triggered: on each readiness it queues one read, and the front end runs
// the reads of every client ready in that turn together (IoBatch: one io_uring_enter where
// available; see poller.h and io_batch.h for why). A TLS connection is driven by a reader
// coroutine through the SSL stream. Both then do the same: take the bytes into the query buffer,
// parse every complete command, run each through cmd::Dispatcher::execute into out_, then call
// FrontEnd::after_batch and flush.
//
// Writing (plain): flush() queues the connection with the front end, which at the end of the
// turn writes every queued client's out_ in one batch (Redis writes its replies before going
// back to wait, too). What the kernel does not take stays in wbuf_ and is written when the
// poller reports the socket writable, while new replies collect in out_ (Redis's model: a
// pipelining client is never stalled by its own replies, and the output buffer limits bound the
// memory instead).
//
// Blocking: when execute() returns kBlocked the connection stops running commands but keeps
// reading (so a disconnect is noticed and the query buffer limit applies). The blocking registry
// writes the eventual reply into *Session::out (= out_) and calls Session::resume, which queues
// on_wakeup() with the front end: flush, then run the pipelined commands that waited.
//
// Group commit (AOF): while cmd::Server::must_hold_replies says the client's last write is not
// durable yet, flush() leaves out_ alone and hands the connection to FrontEnd::hold; the front
// end syncs the AOF once for the whole event-loop round and then flushes every held connection.
//
// TLS (tls-port): the same connection wraps its socket in an asio::ssl::stream. The reader first
// completes the handshake (bounded by kTlsHandshakeTimeoutMs, so a silent or slow client costs
// nothing but its descriptor for that long), then reads through the stream. Writes cannot go
// straight to the socket, so every flush hands out_ to an asynchronous write of the stream.
//
// Interest (plain connections): the registration asks for reads exactly while wants_input(),
// and for writability exactly while write_in_flight_; update_interest() restores that after
// anything that may change either.
//
// Invariants: out_ holds replies not yet given to the socket; wbuf_[wpos_..] holds bytes the
// socket has not taken yet, and is non-empty only while write_in_flight_; bytes leave in the
// order they were produced (out_ is written only when wbuf_ is drained).
#pragma once

#include <asio/awaitable.hpp>
#include <asio/generic/stream_protocol.hpp>
#include <asio/posix/stream_descriptor.hpp>
#include <asio/ssl/context.hpp>
#include <asio/ssl/stream.hpp>
#include <asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/net/input_buffer.h"
#include "streamd/net/io_batch.h"
#include "streamd/net/poller.h"
#include "streamd/resp/request_parser.h"

namespace streamd::cmd {
class Dispatcher;
struct Session;
}  // namespace streamd::cmd

namespace streamd::net {

class FrontEnd;

class Connection : public std::enable_shared_from_this<Connection>, private Poller::Handler {
 public:
  using Socket = asio::generic::stream_protocol::socket;
  using TlsStream = asio::ssl::stream<Socket&>;

  // `tls` is null for a plain connection.
  Connection(FrontEnd& fe, Socket socket, cmd::Session& session, asio::ssl::context* tls);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Hooks the session and starts reading (the poller registration, or the TLS coroutine).
  void start();
  // Closes the socket now, discarding unsent output (CLIENT KILL, limits, timeouts, shutdown).
  void close();
  bool closing() const { return closing_; }

  // The session while the connection is registered; null once reaped.
  cmd::Session* session() const { return session_; }
  // Bytes produced for the client and not yet accepted by the kernel.
  std::size_t pending_output() const { return out_.size() + (wbuf_.size() - wpos_); }
  // With what the session holds outside the connection (Session::held_output, and the unsent
  // part of Session::shared_out): what the output limits and CLIENT LIST's omem count.
  std::size_t total_output() const;

  bool tls() const { return tls_ != nullptr; }
  // A full sync to a replica on a TLS connection (repl/full_sync.cc): the snapshot child cannot
  // write into this connection's TLS session, so it writes into a pipe and this relays what the
  // pipe's read end `fd` (owned from now on) yields, behind the output already produced, one
  // chunk at a time as the stream drains. `done(true)` at the pipe's end of file (output
  // produced after that follows the relayed bytes), `done(false)` when the pipe fails or the
  // connection closes. A stream that takes nothing for `timeout_ms` closes the connection (so a
  // stuck replica cannot hold the child, which waits on its pipe, forever).
  void relay_from(int fd, int64_t timeout_ms, std::function<void(bool)> done);

  // Periodic checks from the front end's cron: idle timeout, soft output limit, buffer trimming.
  void cron(int64_t now_ms);

 private:
  friend class FrontEnd;

  // Plain connections: readiness from the poller; one read per readable event.
  void on_ready(bool readable, bool writable, bool failed) override;
  // The result of the read queued by on_ready (bytes, 0 at end of file, or -errno).
  void on_read_done(int64_t result);
  // FrontEnd::write_pending: queues out_ (or, once out_ is empty, the session's shared output)
  // as one write in `batch` (false when there is nothing to write now), then reports the result.
  bool start_batched_write(IoBatch& batch, uint32_t tag);
  // A write's result (bytes, or -errno) for write_view(), batched or not.
  void on_write_done(int64_t result);
  // Whether the session's shared output (a replica's command stream) has bytes to write.
  bool shared_pending() const;
  // The bytes the write in flight is sending: wbuf_ from wpos_, or the shared output's next
  // span (sending_shared_).
  std::string_view write_view() const;
  // TLS connections write only out_ (an asynchronous TLS write must not read a backlog block
  // that a command may free meanwhile): the shared output is copied into it.
  void take_shared_output();
  void update_interest();
  // TLS connections: `self` keeps the connection alive for as long as the reader runs.
  asio::awaitable<void> read_loop(std::shared_ptr<Connection> self);
  asio::awaitable<void> relay_loop(std::shared_ptr<Connection> self, int64_t timeout_ms,
                                   std::function<void(bool)> done);
  // Room for the next read in the query buffer; the read may fill in_.free_space() bytes.
  char* prepare_read();
  // Bytes a read put into the query buffer: accounting, the query buffer limit, then
  // process_input. False when the connection closed.
  bool take_input(std::size_t n);
  // The TLS handshake, with its timeout; false (the connection closed) when it failed.
  asio::awaitable<bool> tls_handshake();
  // Whether the reader should read now (not while a protocol error waits to be flushed, nor
  // while the output is over the back-pressure threshold).
  bool wants_input() const;
  // Whether the next pipelined command may run.
  bool may_run_commands() const;
  // Runs every complete command in the query buffer, then after_batch and flush.
  void process_input();
  void run_commands();
  // Parses up to kParseAhead whole commands at the front of in_ (ahead_), prefetches their keys.
  void parse_ahead(cmd::Dispatcher& dispatcher);
  void drop_parsed_ahead() {
    ahead_.clear();
    ahead_args_.clear();
    ahead_next_ = 0;
  }
  void protocol_error();
  void on_wakeup();
  void schedule_wakeup();

  // Hands out_ on: a plain connection queues for the turn's batched write, a TLS one starts an
  // asynchronous write. Output that must wait for the AOF is held instead (see above).
  void flush();
  bool must_hold_output();
  void write_async();
  // The poller reports room again: sends the rest of wbuf_ directly.
  void on_writable();
  void on_tls_written(const asio::error_code& ec, std::size_t n);
  void after_drain();
  void account_output(std::size_t n);
  void update_session_counters();

  // Output buffer limits (client-output-buffer-limit normal ...). Returns false after closing
  // the client.
  bool check_output_limits(int64_t now_ms);
  // Redis's static reply buffer (PROTO_REPLY_CHUNK_BYTES): output up to this size is not held
  // against client-output-buffer-limit.
  static constexpr std::size_t kStaticReplyBytes = 16 * 1024;
  std::string describe() const;

  FrontEnd& fe_;
  Socket socket_;                   // TLS connections only; a plain one releases it to fd_
  std::unique_ptr<TlsStream> tls_;  // over socket_; null for a plain connection
  int fd_ = -1;                     // a plain connection's descriptor, owned; -1 once closed
  Poller::Token poll_token_ = 0;
  uint32_t interest_ = Poller::kNone;
  // A plain connection's own reference while registered (the TLS coroutine holds one instead);
  // dropped by close(), after which the front end's retired list keeps it until reaped.
  std::shared_ptr<Connection> self_;
  bool handshaking_ = false;
  cmd::Session* session_;
  std::size_t registry_index_ = 0;

  resp::RequestParser parser_;
  uint64_t parser_settings_gen_ = 0;
  bool parser_unauthenticated_ = false;
  std::vector<std::string_view> argv_;
  // Commands parsed ahead (run_commands): up to kParseAhead whole commands at the front of in_,
  // parsed with the same limits, so that their keys are prefetched as one batch. Their views
  // point into in_, whose bytes stay in place until the next read: they are dropped when
  // run_commands returns and whenever the parser's limits change, and taken in order.
  struct ParsedAhead {
    std::size_t first_arg;  // in ahead_args_
    std::size_t argc;
    std::size_t bytes;  // of in_
  };
  static constexpr std::size_t kParseAhead = 16;
  std::vector<std::string_view> ahead_args_;
  std::vector<ParsedAhead> ahead_;
  std::size_t ahead_next_ = 0;
  InputBuffer in_;

  std::string out_;
  std::string wbuf_;
  std::size_t wpos_ = 0;
  // The write in flight sends from Session::shared_out, not wbuf_. Invariant: out_ is written
  // whole before any shared bytes (a replica's +CONTINUE or buffered stream comes first).
  bool sending_shared_ = false;
  bool write_in_flight_ = false;
  bool write_queued_ = false;  // in FrontEnd's pending writes
  bool held_ = false;          // in FrontEnd::held_, waiting for the AOF sync of this round

  bool closing_ = false;
  bool reader_parked_ = false;  // the TLS reader waits on wake_ instead of the socket
  asio::steady_timer wake_;
  // relay_from: the pipe, and the timer the relay waits on for the stream to drain.
  std::unique_ptr<asio::posix::stream_descriptor> relay_pipe_;
  asio::steady_timer relay_wake_;
  bool relay_parked_ = false;
  int64_t soft_limit_since_ms_ = 0;  // when pending output first passed the soft limit
};

}  // namespace streamd::net
