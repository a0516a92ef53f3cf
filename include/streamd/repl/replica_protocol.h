// ReplicaProtocol: the replica's half of Redis's replication protocol (PSYNC2), sans I/O. The
// caller owns the socket: it calls start() once connected and sends what it returns, hands every
// byte it receives to receive(), and calls next() until it answers kNone, sending whatever next()
// appended to `out` and acting on each event. Nothing here knows sockets, time or the dataset.
//
// The conversation, as a redis-server 7.0.15 replica holds it:
//   -> PING                                  <- +PONG (or -NOAUTH / -NOPERM: AUTH follows)
//   -> AUTH [masteruser] masterauth          <- +OK         (only when masterauth is set)
//   -> REPLCONF listening-port <port>        <- +OK         (errors are only logged, as Redis)
//   -> REPLCONF ip-address <ip>              <- +OK         (only with replica-announce-ip)
//   -> REPLCONF capa eof capa psync2         <- +OK
//   -> PSYNC <replid> <offset> [FAILOVER]    <- +FULLRESYNC <replid> <offset> | +CONTINUE [replid]
// (the four after PONG are sent together, their replies read in order). A master that answers
// PSYNC with an error (one older than PSYNC, or in an error state; not -NOMASTERLINK / -LOADING,
// which mean "later") gets SYNC instead, as a Redis replica retries: the payload then comes
// without a +FULLRESYNC line, and the full sync reports no replid and offset -1. After +FULLRESYNC
// the master may send bare "\n" keep-alives, then the payload framed as "$EOF:<40 chars>\r\n" ...
// <the same 40 chars> (diskless) or "$<len>\r\n" <len bytes>; then, as after +CONTINUE, the
// command stream: RESP arrays, each an event with its raw bytes (what the offsets count).
//
// Invariant: buf_[pos_..] holds the received bytes not yet consumed; an event's views stay valid
// until the next call to receive() or next().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamd/resp/request_parser.h"

namespace streamd::repl {

struct HandshakeSettings {
  std::string masteruser;  // AUTH's user ("" = the default user's AUTH form)
  std::string masterauth;  // "" = no AUTH
  int listening_port = 0;
  std::string announce_ip;  // REPLCONF ip-address when not empty
  // PSYNC's arguments: the history this replica has and its offset + 1, or "?" and -1.
  std::string psync_replid = "?";
  int64_t psync_offset = -1;
  // A master failing over to this link's master (FAILOVER): PSYNC carries a FAILOVER argument,
  // and an answer other than +FULLRESYNC / +CONTINUE is kFailoverRefused, not a SYNC fallback.
  bool failover = false;
};

class ReplicaProtocol {
 public:
  enum class State {
    kIdle,        // start() not called yet
    kPing,        // waiting for PING's reply
    kHandshake,   // waiting for the replies to AUTH / REPLCONF
    kPsync,       // waiting for PSYNC's reply
    kBulkHeader,  // +FULLRESYNC seen: waiting for "$EOF:..." or "$<len>"
    kPayloadEof,  // reading a payload that ends with the mark
    kPayloadLen,  // reading a payload of known length
    kStream,      // the command stream
    kFailed,      // the link must be closed (error() says why)
  };

  struct Event {
    enum class Kind {
      kNone,             // more bytes are needed
      kFullSync,         // replid/offset from +FULLRESYNC (after SYNC: "" and -1); payload() holds
                         // the whole payload
      kContinue,         // +CONTINUE: replid is the master's (empty when it named none)
      kSyncFallback,     // PSYNC was refused (replid: the master's reply); SYNC was sent
      kFailoverRefused,  // PSYNC ... FAILOVER was refused (replid: the reply); close the link
      kCommand,          // args: the command; raw: its bytes in the stream
      kFailed,           // error(): the reason; close the link
    };
    Kind kind = Kind::kNone;
    std::string replid;
    int64_t offset = 0;
    std::vector<std::string_view> args;
    std::string_view raw;
  };

  explicit ReplicaProtocol(HandshakeSettings settings) : settings_(std::move(settings)) {}

  // The link is connected: appends PING to `out`.
  void start(std::string& out);
  void receive(std::string_view bytes);
  // The next event; bytes to send go to `out`.
  Event next(std::string& out);

  State state() const { return state_; }
  const std::string& error() const { return error_; }
  // The full sync's payload (after a kFullSync event; the caller may move it away).
  std::string& payload() { return payload_; }
  // While a payload arrives: its size (-1 with $EOF framing, unknown) and the bytes read so far.
  int64_t payload_size() const { return payload_size_; }
  int64_t payload_read() const { return static_cast<int64_t>(payload_.size()); }
  // Stream bytes received and not yet consumed as commands (slave_read_repl_offset counts them).
  std::size_t unconsumed() const { return buf_.size() - pos_; }

 private:
  // A complete "\r\n"-terminated line at pos_ (consumed, without the terminator), or false.
  bool take_line(std::string& line);
  Event fail(std::string why);
  Event on_psync_reply(const std::string& line);
  bool read_bulk_header();
  bool read_payload(Event& ev);
  void compact();

  HandshakeSettings settings_;
  State state_ = State::kIdle;
  std::string buf_;
  std::size_t pos_ = 0;
  int handshake_replies_ = 0;  // replies still expected before PSYNC
  bool auth_pending_ = false;  // the first handshake reply is AUTH's
  std::string error_;
  std::string payload_;
  int64_t payload_size_ = -1;
  std::string eof_mark_;
  std::size_t mark_scan_from_ = 0;  // payload_ offsets before this cannot start the mark
  resp::RequestParser parser_;
  std::string out_pending_;  // bytes on_psync_reply wants sent (SYNC)
  std::string replid_;       // from +FULLRESYNC, reported with the payload
  int64_t offset_ = 0;
};

}  // namespace streamd::repl
