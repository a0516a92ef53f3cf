#include "streamd/rest/rest_call.h"

#include <gtest/gtest.h>

#include "streamd/rest/access.h"
#include "streamd/rest/http_request.h"

namespace streamd::rest {
namespace {

using Argv = std::vector<std::string>;

HttpRequest request(std::string method, std::string target, std::string body = "",
                    bool has_body = false) {
  HttpRequest r;
  r.method = std::move(method);
  r.target = std::move(target);
  r.body = std::move(body);
  r.has_body = has_body || !r.body.empty();
  return r;
}

RestCall decode(const HttpRequest& req) {
  RestCall c;
  std::string err;
  EXPECT_TRUE(decode_call(req, c, err)) << err;
  return c;
}

std::string decode_error(const HttpRequest& req) {
  RestCall c;
  std::string err;
  EXPECT_FALSE(decode_call(req, c, err));
  return err;
}

TEST(RestCall, PathSegmentsAreUrlDecoded) {
  RestCall c = decode(request("GET", "/xadd/s/*/f/hello%20world%2Fx"));
  EXPECT_EQ(c.kind, CallKind::kSingle);
  ASSERT_EQ(c.commands.size(), 1u);
  EXPECT_EQ(c.commands[0], (Argv{"xadd", "s", "*", "f", "hello world/x"}));
}

TEST(RestCall, TokenFromHeaderOrQuery) {
  HttpRequest r = request("GET", "/get/k");
  r.authorization = "Bearer abc";
  EXPECT_EQ(decode(r).token, "abc");
  RestCall c = decode(request("GET", "/get/k?_token=xyz%3D"));
  EXPECT_EQ(c.token, "xyz=");
  EXPECT_EQ(c.commands[0], (Argv{"get", "k"}));
}

// The one reader of "Authorization: Bearer <token>" (the REST calls and /metrics share it).
TEST(RestCall, BearerToken) {
  EXPECT_EQ(bearer_token("Bearer abc"), "abc");
  EXPECT_EQ(bearer_token("bEARER abc"), "abc");
  EXPECT_EQ(bearer_token("Bearer "), "");
  EXPECT_EQ(bearer_token("Basic abc"), "");
  EXPECT_EQ(bearer_token("Bearer"), "");
  EXPECT_EQ(bearer_token(""), "");
}

TEST(RestCall, BodyIsTheLastPathArgumentThenQueryArguments) {
  RestCall c = decode(request("POST", "/set/k?EX=100&NX", R"({"a":1})"));
  EXPECT_EQ(c.commands[0], (Argv{"set", "k", R"({"a":1})", "EX", "100", "NX"}));
}

TEST(RestCall, JsonArrayBody) {
  RestCall c = decode(request("POST", "/", R"(["XADD","s","*","n",5,"x",1.5,true])"));
  EXPECT_EQ(c.commands[0], (Argv{"XADD", "s", "*", "n", "5", "x", "1.5", "true"}));
  EXPECT_EQ(decode_error(request("POST", "/", R"(["a",{"b":1}])")).substr(0, 3), "ERR");
  EXPECT_FALSE(decode_error(request("POST", "/", "[1,")).empty());
  EXPECT_FALSE(decode_error(request("POST", "/", "[]")).empty());
  EXPECT_FALSE(decode_error(request("GET", "/")).empty());
}

TEST(RestCall, PipelineAndMultiExec) {
  RestCall p = decode(request("POST", "/pipeline", R"([["SET","a","1"],["GET","a"]])"));
  EXPECT_EQ(p.kind, CallKind::kPipeline);
  ASSERT_EQ(p.commands.size(), 2u);
  EXPECT_EQ(p.commands[1], (Argv{"GET", "a"}));
  RestCall m = decode(request("POST", "/multi-exec", R"([["INCR","n"]])"));
  EXPECT_EQ(m.kind, CallKind::kMultiExec);
  EXPECT_FALSE(decode_error(request("POST", "/pipeline", R"(["SET","a","1"])")).empty());
  EXPECT_FALSE(decode_error(request("POST", "/pipeline", "{}")).empty());
}

TEST(RestCall, Base64Header) {
  HttpRequest r = request("GET", "/get/k");
  r.encoding = "base64";
  EXPECT_TRUE(decode(r).base64);
  EXPECT_FALSE(decode(request("GET", "/get/k")).base64);
}

TEST(RestCall, MalformedEscapesAreRefused) {
  EXPECT_FALSE(decode_error(request("GET", "/get/%zz")).empty());
  EXPECT_FALSE(decode_error(request("GET", "/get/%2")).empty());
}

}  // namespace
}  // namespace streamd::rest
