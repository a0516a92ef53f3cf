// The lexical rules of redis.conf and of configuration values, as redis-server 7.0.15 applies
// them. Shared by the loader, CONFIG SET and CONFIG REWRITE; exposed for tests and for other
// layers that parse the same notations (memory sizes, quoted arguments).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::config {

// Configuration lines are split by text::split_args (text/split_args.h), as Redis's sdssplitargs.

// Quotes `s` so that text::split_args() gives it back: "..." with \\ \" \n \r \t \a \b escaped and
// other non-printable bytes as \xHH. This is how Redis prints arguments in error messages and how
// CONFIG REWRITE writes strings.
std::string quote(std::string_view s);

// A config line without its surrounding spaces, tabs, CRs and LFs.
std::string_view trim_line(std::string_view line);

// How CONFIG SET splits the value of a multi-argument directive (save, bind,
// client-output-buffer-limit): on each single space, so "a  b" has an empty middle argument and
// "" has no argument at all.
std::vector<std::string> split_spaces(std::string_view s);

// ASCII lower case.
std::string ascii_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b) noexcept;

// A strict decimal long long: an optional '-', digits, no leading zeros, no "-0", no spaces, no
// '+', no overflow. This is what integer directives accept.
std::optional<std::int64_t> parse_strict_int(std::string_view s) noexcept;

// A memory size: digits followed by an optional unit, case-insensitive: b, k (1000), kb (1024),
// m, mb, g, gb. As in Redis, the digits may be empty (meaning 0) and leading zeros are allowed;
// values beyond 2^64-1 saturate instead of wrapping.
std::optional<std::uint64_t> parse_memory(std::string_view s) noexcept;

// A memory size as CONFIG REWRITE writes it: the largest of gb, mb, kb that divides it exactly,
// else plain bytes ("512mb", "4kb", "1000").
std::string format_memory(std::uint64_t bytes);

}  // namespace streamd::config
