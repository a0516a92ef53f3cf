// XREADGROUP and XCLAIM argument meanings the stream fuzzer found to differ from Redis
// (replies checked against redis-server 7.0.15, 7.4.1 and main of October 2024).
#include <gtest/gtest.h>

#include "command_harness.h"

namespace streamd::cmd {
namespace {

using test::CommandHarness;

// Redis keeps `>` as the maximal ID and decides "new entries or history" by it, so the explicit
// maximal ID reads new entries exactly as `>` does (and delivers them to the PEL).
TEST(StreamGroupRead, ExplicitMaximalIdReadsNewEntries) {
  CommandHarness h;
  const std::string max_id = "18446744073709551615-18446744073709551615";
  h.Run({"XGROUP", "CREATE", "s1", "g2", "11", "MKSTREAM"});
  EXPECT_EQ(h.Run2({"XREADGROUP", "GROUP", "g2", "c1", "STREAMS", "s1", max_id}), "*-1\r\n");
  EXPECT_EQ(h.Run({"XREADGROUP", "GROUP", "g2", "c1", "STREAMS", "s1", max_id}), "_\r\n");
  h.Run({"XADD", "s1", "14-0", "a", "1"});
  EXPECT_EQ(h.Run2({"XREADGROUP", "GROUP", "g2", "c1", "STREAMS", "s1", max_id}),
            "*1\r\n*2\r\n$2\r\ns1\r\n*1\r\n*2\r\n$4\r\n14-0\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n");
  // Delivered like `>`: pending for c1, and `>` has nothing left.
  EXPECT_EQ(h.Run2({"XPENDING", "s1", "g2"}),
            "*4\r\n:1\r\n$4\r\n14-0\r\n$4\r\n14-0\r\n*1\r\n*2\r\n$2\r\nc1\r\n$1\r\n1\r\n");
  EXPECT_EQ(h.Run2({"XREADGROUP", "GROUP", "g2", "c1", "STREAMS", "s1", ">"}), "*-1\r\n");
}

// XCLAIM keeps the last RETRYCOUNT, and a negative one means "not given": the delivery counter
// is then incremented as for a claim without RETRYCOUNT.
TEST(StreamGroupRead, XclaimLastRetrycountWinsAndNegativeIsUnset) {
  CommandHarness h;
  h.Run({"XADD", "s1", "3-1", "b", "v"});
  h.Run({"XGROUP", "CREATE", "s1", "g2", "$"});
  h.Run({"XCLAIM", "s1", "g2", "c", "0", "3-1", "FORCE"});
  h.Run({"XCLAIM", "s1", "g2", "c", "0", "3-1", "RETRYCOUNT", "0", "RETRYCOUNT", "-1"});
  h.Run({"XCLAIM", "s1", "g2", "c", "0", "3-1", "RETRYCOUNT", "-5"});
  std::string r = h.Run2({"XPENDING", "s1", "g2", "-", "+", "10"});
  // [[id, consumer, idle, count]]: as in Redis, the FORCE claim leaves 2 (the record starts at
  // 1 and the claim counts one) and each later claim adds one.
  EXPECT_NE(r.find("$1\r\nc\r\n"), std::string::npos) << r;
  EXPECT_EQ(r.substr(r.size() - 4), ":4\r\n") << r;
  h.Run({"XCLAIM", "s1", "g2", "c", "0", "3-1", "RETRYCOUNT", "-1", "RETRYCOUNT", "7"});
  r = h.Run2({"XPENDING", "s1", "g2", "-", "+", "10"});
  EXPECT_EQ(r.substr(r.size() - 4), ":7\r\n") << r;
}

}  // namespace
}  // namespace streamd::cmd
