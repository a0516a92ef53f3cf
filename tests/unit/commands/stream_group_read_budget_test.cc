// XREADGROUP under MAXCOUNT/MAXSIZE (read_budget.h): history reads, `>` reads and the CLAIM
// phase take exactly the entries the reply holds, each sized as it is rendered (a pending entry
// gone from the stream as [id, nil], a claimed one with its idle time and count), and what the
// walks leave behind (PEL records, dead letters) and propagate is the same as a read of exactly
// those entries. Both protocols where the bytes differ.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "recording_persistence.h"
#include "stream_handler_fixture.h"

namespace streamd::cmd {
namespace {

using test::Decode;

class GroupReadBudget : public StreamHandlerTest {
 protected:
  // s: 1-0 .. n-0, each {f: v} (31 bytes as XREAD renders it); group g at 0; c1 read them all.
  void Fill(int n) {
    for (int i = 1; i <= n; ++i) h.Run({"XADD", "s", std::to_string(i) + "-0", "f", "v"});
    h.Run({"XGROUP", "CREATE", "s", "g", "0"});
    h.Run({"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">"});
  }
  // The top-level streams of a reply: an array of pairs in RESP2, a map in RESP3.
  static std::string Streams(resp::Protocol p, const std::string& key, const std::string& v) {
    return p == resp::Protocol::kResp2 ? "[[" + key + ", " + v + "]]" : "{" + key + ": " + v + "}";
  }
  std::string Pending() { return Decode(h.Run2({"XPENDING", "s", "g", "-", "+", "100"})); }
};

// A pending entry gone from the stream takes the room of [id, nil]: 4 + 9 + 5 = 18 bytes.
TEST_F(GroupReadBudget, HistorySizesDeletedEntriesAsNil) {
  Fill(3);
  h.Run({"XDEL", "s", "2-0"});
  h.Advance(5);
  EXPECT_EQ(
      Decode(h.Run2({"XREADGROUP", "GROUP", "g", "c1", "MAXSIZE", "49", "STREAMS", "s", "0"})),
      "[[\"s\", [[\"1-0\", [\"f\", \"v\"]], [\"2-0\", (nil-array)]]]]");
  // 1-0 delivered again, 2-0 left alone (gone), 3-0 not reached.
  EXPECT_EQ(Pending(),
            "[[\"1-0\", \"c1\", (integer) 0, (integer) 2], [\"2-0\", \"c1\", (integer) 5, "
            "(integer) 1], [\"3-0\", \"c1\", (integer) 5, (integer) 1]]");
  h.Advance(5);
  EXPECT_EQ(
      Decode(h.Run2({"XREADGROUP", "GROUP", "g", "c1", "MAXSIZE", "48", "STREAMS", "s", "0"})),
      "[[\"s\", [[\"1-0\", [\"f\", \"v\"]]]]]");
  EXPECT_EQ(
      Decode(h.Run2({"XREADGROUP", "GROUP", "g", "c1", "MAXCOUNT", "3", "STREAMS", "s", "2-0"})),
      "[[\"s\", [[\"3-0\", [\"f\", \"v\"]]]]]");
}

// A stream whose first entry does not fit is not listed, and later streams are not served; an
// empty history (nothing pending from the ID on) is listed empty.
TEST_F(GroupReadBudget, HistoryStopsAtTheFirstRefusal) {
  Fill(3);
  h.Run({"XADD", "t", "1-0", "f", "v"});
  h.Run({"XGROUP", "CREATE", "t", "g", "0"});
  h.Run({"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "t", ">"});
  EXPECT_EQ(Decode(h.Run2({"XREADGROUP", "GROUP", "g", "c1", "MAXSIZE", "31", "STREAMS", "s", "t",
                           "0", "0"})),
            "[[\"s\", [[\"1-0\", [\"f\", \"v\"]]]]]");
  EXPECT_EQ(Decode(h.Run2({"XREADGROUP", "GROUP", "g", "c1", "MAXSIZE", "31", "STREAMS", "s", "t",
                           "5-0", "0"})),
            "[[\"s\", []], [\"t\", [[\"1-0\", [\"f\", \"v\"]]]]]");
  EXPECT_EQ(Decode(h.Run2({"XREADGROUP", "GROUP", "g", "c1", "MAXCOUNT", "3", "STREAMS", "s", "t",
                           "0", "0"})),
            "[[\"s\", [[\"1-0\", [\"f\", \"v\"]], [\"2-0\", [\"f\", \"v\"]], [\"3-0\", [\"f\", "
            "\"v\"]]]]]");
  for (resp::Protocol p : test::kProtos) {
    SCOPED_TRACE(test::ProtoName(p));
    std::string r = h.Run(
        {"XREADGROUP", "GROUP", "g", "c1", "MAXCOUNT", "1", "STREAMS", "t", "s", "0", "0"}, p);
    EXPECT_EQ(Decode(r), Streams(p, "\"t\"", "[[\"1-0\", [\"f\", \"v\"]]]"));
  }
}

// The claim phase takes the idle entries the budget admits; the records a claim would drop
// (entry deleted) before the last admitted one are dropped, those after it stay for the next
// call, and only the drops and claims that happened propagate.
TEST_F(GroupReadBudget, ClaimTakesWhatFitsAndLeavesTheRest) {
  test::RecordingPersistence aof;
  Fill(5);
  h.Run({"XDEL", "s", "2-0", "4-0"});
  h.Advance(1000);
  h.server().set_persistence(&aof);
  EXPECT_EQ(Decode(h.Run2({"XREADGROUP", "GROUP", "g", "c2", "MAXCOUNT", "1", "CLAIM", "500",
                           "STREAMS", "s", ">"})),
            "[[\"s\", [[\"1-0\", [\"f\", \"v\"], (integer) 1000, (integer) 1]]]]");
  const std::string t = std::to_string(test::CommandHarness::kStartMs + 1000);
  EXPECT_EQ(aof.records, (std::vector<std::string>{
                             "XGROUP CREATECONSUMER s g c2",
                             "XCLAIM s g c2 0 1-0 TIME " + t + " RETRYCOUNT 2 FORCE JUSTID",
                         }));
  EXPECT_EQ(Decode(h.Run2({"XPENDING", "s", "g"})).substr(0, 14), "[(integer) 5, ");
  aof.records.clear();
  // 2-0 (gone) is dropped on the way to 3-0; 4-0 (gone) lies after the last admitted entry.
  EXPECT_EQ(Decode(h.Run2({"XREADGROUP", "GROUP", "g", "c2", "MAXCOUNT", "1", "CLAIM", "500",
                           "STREAMS", "s", ">"})),
            "[[\"s\", [[\"3-0\", [\"f\", \"v\"], (integer) 1000, (integer) 1]]]]");
  EXPECT_EQ(aof.records, (std::vector<std::string>{
                             "XACK s g 2-0",
                             "XCLAIM s g c2 0 3-0 TIME " + t + " RETRYCOUNT 2 FORCE JUSTID",
                         }));
  EXPECT_EQ(Decode(h.Run2({"XPENDING", "s", "g"})).substr(0, 14), "[(integer) 4, ");
  // Nothing more fits after a large first stream: the claim of s does not run at all, so 4-0
  // stays pending, and the stream is not listed.
  h.Run({"XADD", "big", "1-0", "f", std::string(100, 'x')});
  h.Run({"XGROUP", "CREATE", "big", "g", "0"});
  aof.records.clear();
  std::string r = Decode(h.Run2({"XREADGROUP", "GROUP", "g", "c2", "MAXSIZE", "50", "CLAIM", "500",
                                 "STREAMS", "big", "s", ">", ">"}));
  EXPECT_EQ(r.substr(0, 10), "[[\"big\", [") << r;
  EXPECT_EQ(r.find("\"s\""), std::string::npos) << r;
  EXPECT_EQ(Decode(h.Run2({"XPENDING", "s", "g"})).substr(0, 14), "[(integer) 4, ");
  EXPECT_EQ(aof.records.size(), 3u);  // big: the delivery, the group position, the consumer
  h.server().set_persistence(nullptr);
}

// In a CLAIM read, claimed entries are sized with their two integers (":1000\r\n:1\r\n", 11
// bytes: 42 in all) and the new entries after them as plain entries (31), the COUNT shared.
TEST_F(GroupReadBudget, ClaimThenNewEntriesShareTheBudget) {
  for (resp::Protocol p : test::kProtos) {
    SCOPED_TRACE(test::ProtoName(p));
    h.Run({"FLUSHALL"});
    Fill(1);
    h.Run({"XADD", "s", "2-0", "f", "v"});
    h.Run({"XADD", "s", "3-0", "f", "v"});
    h.Advance(1000);
    std::string r = Decode(h.Run(
        {"XREADGROUP", "GROUP", "g", "c2", "MAXSIZE", "73", "CLAIM", "500", "STREAMS", "s", ">"},
        p));
    EXPECT_EQ(r, Streams(p, "\"s\"",
                         "[[\"1-0\", [\"f\", \"v\"], (integer) 1000, (integer) 1], "
                         "[\"2-0\", [\"f\", \"v\"], (integer) 0, (integer) 0]]"));
    h.Advance(1000);
    r = Decode(h.Run(
        {"XREADGROUP", "GROUP", "g", "c2", "MAXSIZE", "72", "CLAIM", "500", "STREAMS", "s", ">"},
        p));
    EXPECT_EQ(r, Streams(p, "\"s\"", "[[\"1-0\", [\"f\", \"v\"], (integer) 1000, (integer) 2]]"));
  }
}

// One XREADGROUP CLAIM stream propagates what it did in one order: the consumer it created, the
// records it dropped, the claims, the new entries (with LASTID), the group's position.
TEST_F(GroupReadBudget, ClaimReadPropagatesInOneOrder) {
  test::RecordingPersistence aof;
  Fill(3);
  h.Run({"XADD", "s", "4-0", "f", "v"});
  h.Run({"XDEL", "s", "2-0"});
  h.Advance(1000);
  h.server().set_persistence(&aof);
  h.Run({"XREADGROUP", "GROUP", "g", "c2", "COUNT", "3", "CLAIM", "500", "STREAMS", "s", ">"});
  const std::string t = std::to_string(test::CommandHarness::kStartMs + 1000);
  EXPECT_EQ(aof.records,
            (std::vector<std::string>{
                "XGROUP CREATECONSUMER s g c2",
                "XACK s g 2-0",
                "XCLAIM s g c2 0 1-0 TIME " + t + " RETRYCOUNT 2 FORCE JUSTID",
                "XCLAIM s g c2 0 3-0 TIME " + t + " RETRYCOUNT 2 FORCE JUSTID",
                "XCLAIM s g c2 0 4-0 TIME " + t + " RETRYCOUNT 1 FORCE JUSTID LASTID 4-0",
                "XGROUP SETID s g 4-0 ENTRIESREAD 4",
            }));
  h.server().set_persistence(nullptr);
}

}  // namespace
}  // namespace streamd::cmd
