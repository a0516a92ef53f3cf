// XINFO STREAM [FULL [COUNT n]], XDELEX / XACKDEL (Redis 8.2) and IDMP (XADD IDMP / IDMPAUTO,
// XCFGSET, XIDMPRECORD; Redis 8.6-8.8) run in-process in both protocols on the manual clock.
// XINFO replies were checked against redis-server 7.0.15; the 8.x commands follow redis.io's
// pages (no Redis binary here is new enough, see docs/commands.md).
#include <map>

#include "stream_handler_fixture.h"

namespace streamd::cmd {
namespace {

using test::Elements;
using test::Field;

class StreamInfoTest : public StreamHandlerTest {
 protected:
  void SetUp() override {
    for (int i = 1; i <= 12; ++i) {
      h.Run({"XADD", "s", std::to_string(i) + "-1", "f", std::to_string(i)});
    }
    h.Run({"XGROUP", "CREATE", "s", "g", "0"});
    h.Run({"XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "STREAMS", "s", ">"});
  }
  // How many elements the array after `"name"` in `raw` has.
  static std::size_t CountOf(const std::string& raw, const std::string& name) {
    std::string v = Field(raw, name);
    if (v == "[]") return 0;
    std::size_t depth = 0, n = 1;
    for (char c : v.substr(1, v.size() - 2)) {
      if (c == '[' || c == '{') ++depth;
      if (c == ']' || c == '}') --depth;
      if (c == ',' && depth == 0) ++n;
    }
    return n;
  }
};

TEST_F(StreamInfoTest, Summary) {
  std::string r2 = h.Run2({"XINFO", "STREAM", "s"});
  std::string r3 = h.Run({"XINFO", "STREAM", "s"});
  // The same fields and values: a map in RESP3, a flat array in RESP2.
  EXPECT_EQ(r3.substr(0, 1), "%");
  EXPECT_EQ(r2.substr(0, 1), "*");
  EXPECT_EQ(Elements(r2), Elements(r3));
  EXPECT_EQ(Field(r3, "length"), "(integer) 12");
  EXPECT_EQ(Field(r3, "last-generated-id"), "\"12-1\"");
  EXPECT_EQ(Field(r3, "max-deleted-entry-id"), "\"0-0\"");
  EXPECT_EQ(Field(r3, "entries-added"), "(integer) 12");
  EXPECT_EQ(Field(r3, "recorded-first-entry-id"), "\"1-1\"");
  EXPECT_EQ(Field(r3, "groups"), "(integer) 1");
  EXPECT_EQ(Field(r3, "first-entry"), "[\"1-1\", [\"f\", \"1\"]]");
  EXPECT_EQ(Field(r3, "last-entry"), "[\"12-1\", [\"f\", \"12\"]]");
  // Deletions move the first entry and the counters, not the last ID.
  h.Run({"XDEL", "s", "1-1", "12-1"});
  r3 = h.Run({"XINFO", "STREAM", "s"});
  EXPECT_EQ(Field(r3, "length"), "(integer) 10");
  EXPECT_EQ(Field(r3, "first-entry"), "[\"2-1\", [\"f\", \"2\"]]");
  EXPECT_EQ(Field(r3, "last-entry"), "[\"11-1\", [\"f\", \"11\"]]");
  EXPECT_EQ(Field(r3, "last-generated-id"), "\"12-1\"");
  EXPECT_EQ(Field(r3, "max-deleted-entry-id"), "\"12-1\"");
  // An empty stream has no first or last entry.
  h.Run({"XTRIM", "s", "MAXLEN", "0"});
  EXPECT_EQ(Field(h.Run2({"XINFO", "STREAM", "s"}), "first-entry"), "(nil)");
  EXPECT_EQ(Field(h.Run({"XINFO", "STREAM", "s"}), "last-entry"), "(nil)");
}

TEST_F(StreamInfoTest, FullAndItsCount) {
  for (auto proto : {resp::Protocol::kResp2, resp::Protocol::kResp3}) {
    std::string full = h.Run({"XINFO", "STREAM", "s", "FULL"}, proto);
    // FULL lists entries and groups instead of the group count and first/last entries.
    EXPECT_EQ(Field(full, "groups").substr(0, 1), "[");
    EXPECT_EQ(Field(full, "first-entry"), "<missing>");
    EXPECT_EQ(CountOf(full, "entries"), 10u);  // COUNT defaults to 10
    EXPECT_EQ(CountOf(h.Run({"XINFO", "STREAM", "s", "FULL", "COUNT", "0"}, proto), "entries"),
              12u);  // 0: everything
    EXPECT_EQ(CountOf(h.Run({"XINFO", "STREAM", "s", "full", "count", "-1"}, proto), "entries"),
              10u);  // negative: the default
    std::string one = h.Run({"XINFO", "STREAM", "s", "FULL", "COUNT", "1"}, proto);
    EXPECT_EQ(CountOf(one, "entries"), 1u);
    // COUNT also caps each group's and each consumer's pending list (2 pending here: both
    // pel-counts say 2, both lists show 1-1 only).
    std::string groups = Field(one, "groups");
    std::size_t first = groups.find("(integer) 2, \"pending\"");
    EXPECT_NE(first, std::string::npos) << groups;
    EXPECT_NE(groups.find("(integer) 2, \"pending\"", first + 1), std::string::npos) << groups;
    EXPECT_NE(groups.find("[\"1-1\""), std::string::npos) << groups;
    EXPECT_EQ(groups.find("[\"2-1\""), std::string::npos) << groups;
  }
  EXPECT_EQ(h.Run({"XINFO", "STREAM", "s", "FULL", "COUNT", "x"}), kNotInteger);
}

TEST_F(StreamInfoTest, MissingKeyAndOtherTypes) {
  EXPECT_EQ(Both({"XINFO", "STREAM", "nokey"}), kNoSuchKey);
  EXPECT_EQ(Both({"XINFO", "STREAM", "nokey", "FULL"}), kNoSuchKey);
  h.Run({"SET", "str", "x"});
  EXPECT_EQ(Both({"XINFO", "STREAM", "str"}), kWrongType);
}

class StreamRefsTest : public StreamHandlerTest {
 protected:
  // s holds 1-1, 2-1, 3-1; group g has delivered 1-1 (pending for c), not 2-1 or 3-1.
  void SetUp() override {
    for (const char* id : {"1-1", "2-1", "3-1"}) h.Run({"XADD", "s", id, "f", "v"});
    h.Run({"XGROUP", "CREATE", "s", "g", "0"});
    h.Run({"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"});
  }
  std::string Pending() { return test::Decode(h.Run2({"XPENDING", "s", "g"})); }
};

TEST_F(StreamRefsTest, XdelexPolicies) {
  // ACKED keeps what a group still needs: pending (1-1) or not delivered yet (2-1).
  EXPECT_EQ(Both({"XDELEX", "s", "ACKED", "IDS", "3", "1-1", "2-1", "9-9"}),
            "*3\r\n:2\r\n:2\r\n:-1\r\n");
  EXPECT_EQ(Ids("s"), "1-1,2-1,3-1");
  // KEEPREF (the default) deletes and leaves the PEL as it is.
  EXPECT_EQ(h.Run2({"XDELEX", "s", "IDS", "1", "1-1"}), "*1\r\n:1\r\n");
  EXPECT_EQ(Pending(), "[(integer) 1, \"1-1\", \"1-1\", [[\"c\", \"1\"]]]");
  EXPECT_EQ(Info("s", "max-deleted-entry-id"), "\"1-1\"");
  // DELREF deletes and drops the references: here a dangling one to the deleted 1-1.
  EXPECT_EQ(h.Run2({"XDELEX", "s", "DELREF", "IDS", "2", "1-1", "2-1"}), "*2\r\n:-1\r\n:1\r\n");
  EXPECT_EQ(Pending(), "[(integer) 0, (nil), (nil), (nil-array)]");
  EXPECT_EQ(Ids("s"), "3-1");
  // A missing key: every ID is missing.
  EXPECT_EQ(Both({"XDELEX", "nokey", "IDS", "2", "1-1", "2-1"}), "*2\r\n:-1\r\n:-1\r\n");
}

TEST_F(StreamRefsTest, XackdelAcksThenDeletes) {
  // Acknowledged by the only group that read it: ACKED may delete 1-1, not the unread 2-1.
  EXPECT_EQ(h.Run2({"XACKDEL", "s", "g", "ACKED", "IDS", "2", "1-1", "2-1"}), "*2\r\n:1\r\n:2\r\n");
  EXPECT_EQ(Ids("s"), "2-1,3-1");
  EXPECT_EQ(Pending(), "[(integer) 0, (nil), (nil), (nil-array)]");
  // A missing group answers -1 for every ID and changes nothing.
  EXPECT_EQ(Both({"XACKDEL", "s", "nogroup", "IDS", "1", "2-1"}), "*1\r\n:-1\r\n");
  EXPECT_EQ(Ids("s"), "2-1,3-1");
}

TEST_F(StreamRefsTest, RefusedArgumentsChangeNothing) {
  const std::string not_positive = "-ERR Number of IDs must be a positive integer\r\n";
  const std::string mismatch = "-ERR The `numids` parameter must match the number of arguments\r\n";
  EXPECT_EQ(Refused({"XDELEX", "s", "IDS", "0", "1-1"}, "s"), not_positive);
  EXPECT_EQ(Refused({"XDELEX", "s", "IDS", "x", "1-1"}, "s"), not_positive);
  EXPECT_EQ(Refused({"XDELEX", "s", "IDS", "3", "1-1", "2-1"}, "s"), mismatch);
  EXPECT_EQ(Refused({"XDELEX", "s", "IDS", "1", "1-1", "2-1"}, "s"), kSyntax);
  EXPECT_EQ(Refused({"XDELEX", "s", "IDS", "2", "1-1", "bad"}, "s"), kInvalidId);
  EXPECT_EQ(Refused({"XDELEX", "s", "ACKED", "DELREF", "IDS", "1", "1-1"}, "s"), kSyntax);
  EXPECT_EQ(Refused({"XDELEX", "s", "IDS", "1", "1-1", "IDS", "1", "2-1"}, "s"), kSyntax);
  EXPECT_EQ(Refused({"XDELEX", "s", "ACKED", "FOO", "1-1"}, "s"), kSyntax);
  EXPECT_EQ(Refused({"XACKDEL", "s", "g", "IDS", "1", "1-1", "ACKED", "KEEPREF"}, "s"), kSyntax);
  EXPECT_EQ(Refused({"XACKDEL", "s", "g", "IDS", "2", "1-1", "bad"}, "s"), kInvalidId);
  EXPECT_EQ(Pending(), "[(integer) 1, \"1-1\", \"1-1\", [[\"c\", \"1\"]]]");
  // The arguments are checked before the key's type.
  h.Run({"SET", "str", "x"});
  EXPECT_EQ(Both({"XDELEX", "str", "IDS", "1", "bad"}), kInvalidId);
  EXPECT_EQ(Both({"XDELEX", "str", "IDS", "1", "1-1"}), kWrongType);
}

class StreamIdmpTest : public StreamHandlerTest {};

TEST_F(StreamIdmpTest, RetriesAnswerTheOriginalId) {
  const std::string first = Bulk("1700000000000-0");
  EXPECT_EQ(h.Run2({"XADD", "s", "IDMP", "p1", "i1", "*", "f", "v"}), first);
  h.Advance(10);
  // The same (pid, iid): the original ID, whatever the fields, nothing added.
  EXPECT_EQ(h.Run({"XADD", "s", "IDMP", "p1", "i1", "*", "other", "fields"}), first);
  EXPECT_EQ(h.Run2({"XADD", "s", "idmp", "p1", "i1", "MAXLEN", "5", "*", "f", "v"}), first);
  // Another iid or another producer is another entry.
  EXPECT_EQ(h.Run({"XADD", "s", "IDMP", "p1", "i2", "*", "f", "v"}), Bulk("1700000000010-0"));
  EXPECT_EQ(h.Run({"XADD", "s", "IDMP", "p2", "i1", "*", "f", "v"}), Bulk("1700000000010-1"));
  EXPECT_EQ(Both({"XLEN", "s"}), Int(3));
  // Still the original after that entry was deleted.
  h.Run({"XDEL", "s", "1700000000000-0"});
  EXPECT_EQ(h.Run({"XADD", "s", "IDMP", "p1", "i1", "*", "f", "v"}), first);
  std::string info = h.Run({"XINFO", "STREAM", "s"});
  EXPECT_EQ(Field(info, "pids-tracked"), "(integer) 2");
  EXPECT_EQ(Field(info, "iids-tracked"), "(integer) 3");
  EXPECT_EQ(Field(info, "iids-added"), "(integer) 3");
  EXPECT_EQ(Field(info, "iids-duplicates"), "(integer) 3");
}

TEST_F(StreamIdmpTest, IdmpautoDigestsTheFields) {
  std::string id = h.Run({"XADD", "s", "IDMPAUTO", "p", "*", "a", "1", "b", "2"});
  EXPECT_EQ(id, Bulk("1700000000000-0"));
  EXPECT_EQ(h.Run2({"XADD", "s", "IDMPAUTO", "p", "*", "a", "1", "b", "2"}), id);
  // The pairs' order matters, and so does every byte.
  EXPECT_EQ(h.Run({"XADD", "s", "IDMPAUTO", "p", "*", "b", "2", "a", "1"}),
            Bulk("1700000000000-1"));
  EXPECT_EQ(h.Run({"XADD", "s", "IDMPAUTO", "p", "*", "a", "1", "b", "3"}),
            Bulk("1700000000000-2"));
  EXPECT_EQ(Both({"XLEN", "s"}), Int(3));
}

TEST_F(StreamIdmpTest, IidsExpireOnTheClockAndByMaxsize) {
  const std::string first = Bulk("1700000000000-0");
  h.Run({"XADD", "s", "IDMP", "p", "i", "*", "f", "v"});
  h.Advance(99000);  // the default IDMP-DURATION is 100 s
  EXPECT_EQ(h.Run({"XADD", "s", "IDMP", "p", "i", "*", "f", "v"}), first);
  h.Advance(2000);
  EXPECT_EQ(h.Run({"XADD", "s", "IDMP", "p", "i", "*", "f", "v"}), Bulk("1700000101000-0"));
  // MAXSIZE 2 per producer: a third iid pushes out the oldest.
  EXPECT_EQ(Both({"XCFGSET", "s", "IDMP-MAXSIZE", "2"}), "+OK\r\n");
  std::map<std::string, std::string> ids;
  for (const char* iid : {"a", "b", "c"}) {
    h.Advance(1);
    ids[iid] = h.Run({"XADD", "s", "IDMP", "p", iid, "*", "f", "v"});
  }
  EXPECT_EQ(h.Run({"XADD", "s", "IDMP", "p", "c", "*", "f", "v"}), ids["c"]);
  EXPECT_EQ(h.Run({"XADD", "s", "IDMP", "p", "b", "*", "f", "v"}), ids["b"]);
  EXPECT_EQ(Both({"XLEN", "s"}), Int(5));  // i twice, a, b, c
  // a was pushed out by c: its retry is a new entry.
  EXPECT_EQ(h.Run({"XADD", "s", "IDMP", "p", "a", "*", "f", "v"}), Bulk("1700000101003-1"));
  EXPECT_EQ(Both({"XLEN", "s"}), Int(6));
  EXPECT_EQ(Info("s", "idmp-maxsize"), "(integer) 2");
  EXPECT_EQ(Info("s", "iids-tracked"), "(integer) 2");
}

TEST_F(StreamIdmpTest, RefusedIdmpArgumentsChangeNothing) {
  h.Run({"XADD", "s", "1-1", "f", "v"});
  EXPECT_EQ(Refused({"XADD", "s", "IDMP", "p", "i", "5-1", "f", "v"}, "s"),
            "-ERR IDMP and IDMPAUTO can be used only with auto-generated IDs\r\n");
  EXPECT_EQ(Refused({"XADD", "s", "IDMP", "", "i", "*", "f", "v"}, "s"),
            "-ERR IDMP pid and iid must not be empty\r\n");
  EXPECT_EQ(Refused({"XADD", "s", "IDMPAUTO", "", "*", "f", "v"}, "s"),
            "-ERR IDMP pid and iid must not be empty\r\n");
  // A second IDMP is not an option but the ID.
  EXPECT_EQ(Refused({"XADD", "s", "IDMP", "p", "i", "IDMPAUTO", "p", "*", "f", "v"}, "s"),
            kInvalidId);
  // Refused before the key is looked up: nothing is created.
  EXPECT_EQ(Both({"XADD", "new", "IDMP", "p", "i", "5-1", "f", "v"}).substr(0, 1), "-");
  EXPECT_EQ(Both({"EXISTS", "new"}), Int(0));
}

TEST_F(StreamIdmpTest, Xcfgset) {
  h.Run({"XADD", "s", "1-1", "f", "v"});
  const std::string duration = "-ERR IDMP-DURATION must be between 1 and 86400 seconds\r\n";
  const std::string maxsize = "-ERR IDMP-MAXSIZE must be between 1 and 10000\r\n";
  EXPECT_EQ(Refused({"XCFGSET", "s", "IDMP-DURATION", "0"}, "s"), duration);
  EXPECT_EQ(Refused({"XCFGSET", "s", "IDMP-DURATION", "86401"}, "s"), duration);
  EXPECT_EQ(Refused({"XCFGSET", "s", "IDMP-DURATION", "x"}, "s"), kNotInteger);
  EXPECT_EQ(Refused({"XCFGSET", "s", "IDMP-MAXSIZE", "10001"}, "s"), maxsize);
  EXPECT_EQ(Refused({"XCFGSET", "s", "IDMP-MAXSIZE", "5", "IDMP-DURATION", "0"}, "s"), duration);
  EXPECT_EQ(Refused({"XCFGSET", "s", "IDMP-DURATION"}, "s"), kSyntax);
  EXPECT_EQ(Refused({"XCFGSET", "s", "FOO", "1"}, "s"), kSyntax);
  EXPECT_EQ(Refused({"XCFGSET", "s"}, "s"),
            "-ERR XCFGSET requires at least one of IDMP-DURATION or IDMP-MAXSIZE\r\n");
  // Options before the key.
  EXPECT_EQ(Both({"XCFGSET", "nokey", "IDMP-DURATION", "0"}), duration);
  EXPECT_EQ(Both({"XCFGSET", "nokey", "IDMP-DURATION", "1"}), kNoSuchKey);
  EXPECT_EQ(Both({"XCFGSET", "s", "idmp-duration", "86400", "IDMP-MAXSIZE", "1"}), "+OK\r\n");
  EXPECT_EQ(Info("s", "idmp-duration"), "(integer) 86400");
  EXPECT_EQ(Info("s", "idmp-maxsize"), "(integer) 1");
}

TEST_F(StreamIdmpTest, XidmprecordRebuildsARecord) {
  h.Run({"XADD", "s", "1700000000000-5", "f", "v"});
  EXPECT_EQ(Both({"XIDMPRECORD", "s", "p", "i", "1700000000000-5"}), "+OK\r\n");
  EXPECT_EQ(h.Run({"XADD", "s", "IDMP", "p", "i", "*", "f", "v"}), Bulk("1700000000000-5"));
  EXPECT_EQ(Both({"XLEN", "s"}), Int(1));
  EXPECT_EQ(Both({"XIDMPRECORD", "s", "p", "i", "bad"}), kInvalidId);
  EXPECT_EQ(Both({"XIDMPRECORD", "nokey", "p", "i", "1-1"}), kNoSuchKey);
}

}  // namespace
}  // namespace streamd::cmd
