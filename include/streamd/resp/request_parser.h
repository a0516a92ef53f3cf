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
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::resp {

struct ParserLimits {
  std::size_t max_bulk_len = 512ull * 1024 * 1024;       // proto-max-bulk-len
  std::size_t max_multibulk_len = 1024ull * 1024 * 1024;  // elements in one request array
  std::size_t max_inline_len = 64 * 1024;                 // PROTO_INLINE_MAX_SIZE
  // Before AUTH (when requirepass is set) Redis accepts smaller requests only.
  bool unauthenticated = false;
};

class RequestParser {
 public:
  enum class Status { kComplete, kNeedMore, kError };

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

 private:
  Status fail(std::string msg);
  Status parse_inline(std::string_view input, std::size_t& consumed,
                      std::vector<std::string_view>& args);
  Status parse_multibulk(std::string_view input, std::size_t& consumed,
                         std::vector<std::string_view>& args);

  ParserLimits limits_;
  std::string error_;
  std::size_t bytes_wanted_ = 0;

  // Progress through a multibulk request that is not complete yet: offsets into the caller's
  // buffer, so the buffer may be reallocated (but not shifted) between calls.
  long long mb_expected_ = -1;                               // array length, -1 = not read yet
  std::size_t mb_pos_ = 0;                                   // offset of the next unread byte
  std::vector<std::pair<std::size_t, std::size_t>> mb_args_;  // (offset, length) of done args

  // Unescaped arguments of an inline command that used quotes.
  std::vector<std::string> inline_storage_;
};

}  // namespace streamd::resp
