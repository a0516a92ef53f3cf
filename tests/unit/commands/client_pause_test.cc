// CLIENT PAUSE / UNPAUSE through dispatch: what a pause covers (Dispatcher::postpones), the
// postponed clients' order and wake-ups, the end by time, expiry held still, the replies and
// errors as redis-server 7.0.15 sends them.
#include <gtest/gtest.h>

#include <limits>

#include <string>
#include <vector>

#include "command_harness.h"

namespace streamd::test {
namespace {

class ClientPauseTest : public ::testing::Test {
 protected:
  std::string Run(const std::vector<std::string>& argv, int client = 0) {
    return h.Run2(argv, client);
  }
  // Whether client `client`'s command would wait (and, if so, it is now postponed).
  bool Postpones(const std::vector<std::string>& argv, int client) {
    std::vector<std::string_view> views(argv.begin(), argv.end());
    return h.dispatcher().postpones(h.session(client), views);
  }
  CommandHarness h;
};

TEST_F(ClientPauseTest, RepliesAndErrors) {
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "100", "bogus"}),
            "-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n");
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "abc"}), "-ERR timeout is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "-1"}), "-ERR timeout is negative\r\n");
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "1", "ALL", "x"}),
            "-ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT "
            "HELP.\r\n");
  EXPECT_EQ(Run({"CLIENT", "PAUSE"}),
            "-ERR wrong number of arguments for 'client|pause' command\r\n");
  EXPECT_EQ(Run({"CLIENT", "UNPAUSE", "x"}),
            "-ERR wrong number of arguments for 'client|unpause' command\r\n");
  EXPECT_FALSE(h.server().client_pause().active());
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "100", "write"}), "+OK\r\n");
  EXPECT_TRUE(h.server().client_pause().active());
  EXPECT_EQ(Run({"CLIENT", "UNPAUSE"}), "+OK\r\n");
  EXPECT_FALSE(h.server().client_pause().active());
}

TEST_F(ClientPauseTest, WriteCoversWritesAndMayReplicateAndExecOfWrites) {
  Run({"CLIENT", "PAUSE", "10000", "WRITE"});
  EXPECT_FALSE(Postpones({"GET", "k"}, 1));
  EXPECT_FALSE(Postpones({"XRANGE", "s", "-", "+"}, 1));
  EXPECT_FALSE(Postpones({"PING"}, 1));
  // Refused anyway: answered now, not postponed.
  EXPECT_FALSE(Postpones({"SET", "k"}, 1));
  EXPECT_FALSE(Postpones({"NOSUCHCOMMAND"}, 1));
  // A transaction of reads runs; one holding a write waits at EXEC (and its writes at queueing,
  // as Redis checks each command's own flags before queueing it).
  Run({"MULTI"}, 2);
  Run({"GET", "k"}, 2);
  EXPECT_FALSE(Postpones({"EXEC"}, 2));
  Run({"DISCARD"}, 2);
  EXPECT_TRUE(Postpones({"XADD", "s", "*", "f", "v"}, 1));
  EXPECT_TRUE(h.session(1).postponed);
  EXPECT_TRUE(Postpones({"PUBLISH", "ch", "m"}, 3));  // may_replicate
  EXPECT_NE(Run({"INFO", "clients"}).find("blocked_clients:2\r\n"), std::string::npos);
  EXPECT_NE(Run({"CLIENT", "INFO"}, 1).find(" flags=b "), std::string::npos);
}

TEST_F(ClientPauseTest, AllCoversEverythingButReplicaLinks) {
  Run({"CLIENT", "PAUSE", "10000"});
  EXPECT_TRUE(Postpones({"PING"}, 1));
  h.session(2).replica = true;
  EXPECT_FALSE(Postpones({"REPLCONF", "ACK", "0"}, 2));
}

TEST_F(ClientPauseTest, UnpauseResumesThePostponedInOrder) {
  std::vector<int> woken;
  for (int c : {1, 2, 3}) h.session(c).flush = [&woken, c] { woken.push_back(c); };
  Run({"CLIENT", "PAUSE", "10000", "WRITE"});
  EXPECT_TRUE(Postpones({"SET", "a", "1"}, 2));
  EXPECT_TRUE(Postpones({"SET", "b", "1"}, 3));
  EXPECT_TRUE(Postpones({"SET", "c", "1"}, 1));
  EXPECT_TRUE(woken.empty());
  Run({"CLIENT", "UNPAUSE"});
  EXPECT_EQ(woken, (std::vector<int>{2, 3, 1}));
  for (int c : {1, 2, 3}) EXPECT_FALSE(h.session(c).postponed);
  EXPECT_FALSE(Postpones({"SET", "c", "1"}, 1));
}

TEST_F(ClientPauseTest, ThePauseEndsAtItsTimeAndALaterEndWins) {
  bool woken = false;
  h.session(1).flush = [&woken] { woken = true; };
  Run({"CLIENT", "PAUSE", "500", "WRITE"});
  Run({"CLIENT", "PAUSE", "100", "ALL"});  // the mode changes, the later end stays
  EXPECT_EQ(h.server().client_pause().mode(), cmd::ClientPause::Mode::kAll);
  EXPECT_EQ(h.server().client_pause().end_ms(cmd::ClientPause::Purpose::kClientCommand),
            CommandHarness::kStartMs + 500);
  EXPECT_TRUE(Postpones({"GET", "k"}, 1));
  h.Advance(499);
  h.Cron();
  EXPECT_FALSE(woken);
  h.Advance(1);
  h.Cron();
  EXPECT_TRUE(woken);
  EXPECT_FALSE(h.server().client_pause().active());
}

TEST_F(ClientPauseTest, KeysDoNotExpireWhilePaused) {
  Run({"SET", "k", "v", "PX", "10"});
  Run({"CLIENT", "PAUSE", "10000", "WRITE"});
  h.Advance(100);
  h.Cron();
  // Hidden from reads, not deleted: nothing would be propagated during the pause.
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  Run({"CLIENT", "UNPAUSE"});
  h.Cron();
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(ClientPauseTest, APostponedClientThatLeavesIsForgotten) {
  Run({"CLIENT", "PAUSE", "10000", "WRITE"});
  EXPECT_TRUE(Postpones({"SET", "a", "1"}, 1));
  h.server().remove_session(h.session(1).id);
  EXPECT_EQ(h.server().client_pause().postponed(), 0u);
  Run({"CLIENT", "UNPAUSE"});
}

TEST_F(ClientPauseTest, AFailoversPauseOutlivesClientUnpause) {
  using Purpose = cmd::ClientPause::Purpose;
  bool woken = false;
  h.session(1).flush = [&woken] { woken = true; };
  h.server().pause_clients(Purpose::kFailover, cmd::ClientPause::Mode::kWrite,
                           std::numeric_limits<int64_t>::max());
  Run({"CLIENT", "PAUSE", "10000", "ALL"});
  EXPECT_EQ(h.server().client_pause().mode(), cmd::ClientPause::Mode::kAll);
  EXPECT_TRUE(Postpones({"GET", "k"}, 1));
  // CLIENT UNPAUSE ends its own pause: the read resumes, writes still wait for the failover.
  Run({"CLIENT", "UNPAUSE"});
  EXPECT_TRUE(woken);
  EXPECT_FALSE(h.session(1).postponed);
  EXPECT_EQ(h.server().client_pause().mode(), cmd::ClientPause::Mode::kWrite);
  EXPECT_FALSE(Postpones({"GET", "k"}, 1));
  EXPECT_TRUE(Postpones({"SET", "k", "v"}, 2));
  h.Advance(20000);
  h.Cron();
  EXPECT_TRUE(h.server().client_pause().active());
  h.server().unpause_clients(Purpose::kFailover);
  EXPECT_FALSE(h.server().client_pause().active());
  EXPECT_FALSE(h.session(2).postponed);
}

}  // namespace
}  // namespace streamd::test
