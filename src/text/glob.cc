#include "streamd/text/glob.h"

#include <cstddef>
#include <utility>

namespace streamd::text {

namespace {

inline unsigned char lower(unsigned char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c - 'A' + 'a') : c;
}

inline bool same(unsigned char a, unsigned char b, bool nocase) noexcept {
  return a == b || (nocase && lower(a) == lower(b));
}

// Matches the single pattern element starting at pattern[p] (anything but `*`) against `c`.
// Sets `next` to the index just past the element. Every element consumes exactly one subject
// byte, which is what makes the single-backtrack-point algorithm in glob_match() exact.
bool match_element(std::string_view pattern, std::size_t p, unsigned char c, bool nocase,
                   std::size_t& next) noexcept {
  const std::size_t n = pattern.size();
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(pattern[i]); };
  switch (pattern[p]) {
    case '?':
      next = p + 1;
      return true;
    case '\\':
      if (p + 1 < n) {
        next = p + 2;
        return same(at(p + 1), c, nocase);
      }
      next = p + 1;  // a trailing backslash is itself
      return c == '\\';
    case '[': {
      std::size_t q = p + 1;
      const bool negate = q < n && pattern[q] == '^';
      if (negate) ++q;
      bool found = false;
      for (;;) {
        if (q >= n) {  // never closed: the set runs to the end of the pattern
          next = n;
          break;
        }
        if (pattern[q] == '\\' && q + 1 < n) {
          found |= same(at(q + 1), c, nocase);
          q += 2;
        } else if (pattern[q] == ']') {
          next = q + 1;
          break;
        } else if (q + 2 < n && pattern[q + 1] == '-') {
          unsigned char lo = at(q), hi = at(q + 2), x = c;
          if (nocase) {
            lo = lower(lo);
            hi = lower(hi);
            x = lower(x);
          }
          if (lo > hi) std::swap(lo, hi);
          found |= (x >= lo && x <= hi);
          q += 3;
        } else {
          found |= same(at(q), c, nocase);
          ++q;
        }
      }
      return found != negate;
    }
    default:
      next = p + 1;
      return same(at(p), c, nocase);
  }
}

bool equal_bytes(std::string_view a, std::string_view b, bool nocase) noexcept {
  if (a.size() != b.size()) return false;
  if (!nocase) return a == b;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!same(static_cast<unsigned char>(a[i]), static_cast<unsigned char>(b[i]), true)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view subject, bool nocase) noexcept {
  // Redis never lets a pattern match the empty string unless the pattern is empty too (not even
  // "*"; KEYS and SCAN special-case the pattern "*", and so does GlobMatcher).
  if (subject.empty()) return pattern.empty();
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const std::size_t pn = pattern.size(), sn = subject.size();
  std::size_t p = 0, s = 0;
  // Where to resume after the most recent `*`: the pattern index after the star run and the
  // subject index the star's match currently ends at. Only the latest star matters: whatever an
  // earlier star could absorb, the latest one can absorb too.
  std::size_t star_p = kNone, star_s = 0;
  while (s < sn) {
    if (p < pn) {
      if (pattern[p] == '*') {
        while (p < pn && pattern[p] == '*') ++p;
        if (p == pn) return true;
        star_p = p;
        star_s = s;
        continue;
      }
      std::size_t next = p;
      if (match_element(pattern, p, static_cast<unsigned char>(subject[s]), nocase, next)) {
        p = next;
        ++s;
        continue;
      }
    }
    if (star_p == kNone) return false;
    p = star_p;
    s = ++star_s;
  }
  while (p < pn && pattern[p] == '*') ++p;
  return p == pn;
}

bool has_glob_chars(std::string_view pattern) noexcept {
  return pattern.find_first_of("*?[\\") != std::string_view::npos;
}

GlobMatcher::GlobMatcher(std::string pattern, bool nocase)
    : pattern_(std::move(pattern)), nocase_(nocase) {
  const std::string_view pat = pattern_;
  if (pat == "*") {
    kind_ = Kind::kAll;
    return;
  }
  if (!has_glob_chars(pat)) {
    kind_ = Kind::kLiteral;
    literal_ = pattern_;
    return;
  }
  // `prefix*` and `*suffix` where the literal part holds no special byte.
  const std::size_t first_star = pat.find('*');
  const std::size_t last_non_star = pat.find_last_not_of('*');
  if (first_star != std::string_view::npos && last_non_star < first_star &&
      !has_glob_chars(pat.substr(0, first_star))) {
    kind_ = Kind::kPrefix;
    literal_ = pat.substr(0, first_star);
    return;
  }
  const std::size_t first_non_star = pat.find_first_not_of('*');
  if (first_non_star != 0 && first_non_star != std::string_view::npos &&
      !has_glob_chars(pat.substr(first_non_star))) {
    kind_ = Kind::kSuffix;
    literal_ = pat.substr(first_non_star);
    return;
  }
  kind_ = Kind::kGeneral;
}

bool GlobMatcher::matches(std::string_view subject) const noexcept {
  switch (kind_) {
    case Kind::kAll:
      return true;
    case Kind::kLiteral:
      return equal_bytes(subject, literal_, nocase_);
    case Kind::kPrefix:
      return subject.size() >= literal_.size() &&
             equal_bytes(subject.substr(0, literal_.size()), literal_, nocase_);
    case Kind::kSuffix:
      return subject.size() >= literal_.size() &&
             equal_bytes(subject.substr(subject.size() - literal_.size()), literal_, nocase_);
    case Kind::kGeneral:
      break;
  }
  return glob_match(pattern_, subject, nocase_);
}

}  // namespace streamd::text
