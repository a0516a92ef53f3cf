// BlockingRegistry::disconnect_all (a master becoming a replica): every blocked client, readers
// and WAIT included, gets Redis's UNBLOCKED error once and is closed after it; nothing it waited
// for runs afterwards (tests/integration/test_replication_demotion.py checks it live against
// redis-server 7.0.15).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "command_harness.h"
#include "streamd/commands/core/blocking.h"
#include "streamd/commands/core/error_text.h"

namespace streamd::test {
namespace {

TEST(BlockingDisconnect, EveryBlockedClientGetsTheErrorAndCloses) {
  CommandHarness h;
  EXPECT_EQ(h.Run2({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}), "+OK\r\n");
  const std::vector<std::vector<std::string>> blocking = {
      {"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"},
      {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"},
      {"XREADGROUP", "GROUP", "g", "bob", "BLOCK", "60000", "STREAMS", "s", ">"},
  };
  std::vector<std::string> outs(blocking.size());
  std::vector<int> resumed(blocking.size(), 0);
  for (std::size_t i = 0; i < blocking.size(); ++i) {
    cmd::Session& s = h.session(static_cast<int>(i) + 1);
    s.out = &outs[i];
    s.resume = [&resumed, i] { ++resumed[i]; };
    EXPECT_EQ(h.RunRaw(blocking[i], resp::Protocol::kResp2, static_cast<int>(i) + 1), "");
    ASSERT_NE(s.blocked, nullptr);
  }
  EXPECT_EQ(h.server().blocking().blocked_clients(), 3u);

  EXPECT_EQ(h.server().blocking().disconnect_all(cmd::errors::kUnblockedStateChanged), 3u);
  for (std::size_t i = 0; i < blocking.size(); ++i) {
    SCOPED_TRACE(blocking[i][0]);
    cmd::Session& s = h.session(static_cast<int>(i) + 1);
    EXPECT_EQ(outs[i],
              "-UNBLOCKED force unblock from blocking operation, instance state changed (master "
              "-> replica?)\r\n");
    EXPECT_TRUE(s.close_after_reply);
    EXPECT_EQ(s.blocked, nullptr);
    EXPECT_EQ(resumed[i], 1);
  }
  EXPECT_EQ(h.server().blocking().blocked_clients(), 0u);
  EXPECT_EQ(h.server().blocking().keys_with_waiters(), 0u);
  // Data arriving afterwards wakes nobody: no consumer, nothing pending.
  EXPECT_EQ(h.Run2({"XADD", "s", "1-1", "f", "v"}), "$3\r\n1-1\r\n");
  h.dispatcher().after_batch();
  EXPECT_EQ(outs[0].find("1-1"), std::string::npos);
  EXPECT_EQ(h.Run2({"XPENDING", "s", "g"}), "*4\r\n:0\r\n$-1\r\n$-1\r\n*-1\r\n");
  EXPECT_EQ(h.server().blocking().disconnect_all(cmd::errors::kUnblockedStateChanged), 0u);
}

}  // namespace
}  // namespace streamd::test
