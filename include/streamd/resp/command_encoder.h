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
// Writes "<kind><n>\r\n" at p (room for it is the caller's); returns the end.
inline char* put_header(char* p, char kind, std::size_t n) {
  *p++ = kind;
  p = std::to_chars(p, p + 20, n).ptr;
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
  for (const auto& a : argv) {
    std::string_view v(a);
    p = detail::put_header(p, '$', v.size());
    if (!v.empty()) std::memcpy(p, v.data(), v.size());
    p += v.size();
    *p++ = '\r';
    *p++ = '\n';
  }
}

inline void append_command(std::string& out, std::initializer_list<std::string_view> argv) {
  append_command(out, std::span<const std::string_view>(argv.begin(), argv.size()));
}

// The encoded size of an argument list (for sizing buffers and reporting file growth).
template <class Str>
std::size_t encoded_command_size(std::span<const Str> argv) {
  auto digits = [](std::size_t n) {
    std::size_t d = 1;
    while (n >= 10) {
      n /= 10;
      ++d;
    }
    return d;
  };
  std::size_t total = 3 + digits(argv.size());
  for (const auto& a : argv) {
    std::size_t len = std::string_view(a).size();
    total += 3 + digits(len) + len + 2;
  }
  return total;
}

}  // namespace streamd::resp
