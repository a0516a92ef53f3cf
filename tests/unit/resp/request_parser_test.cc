// RequestParser against the behaviour of redis-server 7.0.15, observed by sending raw bytes and
// reading the replies (RPUSH k <inline line> + LRANGE for the inline splitting cases). Every
// input is also fed whole, byte by byte and in random splits, which must give the same results.
#include "streamd/resp/request_parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::resp {
namespace {

using Status = RequestParser::Status;
using Args = std::vector<std::string>;

std::string mb(const Args& args) {
  std::string s = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

Args copy(const std::vector<std::string_view>& views) {
  return Args(views.begin(), views.end());
}

// What a connection would see: every command parsed (skipped lines and empty arrays included,
// as empty vectors), then either the protocol error or the number of bytes left waiting.
struct Outcome {
  std::vector<Args> commands;
  std::string error;
  std::size_t leftover = 0;
  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& r) {
  os << r.commands.size() << " commands, error='" << r.error << "', leftover=" << r.leftover;
  return os;
}

// Feeds `input` in chunks of the given sizes (the rest goes in one last chunk), the way a
// connection does: append to its buffer, parse until kNeedMore, drop consumed bytes now and then.
Outcome feed(std::string_view input, const std::vector<std::size_t>& chunks,
             ParserLimits limits = {}) {
  RequestParser parser(limits);
  Outcome run;
  std::string buf;
  std::size_t start = 0;  // first unconsumed byte of buf
  std::size_t fed = 0;
  std::size_t chunk = 0;
  std::vector<std::string_view> args;
  while (fed < input.size() || chunk == 0) {
    std::size_t n = chunk < chunks.size() ? chunks[chunk] : input.size() - fed;
    n = std::min(n, input.size() - fed);
    ++chunk;
    buf.append(input.substr(fed, n));
    fed += n;
    while (true) {
      std::size_t consumed = 12345;
      Status s = parser.parse(std::string_view(buf).substr(start), consumed, args);
      if (s == Status::kNeedMore) {
        EXPECT_EQ(consumed, 0u);
        EXPECT_TRUE(args.empty());
        break;
      }
      if (s == Status::kError) {
        EXPECT_EQ(consumed, 0u);
        run.error = parser.error();
        return run;
      }
      EXPECT_GT(consumed, 0u);
      run.commands.push_back(copy(args));
      start += consumed;
      if (start > 4096) {  // allowed between commands: the parser holds no offsets then
        buf.erase(0, start);
        start = 0;
      }
    }
    if (fed == input.size()) break;
  }
  run.leftover = buf.size() - start;
  return run;
}

Outcome whole(std::string_view input, ParserLimits limits = {}) {
  return feed(input, {}, limits);
}

Outcome byte_by_byte(std::string_view input, ParserLimits limits = {}) {
  return feed(input, std::vector<std::size_t>(input.size(), 1), limits);
}

Outcome random_split(std::string_view input, std::uint32_t seed, ParserLimits limits = {}) {
  std::mt19937 rng(seed);
  std::vector<std::size_t> chunks;
  std::size_t total = 0;
  std::uniform_int_distribution<std::size_t> small(1, 8), large(1, 400);
  while (total < input.size()) {
    std::size_t n = (rng() % 2) ? small(rng) : large(rng);
    chunks.push_back(n);
    total += n;
  }
  return feed(input, chunks, limits);
}

// Parses `input` whole, byte by byte and in several random splits; all must agree.
Outcome parse_all_ways(std::string_view input, ParserLimits limits = {}) {
  Outcome expected = whole(input, limits);
  EXPECT_EQ(byte_by_byte(input, limits), expected) << "byte by byte";
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    EXPECT_EQ(random_split(input, seed, limits), expected) << "seed " << seed;
  }
  return expected;
}

// The single error (or empty) that `input` produces, checked in every split.
std::string error_of(std::string_view input, ParserLimits limits = {}) {
  return parse_all_ways(input, limits).error;
}

// Splits one inline line, checked in every split.
Args inline_args(std::string_view line) {
  std::string input(line);
  input += "\r\n";
  Outcome r = parse_all_ways(input);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.leftover, 0u);
  if (r.commands.size() != 1) {
    ADD_FAILURE() << "expected one command for: " << line;
    return {};
  }
  return r.commands[0];
}

bool points_into(std::string_view view, std::string_view buffer) {
  return view.data() >= buffer.data() && view.data() + view.size() <= buffer.data() + buffer.size();
}

// ---------------------------------------------------------------------------------------------
// Multibulk requests

TEST(RequestParserTest, MultibulkCommand) {
  std::string in = mb({"SET", "key", "hello"});
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(p.parse(in, consumed, args), Status::kComplete);
  EXPECT_EQ(consumed, in.size());
  EXPECT_EQ(copy(args), (Args{"SET", "key", "hello"}));
  // No copies: the arguments are views into the caller's buffer.
  for (auto a : args) EXPECT_TRUE(points_into(a, in));
  EXPECT_EQ(p.bytes_wanted(), 0u);
}

TEST(RequestParserTest, MultibulkIsBinarySafe) {
  std::string value("a\r\n\0b*$\n", 8);
  Outcome r = parse_all_ways(mb({"SET", "", value}));
  ASSERT_EQ(r.commands.size(), 1u);
  EXPECT_EQ(r.commands[0], (Args{"SET", "", value}));
}

TEST(RequestParserTest, ConsumesOnlyTheFirstCommand) {
  std::string in = mb({"PING"}) + "PING\r\n";
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(p.parse(in, consumed, args), Status::kComplete);
  EXPECT_EQ(consumed, 14u);
  ASSERT_EQ(p.parse(std::string_view(in).substr(consumed), consumed, args), Status::kComplete);
  EXPECT_EQ(consumed, 6u);
  EXPECT_EQ(copy(args), (Args{"PING"}));
}

TEST(RequestParserTest, EveryPrefixNeedsMore) {
  std::string in = mb({"XADD", "s", "*", "f", std::string(100, 'v')});
  for (std::size_t n = 0; n < in.size(); ++n) {
    RequestParser p;
    std::size_t consumed = 99;
    std::vector<std::string_view> args{"junk"};
    EXPECT_EQ(p.parse(std::string_view(in).substr(0, n), consumed, args), Status::kNeedMore) << n;
    EXPECT_EQ(consumed, 0u);
    EXPECT_TRUE(args.empty());
  }
}

// Redis skips "*0" and "*-1" (and any negative count) without a reply.
TEST(RequestParserTest, EmptyAndNegativeArraysAreSkipped) {
  for (std::string head : {"*0\r\n", "*-1\r\n", "*-5\r\n", "*-9223372036854775808\r\n"}) {
    SCOPED_TRACE(head);
    Outcome r = parse_all_ways(head + "PING\r\n");
    EXPECT_EQ(r.commands, (std::vector<Args>{{}, {"PING"}}));
    EXPECT_EQ(r.error, "");
    RequestParser p;
    std::size_t consumed = 0;
    std::vector<std::string_view> args;
    ASSERT_EQ(p.parse(head, consumed, args), Status::kComplete);
    EXPECT_EQ(consumed, head.size());
    EXPECT_TRUE(args.empty());
  }
}

// Redis skips one byte after a header's '\r' and two after a bulk payload without looking at
// them: "*1\rX$4\r\nPING\r\n" and "*1\r\n$4\r\nPINGxx" both run PING.
TEST(RequestParserTest, BytesAfterCrAndPayloadAreNotChecked) {
  Outcome r = parse_all_ways("*1\rX$4\rYPING\r\n*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\n\n");
  EXPECT_EQ(r.commands, (std::vector<Args>{{"PING"}, {"PING"}, {"PING"}}));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.leftover, 0u);
}

TEST(RequestParserTest, WaitsForTheByteAfterCrAndTheTwoAfterThePayload) {
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  EXPECT_EQ(p.parse("*1\r", consumed, args), Status::kNeedMore);
  EXPECT_EQ(p.parse("*1\r\n$4\r", consumed, args), Status::kNeedMore);
  EXPECT_EQ(p.parse("*1\r\n$4\r\nPING", consumed, args), Status::kNeedMore);
  EXPECT_EQ(p.bytes_wanted(), 2u);
  EXPECT_EQ(p.parse("*1\r\n$4\r\nPING\r", consumed, args), Status::kNeedMore);
  EXPECT_EQ(p.bytes_wanted(), 1u);
  EXPECT_EQ(p.parse("*1\r\n$4\r\nPING\r\n", consumed, args), Status::kComplete);
  EXPECT_EQ(p.bytes_wanted(), 0u);
}

TEST(RequestParserTest, EmptyBulk) {
  Outcome r = parse_all_ways("*2\r\n$0\r\n\r\n$0\r\n\r\n");
  EXPECT_EQ(r.commands, (std::vector<Args>{{"", ""}}));
}

struct ErrorCase {
  std::string input;
  std::string error;
};

// Every multibulk protocol error, with the text redis-server 7.0.15 replied (minus the '-').
TEST(RequestParserTest, MultibulkErrors) {
  const std::string mbl = "ERR Protocol error: invalid multibulk length";
  const std::string bl = "ERR Protocol error: invalid bulk length";
  const ErrorCase cases[] = {
      {"*abc\r\n", mbl},
      {"*\r\n", mbl},
      {"*01\r\n$4\r\nPING\r\n", mbl},
      {"*+1\r\n$4\r\nPING\r\n", mbl},
      {"*-0\r\nPING\r\n", mbl},
      {"* 1\r\n", mbl},
      {"*1 \r\n", mbl},
      {"*1a\r\n", mbl},
      {"*--1\r\n", mbl},
      {"*-\r\n", mbl},
      {"*2147483648\r\n", mbl},
      {"*9223372036854775807\r\n", mbl},
      {"*9223372036854775808\r\n", mbl},
      {"*-9223372036854775809\r\n", mbl},
      {"*99999999999999999999999\r\n", mbl},
      {"*1\n$4\r\nPING\r\n", mbl},  // the count line runs to the first '\r'
      {"*1\r\n$-1\r\n", bl},
      {"*1\r\n$abc\r\n", bl},
      {"*1\r\n$\r\n", bl},
      {"*1\r\n$01\r\n", bl},
      {"*1\r\n$+1\r\n", bl},
      {"*1\r\n$-0\r\n", bl},
      {"*1\r\n$ 1\r\n", bl},
      {"*1\r\n$1 \r\n", bl},
      {"*1\r\n$4\nPING\r\n", bl},
      {"*1\r\n$536870913\r\n", bl},
      {"*1\r\n$9223372036854775807\r\n", bl},
      {"*1\r\n$9223372036854775808\r\n", bl},
      {"*2\r\n$4\r\nECHO\r\n$x\r\n", bl},
      {"*1\r\nX4\r\n", "ERR Protocol error: expected '$', got 'X'"},
      {"*2\r\n$1\r\na\r\n:1\r\n", "ERR Protocol error: expected '$', got ':'"},
      {"*1\r\n*1\r\n", "ERR Protocol error: expected '$', got '*'"},
      {"*1\r\n\xff\r\n", "ERR Protocol error: expected '$', got '\xff'"},
      // The client sees the reply on one line: CR and LF become spaces.
      {"*1\r\n\r\n", "ERR Protocol error: expected '$', got ' '"},
      {"*1\r\n\n\r\n", "ERR Protocol error: expected '$', got ' '"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(error_of(c.input), c.error);
  }
}

TEST(RequestParserTest, CommandsBeforeAnErrorStillParse) {
  Outcome r = parse_all_ways("PING\r\n" + mb({"ECHO", "x"}) + "*1\r\n$-1\r\nPING\r\n");
  EXPECT_EQ(r.commands, (std::vector<Args>{{"PING"}, {"ECHO", "x"}}));
  EXPECT_EQ(r.error, "ERR Protocol error: invalid bulk length");
}

// A header line is complete only once its '\r' is here: "*1\r\nX" waits, it does not fail yet.
TEST(RequestParserTest, HeaderErrorsWaitForTheWholeLine) {
  for (std::string in : {"*abc", "*1\r\nX", "*1\r\nX4", "*1\r\n$abc", "*1\r\n$-1"}) {
    SCOPED_TRACE(in);
    Outcome r = parse_all_ways(in);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.leftover, in.size());
  }
}

TEST(RequestParserTest, HeaderNumbersAcceptedAtTheEdges) {
  Outcome r = parse_all_ways("*1\r\n$0\r\n\r\n*1\r\n$10\r\n0123456789\r\n");
  EXPECT_EQ(r.commands, (std::vector<Args>{{""}, {"0123456789"}}));
}

// proto-max-bulk-len: 512MB by default; a bulk of exactly the limit is waited for.
TEST(RequestParserTest, MaxBulkLen) {
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  EXPECT_EQ(p.parse("*1\r\n$536870912\r\n", consumed, args), Status::kNeedMore);
  EXPECT_EQ(p.bytes_wanted(), 536870912u + 2);

  ParserLimits small;
  small.max_bulk_len = 10;
  EXPECT_EQ(error_of("*1\r\n$11\r\n", small), "ERR Protocol error: invalid bulk length");
  Outcome r = parse_all_ways(mb({"0123456789"}), small);
  EXPECT_EQ(r.commands, (std::vector<Args>{{"0123456789"}}));
}

// Redis 7.0 accepts arrays up to INT_MAX elements.
TEST(RequestParserTest, MaxMultibulkLen) {
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  EXPECT_EQ(p.parse("*2147483647\r\n", consumed, args), Status::kNeedMore);
  EXPECT_EQ(error_of("*2147483648\r\n"), "ERR Protocol error: invalid multibulk length");

  ParserLimits small;
  small.max_multibulk_len = 2;
  EXPECT_EQ(error_of("*3\r\n", small), "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(parse_all_ways(mb({"a", "b"}), small).commands, (std::vector<Args>{{"a", "b"}}));
}

// With requirepass set and before AUTH, Redis refuses arrays over 10 elements and bulks over
// 16384 bytes, after the ordinary validity checks.
TEST(RequestParserTest, UnauthenticatedLimits) {
  ParserLimits unauth;
  unauth.unauthenticated = true;
  EXPECT_EQ(parse_all_ways(mb(Args(10, "a")), unauth).commands, (std::vector<Args>{Args(10, "a")}));
  EXPECT_EQ(error_of("*11\r\n", unauth), "ERR Protocol error: unauthenticated multibulk length");
  EXPECT_EQ(error_of("*100\r\n", unauth), "ERR Protocol error: unauthenticated multibulk length");
  std::string big(16384, 'x');
  EXPECT_EQ(parse_all_ways(mb({big}), unauth).commands, (std::vector<Args>{{big}}));
  EXPECT_EQ(error_of("*1\r\n$16385\r\n", unauth),
            "ERR Protocol error: unauthenticated bulk length");

  EXPECT_EQ(error_of("*2147483648\r\n", unauth), "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(error_of("*abc\r\n", unauth), "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(error_of("*1\r\n$536870913\r\n", unauth), "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(error_of("*1\r\n$-1\r\n", unauth), "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(parse_all_ways("*-1\r\n", unauth).commands, (std::vector<Args>{{}}));

  // Inline commands have no such limit.
  std::string line = "RPUSH k";
  for (int i = 0; i < 50; ++i) line += " v";
  EXPECT_EQ(parse_all_ways(line + "\r\n", unauth).commands.at(0).size(), 52u);

  // The same input is fine once authenticated.
  EXPECT_EQ(parse_all_ways(mb(Args(11, "a"))).error, "");
}

// ---------------------------------------------------------------------------------------------
// Line limits and NUL bytes

// Redis looks for line ends in a NUL-terminated buffer, so a NUL before the terminator hides it:
// the request never completes, until the buffered bytes pass 64KB.
TEST(RequestParserTest, NulBeforeTheTerminatorBlocksTheLine) {
  const std::string blocked[] = {
      std::string("*1\0\r\n$4\r\nPING\r\n", 15),
      std::string("*1\r\n$4\0\r\nPING\r\n", 15),
      std::string("*1\r\nX\0\r\n", 8),
      std::string("*1\r\n\0\r\n", 7),
      std::string("PING\0\r\n", 7),
      std::string("PING\0xx\nPING\r\n", 14),
      std::string("ECHO \"a\0b\"\r\n", 12),
      // Past the first 16 bytes of the line (where the scan switches to memchr).
      std::string("RPUSH k aaaaaaaaaaaaaaaaaaaaaaaa\0\r\n", 35),
      std::string("*1\r\n$1111111111111111111111\0\r\n", 30),
  };
  for (const auto& in : blocked) {
    SCOPED_TRACE(in);
    Outcome r = parse_all_ways(in);
    EXPECT_TRUE(r.commands.empty());
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.leftover, in.size());
  }
  const std::string pad(70000, '1');
  EXPECT_EQ(error_of(std::string("*1\0", 3) + pad),
            "ERR Protocol error: too big mbulk count string");
  EXPECT_EQ(error_of(std::string("*1\r\n$1\0", 7) + pad),
            "ERR Protocol error: too big bulk count string");
  EXPECT_EQ(error_of(std::string("PING\0", 5) + pad), "ERR Protocol error: too big inline request");
  // The 64KB count starts at the blocked line: 65530 more bytes are not enough.
  Outcome r = parse_all_ways(std::string("*1\r\n$1\0", 7) + std::string(65530, '1'));
  EXPECT_EQ(r.error, "");
}

TEST(RequestParserTest, NulElsewhereIsFine) {
  Outcome r = parse_all_ways(std::string("*1\r\n$4\r\nPI\0G\r\nPING\r\n\0", 21));
  EXPECT_EQ(r.commands, (std::vector<Args>{{std::string("PI\0G", 4)}, {"PING"}}));
  EXPECT_EQ(r.leftover, 1u);
}

TEST(RequestParserTest, TooBigInlineRequest) {
  // 65536 bytes without a newline still wait; one more is refused.
  Outcome r = parse_all_ways(std::string(65536, 'a'));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.leftover, 65536u);
  EXPECT_EQ(error_of(std::string(65537, 'a')), "ERR Protocol error: too big inline request");
  // A long line that arrives whole is accepted (redis-server answers "ECHO <70000 a>" sent in one
  // write); the same line arriving in pieces is refused once 64KB are buffered without a newline.
  std::string line = "ECHO " + std::string(70000, 'a') + "\r\n";
  Outcome w = whole(line);
  ASSERT_EQ(w.commands.size(), 1u);
  EXPECT_EQ(w.commands[0][1].size(), 70000u);
  EXPECT_EQ(byte_by_byte(line).error, "ERR Protocol error: too big inline request");
  EXPECT_EQ(feed(line, {60000}).commands.size(), 1u);
  EXPECT_EQ(feed(line, {66000}).error, "ERR Protocol error: too big inline request");

  ParserLimits small;
  small.max_inline_len = 8;
  // Everything buffered counts, the '\r' included: "PING 12\r" waits, "PING 123\r" is refused.
  EXPECT_EQ(parse_all_ways("PING 12\r\n", small).commands, (std::vector<Args>{{"PING", "12"}}));
  EXPECT_EQ(byte_by_byte("PING 123\r\n", small).error,
            "ERR Protocol error: too big inline request");
  EXPECT_EQ(whole("PING 123\r\n", small).commands, (std::vector<Args>{{"PING", "123"}}));
}

TEST(RequestParserTest, TooBigCountStrings) {
  EXPECT_EQ(parse_all_ways("*" + std::string(65535, '1')).error, "");
  EXPECT_EQ(error_of("*" + std::string(65536, '1')),
            "ERR Protocol error: too big mbulk count string");
  EXPECT_EQ(whole("*" + std::string(70000, '1') + "\r\n").error,
            "ERR Protocol error: invalid multibulk length");

  EXPECT_EQ(parse_all_ways("*1\r\n$" + std::string(65535, '1')).error, "");
  EXPECT_EQ(error_of("*1\r\n$" + std::string(65536, '1')),
            "ERR Protocol error: too big bulk count string");
  EXPECT_EQ(whole("*1\r\n$" + std::string(70000, '1') + "\r\n").error,
            "ERR Protocol error: invalid bulk length");
  // Also for a later argument: the count starts at that argument's header.
  EXPECT_EQ(error_of("*2\r\n$1\r\na\r\n$" + std::string(65536, '1')),
            "ERR Protocol error: too big bulk count string");
}

// ---------------------------------------------------------------------------------------------
// Inline commands

TEST(RequestParserTest, InlineCommand) {
  std::string in = "SET key value\r\n";
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(p.parse(in, consumed, args), Status::kComplete);
  EXPECT_EQ(consumed, in.size());
  EXPECT_EQ(copy(args), (Args{"SET", "key", "value"}));
  for (auto a : args) EXPECT_TRUE(points_into(a, in));  // plain arguments are not copied
}

TEST(RequestParserTest, InlineLineEnds) {
  Outcome r = parse_all_ways("PING\nPING\r\nPING\r\r\nping\rpong\r\n   PING   \r\n\"PING\"\r\n");
  EXPECT_EQ(r.commands, (std::vector<Args>{
                            {"PING"}, {"PING"}, {"PING"}, {"ping", "pong"}, {"PING"}, {"PING"}}));
  EXPECT_EQ(r.leftover, 0u);
}

TEST(RequestParserTest, EmptyInlineLinesAreSkipped) {
  Outcome r = parse_all_ways("\r\n\n \t \r\n\r\r\n\x0b\x0c\nPING\r\n");
  EXPECT_EQ(r.commands, (std::vector<Args>{{}, {}, {}, {}, {}, {"PING"}}));
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(p.parse("\r\nPING\r\n", consumed, args), Status::kComplete);
  EXPECT_EQ(consumed, 2u);
  EXPECT_TRUE(args.empty());
}

struct InlineCase {
  std::string line;
  Args args;
};

// Observed with "RPUSH k <line>" then LRANGE k 0 -1 on redis-server 7.0.15.
TEST(RequestParserTest, InlineQuoting) {
  const InlineCase cases[] = {
      {"a b  c", {"a", "b", "c"}},
      {"\"a b\"", {"a b"}},
      {"\"a\\nb\"", {"a\nb"}},
      {"\"\\r\\t\\b\\a\\\\\\\"\"", {"\r\t\b\a\\\""}},
      {"\"\\x41\\x4a\\x4G\\xg1\\x\"", {"AJx4Gxg1x"}},
      {"\"\\x4a1\"", {"J1"}},
      {"\"\\x4\"", {"x4"}},
      {"\"\\xff\\xFF\\xaB\"", {"\xff\xff\xab"}},
      {"\"x\\x00y\"", {std::string("x\0y", 3)}},
      {"\"\\\\x41\"", {"\\x41"}},
      {"\"\\z\\'\"", {"z'"}},
      {"\"a\\\\\"", {"a\\"}},
      {"'a\\'b'", {"a'b"}},
      {"'a\\\\b\\\"c\\n'", {"a\\\\b\\\"c\\n"}},
      {"\"'\"", {"'"}},
      {"'\"'", {"\""}},
      {"\"a\" b", {"a", "b"}},
      {"\"a\" \"b\"", {"a", "b"}},
      {"a\"b c\"", {"ab c"}},
      {"a'b c'", {"ab c"}},
      {"x\"a\" ", {"xa"}},
      {"\"\"", {""}},
      {"''", {""}},
      {"'' \"\" x", {"", "", "x"}},
      {"a\\ b", {"a\\", "b"}},
      // Whitespace: space, \t and \r end an unquoted argument; \v and \f are skipped between
      // arguments and after a closing quote, but belong to an unquoted argument.
      {"a\rb", {"a", "b"}},
      {"a\tb\x0b"
       "c\x0c"
       "d\x85"
       "e\xa0"
       "f",
       {"a",
        "b\x0b"
        "c\x0c"
        "d\x85"
        "e\xa0"
        "f"}},
      {"\"a\"\tb", {"a", "b"}},
      {"'a'\x0b"
       "b",
       {"a", "b"}},
      {"\"a\"\x0c"
       "b",
       {"a", "b"}},
      {"\"a\"\r", {"a"}},
      {"'a'\r", {"a"}},
      {"\x0bx", {"x"}},
      {"x\x0b", {"x\x0b"}},
      {"x \x0b y", {"x", "y"}},
      {"x \x0c\x0b y", {"x", "y"}},
      {"a\x0c\"b c\"",
       {"a\x0c"
        "b c"}},
      {"\x0c\"b c\"", {"b c"}},
      {"a\x0b ", {"a\x0b"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    Args expected{"RPUSH", "k"};
    expected.insert(expected.end(), c.args.begin(), c.args.end());
    EXPECT_EQ(inline_args("RPUSH k " + c.line), expected);
  }
}

TEST(RequestParserTest, InlineUnbalancedQuotes) {
  const std::string cases[] = {
      "\"a\"b", "'a'b",  "a\"b c\"d", "a\"b",       "'abc", "\"a\\\"", "\"\\\"",    "\"a\\",
      "'a\\",   "'a\\'", "a\"b\"c d", "\"a\"\"b\"", "\"",   "'",       "\"a\" \"b", "x 'y' z'",
  };
  for (const auto& line : cases) {
    SCOPED_TRACE(line);
    Outcome r = parse_all_ways("PING\r\nRPUSH k " + line + "\r\nPING\r\n");
    EXPECT_EQ(r.commands, (std::vector<Args>{{"PING"}}));
    EXPECT_EQ(r.error, "ERR Protocol error: unbalanced quotes in request");
  }
}

// A line starting with anything but '*' is inline, even if a '*' follows.
TEST(RequestParserTest, OnlyALeadingStarMeansMultibulk) {
  Outcome r = parse_all_ways(" *1\r\n$4\r\nPING\r\n");
  EXPECT_EQ(r.commands, (std::vector<Args>{{"*1"}, {"$4"}, {"PING"}}));
}

// ---------------------------------------------------------------------------------------------
// Pipelines, splits, incremental progress

// A generated pipeline of multibulk and inline commands, skipped lines and empty arrays, with the
// arguments each must produce.
struct Pipeline {
  std::string bytes;
  std::vector<Args> expected;
};

Pipeline make_pipeline(std::uint32_t seed, int commands) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto random_bytes = [&](int max_len) {
    std::string s(static_cast<std::size_t>(pick(max_len + 1)), '\0');
    for (char& c : s) c = static_cast<char>(pick(256));
    return s;
  };
  auto alnum = [&](int max_len) {
    static const char kChars[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:";
    std::string s(static_cast<std::size_t>(1 + pick(max_len)), 'a');
    for (char& c : s) c = kChars[pick(sizeof kChars - 1)];
    return s;
  };
  Pipeline p;
  for (int i = 0; i < commands; ++i) {
    int kind = pick(10);
    if (kind < 5) {  // multibulk with binary arguments, sometimes large
      Args args(static_cast<std::size_t>(1 + pick(6)));
      for (auto& a : args) a = random_bytes(pick(20) == 0 ? 3000 : 40);
      p.bytes += mb(args);
      p.expected.push_back(args);
    } else if (kind < 9) {  // inline with plain, double-quoted and single-quoted arguments
      Args args;
      std::string line;
      int n = 1 + pick(5);
      for (int j = 0; j < n; ++j) {
        if (j > 0 || pick(4) == 0) line += pick(2) ? " " : (pick(2) ? "\t" : "  ");
        int style = pick(4);
        if (style < 2) {
          args.push_back(alnum(12));
          line += args.back();
        } else if (style == 2) {  // every byte escaped as \xHH
          std::string value = random_bytes(10);
          char hex[5];
          line += '"';
          for (char c : value) {
            std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
            line += hex;
          }
          line += '"';
          args.push_back(value);
        } else {
          std::string value = alnum(6) + " " + alnum(6);
          line += "'" + value + "'";
          args.push_back(value);
        }
      }
      line += pick(3) ? "\r\n" : "\n";
      p.bytes += line;
      p.expected.push_back(args);
    } else {  // nothing to run
      static const char* kEmpty[] = {"\r\n", "\n", "*0\r\n", "*-1\r\n", "  \r\n"};
      p.bytes += kEmpty[pick(5)];
      p.expected.emplace_back();
    }
  }
  return p;
}

TEST(RequestParserTest, PipelinesParseTheSameHoweverSplit) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    Pipeline p = make_pipeline(seed, 300);
    Outcome r = parse_all_ways(p.bytes);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.leftover, 0u);
    ASSERT_EQ(r.commands.size(), p.expected.size());
    for (std::size_t i = 0; i < p.expected.size(); ++i) {
      ASSERT_EQ(r.commands[i], p.expected[i]) << "command " << i;
    }
  }
}

TEST(RequestParserTest, ManyCommandsInOneBuffer) {
  std::string in;
  for (int i = 0; i < 10000; ++i) in += (i % 2) ? mb({"INCR", std::to_string(i)}) : "PING\r\n";
  Outcome r = whole(in);
  ASSERT_EQ(r.commands.size(), 10000u);
  EXPECT_EQ(r.commands[9999], (Args{"INCR", "9999"}));
  EXPECT_EQ(random_split(in, 7), r);
}

// A large bulk arriving in pieces: bytes_wanted() tells how much of it is still missing.
TEST(RequestParserTest, LargeBulkInPieces) {
  const std::size_t size = 1 << 20;
  std::string value(size, 'v');
  std::string in = mb({"SET", "k", value});
  std::string head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048576\r\n";
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  std::string buf;
  std::size_t fed = 0;
  int calls = 0;
  while (true) {
    std::size_t n = std::min<std::size_t>(fed < head.size() ? head.size() : 4096, in.size() - fed);
    buf.append(in, fed, n);
    fed += n;
    ++calls;
    Status s = p.parse(buf, consumed, args);
    if (s == Status::kComplete) break;
    ASSERT_EQ(s, Status::kNeedMore);
    EXPECT_EQ(p.bytes_wanted(), in.size() - fed) << "after " << fed << " bytes";
  }
  EXPECT_EQ(consumed, in.size());
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[2].size(), size);
  EXPECT_TRUE(args[2] == value);
  EXPECT_GT(calls, 200);
}

// Progress is kept between calls: finished arguments are not parsed again. (White box: the bytes
// already consumed into finished arguments are altered, which the contract does not allow, to see
// that the parser does not look at them again.)
TEST(RequestParserTest, ResumesWithoutRescanning) {
  std::string in = mb({"SET", "key", "value"});
  std::string partial = in.substr(0, in.size() - 3);
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(p.parse(partial, consumed, args), Status::kNeedMore);
  std::string rest = in;
  rest[4] = '!';  // was the '$' of "SET": rescanning would fail
  ASSERT_EQ(p.parse(rest, consumed, args), Status::kComplete);
  EXPECT_EQ(copy(args), (Args{"SET", "key", "value"}));
  for (auto a : args) EXPECT_TRUE(points_into(a, rest));  // views into the new buffer
}

// The saved progress is offsets, so a buffer that moved (reallocated) between calls works.
TEST(RequestParserTest, BufferMayMoveBetweenCalls) {
  std::string in = mb({"A", std::string(1000, 'b'), "C"});
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  std::string first = in.substr(0, 600);
  ASSERT_EQ(p.parse(first, consumed, args), Status::kNeedMore);
  first.clear();
  first.shrink_to_fit();
  std::string second = in;
  ASSERT_EQ(p.parse(second, consumed, args), Status::kComplete);
  EXPECT_EQ(copy(args), (Args{"A", std::string(1000, 'b'), "C"}));
  for (auto a : args) EXPECT_TRUE(points_into(a, second));
}

TEST(RequestParserTest, ResetForgetsProgress) {
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(p.parse("*2\r\n$3\r\nGET\r\n$1\r\n", consumed, args), Status::kNeedMore);
  p.reset();
  EXPECT_EQ(p.bytes_wanted(), 0u);
  ASSERT_EQ(p.parse("PING\r\n", consumed, args), Status::kComplete);
  EXPECT_EQ(copy(args), (Args{"PING"}));
  ASSERT_EQ(p.parse(std::string("PING\0", 5), consumed, args), Status::kNeedMore);
  p.reset();
  ASSERT_EQ(p.parse("PING\r\n", consumed, args), Status::kComplete);
}

// A caller that drops bytes without reset() breaks the contract; the parser must stay in bounds.
TEST(RequestParserTest, ShorterBufferWithoutResetIsSafe) {
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(p.parse("*2\r\n$3\r\nGET\r\n$100\r\nabc", consumed, args), Status::kNeedMore);
  EXPECT_EQ(p.parse("*1\r\n$4\r\nPI", consumed, args), Status::kNeedMore);
  EXPECT_EQ(p.parse("*1\r\n$4\r\nPING\r\n", consumed, args), Status::kComplete);
  EXPECT_EQ(copy(args), (Args{"PING"}));
}

TEST(RequestParserTest, UsableAfterAnError) {
  RequestParser p;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(p.parse("*1\r\n$x\r\n", consumed, args), Status::kError);
  EXPECT_EQ(p.error(), "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(consumed, 0u);
  EXPECT_TRUE(args.empty());
  ASSERT_EQ(p.parse("*1\r\n$4\r\nPING\r\n", consumed, args), Status::kComplete);
  EXPECT_EQ(copy(args), (Args{"PING"}));
}

TEST(RequestParserTest, LimitsAreReadable) {
  ParserLimits l;
  EXPECT_EQ(l.max_bulk_len, 512u * 1024 * 1024);
  EXPECT_EQ(l.max_multibulk_len, 2147483647u);
  EXPECT_EQ(l.max_inline_len, 65536u);
  EXPECT_FALSE(l.unauthenticated);
  RequestParser p;
  l.unauthenticated = true;
  p.set_limits(l);
  EXPECT_TRUE(p.limits().unauthenticated);
  EXPECT_EQ(error_of("*11\r\n", p.limits()),
            "ERR Protocol error: unauthenticated multibulk length");
}

}  // namespace
}  // namespace streamd::resp
