#include "streamd/repl/backlog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

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

// What a reader at `pos` is sent, span by span, as a replica's connection takes it.
std::string read_all(const Backlog& b, int64_t pos) {
  std::string out;
  while (pos < b.next_offset()) {
    std::string_view s = b.span_from(pos);
    EXPECT_FALSE(s.empty());
    if (s.empty()) break;
    out.append(s);
    pos += static_cast<int64_t>(s.size());
  }
  return out;
}

TEST(Backlog, SpansEndAtBlockBoundaries) {
  Backlog b(100, 1, 4);
  b.append("abcdefghij");  // blocks "abcd" "efgh" "ij"
  EXPECT_EQ(b.span_from(1), "abcd");
  EXPECT_EQ(b.span_from(3), "cd");
  EXPECT_EQ(b.span_from(5), "efgh");
  EXPECT_EQ(b.span_from(10), "j");
  EXPECT_EQ(b.span_from(11), "");
  b.append("kl");  // fills the last block exactly: the next offset starts no block yet
  EXPECT_EQ(b.span_from(9), "ijkl");
  EXPECT_EQ(b.span_from(13), "");
  EXPECT_EQ(b.allocated(), 12u);
}

TEST(Backlog, AReaderKeepsItsBytesPastTheCapacity) {
  Backlog b(8, 1, 4);
  b.keep_readers_from(1);  // a replica that has been sent nothing yet
  std::string fed;
  for (int i = 0; i < 25; ++i) {
    std::string chunk = "<" + std::to_string(i) + ">";
    b.append(chunk);
    fed += chunk;
  }
  // The backlog proper is the newest 8 bytes, but the reader still has every byte.
  EXPECT_EQ(b.histlen(), 8);
  EXPECT_FALSE(b.holds_from(1));
  EXPECT_TRUE(b.retains(1));
  EXPECT_EQ(read_all(b, 1), fed);
  // Once it has been sent everything, only the backlog (and the block it starts in) is kept.
  b.keep_readers_from(b.next_offset());
  EXPECT_FALSE(b.retains(1));
  EXPECT_LE(b.allocated(), 8u + 4u);
  std::string out;
  b.copy_from(b.first_byte_offset(), out);
  EXPECT_EQ(out, fed.substr(fed.size() - 8));
  // No reader at all: the same.
  b.keep_readers_from(-1);
  b.append("0123456789");
  EXPECT_LE(b.allocated(), 8u + 4u);
  EXPECT_EQ(read_all(b, b.first_byte_offset()), "23456789");
}

TEST(Backlog, FreedBlocksAreReusedThenReleasedByTheCron) {
  Backlog b(16, 1, 4);  // the capacity is 4 blocks
  b.keep_readers_from(1);
  b.append(std::string(400, 'x'));  // a lagging reader pins 100 blocks
  EXPECT_EQ(b.allocated(), 400u);
  b.keep_readers_from(b.next_offset());  // it caught up: all but the backlog's are spare
  EXPECT_LE(b.allocated(), 20u);
  std::size_t spare = b.spare_blocks();
  EXPECT_GE(spare, 95u);
  // The spares are still the stream's memory (maxmemory leaves it out past the backlog's size).
  EXPECT_EQ(b.footprint(), b.allocated() + spare * 4);
  b.release_spares(0);             // the period starts
  b.append(std::string(40, 'y'));  // new blocks come from the spares (the old ones return)
  std::size_t after = b.spare_blocks();
  EXPECT_LT(after, spare);
  b.release_spares(9999);  // too early: nothing is freed
  EXPECT_EQ(b.spare_blocks(), after);
  // What stayed unused in the 10 s goes; the blocks that came back in the period stay (a burst
  // that may recur), and at least the floor (the capacity in blocks, or 4).
  std::size_t returned = after - (spare - 10);
  b.release_spares(10000);
  EXPECT_EQ(b.spare_blocks(), std::max<std::size_t>(4, returned));
  b.release_spares(20000);  // nothing was taken in this period: down to the floor
  EXPECT_EQ(b.spare_blocks(), 4u);
  EXPECT_EQ(read_all(b, b.first_byte_offset()), std::string(16, 'y'));
}

TEST(Backlog, ReadersAndBacklogMatchAModelWithSmallBlocks) {
  std::mt19937 rng(7);
  Backlog b(40, 1, 7);
  std::string stream;
  std::vector<int64_t> readers = {1, 1};
  b.keep_readers_from(1);
  for (int round = 0; round < 3000; ++round) {
    unsigned what = rng() % 10;
    if (what == 0) {
      b.resize(1 + rng() % 100);
    } else if (what < 4) {
      // A reader writes part of what it has left (a socket that takes some of it).
      int64_t& r = readers[rng() % readers.size()];
      std::string_view s = b.span_from(r);
      std::size_t n = s.empty() ? 0 : 1 + rng() % s.size();
      ASSERT_EQ(std::string(s.substr(0, n)), stream.substr(static_cast<std::size_t>(r - 1), n));
      r += static_cast<int64_t>(n);
      b.keep_readers_from(std::min(readers[0], readers[1]));
    } else {
      std::string chunk(rng() % 30, 'x');
      for (char& c : chunk) c = static_cast<char>('a' + rng() % 26);
      b.append(chunk);
      stream += chunk;
    }
    int64_t oldest = std::min(readers[0], readers[1]);
    ASSERT_TRUE(b.retains(oldest)) << "round " << round;
    ASSERT_EQ(read_all(b, oldest), stream.substr(static_cast<std::size_t>(oldest - 1)));
    int64_t from = b.first_byte_offset() + (b.histlen() ? rng() % (b.histlen() + 1) : 0);
    std::string out;
    b.copy_from(from, out);
    ASSERT_EQ(out, tail_of(stream, 1, from)) << "round " << round;
    // Memory: what the backlog and the oldest reader need, and the blocks they start in.
    int64_t need = b.next_offset() - std::min(oldest, b.first_byte_offset());
    ASSERT_LE(b.allocated(), static_cast<std::size_t>(need) + 2 * 7) << "round " << round;
  }
}

}  // namespace
}  // namespace streamd::repl
