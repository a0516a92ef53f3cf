// XNACK's argument checks and their order (Redis 8.8; no Redis that new runs here, so the bytes
// are streamd's own, recorded before the group handlers moved to ArgCursor and unchanged by it).
// The group commands 7.0.15 has are checked against it in
// tests/differential/scripts/groups_arg_order.txt.
#include <gtest/gtest.h>

#include "stream_handler_fixture.h"

namespace streamd::cmd {
namespace {

class StreamGroupArgsTest : public StreamHandlerTest {
 protected:
  void SetUp() override {
    h.Run({"XADD", "s", "1-1", "f", "v"});
    h.Run({"XGROUP", "CREATE", "s", "g", "0"});
    h.Run({"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"});
  }
};

TEST_F(StreamGroupArgsTest, XnackRefusals) {
  const std::string kNumIds = "-ERR numids must be a positive integer\r\n";
  EXPECT_EQ(Refused({"XNACK", "s", "g", "BOGUS", "IDS", "1", "1-1"}, "s"),
            "-ERR mode must be SILENT, FAIL, or FATAL\r\n");
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "IDS", "0", "1-1"}, "s"), kNumIds);
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "IDS", "x", "1-1"}, "s"), kNumIds);
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "IDS", "-1", "1-1"}, "s"), kNumIds);
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "IDS", "3", "1-1"}, "s"),
            "-ERR number of IDs doesn't match numids\r\n");
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "IDS", "1", "bad"}, "s"), kInvalidId);
  // A second IDS block is not an option.
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "IDS", "1", "1-1", "IDS", "1", "1-1"}, "s"),
            "-ERR Unrecognized XNACK option 'IDS'\r\n");
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "IDS", "1", "1-1", "RETRYCOUNT", "x"}, "s"),
            kNotInteger);
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "IDS", "1", "1-1", "RETRYCOUNT", "-1"}, "s"),
            "-ERR Invalid RETRYCOUNT value, must be >= 0\r\n");
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "IDS", "1", "1-1", "WHAT"}, "s"),
            "-ERR Unrecognized XNACK option 'WHAT'\r\n");
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "FORCE", "RETRYCOUNT", "2"}, "s"),
            "-ERR syntax error, expected IDS keyword\r\n");
  // A keyword without its argument is an unknown option.
  EXPECT_EQ(Refused({"XNACK", "s", "g", "fail", "IDS", "1", "1-1", "RETRYCOUNT"}, "s"),
            "-ERR Unrecognized XNACK option 'RETRYCOUNT'\r\n");
  // Arguments are checked before the key and group.
  EXPECT_EQ(Refused({"XNACK", "s", "nog", "fail", "IDS", "1", "1-1", "WHAT"}, "s"),
            "-ERR Unrecognized XNACK option 'WHAT'\r\n");
  EXPECT_EQ(Refused({"XNACK", "s", "nog", "fail", "IDS", "1", "1-1"}, "s"),
            "-NOGROUP No such key 's' or consumer group 'nog'\r\n");
}

TEST_F(StreamGroupArgsTest, XnackOptionsInAnyOrder) {
  EXPECT_EQ(h.Run2({"XNACK", "s", "g", "silent", "RETRYCOUNT", "3", "IDS", "1", "1-1", "FORCE"}),
            ":1\r\n");
  EXPECT_EQ(h.Run2({"XNACK", "s", "g", "fatal", "IDS", "2", "1-1", "2-2"}), ":1\r\n");
}

}  // namespace
}  // namespace streamd::cmd
