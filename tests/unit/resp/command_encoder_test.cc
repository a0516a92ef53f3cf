// The command encoder writes what a client sends; the request parser must read it back.
#include "streamd/resp/command_encoder.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/resp/request_parser.h"

namespace streamd::resp {
namespace {

struct Pair {
  std::string_view field, value;
};

// The pair form written into room for its bound, appended to `out` (what PropagationBatch does).
void append_pairs(std::string& out, std::span<const std::string_view> head,
                  std::span<const Pair> pairs) {
  std::size_t at = out.size();
  out.resize(at + command_size_bound(head, pairs));
  char* end = put_command(out.data() + at, head, pairs);
  out.resize(static_cast<std::size_t>(end - out.data()));
}

TEST(CommandEncoderTest, ExactBytes) {
  std::string out;
  append_command(out, {"DEL", "k"});
  EXPECT_EQ(out, "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n");
  append_command(out, {""});
  EXPECT_EQ(out, "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n*1\r\n$0\r\n\r\n");
}

TEST(CommandEncoderTest, SizeMatchesAndParsesBack) {
  std::vector<std::string> argv = {
      "XADD", "s", "*", std::string(12345, 'v'), std::string("a\r\n\0b", 5), ""};
  for (int i = 0; i < 12; ++i) argv.push_back(std::to_string(i));
  std::string out;
  append_command(out, std::span<const std::string>(argv));
  EXPECT_EQ(out.size(), encoded_command_size(std::span<const std::string>(argv)));

  RequestParser parser;
  std::size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(parser.parse(out, consumed, args), RequestParser::Status::kComplete);
  EXPECT_EQ(consumed, out.size());
  EXPECT_EQ(std::vector<std::string>(args.begin(), args.end()), argv);
}

TEST(CommandEncoderTest, EmptyCommand) {
  std::vector<std::string_view> none;
  std::string out;
  append_command(out, std::span<const std::string_view>(none));
  EXPECT_EQ(out, "*0\r\n");
  EXPECT_EQ(encoded_command_size(std::span<const std::string_view>(none)), out.size());
}

// The header fast paths (one and two digits) and the general one meet at 9/10, 99/100, 999/1000.
TEST(CommandEncoderTest, LengthsAtEveryDigitBoundary) {
  for (std::size_t len : {0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 1001, 9999, 10000, 123456}) {
    std::vector<std::string> argv(len < 200 ? len : 3, "x");
    argv.push_back(std::string(len, 'y'));
    std::string out;
    append_command(out, std::span<const std::string>(argv));
    std::string want = "*" + std::to_string(argv.size()) + "\r\n";
    for (const auto& a : argv) want += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
    EXPECT_EQ(out, want) << len;
    EXPECT_EQ(encoded_command_size(std::span<const std::string>(argv)), want.size()) << len;
  }
}

// The pair form (an XADD's fields, encoded from where they are) gives the bytes of the argument
// list it stands for.
TEST(CommandEncoderTest, PairFormMatchesTheFlatArgumentList) {
  std::vector<std::string> store;
  for (int i = 0; i < 120; ++i) store.push_back(std::string(static_cast<std::size_t>(i * 7), 'f'));
  for (std::size_t npairs : {0, 1, 4, 49, 50, 60}) {
    std::vector<std::string_view> head = {"XADD", "key", "MAXLEN", "=", "1000", "1-1"};
    std::vector<Pair> pairs;
    std::vector<std::string_view> flat = head;
    for (std::size_t i = 0; i < npairs; ++i) {
      pairs.push_back({store[2 * i], store[2 * i + 1]});
      flat.push_back(store[2 * i]);
      flat.push_back(store[2 * i + 1]);
    }
    std::string got = "prefix";
    append_pairs(got, head, pairs);
    std::string want = "prefix";
    append_command(want, std::span<const std::string_view>(flat));
    EXPECT_EQ(got, want) << npairs;
  }
}

// Short arguments are copied with overlapping fixed-size moves (1-3, 4-7, 8-16 bytes) and longer
// ones with memcpy: every length across those seams, with bytes that differ by position so a
// misplaced or missing byte shows, is written exactly.
// Each argument's encoding, back to back, without an array header: what a client's request
// holds after its "*<n>\r\n".
std::string encoded_args(std::span<const std::string_view> args) {
  std::string out;
  for (std::string_view a : args) {
    std::string one;
    append_command(one, {a});
    out += one.substr(4);  // less "*1\r\n"
  }
  return out;
}

// The splicing form (a record copied from a client's request around one argument it replaces):
// for every split of an argument list into copied, encoded and copied pieces, the same bytes as
// encoding the whole list, and nothing written past them.
TEST(CommandEncoderTest, SplicedFormMatchesTheFlatArgumentList) {
  std::vector<std::string_view> argv = {
      "XADD", "stream", "1765000000000-12", "temperature", "23.5", std::string_view("a\r\n\0b", 5),
      ""};
  std::string whole;
  append_command(whole, std::span<const std::string_view>(argv));
  for (std::size_t i = 0; i <= argv.size(); ++i) {
    for (std::size_t j = i; j <= argv.size(); ++j) {
      SCOPED_TRACE(testing::Message() << i << ".." << j);
      std::span<const std::string_view> all(argv);
      std::string before = encoded_args(all.subspan(0, i));
      std::string after = encoded_args(all.subspan(j));
      std::span<const std::string_view> middle = all.subspan(i, j - i);
      std::string written(command_size_bound(middle) + before.size() + after.size(), '#');
      char* end = put_command(written.data(), argv.size(), before, middle, after);
      ASSERT_LE(end, written.data() + written.size());
      EXPECT_EQ(std::string_view(written.data(), static_cast<std::size_t>(end - written.data())),
                whole);
    }
  }
}

TEST(CommandEncoderTest, EveryShortArgumentLengthIsCopiedExactly) {
  std::string source;
  for (int i = 0; i < 40; ++i) source.push_back(static_cast<char>('A' + i));
  for (std::size_t len = 0; len <= 40; ++len) {
    std::string_view arg(source.data(), len);
    std::string out = "..";
    append_command(out, {"SET", arg});
    std::string want = "..*2\r\n$3\r\nSET\r\n$" + std::to_string(len) + "\r\n";
    want.append(arg);
    want += "\r\n";
    EXPECT_EQ(out, want) << len;
  }
}

// command_size_bound is what a buffer makes room for before put_command writes: never less than
// what is written, at every digit boundary of counts and lengths.
TEST(CommandEncoderTest, SizeBoundCoversTheEncoding) {
  std::string big(123456, 'b');
  for (std::size_t len : {0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 123456}) {
    for (std::size_t count : {0, 1, 9, 10, 60}) {
      std::vector<std::string_view> head(count, std::string_view(big.data(), len));
      std::vector<Pair> pairs(count, Pair{std::string_view(big.data(), len), "v"});
      std::string flat;
      append_command(flat, std::span<const std::string_view>(head));
      EXPECT_GE(command_size_bound(std::span<const std::string_view>(head)), flat.size());
      // The pair form's bytes, from the argument list it stands for.
      std::vector<std::string_view> argv = head;
      for (const Pair& fv : pairs) {
        argv.push_back(fv.field);
        argv.push_back(fv.value);
      }
      std::string both;
      append_command(both, std::span<const std::string_view>(argv));
      EXPECT_GE(
          command_size_bound(std::span<const std::string_view>(head), std::span<const Pair>(pairs)),
          both.size());
      std::string written(both.size() + 1, '#');
      char* end = put_command(written.data(), std::span<const std::string_view>(head),
                              std::span<const Pair>(pairs));
      EXPECT_EQ(static_cast<std::size_t>(end - written.data()), both.size());
      EXPECT_EQ(written.substr(0, both.size()), both);
      EXPECT_EQ(written.back(), '#');  // nothing written past the end
    }
  }
}

}  // namespace
}  // namespace streamd::resp
