#include "streamd/rest/resp_to_json.h"

#include <gtest/gtest.h>

#include "streamd/resp/reply_writer.h"

namespace streamd::rest {
namespace {

std::string convert(std::string_view resp, bool base64 = false) {
  std::size_t pos = 0;
  auto r = resp_to_json(resp, pos, base64);
  EXPECT_TRUE(r.has_value()) << resp;
  if (!r) return "";
  EXPECT_EQ(pos, resp.size()) << resp;
  return json_text(r->envelope());
}

TEST(RespToJson, ScalarsAsUpstashShowsThem) {
  EXPECT_EQ(convert("+OK\r\n"), R"({"result":"OK"})");
  EXPECT_EQ(convert(":42\r\n"), R"({"result":42})");
  EXPECT_EQ(convert(":-7\r\n"), R"({"result":-7})");
  EXPECT_EQ(convert("$3\r\nbar\r\n"), R"({"result":"bar"})");
  EXPECT_EQ(convert("$0\r\n\r\n"), R"({"result":""})");
  EXPECT_EQ(convert("$-1\r\n"), R"({"result":null})");
  EXPECT_EQ(convert("*-1\r\n"), R"({"result":null})");
  EXPECT_EQ(convert("-ERR syntax error\r\n"), R"({"error":"ERR syntax error"})");
}

TEST(RespToJson, BulkStringsMayHoldCrLfAndQuotes) {
  EXPECT_EQ(convert("$5\r\na\r\n\"b\r\n"), R"({"result":"a\r\n\"b"})");
}

TEST(RespToJson, NestedArraysAsAStreamReadReply) {
  // XRANGE s - + : [[id, [f, v]]]
  EXPECT_EQ(convert("*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n"),
            R"({"result":[["1-1",["f","v"]]]})");
  EXPECT_EQ(convert("*2\r\n$1\r\na\r\n$-1\r\n"), R"({"result":["a",null]})");
  EXPECT_EQ(convert("*0\r\n"), R"({"result":[]})");
}

TEST(RespToJson, Base64EncodesEveryStringButOk) {
  EXPECT_EQ(convert("+OK\r\n", true), R"({"result":"OK"})");
  EXPECT_EQ(convert("+PONG\r\n", true), R"({"result":"UE9ORw=="})");
  EXPECT_EQ(convert("$2\r\nOK\r\n", true), R"({"result":"T0s="})");
  EXPECT_EQ(convert("*2\r\n$1\r\na\r\n:1\r\n", true), R"({"result":["YQ==",1]})");
  EXPECT_EQ(convert("-ERR x\r\n", true), R"({"error":"ERR x"})");
}

TEST(RespToJson, Base64OfAllLengths) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode(std::string("\xff\x00\x10", 3)), "/wAQ");
}

TEST(RespToJson, BinaryWithoutBase64IsReplacedNotThrown) {
  std::string resp = "$2\r\n\xff\xfe\r\n";
  EXPECT_NO_THROW(convert(resp));
}

TEST(RespToJson, WriterOutputRoundTripsIncludingResp3Types) {
  std::string out;
  resp::ReplyWriter w(out, resp::Protocol::kResp3);
  w.map(1);
  w.bulk("k");
  w.set(2);
  w.boolean(true);
  w.null();
  EXPECT_EQ(convert(out), R"({"result":["k",[1,null]]})");
}

TEST(RespToJson, IncompleteInputIsRefused) {
  std::size_t pos = 0;
  EXPECT_FALSE(resp_to_json("$5\r\nab", pos, false).has_value());
  pos = 0;
  EXPECT_FALSE(resp_to_json("*2\r\n:1\r\n", pos, false).has_value());
  pos = 0;
  EXPECT_FALSE(resp_to_json("?x\r\n", pos, false).has_value());
}

TEST(RespToJson, ArrayHeaderSplitsExecReplies) {
  std::string exec = "*2\r\n+OK\r\n-ERR bad\r\n";
  std::size_t pos = 0;
  auto n = resp_array_header(exec, pos);
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(*n, 2);
  auto a = resp_to_json(exec, pos, false);
  auto b = resp_to_json(exec, pos, false);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(a->is_error);
  EXPECT_TRUE(b->is_error);
  EXPECT_EQ(b->error, "ERR bad");
  pos = 0;
  EXPECT_FALSE(resp_array_header("+OK\r\n", pos).has_value());
}

}  // namespace
}  // namespace streamd::rest
