// Consumer-group semantics of newest Redis (issue 11 items 4, 7, 8, 10), in process with a manual
// clock, in both protocols: consumers created by every XREADGROUP/XCLAIM/XAUTOCLAIM attempt
// (7.2), seen-time vs active-time, blocked XREADGROUP woken by its key going away (7.4), lag
// after XDEL/XTRIM (7.4/8.0), INFO's change counter, the ENTRIESREAD cap (8.2.2) and XINFO
// STREAM's IDMP fields on every stream (8.6). The expected replies were checked against a Redis
// built from its main branch where it has the feature.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "command_harness.h"

namespace streamd::cmd {
namespace {

using test::CommandHarness;
using test::Decode;
using test::kProtos;
using test::ProtoName;

// INFO persistence's rdb_changes_since_last_save.
long long Dirty(CommandHarness& h) {
  std::string info = Decode(h.Run({"INFO", "persistence"}));
  std::string key = "rdb_changes_since_last_save:";
  std::size_t at = info.find(key);
  EXPECT_NE(at, std::string::npos);
  return std::stoll(info.substr(at + key.size()));
}

// ---- item 4: consumers exist from the first attempt ----------------------------------------

TEST(StreamGroupSemantics, EveryAttemptCreatesTheConsumer) {
  for (resp::Protocol p : kProtos) {
    SCOPED_TRACE(ProtoName(p));
    CommandHarness h;
    h.Run({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}, p);
    // Nothing to read: the reply is null, the consumer exists all the same, never active.
    EXPECT_EQ(h.Run({"XREADGROUP", "GROUP", "g", "c1", "NOACK", "STREAMS", "s", ">"}, p),
              p == resp::Protocol::kResp2 ? "*-1\r\n" : "_\r\n");
    std::string c1 = h.Run({"XINFO", "CONSUMERS", "s", "g"}, p);
    if (p == resp::Protocol::kResp2) {
      EXPECT_EQ(c1,
                "*1\r\n*8\r\n$4\r\nname\r\n$2\r\nc1\r\n$7\r\npending\r\n:0\r\n$4\r\nidle\r\n:0\r\n"
                "$8\r\ninactive\r\n:-1\r\n");
    } else {
      EXPECT_EQ(c1,
                "*1\r\n%4\r\n$4\r\nname\r\n$2\r\nc1\r\n$7\r\npending\r\n:0\r\n$4\r\nidle\r\n:0\r\n"
                "$8\r\ninactive\r\n:-1\r\n");
    }
    // A history read of a consumer that does not exist creates it too.
    EXPECT_EQ(Decode(h.Run({"XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", "0"}, p)),
              p == resp::Protocol::kResp2 ? "[[\"s\", []]]" : "{\"s\": []}");
    // XCLAIM of an ID that is not pending, XAUTOCLAIM of an empty PEL (also JUSTID).
    EXPECT_EQ(Decode(h.Run({"XCLAIM", "s", "g", "c3", "0", "7-0"}, p)), "[]");
    EXPECT_EQ(Decode(h.Run({"XGROUP", "CREATECONSUMER", "s", "g", "c3"}, p)), "(integer) 0");
    EXPECT_EQ(Decode(h.Run({"XAUTOCLAIM", "s", "g", "c4", "0", "0"}, p)), "[\"0-0\", [], []]");
    EXPECT_EQ(Decode(h.Run({"XAUTOCLAIM", "s", "g", "c5", "0", "0", "JUSTID"}, p)),
              "[\"0-0\", [], []]");
    std::string groups = Decode(h.Run({"XINFO", "GROUPS", "s"}, p));
    EXPECT_NE(groups.find(p == resp::Protocol::kResp2 ? "\"consumers\", (integer) 5"
                                                      : "\"consumers\": (integer) 5"),
              std::string::npos)
        << groups;
    // A blocking read that finds nothing creates its consumer before it parks.
    EXPECT_EQ(h.RunRaw({"XREADGROUP", "GROUP", "g", "c6", "BLOCK", "0", "STREAMS", "s", ">"}, p, 1),
              "");
    EXPECT_EQ(Decode(h.Run({"XGROUP", "CREATECONSUMER", "s", "g", "c6"}, p)), "(integer) 0");
  }
}

// Redis's "Consumer seen-time and active-time" (first half) with a manual clock, and which
// interactions count as activity: `>` deliveries that create pending entries and claims; not
// NOACK deliveries, history reads or attempts that get nothing.
TEST(StreamGroupSemantics, SeenTimeAndActiveTime) {
  CommandHarness h;
  auto consumer = [&](const std::string& name) {
    return Decode(h.Run2({"XINFO", "CONSUMERS", "s", "g"}))
        .find("\"" + name + "\"");  // presence only; times are read below
  };
  auto times = [&](std::size_t i) {  // [idle, inactive] of the i-th consumer (name order)
    std::string r = Decode(h.Run({"XINFO", "CONSUMERS", "s", "g"}));
    std::vector<std::string> out;
    std::size_t at = 0;
    for (std::size_t k = 0; k <= i; ++k) {
      at = r.find("\"idle\": (integer) ", at);
      EXPECT_NE(at, std::string::npos);
      at += 18;
    }
    std::size_t end = r.find(',', at);
    std::string idle = r.substr(at, end - at);
    at = r.find("\"inactive\": (integer) ", at) + 22;
    end = r.find_first_of(",}", at);
    return idle + "/" + r.substr(at, end - at);
  };
  h.Run({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
  h.Run({"XREADGROUP", "GROUP", "g", "Alice", "COUNT", "1", "STREAMS", "s", ">"});
  EXPECT_NE(consumer("Alice"), std::string::npos);
  h.Advance(100);
  EXPECT_EQ(times(0), "100/-1");
  h.Run({"XADD", "s", "*", "f", "v"});
  h.Run({"XREADGROUP", "GROUP", "g", "Alice", "COUNT", "1", "STREAMS", "s", ">"});
  EXPECT_EQ(times(0), "0/0");
  h.Advance(100);
  h.Run({"XREADGROUP", "GROUP", "g", "Alice", "COUNT", "1", "STREAMS", "s", ">"});
  EXPECT_EQ(times(0), "0/100") << "an attempt that gets nothing is seen, not active";
  h.Advance(10);
  h.Run({"XREADGROUP", "GROUP", "g", "Alice", "STREAMS", "s", "0"});
  EXPECT_EQ(times(0), "0/110") << "a history read is not activity";
  h.Run({"XADD", "s", "*", "f", "v"});
  h.Advance(10);
  h.Run({"XREADGROUP", "GROUP", "g", "Bob", "NOACK", "STREAMS", "s", ">"});
  EXPECT_EQ(times(1), "0/-1") << "a NOACK delivery is not activity";
  h.Advance(10);
  std::string pending = Decode(h.Run({"XPENDING", "s", "g", "-", "+", "1"}));
  std::string id = pending.substr(3, pending.find('"', 3) - 3);
  h.Run({"XCLAIM", "s", "g", "Bob", "0", id, "JUSTID"});
  EXPECT_EQ(times(1), "0/0") << "a claim is activity";
  h.Advance(10);
  h.Run({"XAUTOCLAIM", "s", "g", "Bob", "1000", "0"});
  EXPECT_EQ(times(1), "0/10") << "an XAUTOCLAIM that claims nothing is seen only";
}

// Redis's `>` is the maximal ID inside: an explicit maximal ID reads new entries (and, with
// nothing new, leaves the stream out of the reply), in 7.0.15 and newest alike.
TEST(StreamGroupSemantics, MaximalIdReadsLikeGreaterThan) {
  for (resp::Protocol p : kProtos) {
    SCOPED_TRACE(ProtoName(p));
    CommandHarness h;
    h.Run({"XADD", "s1", "1-0", "f", "v"}, p);
    h.Run({"XGROUP", "CREATE", "s1", "g1", "0"}, p);
    h.Run({"XADD", "s2", "1-0", "f", "v"}, p);
    h.Run({"XGROUP", "CREATE", "s2", "g1", "$"}, p);
    const std::vector<std::string> read = {
        "XREADGROUP", "GROUP", "g1", "c1",
        "STREAMS",    "s1",    "s2", "18446744073709551615-18446744073709551615",
        "12-0"};
    EXPECT_EQ(Decode(h.Run(read, p)), p == resp::Protocol::kResp2
                                          ? "[[\"s1\", [[\"1-0\", [\"f\", \"v\"]]]], [\"s2\", []]]"
                                          : "{\"s1\": [[\"1-0\", [\"f\", \"v\"]]], \"s2\": []}");
    EXPECT_EQ(Decode(h.Run(read, p)),
              p == resp::Protocol::kResp2 ? "[[\"s2\", []]]" : "{\"s2\": []}");
  }
}

// ---- item 7: blocked XREADGROUP when its key goes away --------------------------------------

class BlockedGroupRead : public ::testing::Test {
 protected:
  // Client 1 blocks in XREADGROUP on s (which has group g); its replies go to out_.
  void Block(resp::Protocol p) {
    h_.Run({"XADD", "s", "666", "f", "v"}, p);
    h_.Run({"XGROUP", "CREATE", "s", "g", "$"}, p);
    h_.session(1).out = &out_;
    EXPECT_EQ(
        h_.RunRaw({"XREADGROUP", "GROUP", "g", "Alice", "BLOCK", "0", "STREAMS", "s", ">"}, p, 1),
        "");
    ASSERT_TRUE(h_.session(1).blocked);
  }
  // Serves the woken clients and returns what client 1 got.
  std::string Woken() {
    h_.server().blocking().serve_ready(h_.dispatcher());
    return out_;
  }

  CommandHarness h_;
  std::string out_;
};

constexpr std::string_view kNogroup =
    "-NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option\r\n";
constexpr std::string_view kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

TEST_F(BlockedGroupRead, KeyDeletedAnswersNogroup) {
  for (resp::Protocol p : kProtos) {
    SCOPED_TRACE(ProtoName(p));
    h_.Run({"FLUSHALL"});
    out_.clear();
    Block(p);
    h_.Run({"DEL", "s"});
    EXPECT_EQ(Woken(), kNogroup);
    EXPECT_FALSE(h_.session(1).blocked);
  }
}

TEST_F(BlockedGroupRead, KeyReplacedByAStringAnswersWrongtype) {
  for (resp::Protocol p : kProtos) {
    SCOPED_TRACE(ProtoName(p));
    h_.Run({"FLUSHALL"});
    out_.clear();
    Block(p);
    h_.Run({"SET", "s", "val1"});
    EXPECT_EQ(Woken(), kWrongType);
  }
}

TEST_F(BlockedGroupRead, KeyReplacedInATransactionAnswersWrongtype) {
  Block(resp::Protocol::kResp3);
  h_.Run({"MULTI"});
  h_.Run({"DEL", "s"});
  h_.Run({"SET", "s", "e1"});
  h_.Run({"EXEC"});
  EXPECT_EQ(Woken(), kWrongType);
}

TEST_F(BlockedGroupRead, FlushallAndFlushdbAnswerNogroup) {
  for (const char* flush : {"FLUSHALL", "FLUSHDB"}) {
    SCOPED_TRACE(flush);
    h_.Run({"FLUSHALL"});
    out_.clear();
    Block(resp::Protocol::kResp2);
    h_.Run({flush});
    EXPECT_EQ(Woken(), kNogroup);
  }
}

TEST_F(BlockedGroupRead, GroupDestroyedAnswersNogroup) {
  Block(resp::Protocol::kResp3);
  EXPECT_EQ(Decode(h_.Run({"XGROUP", "DESTROY", "s", "g"})), "(integer) 1");
  EXPECT_EQ(Woken(), kNogroup);
  // The woken run counts as the failed call (Redis: calls=1, failed_calls=1).
  std::string stats = Decode(h_.Run({"INFO", "commandstats"}));
  EXPECT_NE(stats.find("cmdstat_xreadgroup:calls=1,"), std::string::npos) << stats;
  EXPECT_NE(stats.find("failed_calls=1"), std::string::npos) << stats;
}

TEST_F(BlockedGroupRead, RenameOverTheKeyServesOrAnswersNogroup) {
  // The stream renamed over s has the group: it serves the blocked reader.
  Block(resp::Protocol::kResp2);
  h_.Run({"XGROUP", "CREATE", "s2", "g", "$", "MKSTREAM"});
  h_.Run({"XADD", "s2", "100", "f1", "v1"});
  h_.Run({"RENAME", "s2", "s"});
  EXPECT_EQ(Decode(Woken()), "[[\"s\", [[\"100-0\", [\"f1\", \"v1\"]]]]]");
  // One without the group answers NOGROUP.
  h_.Run({"FLUSHALL"});
  out_.clear();
  Block(resp::Protocol::kResp2);
  h_.Run({"XADD", "s2", "100", "f1", "v1"});
  h_.Run({"RENAME", "s2", "s"});
  EXPECT_EQ(Woken(), kNogroup);
}

TEST_F(BlockedGroupRead, SwapdbAnswersNogroupOrWrongtype) {
  Block(resp::Protocol::kResp3);
  h_.Run({"SWAPDB", "4", "0"});  // db 4 is empty: s is gone from db 0
  EXPECT_EQ(Woken(), kNogroup);
  h_.Run({"FLUSHALL"});
  out_.clear();
  h_.Run({"SELECT", "4"});
  h_.Run({"SET", "s", "x"});
  h_.Run({"SELECT", "0"});
  Block(resp::Protocol::kResp3);
  h_.Run({"SWAPDB", "4", "0"});
  EXPECT_EQ(Woken(), kWrongType);
}

// ---- item 8: lag after XDEL and XTRIM --------------------------------------------------------

// "entries-read E lag L" of the only group of x, from XINFO STREAM FULL.
std::string FullLag(CommandHarness& h, resp::Protocol p) {
  std::string r = Decode(h.Run({"XINFO", "STREAM", "x", "FULL"}, p));
  auto value_after = [&](const std::string& key) {
    std::size_t at = r.find("\"" + key + "\"");
    EXPECT_NE(at, std::string::npos) << key << " in " << r;
    at = r.find_first_not_of(":, ", at + key.size() + 2);
    std::size_t end = r.find_first_of(",}]", at);
    return r.substr(at, end - at);
  };
  return value_after("entries-read") + " / " + value_after("lag");
}

TEST(StreamGroupSemantics, LagWithTombstoneAfterTheGroupPosition) {
  for (resp::Protocol p : kProtos) {
    SCOPED_TRACE(ProtoName(p));
    CommandHarness h;
    h.Run({"XGROUP", "CREATE", "x", "g1", "$", "MKSTREAM"}, p);
    h.Run({"XADD", "x", "1-0", "data", "a"}, p);
    h.Run({"XREADGROUP", "GROUP", "g1", "alice", "STREAMS", "x", ">"}, p);
    h.Run({"XADD", "x", "2-0", "data", "c"}, p);
    h.Run({"XADD", "x", "3-0", "data", "d"}, p);
    h.Run({"XDEL", "x", "2-0"}, p);
    EXPECT_EQ(FullLag(h, p), "(integer) 1 / (nil)");
    h.Run({"XDEL", "x", "1-0"}, p);
    EXPECT_EQ(FullLag(h, p), "(integer) 1 / (integer) 1") << "7.0.15: lag 2";
    h.Run({"XREADGROUP", "GROUP", "g1", "alice", "STREAMS", "x", ">"}, p);
    EXPECT_EQ(FullLag(h, p), "(integer) 3 / (integer) 0") << "7.0.15: 2 / 1";
  }
}

TEST(StreamGroupSemantics, LagWithXtrim) {
  for (resp::Protocol p : kProtos) {
    SCOPED_TRACE(ProtoName(p));
    CommandHarness h;
    h.Run({"XGROUP", "CREATE", "x", "mygroup", "$", "MKSTREAM"}, p);
    for (int i = 1; i <= 5; ++i) h.Run({"XADD", "x", std::to_string(i) + "-0", "data", "a"}, p);
    h.Run({"XREADGROUP", "GROUP", "mygroup", "alice", "COUNT", "1", "STREAMS", "x", ">"}, p);
    EXPECT_EQ(FullLag(h, p), "(integer) 1 / (integer) 4");
    h.Run({"XTRIM", "x", "MAXLEN", "1"}, p);
    EXPECT_EQ(FullLag(h, p), "(integer) 1 / (integer) 1") << "7.0.15: lag 4";
    h.Run({"XTRIM", "x", "MAXLEN", "0"}, p);
    EXPECT_EQ(FullLag(h, p), "(integer) 1 / (integer) 0") << "7.0.15: lag 4";
  }
}

// ---- item 10: ENTRIESREAD cap, IDMP fields ---------------------------------------------------

TEST(StreamGroupSemantics, EntriesReadIsCappedAtEntriesAdded) {
  for (resp::Protocol p : kProtos) {
    SCOPED_TRACE(ProtoName(p));
    CommandHarness h;
    for (int i = 1; i <= 3; ++i) h.Run({"XADD", "x", std::to_string(i) + "-0", "f", "v"}, p);
    h.Run({"XGROUP", "CREATE", "x", "g", "0", "ENTRIESREAD", "7"}, p);
    h.Run({"XGROUP", "CREATE", "x", "h", "0"}, p);
    h.Run({"XGROUP", "SETID", "x", "h", "0", "ENTRIESREAD", "100"}, p);
    h.Run({"XGROUP", "CREATE", "e", "g", "$", "MKSTREAM", "ENTRIESREAD", "5"}, p);
    std::string x = Decode(h.Run({"XINFO", "GROUPS", "x"}, p));
    std::string e = Decode(h.Run({"XINFO", "GROUPS", "e"}, p));
    if (p == resp::Protocol::kResp3) {
      EXPECT_NE(x.find("\"name\": \"g\", \"consumers\": (integer) 0, \"pending\": (integer) 0, "
                       "\"last-delivered-id\": \"0-0\", \"entries-read\": (integer) 3, "
                       "\"lag\": (integer) 3"),
                std::string::npos)
          << x;
      EXPECT_NE(x.find("\"name\": \"h\", \"consumers\": (integer) 0, \"pending\": (integer) 0, "
                       "\"last-delivered-id\": \"0-0\", \"entries-read\": (integer) 3"),
                std::string::npos)
          << x;
      EXPECT_NE(e.find("\"entries-read\": (integer) 0, \"lag\": (integer) 0"), std::string::npos)
          << e;
    } else {
      // redis-py 8.1.0's test_xgroup_create_entriesread_fixed_max_entries_read: 3 and lag 3.
      EXPECT_NE(x.find("\"entries-read\", (integer) 3, \"lag\", (integer) 3]"), std::string::npos)
          << x;
      EXPECT_EQ(x.find("(integer) 7"), std::string::npos) << x;
      EXPECT_EQ(x.find("(integer) 100"), std::string::npos) << x;
    }
    // Below the cap and -1 are kept as given.
    h.Run({"XGROUP", "SETID", "x", "h", "0", "ENTRIESREAD", "2"}, p);
    EXPECT_NE(Decode(h.Run({"XINFO", "GROUPS", "x"}, p)).find("(integer) 2"), std::string::npos);
  }
}

TEST(StreamGroupSemantics, XinfoStreamHasIdmpFieldsOnEveryStream) {
  for (resp::Protocol p : kProtos) {
    SCOPED_TRACE(ProtoName(p));
    CommandHarness h;
    h.Run({"XADD", "s", "1-1", "foo", "bar"}, p);
    std::string plain = h.Run({"XINFO", "STREAM", "s"}, p);
    std::string idmp =
        "$13\r\nidmp-duration\r\n:100\r\n$12\r\nidmp-maxsize\r\n:100\r\n$12\r\npids-tracked\r\n:"
        "0\r\n"
        "$12\r\niids-tracked\r\n:0\r\n$10\r\niids-added\r\n:0\r\n$15\r\niids-duplicates\r\n:0\r\n";
    std::string head = (p == resp::Protocol::kResp2 ? "*32\r\n" : "%16\r\n");
    // (radix-tree-nodes is streamd's own layout: "1" here, Redis has 2.)
    std::string before =
        "$6\r\nlength\r\n:1\r\n$15\r\nradix-tree-keys\r\n:1\r\n$16\r\nradix-tree-nodes\r\n:1\r\n"
        "$17\r\nlast-generated-id\r\n$3\r\n1-1\r\n$20\r\nmax-deleted-entry-id\r\n$3\r\n0-0\r\n"
        "$13\r\nentries-added\r\n:1\r\n$23\r\nrecorded-first-entry-id\r\n$3\r\n1-1\r\n";
    EXPECT_EQ(plain.substr(0, head.size() + before.size() + idmp.size()), head + before + idmp)
        << Decode(plain);
    std::string full = h.Run({"XINFO", "STREAM", "s", "FULL"}, p);
    std::string full_head = (p == resp::Protocol::kResp2 ? "*30\r\n" : "%15\r\n");
    EXPECT_EQ(full.substr(0, full_head.size() + before.size() + idmp.size()),
              full_head + before + idmp)
        << Decode(full);
  }
}

// ---- item 8: the change counter (INFO rdb_changes_since_last_save) ---------------------------

// Redis's "XREADGROUP of multiple entries changes dirty by one" and "XREADGROUP from PEL does
// not change dirty".
TEST(StreamGroupSemantics, XreadgroupChangesDirtyByOne) {
  CommandHarness h;
  for (int i = 1; i <= 4; ++i) h.Run({"XADD", "x", std::to_string(i) + "-0", "data", "a"});
  h.Run({"XGROUP", "CREATE", "x", "g1", "0"});
  h.Run({"XGROUP", "CREATECONSUMER", "x", "g1", "Alice"});
  long long d = Dirty(h);
  h.Run({"XREADGROUP", "GROUP", "g1", "Alice", "COUNT", "2", "STREAMS", "x", ">"});
  EXPECT_EQ(Dirty(h), d + 1);
  d = Dirty(h);
  h.Run({"XREADGROUP", "GROUP", "g1", "Alice", "NOACK", "COUNT", "2", "STREAMS", "x", ">"});
  EXPECT_EQ(Dirty(h), d + 1);
  d = Dirty(h);
  h.Run({"XREADGROUP", "GROUP", "g1", "Alice", "COUNT", "2", "STREAMS", "x", "0"});
  h.Run({"XREADGROUP", "GROUP", "g1", "Alice", "COUNT", "2", "STREAMS", "x", "9000"});
  EXPECT_EQ(Dirty(h), d) << "history reads change nothing Redis counts";
  h.Run({"XREADGROUP", "GROUP", "g1", "noconsumer", "COUNT", "2", "STREAMS", "x", "0"});
  EXPECT_EQ(Dirty(h), d + 1) << "the consumer it created";
}

TEST(StreamGroupSemantics, DirtyCountsAsRedisDoes) {
  CommandHarness h;
  EXPECT_EQ(Dirty(h), 0);
  h.Run({"XADD", "x", "1-0", "a", "1"});
  h.Run({"XADD", "x", "MAXLEN", "1", "2-0", "a", "1"});  // one, whatever it trims
  EXPECT_EQ(Dirty(h), 2);
  for (int i = 3; i <= 6; ++i) h.Run({"XADD", "x", std::to_string(i) + "-0", "a", "1"});
  h.Run({"XDEL", "x", "3-0", "4-0", "99-0"});  // one per deleted entry
  EXPECT_EQ(Dirty(h), 8);
  h.Run({"XTRIM", "x", "MAXLEN", "0"});  // 2-0, 5-0, 6-0
  EXPECT_EQ(Dirty(h), 11);
  for (int i = 7; i <= 9; ++i) h.Run({"XADD", "x", std::to_string(i) + "-0", "a", "1"});
  h.Run({"XGROUP", "CREATE", "x", "g", "0"});
  EXPECT_EQ(Dirty(h), 15);
  h.Run({"XGROUP", "CREATE", "x", "g", "0"});  // BUSYGROUP
  EXPECT_EQ(Dirty(h), 15);
  h.Run({"XREADGROUP", "GROUP", "g", "a", "STREAMS", "x", ">"});  // consumer + delivery
  EXPECT_EQ(Dirty(h), 17);
  h.Run({"XACK", "x", "g", "7-0", "8-0", "1-0"});  // one per acknowledged entry
  EXPECT_EQ(Dirty(h), 19);
  h.Run({"XCLAIM", "x", "g", "b", "0", "9-0", "7-0"});  // consumer + one claim
  EXPECT_EQ(Dirty(h), 21);
  h.Run({"XCLAIM", "x", "g", "b", "0", "7-0", "LASTID", "9-5"});  // LASTID alone: one
  EXPECT_EQ(Dirty(h), 22);
  h.Run({"XAUTOCLAIM", "x", "g", "c", "0", "0"});  // consumer + one claim
  EXPECT_EQ(Dirty(h), 24);
  h.Run({"XAUTOCLAIM", "x", "g", "c", "0", "0"});  // the same claim again
  EXPECT_EQ(Dirty(h), 25);
  h.Run({"XGROUP", "CREATECONSUMER", "x", "g", "c"});  // exists: nothing
  h.Run({"XGROUP", "DELCONSUMER", "x", "g", "nobody"});
  h.Run({"XPENDING", "x", "g"});
  h.Run({"XINFO", "STREAM", "x"});
  EXPECT_EQ(Dirty(h), 25);
  h.Run({"XGROUP", "DELCONSUMER", "x", "g", "a"});
  h.Run({"XGROUP", "SETID", "x", "g", "$"});
  h.Run({"XGROUP", "DESTROY", "x", "g"});
  h.Run({"SET", "k", "v"});
  h.Run({"DEL", "k", "x", "missing"});  // one per deleted key
  EXPECT_EQ(Dirty(h), 31);
  h.Run({"SET", "a", "1"});
  h.Run({"RENAME", "a", "b"});  // one, not one per key it touches
  EXPECT_EQ(Dirty(h), 33);
  h.Run({"MSET", "c", "1", "d", "2", "e", "3"});
  h.Run({"SELECT", "1"});
  h.Run({"SET", "f", "1"});
  EXPECT_EQ(Dirty(h), 37);
  h.Run({"FLUSHDB"});  // one per key removed
  EXPECT_EQ(Dirty(h), 38);
  h.Run({"FLUSHALL"});
  EXPECT_EQ(Dirty(h), 42);
  h.Run({"FLUSHALL"});  // nothing to remove: no change
  h.Run({"FLUSHDB"});
  EXPECT_EQ(Dirty(h), 42);
}

}  // namespace
}  // namespace streamd::cmd
