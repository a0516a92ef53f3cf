// Argument parsing helpers shared by handlers: numbers parsed with Redis's strictness (no
// leading spaces or '+', no trailing garbage, range checked), case-insensitive keywords, and
// ArgCursor, the cursor handlers walk their arguments with.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "streamd/commands/core/error_text.h"

namespace streamd::cmd {

bool iequals(std::string_view a, std::string_view b);

// Redis's string2ll: optional '-', digits, no leading zeros except "0", fits in int64.
std::optional<long long> parse_int(std::string_view s);
// Redis's string2ull-style for unsigned values.
std::optional<unsigned long long> parse_uint(std::string_view s);
// A finite or infinite double as Redis's string2ld accepts it (no spaces, no NaN).
std::optional<long double> parse_long_double(std::string_view s);
std::optional<double> parse_double(std::string_view s);

// A cursor over a command's arguments, for the option loops Redis writes with index arithmetic
// ("moreargs = argc - 1 - j"). It never reads past the end: next() and peek() past the end give
// an empty view, so a handler that checked too little fails to parse instead of crashing.
//
// Errors accumulate in the cursor rather than being replied: the parse functions return false
// after fail() and the handler replies error() once, keeping "exactly one reply" in the handler.
// Only the first error is kept, because Redis replies the first check that fails and stops.
//
//   ArgCursor cur(ctx.argv, 2);
//   while (!cur.done()) {
//     if (cur.match("count", 1)) {               // COUNT with one argument after it
//       if (!cur.next_int(count)) return false;  // "ERR value is not an integer or out of range"
//     } else {
//       return cur.fail(errors::kSyntax);
//     }
//   }
class ArgCursor {
 public:
  ArgCursor(std::span<const std::string_view> argv, std::size_t pos)
      : argv_(argv), pos_(pos < argv.size() ? pos : argv.size()) {}

  // Index of the next argument in argv (argc once done).
  std::size_t pos() const { return pos_; }
  // Arguments not consumed yet, the next one included.
  std::size_t remaining() const { return argv_.size() - pos_; }
  bool done() const { return pos_ == argv_.size(); }
  // The argument `ahead` places after the next one (0: the next), without consuming it.
  std::string_view peek(std::size_t ahead = 0) const {
    return ahead < remaining() ? argv_[pos_ + ahead] : std::string_view{};
  }
  // Consumes and returns the next argument.
  std::string_view next() {
    std::string_view a = peek();
    if (!done()) ++pos_;
    return a;
  }
  void skip(std::size_t n = 1) { pos_ = n < remaining() ? pos_ + n : argv_.size(); }
  // The arguments not consumed yet (e.g. XADD's field-value pairs after its ID).
  std::span<const std::string_view> rest() const { return argv_.subspan(pos_); }

  // Consumes the next argument if it is `word` (ASCII case-insensitive) and at least `after`
  // arguments follow it: Redis's `!strcasecmp(opt, "count") && moreargs` is match("count", 1).
  // A keyword without its arguments is not matched, so it falls to the caller's next branch.
  bool match(std::string_view word, std::size_t after = 0) {
    if (remaining() < after + 1 || !iequals(peek(), word)) return false;
    ++pos_;
    return true;
  }

  // Consume the next argument as a number. On a malformed (or missing) one they fail with
  // `error` (Redis's getLongLongFromObjectOrReply text unless the command has its own).
  bool next_int(long long& out, std::string_view error = errors::kNotInteger);
  bool next_double(double& out, std::string_view error = errors::kNotFloat);
  // next_int, then fails with `range_error` unless min <= out <= max (the number is consumed
  // either way).
  bool next_int_in(long long& out, long long min, long long max, std::string_view range_error,
                   std::string_view error = errors::kNotInteger);

  // Records `error` (if none is recorded yet) and returns false, for `return cur.fail(...)`.
  bool fail(std::string_view error);
  // fail(error) unless `ok`: `cur.require(n >= 0, errors::kMaxlenNegative)`.
  bool require(bool ok, std::string_view error) { return ok || fail(error); }
  bool failed() const { return failed_; }
  // The first error recorded: the handler's one error reply.
  const std::string& error() const { return error_; }

 private:
  std::span<const std::string_view> argv_;
  std::size_t pos_;
  bool failed_ = false;
  std::string error_;
};

}  // namespace streamd::cmd
