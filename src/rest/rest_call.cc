#include "streamd/rest/rest_call.h"

#include <strings.h>

#include <nlohmann/json.hpp>

#include "streamd/rest/access.h"
#include "streamd/rest/error_text.h"
#include "streamd/text/ascii.h"

namespace streamd::rest {

using nlohmann::json;

namespace {

// One JSON array element as a command argument: strings as they are, numbers as their decimal
// text (the SDKs send counts and scores as numbers), booleans as "true"/"false".
bool json_argument(const json& v, std::string& out) {
  switch (v.type()) {
    case json::value_t::string:
      out = v.get<std::string>();
      return true;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
    case json::value_t::boolean:
      out = v.dump();
      return true;
    default:
      return false;
  }
}

bool json_command(const json& v, std::vector<std::string>& argv) {
  if (!v.is_array() || v.empty()) return false;
  argv.clear();
  argv.reserve(v.size());
  for (const json& e : v) {
    std::string a;
    if (!json_argument(e, a)) return false;
    argv.push_back(std::move(a));
  }
  return true;
}

json parse_json(const std::string& body) {
  return json::parse(body, nullptr, /*allow_exceptions=*/false);
}

}  // namespace

bool url_decode(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out.push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    int hi = text::hex_digit_value(in[i + 1]), lo = text::hex_digit_value(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

bool decode_call(const HttpRequest& req, RestCall& call, std::string& error) {
  call = RestCall{};
  call.base64 = ::strcasecmp(req.encoding.c_str(), "base64") == 0;
  call.token = std::string(bearer_token(req.authorization));

  std::string_view target = req.target;
  std::string_view path = target, query;
  if (auto q = target.find('?'); q != std::string_view::npos) {
    path = target.substr(0, q);
    query = target.substr(q + 1);
  }

  // Query parameters: _token authenticates, the others are trailing arguments (name, value).
  std::vector<std::string> query_args;
  while (!query.empty()) {
    std::size_t amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (part.empty()) continue;
    std::size_t eq = part.find('=');
    std::string name, value;
    if (!url_decode(part.substr(0, eq), name) ||
        (eq != std::string_view::npos && !url_decode(part.substr(eq + 1), value))) {
      error = errors::kBadHttp;
      return false;
    }
    if (name == "_token") {
      if (call.token.empty()) call.token = std::move(value);
      continue;
    }
    query_args.push_back(std::move(name));
    if (eq != std::string_view::npos && !value.empty()) query_args.push_back(std::move(value));
  }

  std::vector<std::string> segments;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    std::string_view seg = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
    if (seg.empty()) continue;  // the leading '/', and '//' (as Upstash: no empty arguments)
    std::string arg;
    if (!url_decode(seg, arg)) {
      error = errors::kBadHttp;
      return false;
    }
    segments.push_back(std::move(arg));
  }

  bool post = req.method == "POST" || req.method == "PUT";
  if (post && segments.size() == 1 && (segments[0] == "pipeline" || segments[0] == "multi-exec")) {
    call.kind = segments[0] == "pipeline" ? CallKind::kPipeline : CallKind::kMultiExec;
    json body = parse_json(req.body);
    if (!body.is_array() || body.empty()) {
      error = errors::kBadPipeline;
      return false;
    }
    for (const json& c : body) {
      std::vector<std::string> argv;
      if (!json_command(c, argv)) {
        error = errors::kBadPipeline;
        return false;
      }
      call.commands.push_back(std::move(argv));
    }
    return true;
  }

  if (segments.empty()) {
    // The whole command as a JSON array in the body.
    if (!post || req.body.empty()) {
      error = errors::kNoCommand;
      return false;
    }
    std::vector<std::string> argv;
    if (!json_command(parse_json(req.body), argv)) {
      error = errors::kBadJson;
      return false;
    }
    for (auto& a : query_args) argv.push_back(std::move(a));
    call.commands.push_back(std::move(argv));
    return true;
  }

  // Path form; a POSTed body is the last path argument (a JSON or binary value), then the query.
  if (post && req.has_body && !req.body.empty()) segments.push_back(req.body);
  for (auto& a : query_args) segments.push_back(std::move(a));
  call.commands.push_back(std::move(segments));
  return true;
}

}  // namespace streamd::rest
