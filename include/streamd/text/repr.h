// Redis's sdscatrepr quoting, shared by every layer that shows or stores a string the way
// redis-server does: MONITOR lines, CONFIG REWRITE / config-file values, AOF manifest names.
// This folder depends on nothing of ours, so any layer may include it.
#pragma once

#include <string>
#include <string_view>

namespace streamd::text {

// Appends `s` double-quoted, with \\ \" \n \r \t \a \b escaped and every other byte outside
// printable ASCII (0x20..0x7e) written as \xHH (lower-case hex).
void append_repr(std::string& out, std::string_view s);

// The same, as a new string.
std::string repr(std::string_view s);

}  // namespace streamd::text
