// rename-command lines (Sentinel's `sentinel rename-command` is for instances set up with them):
// kept in order with their line for the startup error, not directives (CONFIG GET does not
// know them, CONFIG REWRITE keeps their lines), and any argument count but two is refused as
// redis-server 7.0.15 refuses it.
#include <gtest/gtest.h>

#include "streamd/config/config.h"

namespace streamd::config {
namespace {

TEST(RenameCommand, KeptInOrderWithTheirLines) {
  Config cfg;
  ASSERT_FALSE(cfg.load_text("port 7000\nrename-command CONFIG guessme\n"
                             "RENAME-COMMAND flushall \"\"\n")
                   .has_value());
  ASSERT_EQ(cfg.renames().size(), 2u);
  EXPECT_EQ(cfg.renames()[0].from, "CONFIG");
  EXPECT_EQ(cfg.renames()[0].to, "guessme");
  EXPECT_EQ(cfg.renames()[1].from, "flushall");
  EXPECT_EQ(cfg.renames()[1].to, "");
  EXPECT_EQ(rename_error(cfg.renames()[0], RenameError::kNoSuchCommand).fatal_text("streamd x"),
            "\n*** FATAL CONFIG FILE ERROR (streamd x) ***\n"
            "Reading the configuration file, at line 2\n"
            ">>> 'rename-command CONFIG guessme'\n"
            "No such command in rename-command");
  EXPECT_EQ(rename_error(cfg.renames()[1], RenameError::kTargetExists).message,
            "Target command name already exists");
}

TEST(RenameCommand, FlagsAreLinesToo) {
  Config cfg;
  const char* argv[] = {"streamd", "--rename-command", "get", "mget2", "--port", "7001"};
  ASSERT_FALSE(cfg.load(parse_command_line(6, argv)).has_value());
  ASSERT_EQ(cfg.renames().size(), 1u);
  EXPECT_EQ(cfg.renames()[0].to, "mget2");
  EXPECT_EQ(cfg.renames()[0].at.line_text, "rename-command \"get\" \"mget2\"");
}

TEST(RenameCommand, WrongArgumentCountIsABadDirective) {
  for (const char* text : {"rename-command get", "rename-command", "rename-command a b c"}) {
    Config cfg;
    auto err = cfg.load_text(text);
    ASSERT_TRUE(err.has_value()) << text;
    EXPECT_EQ(err->message, "Bad directive or wrong number of arguments") << text;
  }
}

TEST(RenameCommand, AFailedLoadKeepsTheEarlierRenames) {
  Config cfg;
  ASSERT_FALSE(cfg.load_text("rename-command get g2\n").has_value());
  ASSERT_TRUE(cfg.load_text("rename-command set s2\nport nope\n").has_value());
  ASSERT_EQ(cfg.renames().size(), 1u);
  EXPECT_EQ(cfg.renames()[0].from, "get");
}

TEST(RenameCommand, NotADirective) {
  Config cfg;
  ASSERT_FALSE(cfg.load_text("rename-command get g2\n").has_value());
  std::vector<std::string_view> pattern = {"rename-command"};
  EXPECT_TRUE(cfg.get_matching(pattern).empty());
  const std::string text = "rename-command get g2\nport 6379\n";
  EXPECT_EQ(cfg.rewrite_text(text), text);
}

}  // namespace
}  // namespace streamd::config
