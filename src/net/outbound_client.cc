#include "streamd/net/outbound_client.h"

#include <asio/connect.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read_until.hpp>
#include <asio/steady_timer.hpp>
#include <asio/streambuf.hpp>
#include <asio/write.hpp>
#include <chrono>
#include <istream>
#include <memory>

#include "streamd/net/front_end.h"

namespace streamd::net {

namespace {

// One exchange. Owned by the handlers in flight (shared_from_this); the timer bounds each step:
// when it fires first, the socket is closed, the pending operation fails, and the step that
// failed says what to report.
struct Exchange : std::enable_shared_from_this<Exchange> {
  Exchange(asio::io_context& io, FrontEnd& fe, cmd::OutboundRequest r,
           std::function<void(cmd::OutboundResult)> d)
      : fe(fe), resolver(io), socket(io), timer(io), req(std::move(r)), done(std::move(d)) {}

  FrontEnd& fe;
  asio::ip::tcp::resolver resolver;
  asio::ip::tcp::socket socket;
  asio::steady_timer timer;
  asio::streambuf in;
  cmd::OutboundRequest req;
  std::function<void(cmd::OutboundResult)> done;
  cmd::OutboundResult result;
  bool timed_out = false;
  bool finished = false;

  void arm() {
    timer.expires_after(std::chrono::milliseconds(req.timeout_ms));
    timer.async_wait([self = shared_from_this()](const asio::error_code& ec) {
      if (ec || self->finished) return;
      self->timed_out = true;
      asio::error_code ignored;
      self->resolver.cancel();
      self->socket.close(ignored);
    });
  }

  void start() {
    arm();
    resolver.async_resolve(
        req.host, std::to_string(req.port),
        [self = shared_from_this()](const asio::error_code& ec,
                                    asio::ip::tcp::resolver::results_type results) {
          if (ec) return self->finish(cmd::OutboundResult::Failure::kConnect);
          asio::async_connect(self->socket, results,
                              [self](const asio::error_code& ec2, const asio::ip::tcp::endpoint&) {
                                if (ec2)
                                  return self->finish(cmd::OutboundResult::Failure::kConnect);
                                asio::error_code ignored;
                                self->socket.set_option(asio::ip::tcp::no_delay(true), ignored);
                                self->write();
                              });
        });
  }

  void write() {
    arm();
    asio::async_write(socket, asio::buffer(req.bytes),
                      [self = shared_from_this()](const asio::error_code& ec, std::size_t) {
                        if (ec) return self->finish(cmd::OutboundResult::Failure::kWrite);
                        self->read_line();
                      });
  }

  void read_line() {
    if (result.lines.size() == req.replies) return finish(cmd::OutboundResult::Failure::kNone);
    arm();
    asio::async_read_until(socket, in, "\r\n",
                           [self = shared_from_this()](const asio::error_code& ec, std::size_t n) {
                             if (ec) return self->finish(cmd::OutboundResult::Failure::kRead);
                             std::string line(n - 2, '\0');
                             std::istream is(&self->in);
                             is.read(line.data(), static_cast<std::streamsize>(n - 2));
                             is.ignore(2);
                             self->result.lines.push_back(std::move(line));
                             self->read_line();
                           });
  }

  void finish(cmd::OutboundResult::Failure f) {
    if (finished) return;
    finished = true;
    timer.cancel();
    asio::error_code ignored;
    socket.close(ignored);
    result.failure = f;
    result.timed_out = timed_out;
    // A turn of client I/O: the woken MIGRATE's reply, its propagation and any client it wakes
    // are handled as for any other command.
    fe.begin_turn();
    done(std::move(result));
    fe.after_batch();
    fe.end_turn();
  }
};

}  // namespace

void OutboundClient::exchange(cmd::OutboundRequest req,
                              std::function<void(cmd::OutboundResult)> done) {
  auto ex = std::make_shared<Exchange>(io_, fe_, std::move(req), std::move(done));
  ex->start();  // every completion runs from the event loop, after exchange() returned
}

}  // namespace streamd::net
