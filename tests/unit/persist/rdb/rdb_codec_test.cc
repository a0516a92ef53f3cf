// The RDB primitives: CRC64, LZF, lengths and strings, listpacks; exact bytes where Redis's
// format fixes them, round trips and malformed inputs elsewhere.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "streamd/persist/rdb/crc64.h"
#include "streamd/persist/rdb/encoding.h"
#include "streamd/persist/rdb/listpack.h"
#include "streamd/persist/rdb/lzf.h"

namespace streamd::persist::rdb {
namespace {

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

TEST(RdbCrc64, RedisCheckValue) {
  EXPECT_EQ(crc64(0, "123456789"), 0xe9c6d914c4b8d9caULL);
  EXPECT_EQ(crc64(0, ""), 0u);
  // Chunked = whole (the slicing loop and the byte loop agree).
  std::string s(1000, 'x');
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>(i * 7);
  EXPECT_EQ(crc64(crc64(0, s.substr(0, 333)), s.substr(333)), crc64(0, s));
}

TEST(RdbCrc64, FoldingPathAgreesWithTheTables) {
  // Every length around the 64-byte threshold and the 16-byte blocks, every alignment of the
  // start, initial values zero and random, and a few long inputs.
  std::mt19937_64 rng(11);
  std::string buf(1 << 20, '\0');
  for (char& c : buf) c = static_cast<char>(rng());
  for (std::size_t len = 0; len < 300; ++len) {
    for (std::size_t off = 0; off < 16; ++off) {
      uint64_t init = (len + off) % 3 == 0 ? 0 : rng();
      std::string_view v(buf.data() + off, len);
      ASSERT_EQ(crc64(init, v), crc64_tables(init, v)) << "len " << len << " off " << off;
    }
  }
  for (std::size_t len : {4096u, 65537u, 1000003u}) {
    std::string_view v(buf.data() + 3, len);
    EXPECT_EQ(crc64(0, v), crc64_tables(0, v)) << len;
  }
}

TEST(RdbLzf, RoundTripsAndRefusesMalformedInput) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::size_t n = rng() % 5000 + 21;
    std::string s(n, 'a');
    int alphabet = 1 + static_cast<int>(rng() % 20);
    for (auto& c : s) c = static_cast<char>('a' + rng() % alphabet);
    auto c = lzf_compress(s, n + n / 16 + 64);
    ASSERT_TRUE(c);
    std::string back;
    ASSERT_TRUE(lzf_decompress(*c, n, back));
    EXPECT_EQ(back, s);
    EXPECT_FALSE(lzf_decompress(*c, n + 1, back));  // wrong announced length
    if (n > 1) {
      EXPECT_FALSE(lzf_decompress(*c, n - 1, back));
    }
  }
  std::string out;
  EXPECT_FALSE(lzf_decompress(bytes({0x20, 0x00}), 3, out));  // a reference before the start
  EXPECT_FALSE(lzf_decompress(bytes({0x05, 'a'}), 6, out));   // literal run past the input
  EXPECT_FALSE(lzf_compress(std::string(100, 'q'), 2));       // does not fit
  auto rep = lzf_compress(std::string(1000, 'q'), 996);
  ASSERT_TRUE(rep);
  EXPECT_LT(rep->size(), 20u);
}

// Back references shorter than 8 bytes overlap the bytes they produce (copied byte by byte),
// longer ones are copied 8 bytes at a time, literal runs in 32-byte blocks: periods 1..40 and
// lengths around those block sizes, also with a truncated announced length.
TEST(RdbLzf, PeriodicInputsRoundTripAcrossCopyPaths) {
  for (std::size_t period = 1; period <= 40; ++period) {
    for (std::size_t n : {21u, 31u, 32u, 33u, 63u, 64u, 65u, 263u, 264u, 265u, 1000u, 9000u}) {
      std::string s(n, '\0');
      for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('A' + (i % period) * 7 % 53);
      auto c = lzf_compress(s, n + n / 16 + 64);
      ASSERT_TRUE(c);
      std::string back;
      ASSERT_TRUE(lzf_decompress(*c, n, back));
      ASSERT_EQ(back, s) << "period " << period << " n " << n;
      EXPECT_FALSE(lzf_decompress(*c, n - 1, back));
      EXPECT_TRUE(back.empty());
    }
  }
}

TEST(RdbEncoding, LengthsUseEachWidth) {
  struct Case {
    uint64_t v;
    std::string enc;
  } cases[] = {
      {0, bytes({0x00})},
      {63, bytes({0x3f})},
      {64, bytes({0x40, 0x40})},
      {16383, bytes({0x7f, 0xff})},
      {16384, bytes({0x80, 0x00, 0x00, 0x40, 0x00})},
      {UINT32_MAX, bytes({0x80, 0xff, 0xff, 0xff, 0xff})},
      {uint64_t{1} << 32, bytes({0x81, 0, 0, 0, 1, 0, 0, 0, 0})},
  };
  for (const auto& c : cases) {
    std::string out;
    Writer(out).len(c.v);
    EXPECT_EQ(out, c.enc) << c.v;
    Reader r(out);
    EXPECT_EQ(r.len(), c.v);
    EXPECT_TRUE(r.ok() && r.at_end());
  }
  // The Reader views its input: the bytes must outlive it (a temporary here was a
  // stack-use-after-scope under ASan).
  const std::string truncated = bytes({0x80, 0x01});
  Reader bad(truncated);
  bad.len();
  EXPECT_FALSE(bad.ok());
}

TEST(RdbEncoding, StringsUseRedisEncodings) {
  auto enc = [](std::string_view s, bool compress = false) {
    std::string out;
    Writer(out, compress).string(s);
    return out;
  };
  EXPECT_EQ(enc("12"), bytes({0xC0, 12}));
  EXPECT_EQ(enc("-128"), bytes({0xC0, 0x80}));
  EXPECT_EQ(enc("1000"), bytes({0xC1, 0xe8, 0x03}));
  EXPECT_EQ(enc("100000"), bytes({0xC2, 0xa0, 0x86, 0x01, 0x00}));
  EXPECT_EQ(enc("2147483648"), bytes({0x0a}) + "2147483648");  // beyond int32: plain
  EXPECT_EQ(enc("012"), bytes({0x03}) + "012");                // not canonical
  EXPECT_EQ(enc("-0"), bytes({0x02}) + "-0");
  EXPECT_EQ(enc("abc"), bytes({0x03}) + "abc");
  std::string longs(100, 'z');
  EXPECT_EQ(enc(longs, true)[0], static_cast<char>(0xC3));
  EXPECT_EQ(enc(longs, false), bytes({0x40, 100}) + longs);
  for (std::string s : {std::string("12"), std::string("-128"), std::string("100000"), longs,
                        std::string("x"), std::string()}) {
    std::string e = enc(s, true), scratch;
    Reader r(e);
    EXPECT_EQ(r.string(scratch), s);
    EXPECT_TRUE(r.ok() && r.at_end());
    Reader skip(e);
    skip.skip_string();
    EXPECT_TRUE(skip.ok() && skip.at_end());
  }
  // An LZF string whose announced length is far beyond what its bytes can hold.
  std::string lie = bytes({0xC3, 0x02, 0x80, 0x40, 0x00, 0x00, 0x00, 0x00, 'a'});
  std::string scratch;
  Reader r(lie);
  r.string(scratch);
  EXPECT_FALSE(r.ok());
  // A plain length beyond the input.
  const std::string short_plain = bytes({0x05, 'a'});
  Reader r2(short_plain);
  r2.string(scratch);
  EXPECT_FALSE(r2.ok());
}

TEST(RdbEncoding, CountsAreBoundedByTheInput) {
  std::string in;
  Writer(in).len(1000000);
  in += "abc";
  Reader r(in);
  r.count(1);
  EXPECT_FALSE(r.ok());
}

TEST(RdbListpack, RoundTripsEveryEncoding) {
  ListpackWriter w;
  std::vector<int64_t> ints = {0,          127,     128,       -1,        4095,      -4096,
                               4096,       -4097,   32767,     -32768,    32768,     (1 << 23) - 1,
                               -(1 << 23), 1 << 23, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
  for (int64_t v : ints) w.add_int(v);
  std::vector<std::string> strs = {"",
                                   "a",
                                   std::string(63, 'b'),
                                   std::string(64, 'c'),
                                   std::string(4095, 'd'),
                                   std::string(4096, 'e'),
                                   "007",
                                   "-0"};
  for (const auto& s : strs) w.add_string(s);
  w.add_string("42");  // canonical: stored as an integer
  std::string lp = w.finish();
  std::vector<LpElement> els;
  ASSERT_TRUE(read_listpack(lp, els));
  ASSERT_EQ(els.size(), ints.size() + strs.size() + 1);
  for (std::size_t i = 0; i < ints.size(); ++i) {
    EXPECT_TRUE(els[i].is_int);
    EXPECT_EQ(els[i].i, ints[i]);
  }
  for (std::size_t i = 0; i < strs.size(); ++i) {
    EXPECT_FALSE(els[ints.size() + i].is_int);
    EXPECT_EQ(els[ints.size() + i].s, strs[i]);
  }
  EXPECT_TRUE(els.back().is_int);
  EXPECT_EQ(els.back().i, 42);
}

TEST(RdbListpack, RedisBytesForASmallList) {
  ListpackWriter w;
  w.add_int(1);
  w.add_string("ab");
  // 6-byte header (13 bytes, 2 elements), 0x01 + backlen 1, 0x82 'a' 'b' + backlen 3, 0xFF.
  EXPECT_EQ(w.finish(), bytes({13, 0, 0, 0, 2, 0, 0x01, 0x01, 0x82, 'a', 'b', 0x03, 0xFF}));
}

TEST(RdbListpack, EveryCorruptionIsRefusedOrStillConsistent) {
  ListpackWriter w;
  for (int i = 0; i < 30; ++i) {
    w.add_int(i * 1000);
    w.add_string(std::string(static_cast<std::size_t>(i * 5), 'x'));
  }
  std::string lp = w.finish();
  std::vector<LpElement> els;
  for (std::size_t cut = 0; cut < lp.size(); ++cut) {
    EXPECT_FALSE(read_listpack(lp.substr(0, cut), els)) << cut;
  }
  std::mt19937 rng(3);
  for (int i = 0; i < 3000; ++i) {
    std::string c = lp;
    c[rng() % c.size()] = static_cast<char>(rng());
    read_listpack(c, els);  // must not crash or read out of bounds (ASan)
  }
  std::string wrong_count = lp;
  wrong_count[4] = 5;
  EXPECT_FALSE(read_listpack(wrong_count, els));
}

}  // namespace
}  // namespace streamd::persist::rdb
