// The bytes a client sent for a request's arguments, reused as they are. A record propagated to
// the AOF and the replicas is mostly the client's own arguments (a write's whole argv, an XADD's
// fields): copying their encoding from the request costs one memcpy, where encoding them again
// costs a header and a copy per argument.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "streamd/resp/command_encoder.h"

namespace streamd::resp {

namespace detail {

inline bool is_crlf(const char* p) {
  std::uint16_t w;
  std::memcpy(&w, p, 2);
  return w == static_cast<std::uint16_t>('\r' | ('\n' << 8));
}

// Whether `bytes` are exactly what put_command writes for args[from..] (less the array header),
// in place: every header and terminator compared byte for byte. What raw_args concludes from
// less, checked in full where asserts run.
inline bool is_encoding_of(std::string_view bytes, std::span<const std::string_view> args,
                           std::size_t from) {
  const char* next = bytes.data();
  const char* end = bytes.data() + bytes.size();
  for (std::size_t i = from; i < args.size(); ++i) {
    std::string_view a = args[i];
    char header[kMaxHeader];
    std::size_t h = static_cast<std::size_t>(put_header(header, '$', a.size()) - header);
    if (a.data() - h != next || a.size() + 2 > static_cast<std::size_t>(end - a.data()) ||
        std::string_view(next, h) != std::string_view(header, h) || !is_crlf(a.data() + a.size())) {
      return false;
    }
    next = a.data() + a.size() + 2;
  }
  return next == end;
}

}  // namespace detail

// The encoding of one argument ("$<len>\r\n<bytes>\r\n") inside bytes raw_args returned: its
// header and terminator are there, canonical, around the view.
inline std::string_view arg_bytes(std::string_view arg) {
  std::size_t header = 3 + detail::digits(arg.size());
  return std::string_view(arg.data() - header, header + arg.size() + 2);
}

// `args` are all the arguments of one request, as RequestParser::parse_ready parsed them (views
// into the request's bytes, in order). Returns the bytes that encode args[from], args[from + 1],
// ... to the last argument when they are exactly what put_command writes for them; otherwise
// (no args[from], or bytes the lenient parser let through, such as `$3\r_SET`) an empty view,
// and the caller encodes the arguments itself.
//
// parse_ready's layout does most of the work: each header is canonical up to its '\r' and
// starts two bytes after the previous payload, and each argument two bytes after its header's
// '\r'. What is left to compare is the two bytes before each argument (its header's CRLF) and
// the two after it: two 16-bit compares per argument.
inline std::string_view raw_args(std::span<const std::string_view> args, std::size_t from) {
  if (from >= args.size()) return {};
  for (std::size_t i = from; i < args.size(); ++i) {
    const char* a = args[i].data();
    if (!detail::is_crlf(a - 2) || !detail::is_crlf(a + args[i].size())) return {};
  }
  const char* first =
      from > 0 ? args[from - 1].data() + args[from - 1].size() + 2 : arg_bytes(args[0]).data();
  const char* end = args.back().data() + args.back().size() + 2;
  std::string_view raw(first, static_cast<std::size_t>(end - first));
  assert(detail::is_encoding_of(raw, args, from));
  return raw;
}

}  // namespace streamd::resp
