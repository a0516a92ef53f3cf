#include "streamd/commands/core/args.h"
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "streamd/text/ascii.h"

namespace streamd::cmd {

bool iequals(std::string_view a, std::string_view b) {
  return text::iequals(a, b);
}

std::optional<unsigned long long> parse_uint(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  if (s.size() > 1 && s[0] == '0') return std::nullopt;
  unsigned long long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    unsigned d = static_cast<unsigned>(c - '0');
    if (v > (std::numeric_limits<unsigned long long>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::optional<long long> parse_int(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = s[0] == '-';
  std::string_view digits = neg ? s.substr(1) : s;
  // Redis's string2ll refuses "-0" ("INCRBY k -0", "SELECT -0", "EXPIRE k -0" are errors).
  if (digits.empty() || (neg && digits == "0")) return std::nullopt;
  auto u = parse_uint(digits);
  if (!u) return std::nullopt;
  if (neg) {
    if (*u > static_cast<unsigned long long>(std::numeric_limits<long long>::max()) + 1ull) {
      return std::nullopt;
    }
    return static_cast<long long>(0ull - *u);
  }
  if (*u > static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
    return std::nullopt;
  }
  return static_cast<long long>(*u);
}

std::optional<long double> parse_long_double(std::string_view s) {
  if (s.empty() || s.size() >= 5120) return std::nullopt;
  if (std::isspace(static_cast<unsigned char>(s[0]))) return std::nullopt;
  std::string buf(s);
  char* end = nullptr;
  errno = 0;
  long double v = std::strtold(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size()) return std::nullopt;
  if (std::isnan(v)) return std::nullopt;
  // Out of range: Redis refuses an overflow (±HUGE_VAL) or an underflow to zero, but keeps a
  // denormal result and a literal "inf".
  if (errno == ERANGE && (std::isinf(v) || v == 0)) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (std::isspace(static_cast<unsigned char>(s[0]))) return std::nullopt;
  std::string buf(s);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size()) return std::nullopt;
  if (std::isnan(v)) return std::nullopt;
  if (errno == ERANGE && (std::isinf(v) || v == 0)) return std::nullopt;
  return v;
}

bool ArgCursor::next_int(long long& out, std::string_view error) {
  auto v = parse_int(next());
  if (!v) return fail(error);
  out = *v;
  return true;
}

bool ArgCursor::next_int_in(long long& out, long long min, long long max,
                            std::string_view range_error, std::string_view error) {
  return next_int(out, error) && require(out >= min && out <= max, range_error);
}

bool ArgCursor::next_double(double& out, std::string_view error) {
  auto v = parse_double(next());
  if (!v) return fail(error);
  out = *v;
  return true;
}

bool ArgCursor::fail(std::string_view error) {
  if (!failed_) {
    failed_ = true;
    error_.assign(error);
  }
  return false;
}

}  // namespace streamd::cmd
