// Lexical rules: config-line quoting, value quoting, numbers and memory sizes. Expectations were
// observed with redis-server 7.0.15 (config files read back through CONFIG GET).
#include "streamd/config/syntax.h"

#include <gtest/gtest.h>

#include <limits>

#include "streamd/text/split_args.h"

namespace streamd::config {
namespace {

using Args = std::vector<std::string>;

TEST(ConfigSyntax, QuoteRoundTrips) {
  EXPECT_EQ(quote("abc"), "\"abc\"");
  EXPECT_EQ(quote(""), "\"\"");
  EXPECT_EQ(quote("a\"b\\c\n\r\t\a\b"), "\"a\\\"b\\\\c\\n\\r\\t\\a\\b\"");
  EXPECT_EQ(quote(std::string("\x01\xff", 2)), "\"\\x01\\xff\"");
  for (std::string s : {std::string("plain"), std::string("with space"), std::string("q\"uo'te"),
                        std::string("\x00\x7f\x80 \\x41", 8), std::string()}) {
    auto back = text::split_args("name " + quote(s));
    ASSERT_TRUE(back.has_value()) << s;
    ASSERT_EQ(back->size(), 2u);
    EXPECT_EQ((*back)[1], s);
  }
}

TEST(ConfigSyntax, TrimLine) {
  EXPECT_EQ(trim_line("  port 1 \r\n"), "port 1");
  EXPECT_EQ(trim_line("\t\t"), "");
  EXPECT_EQ(trim_line("x"), "x");
}

TEST(ConfigSyntax, SplitSpacesLikeConfigSet) {
  EXPECT_EQ(split_spaces(""), Args{});
  EXPECT_EQ(split_spaces("900 1"), (Args{"900", "1"}));
  EXPECT_EQ(split_spaces("a  b"), (Args{"a", "", "b"}));
  EXPECT_EQ(split_spaces(" a"), (Args{"", "a"}));
  EXPECT_EQ(split_spaces("a "), (Args{"a", ""}));
}

TEST(ConfigSyntax, StrictIntegers) {
  EXPECT_EQ(parse_strict_int("0"), 0);
  EXPECT_EQ(parse_strict_int("6379"), 6379);
  EXPECT_EQ(parse_strict_int("-1"), -1);
  EXPECT_EQ(parse_strict_int("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parse_strict_int("-9223372036854775808"), std::numeric_limits<std::int64_t>::min());
  for (const char* bad :
       {"", "-", "+5", " 5", "5 ", "05", "-0", "007", "5.0", "1k", "0x5", "abc",
        "9223372036854775808", "-9223372036854775809", "99999999999999999999999"}) {
    EXPECT_FALSE(parse_strict_int(bad).has_value()) << bad;
  }
}

TEST(ConfigSyntax, MemorySizes) {
  EXPECT_EQ(parse_memory("1"), 1u);
  EXPECT_EQ(parse_memory("1b"), 1u);
  EXPECT_EQ(parse_memory("1B"), 1u);
  EXPECT_EQ(parse_memory("1k"), 1000u);
  EXPECT_EQ(parse_memory("1K"), 1000u);
  EXPECT_EQ(parse_memory("1kb"), 1024u);
  EXPECT_EQ(parse_memory("4k"), 4000u);
  EXPECT_EQ(parse_memory("1KB"), 1024u);
  EXPECT_EQ(parse_memory("1m"), 1000000u);
  EXPECT_EQ(parse_memory("512mb"), 512ull * 1024 * 1024);
  EXPECT_EQ(parse_memory("1g"), 1000000000u);
  EXPECT_EQ(parse_memory("1Gb"), 1024ull * 1024 * 1024);
  EXPECT_EQ(parse_memory("010"), 10u);
  // Redis quirks: no digits means 0.
  EXPECT_EQ(parse_memory(""), 0u);
  EXPECT_EQ(parse_memory("kb"), 0u);
  // Saturation instead of wrapping.
  const auto kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(parse_memory("18446744073709551615"), kMax);
  EXPECT_EQ(parse_memory("18446744073709551616"), kMax);
  EXPECT_EQ(parse_memory("20000000000gb"), kMax);
  for (const char* bad :
       {"1.5", "1.5mb", "0x10", " 1", "1 ", "+1", "-0", "-5", "1t", "1tb", "1kbb", "mb1"}) {
    EXPECT_FALSE(parse_memory(bad).has_value()) << bad;
  }
}

TEST(ConfigSyntax, FormatMemoryForRewrite) {
  EXPECT_EQ(format_memory(0), "0");
  EXPECT_EQ(format_memory(1000), "1000");
  EXPECT_EQ(format_memory(4096), "4kb");
  EXPECT_EQ(format_memory(200ull * 1024 * 1024), "200mb");
  EXPECT_EQ(format_memory(1024ull * 1024 * 1024), "1gb");
  EXPECT_EQ(format_memory(1536ull * 1024 * 1024), "1536mb");
  EXPECT_EQ(format_memory(1025), "1025");
}

TEST(ConfigSyntax, CaseHelpers) {
  EXPECT_EQ(ascii_lower("MaxMemory-POLICY"), "maxmemory-policy");
  EXPECT_TRUE(iequals("PORT", "port"));
  EXPECT_FALSE(iequals("port", "ports"));
}

}  // namespace
}  // namespace streamd::config
