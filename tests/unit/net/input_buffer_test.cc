#include "streamd/net/input_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "streamd/resp/request_parser.h"

namespace streamd::net {
namespace {

void append(InputBuffer& b, std::string_view s) {
  char* at = b.prepare(std::max<std::size_t>(s.size(), 1));
  std::memcpy(at, s.data(), s.size());
  b.commit(s.size());
}

TEST(InputBuffer, StartsEmptyAndGivesAReadChunk) {
  InputBuffer b;
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.capacity(), 0u);
  b.prepare(InputBuffer::kReadChunk);
  EXPECT_GE(b.free_space(), InputBuffer::kReadChunk);
  EXPECT_TRUE(b.empty());
}

TEST(InputBuffer, ConsumeKeepsStorageInPlace) {
  InputBuffer b;
  append(b, "hello world");
  const char* before = b.view().data();
  b.consume(6);
  EXPECT_EQ(b.view(), "world");
  EXPECT_EQ(b.view().data(), before + 6);  // views taken before consume() stay valid
  b.consume(5);
  EXPECT_TRUE(b.empty());
}

TEST(InputBuffer, PrepareMovesUnparsedBytesToTheFrontWhenThatIsEnough) {
  InputBuffer b;
  b.prepare(InputBuffer::kReadChunk);
  std::size_t cap = b.capacity();
  std::string filler(cap - 10, 'x');
  append(b, filler);
  append(b, "0123456789");
  ASSERT_EQ(b.capacity(), cap);
  b.consume(cap - 4);  // "6789" left
  b.prepare(100);
  EXPECT_EQ(b.capacity(), cap);  // compacted, not grown
  EXPECT_EQ(b.view(), "6789");
}

TEST(InputBuffer, GrowsForBigRequestsAndShrinksWhenEmptied) {
  InputBuffer b;
  std::string big(300 * 1024, 'b');
  append(b, "ab");
  append(b, big);
  EXPECT_EQ(b.size(), big.size() + 2);
  EXPECT_EQ(b.view().substr(0, 3), "abb");
  EXPECT_GT(b.capacity(), InputBuffer::kKeepCapacity);
  b.consume(b.size());
  b.prepare(InputBuffer::kReadChunk);
  EXPECT_LE(b.capacity(), InputBuffer::kKeepCapacity);
}

// The parser's saved progress survives compaction and growth of the buffer between reads.
TEST(InputBuffer, ParserProgressSurvivesBufferMoves) {
  std::string request;
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::string v(rng() % 50000, static_cast<char>('a' + i % 26));
    request += "*3\r\n$3\r\nSET\r\n$" + std::to_string(std::to_string(i).size()) + "\r\n" +
               std::to_string(i) + "\r\n$" + std::to_string(v.size()) + "\r\n" + v + "\r\n";
  }
  InputBuffer b;
  resp::RequestParser parser;
  std::vector<std::string_view> argv;
  std::size_t pos = 0;
  int commands = 0;
  while (pos < request.size() || !b.empty()) {
    std::size_t n = std::min<std::size_t>(request.size() - pos, 1 + rng() % 40000);
    if (n == 0) break;
    char* at = b.prepare(std::max(InputBuffer::kReadChunk, parser.bytes_wanted()));
    n = std::min(n, b.free_space());
    std::memcpy(at, request.data() + pos, n);
    b.commit(n);
    pos += n;
    while (true) {
      std::size_t used = 0;
      auto st = parser.parse(b.view(), used, argv);
      ASSERT_NE(st, resp::RequestParser::Status::kError) << parser.error();
      if (st == resp::RequestParser::Status::kNeedMore) break;
      ASSERT_EQ(argv.size(), 3u);
      EXPECT_EQ(argv[1], std::to_string(commands));
      ++commands;
      b.consume(used);
    }
  }
  EXPECT_EQ(commands, 200);
  EXPECT_TRUE(b.empty());
}

}  // namespace
}  // namespace streamd::net
