#include "streamd/rest/http_request.h"

#include <http_parser.h>

#include <strings.h>

#include "streamd/rest/error_text.h"
#include "streamd/text/ascii.h"

namespace streamd::rest {

struct HttpRequestParser::State {
  http_parser parser{};
  http_parser_settings settings{};
};

namespace {

HttpRequestParser& self(http_parser* p) {
  return *static_cast<HttpRequestParser*>(p->data);
}

using text::iequals;

}  // namespace

// http-parser calls C callbacks; these forward to the parser object kept in http_parser::data.
// Each may be called several times per element when the element spans reads, so text is
// accumulated.
struct HttpRequestParser::Callbacks {
  static int on_url(http_parser* p, const char* at, std::size_t n) {
    HttpRequestParser& h = self(p);
    if (!h.add_header_bytes(n)) return 1;
    h.req_.target.append(at, n);
    return 0;
  }
  static int on_header_field(http_parser* p, const char* at, std::size_t n) {
    HttpRequestParser& h = self(p);
    if (!h.add_header_bytes(n)) return 1;
    if (h.in_value_) {
      h.store_header();
      h.in_value_ = false;
    }
    h.field_.append(at, n);
    return 0;
  }
  static int on_header_value(http_parser* p, const char* at, std::size_t n) {
    HttpRequestParser& h = self(p);
    if (!h.add_header_bytes(n)) return 1;
    h.in_value_ = true;
    h.value_.append(at, n);
    return 0;
  }
  static int on_headers_complete(http_parser* p) {
    HttpRequestParser& h = self(p);
    if (h.in_value_) h.store_header();
    h.in_value_ = false;
    h.req_.method = http_method_str(static_cast<http_method>(p->method));
    auto m = static_cast<http_method>(p->method);
    if (m != HTTP_GET && m != HTTP_POST && m != HTTP_PUT && m != HTTP_HEAD) {
      h.fail(405, errors::kMethodNotAllowed);
      return -1;  // 1 and 2 mean "skip the body" to http-parser, not "error"
    }
    bool chunked = (p->flags & F_CHUNKED) != 0;
    bool sized = (p->flags & F_CONTENTLENGTH) != 0;
    h.req_.has_body = chunked || sized;
    if (sized && p->content_length > h.limits_.max_body_bytes) {
      h.fail(413, errors::kBodyTooLarge);
      return -1;  // 1 and 2 mean "skip the body" to http-parser, not "error"
    }
    if (sized) h.req_.body.reserve(p->content_length);
    return 0;
  }
  static int on_body(http_parser* p, const char* at, std::size_t n) {
    HttpRequestParser& h = self(p);
    if (h.req_.body.size() + n > h.limits_.max_body_bytes) {
      h.fail(413, errors::kBodyTooLarge);
      return 1;
    }
    h.req_.body.append(at, n);
    return 0;
  }
  static int on_message_complete(http_parser* p) {
    HttpRequestParser& h = self(p);
    h.req_.keep_alive = http_should_keep_alive(p) != 0;
    h.complete_ = true;
    // Stop here: a pipelined request behind this one waits until this one is answered.
    http_parser_pause(p, 1);
    return 0;
  }
};

void HttpRequestParser::store_header() {
  if (iequals(field_, "authorization")) {
    req_.authorization = std::move(value_);
  } else if (iequals(field_, "upstash-encoding")) {
    req_.encoding = std::move(value_);
  }
  field_.clear();
  value_.clear();
}

HttpRequestParser::HttpRequestParser() : st_(std::make_unique<State>()) {
  http_parser_settings_init(&st_->settings);
  st_->settings.on_url = Callbacks::on_url;
  st_->settings.on_header_field = Callbacks::on_header_field;
  st_->settings.on_header_value = Callbacks::on_header_value;
  st_->settings.on_headers_complete = Callbacks::on_headers_complete;
  st_->settings.on_body = Callbacks::on_body;
  st_->settings.on_message_complete = Callbacks::on_message_complete;
  reset();
}

HttpRequestParser::~HttpRequestParser() = default;

void HttpRequestParser::reset() {
  http_parser_init(&st_->parser, HTTP_REQUEST);
  st_->parser.data = this;
  req_ = HttpRequest{};
  field_.clear();
  value_.clear();
  in_value_ = false;
  complete_ = false;
  header_bytes_ = 0;
  error_status_ = 0;
  error_text_ = {};
}

bool HttpRequestParser::add_header_bytes(std::size_t n) {
  header_bytes_ += n;
  if (header_bytes_ <= limits_.max_header_bytes) return true;
  fail(431, errors::kHeadersTooLarge);
  return false;
}

void HttpRequestParser::fail(int status, std::string_view text) {
  if (error_status_ != 0) return;
  error_status_ = status;
  error_text_ = text;
}

HttpRequestParser::Status HttpRequestParser::feed(std::string_view data, std::size_t& used) {
  used = 0;
  if (error_status_ != 0) return Status::kError;
  if (complete_) return Status::kComplete;
  if (data.empty()) return Status::kNeedMore;
  used = http_parser_execute(&st_->parser, &st_->settings, data.data(), data.size());
  auto err = HTTP_PARSER_ERRNO(&st_->parser);
  if (complete_) {
    if (err == HPE_PAUSED) http_parser_pause(&st_->parser, 0);
    return Status::kComplete;
  }
  if (err != HPE_OK || error_status_ != 0) {
    // A limit our callbacks enforced keeps its status; anything else is malformed input.
    if (error_status_ == 0) {
      fail(err == HPE_HEADER_OVERFLOW ? 431 : 400,
           err == HPE_HEADER_OVERFLOW ? errors::kHeadersTooLarge : errors::kBadHttp);
    }
    return Status::kError;
  }
  if (st_->parser.upgrade) {  // CONNECT or Upgrade: not something this API speaks
    fail(400, errors::kBadHttp);
    return Status::kError;
  }
  return Status::kNeedMore;
}

}  // namespace streamd::rest
