// One HTTP/1.x request, and a sans-I/O parser over Debian's http-parser (libhttp-parser) that
// turns the bytes a connection read into requests, one at a time, with limits on the header and
// body sizes. The REST layer needs only a few headers (Authorization, Upstash-Encoding), so only
// those are kept; the rest are measured against the limit and dropped.
//
// Invariant: after feed() returns kComplete, request() holds that request until reset(); bytes
// after it (a pipelined request) are not consumed.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace streamd::rest {

struct HttpRequest {
  std::string method;  // "GET", "POST"...
  std::string target;  // the request target as sent: "/xadd/s/*/f/v?_token=..."
  std::string authorization;
  std::string encoding;  // Upstash-Encoding
  std::string body;
  bool has_body = false;  // a Content-Length or chunked body was sent (even an empty one)
  bool keep_alive = true;
};

struct HttpLimits {
  std::size_t max_header_bytes = 64 * 1024;  // request line and headers together
  std::size_t max_body_bytes = 64 * 1024 * 1024;
};

class HttpRequestParser {
 public:
  enum class Status { kNeedMore, kComplete, kError };

  HttpRequestParser();
  ~HttpRequestParser();
  HttpRequestParser(const HttpRequestParser&) = delete;
  HttpRequestParser& operator=(const HttpRequestParser&) = delete;

  void set_limits(HttpLimits limits) { limits_ = limits; }

  // Parses from `data`; `used` is how many bytes were consumed (the caller drops them). Stops
  // after one complete request.
  Status feed(std::string_view data, std::size_t& used);
  const HttpRequest& request() const { return req_; }
  // Ready for the next request on the same connection.
  void reset();

  // After kError: the HTTP status to answer with (400, 405, 413, 431) and the message.
  int error_status() const { return error_status_; }
  std::string_view error_text() const { return error_text_; }

 private:
  struct Callbacks;
  bool add_header_bytes(std::size_t n);
  void store_header();
  void fail(int status, std::string_view text);

  struct State;
  std::unique_ptr<State> st_;
  HttpLimits limits_;
  HttpRequest req_;
  std::string field_, value_;
  bool in_value_ = false;
  bool complete_ = false;
  std::size_t header_bytes_ = 0;
  int error_status_ = 0;
  std::string_view error_text_;
};

}  // namespace streamd::rest
