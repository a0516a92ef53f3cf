#include "reply_reader.h"

#include <algorithm>
#include <charconv>

namespace streamd::test {

namespace {

// A tiny recursive RESP reader shared by ReplyLength and Decode. `render` may be null.
class Reader {
 public:
  explicit Reader(std::string_view raw) : raw_(raw) {}

  // Whether a type only RESP3 has (null, double, big number, boolean, verbatim, blob error, set,
  // push, map) was read.
  bool resp3_types() const { return resp3_types_; }

  // Reads one value at pos_; false if incomplete or malformed.
  bool value(std::string* render) {
    if (pos_ >= raw_.size()) return false;
    char type = raw_[pos_++];
    std::string_view line;
    if (!read_line(line)) return false;
    if (std::string_view("_,(#=!~>%").find(type) != std::string_view::npos) resp3_types_ = true;
    auto put = [&](std::string_view s) {
      if (render) render->append(s);
    };
    switch (type) {
      case '+':
        // A lone CR or LF inside a one-line reply would end it early for some clients.
        if (line.find_first_of("\r\n") != std::string_view::npos) return false;
        put("+");
        put(line);
        return true;
      case '-':
        if (line.find_first_of("\r\n") != std::string_view::npos) return false;
        put("(error) ");
        put(line);
        return true;
      case ':':
        put("(integer) ");
        put(line);
        return true;
      case ',':
        put("(double) ");
        put(line);
        return true;
      case '(':
        put("(big) ");
        put(line);
        return true;
      case '#':
        put(line == "t" ? "(bool) true" : "(bool) false");
        return line == "t" || line == "f";
      case '_':
        put("(nil)");
        return line.empty();
      case '$':
      case '=':
      case '!': {
        long long n = 0;
        if (!number(line, n)) return false;
        if (n == -1 && type == '$') {
          put("(nil)");
          return true;
        }
        if (n < 0 || raw_.size() - pos_ < static_cast<std::size_t>(n) + 2) return false;
        std::string_view body = raw_.substr(pos_, static_cast<std::size_t>(n));
        pos_ += static_cast<std::size_t>(n);
        if (raw_.substr(pos_, 2) != "\r\n") return false;
        pos_ += 2;
        if (type == '!') put("(error) ");
        if (type == '=') put("(verbatim) ");
        put("\"");
        put(body);
        put("\"");
        return true;
      }
      case '*':
      case '~':
      case '>':
      case '%': {
        long long n = 0;
        if (!number(line, n)) return false;
        if (n == -1 && type == '*') {
          put("(nil-array)");
          return true;
        }
        if (n < 0) return false;
        bool is_map = type == '%';
        put(is_map ? "{" : type == '~' ? "~[" : type == '>' ? ">[" : "[");
        for (long long i = 0; i < n; ++i) {
          if (i > 0) put(", ");
          if (!value(render)) return false;
          if (is_map) {
            put(": ");
            if (!value(render)) return false;
          }
        }
        put(is_map ? "}" : "]");
        return true;
      }
      default:
        return false;
    }
  }

  std::size_t pos() const { return pos_; }

 private:
  bool read_line(std::string_view& line) {
    std::size_t end = raw_.find("\r\n", pos_);
    if (end == std::string_view::npos) return false;
    line = raw_.substr(pos_, end - pos_);
    pos_ = end + 2;
    return true;
  }
  static bool number(std::string_view s, long long& n) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    return ec == std::errc() && p == s.data() + s.size();
  }

  std::string_view raw_;
  std::size_t pos_ = 0;
  bool resp3_types_ = false;
};

}  // namespace

std::size_t ReplyLength(std::string_view raw) {
  Reader r(raw);
  return r.value(nullptr) ? r.pos() : 0;
}

ReplyScan ScanReply(std::string_view raw) {
  Reader r(raw);
  if (!r.value(nullptr)) return {};
  return {r.pos(), r.resp3_types()};
}

std::vector<std::string> SortedBulks(std::string_view raw) {
  // Collect every "$<n>\r\n<body>\r\n" in order; a SCAN reply is "*2", the cursor bulk, then an
  // array: its first bulk is the cursor and is dropped.
  std::vector<std::string> out;
  std::size_t pos = 0;
  std::size_t scan_cursor_end = std::string_view::npos;
  while ((pos = raw.find('$', pos)) != std::string_view::npos) {
    std::size_t eol = raw.find("\r\n", pos);
    if (eol == std::string_view::npos) break;
    long long n = 0;
    std::from_chars(raw.data() + pos + 1, raw.data() + eol, n);
    out.emplace_back(raw.substr(eol + 2, static_cast<std::size_t>(n)));
    pos = eol + 2 + static_cast<std::size_t>(n) + 2;
    if (out.size() == 1) scan_cursor_end = pos;
  }
  bool scan =
      raw.substr(0, 4) == "*2\r\n" && scan_cursor_end < raw.size() && raw[scan_cursor_end] == '*';
  if (scan && !out.empty()) out.erase(out.begin());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Elements(std::string_view raw) {
  std::vector<std::string> out;
  if (raw.empty() || std::string_view("*~>%").find(raw[0]) == std::string_view::npos) return out;
  std::size_t eol = raw.find("\r\n");
  if (eol == std::string_view::npos) return out;
  long long n = 0;
  auto [p, ec] = std::from_chars(raw.data() + 1, raw.data() + eol, n);
  if (ec != std::errc() || p != raw.data() + eol || n < 0) return out;
  if (raw[0] == '%') n *= 2;
  std::string_view rest = raw.substr(eol + 2);
  for (long long i = 0; i < n; ++i) {
    Reader r(rest);
    std::string one;
    if (!r.value(&one)) return {};
    out.push_back(std::move(one));
    rest = rest.substr(r.pos());
  }
  return out;
}

std::string Field(std::string_view raw, std::string_view name) {
  std::vector<std::string> e = Elements(raw);
  std::string quoted = "\"" + std::string(name) + "\"";
  for (std::size_t i = 0; i + 1 < e.size(); i += 2) {
    if (e[i] == quoted) return e[i + 1];
  }
  return "<missing>";
}

std::string Decode(std::string_view raw) {
  std::string out;
  Reader r(raw);
  if (!r.value(&out)) return "<malformed>";
  if (r.pos() != raw.size()) out += " <+" + std::to_string(raw.size() - r.pos()) + " bytes>";
  return out;
}

}  // namespace streamd::test
