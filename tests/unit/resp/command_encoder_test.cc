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

}  // namespace
}  // namespace streamd::resp
