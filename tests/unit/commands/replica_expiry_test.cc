// Reads of expired keys on a replica (keyspace in ExpiryMode::kHide, as the replica side sets
// it): they answer as if the key did not exist while DBSIZE still counts it, and the cron's active
// expiry leaves it, until the master's DEL. Replies as a redis-server 7.0.15 replica of a paused
// master gives them (tests/integration/test_replication_expiry.py compares the two live).
#include <gtest/gtest.h>

#include <string>

#include "command_harness.h"

namespace streamd::test {
namespace {

class ReplicaExpiryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Run({"SET", "k", "v", "PX", "100"});
    Run({"XADD", "s", "1-1", "f", "v"});
    Run({"PEXPIRE", "s", "100"});
    Run({"SET", "p", "x"});
  }
  std::string Run(const std::vector<std::string>& argv) {
    return h.Run(argv, resp::Protocol::kResp2);
  }

  CommandHarness h;
};

TEST_F(ReplicaExpiryTest, HiddenUntilTheMastersDel) {
  h.server().keyspace().set_expiry_mode(engine::ExpiryMode::kHide);
  h.Advance(100);
  for (int i = 0; i < 5; ++i) h.Cron();
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"EXISTS", "k", "s"}), ":0\r\n");
  EXPECT_EQ(Run({"XLEN", "s"}), ":0\r\n");
  EXPECT_EQ(Run({"XRANGE", "s", "-", "+"}), "*0\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-2\r\n");
  EXPECT_EQ(Run({"TYPE", "s"}), "+none\r\n");
  EXPECT_EQ(Run({"KEYS", "*"}), "*1\r\n$1\r\np\r\n");
  EXPECT_EQ(Run({"SCAN", "0"}), "*2\r\n$1\r\n0\r\n*1\r\n$1\r\np\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":3\r\n");
  // DEL removes a hidden key and counts it (Redis's DEL on a replica: the master's, or a
  // client's on a writable replica).
  EXPECT_EQ(Run({"DEL", "k", "nosuch"}), ":1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":2\r\n");
  EXPECT_EQ(Run({"UNLINK", "s"}), ":1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  EXPECT_EQ(Run({"INFO", "stats"}).find("expired_keys:0\r\n") != std::string::npos, true);
}

TEST_F(ReplicaExpiryTest, AMasterDeletes) {
  h.Advance(100);
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":2\r\n");
  EXPECT_EQ(Run({"DEL", "s"}), ":0\r\n");  // expired first: absent
  EXPECT_EQ(Run({"SET", "s", "1", "PX", "100"}), "+OK\r\n");
  h.Advance(100);
  h.Cron();
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
}

}  // namespace
}  // namespace streamd::test
