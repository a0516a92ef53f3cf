#include "streamd/rest/http_request.h"

#include <gtest/gtest.h>

namespace streamd::rest {
namespace {

using Status = HttpRequestParser::Status;

TEST(HttpRequestParser, OneRequestWithHeadersAndBody) {
  HttpRequestParser p;
  std::string in =
      "POST /set/k HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nUpstash-Encoding: base64\r\n"
      "Content-Length: 3\r\n\r\nabc";
  std::size_t used = 0;
  ASSERT_EQ(p.feed(in, used), Status::kComplete);
  EXPECT_EQ(used, in.size());
  EXPECT_EQ(p.request().method, "POST");
  EXPECT_EQ(p.request().target, "/set/k");
  EXPECT_EQ(p.request().authorization, "Bearer t");
  EXPECT_EQ(p.request().encoding, "base64");
  EXPECT_EQ(p.request().body, "abc");
  EXPECT_TRUE(p.request().keep_alive);
}

TEST(HttpRequestParser, ByteByByteAndPipelined) {
  HttpRequestParser p;
  std::string in =
      "GET /get/a HTTP/1.1\r\nAuthorization: Bearer tok\r\n\r\nGET /get/b HTTP/1.1\r\n"
      "Connection: close\r\n\r\n";
  std::size_t off = 0;
  std::vector<std::string> targets;
  std::vector<bool> keep;
  while (off < in.size()) {
    // Feed what has "arrived" so far, growing one byte at a time.
    std::size_t end = off + 1;
    Status st = Status::kNeedMore;
    while (true) {
      std::size_t used = 0;
      st = p.feed(std::string_view(in).substr(off, end - off), used);
      off += used;
      if (st != Status::kNeedMore || end >= in.size()) break;
      end = std::max(end + 1, off + 1);
    }
    ASSERT_EQ(st, Status::kComplete);
    targets.push_back(p.request().target);
    keep.push_back(p.request().keep_alive);
    if (targets.size() == 1) {
      EXPECT_EQ(p.request().authorization, "Bearer tok");
    }
    p.reset();
  }
  EXPECT_EQ(targets, (std::vector<std::string>{"/get/a", "/get/b"}));
  EXPECT_EQ(keep, (std::vector<bool>{true, false}));
}

TEST(HttpRequestParser, MalformedAndLimits) {
  {
    HttpRequestParser p;
    std::size_t used = 0;
    EXPECT_EQ(p.feed("GARBAGE\r\n\r\n", used), Status::kError);
    EXPECT_EQ(p.error_status(), 400);
  }
  {
    HttpRequestParser p;
    std::size_t used = 0;
    EXPECT_EQ(p.feed("DELETE /x HTTP/1.1\r\n\r\n", used), Status::kError);
    EXPECT_EQ(p.error_status(), 405);
  }
  {
    HttpRequestParser p;
    p.set_limits({.max_header_bytes = 100, .max_body_bytes = 10});
    std::size_t used = 0;
    EXPECT_EQ(p.feed("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", used), Status::kError);
    EXPECT_EQ(p.error_status(), 413);
  }
  {
    HttpRequestParser p;
    p.set_limits({.max_header_bytes = 100, .max_body_bytes = 10});
    std::size_t used = 0;
    std::string big = "GET /" + std::string(200, 'a') + " HTTP/1.1\r\n\r\n";
    EXPECT_EQ(p.feed(big, used), Status::kError);
    EXPECT_EQ(p.error_status(), 431);
  }
}

TEST(HttpRequestParser, Http10ClosesUnlessKeepAlive) {
  HttpRequestParser p;
  std::size_t used = 0;
  ASSERT_EQ(p.feed("GET /ping HTTP/1.0\r\n\r\n", used), Status::kComplete);
  EXPECT_FALSE(p.request().keep_alive);
}

}  // namespace
}  // namespace streamd::rest
