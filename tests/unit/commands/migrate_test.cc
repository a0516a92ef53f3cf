// MIGRATE through dispatch with a scripted cmd::Outbound in place of the network: the request
// bytes it would send (AUTH/AUTH2, SELECT, RESTORE with the remaining TTL, REPLACE), the client
// parked until the exchange completes, then Redis's replies (+OK, +NOKEY, target errors, IOERR
// texts), local deletions (unless COPY), DEL propagation and events.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "command_harness.h"
#include "recording_persistence.h"
#include "streamd/commands/core/outbound.h"
#include "streamd/commands/keyspace/migrate.h"

namespace streamd::test {
namespace {

class ScriptedOutbound : public cmd::Outbound {
 public:
  void exchange(cmd::OutboundRequest req, std::function<void(cmd::OutboundResult)> done) override {
    requests.push_back(req);
    pending.push_back(std::move(done));
  }
  // Completes the oldest exchange.
  void Complete(cmd::OutboundResult r) {
    ASSERT_FALSE(pending.empty());
    auto done = std::move(pending.front());
    pending.erase(pending.begin());
    done(std::move(r));
  }
  cmd::OutboundResult Lines(std::vector<std::string> lines,
                            cmd::OutboundResult::Failure f = cmd::OutboundResult::Failure::kNone) {
    cmd::OutboundResult r;
    r.lines = std::move(lines);
    r.failure = f;
    return r;
  }
  std::vector<cmd::OutboundRequest> requests;
  std::vector<std::function<void(cmd::OutboundResult)>> pending;
};

std::string Resp(std::initializer_list<std::string> args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

class MigrateTest : public ::testing::Test {
 protected:
  MigrateTest() {
    cmd::set_migrate_connector(h.server(), &net);
    h.server().set_persistence(&aof);
    h.session().out = &out;
    h.session().resume = [this] { ++resumed; };
  }
  ~MigrateTest() override {
    cmd::set_migrate_connector(h.server(), nullptr);
    h.server().set_persistence(nullptr);
    h.session().out = nullptr;
    h.session().resume = nullptr;
  }
  std::string Run(const std::vector<std::string>& argv) { return h.Run(argv); }
  // Sends a MIGRATE that parks the client; returns what it wrote (nothing).
  std::string Start(const std::vector<std::string>& argv) { return h.RunRaw(argv); }
  std::string Dump(const std::string& key) {
    std::string raw = Run({"DUMP", key});
    std::size_t eol = raw.find("\r\n");
    return raw.substr(eol + 2, std::stoul(raw.substr(1, eol - 1)));
  }

  CommandHarness h;
  ScriptedOutbound net;
  RecordingPersistence aof;
  std::string out;
  int resumed = 0;
};

TEST_F(MigrateTest, MovesKeysAndPropagatesDel) {
  Run({"SET", "a", "1"});
  Run({"SET", "b", "2"});
  Run({"PEXPIRE", "b", "5000"});
  std::string pa = Dump("a"), pb = Dump("b");
  aof.records.clear();
  EXPECT_EQ(Start({"MIGRATE", "127.0.0.1", "7000", "", "3", "100", "KEYS", "a", "nosuch", "b"}),
            "");
  ASSERT_EQ(net.requests.size(), 1u);
  const cmd::OutboundRequest& req = net.requests[0];
  EXPECT_EQ(req.host, "127.0.0.1");
  EXPECT_EQ(req.port, 7000);
  EXPECT_EQ(req.timeout_ms, 100);
  EXPECT_EQ(req.replies, 3u);
  EXPECT_EQ(req.bytes, Resp({"SELECT", "3"}) + Resp({"RESTORE", "a", "0", pa}) +
                           Resp({"RESTORE", "b", "5000", pb}));
  EXPECT_TRUE(h.session().blocked != nullptr);
  net.Complete(net.Lines({"+OK", "+OK", "+OK"}));
  EXPECT_EQ(out, "+OK\r\n");
  EXPECT_EQ(resumed, 1);
  EXPECT_TRUE(h.session().blocked == nullptr);
  EXPECT_EQ(Run({"EXISTS", "a", "b"}), ":0\r\n");
  EXPECT_EQ(aof.records, (std::vector<std::string>{"DEL a b"}));
}

TEST_F(MigrateTest, CopyReplaceAndAuth) {
  Run({"SET", "a", "1"});
  std::string pa = Dump("a");
  Start({"MIGRATE", "h", "1", "a", "0", "0", "COPY", "REPLACE", "AUTH", "pw"});
  EXPECT_EQ(net.requests.back().timeout_ms, 1000);  // 0 means Redis's default, 1 s
  EXPECT_EQ(net.requests.back().bytes, Resp({"AUTH", "pw"}) + Resp({"SELECT", "0"}) +
                                           Resp({"RESTORE", "a", "0", pa, "REPLACE"}));
  net.Complete(net.Lines({"+OK", "+OK", "+OK"}));
  EXPECT_EQ(out, "+OK\r\n");
  EXPECT_EQ(Run({"EXISTS", "a"}), ":1\r\n");  // COPY keeps it
  out.clear();
  Start({"MIGRATE", "h", "1", "a", "0", "0", "AUTH2", "user", "pw"});
  const std::string auth2 = Resp({"AUTH", "user", "pw"});
  EXPECT_EQ(net.requests.back().bytes.substr(0, auth2.size()), auth2);
  net.Complete(
      net.Lines({"-WRONGPASS invalid username-password pair or user is disabled.", "+OK", "+OK"}));
  EXPECT_EQ(out,
            "-ERR Target instance replied with error: WRONGPASS invalid username-password pair or "
            "user is disabled.\r\n");
  EXPECT_EQ(Run({"EXISTS", "a"}), ":1\r\n");
}

TEST_F(MigrateTest, RepliesAndErrors) {
  EXPECT_EQ(Run({"MIGRATE", "h", "1", "nosuch", "0", "10"}), "+NOKEY\r\n");
  EXPECT_EQ(Run({"MIGRATE", "h", "1", "k", "0", "10", "KEYS", "a"}),
            "-ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
            "string\r\n");
  EXPECT_EQ(Run({"MIGRATE", "h", "1", "k", "0", "10", "AUTH"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"MIGRATE", "h", "1", "k", "0", "10", "AUTH2", "u"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"MIGRATE", "h", "1", "k", "0", "10", "FOO"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"MIGRATE", "h", "1", "k", "x", "y"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_TRUE(net.requests.empty());

  Run({"SET", "a", "1"});
  Start({"MIGRATE", "h", "1", "a", "0", "10"});
  net.Complete(net.Lines({}, cmd::OutboundResult::Failure::kConnect));
  EXPECT_EQ(out, "-IOERR error or timeout connecting to the client\r\n");
  out.clear();
  Start({"MIGRATE", "h", "1", "a", "0", "10"});
  net.Complete(net.Lines({}, cmd::OutboundResult::Failure::kWrite));
  EXPECT_EQ(out, "-IOERR error or timeout writing to target instance\r\n");
  out.clear();
  Start({"MIGRATE", "h", "1", "a", "0", "10"});
  net.Complete(net.Lines({"+OK"}, cmd::OutboundResult::Failure::kRead));
  EXPECT_EQ(out, "-IOERR error or timeout reading to target instance\r\n");
  out.clear();
  Start({"MIGRATE", "h", "1", "a", "0", "10"});
  net.Complete(net.Lines({"+OK", "-BUSYKEY Target key name already exists."}));
  EXPECT_EQ(out,
            "-ERR Target instance replied with error: BUSYKEY Target key name already "
            "exists.\r\n");
  EXPECT_EQ(Run({"EXISTS", "a"}), ":1\r\n");
  // Inside MULTI no client can be parked.
  out.clear();
  Run({"MULTI"});
  Run({"MIGRATE", "h", "1", "a", "0", "10"});
  EXPECT_EQ(Run({"EXEC"}), "*1\r\n-ERR MIGRATE inside MULTI is not supported by streamd\r\n");
}

TEST_F(MigrateTest, MonitorRedactsCredentials) {
  cmd::Session& mon = h.session(1);
  std::string seen;
  mon.out = &seen;
  mon.flush = [] {};
  ASSERT_EQ(h.Run({"MONITOR"}, resp::Protocol::kResp3, 1), "+OK\r\n");
  seen.clear();
  Run({"SET", "a", "1"});
  seen.clear();
  Start({"MIGRATE", "h", "1", "a", "0", "10", "COPY", "AUTH", "pw", "AUTH2", "u", "pw2"});
  EXPECT_EQ(seen,
            "+1700000000.000000 [0 127.0.0.1:40000] \"MIGRATE\" \"h\" \"1\" \"a\" \"0\" \"10\" "
            "\"COPY\" \"AUTH\" \"(redacted)\" \"AUTH2\" \"(redacted)\" \"(redacted)\"\r\n");
  net.Complete(net.Lines({"+OK", "+OK", "+OK"}));
  mon.out = nullptr;
  mon.flush = nullptr;
}

TEST_F(MigrateTest, DisconnectedClientGetsNothing) {
  Run({"SET", "a", "1"});
  Start({"MIGRATE", "h", "1", "a", "0", "10"});
  h.server().blocking().forget(h.session());
  net.Complete(net.Lines({"+OK", "+OK"}));
  EXPECT_EQ(out, "");
  EXPECT_EQ(Run({"EXISTS", "a"}), ":1\r\n");
}

}  // namespace
}  // namespace streamd::test
