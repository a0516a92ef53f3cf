// Keyspace notifications (notify-keyspace-events) through dispatch, captured by a sink in place of
// the pub/sub layer: channel names, event names and order as redis-server publishes them (its
// notifyKeyspaceEvent calls; the sequences were checked against Debian's redis-server 7.0.15 with
// PSUBSCRIBE '__key*__:*' where 7.0.15 has the command).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "capture_sink.h"
#include "command_harness.h"
#include "streamd/commands/core/notify.h"

namespace streamd::test {
namespace {

using Events = std::vector<std::string>;

class NotifyTest : public ::testing::Test {
 protected:
  NotifyTest() { h.server().notifier().set_sink(&sink); }
  ~NotifyTest() override { h.server().notifier().set_sink(nullptr); }

  void Enable(const std::string& classes) {
    ASSERT_EQ(h.Run({"CONFIG", "SET", "notify-keyspace-events", classes}), "+OK\r\n");
    sink.got.clear();
  }
  std::string Run(const std::vector<std::string>& argv, int client = 0) {
    return h.Run(argv, resp::Protocol::kResp3, client);
  }
  // The events published since the last call.
  Events Take() {
    Events e = std::move(sink.got);
    sink.got.clear();
    return e;
  }
  // Keyevent-only form: "event key" pairs, which reads better for long sequences.
  Events TakeKeyevents() {
    Events out;
    const std::string prefix = "__keyevent@";
    for (const std::string& m : Take()) {
      if (m.compare(0, prefix.size(), prefix) != 0) continue;
      std::size_t colon = m.find("__:");
      out.push_back(m.substr(colon + 3));
    }
    return out;
  }

  CaptureSink sink;
  CommandHarness h;
};

TEST_F(NotifyTest, NothingWhileDisabled) {
  Run({"SET", "k", "v"});
  Run({"XADD", "s", "*", "f", "v"});
  Run({"DEL", "k", "s"});
  EXPECT_TRUE(Take().empty());
}

TEST_F(NotifyTest, KeyspaceThenKeyeventWithDbNumber) {
  Enable("KE$");
  Run({"SET", "k", "v"});
  EXPECT_EQ(Take(), (Events{"__keyspace@0__:k set", "__keyevent@0__:set k"}));
  h.session().db = 3;
  Run({"SET", "k", "v"});
  EXPECT_EQ(Take(), (Events{"__keyspace@3__:k set", "__keyevent@3__:set k"}));
}

TEST_F(NotifyTest, ClassFiltering) {
  // A class without K or E publishes nothing.
  Enable("A");
  Run({"SET", "k", "v"});
  EXPECT_TRUE(Take().empty());
  // K alone, E alone.
  Enable("K$");
  Run({"SET", "k", "v"});
  EXPECT_EQ(Take(), (Events{"__keyspace@0__:k set"}));
  Enable("E$");
  Run({"SET", "k", "v"});
  EXPECT_EQ(Take(), (Events{"__keyevent@0__:set k"}));
  // Only the enabled classes: generic events are off here, string events on.
  Enable("E$");
  Run({"SET", "k", "v", "EX", "100"});
  Run({"DEL", "k"});
  EXPECT_EQ(Take(), (Events{"__keyevent@0__:set k"}));
  Enable("Eg");
  Run({"SET", "k", "v", "EX", "100"});
  Run({"DEL", "k"});
  EXPECT_EQ(TakeKeyevents(), (Events{"expire k", "del k"}));
  Enable("Et");
  Run({"SET", "k", "v"});
  Run({"XADD", "s", "1-1", "f", "v"});
  EXPECT_EQ(TakeKeyevents(), (Events{"xadd s"}));
}

TEST_F(NotifyTest, AllExcludesNewAndKeyMiss) {
  Enable("EA");
  Run({"SET", "k", "v"});
  Run({"GET", "missing"});
  EXPECT_EQ(TakeKeyevents(), (Events{"set k"}));
  Enable("En");
  Run({"SET", "k2", "v"});
  Run({"SET", "k2", "v2"});  // an overwrite is not new
  EXPECT_EQ(TakeKeyevents(), (Events{"new k2"}));
  Enable("Em");
  Run({"GET", "missing"});
  Run({"TYPE", "missing"});
  Run({"SET", "missing", "v"});  // a write lookup is not a miss
  EXPECT_EQ(TakeKeyevents(), (Events{"keymiss missing", "keymiss missing"}));
}

TEST_F(NotifyTest, KeyMissOnReadLookupsOnly) {
  Enable("Em");
  for (const char* cmd : {"GET", "TYPE", "TTL", "EXISTS", "TOUCH", "STRLEN", "GETDEL"}) {
    Run({cmd, "m"});
    EXPECT_EQ(TakeKeyevents(), (Events{"keymiss m"})) << cmd;
  }
  Run({"MGET", "a", "b"});
  EXPECT_EQ(TakeKeyevents(), (Events{"keymiss a", "keymiss b"}));
  // OBJECT and MEMORY USAGE look without publishing; write lookups never miss.
  Run({"OBJECT", "ENCODING", "m"});
  Run({"MEMORY", "USAGE", "m"});
  Run({"XADD", "m", "NOMKSTREAM", "*", "f", "v"});
  Run({"XTRIM", "m", "MAXLEN", "1"});
  Run({"XDEL", "m", "1-1"});
  Run({"EXPIRE", "m", "10"});
  EXPECT_TRUE(Take().empty());
  // Stream reads are read lookups; XREAD looks each key up twice, as redis-server does.
  Run({"XLEN", "s1"});
  Run({"XRANGE", "s2", "-", "+"});
  Run({"XREVRANGE", "s3", "+", "-"});
  Run({"XREAD", "STREAMS", "s4", "0"});
  Run({"XPENDING", "s5", "g"});
  Run({"XINFO", "STREAM", "s6"});
  Run({"XACK", "s7", "g", "1-1"});
  EXPECT_EQ(TakeKeyevents(), (Events{"keymiss s1", "keymiss s2", "keymiss s3", "keymiss s4",
                                     "keymiss s4", "keymiss s5", "keymiss s6", "keymiss s7"}));
  Run({"XCLAIM", "s8", "g", "c", "0", "1-1"});
  Run({"XAUTOCLAIM", "s9", "g", "c", "0", "0"});
  Run({"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s10", ">"});
  EXPECT_EQ(TakeKeyevents(), (Events{"keymiss s8", "keymiss s9", "keymiss s10"}));
}

// The stream read lookups behind keymiss also count keyspace hits and misses as redis-server
// 7.0.15 does (INFO stats, measured per command): XREAD and XREADGROUP look each key up twice.
TEST_F(NotifyTest, StreamReadLookupsCountHitsAndMisses) {
  Run({"XADD", "s", "1-1", "f", "v"});
  Run({"XGROUP", "CREATE", "s", "g", "0"});
  Run({"XGROUP", "CREATECONSUMER", "s", "g", "c"});
  const std::vector<std::pair<std::vector<std::string>, std::pair<uint64_t, uint64_t>>> cases = {
      {{"XRANGE", "s", "-", "+"}, {1, 0}},
      {{"XREAD", "STREAMS", "s", "0"}, {2, 0}},
      {{"XREAD", "STREAMS", "nos", "0"}, {0, 2}},
      {{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"}, {2, 0}},
      {{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0"}, {2, 0}},
      {{"XPENDING", "s", "g"}, {1, 0}},
      {{"XINFO", "STREAM", "s"}, {1, 0}},
      {{"XLEN", "s"}, {1, 0}},
      {{"XACK", "s", "g", "1-1"}, {1, 0}},
      {{"XCLAIM", "s", "g", "c", "0", "1-1"}, {1, 0}},
      {{"XADD", "s", "*", "f", "v"}, {0, 0}},
      {{"XINFO", "GROUPS", "s"}, {1, 0}},
  };
  auto& st = h.server().stats();
  for (const auto& [argv, want] : cases) {
    uint64_t hits = st.keyspace_hits, misses = st.keyspace_misses;
    Run(argv);
    EXPECT_EQ(st.keyspace_hits - hits, want.first) << argv[0] << " " << argv.back();
    EXPECT_EQ(st.keyspace_misses - misses, want.second) << argv[0] << " " << argv.back();
  }
}

TEST_F(NotifyTest, StringCommands) {
  Enable("EAn");
  Run({"SET", "a", "1"});
  Run({"SET", "a", "2", "PX", "5000"});
  Run({"SETNX", "a", "3"});  // not set: nothing
  Run({"SETEX", "b", "10", "x"});
  Run({"MSET", "c", "1", "d", "2"});
  Run({"APPEND", "c", "0"});
  Run({"APPEND", "e", "new"});
  EXPECT_EQ(TakeKeyevents(),
            (Events{"new a", "set a", "set a", "expire a", "new b", "set b", "expire b", "new c",
                    "set c", "new d", "set d", "append c", "new e", "append e"}));
  Run({"INCR", "c"});
  Run({"DECR", "c"});
  Run({"INCRBY", "c", "5"});
  Run({"DECRBY", "n", "5"});
  Run({"INCRBYFLOAT", "c", "1.5"});
  Run({"INCR", "e"});  // not an integer: nothing
  EXPECT_EQ(TakeKeyevents(),
            (Events{"incrby c", "incrby c", "incrby c", "new n", "incrby n", "incrbyfloat c"}));
  Run({"GETSET", "d", "3"});
  Run({"GETDEL", "d"});
  Run({"GETDEL", "d"});  // missing: nothing but the miss (class m is off)
  EXPECT_EQ(TakeKeyevents(), (Events{"set d", "del d"}));
  Run({"GETEX", "a", "EX", "100"});
  Run({"GETEX", "a", "PERSIST"});
  Run({"GETEX", "a", "PERSIST"});  // no TTL left: nothing
  Run({"GETEX", "a"});
  Run({"GETEX", "a", "PXAT", "1"});  // in the past: deleted
  EXPECT_EQ(TakeKeyevents(), (Events{"expire a", "persist a", "del a"}));
}

TEST_F(NotifyTest, GenericCommands) {
  Enable("EAn");
  Run({"MSET", "a", "1", "b", "2"});
  Take();
  Run({"DEL", "a", "nosuch", "b"});
  EXPECT_EQ(TakeKeyevents(), (Events{"del a", "del b"}));
  Run({"SET", "k", "v"});
  Run({"EXPIRE", "k", "100"});
  Run({"EXPIRE", "k", "50", "NX"});  // refused: nothing
  Run({"PERSIST", "k"});
  Run({"PERSIST", "k"});
  Run({"PEXPIREAT", "k", "1"});  // in the past: deleted
  EXPECT_EQ(TakeKeyevents(), (Events{"new k", "set k", "expire k", "persist k", "del k"}));
  Run({"SET", "src", "v"});
  Run({"SET", "dst", "old"});
  Take();
  Run({"RENAME", "src", "dst"});
  Run({"RENAMENX", "dst", "x"});
  EXPECT_EQ(TakeKeyevents(), (Events{"new dst", "rename_from src", "rename_to dst", "new x",
                                     "rename_from dst", "rename_to x"}));
  Run({"UNLINK", "x"});
  EXPECT_EQ(TakeKeyevents(), (Events{"del x"}));
}

TEST_F(NotifyTest, MoveAndCopyNameBothDatabases) {
  Enable("KEg");
  Run({"SET", "k", "v"});
  Run({"MOVE", "k", "2"});
  EXPECT_EQ(Take(), (Events{"__keyspace@0__:k move_from", "__keyevent@0__:move_from k",
                            "__keyspace@2__:k move_to", "__keyevent@2__:move_to k"}));
  h.session().db = 2;
  Run({"COPY", "k", "c", "DB", "5"});
  EXPECT_EQ(Take(), (Events{"__keyspace@5__:c copy_to", "__keyevent@5__:copy_to c"}));
  Run({"COPY", "k", "c", "DB", "5"});  // exists, no REPLACE: nothing
  EXPECT_TRUE(Take().empty());
}

TEST_F(NotifyTest, ExpiredLazilyAndActively) {
  Enable("Egx$m");
  Run({"SET", "lazy", "v", "PX", "100"});
  Run({"SET", "active", "v", "PX", "100"});
  Take();
  h.Advance(200);
  // The lookup expires the key first ("expired"), then misses.
  Run({"GET", "lazy"});
  EXPECT_EQ(TakeKeyevents(), (Events{"expired lazy", "keymiss lazy"}));
  h.Cron();
  EXPECT_EQ(TakeKeyevents(), (Events{"expired active"}));
  // Overwriting an expired key without a lookup first (MSET, SETEX) expires it too.
  Run({"SET", "m", "v", "PX", "100"});
  Run({"SET", "x", "v", "PX", "100"});
  Take();
  h.Advance(200);
  uint64_t expired_before = h.server().stats().expired_keys;
  Run({"MSET", "m", "v2"});
  Run({"SETEX", "x", "100", "v2"});
  EXPECT_EQ(TakeKeyevents(), (Events{"expired m", "set m", "expired x", "set x", "expire x"}));
  EXPECT_EQ(h.server().stats().expired_keys, expired_before + 2);
  // A time already past is a deletion, not an expiry.
  Run({"SET", "k", "v"});
  Run({"EXPIRE", "k", "-1"});
  EXPECT_EQ(TakeKeyevents(), (Events{"set k", "del k"}));
}

TEST_F(NotifyTest, StreamWrites) {
  Enable("EAn");
  Run({"XADD", "s", "1-1", "f", "v"});
  Run({"XADD", "s", "MAXLEN", "1", "2-1", "f", "v"});
  Run({"XADD", "s", "MAXLEN", "5", "3-1", "f", "v"});  // nothing trimmed: no xtrim
  Run({"XADD", "nomk", "NOMKSTREAM", "*", "f", "v"});  // nothing
  Run({"XADD", "s", "1-1", "f", "v"});                 // ID too small: nothing
  EXPECT_EQ(TakeKeyevents(), (Events{"new s", "xadd s", "xadd s", "xtrim s", "xadd s"}));
  Run({"XTRIM", "s", "MAXLEN", "1"});
  Run({"XTRIM", "s", "MAXLEN", "1"});  // nothing removed
  Run({"XDEL", "s", "3-1"});
  Run({"XDEL", "s", "3-1"});  // already gone
  Run({"XSETID", "s", "5-0"});
  EXPECT_EQ(TakeKeyevents(), (Events{"xtrim s", "xdel s", "xsetid s"}));
}

TEST_F(NotifyTest, ConsumerGroups) {
  Enable("EAn");
  Run({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
  Run({"XGROUP", "CREATE", "s", "g", "$"});  // BUSYGROUP: nothing
  Run({"XGROUP", "CREATECONSUMER", "s", "g", "c1"});
  Run({"XGROUP", "CREATECONSUMER", "s", "g", "c1"});  // exists
  Run({"XGROUP", "SETID", "s", "g", "0"});
  Run({"XGROUP", "DELCONSUMER", "s", "g", "c1"});
  Run({"XGROUP", "DELCONSUMER", "s", "g", "c1"});  // gone: nothing
  Run({"XGROUP", "DESTROY", "s", "g"});
  Run({"XGROUP", "DESTROY", "s", "g"});  // gone: 0, nothing
  EXPECT_EQ(TakeKeyevents(),
            (Events{"new s", "xgroup-create s", "xgroup-createconsumer s", "xgroup-setid s",
                    "xgroup-delconsumer s", "xgroup-destroy s"}));
}

TEST_F(NotifyTest, ImplicitConsumersAreCreateconsumerEvents) {
  Enable("Et");
  Run({"XADD", "s", "1-1", "f", "v"});
  Run({"XGROUP", "CREATE", "s", "g", "0"});
  Take();
  Run({"XREADGROUP", "GROUP", "g", "reader", "STREAMS", "s", ">"});
  Run({"XREADGROUP", "GROUP", "g", "reader", "STREAMS", "s", ">"});  // exists now
  EXPECT_EQ(TakeKeyevents(), (Events{"xgroup-createconsumer s"}));
  Run({"XCLAIM", "s", "g", "claimer", "0", "1-1"});
  EXPECT_EQ(TakeKeyevents(), (Events{"xgroup-createconsumer s"}));
  Run({"XAUTOCLAIM", "s", "g", "auto", "0", "0"});
  EXPECT_EQ(TakeKeyevents(), (Events{"xgroup-createconsumer s"}));
  Run({"XACK", "s", "g", "1-1"});  // XACK publishes nothing, as in Redis
  EXPECT_TRUE(Take().empty());
  // Attempts that deliver nothing create their consumer too (Redis 7.2+), event included.
  Run({"XREADGROUP", "GROUP", "g", "idle-reader", "STREAMS", "s", ">"});
  Run({"XCLAIM", "s", "g", "idle-claimer", "0", "9-9"});
  Run({"XAUTOCLAIM", "s", "g", "idle-auto", "0", "0"});
  EXPECT_EQ(TakeKeyevents(), (Events{"xgroup-createconsumer s", "xgroup-createconsumer s",
                                     "xgroup-createconsumer s"}));
}

TEST_F(NotifyTest, RefDeletesAndConfig) {
  Enable("Et");
  Run({"XADD", "s", "1-1", "f", "v"});
  Run({"XADD", "s", "2-1", "f", "v"});
  Run({"XGROUP", "CREATE", "s", "g", "0"});
  Run({"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"});
  Take();
  Run({"XDELEX", "s", "IDS", "1", "9-9"});  // nothing deleted
  Run({"XDELEX", "s", "IDS", "1", "1-1"});
  Run({"XACKDEL", "s", "g", "IDS", "1", "2-1"});
  Run({"XCFGSET", "s", "IDMP-DURATION", "100"});
  EXPECT_EQ(TakeKeyevents(), (Events{"xdel s", "xdel s", "xcfgset s"}));
}

TEST_F(NotifyTest, MultiExecInCommandOrder) {
  Enable("KEA");
  Run({"MULTI"});
  Run({"SET", "a", "1"});
  Run({"XADD", "s", "1-1", "f", "v"});
  Run({"DEL", "a"});
  EXPECT_TRUE(Take().empty());  // queued commands have not run
  Run({"EXEC"});
  EXPECT_EQ(Take(),
            (Events{"__keyspace@0__:a set", "__keyevent@0__:set a", "__keyspace@0__:s xadd",
                    "__keyevent@0__:xadd s", "__keyspace@0__:a del", "__keyevent@0__:del a"}));
}

TEST_F(NotifyTest, CheckIsTheOnlyCostWhileDisabled) {
  // The notifier's test for a disabled class looks at the flags only: no sink call at all.
  cmd::Notifier& n = h.server().notifier();
  EXPECT_FALSE(n.wants(config::notify::kStream));
  Enable("Kt");
  EXPECT_TRUE(n.wants(config::notify::kStream));
  EXPECT_FALSE(n.wants(config::notify::kString));
  n.set_sink(nullptr);
  EXPECT_FALSE(n.wants(config::notify::kStream));  // nowhere to publish
}

}  // namespace
}  // namespace streamd::test
