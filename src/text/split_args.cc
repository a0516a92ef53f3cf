#include "streamd/text/split_args.h"

#include "streamd/text/ascii.h"

namespace streamd::text {

namespace {

// Whitespace between arguments: isspace() in the C locale.
constexpr bool is_blank(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// What ends an unquoted argument: a narrower set than is_blank.
constexpr bool ends_unquoted(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

constexpr char unescape(char c) noexcept {
  switch (c) {
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'b':
      return '\b';
    case 'a':
      return '\a';
    default:
      return c;
  }
}

// Unescapes the quoted text opening at line[i] (a quote) into `out`; leaves `i` past the closing
// quote. False for an unclosed quote or a closing quote followed by something other than
// whitespace (so the quote always ends its argument).
bool take_quoted(std::string_view line, std::size_t& i, std::string& out) {
  const std::size_t n = line.size();
  const char quote = line[i];
  for (++i;; ++i) {
    if (i == n) return false;
    const char c = line[i];
    if (quote == '"' && c == '\\' && i + 3 < n && line[i + 1] == 'x' && is_hex_digit(line[i + 2]) &&
        is_hex_digit(line[i + 3])) {
      out.push_back(
          static_cast<char>(hex_digit_value(line[i + 2]) * 16 + hex_digit_value(line[i + 3])));
      i += 3;
    } else if (quote == '"' && c == '\\' && i + 1 < n) {
      out.push_back(unescape(line[++i]));
    } else if (quote == '\'' && c == '\\' && i + 1 < n && line[i + 1] == '\'') {
      out.push_back('\'');
      ++i;
    } else if (c == quote) {
      ++i;
      return i == n || is_blank(line[i]);
    } else {
      out.push_back(c);
    }
  }
}

}  // namespace

bool split_args(std::string_view line, std::string& storage, std::vector<std::string_view>& args) {
  storage.clear();
  storage.reserve(line.size());
  const std::size_t n = line.size();
  std::size_t i = 0;
  for (;;) {
    while (i < n && is_blank(line[i])) ++i;
    if (i == n) return true;

    std::size_t start = i;
    while (i < n && !ends_unquoted(line[i]) && line[i] != '"' && line[i] != '\'') ++i;
    if (i == n || ends_unquoted(line[i])) {
      args.emplace_back(line.substr(start, i - start));  // no quote: a view into the line
      continue;
    }
    // A quote inside or at the start of the argument: the text before it, then the quoted
    // text unescaped, into storage. The closing quote ends the argument.
    const std::size_t from = storage.size();
    storage.append(line.substr(start, i - start));
    if (!take_quoted(line, i, storage)) return false;
    args.emplace_back(storage.data() + from, storage.size() - from);
  }
}

std::optional<std::vector<std::string>> split_args(std::string_view line) {
  std::string storage;
  std::vector<std::string_view> views;
  if (!split_args(line, storage, views)) return std::nullopt;
  return std::vector<std::string>(views.begin(), views.end());
}

}  // namespace streamd::text
