#include "streamd/repl/replica_protocol.h"

#include <algorithm>
#include <utility>

#include "streamd/resp/command_encoder.h"

namespace streamd::repl {

namespace {

constexpr std::size_t kEofMarkLen = 40;

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Parses a whole decimal int64 (PSYNC offsets, payload lengths).
bool parse_i64(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  bool neg = s[0] == '-';
  if (neg) s.remove_prefix(1);
  if (s.empty() || s.size() > 18) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = neg ? -v : v;
  return true;
}

}  // namespace

void ReplicaProtocol::start(std::string& out) {
  resp::append_command(out, {"PING"});
  state_ = State::kPing;
}

void ReplicaProtocol::receive(std::string_view bytes) {
  if (state_ == State::kFailed) return;
  buf_.append(bytes);
}

void ReplicaProtocol::compact() {
  // Keeps the buffer from growing with everything ever received; the parser's partial progress
  // refers to the unconsumed bytes, which move, so it restarts on them.
  if (pos_ == 0) return;
  if (pos_ >= buf_.size()) {
    buf_.clear();
  } else if (pos_ < 64 * 1024 && pos_ * 2 < buf_.size()) {
    return;
  } else {
    buf_.erase(0, pos_);
  }
  pos_ = 0;
  parser_.reset();
}

bool ReplicaProtocol::take_line(std::string& line) {
  auto nl = buf_.find('\n', pos_);
  if (nl == std::string::npos) return false;
  std::size_t end = nl;
  if (end > pos_ && buf_[end - 1] == '\r') --end;
  line.assign(buf_, pos_, end - pos_);
  pos_ = nl + 1;
  return true;
}

ReplicaProtocol::Event ReplicaProtocol::fail(std::string why) {
  state_ = State::kFailed;
  error_ = std::move(why);
  Event ev;
  ev.kind = Event::Kind::kFailed;
  return ev;
}

ReplicaProtocol::Event ReplicaProtocol::next(std::string& out) {
  Event ev;
  std::string line;
  for (;;) {
    switch (state_) {
      case State::kIdle:
      case State::kFailed:
        return ev;
      case State::kPing: {
        if (!take_line(line)) return ev;
        // An error other than "authenticate first" means the master cannot serve us; the
        // authentication errors are fine since AUTH comes next (Redis's rule).
        if (starts_with(line, "-") && !starts_with(line, "-NOAUTH") &&
            !starts_with(line, "-NOPERM") && !starts_with(line, "-ERR operation not permitted")) {
          return fail("Error reply to PING from master: '" + line + "'");
        }
        handshake_replies_ = 0;
        auth_pending_ = !settings_.masterauth.empty();
        if (auth_pending_) {
          if (settings_.masteruser.empty()) {
            resp::append_command(out, {"AUTH", settings_.masterauth});
          } else {
            resp::append_command(out, {"AUTH", settings_.masteruser, settings_.masterauth});
          }
          ++handshake_replies_;
        }
        std::string port = std::to_string(settings_.listening_port);
        resp::append_command(out, {"REPLCONF", "listening-port", port});
        ++handshake_replies_;
        if (!settings_.announce_ip.empty()) {
          resp::append_command(out, {"REPLCONF", "ip-address", settings_.announce_ip});
          ++handshake_replies_;
        }
        resp::append_command(out, {"REPLCONF", "capa", "eof", "capa", "psync2"});
        ++handshake_replies_;
        state_ = State::kHandshake;
        break;
      }
      case State::kHandshake: {
        if (!take_line(line)) return ev;
        if (auth_pending_) {
          auth_pending_ = false;
          if (starts_with(line, "-")) return fail("Unable to AUTH to MASTER: " + line);
        }
        // A master that does not know a REPLCONF option answers an error; Redis goes on.
        if (--handshake_replies_ > 0) break;
        std::string off = std::to_string(settings_.psync_offset);
        if (settings_.failover) {
          resp::append_command(out, {"PSYNC", settings_.psync_replid, off, "FAILOVER"});
        } else {
          resp::append_command(out, {"PSYNC", settings_.psync_replid, off});
        }
        state_ = State::kPsync;
        break;
      }
      case State::kPsync: {
        if (!take_line(line)) return ev;
        // Keep-alive newlines may come before the reply.
        if (line.empty()) break;
        ev = on_psync_reply(line);
        out.append(out_pending_);
        out_pending_.clear();
        if (ev.kind != Event::Kind::kNone) return ev;
        break;
      }
      case State::kBulkHeader:
        if (!read_bulk_header()) return ev;
        if (state_ == State::kFailed) {
          ev.kind = Event::Kind::kFailed;
          return ev;
        }
        break;
      case State::kPayloadEof:
      case State::kPayloadLen:
        if (!read_payload(ev)) return ev;
        return ev;
      case State::kStream: {
        if (pos_ >= buf_.size()) {
          compact();
          return ev;
        }
        std::size_t consumed = 0;
        std::string_view input(buf_.data() + pos_, buf_.size() - pos_);
        auto st = parser_.parse(input, consumed, ev.args);
        if (st == resp::RequestParser::Status::kNeedMore) {
          compact();
          return ev;
        }
        if (st == resp::RequestParser::Status::kError) {
          return fail("Protocol error in the master's stream: " + parser_.error());
        }
        ev.raw = input.substr(0, consumed);
        pos_ += consumed;
        // An empty line is skipped, as Redis skips it (its bytes still count).
        ev.kind = Event::Kind::kCommand;
        return ev;
      }
    }
  }
}

ReplicaProtocol::Event ReplicaProtocol::on_psync_reply(const std::string& line) {
  Event ev;
  if (starts_with(line, "+FULLRESYNC")) {
    // "+FULLRESYNC <replid> <offset>"
    std::string_view rest = std::string_view(line).substr(11);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    auto sp = rest.find(' ');
    int64_t off = 0;
    if (sp == std::string_view::npos || sp != kEofMarkLen || !parse_i64(rest.substr(sp + 1), off)) {
      return fail("Bad +FULLRESYNC reply from master: '" + line + "'");
    }
    replid_ = std::string(rest.substr(0, sp));
    offset_ = off;
    state_ = State::kBulkHeader;
    return ev;
  }
  if (starts_with(line, "+CONTINUE")) {
    std::string_view rest = std::string_view(line).substr(9);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
    // A master without psync2 names no id: the history stays the one we asked for.
    ev.replid = rest.size() == kEofMarkLen ? std::string(rest) : std::string();
    ev.kind = Event::Kind::kContinue;
    state_ = State::kStream;
    return ev;
  }
  if (settings_.failover) {
    // The failover's target did not take over: the failover ends (Redis aborts it on any answer
    // but these two, even one that means "later").
    state_ = State::kFailed;
    error_ = "Failover target rejected psync request: " + line;
    ev.kind = Event::Kind::kFailoverRefused;
    ev.replid = line;
    return ev;
  }
  if (starts_with(line, "-NOMASTERLINK") || starts_with(line, "-LOADING")) {
    return fail("Master is currently unable to PSYNC but should be in the future: " + line);
  }
  // Any other answer: a master without PSYNC (or in an error state). The old protocol follows:
  // SYNC, answered by the payload alone.
  out_pending_ = "SYNC\r\n";
  replid_.clear();
  offset_ = -1;
  state_ = State::kBulkHeader;
  ev.kind = Event::Kind::kSyncFallback;
  ev.replid = line;
  return ev;
}

bool ReplicaProtocol::read_bulk_header() {
  std::string line;
  for (;;) {
    if (!take_line(line)) return false;
    if (line.empty()) continue;  // keep-alive while the master prepares the snapshot
    if (line[0] == '-') {
      fail("MASTER aborted replication with an error: " + line);
      return true;
    }
    if (line[0] != '$') {
      fail("Bad protocol from MASTER, the first byte is not '$' (we received '" + line + "')");
      return true;
    }
    payload_.clear();
    if (starts_with(line, "$EOF:") && line.size() == 5 + kEofMarkLen) {
      eof_mark_ = line.substr(5);
      payload_size_ = -1;
      mark_scan_from_ = 0;
      state_ = State::kPayloadEof;
      return true;
    }
    int64_t len = 0;
    if (!parse_i64(std::string_view(line).substr(1), len) || len < 0) {
      fail("Bad payload length from MASTER: '" + line + "'");
      return true;
    }
    payload_size_ = len;
    payload_.reserve(static_cast<std::size_t>(std::min<int64_t>(len, 1 << 30)));
    state_ = State::kPayloadLen;
    return true;
  }
}

bool ReplicaProtocol::read_payload(Event& ev) {
  std::size_t avail = buf_.size() - pos_;
  if (state_ == State::kPayloadLen) {
    std::size_t want = static_cast<std::size_t>(payload_size_) - payload_.size();
    std::size_t n = std::min(avail, want);
    payload_.append(buf_, pos_, n);
    pos_ += n;
    compact();
    if (payload_.size() < static_cast<std::size_t>(payload_size_)) return false;
  } else {
    payload_.append(buf_, pos_, avail);
    pos_ += avail;
    compact();
    // The mark may straddle reads: look again from where it could start. Bytes after it are
    // the command stream already.
    std::size_t at = payload_.find(eof_mark_, mark_scan_from_);
    if (at == std::string::npos) {
      mark_scan_from_ = payload_.size() >= kEofMarkLen ? payload_.size() - kEofMarkLen + 1 : 0;
      return false;
    }
    std::string after = payload_.substr(at + kEofMarkLen);
    payload_.resize(at);
    buf_.insert(pos_, after);
  }
  ev.kind = Event::Kind::kFullSync;
  ev.replid = replid_;
  ev.offset = offset_;
  state_ = State::kStream;
  parser_.reset();
  return true;
}

}  // namespace streamd::repl
