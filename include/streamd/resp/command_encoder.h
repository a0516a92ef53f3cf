// Encodes a command line the way a client sends it: a RESP array of bulk strings
// (`*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n`). This is also the form of every record in an append-only
// file and of the command stream a replica receives, so the propagation path (commands/) and the
// AOF writer and rewrite (persist/) share it.
#pragma once

#include <charconv>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace streamd::resp {

namespace detail {
inline void append_header(std::string& out, char kind, std::size_t n) {
  char buf[24];
  buf[0] = kind;
  auto r = std::to_chars(buf + 1, buf + sizeof buf - 2, n);
  *r.ptr++ = '\r';
  *r.ptr++ = '\n';
  out.append(buf, static_cast<std::size_t>(r.ptr - buf));
}
}  // namespace detail

// Appends "*<n>\r\n" then "$<len>\r\n<arg>\r\n" for each argument.
template <class Str>
void append_command(std::string& out, std::span<const Str> argv) {
  detail::append_header(out, '*', argv.size());
  for (const auto& a : argv) {
    std::string_view v(a);
    detail::append_header(out, '$', v.size());
    out.append(v);
    out.append("\r\n", 2);
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
