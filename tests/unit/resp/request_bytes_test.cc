// resp::raw_args hands back a request's own bytes for its last arguments (as parse_ready parsed
// them) only when they are exactly what put_command would write for them; anything else is left
// to the caller.
#include "streamd/resp/request_bytes.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "streamd/resp/request_parser.h"

namespace streamd::resp {
namespace {

using namespace std::literals;

// Parses `request` as one whole command (as the connection's parse-ahead does).
std::vector<std::string_view> Parse(std::string_view request) {
  RequestParser parser;
  std::vector<std::string_view> args;
  std::size_t used = 0;
  EXPECT_TRUE(parser.parse_ready(request, used, args)) << request;
  EXPECT_EQ(used, request.size());
  return args;
}

std::string Encode(std::vector<std::string_view> argv) {
  std::string out;
  append_command(out, std::span<const std::string_view>(argv));
  return out;
}

TEST(RequestBytesTest, CanonicalRequestGivesItsArguments) {
  const std::string request = Encode({"XADD", "s", "*", "f", "value\r\nwith\0"sv});
  std::vector<std::string_view> args = Parse(request);
  ASSERT_EQ(args.size(), 5u);
  EXPECT_EQ(raw_args(args, 0), request.substr(4));  // all but the array header
  EXPECT_EQ(raw_args(args, 3), "$1\r\nf\r\n$12\r\nvalue\r\nwith\0\r\n"sv);
  EXPECT_EQ(raw_args(args, 4), "$12\r\nvalue\r\nwith\0\r\n"sv);
}

TEST(RequestBytesTest, EmptyArgumentsAndHeadersOfEveryWidth) {
  for (std::size_t n : {0, 1, 9, 10, 99, 100, 999, 1000, 100000}) {
    SCOPED_TRACE(n);
    std::string value(n, 'x');
    std::string request = Encode({"SET", "", value});
    std::vector<std::string_view> args = Parse(request);
    ASSERT_EQ(args.size(), 3u);
    EXPECT_EQ(raw_args(args, 1), request.substr(13));
    EXPECT_EQ(raw_args(args, 2), Encode({value}).substr(4));
  }
}

// arg_bytes: one argument's own encoding, found from the argument inside what raw_args gave.
TEST(RequestBytesTest, ArgBytesIsTheArgumentsEncoding) {
  for (std::size_t n : {0, 1, 9, 10, 99, 100, 999, 1000, 100000}) {
    SCOPED_TRACE(n);
    std::string value(n, 'x');
    std::string request = Encode({"XADD", "s", value, "f", "v"});
    std::vector<std::string_view> args = Parse(request);
    ASSERT_EQ(args.size(), 5u);
    std::string_view all = raw_args(args, 0);
    std::string_view one = arg_bytes(args[2]);
    EXPECT_EQ(one, Encode({value}).substr(4));
    EXPECT_EQ(one.data(), all.data() + Encode({"XADD", "s"}).size() - 4);
    EXPECT_EQ(arg_bytes(args[0]), "$4\r\nXADD\r\n");
    EXPECT_EQ(arg_bytes(args[4]).data() + arg_bytes(args[4]).size(), all.data() + all.size());
  }
}

TEST(RequestBytesTest, NothingPastTheLastArgument) {
  std::string request = "*1\r\n$4\r\nPING\r\n";
  std::vector<std::string_view> args = Parse(request);
  EXPECT_EQ(raw_args(args, 0), "$4\r\nPING\r\n");
  EXPECT_TRUE(raw_args(args, 1).empty());  // from == size
  EXPECT_TRUE(raw_args(args, 7).empty());
}

// The parser does not look at the byte after a header's '\r' nor at a payload's terminator
// (as Redis's does not): such bytes run as a command, but are not copied into a record.
TEST(RequestBytesTest, LenientBytesAreNotCopied) {
  struct Case {
    std::string_view request;
    std::size_t clean_from;  // the arguments from here on are canonical
  };
  for (Case c : {
           Case{"*3\r_$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"sv, 0},  // the array header: not copied
           Case{"*3\r\n$3\r\nSET\r\n$1\r_k\r\n$1\r\nv\r\n"sv, 2},  // an argument's header
           Case{"*3\r\n$3\r\nSET\r\n$0\r_\r\n$1\r\nv\r\n"sv, 2},   // an empty argument's header
           Case{"*3\r\n$3\r\nSETXY$1\r\nk\r\n$1\r\nv\r\n"sv, 1},   // a payload's terminator
           Case{"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\rX"sv, 3},  // the last one's '\n'
           Case{"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nvX\n"sv, 3},  // the last one's '\r'
       }) {
    SCOPED_TRACE(c.request);
    std::vector<std::string_view> args = Parse(c.request);
    ASSERT_EQ(args.size(), 3u);
    EXPECT_EQ(args[0], "SET");
    for (std::size_t from = 0; from < 3; ++from) {
      std::string_view raw = raw_args(args, from);
      if (from < c.clean_from) {
        EXPECT_TRUE(raw.empty()) << from;
      } else {
        // What put_command writes for them, less the array header.
        EXPECT_EQ(raw,
                  Encode(std::vector<std::string_view>(args.begin() + from, args.end())).substr(4))
            << from;
      }
    }
  }
  // Digits the parser takes only in their canonical form: "$01", "$+1", "*02" go to parse().
  RequestParser parser;
  for (std::string_view request :
       {"*2\r\n$3\r\nGET\r\n$01\r\nk\r\n"sv, "*2\r\n$3\r\nGET\r\n$+1\r\nk\r\n"sv,
        "*02\r\n$3\r\nGET\r\n$1\r\nk\r\n"sv}) {
    std::vector<std::string_view> args;
    std::size_t used = 0;
    EXPECT_FALSE(parser.parse_ready(request, used, args)) << request;
  }
}

// The request in a buffer with more after it (the next pipelined command, a partial one).
TEST(RequestBytesTest, BytesAfterTheRequestAreNotTaken) {
  std::string request = Encode({"SET", "k", "v"});
  std::string buffer = request + "*1\r\n$4\r\nPI";
  RequestParser parser;
  std::vector<std::string_view> args;
  std::size_t used = 0;
  ASSERT_TRUE(parser.parse_ready(buffer, used, args));
  EXPECT_EQ(used, request.size());
  EXPECT_EQ(raw_args(args, 0), request.substr(4));
  EXPECT_EQ(raw_args(args, 0).data(), buffer.data() + 4);
}

}  // namespace
}  // namespace streamd::resp
