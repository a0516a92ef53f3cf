// Argument parsing helpers shared by handlers: numbers parsed with Redis's strictness (no
// leading spaces or '+', no trailing garbage, range checked) and case-insensitive keywords.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace streamd::cmd {

bool iequals(std::string_view a, std::string_view b);

// Redis's string2ll: optional '-', digits, no leading zeros except "0", fits in int64.
std::optional<long long> parse_int(std::string_view s);
// Redis's string2ull-style for unsigned values.
std::optional<unsigned long long> parse_uint(std::string_view s);
// A finite or infinite double as Redis's string2ld accepts it (no spaces, no NaN).
std::optional<long double> parse_long_double(std::string_view s);
std::optional<double> parse_double(std::string_view s);

}  // namespace streamd::cmd
