// A sans-I/O, incremental parser of client requests: RESP multibulk arrays (`*2\r\n$4\r\nPING...`)
// and inline commands (`PING hello\r\n`, with the quoting rules redis-cli and telnet users rely
// on). It knows nothing of sockets or commands: bytes in, argument vectors out.
//
// Usage: the caller keeps unparsed bytes in its own buffer and calls parse() with everything it
// has not consumed yet. On kComplete, `args` holds the command's arguments and `consumed` the
// number of bytes the command used; views point into the caller's buffer or into the parser's own
// storage, and stay valid until the caller changes that buffer or calls parse() again.
// On kNeedMore, nothing is consumed and the parser may remember how far it got, so that a large
// bulk arriving in pieces is not re-scanned from the start (the caller must pass the same bytes
// again, extended, and must call reset() if it ever discards them).
// On kError, error() is the full Redis text without the leading '-' (for example
// "ERR Protocol error: invalid bulk length"); the caller replies with it and closes the
// connection once the reply is flushed.
//
// Behaviour follows redis-server 7.0.15 as observed on the wire:
// - A request starting with '*' is multibulk, anything else is inline.
// - Lines are found the way Redis finds them in its NUL-terminated query buffer: the search for
//   the terminator ('\r' for multibulk headers, '\n' for inline lines) stops at a NUL byte, so a
//   header or inline line containing NUL never completes (until the too-big limit below).
// - The byte after a header's '\r', and the two bytes after a bulk's payload, are skipped without
//   being checked (Redis does not check them either).
// - "too big" errors (inline request, mbulk count string, bulk count string) are raised when the
//   bytes *currently buffered* after the line start exceed max_inline_len and hold no terminator.
//   Like Redis's own behaviour, this depends on how much had arrived when parse() was called: a
//   line longer than max_inline_len that arrives whole is accepted, the same line arriving in
//   small pieces is refused. Every other outcome is independent of how the input is split.
// - Numbers in headers are strict decimal long longs: no sign but '-', no leading zeros, no
//   spaces, no "-0". Arrays of length <= 0 are skipped (kComplete with no arguments).
// - With `unauthenticated` set, arrays longer than 10 and bulks longer than 16384 bytes are
//   refused with the "unauthenticated" errors (after the ordinary validity checks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace streamd::resp {

struct ParserLimits {
  std::size_t max_bulk_len = 512ull * 1024 * 1024;  // proto-max-bulk-len
  std::size_t max_multibulk_len = 2147483647;       // elements in one request array (INT_MAX)
  std::size_t max_inline_len = 64 * 1024;           // PROTO_INLINE_MAX_SIZE
  // Before AUTH (when requirepass is set) Redis accepts smaller requests only.
  bool unauthenticated = false;
};

class RequestParser {
 public:
  enum class Status { kComplete, kNeedMore, kError };

  // Limits Redis applies to clients that have not authenticated yet.
  static constexpr long long kUnauthMaxMultibulkLen = 10;
  static constexpr long long kUnauthMaxBulkLen = 16384;

  explicit RequestParser(ParserLimits limits = {}) : limits_(limits) {}

  void set_limits(const ParserLimits& limits) { limits_ = limits; }
  const ParserLimits& limits() const { return limits_; }

  // Parses at most one command from the front of `input`. An empty inline line parses as
  // kComplete with no arguments (the caller skips it, as Redis does).
  Status parse(std::string_view input, std::size_t& consumed, std::vector<std::string_view>& args);

  // Forgets partial progress (call when the caller's buffer is discarded).
  void reset();

  const std::string& error() const { return error_; }

  // A hint for the reader: the number of bytes the current partial request still needs, or 0
  // when unknown. Lets the connection read a large bulk in one piece.
  std::size_t bytes_wanted() const { return bytes_wanted_; }

  // Parses ahead: a whole, well-formed multibulk command at the front of `input`, appended to
  // `args`, exactly as parse() takes it; false, adding nothing, for anything else (parse() then
  // decides). Each header of a command it takes is canonical up to its '\r' ("$", the length's
  // digits with no sign or leading zero, '\r'), and each argument starts two bytes after that
  // '\r'; the byte between, and the two after each payload, are not checked (as in Redis):
  // resp::raw_args relies on the layout and checks those bytes. Changes no state: a caller can
  // parse several queued commands before running the first, provided it takes them in order and
  // with the same limits. `input` must start at a command; progress parse() saved on that command
  // (a partial read) is then the caller's to drop with reset() once it takes the command from here.
  bool parse_ready(std::string_view input, std::size_t& consumed,
                   std::vector<std::string_view>& args) const {
    return parse_whole(input, consumed, args);
  }

 private:
  // Where the terminator of a line starting at `from` is, as far as the bytes show.
  enum class LineScan { kFound, kMissing, kTooBig };

  Status fail(std::string msg);
  Status parse_inline(std::string_view input, std::size_t& consumed,
                      std::vector<std::string_view>& args);
  Status parse_multibulk(std::string_view input, std::size_t& consumed,
                         std::vector<std::string_view>& args);
  // A whole, well-formed multibulk command at the front of `input`, parsed in one pass with no
  // saved state (what clients send, pipelined or not). False for anything else, having added
  // nothing to `args`: the general path then decides, with the same outcome for what this takes.
  bool parse_whole(std::string_view input, std::size_t& consumed,
                   std::vector<std::string_view>& args) const;
  // Looks for `term` from `from`, resuming the scan where the previous call for the same line
  // stopped. On kFound, `at` is the terminator's offset.
  LineScan scan_line(std::string_view input, std::size_t from, char term, std::size_t& at);

  ParserLimits limits_;
  std::string error_;
  std::size_t bytes_wanted_ = 0;

  // Line scanning memo: bytes in [line start, scan_pos_) hold neither the terminator nor NUL;
  // scan_blocked_ means a NUL was found first, so the line can never complete.
  std::size_t scan_pos_ = 0;
  bool scan_blocked_ = false;

  // Progress through a multibulk request that is not complete yet: offsets into the caller's
  // buffer, so the buffer may be reallocated (but not shifted) between calls.
  long long mb_expected_ = -1;  // array length, -1 = not read yet
  long long mb_bulk_len_ = -1;  // length of the bulk being read, -1 = its header is next
  std::size_t mb_pos_ = 0;      // offset of the next unread byte
  std::vector<std::pair<std::size_t, std::size_t>> mb_args_;  // (offset, length) of done args

  // Unescaped bytes of inline arguments that used quotes (text::split_args reserves it to the
  // line's length, so views into it stay valid while it is filled).
  std::string inline_storage_;
};

}  // namespace streamd::resp
