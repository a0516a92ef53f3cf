// CommandTable::rename, as main applies rename-command lines: the command answers to its new
// name only (any case), an empty name removes it, subcommands and taken names are refused, and
// the rows keep their own names (COMMAND INFO shows "config" for a renamed CONFIG, as Redis).
// The table is the process-wide one: every test puts the names back (forget_renames).
#include <gtest/gtest.h>

#include <string>

#include "command_harness.h"
#include "streamd/commands/core/command_table.h"

namespace streamd::test {
namespace {

using cmd::CommandTable;
using Result = CommandTable::RenameResult;

class RenameCommandTest : public ::testing::Test {
 protected:
  void TearDown() override { table().forget_renames(); }
  static CommandTable& table() { return CommandTable::instance(); }

  CommandHarness h;
};

TEST_F(RenameCommandTest, TheNewNameRunsTheCommandAndTheOldOneIsUnknown) {
  ASSERT_EQ(table().rename("CONFIG", "GuessMe"), Result::kOk);
  EXPECT_EQ(h.Run2({"guessme", "GET", "hz"}), "*2\r\n$2\r\nhz\r\n$2\r\n10\r\n");
  // Errors name the row (arity) or what the client typed (subcommand), as redis-server 7.0.15.
  EXPECT_EQ(h.Run2({"guessme", "help", "x"}),
            "-ERR wrong number of arguments for 'config|help' command\r\n");
  EXPECT_EQ(h.Run2({"GUESSME", "bogus"}), "-ERR unknown subcommand 'bogus'. Try GUESSME HELP.\r\n");
  EXPECT_EQ(h.Run2({"guessme"}), "-ERR wrong number of arguments for 'config' command\r\n");
  EXPECT_EQ(h.Run2({"CONFIG", "GET", "hz"}),
            "-ERR unknown command 'CONFIG', with args beginning with: 'GET' 'hz' \r\n");
  // Sentinel's reconfiguration queues the renamed command in MULTI.
  EXPECT_EQ(h.Run2({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(h.Run2({"guessme", "REWRITE"}), "+QUEUED\r\n");
  EXPECT_EQ(h.Run2({"EXEC"}), "*1\r\n-ERR The server is running without a config file\r\n");
  // The row keeps its own name.
  ASSERT_NE(table().find("guessme"), nullptr);
  EXPECT_EQ(table().find("guessme")->full_name, "config");
  EXPECT_EQ(table().find_full_name("guessme|get")->full_name, "config|get");
}

TEST_F(RenameCommandTest, AnEmptyNameRemovesTheCommand) {
  ASSERT_EQ(table().rename("flushall", "streamd-test-flushall"), Result::kOk);
  ASSERT_EQ(table().rename("streamd-test-flushall", ""), Result::kOk);
  EXPECT_EQ(h.Run2({"FLUSHALL"}),
            "-ERR unknown command 'FLUSHALL', with args beginning with: \r\n");
  EXPECT_EQ(table().find("streamd-test-flushall"), nullptr);
  table().forget_renames();
  EXPECT_EQ(h.Run2({"FLUSHALL"}), "+OK\r\n");
}

TEST_F(RenameCommandTest, RefusedRenames) {
  EXPECT_EQ(table().rename("nosuch", "x"), Result::kNoSuchCommand);
  EXPECT_EQ(table().rename("config|get", "x"), Result::kNoSuchCommand);
  EXPECT_EQ(table().rename("", "x"), Result::kNoSuchCommand);
  ASSERT_EQ(table().rename("get", "streamd-test-get"), Result::kOk);
  EXPECT_EQ(table().rename("get", "x"), Result::kNoSuchCommand);  // the old name is gone
  // A taken name, in any case, is refused (and, as in Redis, startup stops there).
  EXPECT_EQ(table().rename("streamd-test-get", "SET"), Result::kTargetExists);
}

TEST_F(RenameCommandTest, NamesLongerThanAnyCommandWork) {
  const std::string name(40, 'p');
  ASSERT_EQ(table().rename("ping", name), Result::kOk);
  EXPECT_EQ(h.Run2({std::string(40, 'P')}), "+PONG\r\n");
  EXPECT_EQ(h.Run2({name + "x"}).substr(0, 21), "-ERR unknown command ");
}

}  // namespace
}  // namespace streamd::test
