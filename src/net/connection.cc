#include "streamd/net/connection.h"

#include <sys/socket.h>
#include <unistd.h>
#include <cassert>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <spdlog/spdlog.h>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/ssl/error.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/commands/pubsub/pubsub.h"
#include "streamd/net/front_end.h"
#include "streamd/net/tls.h"
#include "streamd/resp/reply_writer.h"

namespace streamd::net {

namespace {

constexpr auto kAwait = asio::experimental::as_tuple(asio::use_awaitable);

// With no hard output limit configured, a client whose unsent replies reach this size is not
// read from (and its commands not run) until the socket drains: memory stays bounded even when
// client-output-buffer-limit is "normal 0 0 0".
constexpr std::size_t kUnlimitedPauseBytes = 256ull * 1024 * 1024;

// An output buffer that drains while bigger than this is released instead of kept.
constexpr std::size_t kKeepOutputCapacity = 64 * 1024;

// What a full sync's relay (relay_from) reads from the snapshot pipe and writes at a time.
constexpr std::size_t kRelayChunk = 64 * 1024;

}  // namespace

Connection::Connection(FrontEnd& fe, Socket socket, cmd::Session& session, asio::ssl::context* tls)
    : fe_(fe),
      socket_(std::move(socket)),
      session_(&session),
      wake_(fe.io()),
      relay_wake_(fe.io()) {
  if (tls) {
    tls_ = std::make_unique<TlsStream>(socket_, *tls);
    return;
  }
  // Out of Asio's reactor, into the poller (start()).
  asio::error_code ec;
  fd_ = socket_.release(ec);
  if (ec) fd_ = -1;
}

Connection::~Connection() {
  if (fd_ >= 0) ::close(fd_);  // only when start() never ran
}

void Connection::start() {
  cmd::Session& s = *session_;
  // The hooks hold a raw pointer: the session is removed (and with it the hooks) in
  // FrontEnd::reap before the connection can be destroyed.
  s.out = &out_;
  s.kill = [this] { close(); };
  // A woken client's reply is an interaction (Redis counts the write that sends it): without
  // this, the idle-timeout cron could run between the wake-up and its posted handler, see a
  // client that is no longer blocked but last spoke before it blocked, and close it with the
  // reply unsent.
  s.resume = [this] {
    if (session_) session_->last_interaction_ms = fe_.server().clock().now_ms();
    schedule_wakeup();
    // The reply is complete in out_: it may leave before the other wake-ups are served.
    if (!tls_) fe_.send_woken(shared_from_this());
  };
  s.flush = [this] { schedule_wakeup(); };
  if (tls_) {
    asio::co_spawn(fe_.io(), read_loop(shared_from_this()), asio::detached);
    return;
  }
  if (fd_ < 0) {
    spdlog::warn("Could not take over a client socket: {}", describe());
    close();
    return;
  }
  self_ = shared_from_this();
  interest_ = Poller::kRead;
  poll_token_ = fe_.poller().add(fd_, interest_, this);
}

// ---- plain connections: the poller's events ----

void Connection::on_ready(bool readable, bool writable, bool failed) {
  auto self = shared_from_this();  // a command may close and reap this very connection
  if (writable && write_in_flight_) on_writable();
  if (closing_) return;
  if (readable && wants_input()) {
    // The read itself runs with the other ready clients' at the end of this turn.
    char* at = prepare_read();
    fe_.queue_read(std::move(self), at, in_.free_space());
  } else if (failed && !write_in_flight_) {
    // The peer is gone or the socket failed while nothing was asked of it: nothing more will
    // come or leave (a level-triggered hang-up would otherwise report forever).
    spdlog::debug("Client connection failed {}", describe());
    close();
  }
  if (!closing_) update_interest();
}

void Connection::on_read_done(int64_t result) {
  if (closing_) return;
  if (result > 0) {
    take_input(static_cast<std::size_t>(result));
  } else if (result == -EAGAIN || result == -EWOULDBLOCK || result == -EINTR) {
    // Nothing after all; level-triggered readiness reports again when there is.
  } else {
    if (result == 0) {
      spdlog::debug("Client closed connection {}", describe());
    } else {
      spdlog::debug("Reading from client: {} ({})", std::strerror(static_cast<int>(-result)),
                    describe());
    }
    close();
  }
  if (!closing_) update_interest();
}

void Connection::update_interest() {
  if (fd_ < 0 || closing_) return;
  uint32_t want = Poller::kNone;
  if (wants_input()) want |= Poller::kRead;
  if (write_in_flight_) want |= Poller::kWrite;
  if (want == interest_) return;
  interest_ = want;
  fe_.poller().set_interest(poll_token_, want);
}

// ---- TLS connections: the reader coroutine ----

asio::awaitable<void> Connection::read_loop(std::shared_ptr<Connection> self) {
  (void)self;
  if (!co_await tls_handshake()) co_return;
  while (!closing_) {
    if (!wants_input()) {
      reader_parked_ = true;
      wake_.expires_at(asio::steady_timer::time_point::max());
      co_await wake_.async_wait(kAwait);
      reader_parked_ = false;
      continue;
    }
    char* at = prepare_read();
    auto [ec, n] = co_await tls_->async_read_some(asio::buffer(at, in_.free_space()), kAwait);
    if (closing_) break;
    if (ec) {
      if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated) {
        spdlog::debug("Client closed connection {}", describe());
      } else {
        spdlog::debug("Reading from client: {} ({})", ec.message(), describe());
      }
      close();
      break;
    }
    if (!take_input(n)) break;
  }
}

char* Connection::prepare_read() {
  // Read at least a chunk; when a big bulk is under way, make room for all of it so it arrives
  // in few reads and is never moved again.
  return in_.prepare(std::max(InputBuffer::kReadChunk, parser_.bytes_wanted()));
}

bool Connection::take_input(std::size_t n) {
  in_.commit(n);
  cmd::Session& s = *session_;
  s.net_in += n;
  cmd::Stats& st = fe_.server().stats();
  st.net_input_bytes += n;
  ++st.total_reads;
  s.last_interaction_ms = fe_.server().clock().now_ms();
  // A transaction's queued commands have not run yet: they count as query buffer (Redis 7.4+).
  // (The master link is read by repl/replica.cc, not here: it is never limited, as in Redis.)
  if (in_.size() + s.queued_bytes > fe_.settings().client_query_buffer_limit) {
    spdlog::warn("Closing client that reached max query buffer length: {} (qbuf={} multi-mem={})",
                 describe(), in_.size(), s.queued_bytes);
    ++st.client_query_limit_disconnections;
    close();
    return false;
  }
  process_input();
  return !closing_;
}

asio::awaitable<bool> Connection::tls_handshake() {
  handshaking_ = true;
  // The timer only closes the socket; the handshake then fails below and reports it. wake_ is
  // free until the reader first parks.
  wake_.expires_after(std::chrono::milliseconds(kTlsHandshakeTimeoutMs));
  wake_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (ec || !self->handshaking_ || self->closing_) return;
    spdlog::info("Closing TLS client that did not complete its handshake in time: {}",
                 self->describe());
    self->close();
  });
  auto [ec] = co_await tls_->async_handshake(asio::ssl::stream_base::server, kAwait);
  handshaking_ = false;
  wake_.cancel();
  if (closing_) co_return false;
  if (ec) {
    // As Redis logs a refused TLS client: a missing or untrusted certificate, garbage bytes, a
    // protocol or cipher mismatch all end here.
    spdlog::info("Error accepting a client connection: {} ({})", ec.message(), describe());
    close();
    co_return false;
  }
  co_return true;
}

bool Connection::wants_input() const {
  if (!session_) return false;
  if (session_->close_after_reply) return false;  // Redis stops reading such a client
  const OutputLimit& lim = fe_.settings().normal_output_limit;
  if (lim.hard_bytes == 0 && pending_output() >= kUnlimitedPauseBytes) return false;
  return true;
}

bool Connection::may_run_commands() const {
  if (closing_ || !session_) return false;
  const cmd::Session& s = *session_;
  if (s.blocked || s.postponed || s.close_after_reply) return false;
  const OutputLimit& lim = fe_.settings().normal_output_limit;
  if (lim.hard_bytes == 0 && pending_output() >= kUnlimitedPauseBytes) return false;
  return true;
}

void Connection::process_input() {
  {
    // The batch's records for the replicas are fed together when it ends (Server::BatchScope).
    cmd::Server::BatchScope batch(fe_.server());
    if (may_run_commands()) run_commands();
    if (closing_) return;
    fe_.after_batch();
  }
  if (closing_ || !session_) return;
  if (total_output() >= fe_.output_check_bytes() &&
      !check_output_limits(fe_.server().clock().now_ms())) {
    return;
  }
  flush();
  update_session_counters();
  update_interest();
}

void Connection::run_commands() {
  cmd::Dispatcher& dispatcher = fe_.dispatcher();
  // Nothing is parsed ahead here: every call ends by dropping it (below), before in_ is read into.
  assert(ahead_.empty() && ahead_args_.empty());
  while (may_run_commands()) {
    cmd::Session& s = *session_;
    if (parser_settings_gen_ != fe_.settings_generation() ||
        parser_unauthenticated_ == s.authenticated) {
      // Limits change with CONFIG SET and with AUTH (which may come in the middle of a pipeline).
      resp::ParserLimits limits;
      limits.max_bulk_len = fe_.settings().proto_max_bulk_len;
      limits.unauthenticated = !s.authenticated;
      parser_.set_limits(limits);
      parser_settings_gen_ = fe_.settings_generation();
      parser_unauthenticated_ = limits.unauthenticated;
      drop_parsed_ahead();  // parsed under the old limits
    }

    // A batch of whole commands is parsed (and its keys prefetched) before its first one runs;
    // what parse_ready does not take (a partial or inline command) goes through parse().
    if (ahead_next_ == ahead_.size()) parse_ahead(dispatcher);
    std::size_t used = 0;
    std::span<const std::string_view> argv;
    // argv views the request as parse_ready parsed it (records of the command may copy the
    // client's arguments from it: cmd::Context::argv_is_request).
    bool argv_is_request = false;
    if (ahead_next_ < ahead_.size()) {
      const ParsedAhead& p = ahead_[ahead_next_++];
      argv = std::span<const std::string_view>(ahead_args_).subspan(p.first_arg, p.argc);
      used = p.bytes;
      argv_is_request = true;
    } else {
      resp::RequestParser::Status st = parser_.parse(in_.view(), used, argv_);
      if (st == resp::RequestParser::Status::kNeedMore) break;
      if (st == resp::RequestParser::Status::kError) {
        protocol_error();
        break;
      }
      argv = argv_;
    }
    // CLIENT PAUSE: the command stays unread until the pause ends (the server then wakes this
    // connection, which parses it again).
    if (!argv.empty() && dispatcher.postpones(s, argv)) {
      parser_.reset();
      break;
    }
    // consume() leaves the bytes in place, so argv stays valid while the command runs (and so do
    // the views of the commands parsed ahead).
    in_.consume(used);
    if (argv.empty()) continue;  // an empty inline line or an empty array

    if (dispatcher.execute(s, argv, out_, argv_is_request) == cmd::DispatchResult::kBlocked) {
      break;
    }
    fe_.reap();  // CLIENT KILL may have closed other connections (or this one)
    if (pending_output() >= fe_.output_check_bytes() &&
        !check_output_limits(fe_.server().clock().now_ms())) {
      break;
    }
  }
  drop_parsed_ahead();
}

void Connection::parse_ahead(cmd::Dispatcher& dispatcher) {
  drop_parsed_ahead();
  std::string_view rest = in_.view();
  cmd::QueuedCommand queued[kParseAhead];
  std::size_t n = 0;
  while (n < kParseAhead) {
    std::size_t first = ahead_args_.size();
    std::size_t used = 0;
    if (!parser_.parse_ready(rest, used, ahead_args_)) break;
    std::size_t argc = ahead_args_.size() - first;
    ahead_.push_back({first, argc, used});
    rest.remove_prefix(used);
    // (parse_ready takes no empty array: argc >= 1)
    queued[n++] = {ahead_args_[first], argc > 1 ? ahead_args_[first + 1] : std::string_view(),
                   argc};
  }
  if (n == 0) return;
  // parse() may hold progress on the first of them from an earlier, partial read: it is that
  // command, now parsed whole, so the progress is dropped (parse() resumes between commands).
  parser_.reset();
  dispatcher.prefetch(*session_, std::span<const cmd::QueuedCommand>(queued, n));
}

void Connection::protocol_error() {
  cmd::Session& s = *session_;
  resp::ReplyWriter w(out_, s.proto);
  w.error(parser_.error());
  cmd::Stats& stats = fe_.server().stats();
  ++stats.total_error_replies;
  ++stats.errors[std::string(w.last_error_code())];
  spdlog::debug("Protocol error ({}) from client: {}", parser_.error(), describe());
  s.close_after_reply = true;
  in_.consume(in_.size());
  parser_.reset();
}

void Connection::schedule_wakeup() {
  // The session holds the flag (the replication layer reads it); it exists until the reap that
  // follows close(), so a connection without one is closing.
  if (closing_ || !session_ || session_->wake_posted) return;
  session_->wake_posted = true;
  fe_.wake(shared_from_this());
}

void Connection::on_wakeup() {
  if (session_) session_->wake_posted = false;
  if (closing_ || !session_) return;
  // Unblocked: run what was pipelined behind the blocking command. MONITOR: just flush.
  process_input();
}

// ---- a full sync's relay (TLS replicas) ----

void Connection::relay_from(int fd, int64_t timeout_ms, std::function<void(bool)> done) {
  relay_pipe_ = std::make_unique<asio::posix::stream_descriptor>(fe_.io(), fd);
  if (closing_ || !tls_) {
    asio::error_code ec;
    relay_pipe_->close(ec);
    done(false);
    return;
  }
  asio::co_spawn(fe_.io(), relay_loop(shared_from_this(), timeout_ms, std::move(done)),
                 asio::detached);
}

asio::awaitable<void> Connection::relay_loop(std::shared_ptr<Connection> self, int64_t timeout_ms,
                                             std::function<void(bool)> done) {
  (void)self;
  std::string chunk(kRelayChunk, '\0');
  bool ok = false;
  while (!closing_) {
    // Everything produced before (the previous chunk included) goes to the stream first: the
    // pipe is read only as fast as the replica takes the snapshot.
    if (write_in_flight_ || !out_.empty()) {
      relay_parked_ = true;
      relay_wake_.expires_after(std::chrono::milliseconds(timeout_ms));
      auto [ec] = co_await relay_wake_.async_wait(kAwait);
      relay_parked_ = false;
      if (!ec && !closing_) {
        spdlog::warn("Disconnecting timedout replica (full sync): {}", describe());
        close();
      }
      continue;
    }
    auto [ec, n] = co_await relay_pipe_->async_read_some(asio::buffer(chunk), kAwait);
    if (closing_) break;
    if (ec == asio::error::eof) {
      ok = true;
      break;
    }
    if (ec) {
      spdlog::warn("Reading the snapshot for replica {}: {}", describe(), ec.message());
      break;
    }
    out_.append(chunk.data(), n);
    flush();
  }
  asio::error_code ignored;
  if (relay_pipe_) relay_pipe_->close(ignored);
  done(ok && !closing_);
}

// ---- output ----

void Connection::flush() {
  if (closing_ || write_in_flight_) return;  // a write in flight picks up out_ when it is done
  if (out_.empty() && !shared_pending()) {
    after_drain();
    return;
  }
  if (must_hold_output()) return;
  if (tls_) {
    // The stream encrypts: hand the whole batch to one asynchronous write.
    take_shared_output();
    wbuf_.swap(out_);
    wpos_ = 0;
    out_.clear();
    write_async();
    return;
  }
  // The write leaves with every other client's at the end of this turn (FrontEnd::write_pending).
  if (write_queued_) return;
  write_queued_ = true;
  fe_.want_write(shared_from_this());
}

bool Connection::shared_pending() const {
  return session_ && session_->shared_out && session_->shared_out->size() > 0;
}

std::string_view Connection::write_view() const {
  if (!sending_shared_) return std::string_view(wbuf_).substr(wpos_);
  return session_ && session_->shared_out ? session_->shared_out->peek() : std::string_view();
}

void Connection::take_shared_output() {
  if (!session_ || !session_->shared_out) return;
  cmd::SharedOutput& shared = *session_->shared_out;
  for (std::string_view s = shared.peek(); !s.empty(); s = shared.peek()) {
    out_.append(s);
    shared.consume(s.size());
  }
}

bool Connection::start_batched_write(IoBatch& batch, uint32_t tag) {
  write_queued_ = false;
  if (closing_ || write_in_flight_) return false;
  if (out_.empty() && !shared_pending()) return false;
  if (must_hold_output()) return false;
  if (!out_.empty()) {
    // out_ becomes the buffer in flight (the two swap, keeping their capacity); replies produced
    // from now on collect in out_.
    wbuf_.swap(out_);
    out_.clear();
    wpos_ = 0;
    sending_shared_ = false;
  } else {
    // Straight from the backlog's block: nothing is copied per replica.
    sending_shared_ = true;
  }
  write_in_flight_ = true;
  std::string_view v = write_view();
  batch.send(fd_, v.data(), v.size(), tag);
  return true;
}

void Connection::on_write_done(int64_t result) {
  write_in_flight_ = false;
  if (closing_) return;
  std::size_t n = 0;
  if (result >= 0) {
    n = static_cast<std::size_t>(result);
  } else if (result != -EAGAIN && result != -EWOULDBLOCK && result != -EINTR) {
    spdlog::debug("Error writing to client: {} ({})", std::strerror(static_cast<int>(-result)),
                  describe());
    close();
    return;
  }
  account_output(n);
  std::size_t left;
  if (sending_shared_) {
    // The span is the one that was sent: nothing is appended between a write and its result
    // (a batch runs no command before it reports; on_writable reports at once).
    std::size_t len = write_view().size();
    if (n > 0 && session_->shared_out) session_->shared_out->consume(n);
    left = len - n;
  } else {
    wpos_ += n;
    left = wbuf_.size() - wpos_;
  }
  if (left > 0) {
    // The kernel took part of it: the rest goes out when the socket is writable again.
    write_async();
    update_session_counters();
    return;
  }
  sending_shared_ = false;
  wbuf_.clear();
  wpos_ = 0;
  if (out_.empty() && !shared_pending()) {
    after_drain();
  } else {
    flush();  // replies produced meanwhile, or the shared output's next block: this turn still
  }
}

void Connection::write_async() {
  write_in_flight_ = true;
  if (tls_) {
    asio::async_write(*tls_, asio::buffer(wbuf_.data() + wpos_, wbuf_.size() - wpos_),
                      [self = shared_from_this()](const asio::error_code& ec, std::size_t n) {
                        self->on_tls_written(ec, n);
                      });
    return;
  }
  update_interest();  // the poller reports writability (on_ready -> on_writable)
}

void Connection::on_writable() {
  // What the batch could not write: the rest goes straight out now that the kernel has room.
  if (session_) session_->last_interaction_ms = fe_.server().clock().now_ms();
  std::string_view v = write_view();
  ssize_t n = ::send(fd_, v.data(), v.size(), MSG_NOSIGNAL);
  on_write_done(n >= 0 ? n : -static_cast<int64_t>(errno));
}

void Connection::on_tls_written(const asio::error_code& ec, std::size_t n) {
  write_in_flight_ = false;
  if (closing_) return;
  if (ec) {
    spdlog::debug("Error writing to client: {} ({})", ec.message(), describe());
    close();
    return;
  }
  account_output(n);
  if (session_) session_->last_interaction_ms = fe_.server().clock().now_ms();
  wbuf_.clear();
  wpos_ = 0;
  take_shared_output();
  if (out_.empty()) {
    after_drain();
    return;
  }
  if (must_hold_output()) return;
  wbuf_.swap(out_);
  out_.clear();
  write_async();
}

bool Connection::must_hold_output() {
  if (held_ || !session_) return held_;
  if (!fe_.server().must_hold_replies(*session_)) return false;
  fe_.hold(shared_from_this());
  return true;
}

// Everything produced has been handed to the kernel.
void Connection::after_drain() {
  soft_limit_since_ms_ = 0;
  if (session_ && session_->close_after_reply) {
    close();
    return;
  }
  // A buffer that grew past its resting capacity for a burst is released once drained (INFO's
  // reply_buffer_expands / _shrinks count these episodes).
  if (out_.capacity() > kKeepOutputCapacity) {
    cmd::Stats& st = fe_.server().stats();
    ++st.reply_buffer_expands;
    ++st.reply_buffer_shrinks;
    std::string().swap(out_);
  }
  if (wbuf_.capacity() > kKeepOutputCapacity) std::string().swap(wbuf_);
  if (reader_parked_) wake_.cancel();
  if (relay_parked_) relay_wake_.cancel();
  update_session_counters();
  update_interest();
}

void Connection::account_output(std::size_t n) {
  if (!session_) return;
  session_->net_out += n;
  cmd::Stats& st = fe_.server().stats();
  st.net_output_bytes += n;
  ++st.total_writes;
}

std::size_t Connection::total_output() const {
  if (!session_) return pending_output();
  std::size_t shared = session_->shared_out ? session_->shared_out->size() : 0;
  return pending_output() + session_->held_output + shared;
}

void Connection::update_session_counters() {
  if (!session_) return;
  session_->query_buffer = in_.size();
  session_->query_buffer_free = in_.capacity() - in_.size();
  session_->output_buffer = total_output();
}

bool Connection::check_output_limits(int64_t now_ms) {
  // A subscriber is held to the pubsub class (Redis's client types): one that stops reading is
  // closed at its limit while the publishers, normal clients, go on. A replica link (its output
  // is the command stream) has the replica class.
  const OutputLimit& lim = session_ && session_->replica ? fe_.settings().replica_output_limit
                           : session_ && cmd::subscribed(*session_)
                               ? fe_.settings().pubsub_output_limit
                               : fe_.settings().normal_output_limit;
  // Redis counts only what does not fit its 16 KB static reply buffer (a client's replies up to
  // that size never reach a limit, however small); a replica's whole pending stream counts.
  std::size_t used = total_output();
  if (!(session_ && session_->replica))
    used = used > kStaticReplyBytes ? used - kStaticReplyBytes : 0;
  bool over = lim.hard_bytes != 0 && used >= lim.hard_bytes;
  if (lim.soft_bytes != 0 && used >= lim.soft_bytes) {
    if (soft_limit_since_ms_ == 0) {
      soft_limit_since_ms_ = now_ms;
    } else if (now_ms - soft_limit_since_ms_ > lim.soft_seconds * 1000) {
      over = true;
    }
  } else {
    soft_limit_since_ms_ = 0;
  }
  if (!over) return true;
  spdlog::warn("Client {} closed for overcoming of output buffer limits (omem={}).", describe(),
               used);
  ++fe_.server().stats().client_output_limit_disconnections;
  close();
  return false;
}

void Connection::cron(int64_t now_ms) {
  if (closing_ || !session_) return;
  const cmd::Session& s = *session_;
  const Settings& st = fe_.settings();
  // Blocked clients wait for as long as their command says; MONITOR clients and subscribers
  // only receive (Redis exempts pub/sub clients from `timeout` too); replica links have
  // repl-timeout instead (repl/master.cc).
  if (st.timeout_s > 0 && !s.blocked && !s.monitor && !s.replica && !cmd::subscribed(s) &&
      now_ms - s.last_interaction_ms > st.timeout_s * 1000) {
    spdlog::debug("Closing idle client {}", describe());
    close();
    return;
  }
  if (total_output() > 0 && !check_output_limits(now_ms)) return;
  update_session_counters();
}

void Connection::close() {
  if (closing_) return;
  closing_ = true;
  if (fd_ >= 0) {
    fe_.poller().remove(poll_token_);  // events already collected for it are dropped
    // A full sync's child writes into a replica's socket through its own copy of the
    // descriptor: shutting the socket down (not just closing ours) ends its writes with EPIPE.
    if (session_ && session_->replica) ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    fd_ = -1;
  } else {
    asio::error_code ec;
    socket_.close(ec);  // completes the TLS reader's pending read or write with an error
  }
  wake_.cancel();
  relay_wake_.cancel();
  if (relay_pipe_) {
    asio::error_code ec;
    relay_pipe_->close(ec);  // the child sees EPIPE and goes on with its other replicas
  }
  // A closed client must not be woken for a key any more (its session goes at the next reap).
  if (session_) fe_.server().blocking().forget(*session_);
  fe_.retire(shared_from_this());
  self_.reset();  // the retired list holds it now
}

std::string Connection::describe() const {
  if (!session_) return "(closed)";
  const cmd::Session& s = *session_;
  return fmt::format("id={} addr={} laddr={} fd={} name={}", s.id, s.addr, s.laddr, s.fd, s.name);
}

}  // namespace streamd::net
