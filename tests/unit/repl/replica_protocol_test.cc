// The replica side's protocol machine with plain calls: bytes in, what it sends and the events it
// reports out (the handshake redis-server 7.0.15 sends, both payload framings, the stream split
// anywhere).
#include "streamd/repl/replica_protocol.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "resp/encode.h"

namespace streamd::repl {
namespace {

using test_util::enc;
using Kind = ReplicaProtocol::Event::Kind;

const std::string kId = "0123456789abcdef0123456789abcdef01234567";
const std::string kMark = "ffffffffffeeeeeeeeeeddddddddddcccccccccc";

HandshakeSettings settings() {
  HandshakeSettings s;
  s.listening_port = 6380;
  return s;
}

// Feeds `in`, collects what the machine sends and the kinds of its events.
struct Driver {
  explicit Driver(HandshakeSettings s) : p(std::move(s)) { p.start(sent); }
  std::vector<ReplicaProtocol::Event> feed(std::string_view in) {
    p.receive(in);
    std::vector<ReplicaProtocol::Event> evs;
    for (;;) {
      ReplicaProtocol::Event ev = p.next(sent);
      if (ev.kind == Kind::kNone) break;
      if (ev.kind == Kind::kCommand) {
        std::string line;
        for (auto a : ev.args) line += std::string(a) + " ";
        commands.push_back(line);
        raw.push_back(std::string(ev.raw));
      }
      evs.push_back(std::move(ev));
      if (evs.back().kind == Kind::kFailed || evs.back().kind == Kind::kFailoverRefused) break;
    }
    return evs;
  }
  std::string take_sent() { return std::exchange(sent, {}); }
  ReplicaProtocol p;
  std::string sent;
  std::vector<std::string> commands;
  std::vector<std::string> raw;
};

TEST(ReplicaProtocol, HandshakeWithoutAuthThenFullSyncEof) {
  HandshakeSettings s = settings();
  Driver d(s);
  EXPECT_EQ(d.take_sent(), enc({"PING"}));
  EXPECT_TRUE(d.feed("+PO").empty());
  EXPECT_EQ(d.sent, "");
  EXPECT_TRUE(d.feed("NG\r\n").empty());
  EXPECT_EQ(d.take_sent(), enc({"REPLCONF", "listening-port", "6380"}) +
                               enc({"REPLCONF", "capa", "eof", "capa", "psync2"}));
  EXPECT_TRUE(d.feed("+OK\r\n").empty());
  EXPECT_EQ(d.sent, "");  // PSYNC waits for every reply
  EXPECT_TRUE(d.feed("+OK\r\n").empty());
  EXPECT_EQ(d.take_sent(), enc({"PSYNC", "?", "-1"}));
  EXPECT_TRUE(d.feed("+FULLRESYNC " + kId + " 42\r\n\n\n$EOF:" + kMark + "\r\nREDIS").empty());
  EXPECT_EQ(d.p.state(), ReplicaProtocol::State::kPayloadEof);
  // The mark split across reads, and stream bytes right behind it.
  EXPECT_TRUE(d.feed("0010" + kMark.substr(0, 25)).empty());
  auto evs = d.feed(kMark.substr(25) + enc({"SET", "a", "1"}) + "*1\r\n$4\r\nPI");
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].kind, Kind::kFullSync);
  EXPECT_EQ(evs[0].replid, kId);
  EXPECT_EQ(evs[0].offset, 42);
  EXPECT_EQ(d.p.payload(), "REDIS0010");
  EXPECT_EQ(evs[1].kind, Kind::kCommand);
  EXPECT_EQ(d.raw.back(), enc({"SET", "a", "1"}));
  EXPECT_EQ(d.p.unconsumed(), 10u);  // "*1\r\n$4\r\nPI"
  d.feed("NG\r\n");
  EXPECT_EQ(d.commands, (std::vector<std::string>{"SET a 1 ", "PING "}));
  EXPECT_EQ(d.raw.back(), enc({"PING"}));
  EXPECT_EQ(d.p.unconsumed(), 0u);
}

TEST(ReplicaProtocol, AuthWithUserAnnounceIpAndCachedHistory) {
  HandshakeSettings s = settings();
  s.masteruser = "repl";
  s.masterauth = "secret";
  s.announce_ip = "10.0.0.9";
  s.psync_replid = kId;
  s.psync_offset = 101;
  Driver d(s);
  d.take_sent();
  // A master with requirepass answers PING with NOAUTH: AUTH follows.
  d.feed("-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(d.take_sent(), enc({"AUTH", "repl", "secret"}) +
                               enc({"REPLCONF", "listening-port", "6380"}) +
                               enc({"REPLCONF", "ip-address", "10.0.0.9"}) +
                               enc({"REPLCONF", "capa", "eof", "capa", "psync2"}));
  // A REPLCONF error is only logged, as Redis does.
  d.feed("+OK\r\n-ERR Unrecognized REPLCONF option: ip-address\r\n+OK\r\n");
  EXPECT_EQ(d.sent, "");
  d.feed("+OK\r\n");
  EXPECT_EQ(d.take_sent(), enc({"PSYNC", kId, "101"}));
  auto evs = d.feed("+CONTINUE " + std::string(40, 'a') + "\r\n" + enc({"DEL", "k"}));
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].kind, Kind::kContinue);
  EXPECT_EQ(evs[0].replid, std::string(40, 'a'));
  EXPECT_EQ(d.commands, (std::vector<std::string>{"DEL k "}));
}

TEST(ReplicaProtocol, ContinueWithoutIdAndLengthFramedPayload) {
  Driver d(settings());
  d.feed("+PONG\r\n+OK\r\n+OK\r\n");
  auto evs = d.feed("+CONTINUE\r\n");
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].replid, "");

  Driver f(settings());
  f.feed("+PONG\r\n+OK\r\n+OK\r\n+FULLRESYNC " + kId + " 0\r\n$10\r\n0123");
  EXPECT_EQ(f.p.payload_size(), 10);
  EXPECT_EQ(f.p.payload_read(), 4);
  evs = f.feed("456789" + enc({"PING"}));
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].kind, Kind::kFullSync);
  EXPECT_EQ(f.p.payload(), "0123456789");
  EXPECT_EQ(f.commands, (std::vector<std::string>{"PING "}));
}

TEST(ReplicaProtocol, ByteByByteGivesTheSameEvents) {
  std::string all = "+PONG\r\n+OK\r\n+OK\r\n+FULLRESYNC " + kId + " 7\r\n\n$EOF:" + kMark +
                    "\r\nPAYLOAD" + kMark + enc({"SELECT", "0"}) +
                    enc({"XADD", "s", "1-1", "f", "v"}) + enc({"REPLCONF", "GETACK", "*"});
  Driver d(settings());
  for (char c : all) d.feed(std::string_view(&c, 1));
  EXPECT_EQ(d.p.payload(), "PAYLOAD");
  EXPECT_EQ(d.commands,
            (std::vector<std::string>{"SELECT 0 ", "XADD s 1-1 f v ", "REPLCONF GETACK * "}));
  EXPECT_EQ(d.sent, enc({"PING"}) + enc({"REPLCONF", "listening-port", "6380"}) +
                        enc({"REPLCONF", "capa", "eof", "capa", "psync2"}) +
                        enc({"PSYNC", "?", "-1"}));
}

TEST(ReplicaProtocol, PsyncRefusedFallsBackToSync) {
  // A master without PSYNC (or in an error state) answers it with an error: the replica sends
  // SYNC, whose answer is the payload without a +FULLRESYNC line (Redis's "Retrying with SYNC").
  for (std::string refusal : {"-ERR unknown command 'PSYNC'", "-ERR something else", "+WHAT"}) {
    SCOPED_TRACE(refusal);
    Driver d(settings());
    d.feed("+PONG\r\n+OK\r\n+OK\r\n");
    d.take_sent();
    auto evs = d.feed(refusal + "\r\n\n$6\r\nREDIS0" + enc({"SET", "a", "1"}));
    EXPECT_EQ(d.take_sent(), "SYNC\r\n");
    ASSERT_EQ(evs.size(), 3u);
    EXPECT_EQ(evs[0].kind, Kind::kSyncFallback);
    EXPECT_EQ(evs[0].replid, refusal);
    EXPECT_EQ(evs[1].kind, Kind::kFullSync);
    EXPECT_EQ(evs[1].replid, "");
    EXPECT_EQ(evs[1].offset, -1);
    EXPECT_EQ(d.p.payload(), "REDIS0");
    EXPECT_EQ(d.commands, (std::vector<std::string>{"SET a 1 "}));
  }
  // -LOADING means "later": the link is closed and retried, no SYNC.
  Driver d(settings());
  d.feed("+PONG\r\n+OK\r\n+OK\r\n");
  d.take_sent();
  auto evs = d.feed("-LOADING Redis is loading the dataset in memory\r\n");
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].kind, Kind::kFailed);
  EXPECT_EQ(d.sent, "");
}

TEST(ReplicaProtocol, FailoverPsyncCarriesTheArgumentAndAnyRefusalEndsIt) {
  // A master failing over to this link's master: PSYNC <its history> FAILOVER. Accepted, it goes
  // on as any PSYNC; any other answer (even "later") is reported as the failover refused, with no
  // SYNC fallback (Redis aborts the failover then).
  HandshakeSettings s = settings();
  s.psync_replid = kId;
  s.psync_offset = 101;
  s.failover = true;
  {
    Driver d(s);
    d.feed("+PONG\r\n+OK\r\n+OK\r\n");
    EXPECT_EQ(d.take_sent(), enc({"PING"}) + enc({"REPLCONF", "listening-port", "6380"}) +
                                 enc({"REPLCONF", "capa", "eof", "capa", "psync2"}) +
                                 enc({"PSYNC", kId, "101", "FAILOVER"}));
    auto evs = d.feed("+CONTINUE " + kMark + "\r\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].kind, Kind::kContinue);
    EXPECT_EQ(evs[0].replid, kMark);
  }
  for (std::string refusal : {"-ERR PSYNC FAILOVER replid must match my replid.",
                              "-NOPERM this user has no permissions", "-LOADING later"}) {
    SCOPED_TRACE(refusal);
    Driver d(s);
    d.feed("+PONG\r\n+OK\r\n+OK\r\n");
    d.take_sent();
    auto evs = d.feed(refusal + "\r\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].kind, Kind::kFailoverRefused);
    EXPECT_EQ(evs[0].replid, refusal);
    EXPECT_EQ(d.p.state(), ReplicaProtocol::State::kFailed);
    EXPECT_EQ(d.sent, "");
  }
}

TEST(ReplicaProtocol, Failures) {
  {
    Driver d(settings());
    auto evs = d.feed("-ERR unknown command\r\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].kind, Kind::kFailed);
    EXPECT_EQ(d.p.error(), "Error reply to PING from master: '-ERR unknown command'");
  }
  {
    HandshakeSettings s = settings();
    s.masterauth = "wrong";
    Driver d(s);
    auto evs = d.feed("+PONG\r\n-WRONGPASS invalid username-password pair\r\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(d.p.error(), "Unable to AUTH to MASTER: -WRONGPASS invalid username-password pair");
  }
  {
    Driver d(settings());
    auto evs = d.feed("+PONG\r\n+OK\r\n+OK\r\n-NOMASTERLINK Can't SYNC while not connected\r\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].kind, Kind::kFailed);
  }
  {
    Driver d(settings());
    d.feed("+PONG\r\n+OK\r\n+OK\r\n+FULLRESYNC " + kId + " 0\r\n");
    auto evs = d.feed("-ERR snapshot failed\r\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].kind, Kind::kFailed);
  }
  {
    Driver d(settings());
    d.feed("+PONG\r\n+OK\r\n+OK\r\n+CONTINUE\r\n");
    auto evs = d.feed("*1\r\n$x\r\n");
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].kind, Kind::kFailed);
  }
}

}  // namespace
}  // namespace streamd::repl
