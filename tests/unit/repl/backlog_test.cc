#include "streamd/repl/backlog.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace streamd::repl {
namespace {

// What copy_from(from) must give: the model keeps the whole stream.
std::string tail_of(const std::string& stream, int64_t first_offset, int64_t from) {
  return stream.substr(static_cast<std::size_t>(from - first_offset));
}

TEST(Backlog, EmptyBacklogStartsAtTheNextOffset) {
  Backlog b(16, 101);
  EXPECT_EQ(b.first_byte_offset(), 101);
  EXPECT_EQ(b.next_offset(), 101);
  EXPECT_EQ(b.histlen(), 0);
  EXPECT_TRUE(b.holds_from(101));
  EXPECT_FALSE(b.holds_from(100));
  EXPECT_FALSE(b.holds_from(102));
  std::string out;
  b.copy_from(101, out);
  EXPECT_EQ(out, "");
}

TEST(Backlog, KeepsTheNewestBytesAcrossWraps) {
  Backlog b(10, 1);
  b.append("abcdef");
  EXPECT_EQ(b.histlen(), 6);
  EXPECT_EQ(b.first_byte_offset(), 1);
  b.append("ghijkl");  // fills and wraps: holds "cdefghijkl"
  EXPECT_EQ(b.histlen(), 10);
  EXPECT_EQ(b.first_byte_offset(), 3);
  EXPECT_EQ(b.next_offset(), 13);
  std::string out;
  b.copy_from(3, out);
  EXPECT_EQ(out, "cdefghijkl");
  out.clear();
  b.copy_from(11, out);
  EXPECT_EQ(out, "kl");
  EXPECT_FALSE(b.holds_from(2));
  // One append larger than the whole backlog keeps only its own tail.
  b.append("0123456789ABCDEFGH");
  out.clear();
  b.copy_from(b.first_byte_offset(), out);
  EXPECT_EQ(out, "89ABCDEFGH");
  EXPECT_EQ(b.next_offset(), 31);
}

TEST(Backlog, MatchesAModelUnderRandomAppendsAndResizes) {
  std::mt19937 rng(42);
  Backlog b(64, 1);
  std::string stream;  // every byte fed, offset 1 first
  for (int round = 0; round < 2000; ++round) {
    if (rng() % 50 == 0) {
      b.resize(1 + rng() % 200);
    } else {
      std::string chunk(rng() % 90, 'x');
      for (char& c : chunk) c = static_cast<char>('a' + rng() % 26);
      b.append(chunk);
      stream += chunk;
    }
    ASSERT_EQ(b.next_offset(), static_cast<int64_t>(stream.size()) + 1);
    ASSERT_LE(b.histlen(), static_cast<int64_t>(b.capacity()));
    ASSERT_LE(b.histlen(), static_cast<int64_t>(stream.size()));
    int64_t from = b.first_byte_offset() + (b.histlen() ? rng() % (b.histlen() + 1) : 0);
    std::string out;
    b.copy_from(from, out);
    ASSERT_EQ(out, tail_of(stream, 1, from)) << "round " << round;
  }
}

TEST(Backlog, ResizeKeepsTheNewestBytesThatFit) {
  Backlog b(8, 1);
  b.append("abcdefgh");
  b.resize(3);
  EXPECT_EQ(b.histlen(), 3);
  EXPECT_EQ(b.first_byte_offset(), 6);
  std::string out;
  b.copy_from(6, out);
  EXPECT_EQ(out, "fgh");
  b.resize(5);  // growing keeps what is there and fills up from it
  b.append("ij");
  out.clear();
  b.copy_from(b.first_byte_offset(), out);
  EXPECT_EQ(out, "fghij");
}

}  // namespace
}  // namespace streamd::repl
