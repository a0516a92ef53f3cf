#include "streamd/engine/stream_id.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace streamd::engine {
namespace {

TEST(StreamId, CompareAndFormat) {
  EXPECT_LT((StreamId{1, 5}), (StreamId{2, 0}));
  EXPECT_LT((StreamId{1, 5}), (StreamId{1, 6}));
  EXPECT_EQ((StreamId{3, 4}), (StreamId{3, 4}));
  EXPECT_EQ(StreamId::min().to_string(), "0-0");
  EXPECT_EQ(StreamId::max().to_string(), "18446744073709551615-18446744073709551615");
  char buf[StreamId::kMaxTextSize];
  std::size_t n = StreamId{1700000000000, 12}.format(buf);
  EXPECT_EQ(std::string(buf, n), "1700000000000-12");
  EXPECT_TRUE(StreamId{}.is_zero());
  EXPECT_TRUE(StreamId::max().is_max());
}

// format() keeps the last milliseconds' digits: repeated, alternating and edge values must all
// come out as std::to_string gives them.
TEST(StreamId, FormatAgreesWithToStringInAnyOrder) {
  std::mt19937_64 rng(7);
  const uint64_t edges[] = {0, 1, 9, 10, 99, 100, 1700000000000, UINT64_MAX - 1, UINT64_MAX};
  std::vector<StreamId> ids;
  for (uint64_t ms : edges) {
    for (uint64_t seq : edges) ids.push_back({ms, seq});
  }
  for (int i = 0; i < 2000; ++i)
    ids.push_back(
        {rng() % 4 == 0 ? 0 : rng() >> (rng() % 64), rng() % 3 == 0 ? rng() : rng() % 20});
  for (int pass = 0; pass < 2; ++pass) {
    for (const StreamId& id : ids) {
      char buf[StreamId::kMaxTextSize];
      std::size_t n = id.format(buf);
      ASSERT_EQ(std::string(buf, n), std::to_string(id.ms) + "-" + std::to_string(id.seq));
    }
    std::shuffle(ids.begin(), ids.end(), rng);
  }
}

TEST(StreamId, EncodingIsBigEndianAndKeepsOrder) {
  auto a = StreamId{0x0102030405060708, 0x1112131415161718}.encode();
  const uint8_t want[16] = {1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18};
  EXPECT_EQ(std::memcmp(a.data(), want, 16), 0);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100000; ++i) {
    StreamId x{rng() % 4 == 0 ? rng() : rng() % 3, rng() % 2 ? rng() : rng() % 3};
    StreamId y{rng() % 4 == 0 ? rng() : rng() % 3, rng() % 2 ? rng() : rng() % 3};
    auto ex = x.encode(), ey = y.encode();
    ASSERT_EQ(StreamId::decode(ex.data()), x);
    int c = std::memcmp(ex.data(), ey.data(), 16);
    ASSERT_EQ(c < 0, x < y);
    ASSERT_EQ(c == 0, x == y);
  }
}

TEST(StreamId, NextAndPrevDetectOverflow) {
  EXPECT_EQ(*(StreamId{1, 2}.next()), (StreamId{1, 3}));
  EXPECT_EQ(*(StreamId{1, UINT64_MAX}.next()), (StreamId{2, 0}));
  EXPECT_FALSE(StreamId::max().next());
  EXPECT_EQ(*(StreamId{1, 2}.prev()), (StreamId{1, 1}));
  EXPECT_EQ(*(StreamId{2, 0}.prev()), (StreamId{1, UINT64_MAX}));
  EXPECT_FALSE(StreamId::min().prev());
}

// Expected results below were checked against redis-server 7.0.15 (XRANGE key <arg> +).
struct StartCase {
  std::string arg;
  bool ok;
  StreamId id;
};

TEST(StreamId, ParseRangeStartLikeRedis) {
  const std::string sp126(126, ' ');
  const StartCase cases[] = {
      {"-", true, {0, 0}},
      {"+", true, {UINT64_MAX, UINT64_MAX}},
      {"5", true, {5, 0}},
      {"5-3", true, {5, 3}},
      {"1-", false, {}},
      {"-1", false, {}},
      {"-0", false, {}},
      {"1-2-3", false, {}},
      {" 1", true, {1, 0}},
      {"\t1", true, {1, 0}},
      {"\n1", true, {1, 0}},
      {"1 ", false, {}},
      {"18446744073709551615", true, {UINT64_MAX, 0}},
      {"18446744073709551616", false, {}},
      {"1-18446744073709551615", true, {1, UINT64_MAX}},
      {"1-18446744073709551616", false, {}},
      {"+1", true, {1, 0}},
      {"+0", true, {0, 0}},
      {"01", true, {1, 0}},
      {"00", true, {0, 0}},
      {"0x1", false, {}},
      {"1.0", false, {}},
      {"1e3", false, {}},
      {"+ 1", false, {}},
      {"++1", false, {}},
      {"1-+1", true, {1, 1}},
      {"1--1", false, {}},     // a canonical negative number is refused...
      {"1--0", true, {1, 0}},  // ...but strtoull takes "-0"
      {"1--01", true, {1, UINT64_MAX}},
      {"1- -1", true, {1, UINT64_MAX}},
      {"1--9223372036854775809", true, {1, 9223372036854775807ull}},
      {"1-\t1", true, {1, 1}},
      {"1 -1", false, {}},
      {"1-1 ", false, {}},
      {" -5", false, {}},
      {"", false, {}},
      {"(", false, {}},
      {"*", false, {}},
      {"1-*", false, {}},
      {"-*", false, {}},
      {std::string("1\0"
                   "2",
                   3),
       true,
       {1, 0}},  // cut at the NUL byte
      {std::string("1-\0", 3), false, {}},
      {sp126 + "1", true, {1, 0}},  // 127 bytes
      {sp126 + " 1", false, {}},    // 128 bytes
      {"(5-3", true, {5, 4}},
      {"(5", true, {5, 1}},
      {"(0", true, {0, 1}},
      {"( 1", true, {1, 1}},
      {"(18446744073709551615", true, {UINT64_MAX, 1}},
      {"(+", false, {}},
      {"(-", false, {}},
      {"((1", false, {}},
      {"(" + sp126 + "1", true, {1, 1}},  // the limit applies after the parenthesis
      {"(" + sp126 + " 1", false, {}},
  };
  for (const StartCase& c : cases) {
    Result<StreamId> r = parse_range_start(c.arg);
    ASSERT_EQ(r.ok(), c.ok) << "arg [" << c.arg << "]";
    if (c.ok) {
      EXPECT_EQ(*r, c.id) << "arg [" << c.arg << "]";
    } else {
      EXPECT_EQ(r.err(), Err::kInvalidStreamId) << "arg [" << c.arg << "]";
    }
  }
}

TEST(StreamId, ParseRangeEnd) {
  EXPECT_EQ(*parse_range_end("5"), (StreamId{5, UINT64_MAX}));
  EXPECT_EQ(*parse_range_end("+"), StreamId::max());
  EXPECT_EQ(*parse_range_end("-"), StreamId::min());
  EXPECT_EQ(*parse_range_end("(5-3"), (StreamId{5, 2}));
  EXPECT_EQ(*parse_range_end("(5"), (StreamId{5, UINT64_MAX - 1}));
  EXPECT_EQ(*parse_range_end("(1-0"), (StreamId{0, UINT64_MAX}));
  EXPECT_EQ(parse_range_end("(0-0").err(), Err::kInvalidEndId);
  EXPECT_EQ(parse_range_end("(-").err(), Err::kInvalidStreamId);
  EXPECT_EQ(parse_range_start("(18446744073709551615-18446744073709551615").err(),
            Err::kInvalidStartId);
  EXPECT_EQ(*parse_range_start("(18446744073709551615-18446744073709551614"), StreamId::max());
  // Without exclusive support "(" is just an invalid character.
  EXPECT_EQ(parse_range_start("(5", false).err(), Err::kInvalidStreamId);
  EXPECT_EQ(parse_range_end("(5", false).err(), Err::kInvalidStreamId);
}

TEST(StreamId, StrictAndGenericParse) {
  EXPECT_EQ(parse_strict_id("-").err(), Err::kInvalidStreamId);
  EXPECT_EQ(parse_strict_id("+").err(), Err::kInvalidStreamId);
  EXPECT_EQ(parse_strict_id("(1").err(), Err::kInvalidStreamId);
  EXPECT_EQ(parse_strict_id("1-*").err(), Err::kInvalidStreamId);
  EXPECT_EQ(*parse_strict_id("7"), (StreamId{7, 0}));
  EXPECT_EQ(*parse_strict_id("7", UINT64_MAX), (StreamId{7, UINT64_MAX}));

  IdParseOptions opts;
  opts.allow_exclusive = true;
  Result<ParsedId> p = parse_stream_id("(3-4", opts);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->exclusive);
  EXPECT_EQ(p->id, (StreamId{3, 4}));
  opts.allow_seq_auto = true;
  p = parse_stream_id("3-*", opts);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->seq_auto);
  EXPECT_EQ(p->id.ms, 3u);
}

TEST(StreamId, ParseXaddId) {
  EXPECT_EQ(parse_xadd_id("*")->kind, IdSpec::Kind::kAuto);
  EXPECT_EQ(parse_xadd_id(std::string("*\0x", 3))->kind, IdSpec::Kind::kAuto);
  Result<IdSpec> s = parse_xadd_id("5-*");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, IdSpec::Kind::kSeqAuto);
  EXPECT_EQ(s->id.ms, 5u);
  s = parse_xadd_id("6");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, IdSpec::Kind::kExplicit);
  EXPECT_EQ(s->id, (StreamId{6, 0}));
  EXPECT_EQ(parse_xadd_id("0-0")->id, StreamId::min());  // refused later, by next_stream_id
  for (const char* bad : {"-", "+", "*-1", "-*", "**", "1-**", "(1", "1-2-3", "x"}) {
    EXPECT_EQ(parse_xadd_id(bad).err(), Err::kInvalidStreamId) << bad;
  }
}

TEST(StreamId, NextStreamIdLikeRedis) {
  using K = IdSpec;
  // Auto: max(now, last.ms); same ms continues the sequence (also when the clock went back).
  EXPECT_EQ(*next_stream_id(K::automatic(), {0, 0}, 100), (StreamId{100, 0}));
  EXPECT_EQ(*next_stream_id(K::automatic(), {100, 5}, 100), (StreamId{100, 6}));
  EXPECT_EQ(*next_stream_id(K::automatic(), {100, 5}, 50), (StreamId{100, 6}));
  EXPECT_EQ(*next_stream_id(K::automatic(), {7, UINT64_MAX}, 5), (StreamId{8, 0}));
  EXPECT_EQ(*next_stream_id(K::automatic(), {UINT64_MAX, 5}, 1), (StreamId{UINT64_MAX, 6}));
  EXPECT_EQ(*next_stream_id(K::automatic(), {0, 0}, 0), (StreamId{0, 1}));
  EXPECT_EQ(next_stream_id(K::automatic(), StreamId::max(), 1).err(), Err::kIdExhausted);
  // ms-*.
  EXPECT_EQ(*next_stream_id(K::seq_auto(6), {6, 0}, 0), (StreamId{6, 1}));
  EXPECT_EQ(*next_stream_id(K::seq_auto(7), {6, 0}, 0), (StreamId{7, 0}));
  EXPECT_EQ(*next_stream_id(K::seq_auto(0), {0, 0}, 0), (StreamId{0, 1}));
  EXPECT_EQ(next_stream_id(K::seq_auto(5), {6, 0}, 0).err(), Err::kIdTooSmall);
  // Redis 7.2+ (7.0.15 answered "Elements are too large to be stored").
  EXPECT_EQ(next_stream_id(K::seq_auto(7), {7, UINT64_MAX}, 0).err(), Err::kIdTooSmall);
  EXPECT_EQ(*next_stream_id(K::seq_auto(UINT64_MAX), {UINT64_MAX, UINT64_MAX - 1}, 0),
            StreamId::max());
  EXPECT_EQ(next_stream_id(K::seq_auto(UINT64_MAX), StreamId::max(), 0).err(), Err::kIdExhausted);
  // Explicit: 0-0 is checked first, then exhaustion, then order.
  EXPECT_EQ(next_stream_id(K::explicit_id({0, 0}), {0, 0}, 0).err(), Err::kIdZero);
  EXPECT_EQ(next_stream_id(K::explicit_id({0, 0}), StreamId::max(), 0).err(), Err::kIdZero);
  EXPECT_EQ(next_stream_id(K::explicit_id({1, 1}), StreamId::max(), 0).err(), Err::kIdExhausted);
  EXPECT_EQ(next_stream_id(K::explicit_id({6, 0}), {6, 0}, 0).err(), Err::kIdTooSmall);
  EXPECT_EQ(next_stream_id(K::explicit_id({5, 9}), {6, 0}, 0).err(), Err::kIdTooSmall);
  EXPECT_EQ(*next_stream_id(K::explicit_id({6, 1}), {6, 0}, 0), (StreamId{6, 1}));
  EXPECT_EQ(*next_stream_id(K::explicit_id({0, 1}), {0, 0}, 0), (StreamId{0, 1}));
}

}  // namespace
}  // namespace streamd::engine
