// MIGRATE's exchange with another server: connect, send pipelined commands, read one reply line
// per command. Declared here and implemented in net/ (net::OutboundClient), so the command layer
// never touches sockets; startup attaches it with Server::set_outbound. The client running
// MIGRATE is parked meanwhile (like a blocking command), never the event loop.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace streamd::cmd {

struct OutboundRequest {
  std::string host;
  int port = 0;
  int64_t timeout_ms = 1000;  // for the connect, the write and each reply line, as Redis's
  std::string bytes;          // the commands, RESP-encoded
  std::size_t replies = 0;    // reply lines to read
};

struct OutboundResult {
  enum class Failure { kNone, kConnect, kWrite, kRead };
  Failure failure = Failure::kNone;
  bool timed_out = false;
  std::vector<std::string> lines;  // the reply lines read, without CRLF (fewer after kRead)
};

class Outbound {
 public:
  virtual ~Outbound() = default;
  // Runs the exchange; `done` is called exactly once, never before exchange() returned, from the
  // event loop (inside a turn of client I/O, so wake-ups and propagation proceed as usual).
  virtual void exchange(OutboundRequest req, std::function<void(OutboundResult)> done) = 0;
};

}  // namespace streamd::cmd
