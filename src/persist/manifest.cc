#include "streamd/persist/manifest.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include "streamd/text/ascii.h"
#include "streamd/text/repr.h"
#include "streamd/text/split_args.h"

namespace streamd::persist {

namespace {

bool needs_quotes(std::string_view s) {
  if (s.empty()) return true;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\\' || c == '"' || c == '\'' || c == ' ' || !std::isprint(u)) return true;
  }
  return false;
}

bool parse_seq(std::string_view s, long long& out) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && out > 0;
}

void append_line(std::string& out, const AofFileInfo& f) {
  out += "file ";
  out += quote_if_needed(f.name);
  out += " seq ";
  out += std::to_string(f.seq);
  out += " type ";
  out += static_cast<char>(f.type);
  out += '\n';
}

}  // namespace

std::string quote_if_needed(std::string_view s) {
  return needs_quotes(s) ? text::repr(s) : std::string(s);
}

std::string Manifest::serialize() const {
  std::string out;
  if (base) append_line(out, *base);
  for (const auto& f : history) append_line(out, f);
  for (const auto& f : incrs) append_line(out, f);
  return out;
}

bool parse_manifest(std::string_view text, Manifest& out, std::string* err) {
  out = Manifest{};
  auto fail = [&](int line, const std::string& why) {
    if (err) *err = "line " + std::to_string(line) + ": " + why;
    return false;
  };
  std::string storage;
  std::vector<std::string_view> args;
  int lineno = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line =
        nl == std::string_view::npos ? text.substr(pos) : text.substr(pos, nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    args.clear();
    if (!text::split_args(line, storage, args)) return fail(lineno, "unbalanced quotes");
    if (args.size() % 2 != 0) return fail(lineno, "invalid format (odd number of fields)");
    AofFileInfo f;
    bool has_name = false, has_seq = false, has_type = false;
    for (std::size_t i = 0; i < args.size(); i += 2) {
      std::string_view k = args[i];
      std::string_view v = args[i + 1];
      if (k == "file") {
        // A name, not a path; and no NUL: the file functions would read it as a shorter name.
        if (v.empty() || v.find('/') != std::string::npos || v.find('\0') != std::string::npos) {
          return fail(lineno, "invalid file name '" + std::string(v) + "'");
        }
        f.name = v;
        has_name = true;
      } else if (k == "seq") {
        if (!parse_seq(v, f.seq)) return fail(lineno, "invalid seq '" + std::string(v) + "'");
        has_seq = true;
      } else if (k == "type") {
        if (v != "b" && v != "h" && v != "i")
          return fail(lineno, "invalid type '" + std::string(v) + "'");
        f.type = static_cast<AofFileType>(v[0]);
        has_type = true;
      }
      // Unknown keys are ignored, as Redis does (room for future fields).
    }
    if (!has_name || !has_seq || !has_type) {
      return fail(lineno, "missing file, seq or type");
    }
    switch (f.type) {
      case AofFileType::kBase:
        if (out.base) return fail(lineno, "more than one base file");
        out.base = std::move(f);
        break;
      case AofFileType::kHistory:
        out.history.push_back(std::move(f));
        break;
      case AofFileType::kIncr:
        if (!out.incrs.empty() && f.seq <= out.incrs.back().seq) {
          return fail(lineno, "incremental files out of sequence order");
        }
        out.incrs.push_back(std::move(f));
        break;
    }
  }
  if (out.empty()) {
    if (err) *err = "the manifest lists no files";
    return false;
  }
  return true;
}

std::string manifest_name(std::string_view prefix) {
  return std::string(prefix) + ".manifest";
}

std::string temp_manifest_name(std::string_view prefix) {
  return "temp-" + std::string(prefix) + ".manifest";
}

std::string temp_incr_file_name(std::string_view prefix) {
  return "temp-" + std::string(prefix) + ".incr";
}

std::string base_file_name(std::string_view prefix, long long seq) {
  return std::string(prefix) + "." + std::to_string(seq) + ".base.aof";
}

std::string rdb_base_file_name(std::string_view prefix, long long seq) {
  return std::string(prefix) + "." + std::to_string(seq) + ".base.rdb";
}

std::string incr_file_name(std::string_view prefix, long long seq) {
  return std::string(prefix) + "." + std::to_string(seq) + ".incr.aof";
}

}  // namespace streamd::persist
