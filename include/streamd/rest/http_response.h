// HTTP/1.1 responses of the REST API (JSON) and of GET /metrics (text), with a Content-Length, and
// a Connection header that says whether the connection stays open.
#pragma once

#include <string>
#include <string_view>

namespace streamd::rest {

// Appends one complete response to `out`. A HEAD request gets the headers only.
void append_response(std::string& out, int status, std::string_view json_body, bool keep_alive,
                     bool head_only);
// The same with another Content-Type (GET /metrics).
void append_response(std::string& out, int status, std::string_view body,
                     std::string_view content_type, bool keep_alive, bool head_only);

std::string_view reason_phrase(int status);

}  // namespace streamd::rest
