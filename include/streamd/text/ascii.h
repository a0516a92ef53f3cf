// ASCII helpers every layer shares. Redis compares command names, subcommands, options and
// header names without regard to ASCII case (strcasecmp in the C locale: bytes outside A-Z are
// compared as they are), and reads \xHH escapes the same way in requests, config lines and the
// AOF manifest; these are the one copy of each.
#pragma once

#include <cstddef>
#include <string_view>

namespace streamd::text {

constexpr char ascii_lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Equal ignoring ASCII case.
constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

// The value of a hexadecimal digit (either case), or -1 for any other byte.
constexpr int hex_digit_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr bool is_hex_digit(char c) noexcept {
  return hex_digit_value(c) >= 0;
}

}  // namespace streamd::text
