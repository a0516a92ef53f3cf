#include "streamd/config/syntax.h"

#include <limits>
#include "streamd/text/ascii.h"
#include "streamd/text/repr.h"

namespace streamd::config {

std::string quote(std::string_view s) {
  return text::repr(s);
}

std::string_view trim_line(std::string_view line) {
  constexpr std::string_view kTrim = " \t\r\n";
  const std::size_t b = line.find_first_not_of(kTrim);
  if (b == std::string_view::npos) return {};
  const std::size_t e = line.find_last_not_of(kTrim);
  return line.substr(b, e - b + 1);
}

std::vector<std::string> split_spaces(std::string_view s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t sp = s.find(' ', start);
    if (sp == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, sp - start));
    start = sp + 1;
  }
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  return text::iequals(a, b);
}

std::optional<std::int64_t> parse_strict_int(std::string_view s) noexcept {
  if (s.empty() || s.size() > 20) return std::nullopt;
  bool negative = false;
  std::size_t i = 0;
  if (s[0] == '-') {
    negative = true;
    i = 1;
    if (s.size() == 1) return std::nullopt;
  }
  if (s[i] == '0') {
    if (s.size() == 1) return 0;
    return std::nullopt;  // leading zero or "-0"
  }
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c < '0' || c > '9') return std::nullopt;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  constexpr std::uint64_t kMax =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (v > kMax + 1) return std::nullopt;
    return v == kMax + 1 ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(v);
  }
  if (v > kMax) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

std::optional<std::uint64_t> parse_memory(std::string_view s) noexcept {
  std::size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  const std::string unit = ascii_lower(s.substr(digits));
  std::uint64_t mul;
  if (unit.empty() || unit == "b") {
    mul = 1;
  } else if (unit == "k") {
    mul = 1000;
  } else if (unit == "kb") {
    mul = 1024;
  } else if (unit == "m") {
    mul = 1000 * 1000;
  } else if (unit == "mb") {
    mul = 1024 * 1024;
  } else if (unit == "g") {
    mul = 1000ull * 1000 * 1000;
  } else if (unit == "gb") {
    mul = 1024ull * 1024 * 1024;
  } else {
    return std::nullopt;
  }
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    const std::uint64_t d = static_cast<std::uint64_t>(s[i] - '0');
    if (v > (kMax - d) / 10) return kMax;
    v = v * 10 + d;
  }
  if (v > kMax / mul) return kMax;
  return v * mul;
}

std::string format_memory(std::uint64_t bytes) {
  constexpr std::uint64_t kKb = 1024, kMb = kKb * 1024, kGb = kMb * 1024;
  if (bytes != 0) {
    if (bytes % kGb == 0) return std::to_string(bytes / kGb) + "gb";
    if (bytes % kMb == 0) return std::to_string(bytes / kMb) + "mb";
    if (bytes % kKb == 0) return std::to_string(bytes / kKb) + "kb";
  }
  return std::to_string(bytes);
}

}  // namespace streamd::config
