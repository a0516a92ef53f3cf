#include "streamd/rest/resp_to_json.h"

#include <charconv>
#include <cstdint>

namespace streamd::rest {

using nlohmann::json;

namespace {

// Nested aggregates deeper than this are refused rather than recursed into (no reply we write
// comes close; the bound keeps a malformed buffer from exhausting the stack).
constexpr int kMaxDepth = 64;

// The line at pos (without CRLF); advances past the CRLF.
std::optional<std::string_view> read_line(std::string_view s, std::size_t& pos) {
  std::size_t end = s.find("\r\n", pos);
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view line = s.substr(pos, end - pos);
  pos = end + 2;
  return line;
}

std::optional<long long> to_int(std::string_view v) {
  long long n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size()) return std::nullopt;
  return n;
}

json string_value(std::string_view v, bool base64) {
  return base64 ? json(base64_encode(v)) : json(std::string(v));
}

std::optional<json> value(std::string_view s, std::size_t& pos, bool base64, int depth,
                          std::string* top_error);

std::optional<json> aggregate(std::string_view s, std::size_t& pos, long long n, bool base64,
                              int depth) {
  if (depth >= kMaxDepth) return std::nullopt;
  json arr = json::array();
  for (long long i = 0; i < n; ++i) {
    auto e = value(s, pos, base64, depth + 1, nullptr);
    if (!e) return std::nullopt;
    arr.push_back(std::move(*e));
  }
  return arr;
}

// One value. An error at the top is reported through top_error; nested, it becomes its text.
std::optional<json> value(std::string_view s, std::size_t& pos, bool base64, int depth,
                          std::string* top_error) {
  if (pos >= s.size()) return std::nullopt;
  char type = s[pos++];
  auto line = read_line(s, pos);
  if (!line) return std::nullopt;
  switch (type) {
    case '+':
      return *line == "OK" ? json("OK") : string_value(*line, base64);
    case '-':
      if (top_error) *top_error = std::string(*line);
      return json(std::string(*line));
    case ':': {
      auto n = to_int(*line);
      if (!n) return std::nullopt;
      return json(*n);
    }
    case '$':
    case '=': {  // bulk, or RESP3 verbatim ("txt:" prefix dropped as RESP2 would not have it)
      auto n = to_int(*line);
      if (!n) return std::nullopt;
      if (*n < 0) return json(nullptr);
      if (pos + static_cast<std::size_t>(*n) + 2 > s.size()) return std::nullopt;
      std::string_view body = s.substr(pos, static_cast<std::size_t>(*n));
      pos += static_cast<std::size_t>(*n) + 2;
      if (type == '=' && body.size() >= 4) body.remove_prefix(4);
      return string_value(body, base64);
    }
    case '*':
    case '~':
    case '>': {
      auto n = to_int(*line);
      if (!n) return std::nullopt;
      if (*n < 0) return json(nullptr);
      return aggregate(s, pos, *n, base64, depth);
    }
    case '%': {
      auto n = to_int(*line);
      if (!n || *n < 0) return std::nullopt;
      return aggregate(s, pos, *n * 2, base64, depth);
    }
    case '_':
      return json(nullptr);
    case '#':
      return json(*line == "t" ? 1 : 0);
    case ',':
    case '(':
      return string_value(*line, base64);
    default:
      return std::nullopt;
  }
}

}  // namespace

json JsonReply::envelope() const {
  json j = json::object();
  if (is_error) {
    j["error"] = error;
  } else {
    j["result"] = result;
  }
  return j;
}

std::optional<JsonReply> resp_to_json(std::string_view resp, std::size_t& pos, bool base64) {
  JsonReply r;
  r.is_error = pos < resp.size() && resp[pos] == '-';
  auto v = value(resp, pos, base64, 0, r.is_error ? &r.error : nullptr);
  if (!v) return std::nullopt;
  if (!r.is_error) r.result = std::move(*v);
  return r;
}

std::optional<long long> resp_array_header(std::string_view resp, std::size_t& pos) {
  if (pos >= resp.size() || resp[pos] != '*') return std::nullopt;
  std::size_t p = pos + 1;
  auto line = read_line(resp, p);
  if (!line) return std::nullopt;
  auto n = to_int(*line);
  if (!n) return std::nullopt;
  pos = p;
  return *n;
}

std::string json_text(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string base64_encode(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8) |
                 static_cast<uint8_t>(in[i + 2]);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  if (i < in.size()) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<uint8_t>(in[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

}  // namespace streamd::rest
