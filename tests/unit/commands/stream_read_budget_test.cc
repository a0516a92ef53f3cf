// MAXCOUNT/MAXSIZE bookkeeping (stream_read_budget.h): the size MAXSIZE counts is exactly the
// bytes XREAD writes for an entry, in both protocols; the first entry is always admitted; the
// in-process commands agree.
#include "streamd/commands/stream/read_budget.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "command_harness.h"
#include "streamd/commands/stream/support.h"

namespace streamd::cmd {
namespace {

using engine::FieldValue;
using engine::StreamId;

TEST(StreamReadBudget, EntrySizeIsTheRenderedSize) {
  std::string big(100000, 'x');
  std::vector<std::vector<FieldValue>> cases = {
      {{"f", "v"}}, {{"temperature", "23.5"}, {"humidity", ""}}, {{"payload", big}}, {}};
  for (auto proto : {resp::Protocol::kResp2, resp::Protocol::kResp3}) {
    for (const auto& fields : cases) {
      for (StreamId id : {StreamId{0, 1}, StreamId{1700000000000, 12345}}) {
        std::string out;
        resp::ReplyWriter w(out, proto);
        write_entry(w, id, fields);
        EXPECT_EQ(entry_reply_size(id, fields), out.size());
      }
    }
  }
}

TEST(StreamReadBudget, FirstEntryAlwaysFitsThenTheCapHolds) {
  ReadBudget b(0, 100);
  EXPECT_TRUE(b.limited());
  EXPECT_TRUE(b.admits(5000));  // the first entry, however large
  b.take(5000);
  EXPECT_FALSE(b.admits(1));
  ReadBudget c(2, 0);
  c.take(10);
  EXPECT_TRUE(c.admits(1000000));
  c.take(10);
  EXPECT_FALSE(c.admits(1));
  EXPECT_FALSE(ReadBudget(0, 0).limited());
}

TEST(StreamReadBudget, XreadAndXreadgroupServeWhatFits) {
  test::CommandHarness h;
  for (int i = 1; i <= 3; ++i) {
    h.Run({"XADD", "a", std::to_string(i) + "-0", "f", "v"});
    h.Run({"XADD", "b", std::to_string(i) + "-0", "f", "v"});
  }
  // One entry "*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n" is 30 bytes: 65 holds two.
  std::string two = h.Run2({"XREAD", "MAXSIZE", "65", "STREAMS", "a", "b", "0", "0"});
  EXPECT_EQ(two,
            "*1\r\n*2\r\n$1\r\na\r\n*2\r\n"
            "*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n"
            "*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
  h.Run({"XGROUP", "CREATE", "b", "g", "0"});
  EXPECT_EQ(h.Run2({"XREADGROUP", "GROUP", "g", "c", "MAXCOUNT", "1", "STREAMS", "b", ">"}),
            "*1\r\n*2\r\n$1\r\nb\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
  EXPECT_EQ(h.Run2({"XPENDING", "b", "g"}).substr(0, 6), "*4\r\n:1");
}

}  // namespace
}  // namespace streamd::cmd
