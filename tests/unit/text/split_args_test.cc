// text::split_args: Redis's sdssplitargs rules, shared by inline commands, configuration lines
// and the AOF manifest. The config-line expectations were observed with redis-server 7.0.15
// (config files read back through CONFIG GET); the inline ones through redis-server's inline
// protocol (tests/unit/resp/request_parser_test.cc has more).
#include "streamd/text/split_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace streamd::text {
namespace {

using Args = std::vector<std::string>;

Args split(std::string_view line) {
  auto r = split_args(line);
  EXPECT_TRUE(r.has_value()) << "unbalanced: " << line;
  return r.value_or(Args{});
}

TEST(SplitArgs, SplitsOnWhitespace) {
  EXPECT_EQ(split("save 900 1 300 10"), (Args{"save", "900", "1", "300", "10"}));
  EXPECT_EQ(split("  \t bind\t a   b  "), (Args{"bind", "a", "b"}));
  EXPECT_EQ(split(""), Args{});
  EXPECT_EQ(split("   "), Args{});
  // '#' after arguments is not a comment: it is an argument.
  EXPECT_EQ(split("port 1 # c"), (Args{"port", "1", "#", "c"}));
}

TEST(SplitArgs, DoubleQuotes) {
  EXPECT_EQ(split("x \"a b\""), (Args{"x", "a b"}));
  EXPECT_EQ(split("x \"\""), (Args{"x", ""}));
  EXPECT_EQ(split("x \"a\\x41\\n\""), (Args{"x", "aA\n"}));
  EXPECT_EQ(split("x \"\\x41\\x4a\""), (Args{"x", "AJ"}));
  EXPECT_EQ(split("x \"\\xZZ\""), (Args{"x", "xZZ"}));  // not two hex digits: \x is x
  EXPECT_EQ(split("x \"a\\x4\""), (Args{"x", "ax4"}));
  EXPECT_EQ(split("x \"\\q\""), (Args{"x", "q"}));
  EXPECT_EQ(split("x \"a\\\\b\""), (Args{"x", "a\\b"}));
  EXPECT_EQ(split("x \"a\\\"b\""), (Args{"x", "a\"b"}));
  EXPECT_EQ(split("x \"\\r\\t\\b\\a\""), (Args{"x", "\r\t\b\a"}));
  EXPECT_EQ(split("x \"#\""), (Args{"x", "#"}));
}

TEST(SplitArgs, SingleQuotes) {
  EXPECT_EQ(split("x 'it\\'s'"), (Args{"x", "it's"}));
  EXPECT_EQ(split("x 'a\\nb'"), (Args{"x", "a\\nb"}));  // no other escapes
  EXPECT_EQ(split("x ''"), (Args{"x", ""}));
  EXPECT_EQ(split("x 'a \"b\"'"), (Args{"x", "a \"b\""}));
}

TEST(SplitArgs, QuoteInsideABareWord) {
  EXPECT_EQ(split("x a\"b\""), (Args{"x", "ab"}));
  EXPECT_EQ(split("x a\"b c\" d"), (Args{"x", "ab c", "d"}));
}

TEST(SplitArgs, UnbalancedQuotes) {
  EXPECT_FALSE(split_args("port \"abc").has_value());
  EXPECT_FALSE(split_args("x 'abc").has_value());
  EXPECT_FALSE(split_args("x \"ab\"c").has_value());  // closing quote must end the word
  EXPECT_FALSE(split_args("x 'ab'c").has_value());
  EXPECT_FALSE(split_args("x \"a\"\"b\"").has_value());
  EXPECT_FALSE(split_args("x \"abc\\").has_value());
}

TEST(SplitArgs, VerticalTabAndFormFeedSeparateButDoNotEnd) {
  // Skipped between arguments (isspace), kept inside an unquoted one, as sdssplitargs does.
  EXPECT_EQ(split("a\v\f b"), (Args{"a\v\f", "b"}));
  EXPECT_EQ(split("\v\fa"), (Args{"a"}));
  EXPECT_EQ(split("\"a\"\vb"), (Args{"a", "b"}));  // whitespace after a closing quote
}

TEST(SplitArgs, ViewsIntoTheLineOrTheStorage) {
  std::string line = "plain \"quo ted\" x'y' tail";
  std::string storage = "left over";
  std::vector<std::string_view> args{"kept"};
  ASSERT_TRUE(split_args(line, storage, args));
  ASSERT_EQ(args.size(), 5u);  // appended after what was there
  EXPECT_EQ(args[0], "kept");
  EXPECT_EQ(args[1], "plain");
  EXPECT_EQ(args[2], "quo ted");
  EXPECT_EQ(args[3], "xy");
  EXPECT_EQ(args[4], "tail");
  // Unquoted arguments point into the line; quoted ones into the storage, which still holds
  // both (the reserve up front kept the first view valid while the second was appended).
  EXPECT_EQ(args[1].data(), line.data());
  EXPECT_EQ(args[4].data(), line.data() + line.size() - 4);
  EXPECT_EQ(storage, "quo tedxy");
  EXPECT_EQ(args[2].data(), storage.data());
  std::vector<std::string_view> bad;
  EXPECT_FALSE(split_args("ok \"open", storage, bad));
}

TEST(SplitArgs, NulIsAnOrdinaryByte) {
  EXPECT_EQ(split(std::string("a\0b \"\0\"", 7)),
            (Args{std::string("a\0b", 3), std::string("\0", 1)}));
}

}  // namespace
}  // namespace streamd::text
