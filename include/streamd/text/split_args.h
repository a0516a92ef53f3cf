// One line split into arguments the way Redis's sdssplitargs does it: for inline commands (the
// request parser), configuration lines and the AOF manifest, which Redis all reads with it.
//
// Rules:
// - arguments are separated by runs of C-locale whitespace (space, \t, \n, \v, \f, \r);
// - an unquoted argument ends at a space, \t, \n or \r (\v and \f stay inside it, as in Redis);
// - "double quotes" take \xHH (two hex digits) as that byte, \n \r \t \b \a as those controls and
//   a backslash before any other byte as that byte;
// - 'single quotes' take \' as a quote and everything else literally;
// - quoted text may follow unquoted text in one argument (a"b c" is `ab c`), and a closing quote
//   must be followed by whitespace or the end of the line;
// - an unclosed quote or text right after a closing quote makes the line invalid.
// Any other byte, NUL included, is an ordinary byte.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::text {

// Appends the arguments of `line` to `args` as views: into `line` for an argument without quotes,
// into `storage` for one that needed unescaping. `storage` is cleared and reserved to the line's
// size first (unescaping never lengthens), so every view stays valid until the next call with it
// or until `line` goes. False (with `args` partly filled) for an invalid line.
bool split_args(std::string_view line, std::string& storage, std::vector<std::string_view>& args);

// The same, as owned strings; nullopt for an invalid line.
std::optional<std::vector<std::string>> split_args(std::string_view line);

}  // namespace streamd::text
