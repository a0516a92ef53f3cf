// Generic keyspace commands through dispatch, with exact reply bytes as redis-server 7.0.15 sends
// them (checked with redis-cli / a raw socket against Debian's redis-server).
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "command_harness.h"
#include "streamd/commands/keyspace/keyspace_support.h"
#include "streamd/engine/stream.h"

namespace streamd::test {
namespace {

using resp::Protocol;

class KeyspaceTest : public ::testing::Test {
 protected:
  std::string Run(const std::vector<std::string>& argv, int client = 0) {
    return h.Run(argv, Protocol::kResp3, client);
  }
  std::string Run2(const std::vector<std::string>& argv, int client = 0) {
    return h.Run(argv, Protocol::kResp2, client);
  }
  // Switches client 0's database (SELECT belongs to the connection commands).
  void Select(int db) { h.session().db = db; }
  // Creates an empty stream at `key` in db 0 without going through stream commands.
  void MakeStream(const std::string& key) {
    h.server().keyspace().db(0).set(key, engine::Value(std::make_unique<engine::Stream>()));
  }

  CommandHarness h;
};

TEST_F(KeyspaceTest, DelUnlinkExistsCount) {
  EXPECT_EQ(Run({"MSET", "a", "1", "b", "2", "c", "3"}), "+OK\r\n");
  EXPECT_EQ(Run({"EXISTS", "a", "b", "nosuch"}), ":2\r\n");
  EXPECT_EQ(Run({"EXISTS", "a", "a", "a"}), ":3\r\n");
  EXPECT_EQ(Run({"DEL", "a", "a", "nosuch"}), ":1\r\n");
  EXPECT_EQ(Run({"DEL", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"UNLINK", "b", "c"}), ":2\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(Run({"DEL"}), "-ERR wrong number of arguments for 'del' command\r\n");
}

TEST_F(KeyspaceTest, TypeOfEachKind) {
  Run({"SET", "str", "v"});
  MakeStream("strm");
  EXPECT_EQ(Run({"TYPE", "str"}), "+string\r\n");
  EXPECT_EQ(Run({"TYPE", "strm"}), "+stream\r\n");
  EXPECT_EQ(Run({"TYPE", "nosuch"}), "+none\r\n");
  EXPECT_EQ(Run({"TYPE", "str", "x"}), "-ERR wrong number of arguments for 'type' command\r\n");
}

TEST_F(KeyspaceTest, KeysPatterns) {
  Run({"MSET", "hello", "1", "hallo", "2", "hxllo", "3", "hllo", "4", "heeeello", "5", "h*llo", "6",
       "foo", "7", "foobar", "8", "", "9"});
  using V = std::vector<std::string>;
  EXPECT_EQ(SortedBulks(Run({"KEYS", "*"})).size(), 9u);
  EXPECT_EQ(SortedBulks(Run({"KEYS", "h?llo"})), (V{"h*llo", "hallo", "hello", "hxllo"}));
  EXPECT_EQ(SortedBulks(Run({"KEYS", "h[^e]llo"})), (V{"h*llo", "hallo", "hxllo"}));
  EXPECT_EQ(SortedBulks(Run({"KEYS", "h[a-e]llo"})), (V{"hallo", "hello"}));
  EXPECT_EQ(SortedBulks(Run({"KEYS", "h\\*llo"})), (V{"h*llo"}));
  EXPECT_EQ(SortedBulks(Run({"KEYS", "*bar"})), (V{"foobar"}));
  EXPECT_EQ(Run({"KEYS", ""}), "*1\r\n$0\r\n\r\n");
  EXPECT_EQ(Run({"KEYS", "nomatch*"}), "*0\r\n");
}

TEST_F(KeyspaceTest, ScanVisitsEveryKeyAcrossResizes) {
  for (int i = 0; i < 500; ++i) Run({"SET", "k" + std::to_string(i), "v"});
  std::set<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    std::string raw = Run({"SCAN", cursor, "COUNT", "7"});
    // The cursor is the first bulk of the reply.
    std::size_t eol = raw.find("\r\n", 4);
    std::size_t start = raw.find("\r\n", eol + 2);
    cursor = raw.substr(eol + 2, start - eol - 2);
    for (auto& k : SortedBulks(raw)) seen.insert(k);
    // Grow the table between calls: keys present for the whole scan must still be returned.
    if (calls == 3) {
      for (int i = 0; i < 2000; ++i) Run({"SET", "extra" + std::to_string(i), "v"});
    }
    ++calls;
  } while (cursor != "0" && calls < 10000);
  EXPECT_EQ(cursor, "0");
  for (int i = 0; i < 500; ++i) EXPECT_TRUE(seen.count("k" + std::to_string(i))) << i;
}

TEST_F(KeyspaceTest, ScanFiltersAndErrors) {
  Run({"MSET", "foo", "1", "foobar", "2", "other", "3"});
  MakeStream("fstream");
  using V = std::vector<std::string>;
  EXPECT_EQ(SortedBulks(Run({"SCAN", "0", "MATCH", "foo*", "COUNT", "1000"})),
            (V{"foo", "foobar"}));
  EXPECT_EQ(SortedBulks(Run({"SCAN", "0", "count", "1000", "type", "STREAM"})), (V{"fstream"}));
  EXPECT_EQ(Run({"SCAN", "0", "TYPE", "nosuchtype", "COUNT", "1000"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(Run({"SCAN", "abc"}), "-ERR invalid cursor\r\n");
  EXPECT_EQ(Run({"SCAN", " 5"}), "-ERR invalid cursor\r\n");
  EXPECT_EQ(Run({"SCAN", "18446744073709551616"}), "-ERR invalid cursor\r\n");
  EXPECT_EQ(Run({"SCAN", "0", "COUNT", "0"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SCAN", "0", "COUNT", "abc"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"SCAN", "0", "MATCH"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SCAN", "0", "BOGUS", "x"}), "-ERR syntax error\r\n");
  // strtoul accepts a sign: "-1" is a huge cursor, "+0" is zero.
  EXPECT_EQ(Run({"SCAN", "+0", "COUNT", "1000", "MATCH", "other"}),
            "*2\r\n$1\r\n0\r\n*1\r\n$5\r\nother\r\n");
}

TEST_F(KeyspaceTest, RandomkeyAndDbsize) {
  EXPECT_EQ(Run({"RANDOMKEY"}), "_\r\n");
  EXPECT_EQ(Run2({"RANDOMKEY"}), "$-1\r\n");
  Run({"SET", "only", "v"});
  EXPECT_EQ(Run({"RANDOMKEY"}), "$4\r\nonly\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
}

TEST_F(KeyspaceTest, FlushdbAndFlushall) {
  Run({"SET", "a", "v"});
  Select(3);
  Run({"SET", "b", "v"});
  EXPECT_EQ(Run({"FLUSHDB", "sync"}), "+OK\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  Select(0);
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  EXPECT_EQ(Run({"FLUSHALL", "ASYNC"}), "+OK\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(Run({"FLUSHDB", "ASYNC", "extra"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"FLUSHALL", "nope"}), "-ERR syntax error\r\n");
}

TEST_F(KeyspaceTest, RenameAndRenamenx) {
  Run({"SET", "t", "v", "EX", "100"});
  EXPECT_EQ(Run({"RENAME", "t", "t2"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "t2"}), ":100\r\n");
  EXPECT_EQ(Run({"EXISTS", "t"}), ":0\r\n");
  EXPECT_EQ(Run({"RENAME", "nosuch", "x"}), "-ERR no such key\r\n");
  EXPECT_EQ(Run({"RENAME", "nosuch", "nosuch"}), "-ERR no such key\r\n");
  EXPECT_EQ(Run({"RENAME", "t2", "t2"}), "+OK\r\n");
  Run({"SET", "y", "2"});
  EXPECT_EQ(Run({"RENAMENX", "t2", "y"}), ":0\r\n");
  EXPECT_EQ(Run({"RENAMENX", "t2", "t2"}), ":0\r\n");
  EXPECT_EQ(Run({"RENAMENX", "t2", "z"}), ":1\r\n");
  EXPECT_EQ(Run({"GET", "z"}), "$1\r\nv\r\n");
  MakeStream("s");
  EXPECT_EQ(Run({"RENAME", "s", "z"}), "+OK\r\n");
  EXPECT_EQ(Run({"TYPE", "z"}), "+stream\r\n");
  EXPECT_EQ(Run({"TTL", "z"}), ":-1\r\n");
}

TEST_F(KeyspaceTest, CopyWithDbAndReplace) {
  Run({"SET", "src", "v", "EX", "100"});
  EXPECT_EQ(Run({"COPY", "src", "dst"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "dst"}), ":100\r\n");
  EXPECT_EQ(Run({"COPY", "src", "dst"}), ":0\r\n");
  EXPECT_EQ(Run({"COPY", "src", "dst", "REPLACE"}), ":1\r\n");
  EXPECT_EQ(Run({"COPY", "nosuch", "dst"}), ":0\r\n");
  EXPECT_EQ(Run({"COPY", "src", "src"}), "-ERR source and destination objects are the same\r\n");
  EXPECT_EQ(Run({"COPY", "src", "d1", "DB", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"COPY", "src", "d1", "DB", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"COPY", "src", "d1", "DB", "abc"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"COPY", "src", "d1", "DB"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"COPY", "src", "d1", "REPLACE", "REPLACE"}), ":1\r\n");
  Select(1);
  EXPECT_EQ(Run({"GET", "d1"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"TTL", "d1"}), ":100\r\n");
  // The copy is independent of the source.
  Select(0);
  Run({"APPEND", "src", "x"});
  EXPECT_EQ(Run({"GET", "dst"}), "$1\r\nv\r\n");
}

TEST_F(KeyspaceTest, MoveBetweenDatabases) {
  Run({"SET", "m", "v", "EX", "100"});
  EXPECT_EQ(Run({"MOVE", "m", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "m"}), ":0\r\n");
  EXPECT_EQ(Run({"MOVE", "m", "1"}), ":0\r\n");
  Run({"SET", "m", "mine"});
  EXPECT_EQ(Run({"MOVE", "m", "1"}), ":0\r\n");  // taken in the target
  EXPECT_EQ(Run({"MOVE", "m", "0"}), "-ERR source and destination objects are the same\r\n");
  EXPECT_EQ(Run({"MOVE", "m", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"MOVE", "m", "-0"}), "-ERR value is not an integer or out of range\r\n");
  Select(1);
  EXPECT_EQ(Run({"GET", "m"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"TTL", "m"}), ":100\r\n");
}

TEST_F(KeyspaceTest, SwapdbIsSeenByOtherClients) {
  Run({"SET", "k", "db0"});
  Select(1);
  Run({"SET", "k", "db1"});
  EXPECT_EQ(Run({"SWAPDB", "0", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$3\r\ndb0\r\n");
  EXPECT_EQ(Run({"GET", "k"}, 2), "$3\r\ndb1\r\n");
  EXPECT_EQ(Run({"SWAPDB", "0", "0"}), "+OK\r\n");
  EXPECT_EQ(Run({"SWAPDB", "0", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"SWAPDB", "a", "0"}), "-ERR invalid first DB index\r\n");
  EXPECT_EQ(Run({"SWAPDB", "0", "b"}), "-ERR invalid second DB index\r\n");
}

// ---- expiry -------------------------------------------------------------------------------

TEST_F(KeyspaceTest, TtlFamily) {
  EXPECT_EQ(Run({"TTL", "nosuch"}), ":-2\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "nosuch"}), ":-2\r\n");
  Run({"SET", "k", "v"});
  EXPECT_EQ(Run({"PTTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "100"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":100000\r\n");
  h.Advance(1499);
  EXPECT_EQ(Run({"TTL", "k"}), ":99\r\n");  // 98.501 s rounds to 99
  EXPECT_EQ(Run({"PTTL", "k"}), ":98501\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "k"}),
            ":" + std::to_string(CommandHarness::kStartMs / 1000 + 100) + "\r\n");
  EXPECT_EQ(Run({"PEXPIREAT", "k", "4000000000500"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "k"}), ":4000000001\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "k"}), ":4000000000500\r\n");
  EXPECT_EQ(Run({"PERSIST", "k"}), ":1\r\n");
  EXPECT_EQ(Run({"PERSIST", "k"}), ":0\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "nosuch", "100"}), ":0\r\n");
}

TEST_F(KeyspaceTest, ExpireConditions) {
  Run({"SET", "o", "v"});
  EXPECT_EQ(Run({"EXPIRE", "o", "100", "XX"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "o", "100", "GT"}), ":0\r\n");  // no TTL counts as infinite
  EXPECT_EQ(Run({"EXPIRE", "o", "100", "LT"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "o", "300", "NX"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "o", "200", "gt"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "o", "200", "GT"}), ":0\r\n");  // equal is not greater
  EXPECT_EQ(Run({"EXPIRE", "o", "50", "Lt"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "o"}), ":50\r\n");
  EXPECT_EQ(Run({"EXPIRE", "o", "10", "XX", "GT"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "o", "10", "NX", "XX"}),
            "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n");
  EXPECT_EQ(Run({"EXPIRE", "o", "10", "GT", "LT"}),
            "-ERR GT and LT options at the same time are not compatible\r\n");
  EXPECT_EQ(Run({"EXPIRE", "o", "abc", "bogus"}), "-ERR Unsupported option bogus\r\n");
  EXPECT_EQ(Run({"EXPIRE", "o", "1.5"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"EXPIRE", "o", "9223372036854775"}),
            "-ERR invalid expire time in 'expire' command\r\n");
  EXPECT_EQ(Run({"PEXPIRE", "o", "9223372036854775807"}),
            "-ERR invalid expire time in 'pexpire' command\r\n");
  EXPECT_EQ(Run({"PEXPIREAT", "o", "9223372036854775807"}), ":1\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "o"}), ":9223372036854775807\r\n");
  // Seconds of the largest expiry round half up without overflowing (UBSan flagged the sum;
  // Redis 7.0.15 and 7.4.1 answer 9223372036854776), found by the command fuzz target.
  EXPECT_EQ(Run({"EXPIRETIME", "o"}), ":9223372036854776\r\n");
  EXPECT_EQ(Run({"PEXPIREAT", "o", "9223372036854775499"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "o"}), ":9223372036854775\r\n");
}

TEST_F(KeyspaceTest, PastExpiryDeletesAtOnce) {
  Run({"SET", "d", "v"});
  EXPECT_EQ(Run({"EXPIRE", "d", "-10"}), ":1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  Run({"SET", "d", "v"});
  EXPECT_EQ(Run({"EXPIREAT", "d", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  Run({"SET", "d", "v"});
  EXPECT_EQ(Run({"EXPIRE", "d", "-1", "XX"}), ":0\r\n");  // the condition is checked first
  EXPECT_EQ(Run({"EXISTS", "d"}), ":1\r\n");
}

TEST_F(KeyspaceTest, LazyExpiry) {
  Run({"SET", "soon", "v", "PX", "100"});
  h.Advance(99);
  EXPECT_EQ(Run({"GET", "soon"}), "$1\r\nv\r\n");
  h.Advance(1);
  // Until something looks at it, an expired key still counts in DBSIZE (as in Redis)...
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  EXPECT_EQ(Run({"KEYS", "*"}), "*0\r\n");
  // ...and any lookup deletes it.
  EXPECT_EQ(Run({"GET", "soon"}), "_\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(Run({"TTL", "soon"}), ":-2\r\n");
}

TEST_F(KeyspaceTest, ActiveExpiryByCron) {
  for (int i = 0; i < 200; ++i) Run({"SET", "e" + std::to_string(i), "v", "PX", "50"});
  Run({"SET", "keep", "v"});
  h.Advance(50);
  for (int i = 0; i < 50 && h.server().keyspace().db(0).size() > 1; ++i) h.Cron();
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  EXPECT_EQ(h.server().stats().expired_keys, 200u);
}

TEST_F(KeyspaceTest, TouchCountsAndTouches) {
  Run({"MSET", "t1", "a", "t2", "b"});
  EXPECT_EQ(Run({"TOUCH", "t1", "t2", "nosuch", "t1"}), ":3\r\n");
  h.Advance(5000);
  EXPECT_EQ(Run({"OBJECT", "IDLETIME", "t1"}), ":5\r\n");
  EXPECT_EQ(Run({"TOUCH", "t1"}), ":1\r\n");
  EXPECT_EQ(Run({"OBJECT", "IDLETIME", "t1"}), ":0\r\n");
  EXPECT_EQ(Run({"OBJECT", "IDLETIME", "t2"}), ":5\r\n");
}

// ---- OBJECT / MEMORY ----------------------------------------------------------------------

TEST_F(KeyspaceTest, ObjectEncodingFollowsRedis) {
  auto enc = [&](const std::string& key) { return Run({"OBJECT", "ENCODING", key}); };
  const std::string kInt = "$3\r\nint\r\n", kEmb = "$6\r\nembstr\r\n", kRaw = "$3\r\nraw\r\n";
  for (std::string v : {"12345", "-9223372036854775808", "9223372036854775807", "0"}) {
    Run({"SET", "i", v});
    EXPECT_EQ(enc("i"), kInt) << v;
  }
  for (std::string v : {"9223372036854775808", "-0", "007", " 1", "+1", "1.5", ""}) {
    Run({"SET", "i", v});
    EXPECT_EQ(enc("i"), kEmb) << v;
  }
  Run({"SET", "s", std::string(44, 'x')});
  EXPECT_EQ(enc("s"), kEmb);
  Run({"SET", "s", std::string(45, 'x')});
  EXPECT_EQ(enc("s"), kRaw);
  Run({"SET", "n", "10"});
  Run({"APPEND", "n", "1"});
  EXPECT_EQ(enc("n"), kRaw);
  Run({"INCR", "n"});
  EXPECT_EQ(enc("n"), kInt);
  Run({"APPEND", "newint", "123"});
  EXPECT_EQ(enc("newint"), kInt);
  Run({"INCRBYFLOAT", "f", "2"});
  EXPECT_EQ(enc("f"), kEmb);  // INCRBYFLOAT stores plain text, even for an integral result
  MakeStream("strm");
  EXPECT_EQ(enc("strm"), "$6\r\nstream\r\n");
  EXPECT_EQ(enc("nosuch"), "_\r\n");
  EXPECT_EQ(Run2({"OBJECT", "ENCODING", "nosuch"}), "$-1\r\n");
}

TEST_F(KeyspaceTest, ObjectRefcountFreqHelpAndErrors) {
  Run({"SET", "shared", "5"});
  EXPECT_EQ(Run({"OBJECT", "REFCOUNT", "shared"}), ":2147483647\r\n");
  Run({"SET", "r", "10000"});
  EXPECT_EQ(Run({"OBJECT", "REFCOUNT", "r"}), ":1\r\n");
  Run({"COPY", "shared", "copied"});
  EXPECT_EQ(Run({"OBJECT", "REFCOUNT", "copied"}), ":1\r\n");
  EXPECT_EQ(Run({"OBJECT", "FREQ", "r"}).substr(0, 50),
            "-ERR An LFU maxmemory policy is not selected, acce");
  EXPECT_EQ(Run({"OBJECT", "FREQ", "nosuch"}), "_\r\n");
  std::string help = Run({"OBJECT", "HELP"});
  EXPECT_EQ(help.substr(0, 71),
            "*15\r\n+OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n");
  EXPECT_EQ(Run({"OBJECT"}), "-ERR wrong number of arguments for 'object' command\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING"}),
            "-ERR wrong number of arguments for 'object|encoding' command\r\n");
  EXPECT_EQ(Run({"OBJECT", "BOGUS", "x"}), "-ERR unknown subcommand 'BOGUS'. Try OBJECT HELP.\r\n");
}

TEST_F(KeyspaceTest, MemoryUsageMatchesRedisForStrings) {
  // Values from redis-server 7.0.15 (jemalloc 5.3) for the same commands.
  Run({"SET", "k", "v"});
  EXPECT_EQ(Run({"MEMORY", "USAGE", "k"}), ":64\r\n");
  Run({"SET", "k", std::string(13, 'x')});
  EXPECT_EQ(Run({"MEMORY", "USAGE", "k"}), ":80\r\n");
  Run({"SET", "k", std::string(45, 'x')});
  EXPECT_EQ(Run({"MEMORY", "USAGE", "k"}), ":112\r\n");
  Run({"SET", "k", std::string(1000, 'x')});
  EXPECT_EQ(Run({"MEMORY", "USAGE", "k"}), ":1072\r\n");
  Run({"SET", "k", std::string(100001, 'x')});
  EXPECT_EQ(Run({"MEMORY", "USAGE", "k"}), ":114736\r\n");
  Run({"SET", std::string(31, 'y'), "10000"});
  EXPECT_EQ(Run({"MEMORY", "USAGE", std::string(31, 'y')}), ":88\r\n");
  Run({"SET", "sh", "10000"});
  EXPECT_EQ(Run({"MEMORY", "USAGE", "sh", "SAMPLES", "0"}), ":48\r\n");
  EXPECT_EQ(Run({"MEMORY", "USAGE", "nosuch"}), "_\r\n");
  EXPECT_EQ(Run({"MEMORY", "USAGE", "sh", "SAMPLES"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"MEMORY", "USAGE", "sh", "SAMPLES", "-1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"MEMORY", "USAGE", "sh", "SAMPLES", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  MakeStream("s");
  EXPECT_EQ(ReplyLength(Run({"MEMORY", "USAGE", "s"})) > 0, true);
  EXPECT_EQ(Run({"MEMORY", "HELP"}).substr(0, 5), "*14\r\n");
  EXPECT_EQ(Run({"MEMORY", "BOGUS"}), "-ERR unknown subcommand 'BOGUS'. Try MEMORY HELP.\r\n");
}

TEST(KeyspaceMemoryTest, JemallocSizeClasses) {
  EXPECT_EQ(cmd::allocation_size(1), 8u);
  EXPECT_EQ(cmd::allocation_size(9), 16u);
  EXPECT_EQ(cmd::allocation_size(20), 32u);
  EXPECT_EQ(cmd::allocation_size(129), 160u);
  EXPECT_EQ(cmd::allocation_size(1006), 1024u);
  EXPECT_EQ(cmd::allocation_size(20006), 20480u);
  EXPECT_EQ(cmd::allocation_size(100011), 114688u);
}

TEST_F(KeyspaceTest, KeyspaceHitsAndMisses) {
  Run({"SET", "a", "1"});
  auto& st = h.server().stats();
  uint64_t hits = st.keyspace_hits, misses = st.keyspace_misses;
  Run({"GET", "a"});
  Run({"GET", "nosuch"});
  Run({"MGET", "a", "nosuch", "a"});
  Run({"EXISTS", "a"});
  Run({"SET", "b", "2"});  // writes do not count
  Run({"DEL", "b"});
  EXPECT_EQ(st.keyspace_hits - hits, 4u);
  EXPECT_EQ(st.keyspace_misses - misses, 2u);
}

}  // namespace
}  // namespace streamd::test
