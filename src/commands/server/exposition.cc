#include "streamd/commands/server/exposition.h"

#include <fmt/format.h>

#include <cmath>

#include "streamd/text/repr.h"

namespace streamd::cmd {

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80           ? 1
                    : (c >> 5) == 0x6  ? 2
                    : (c >> 4) == 0xe  ? 3
                    : (c >> 3) == 0x1e ? 4
                                       : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (std::size_t k = 1; k < n; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
      return false;
    }
    i += n;
  }
  return true;
}

std::string label_text(std::string_view s) {
  return valid_utf8(s) ? std::string(s) : text::repr(s);
}

namespace {

// The format's escapes: backslash and line feed everywhere, double quote in label values.
void append_escaped(std::string& out, std::string_view s, bool quote) {
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

}  // namespace

void Exposition::family(std::string_view name, std::string_view help, std::string_view type) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  append_escaped(out_, help, false);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void Exposition::head(std::string_view name, std::initializer_list<Label> labels) {
  out_ += name;
  if (labels.size() == 0) return;
  out_ += '{';
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out_ += ',';
    first = false;
    out_ += k;
    out_ += "=\"";
    append_escaped(out_, v, true);
    out_ += '"';
  }
  out_ += '}';
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels, double value) {
  head(name, labels);
  if (std::isnan(value)) {
    out_ += " NaN\n";
  } else if (std::isinf(value)) {
    out_ += value > 0 ? " +Inf\n" : " -Inf\n";
  } else {
    // Shortest text that reads back as the same double.
    fmt::format_to(std::back_inserter(out_), " {}\n", value);
  }
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels,
                        uint64_t value) {
  head(name, labels);
  fmt::format_to(std::back_inserter(out_), " {}\n", value);
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels, int64_t value) {
  head(name, labels);
  fmt::format_to(std::back_inserter(out_), " {}\n", value);
}

}  // namespace streamd::cmd
