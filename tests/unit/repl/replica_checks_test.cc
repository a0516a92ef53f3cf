// The replica side's config and the checks dispatch makes for it, in-process: replicaof as a
// config line, a flag and CONFIG GET (immutable, as in redis-server 7.0.15), READONLY and
// MASTERDOWN (texts and exemptions observed on a redis-server 7.0.15 replica), the master link's
// writes passing, ROLE's replica form and HELLO's role, REPLICAOF's argument errors.
#include <gtest/gtest.h>

#include <string>

#include "commands/command_harness.h"
#include "repl/fake_replication.h"
#include "streamd/commands/core/replication.h"
#include "streamd/config/config.h"

namespace streamd::repl {
namespace {

using test::Decode;

TEST(ReplicaConfig, ReplicaofLineFlagAndGet) {
  config::Config cfg;
  ASSERT_FALSE(cfg.load_text("replicaof 10.0.0.1 6380\n"));
  EXPECT_EQ(cfg.get("replicaof"), "10.0.0.1 6380");
  EXPECT_EQ(cfg.get("slaveof"), "10.0.0.1 6380");
  ASSERT_FALSE(cfg.load_text("slaveof no one\n"));
  EXPECT_EQ(cfg.get("replicaof"), "");
  config::Config flags;
  std::vector<std::string_view> args = {"--replicaof", "127.0.0.1", "7000"};
  ASSERT_FALSE(flags.load(config::parse_command_line(args)));
  EXPECT_EQ(flags.ref<std::vector<std::string>>("replicaof"),
            (std::vector<std::string>{"127.0.0.1", "7000"}));
  // CONFIG SET refuses it; REPLICAOF changes it through force_set.
  EXPECT_TRUE(flags.set("replicaof", "1.2.3.4 5"));
  EXPECT_FALSE(flags.force_set("replicaof", ""));
  EXPECT_EQ(flags.get("replicaof"), "");
  EXPECT_EQ(flags.get("replica-read-only"), "yes");
  EXPECT_EQ(flags.get("slave-serve-stale-data"), "yes");
  EXPECT_EQ(flags.get("replica-priority"), "100");
  EXPECT_TRUE(cfg.load_text("replicaof onlyhost\n"));
}

class ReplicaDispatch : public ::testing::Test {
 protected:
  static constexpr int kMaster = 1;
  ReplicaDispatch() {
    h_.config().set("appendonly", "no");
    fake_.replica = true;
    h_.server().set_replication(&fake_);
    h_.session(kMaster).master = true;
  }
  ~ReplicaDispatch() override { h_.server().set_replication(nullptr); }
  test::CommandHarness h_;
  test::FakeReplication fake_;  // a replica (set in the constructor)
};

TEST_F(ReplicaDispatch, WritesAreReadOnlyExceptFromTheMaster) {
  const std::string ro = "-READONLY You can't write against a read only replica.\r\n";
  EXPECT_EQ(h_.Run2({"SET", "k", "v"}), ro);
  EXPECT_EQ(h_.Run2({"XADD", "s", "*", "f", "v"}), ro);
  EXPECT_EQ(h_.Run2({"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"}), ro);
  EXPECT_EQ(h_.Run2({"GET", "k"}), "$-1\r\n");
  // The master link writes (its replies are discarded by the link, not here).
  EXPECT_EQ(h_.Run2({"SET", "k", "v"}, kMaster), "+OK\r\n");
  EXPECT_EQ(h_.Run2({"GET", "k"}), "$1\r\nv\r\n");
  // Inside MULTI the write is refused when queued, and EXEC aborts.
  EXPECT_EQ(h_.Run2({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(h_.Run2({"SET", "k", "w"}), ro);
  EXPECT_EQ(h_.Run2({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.\r\n");
  fake_.read_only = false;
  EXPECT_EQ(h_.Run2({"SET", "k", "w"}), "+OK\r\n");
}

// EXEC counts as what its queued lines run, subcommands included: the XGROUP container row has
// no write flag, XGROUP CREATE has.
TEST_F(ReplicaDispatch, ExecFoldsInTheQueuedSubcommandsFlags) {
  auto exec_after_queueing = [&](const std::vector<std::string>& line) {
    fake_.read_only = false;
    EXPECT_EQ(h_.Run2({"MULTI"}), "+OK\r\n");
    EXPECT_EQ(h_.Run2(line), "+QUEUED\r\n");
    fake_.read_only = true;  // the link went read-only meanwhile
    return h_.Run2({"EXEC"});
  };
  const std::string refused = exec_after_queueing({"SET", "k", "v"});
  EXPECT_EQ(refused.substr(0, 10), "-EXECABORT");
  EXPECT_EQ(exec_after_queueing({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}), refused);
  EXPECT_EQ(h_.Run2({"EXISTS", "s"}), ":0\r\n");
  fake_.read_only = false;
}

TEST_F(ReplicaDispatch, StaleLinkAnswersMasterDown) {
  fake_.stale = true;
  const std::string down =
      "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.\r\n";
  EXPECT_EQ(h_.Run2({"PING"}), down);
  EXPECT_EQ(h_.Run2({"GET", "k"}), down);
  EXPECT_EQ(h_.Run2({"DBSIZE"}), down);
  EXPECT_EQ(h_.Run2({"ECHO", "x"}), "$1\r\nx\r\n");
  EXPECT_EQ(h_.Run2({"SELECT", "0"}), "+OK\r\n");
  EXPECT_EQ(h_.Run2({"CONFIG", "GET", "port"}).substr(0, 14), "*2\r\n$4\r\nport\r\n");
  EXPECT_EQ(h_.Run2({"REPLICAOF", "NO", "ONE"}), "+OK\r\n");
  EXPECT_EQ(fake_.last, ":0");
}

TEST_F(ReplicaDispatch, RoleHelloAndReplicaofArguments) {
  EXPECT_EQ(h_.Run2({"ROLE"}),
            "*5\r\n$5\r\nslave\r\n$8\r\n10.0.0.1\r\n:6380\r\n$9\r\nconnected\r\n:1234\r\n");
  EXPECT_NE(h_.Run({"HELLO", "3"}).find("$4\r\nrole\r\n$7\r\nreplica\r\n"), std::string::npos);
  EXPECT_EQ(h_.Run2({"REPLICAOF", "h", "70000"}), "-ERR Invalid master port\r\n");
  EXPECT_EQ(h_.Run2({"SLAVEOF", "h", "-1"}), "-ERR Invalid master port\r\n");
  EXPECT_EQ(h_.Run2({"REPLICAOF", "h", "x"}), "-ERR Invalid master port\r\n");
  EXPECT_EQ(h_.Run2({"REPLICAOF", "h", "6379"}), "+OK\r\n");
  EXPECT_EQ(fake_.last, "h:6379");
  EXPECT_EQ(h_.Run2({"REPLICAOF", "h"}),
            "-ERR wrong number of arguments for 'replicaof' command\r\n");
}

}  // namespace
}  // namespace streamd::repl
