// Reads a byte stream on stdin, parses it whole with RequestParser and prints what a connection
// would see, one line per command ("C <hex arg> <hex arg> ..."), then "E <error text>" or
// "W <bytes left waiting>". Used by parser_vs_redis.py to compare with redis-server.
// Flags: --unauth sets ParserLimits::unauthenticated.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "streamd/resp/request_parser.h"

int main(int argc, char** argv) {
  streamd::resp::ParserLimits limits;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--unauth") == 0) limits.unauthenticated = true;
  }
  std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  streamd::resp::RequestParser parser(limits);
  std::vector<std::string_view> args;
  std::size_t pos = 0;
  while (true) {
    std::size_t consumed = 0;
    auto status = parser.parse(std::string_view(input).substr(pos), consumed, args);
    if (status == streamd::resp::RequestParser::Status::kComplete) {
      std::printf("C");
      for (auto a : args) {
        std::printf(" ");
        for (char c : a) std::printf("%02x", static_cast<unsigned char>(c));
      }
      std::printf("\n");
      pos += consumed;
    } else if (status == streamd::resp::RequestParser::Status::kError) {
      std::printf("E %s\n", parser.error().c_str());
      return 0;
    } else {
      std::printf("W %zu\n", input.size() - pos);
      return 0;
    }
  }
}
