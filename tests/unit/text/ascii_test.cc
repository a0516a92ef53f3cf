#include "streamd/text/ascii.h"

#include <gtest/gtest.h>

namespace streamd::text {
namespace {

// Compile-time: the helpers are constexpr, so tables of keywords can use them.
static_assert(iequals("XREADGROUP", "xreadgroup"));
static_assert(hex_digit_value('f') == 15 && hex_digit_value('F') == 15);

TEST(Ascii, IequalsFoldsOnlyAsciiLetters) {
  EXPECT_TRUE(iequals("MaxLen", "MAXLEN"));
  EXPECT_TRUE(iequals("", ""));
  EXPECT_FALSE(iequals("maxlen", "maxle"));
  EXPECT_FALSE(iequals("a", "b"));
  // As strcasecmp in the C locale: '@' and '`' sit next to 'A' and 'a' but are not letters, and
  // bytes above 127 are compared as they are.
  EXPECT_FALSE(iequals("@", "`"));
  EXPECT_FALSE(iequals("[", "{"));
  EXPECT_FALSE(iequals("\xc9", "\xe9"));
  EXPECT_TRUE(iequals("\xc9x", "\xc9X"));
}

TEST(Ascii, HexDigits) {
  const char* digits = "0123456789abcdefABCDEF";
  const int values[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                        11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15};
  for (int i = 0; digits[i]; ++i) {
    EXPECT_EQ(hex_digit_value(digits[i]), values[i]) << digits[i];
    EXPECT_TRUE(is_hex_digit(digits[i]));
  }
  for (char c : {'g', 'G', '/', ':', '@', '`', ' ', '\0', '\xff'}) {
    EXPECT_EQ(hex_digit_value(c), -1) << static_cast<int>(c);
    EXPECT_FALSE(is_hex_digit(c));
  }
}

}  // namespace
}  // namespace streamd::text
