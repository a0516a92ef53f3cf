#include "streamd/resp/request_parser.h"
#include <algorithm>
#include <climits>
#include <cstring>

#include "streamd/text/split_args.h"

namespace streamd::resp {

namespace {

// Strict decimal long long, as Redis reads lengths in request headers: an optional '-', then
// digits with no leading zero (only "0" itself may start with 0), nothing else, no overflow.
bool parse_length(std::string_view s, long long& out) {
  if (s.empty()) return false;
  if (s.size() == 1 && s[0] == '0') {
    out = 0;
    return true;
  }
  std::size_t i = 0;
  bool negative = s[0] == '-';
  if (negative) ++i;
  if (i == s.size() || s[i] < '1' || s[i] > '9') return false;
  // At most 19 digits cannot overflow 64 bits; a 20th digit is the only one that needs checking,
  // and any longer number is out of range anyway.
  const std::size_t digits = s.size() - i;
  if (digits > 20) return false;
  unsigned long long v = 0;
  for (; i < s.size(); ++i) {
    unsigned d = static_cast<unsigned>(s[i] - '0');
    if (d > 9) return false;
    if (digits == 20 && i + 1 == s.size() && v > (ULLONG_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  constexpr unsigned long long kMaxPositive = static_cast<unsigned long long>(LLONG_MAX);
  if (negative) {
    if (v > kMaxPositive + 1) return false;
    out = v == kMaxPositive + 1 ? LLONG_MIN : -static_cast<long long>(v);
  } else {
    if (v > kMaxPositive) return false;
    out = static_cast<long long>(v);
  }
  return true;
}

// A header at `pos` (its type byte, then digits, then '\r' and one more byte) read in one pass,
// for what clients send: a well-formed non-negative number of at most 18 digits, all of it
// buffered. Sets `n` and `next` (the offset after the header) and returns true; anything else (a
// sign, a leading zero, a NUL or another byte, a line not all here) returns false and the general
// path (scan_line, parse_length) decides, with the same outcome for what this accepts.
// Inlined: parse_whole calls it for every header of every command.
[[gnu::always_inline]] inline bool quick_header(std::string_view in, std::size_t pos, long long& n,
                                                std::size_t& next) {
  const std::size_t size = in.size();
  std::size_t i = pos + 1;
  if (i >= size) return false;
  if (in[i] == '0') {
    if (i + 2 >= size || in[i + 1] != '\r') return false;
    n = 0;
    next = i + 3;
    return true;
  }
  const std::size_t end = std::min(size, i + 18);
  long long v = 0;
  std::size_t start = i;
  while (i < end) {
    unsigned d = static_cast<unsigned char>(in[i]) - static_cast<unsigned>('0');
    if (d > 9) break;
    v = v * 10 + static_cast<long long>(d);
    ++i;
  }
  if (i == start || i + 1 >= size || in[i] != '\r') return false;
  n = v;
  next = i + 2;
  return true;
}

}  // namespace

void RequestParser::reset() {
  bytes_wanted_ = 0;
  scan_pos_ = 0;
  scan_blocked_ = false;
  mb_expected_ = -1;
  mb_bulk_len_ = -1;
  mb_pos_ = 0;
  mb_args_.clear();
}

RequestParser::Status RequestParser::fail(std::string msg) {
  // The client sees the text on one line: Redis turns CR and LF into spaces.
  std::replace_if(
      msg.begin(), msg.end(), [](char c) { return c == '\r' || c == '\n'; }, ' ');
  error_ = std::move(msg);
  reset();
  return Status::kError;
}

RequestParser::Status RequestParser::parse(std::string_view input, std::size_t& consumed,
                                           std::vector<std::string_view>& args) {
  consumed = 0;
  args.clear();
  bytes_wanted_ = 0;
  // Saved progress beyond the input means the caller broke the contract (discarded bytes without
  // reset()): start over rather than read out of bounds.
  if (mb_pos_ > input.size() || scan_pos_ > input.size()) reset();
  if (input.empty()) return Status::kNeedMore;
  if (input[0] == '*') return parse_multibulk(input, consumed, args);
  return parse_inline(input, consumed, args);
}

RequestParser::LineScan RequestParser::scan_line(std::string_view input, std::size_t from,
                                                 char term, std::size_t& at) {
  if (!scan_blocked_) {
    std::size_t pos = std::max(from, scan_pos_);
    const std::size_t size = input.size();
    // Header lines are a few bytes long: a plain loop beats two memchr calls there. Longer lines
    // (inline commands) go on with memchr.
    const std::size_t quick_end = std::min(size, pos + 16);
    while (pos < quick_end && input[pos] != term && input[pos] != '\0') ++pos;
    if (pos == quick_end && pos < size) {
      const char* begin = input.data() + pos;
      const void* t = std::memchr(begin, term, size - pos);
      std::size_t until =
          t ? static_cast<std::size_t>(static_cast<const char*>(t) - begin) : size - pos;
      const void* nul = std::memchr(begin, '\0', until);
      pos += nul ? static_cast<std::size_t>(static_cast<const char*>(nul) - begin) : until;
    }
    scan_pos_ = pos;
    if (pos < size && input[pos] == term) {
      at = pos;  // scan_pos_ stays here: a re-scan (waiting for the byte after '\r') is instant
      return LineScan::kFound;
    }
    if (pos < size) scan_blocked_ = true;  // a NUL hides the terminator for good
  }
  if (input.size() - from > limits_.max_inline_len) return LineScan::kTooBig;
  return LineScan::kMissing;
}

RequestParser::Status RequestParser::parse_inline(std::string_view input, std::size_t& consumed,
                                                  std::vector<std::string_view>& args) {
  std::size_t newline = 0;
  switch (scan_line(input, 0, '\n', newline)) {
    case LineScan::kTooBig:
      return fail("ERR Protocol error: too big inline request");
    case LineScan::kMissing:
      return Status::kNeedMore;
    case LineScan::kFound:
      break;
  }
  std::size_t end = newline;
  if (end > 0 && input[end - 1] == '\r') --end;
  scan_pos_ = 0;
  // Plain arguments are views into the input; quoted ones are unescaped into inline_storage_.
  if (!text::split_args(input.substr(0, end), inline_storage_, args)) {
    args.clear();
    return fail("ERR Protocol error: unbalanced quotes in request");
  }
  consumed = newline + 1;
  return Status::kComplete;
}

bool RequestParser::parse_whole(std::string_view input, std::size_t& consumed,
                                std::vector<std::string_view>& args) const {
  const std::size_t size = input.size();
  long long count = 0;
  std::size_t pos = 0;
  if (!quick_header(input, 0, count, pos) || count <= 0 ||
      static_cast<unsigned long long>(count) > limits_.max_multibulk_len ||
      (limits_.unauthenticated && count > kUnauthMaxMultibulkLen)) {
    return false;
  }
  // Each argument takes at least 6 bytes ("$0\r\n\r\n"): a count the bytes present cannot hold
  // is not complete here (and must not size the vector).
  if (static_cast<unsigned long long>(count) > (size - pos) / 6) return false;
  const long long max_len =
      limits_.unauthenticated
          ? std::min<long long>(kUnauthMaxBulkLen, static_cast<long long>(limits_.max_bulk_len))
          : static_cast<long long>(limits_.max_bulk_len);
  const std::size_t first = args.size();
  args.reserve(first + static_cast<std::size_t>(count));  // no-op once the caller's vector grew
  for (long long k = 0; k < count; ++k) {
    long long len = 0;
    if (pos >= size || input[pos] != '$' || !quick_header(input, pos, len, pos) || len > max_len ||
        size - pos < static_cast<std::size_t>(len) + 2) {
      break;
    }
    args.emplace_back(input.data() + pos, static_cast<std::size_t>(len));
    pos += static_cast<std::size_t>(len) + 2;  // the two bytes after it: unchecked, as Redis
    if (k + 1 == count) {
      consumed = pos;
      return true;
    }
  }
  args.resize(first);
  return false;
}

RequestParser::Status RequestParser::parse_multibulk(std::string_view input, std::size_t& consumed,
                                                     std::vector<std::string_view>& args) {
  if (mb_expected_ < 0 && parse_whole(input, consumed, args)) {
    reset();
    return Status::kComplete;
  }
  long long quick_n = 0;
  std::size_t quick_next = 0;
  if (mb_expected_ < 0 && quick_header(input, 0, quick_n, quick_next) && quick_n > 0 &&
      static_cast<unsigned long long>(quick_n) <= limits_.max_multibulk_len &&
      !(limits_.unauthenticated && quick_n > kUnauthMaxMultibulkLen)) {
    scan_pos_ = 0;
    mb_expected_ = quick_n;
    mb_bulk_len_ = -1;
    mb_pos_ = quick_next;
    mb_args_.clear();
  } else if (mb_expected_ < 0) {
    std::size_t cr = 0;
    switch (scan_line(input, 0, '\r', cr)) {
      case LineScan::kTooBig:
        return fail("ERR Protocol error: too big mbulk count string");
      case LineScan::kMissing:
        return Status::kNeedMore;
      case LineScan::kFound:
        break;
    }
    if (cr + 1 >= input.size()) return Status::kNeedMore;  // the byte after '\r' is not here
    long long n = 0;
    if (!parse_length(std::string_view(input.data() + 1, cr - 1), n) ||
        (n > 0 && static_cast<unsigned long long>(n) > limits_.max_multibulk_len)) {
      return fail("ERR Protocol error: invalid multibulk length");
    }
    if (limits_.unauthenticated && n > kUnauthMaxMultibulkLen) {
      return fail("ERR Protocol error: unauthenticated multibulk length");
    }
    scan_pos_ = 0;
    if (n <= 0) {  // "*0" and "*-1": nothing to run
      consumed = cr + 2;
      reset();
      return Status::kComplete;
    }
    mb_expected_ = n;
    mb_bulk_len_ = -1;
    mb_pos_ = cr + 2;
    mb_args_.clear();
  } else {
    for (const auto& [offset, len] : mb_args_) args.emplace_back(input.data() + offset, len);
  }

  auto need_more = [&]() {
    for (std::size_t i = mb_args_.size(); i < args.size(); ++i) {
      mb_args_.emplace_back(static_cast<std::size_t>(args[i].data() - input.data()),
                            args[i].size());
    }
    args.clear();
    return Status::kNeedMore;
  };

  while (static_cast<long long>(args.size()) < mb_expected_) {
    if (mb_bulk_len_ < 0 && input.size() > mb_pos_ && input[mb_pos_] == '$' &&
        quick_header(input, mb_pos_, quick_n, quick_next) &&
        static_cast<unsigned long long>(quick_n) <= limits_.max_bulk_len &&
        !(limits_.unauthenticated && quick_n > kUnauthMaxBulkLen)) {
      scan_pos_ = 0;
      mb_bulk_len_ = quick_n;
      mb_pos_ = quick_next;
    } else if (mb_bulk_len_ < 0) {
      std::size_t cr = 0;
      switch (scan_line(input, mb_pos_, '\r', cr)) {
        case LineScan::kTooBig:
          args.clear();
          return fail("ERR Protocol error: too big bulk count string");
        case LineScan::kMissing:
          return need_more();
        case LineScan::kFound:
          break;
      }
      if (cr + 1 >= input.size()) return need_more();
      if (input[mb_pos_] != '$') {
        args.clear();
        return fail(std::string("ERR Protocol error: expected '$', got '") + input[mb_pos_] + "'");
      }
      long long n = 0;
      if (!parse_length(std::string_view(input.data() + mb_pos_ + 1, cr - mb_pos_ - 1), n) ||
          n < 0 || static_cast<unsigned long long>(n) > limits_.max_bulk_len) {
        args.clear();
        return fail("ERR Protocol error: invalid bulk length");
      }
      if (limits_.unauthenticated && n > kUnauthMaxBulkLen) {
        args.clear();
        return fail("ERR Protocol error: unauthenticated bulk length");
      }
      scan_pos_ = 0;
      mb_bulk_len_ = n;
      mb_pos_ = cr + 2;
    }
    // The payload and the two bytes after it (skipped unchecked, as Redis does).
    std::size_t len = static_cast<std::size_t>(mb_bulk_len_);
    std::size_t end = mb_pos_ + len + 2;
    if (input.size() < end) {
      bytes_wanted_ = end - input.size();
      return need_more();
    }
    args.emplace_back(input.data() + mb_pos_, len);
    mb_pos_ = end;
    mb_bulk_len_ = -1;
  }
  consumed = mb_pos_;
  reset();
  return Status::kComplete;
}

}  // namespace streamd::resp
