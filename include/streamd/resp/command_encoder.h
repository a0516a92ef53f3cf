// Encodes a command line the way a client sends it: a RESP array of bulk strings
// (`*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n`). This is also the form of every record in an append-only
// file and of the command stream a replica receives, so the propagation path (commands/) and the
// AOF writer and rewrite (persist/) share it.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace streamd::resp {

namespace detail {
// Writes "<kind><n>\r\n" at p (room for it is the caller's); returns the end. Counts and lengths
// are mostly one or two digits: those are written directly.
inline char* put_header(char* p, char kind, std::size_t n) {
  *p++ = kind;
  if (n < 10) {
    *p++ = static_cast<char>('0' + n);
  } else if (n < 100) {
    *p++ = static_cast<char>('0' + n / 10);
    *p++ = static_cast<char>('0' + n % 10);
  } else {
    p = std::to_chars(p, p + 20, n).ptr;
  }
  *p++ = '\r';
  *p++ = '\n';
  return p;
}
inline std::size_t digits(std::size_t n) {
  if (n < 10) return 1;
  if (n < 100) return 2;
  std::size_t d = 3;
  for (n /= 1000; n > 0; n /= 10) ++d;
  return d;
}
// The encoded size of one bulk argument.
inline std::size_t arg_size(std::size_t len) {
  return 3 + digits(len) + len + 2;
}
inline char* put_arg(char* p, std::string_view v) {
  p = put_header(p, '$', v.size());
  if (!v.empty()) std::memcpy(p, v.data(), v.size());
  p += v.size();
  *p++ = '\r';
  *p++ = '\n';
  return p;
}
}  // namespace detail

template <class Str>
std::size_t encoded_command_size(std::span<const Str> argv);

// Appends "*<n>\r\n" then "$<len>\r\n<arg>\r\n" for each argument. Sized once and written in
// place: every write command the AOF or a replica receives is encoded here, and growing the
// string piece by piece (two or three appends per argument) cost about twice as much.
template <class Str>
void append_command(std::string& out, std::span<const Str> argv) {
  std::size_t at = out.size();
  out.resize(at + encoded_command_size(argv));
  char* p = detail::put_header(out.data() + at, '*', argv.size());
  for (const auto& a : argv) p = detail::put_arg(p, std::string_view(a));
}

// The same for `head` followed by each pair's `field` and `value` (XADD's fields), without
// building an argument list first.
template <class Str, class Pair>
void append_command(std::string& out, std::span<const Str> head, std::span<const Pair> pairs) {
  std::size_t argc = head.size() + 2 * pairs.size();
  std::size_t size = 3 + detail::digits(argc);
  for (const auto& a : head) size += detail::arg_size(std::string_view(a).size());
  for (const auto& fv : pairs) {
    size += detail::arg_size(std::string_view(fv.field).size()) +
            detail::arg_size(std::string_view(fv.value).size());
  }
  std::size_t at = out.size();
  out.resize(at + size);
  char* p = detail::put_header(out.data() + at, '*', argc);
  for (const auto& a : head) p = detail::put_arg(p, std::string_view(a));
  for (const auto& fv : pairs) {
    p = detail::put_arg(p, std::string_view(fv.field));
    p = detail::put_arg(p, std::string_view(fv.value));
  }
}

inline void append_command(std::string& out, std::initializer_list<std::string_view> argv) {
  append_command(out, std::span<const std::string_view>(argv.begin(), argv.size()));
}

// The encoded size of an argument list (for sizing buffers and reporting file growth).
template <class Str>
std::size_t encoded_command_size(std::span<const Str> argv) {
  std::size_t total = 3 + detail::digits(argv.size());
  for (const auto& a : argv) total += detail::arg_size(std::string_view(a).size());
  return total;
}

}  // namespace streamd::resp
