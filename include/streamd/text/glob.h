// Redis-style glob matching, shared by CONFIG GET, KEYS, SCAN MATCH, COMMAND LIST FILTERBY
// PATTERN, pub/sub patterns, metrics-streams and anything else that takes a pattern.
//
// Semantics (as redis-server 7.0.15 behaves and redis.io documents for KEYS):
// - `*` matches any run of bytes, including none; consecutive stars act as one.
// - `?` matches exactly one byte.
// - `[abc]` matches one byte of the set, `[^abc]` one byte not in it, `[a-z]` a range (a reversed
//   range such as `[z-a]` means the same as `[a-z]`). Inside brackets `\x` is the literal `x`. A
//   `[` that is never closed extends the set to the end of the pattern; `[]` matches nothing.
// - `\x` outside brackets is the literal `x`; a trailing lone `\` is a literal backslash.
// - Everything else matches itself, byte for byte. With `nocase` letters compare by their ASCII
//   lower case (ranges too).
// - The empty string is matched only by the empty pattern, even `*` and `**` fail on it (Redis's
//   matcher works that way). KEYS and SCAN special-case the pattern `*` to mean "everything",
//   which GlobMatcher reproduces.
// Matching works on bytes (no UTF-8 awareness) and never recurses: `*` keeps a single backtrack
// point, so the cost is O(pattern * subject) at worst, never exponential.
#pragma once

#include <string>
#include <string_view>

namespace streamd::text {

// True if `subject` matches `pattern`.
bool glob_match(std::string_view pattern, std::string_view subject, bool nocase = false) noexcept;

// True if `pattern` contains a byte that makes it more than a literal (`*`, `?`, `[` or `\`).
// CONFIG GET uses this to decide between an exact, case-insensitive lookup and a glob scan.
bool has_glob_chars(std::string_view pattern) noexcept;

// A pattern prepared for matching many subjects (KEYS, SCAN MATCH): the common shapes `*`,
// `literal`, `prefix*` and `*suffix` skip the general matcher. The pattern `*` (exactly) matches
// every subject, the empty one included, as KEYS and SCAN treat it.
class GlobMatcher {
 public:
  explicit GlobMatcher(std::string pattern, bool nocase = false);

  bool matches(std::string_view subject) const noexcept;
  // True for the pattern `*`, which matches every subject, so callers can skip the call.
  bool matches_everything() const noexcept { return kind_ == Kind::kAll; }
  const std::string& pattern() const noexcept { return pattern_; }

 private:
  enum class Kind { kAll, kLiteral, kPrefix, kSuffix, kGeneral };

  std::string pattern_;
  std::string literal_;  // the literal part for kLiteral, kPrefix and kSuffix
  Kind kind_ = Kind::kGeneral;
  bool nocase_ = false;
};

}  // namespace streamd::text
