// Exact reply bytes in RESP2 and RESP3. Reference bytes come from redis-server 7.0.15: DEBUG
// PROTOCOL <type> after HELLO 2 / HELLO 3 for each reply type, and ZSCORE (a double reply) for the
// double formats.
#include "streamd/resp/reply_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace streamd::resp {
namespace {

constexpr Protocol kBoth[] = {Protocol::kResp2, Protocol::kResp3};

// Runs `write` against a fresh writer for `proto` and returns the bytes.
template <typename F>
std::string render(Protocol proto, F&& write) {
  std::string out;
  ReplyWriter w(out, proto);
  write(w);
  return out;
}

template <typename F>
void expect_bytes(F&& write, const std::string& resp2, const std::string& resp3) {
  EXPECT_EQ(render(Protocol::kResp2, write), resp2);
  EXPECT_EQ(render(Protocol::kResp3, write), resp3);
}

TEST(ReplyWriterTest, SimpleAndOk) {
  for (Protocol p : kBoth) {
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.simple("PONG"); }), "+PONG\r\n");
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.ok(); }), "+OK\r\n");
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.simple(""); }), "+\r\n");
  }
}

TEST(ReplyWriterTest, ErrorKeepsItsCodeAndCountsIt) {
  for (Protocol p : kBoth) {
    std::string out;
    ReplyWriter w(out, p);
    EXPECT_EQ(w.errors_written(), 0u);
    w.error("ERR Protocol error: invalid bulk length");
    EXPECT_EQ(out, "-ERR Protocol error: invalid bulk length\r\n");
    EXPECT_EQ(w.errors_written(), 1u);
    EXPECT_EQ(w.last_error_code(), "ERR");
    w.error("NOGROUP No such key 's' or consumer group 'g'");
    EXPECT_EQ(w.errors_written(), 2u);
    EXPECT_EQ(w.last_error_code(), "NOGROUP");
    EXPECT_EQ(out,
              "-ERR Protocol error: invalid bulk length\r\n"
              "-NOGROUP No such key 's' or consumer group 'g'\r\n");
  }
}

// Redis: "*1\r\n$3\r\na\nb\r\n" -> "-ERR unknown command 'a b', ...": CR/LF become spaces.
TEST(ReplyWriterTest, ErrorReplacesLineBreaksWithSpaces) {
  expect_bytes([](ReplyWriter& w) { w.error("ERR unknown command 'a\nb\r'"); },
               "-ERR unknown command 'a b '\r\n", "-ERR unknown command 'a b '\r\n");
  // Bytes before the message are left alone.
  std::string out = "\r\n";
  ReplyWriter w(out, Protocol::kResp2);
  w.error("ERR x\ny");
  EXPECT_EQ(out, "\r\n-ERR x y\r\n");
}

// DEBUG PROTOCOL integer -> ":12345".
TEST(ReplyWriterTest, Integer) {
  for (Protocol p : kBoth) {
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.integer(12345); }), ":12345\r\n");
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.integer(0); }), ":0\r\n");
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.integer(-1); }), ":-1\r\n");
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.integer(std::numeric_limits<long long>::min()); }),
              ":-9223372036854775808\r\n");
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.integer(std::numeric_limits<long long>::max()); }),
              ":9223372036854775807\r\n");
  }
}

// DEBUG PROTOCOL string -> "$11\r\nHello World\r\n".
TEST(ReplyWriterTest, Bulk) {
  for (Protocol p : kBoth) {
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.bulk("Hello World"); }), "$11\r\nHello World\r\n");
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.bulk(""); }), "$0\r\n\r\n");
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.bulk(std::string("a\0\r\nb", 5)); }),
              std::string("$5\r\na\0\r\nb\r\n", 11));
  }
}

TEST(ReplyWriterTest, BulkInteger) {
  for (Protocol p : kBoth) {
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.bulk_integer(42); }), "$2\r\n42\r\n");
    EXPECT_EQ(render(p, [](ReplyWriter& w) { w.bulk_integer(-7); }), "$2\r\n-7\r\n");
    EXPECT_EQ(
        render(p, [](ReplyWriter& w) { w.bulk_integer(std::numeric_limits<long long>::min()); }),
        "$20\r\n-9223372036854775808\r\n");
  }
}

// DEBUG PROTOCOL null -> "$-1" (RESP2) / "_" (RESP3).
TEST(ReplyWriterTest, Null) {
  expect_bytes([](ReplyWriter& w) { w.null(); }, "$-1\r\n", "_\r\n");
}

TEST(ReplyWriterTest, NullArray) {
  expect_bytes([](ReplyWriter& w) { w.null_array(); }, "*-1\r\n", "_\r\n");
}

// DEBUG PROTOCOL true / false -> ":1" / ":0" (RESP2), "#t" / "#f" (RESP3).
TEST(ReplyWriterTest, Boolean) {
  expect_bytes([](ReplyWriter& w) { w.boolean(true); }, ":1\r\n", "#t\r\n");
  expect_bytes([](ReplyWriter& w) { w.boolean(false); }, ":0\r\n", "#f\r\n");
}

// DEBUG PROTOCOL double -> "$5\r\n3.141" (RESP2) / ",3.141" (RESP3).
TEST(ReplyWriterTest, DoubleFromDebugProtocol) {
  expect_bytes([](ReplyWriter& w) { w.dbl(3.141); }, "$5\r\n3.141\r\n", ",3.141\r\n");
}

// ZADD z <v> m; ZSCORE z m on redis-server 7.0.15 (the skiplist encoding for -0, which the
// listpack encoding would normalise to 0).
TEST(ReplyWriterTest, DoubleFormatsLikeRedis70) {
  struct Case {
    double value;
    const char* text;
  };
  const Case cases[] = {
      {0.1, "0.10000000000000001"},
      {1.5, "1.5"},
      {100, "100"},
      {3, "3"},
      {-1.5, "-1.5"},
      {-0.0, "-0"},
      {0.0, "0"},
      {1e300, "1.0000000000000001e+300"},
      {1e-5, "1.0000000000000001e-05"},
      {1e21, "1e+21"},
      {1e20, "1e+20"},
      {1e17, "1e+17"},
      {1e16, "10000000000000000"},
      {123456789012345678.0, "1.2345678901234568e+17"},
      {0.30000000000000004, "0.30000000000000004"},
      {1e-300, "1e-300"},
      {2.5e-7, "2.4999999999999999e-07"},
      {12345.678, "12345.678"},
      {5e-324, "4.9406564584124654e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {0.000123, "0.00012300000000000001"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(ReplyWriter::format_double(c.value), c.text);
    std::string text = c.text;
    expect_bytes([&](ReplyWriter& w) { w.dbl(c.value); },
                 "$" + std::to_string(text.size()) + "\r\n" + text + "\r\n", "," + text + "\r\n");
  }
}

TEST(ReplyWriterTest, DoubleNan) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ReplyWriter::format_double(nan), "nan");
  expect_bytes([&](ReplyWriter& w) { w.dbl(nan); }, "$3\r\nnan\r\n", ",nan\r\n");
}

// DEBUG PROTOCOL verbatim -> "$25\r\nThis is a verbatim\nstring" / "=29\r\ntxt:This is...".
TEST(ReplyWriterTest, Verbatim) {
  expect_bytes([](ReplyWriter& w) { w.verbatim("This is a verbatim\nstring"); },
               "$25\r\nThis is a verbatim\nstring\r\n",
               "=29\r\ntxt:This is a verbatim\nstring\r\n");
  expect_bytes([](ReplyWriter& w) { w.verbatim("# x", "mkd"); }, "$3\r\n# x\r\n",
               "=7\r\nmkd:# x\r\n");
  expect_bytes([](ReplyWriter& w) { w.verbatim(""); }, "$0\r\n\r\n", "=4\r\ntxt:\r\n");
}

// A malformed format must not break the frame: the length always covers 3 + 1 + text bytes.
TEST(ReplyWriterTest, VerbatimFormatIsAlwaysThreeBytes) {
  EXPECT_EQ(render(Protocol::kResp3, [](ReplyWriter& w) { w.verbatim("ab", "markdown"); }),
            "=6\r\nmar:ab\r\n");
  EXPECT_EQ(render(Protocol::kResp3, [](ReplyWriter& w) { w.verbatim("ab", "md"); }),
            "=6\r\nmd :ab\r\n");
  EXPECT_EQ(render(Protocol::kResp3, [](ReplyWriter& w) { w.verbatim("ab", ""); }),
            "=6\r\n   :ab\r\n");
}

// DEBUG PROTOCOL bignum -> "$37\r\n1234567999999999999999999999999999999" / "(1234567...".
TEST(ReplyWriterTest, BigNumber) {
  expect_bytes([](ReplyWriter& w) { w.big_number("1234567999999999999999999999999999999"); },
               "$37\r\n1234567999999999999999999999999999999\r\n",
               "(1234567999999999999999999999999999999\r\n");
}

// DEBUG PROTOCOL array -> "*3\r\n:0\r\n:1\r\n:2" in both protocols.
TEST(ReplyWriterTest, Array) {
  auto write = [](ReplyWriter& w) {
    w.array(3);
    for (int i = 0; i < 3; ++i) w.integer(i);
  };
  expect_bytes(write, "*3\r\n:0\r\n:1\r\n:2\r\n", "*3\r\n:0\r\n:1\r\n:2\r\n");
  expect_bytes([](ReplyWriter& w) { w.empty_array(); }, "*0\r\n", "*0\r\n");
}

// DEBUG PROTOCOL set -> "*3" (RESP2) / "~3" (RESP3).
TEST(ReplyWriterTest, Set) {
  auto write = [](ReplyWriter& w) {
    w.set(3);
    for (int i = 0; i < 3; ++i) w.integer(i);
  };
  expect_bytes(write, "*3\r\n:0\r\n:1\r\n:2\r\n", "~3\r\n:0\r\n:1\r\n:2\r\n");
  expect_bytes([](ReplyWriter& w) { w.set(0); }, "*0\r\n", "~0\r\n");
}

// DEBUG PROTOCOL map -> "*6\r\n:0\r\n:0\r\n:1\r\n:1\r\n:2\r\n:0" (RESP2) /
// "%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f" (RESP3).
TEST(ReplyWriterTest, MapOfBooleansLikeDebugProtocol) {
  auto write = [](ReplyWriter& w) {
    w.map(3);
    for (int i = 0; i < 3; ++i) {
      w.integer(i);
      w.boolean(i == 1);
    }
  };
  expect_bytes(write, "*6\r\n:0\r\n:0\r\n:1\r\n:1\r\n:2\r\n:0\r\n",
               "%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n");
  expect_bytes([](ReplyWriter& w) { w.map(0); }, "*0\r\n", "%0\r\n");
}

// DEBUG PROTOCOL push (RESP3) -> ">2\r\n$16\r\nserver-cpu-usage\r\n:42". Under RESP2 a push is a
// plain array (how pub/sub messages look to RESP2 clients).
TEST(ReplyWriterTest, Push) {
  auto write = [](ReplyWriter& w) {
    w.push(2);
    w.bulk("server-cpu-usage");
    w.integer(42);
  };
  expect_bytes(write, "*2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n",
               ">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n");
}

TEST(ReplyWriterTest, DeferredArray) {
  auto write = [](ReplyWriter& w) {
    w.simple("before");
    auto d = w.defer();
    w.bulk("a");
    w.bulk("b");
    w.end_array(d, 2);
    w.simple("after");
  };
  const std::string both = "+before\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n+after\r\n";
  expect_bytes(write, both, both);
  expect_bytes(
      [](ReplyWriter& w) {
        auto d = w.defer();
        w.end_array(d, 0);
      },
      "*0\r\n", "*0\r\n");
}

TEST(ReplyWriterTest, DeferredMapAndSet) {
  expect_bytes(
      [](ReplyWriter& w) {
        auto d = w.defer();
        w.bulk("k");
        w.integer(1);
        w.end_map(d, 1);
      },
      "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n");
  expect_bytes(
      [](ReplyWriter& w) {
        auto d = w.defer();
        w.bulk("m");
        w.end_set(d, 1);
      },
      "*1\r\n$1\r\nm\r\n", "~1\r\n$1\r\nm\r\n");
}

TEST(ReplyWriterTest, NestedDeferredEndedInnermostFirst) {
  auto write = [](ReplyWriter& w) {
    auto outer = w.defer();
    w.bulk("x");
    auto inner = w.defer();
    for (int i = 0; i < 12; ++i) w.integer(i);
    w.end_array(inner, 12);
    w.end_map(outer, 1);
  };
  std::string ints;
  for (int i = 0; i < 12; ++i) ints += ":" + std::to_string(i) + "\r\n";
  expect_bytes(write, "*2\r\n$1\r\nx\r\n*12\r\n" + ints, "%1\r\n$1\r\nx\r\n*12\r\n" + ints);
}

// XADD s 1-1 f v; XADD t 1-1 f v; XREAD STREAMS s t 0 0 on redis-server 7.0.15: RESP3 sends a map
// of stream name -> entries, RESP2 an array of [name, entries] pairs.
TEST(ReplyWriterTest, PairMapLikeXread) {
  auto entries = [](ReplyWriter& w) {
    w.array(1);
    w.array(2);
    w.bulk("1-1");
    w.array(2);
    w.bulk("f");
    w.bulk("v");
  };
  const std::string e = "*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n";
  const std::string resp2 = "*2\r\n*2\r\n$1\r\ns\r\n" + e + "*2\r\n$1\r\nt\r\n" + e;
  const std::string resp3 = "%2\r\n$1\r\ns\r\n" + e + "$1\r\nt\r\n" + e;
  expect_bytes(
      [&](ReplyWriter& w) {
        w.pair_map(2);
        for (const char* key : {"s", "t"}) {
          w.pair();
          w.bulk(key);
          entries(w);
        }
      },
      resp2, resp3);
  expect_bytes(
      [&](ReplyWriter& w) {
        auto d = w.defer();
        for (const char* key : {"s", "t"}) {
          w.pair();
          w.bulk(key);
          entries(w);
        }
        w.end_pair_map(d, 2);
      },
      resp2, resp3);
}

TEST(ReplyWriterTest, LargeDeferredCount) {
  std::string out;
  ReplyWriter w(out, Protocol::kResp2);
  auto d = w.defer();
  w.end_map(d, 5000000000ull);
  EXPECT_EQ(out, "*10000000000\r\n");
}

TEST(ReplyWriterTest, SwitchingProtocolAndBuffer) {
  std::string a, b;
  ReplyWriter w(a, Protocol::kResp2);
  EXPECT_EQ(w.protocol(), Protocol::kResp2);
  w.null();
  w.set_protocol(Protocol::kResp3);
  EXPECT_EQ(w.protocol(), Protocol::kResp3);
  w.null();
  w.set_buffer(b);
  EXPECT_EQ(&w.buffer(), &b);
  w.boolean(true);
  EXPECT_EQ(a, "$-1\r\n_\r\n");
  EXPECT_EQ(b, "#t\r\n");
}

TEST(ReplyWriterTest, AppendsOnly) {
  std::string out = "existing";
  ReplyWriter w(out, Protocol::kResp3);
  w.integer(1);
  EXPECT_EQ(out, "existing:1\r\n");
}

}  // namespace
}  // namespace streamd::resp
