// CLIENT KILL as Redis Sentinel uses it (issue 13): the clean-up half of its reconfiguration
// transaction (MULTI; SLAVEOF ...; CONFIG REWRITE; CLIENT KILL TYPE normal; CLIENT KILL TYPE
// pubsub; EXEC) queues and runs without killing the sentinel's own connection, and the old
// `CLIENT KILL addr:port` form, which ignores SKIPME, may close the caller. Replies as recorded
// from redis-server 7.0.15 (tests/differential/scripts/client_kill.txt compares them live).
#include <gtest/gtest.h>

#include <string>

#include "command_harness.h"

namespace streamd::test {
namespace {

using resp::Protocol;

class ClientKillTest : public ::testing::Test {
 protected:
  // Counts the kill hook's calls per client (the network layer closes the socket there).
  void Watch(int client) {
    h.session(client).kill = [this, client] { ++killed[client]; };
  }

  CommandHarness h;
  int killed[4] = {0, 0, 0, 0};
};

TEST_F(ClientKillTest, SentinelCleanUpInMultiRunsAndSparesTheCaller) {
  for (int c = 0; c < 4; ++c) Watch(c);
  // Client 2 subscribes to a channel and client 3 to a pattern: both are of type pubsub.
  ASSERT_EQ(h.Run2({"SUBSCRIBE", "__sentinel__:hello"}, 2),
            "*3\r\n$9\r\nsubscribe\r\n$18\r\n__sentinel__:hello\r\n:1\r\n");
  ASSERT_EQ(h.Run2({"PSUBSCRIBE", "x*"}, 3), "*3\r\n$10\r\npsubscribe\r\n$2\r\nx*\r\n:1\r\n");
  h.session(1);  // a normal client

  EXPECT_EQ(h.Run2({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(h.Run2({"CONFIG", "REWRITE"}), "+QUEUED\r\n");
  EXPECT_EQ(h.Run2({"CLIENT", "KILL", "TYPE", "normal"}), "+QUEUED\r\n");
  EXPECT_EQ(h.Run2({"CLIENT", "KILL", "TYPE", "pubsub"}), "+QUEUED\r\n");
  // CONFIG REWRITE's failure (no config file) does not stop the commands after it.
  EXPECT_EQ(h.Run2({"EXEC"}),
            "*3\r\n-ERR The server is running without a config file\r\n:1\r\n:2\r\n");
  EXPECT_EQ(killed[0], 0);
  EXPECT_FALSE(h.session(0).close_after_reply);
  EXPECT_EQ(killed[1], 1);
  EXPECT_EQ(killed[2], 1);
  EXPECT_EQ(killed[3], 1);
  EXPECT_EQ(h.Run2({"PING"}), "+PONG\r\n");
}

TEST_F(ClientKillTest, TypeNormalInMultiWithSkipmeNoClosesTheCallerAfterExec) {
  Watch(0);
  EXPECT_EQ(h.Run2({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(h.Run2({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "no"}), "+QUEUED\r\n");
  EXPECT_EQ(h.Run2({"PING"}), "+QUEUED\r\n");
  // The caller is marked, not closed: the whole EXEC reply is still written.
  EXPECT_EQ(h.Run2({"EXEC"}), "*2\r\n:1\r\n+PONG\r\n");
  EXPECT_EQ(killed[0], 0);
  EXPECT_TRUE(h.session(0).close_after_reply);
}

TEST_F(ClientKillTest, OldFormIgnoresSkipmeAndMayCloseTheCaller) {
  Watch(0);
  Watch(1);
  // The harness gives client N the address 127.0.0.1:4000N.
  EXPECT_EQ(h.Run2({"CLIENT", "KILL", "127.0.0.1:40000"}), "+OK\r\n");
  EXPECT_EQ(killed[0], 0);
  EXPECT_TRUE(h.session(0).close_after_reply);
  EXPECT_EQ(killed[1], 0);
}

TEST_F(ClientKillTest, LaddrAndAddrMatchWholeAddresses) {
  Watch(1);
  Watch(2);
  h.session(2).laddr = "127.0.0.1:6380";
  EXPECT_EQ(h.Run2({"CLIENT", "KILL", "LADDR", "127.0.0.1:638"}), ":0\r\n");
  EXPECT_EQ(h.Run2({"CLIENT", "KILL", "LADDR", "127.0.0.1:6380"}), ":1\r\n");
  EXPECT_EQ(killed[2], 1);
  EXPECT_EQ(h.Run2({"CLIENT", "KILL", "ADDR", "127.0.0.1:4000"}), ":0\r\n");
  EXPECT_EQ(h.Run2({"CLIENT", "KILL", "ADDR", "127.0.0.1:40001", "LADDR", "127.0.0.1:6380"}),
            ":0\r\n");
  EXPECT_EQ(h.Run2({"CLIENT", "KILL", "ADDR", "127.0.0.1:40001", "LADDR", "127.0.0.1:6379"}),
            ":1\r\n");
  EXPECT_EQ(killed[1], 1);
}

}  // namespace
}  // namespace streamd::test
