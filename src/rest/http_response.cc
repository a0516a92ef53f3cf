#include "streamd/rest/http_response.h"

#include <fmt/format.h>

namespace streamd::rest {

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

void append_response(std::string& out, int status, std::string_view json_body, bool keep_alive,
                     bool head_only) {
  append_response(out, status, json_body, "application/json", keep_alive, head_only);
}

void append_response(std::string& out, int status, std::string_view body,
                     std::string_view content_type, bool keep_alive, bool head_only) {
  fmt::format_to(std::back_inserter(out),
                 "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n"
                 "Connection: {}\r\n\r\n",
                 status, reason_phrase(status), content_type, body.size(),
                 keep_alive ? "keep-alive" : "close");
  if (!head_only) out.append(body);
}

}  // namespace streamd::rest
