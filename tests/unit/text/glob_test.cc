// Glob matching. Expected results were checked against redis-server 7.0.15 (KEYS over a keyspace
// holding every subject used here).
#include "streamd/text/glob.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace streamd::text {
namespace {

bool m(std::string_view pattern, std::string_view subject) {
  return glob_match(pattern, subject);
}

TEST(Glob, Literals) {
  EXPECT_TRUE(m("hello", "hello"));
  EXPECT_FALSE(m("hello", "hell"));
  EXPECT_FALSE(m("hello", "helloo"));
  EXPECT_FALSE(m("hello", "Hello"));
  EXPECT_TRUE(m("", ""));
  EXPECT_FALSE(m("", "a"));
}

TEST(Glob, Star) {
  EXPECT_TRUE(m("*", "anything"));
  EXPECT_TRUE(m("h*llo", "hllo"));
  EXPECT_TRUE(m("h*llo", "heeeello"));
  EXPECT_FALSE(m("h*llo", "hello!"));
  EXPECT_TRUE(m("*a", "ba"));
  EXPECT_TRUE(m("a*", "a"));
  EXPECT_TRUE(m("a**b", "ab"));
  EXPECT_TRUE(m("*a*", "bab"));
  EXPECT_FALSE(m("*a*", "bbb"));
  EXPECT_TRUE(m("*ab", "aab"));  // needs backtracking
  EXPECT_TRUE(m("*abc*abd", "abcabcabd"));
  EXPECT_FALSE(m("a*b*c", "acb"));
}

TEST(Glob, EmptySubjectOnlyMatchesEmptyPattern) {
  // Redis's matcher never matches "" with a non-empty pattern, not even "*".
  EXPECT_FALSE(m("*", ""));
  EXPECT_FALSE(m("**", ""));
  EXPECT_FALSE(m("?", ""));
  EXPECT_TRUE(m("", ""));
  // ...but KEYS and SCAN treat the pattern "*" as "everything".
  EXPECT_TRUE(GlobMatcher("*").matches(""));
  EXPECT_FALSE(GlobMatcher("**").matches(""));
}

TEST(Glob, QuestionMark) {
  EXPECT_TRUE(m("h?llo", "hello"));
  EXPECT_TRUE(m("h?llo", "hallo"));
  EXPECT_FALSE(m("h?llo", "hllo"));
  EXPECT_TRUE(m("?*?", "ab"));
  EXPECT_FALSE(m("?*?", "a"));
}

TEST(Glob, Classes) {
  EXPECT_TRUE(m("h[ae]llo", "hello"));
  EXPECT_TRUE(m("h[ae]llo", "hallo"));
  EXPECT_FALSE(m("h[ae]llo", "hillo"));
  EXPECT_TRUE(m("h[^e]llo", "hallo"));
  EXPECT_FALSE(m("h[^e]llo", "hello"));
  EXPECT_TRUE(m("h[a-b]llo", "hbllo"));
  EXPECT_FALSE(m("h[a-b]llo", "hcllo"));
  // '!' is not a negation in Redis, just a member.
  EXPECT_TRUE(m("[!a]", "!"));
  EXPECT_TRUE(m("[!a]", "a"));
  EXPECT_FALSE(m("[!a]", "b"));
}

TEST(Glob, ReversedRangeIsSwapped) {
  EXPECT_TRUE(m("[c-a]", "b"));
  EXPECT_TRUE(m("[c-a]", "a"));
  EXPECT_FALSE(m("[c-a]", "d"));
}

TEST(Glob, OddClasses) {
  EXPECT_FALSE(m("[]", "]"));  // an empty set matches nothing...
  EXPECT_FALSE(m("[]", "a"));
  EXPECT_TRUE(m("[^]", "x"));    // ...and its negation anything
  EXPECT_FALSE(m("[]a]", "]"));  // "[]" matches nothing, so neither does "[]a]"
  EXPECT_FALSE(m("[]a]", "a]"));
  // "[a-]" is the range from 'a' down to ']' (swapped): ] ^ _ ` a.
  EXPECT_TRUE(m("[a-]", "]"));
  EXPECT_TRUE(m("[a-]", "_"));
  EXPECT_TRUE(m("[a-]", "a"));
  EXPECT_FALSE(m("[a-]", "-"));
  EXPECT_FALSE(m("[a-]", "b"));
  EXPECT_TRUE(m("[-a]", "-"));
  EXPECT_TRUE(m("[^-]", "a"));
  EXPECT_FALSE(m("[^-]", "-"));
  EXPECT_TRUE(m("[*]", "*"));
  EXPECT_FALSE(m("[*]", "a"));
  EXPECT_TRUE(m("[?]", "?"));
  EXPECT_TRUE(m("[[]", "["));
}

TEST(Glob, UnterminatedClassRunsToTheEnd) {
  EXPECT_TRUE(m("[ab", "a"));
  EXPECT_TRUE(m("[ab", "b"));
  EXPECT_FALSE(m("[ab", "ab"));
  EXPECT_FALSE(m("[", "a"));
  EXPECT_TRUE(m("[^", "a"));
  EXPECT_TRUE(m("a[", "a") == false);
  EXPECT_TRUE(m("[a-", "a"));
  EXPECT_TRUE(m("[a-", "-"));
}

TEST(Glob, Escapes) {
  EXPECT_TRUE(m("\\*", "*"));
  EXPECT_FALSE(m("\\*", "a"));
  EXPECT_TRUE(m("\\a", "a"));
  EXPECT_TRUE(m("\\?", "?"));
  EXPECT_FALSE(m("\\?", "x"));
  EXPECT_TRUE(m("\\[a]", "[a]"));
  EXPECT_TRUE(m("\\", "\\"));  // a trailing backslash is itself
  EXPECT_TRUE(m("a\\", "a\\"));
  EXPECT_TRUE(m("[\\]]", "]"));  // escaped inside a class
  EXPECT_TRUE(m("[a\\-c]", "-"));
  EXPECT_FALSE(m("[a\\-c]", "b"));
  EXPECT_TRUE(m("[\\", "\\"));
}

TEST(Glob, Nocase) {
  EXPECT_TRUE(glob_match("HELLO", "hello", true));
  EXPECT_TRUE(glob_match("h*O", "HellO", true));
  EXPECT_TRUE(glob_match("[A-C]x", "bX", true));
  EXPECT_TRUE(glob_match("[a-c]", "B", true));
  EXPECT_FALSE(glob_match("[a-c]", "B", false));
  EXPECT_TRUE(glob_match("[^a]", "B", true));
  EXPECT_FALSE(glob_match("[^a]", "A", true));
  EXPECT_TRUE(glob_match("\\A", "a", true));
}

TEST(Glob, BinarySafe) {
  const std::string subject("a\0b", 3);
  EXPECT_TRUE(glob_match("a?b", subject));
  EXPECT_TRUE(glob_match(std::string("a\0*", 3), subject));
  EXPECT_FALSE(glob_match("a", subject));
  EXPECT_TRUE(glob_match("[\xff]", "\xff"));
}

TEST(Glob, HasGlobChars) {
  EXPECT_FALSE(has_glob_chars("port"));
  EXPECT_FALSE(has_glob_chars(""));
  EXPECT_TRUE(has_glob_chars("p*"));
  EXPECT_TRUE(has_glob_chars("p?rt"));
  EXPECT_TRUE(has_glob_chars("[p]ort"));
  EXPECT_TRUE(has_glob_chars("po\\rt"));
}

TEST(Glob, MatcherShapesAgreeWithGlobMatch) {
  const char* patterns[] = {"*",    "**",   "",        "abc",   "abc*", "abc**", "*abc",
                            "**bc", "a*c",  "a?c",     "[ab]*", "*[c]", "\\*",   "a\\*",
                            "ABC",  "*ABC", "ab[c-d]", "*b*",   "?"};
  const char* subjects[] = {"", "a", "abc", "abcd", "xabc", "ABC", "*", "a*", "ab", "abd", "c"};
  for (bool nocase : {false, true}) {
    for (const char* p : patterns) {
      GlobMatcher g(p, nocase);
      for (const char* s : subjects) {
        if (std::string_view(p) == "*") continue;  // the one intended difference
        EXPECT_EQ(g.matches(s), glob_match(p, s, nocase))
            << "pattern '" << p << "' subject '" << s << "' nocase " << nocase;
      }
    }
  }
  EXPECT_TRUE(GlobMatcher("*").matches_everything());
  EXPECT_FALSE(GlobMatcher("a*").matches_everything());
  EXPECT_TRUE(GlobMatcher("ABC*", true).matches("abcdef"));
  EXPECT_TRUE(GlobMatcher("*DEF", true).matches("abcdef"));
  EXPECT_TRUE(GlobMatcher("AbC", true).matches("aBc"));
}

TEST(Glob, NoExponentialBlowUp) {
  // A classic worst case for recursive matchers: many stars and a subject that almost matches.
  const std::string subject(20000, 'a');
  std::string pattern;
  for (int i = 0; i < 30; ++i) pattern += "*a";
  pattern += "*b";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(glob_match(pattern, subject));
  EXPECT_TRUE(glob_match(pattern.substr(0, pattern.size() - 1) + "a", subject));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(2));
}

}  // namespace
}  // namespace streamd::text
