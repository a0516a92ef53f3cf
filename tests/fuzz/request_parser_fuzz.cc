// libFuzzer target for RequestParser (build and run: tests/fuzz/build_and_run.sh).
//
// Input layout: byte 0 chooses the limits (bit 0: unauthenticated; bit 1: small limits derived
// from the other bits), byte 1 seeds the way the rest is split into reads, the rest is the byte
// stream a client sends. The stream is parsed whole, in pseudo-random reads and (when short)
// byte by byte, the way a connection does it; the outcomes must agree. The one permitted
// difference is Redis's own: a "too big" error can happen when a long line arrives in pieces but
// not when it arrives whole, and then the commands before it must still agree.
// Also checked: kNeedMore consumes nothing and yields no arguments, kComplete consumes something,
// multibulk arguments are views into the caller's buffer, errors are one-line protocol errors,
// and every multibulk command re-encoded parses back to the same arguments.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/resp/request_parser.h"

namespace {

using streamd::resp::ParserLimits;
using streamd::resp::RequestParser;
using Status = RequestParser::Status;
using Args = std::vector<std::string>;

struct Outcome {
  std::vector<Args> commands;
  std::string error;
  std::size_t leftover = 0;
};

void check(bool ok) {
  if (!ok) std::abort();
}

bool is_too_big(const std::string& error) {
  return error == "ERR Protocol error: too big inline request" ||
         error == "ERR Protocol error: too big mbulk count string" ||
         error == "ERR Protocol error: too big bulk count string";
}

std::string encode(const Args& args) {
  std::string s = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

// Feeds `input` in reads whose sizes come from `next_size` (0 = all the rest).
template <typename NextSize>
Outcome feed(std::string_view input, const ParserLimits& limits, NextSize next_size) {
  RequestParser parser(limits);
  Outcome out;
  std::string buf;
  std::size_t start = 0, fed = 0;
  std::vector<std::string_view> args;
  do {
    std::size_t n = next_size();
    if (n == 0 || n > input.size() - fed) n = input.size() - fed;
    buf.append(input.substr(fed, n));
    fed += n;
    while (true) {
      std::size_t consumed = 1;
      std::string_view view = std::string_view(buf).substr(start);
      Status s = parser.parse(view, consumed, args);
      if (s == Status::kNeedMore) {
        check(consumed == 0 && args.empty());
        break;
      }
      if (s == Status::kError) {
        const std::string& e = parser.error();
        check(consumed == 0 && args.empty());
        check(e.rfind("ERR Protocol error: ", 0) == 0);
        check(e.find('\r') == std::string::npos && e.find('\n') == std::string::npos);
        out.error = e;
        return out;
      }
      check(consumed > 0 && consumed <= view.size());
      if (view[0] == '*') {
        for (auto a : args) {
          check(a.data() >= view.data() && a.data() + a.size() <= view.data() + consumed);
        }
      }
      out.commands.emplace_back(args.begin(), args.end());
      start += consumed;
      if (start > 256) {  // a connection may drop consumed bytes between commands
        buf.erase(0, start);
        start = 0;
      }
    }
  } while (fed < input.size());
  out.leftover = buf.size() - start;
  return out;
}

void compare(const Outcome& whole, const Outcome& split) {
  if (split.commands == whole.commands && split.error == whole.error &&
      split.leftover == whole.leftover) {
    return;
  }
  // Only an earlier "too big" error may differ, after the same commands.
  check(is_too_big(split.error));
  check(split.commands.size() <= whole.commands.size());
  for (std::size_t i = 0; i < split.commands.size(); ++i) {
    check(split.commands[i] == whole.commands[i]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  ParserLimits limits;
  limits.unauthenticated = data[0] & 1;
  if (data[0] & 2) {
    std::size_t k = data[0] >> 2;  // 0..63
    limits.max_inline_len = 1 + k;
    limits.max_bulk_len = k * 3;
    limits.max_multibulk_len = 1 + k % 8;
  }
  std::uint32_t rng = 0x9e3779b9u * (data[1] + 1u);
  std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);

  Outcome whole = feed(input, limits, [] { return std::size_t{0}; });
  Outcome split = feed(input, limits, [&rng] {
    rng = rng * 1664525u + 1013904223u;
    std::uint32_t r = rng >> 16;
    return static_cast<std::size_t>((r & 1) ? 1 + (r >> 1) % 8 : 1 + (r >> 1) % 300);
  });
  compare(whole, split);
  if (input.size() <= 1024) {
    compare(whole, feed(input, limits, [] { return std::size_t{1}; }));
  }

  // Re-encoded as multibulk, every command parses back to the same arguments.
  ParserLimits roomy;
  for (const Args& args : whole.commands) {
    if (args.empty()) continue;
    std::string again = encode(args);
    RequestParser parser(roomy);
    std::size_t consumed = 0;
    std::vector<std::string_view> views;
    check(parser.parse(again, consumed, views) == Status::kComplete);
    check(consumed == again.size());
    check(Args(views.begin(), views.end()) == args);
  }
  return 0;
}
