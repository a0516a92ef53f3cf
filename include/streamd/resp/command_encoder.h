// Encodes a command line the way a client sends it: a RESP array of bulk strings
// (`*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n`). This is also the form of every record in an append-only
// file and of the command stream a replica receives, so the propagation path (commands/) and the
// AOF writer and rewrite (persist/) share it.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace streamd::resp {

namespace detail {
// The encoder runs for every record a replica or the AOF receives, so its common case (counts
// and lengths of one or two digits, short arguments) is forced inline, and what is rare (longer
// numbers, long arguments) is a call: inlined too, it made every caller save registers for it.
#define STREAMD_HOT_INLINE inline __attribute__((always_inline))

// Writes "<kind><n>\r\n" at p for n >= 100.
[[gnu::noinline]] inline char* put_long_header(char* p, char kind, std::size_t n) {
  *p++ = kind;
  p = std::to_chars(p, p + 20, n).ptr;
  *p++ = '\r';
  *p++ = '\n';
  return p;
}
// Writes "<kind><n>\r\n" at p (room for it is the caller's); returns the end.
STREAMD_HOT_INLINE char* put_header(char* p, char kind, std::size_t n) {
  if (n >= 100) return put_long_header(p, kind, n);
  p[0] = kind;
  if (n < 10) {
    p[1] = static_cast<char>('0' + n);
    p += 2;
  } else {
    p[1] = static_cast<char>('0' + n / 10);
    p[2] = static_cast<char>('0' + n % 10);
    p += 3;
  }
  p[0] = '\r';
  p[1] = '\n';
  return p + 2;
}
[[gnu::noinline]] inline std::size_t long_digits(std::size_t n) {
  std::size_t d = 3;
  for (n /= 1000; n > 0; n /= 10) ++d;
  return d;
}
STREAMD_HOT_INLINE std::size_t digits(std::size_t n) {
  if (n < 10) return 1;
  if (n < 100) return 2;
  return long_digits(n);
}
// The encoded size of one bulk argument: "$", the length's digits, CRLF, the bytes, CRLF.
STREAMD_HOT_INLINE std::size_t arg_size(std::size_t len) {
  return 5 + digits(len) + len;
}
// Copies n bytes (sizeof(Word) <= n <= 2 * sizeof(Word)) as a Word at each end; the two may
// overlap.
template <class Word>
STREAMD_HOT_INLINE void put_ends(char* p, const char* s, std::size_t n) {
  Word first, last;
  std::memcpy(&first, s, sizeof(Word));
  std::memcpy(&last, s + n - sizeof(Word), sizeof(Word));
  std::memcpy(p, &first, sizeof(Word));
  std::memcpy(p + n - sizeof(Word), &last, sizeof(Word));
}
// Copies n bytes from s to p; returns p + n. Arguments are mostly short (names, IDs, numbers):
// up to 16 bytes are two overlapping fixed-size moves, which compile to plain loads and stores,
// instead of a call into the library's memcpy, whose dispatch costs more than the copy.
STREAMD_HOT_INLINE char* put_bytes(char* p, const char* s, std::size_t n) {
  if (n > 16) {
    std::memcpy(p, s, n);
  } else if (n >= 8) {
    put_ends<std::uint64_t>(p, s, n);
  } else if (n >= 4) {
    put_ends<std::uint32_t>(p, s, n);
  } else if (n > 0) {
    // 1 to 3 bytes: the first, the middle and the last (some of them the same byte).
    p[0] = s[0];
    p[n / 2] = s[n / 2];
    p[n - 1] = s[n - 1];
  }
  return p + n;
}
STREAMD_HOT_INLINE char* put_arg(char* p, std::string_view v) {
  p = put_header(p, '$', v.size());
  p = put_bytes(p, v.data(), v.size());
  *p++ = '\r';
  *p++ = '\n';
  return p;
}
#undef STREAMD_HOT_INLINE

// The longest header: a kind byte, 20 digits (2^64 - 1), CRLF.
inline constexpr std::size_t kMaxHeader = 23;
}  // namespace detail

// The encoded size of an argument list (for sizing buffers and reporting file growth).
template <class Str>
std::size_t encoded_command_size(std::span<const Str> argv) {
  std::size_t total = 3 + detail::digits(argv.size());
  for (const auto& a : argv) total += detail::arg_size(std::string_view(a).size());
  return total;
}

// Writes "*<n>\r\n" then "$<len>\r\n<arg>\r\n" for each argument at p (room for them is the
// caller's) and returns the end: for a buffer that is already large enough (PropagationBatch).
template <class Str>
char* put_command(char* p, std::span<const Str> argv) {
  p = detail::put_header(p, '*', argv.size());
  for (const auto& a : argv) p = detail::put_arg(p, std::string_view(a));
  return p;
}
// The same for `head` followed by each pair's `field` and `value` (XADD's fields), without
// building an argument list first.
template <class Str, class Pair>
char* put_command(char* p, std::span<const Str> head, std::span<const Pair> pairs) {
  p = detail::put_header(p, '*', head.size() + 2 * pairs.size());
  for (const auto& a : head) p = detail::put_arg(p, std::string_view(a));
  for (const auto& fv : pairs) {
    p = detail::put_arg(p, std::string_view(fv.field));
    p = detail::put_arg(p, std::string_view(fv.value));
  }
  return p;
}

// The same for `argc` arguments spliced from pieces: `before` and `after` are arguments already
// encoded (bytes a client sent, see request_bytes.h), copied as they are, and `middle` is encoded
// between them. Either copied piece may be empty.
template <class Str>
char* put_command(char* p, std::size_t argc, std::string_view before, std::span<const Str> middle,
                  std::string_view after) {
  p = detail::put_header(p, '*', argc);
  p = detail::put_bytes(p, before.data(), before.size());
  for (const auto& a : middle) p = detail::put_arg(p, std::string_view(a));
  return detail::put_bytes(p, after.data(), after.size());
}

// At least what put_command writes, without counting digits: a header is at most 1 + 20 + 2
// bytes, and each argument adds its CRLF. For a buffer that makes room first and keeps what
// put_command wrote (PropagationBatch).
template <class Str>
std::size_t command_size_bound(std::span<const Str> argv) {
  std::size_t size = detail::kMaxHeader * (1 + argv.size()) + 2 * argv.size();
  for (const auto& a : argv) size += std::string_view(a).size();
  return size;
}
template <class Str, class Pair>
std::size_t command_size_bound(std::span<const Str> head, std::span<const Pair> pairs) {
  std::size_t size = command_size_bound(head) + 2 * (detail::kMaxHeader + 2) * pairs.size();
  for (const auto& fv : pairs) {
    size += std::string_view(fv.field).size() + std::string_view(fv.value).size();
  }
  return size;
}

// Appends put_command's bytes to `out`, sized once and written in place (growing the string
// piece by piece, two or three appends per argument, cost about twice as much).
template <class Str>
void append_command(std::string& out, std::span<const Str> argv) {
  std::size_t at = out.size();
  out.resize(at + encoded_command_size(argv));
  put_command(out.data() + at, argv);
}
inline void append_command(std::string& out, std::initializer_list<std::string_view> argv) {
  append_command(out, std::span<const std::string_view>(argv.begin(), argv.size()));
}

}  // namespace streamd::resp
