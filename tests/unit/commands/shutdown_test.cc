// The shutdown sequence (commands/core/shutdown.h) with plain calls: a master whose replicas lag
// waits for them (the caller blocked, writes paused), exits when they caught up or at the
// deadline, and SHUTDOWN ABORT / NOW / shutdown-timeout 0 behave as in Redis 7.0.
#include <gtest/gtest.h>

#include <string>

#include "command_harness.h"
#include "repl/fake_replication.h"

namespace streamd::test {
namespace {

using resp::Protocol;

class ShutdownTest : public ::testing::Test {
 protected:
  ShutdownTest() {
    h.server().set_replication(&repl);
    h.server().request_shutdown = [this] { ++requested; };
    repl.in_sync = false;
    h.session(0).out = &out0;
  }
  ~ShutdownTest() override { h.server().set_replication(nullptr); }

  bool Postponed(const std::vector<std::string>& argv, int client) {
    std::vector<std::string_view> views(argv.begin(), argv.end());
    return h.dispatcher().postpones(h.session(client), views);
  }

  CommandHarness h;
  FakeReplication repl;
  int requested = 0;
  std::string out0;
};

TEST_F(ShutdownTest, WaitsForLaggingReplicasThenExitsWhenTheyCaughtUp) {
  EXPECT_EQ(h.RunRaw({"SHUTDOWN"}, Protocol::kResp2), "");
  EXPECT_EQ(requested, 0);
  EXPECT_NE(h.session(0).blocked, nullptr);
  EXPECT_EQ(repl.acks_requested, 1);
  EXPECT_NE(h.Run({"INFO", "server"}, Protocol::kResp2, 1).find("shutdown_in_milliseconds:10000"),
            std::string::npos);
  EXPECT_TRUE(Postponed({"SET", "k", "v"}, 2));
  EXPECT_FALSE(Postponed({"GET", "k"}, 2));
  // A second SHUTDOWN joins the wait; CLIENT UNPAUSE does not end it.
  EXPECT_EQ(h.RunRaw({"SHUTDOWN"}, Protocol::kResp2, 3), "");
  h.Run({"CLIENT", "UNPAUSE"}, Protocol::kResp2, 1);
  EXPECT_TRUE(Postponed({"SET", "k", "v"}, 4));
  h.Advance(5000);
  h.Cron();
  EXPECT_EQ(requested, 0);
  repl.in_sync = true;
  h.Cron();
  EXPECT_EQ(requested, 1);
  EXPECT_EQ(out0, "");  // no reply: the connection closes as the server exits
}

TEST_F(ShutdownTest, ExitsAtTheDeadlineWithReplicasStillLagging) {
  h.config().force_set("shutdown-timeout", "2");
  EXPECT_EQ(h.RunRaw({"SHUTDOWN"}, Protocol::kResp2), "");
  h.Advance(1999);
  h.Cron();
  EXPECT_EQ(requested, 0);
  h.Advance(1);
  h.Cron();
  EXPECT_EQ(requested, 1);
}

TEST_F(ShutdownTest, AbortAnswersTheWaitingCallersAndResumesWrites) {
  EXPECT_EQ(h.RunRaw({"SHUTDOWN"}, Protocol::kResp2), "");
  EXPECT_TRUE(Postponed({"SET", "k", "v"}, 2));
  EXPECT_EQ(h.Run({"SHUTDOWN", "ABORT"}, Protocol::kResp2, 1), "+OK\r\n");
  h.dispatcher().after_batch();
  EXPECT_EQ(out0, "-ERR Errors trying to SHUTDOWN. Check logs.\r\n");
  EXPECT_EQ(h.session(0).blocked, nullptr);
  EXPECT_FALSE(h.server().client_pause().active());
  EXPECT_EQ(h.Run({"INFO", "server"}, Protocol::kResp2, 1).find("shutdown_in_milliseconds"),
            std::string::npos);
  EXPECT_EQ(h.Run({"SHUTDOWN", "ABORT"}, Protocol::kResp2, 1), "-ERR No shutdown in progress.\r\n");
  h.Advance(20000);
  h.Cron();
  EXPECT_EQ(requested, 0);
}

TEST_F(ShutdownTest, NowDoesNotWait) {
  EXPECT_EQ(h.RunRaw({"SHUTDOWN", "NOW"}, Protocol::kResp2), "");
  EXPECT_EQ(requested, 1);
  EXPECT_EQ(h.session(0).blocked, nullptr);
}

TEST_F(ShutdownTest, ATimeoutOfZeroDoesNotWait) {
  h.config().force_set("shutdown-timeout", "0");
  EXPECT_EQ(h.RunRaw({"SHUTDOWN"}, Protocol::kResp2), "");
  EXPECT_EQ(requested, 1);
  EXPECT_EQ(repl.acks_requested, 0);
}

}  // namespace
}  // namespace streamd::test
