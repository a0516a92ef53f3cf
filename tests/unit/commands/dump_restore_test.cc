// DUMP and RESTORE through dispatch: payload bytes, Redis's check order and error texts, TTLs
// (relative, ABSTTL, in the past), REPLACE, IDLETIME/FREQ, what is propagated and notified.
// Expected bytes and replies were taken from Debian's redis-server 7.0.15 (redis-py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "capture_sink.h"
#include "command_harness.h"
#include "recording_persistence.h"
#include "streamd/commands/core/notify.h"

namespace streamd::test {
namespace {

using namespace std::string_literals;

// The bulk string of a reply ("$5\r\nhello\r\n" → "hello").
std::string Bulk(const std::string& raw) {
  std::size_t eol = raw.find("\r\n");
  EXPECT_EQ(raw[0], '$') << Decode(raw);
  if (raw[0] != '$') return {};
  std::size_t len = std::stoul(raw.substr(1, eol - 1));
  return raw.substr(eol + 2, len);
}

class DumpRestoreTest : public ::testing::Test {
 protected:
  std::string Run(const std::vector<std::string>& argv) { return h.Run(argv); }
  std::string Dump(const std::string& key) { return Bulk(Run({"DUMP", key})); }
  void WithRdb10() { ASSERT_EQ(Run({"CONFIG", "SET", "rdb-version", "10"}), "+OK\r\n"); }

  CommandHarness h;
};

TEST_F(DumpRestoreTest, StringPayloadsAreRedis70s) {
  WithRdb10();
  Run({"SET", "s", "hello"});
  Run({"SET", "n", "12345"});
  Run({"SET", "l", std::string(40, 'a')});
  Run({"SET", "big", "12345678901234567890"});
  EXPECT_EQ(Dump("s"), "\x00\x05hello\n\x00\x63r\xdfve4 \n"s);
  EXPECT_EQ(Dump("n"), "\x00\xc1\x39\x30\n\x00\x9d\x94\xea'\x93\xfc\x08\xb9"s);
  EXPECT_EQ(Dump("big"),
            "\x00\x14\x31\x32\x33\x34\x35\x36\x37\x38\x39\x30"
            "1234567890\n\x00\xbd\x37$>\xe8=\xf2\xb1"s);
  // Longer strings are LZF-compressed (marker 0xc3) when that saves space, as Redis does; the
  // compressed bytes are streamd's own compressor's (redis-server restores them; the
  // integration test checks that), not necessarily redis-server's.
  std::string lzf = Dump("l");
  EXPECT_EQ(lzf.substr(0, 2), "\x00\xc3"s);
  EXPECT_LT(lzf.size(), 2u + 40 + 10);
  EXPECT_EQ(Run({"RESTORE", "l2", "0", lzf}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "l2"}), "$40\r\n" + std::string(40, 'a') + "\r\n");
  // redis-server's own LZF bytes restore too.
  EXPECT_EQ(Run({"RESTORE", "l3", "0",
                 "\x00\xc3\t(\x01\x61\x61\xe0\x1b\x00\x01\x61\x61\n\x00\xcf\t/\xaa\xae%\x83\x1d"s}),
            "+OK\r\n");
  EXPECT_EQ(Run({"GET", "l3"}), "$40\r\n" + std::string(40, 'a') + "\r\n");
  // rdbcompression no: the 40 bytes as they are.
  ASSERT_EQ(Run({"CONFIG", "SET", "rdbcompression", "no"}), "+OK\r\n");
  std::string plain = Dump("l");
  EXPECT_EQ(plain.substr(0, 2), "\x00\x28"s);
  EXPECT_EQ(plain.size(), 2u + 40 + 10);
  // The default rdb-version 12 says so in the footer.
  ASSERT_EQ(Run({"CONFIG", "SET", "rdb-version", "12"}), "+OK\r\n");
  std::string p12 = Dump("s");
  EXPECT_EQ(p12.substr(p12.size() - 10, 2), "\x0c\x00"s);
  EXPECT_EQ(Run({"DUMP", "nosuch"}), "_\r\n");
  EXPECT_EQ(h.Run2({"DUMP", "nosuch"}), "$-1\r\n");
}

TEST_F(DumpRestoreTest, ErrorsInRedisOrder) {
  Run({"SET", "x", "1"});
  const std::string bad = "bad";
  // Options first, then BUSYKEY, then the TTL, then the payload.
  EXPECT_EQ(Run({"RESTORE", "x", "0", bad, "FOO"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"RESTORE", "x", "0", bad, "IDLETIME"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"RESTORE", "x", "0", bad, "IDLETIME", "1", "FREQ", "1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"RESTORE", "x", "0", bad, "FREQ", "1", "IDLETIME", "1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"RESTORE", "x", "0", bad, "IDLETIME", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"RESTORE", "x", "0", bad, "IDLETIME", "-1"}),
            "-ERR Invalid IDLETIME value, must be >= 0\r\n");
  EXPECT_EQ(Run({"RESTORE", "x", "0", bad, "FREQ", "256"}),
            "-ERR Invalid FREQ value, must be >= 0 and <= 255\r\n");
  EXPECT_EQ(Run({"RESTORE", "x", "0", bad, "FREQ", "-1"}),
            "-ERR Invalid FREQ value, must be >= 0 and <= 255\r\n");
  EXPECT_EQ(Run({"RESTORE", "x", "abc", bad}), "-BUSYKEY Target key name already exists.\r\n");
  EXPECT_EQ(Run({"RESTORE", "x", "-1", bad, "REPLACE"}),
            "-ERR Invalid TTL value, must be >= 0\r\n");
  EXPECT_EQ(Run({"RESTORE", "nx", "abc", bad}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"RESTORE", "nx", "0", bad}),
            "-ERR DUMP payload version or checksum are wrong\r\n");
  // A zero CRC is not accepted, nor a version above what streamd reads.
  EXPECT_EQ(Run({"RESTORE", "nx", "0", "\x00\x05hello\x0a\x00"s + std::string(8, '\0')}),
            "-ERR DUMP payload version or checksum are wrong\r\n");
  std::string good = Dump("x");
  std::string corrupt = good;
  corrupt[1] ^= 1;
  EXPECT_EQ(Run({"RESTORE", "nx", "0", corrupt}),
            "-ERR DUMP payload version or checksum are wrong\r\n");
  // A valid payload of a type streamd does not hold: redis-server 7.0.15's DUMP of a list.
  EXPECT_EQ(Run({"RESTORE", "nx", "0",
                 "\x12\x01\x02\n\n\x00\x00\x00\x01\x00\x81\x61\x02\xff\n\x00\t\xb9\xed\xf5\x94\xde"
                 "\xd9\x95"s}),
            "-ERR Bad data format\r\n");
  // And its stream, which loads.
  EXPECT_EQ(
      Run({"RESTORE", "st", "0",
           "\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01(("
           "\x00\x00\x00\x0f\x00\x02\x01\x00\x01\x01\x01\x81\x66\x02\x00\x01\x02\x01\x00\x01"
           "\x00\x01\x81v\x02\x04\x01\x02\x01\x01\x01\x00\x01\x81v\x02\x04\x01\xff\x02\x02\x01"
           "\x01\x01\x00\x00\x02\x00\n\x00\x01\n\xb2\xef\x8cV\xaeK"s}),
      "+OK\r\n");
  EXPECT_EQ(Decode(Run({"XRANGE", "st", "-", "+"})),
            "[[\"1-1\", [\"f\", \"v\"]], [\"2-1\", [\"f\", \"v\"]]]");
  EXPECT_EQ(Run({"RESTORE", "nx"}), "-ERR wrong number of arguments for 'restore' command\r\n");
  EXPECT_EQ(Run({"EXISTS", "nx"}), ":0\r\n");
}

TEST_F(DumpRestoreTest, RoundTripsTtlAndReplace) {
  Run({"SET", "a", "value"});
  std::string p = Dump("a");
  EXPECT_EQ(Run({"RESTORE", "b", "0", p}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "b"}), "$5\r\nvalue\r\n");
  EXPECT_EQ(Run({"PTTL", "b"}), ":-1\r\n");
  EXPECT_EQ(Run({"RESTORE", "b", "0", p}), "-BUSYKEY Target key name already exists.\r\n");
  Run({"SET", "c", "other"});
  EXPECT_EQ(Run({"RESTORE", "c", "5000", p, "REPLACE"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "c"}), "$5\r\nvalue\r\n");
  EXPECT_EQ(Run({"PTTL", "c"}), ":5000\r\n");
  const std::string at = std::to_string(CommandHarness::kStartMs + 9000);
  EXPECT_EQ(Run({"RESTORE", "d", at, p, "ABSTTL"}), "+OK\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "d"}), ":" + at + "\r\n");
  // An expired key is not in the way (it is expired on lookup).
  h.Advance(5000);
  EXPECT_EQ(Run({"RESTORE", "c", "0", p}), "+OK\r\n");
  EXPECT_EQ(Run({"PTTL", "c"}), ":-1\r\n");
}

TEST_F(DumpRestoreTest, PropagationAndEvents) {
  RecordingPersistence aof;
  h.server().set_persistence(&aof);
  CaptureSink sink;
  h.server().notifier().set_sink(&sink);
  ASSERT_EQ(Run({"CONFIG", "SET", "notify-keyspace-events", "KEA"}), "+OK\r\n");
  Run({"SET", "a", "v"});
  std::string p = Dump("a");
  aof.records.clear();
  sink.got.clear();

  // A relative TTL propagates as an absolute one, ABSTTL appended.
  EXPECT_EQ(Run({"RESTORE", "k", "1000", p, "IDLETIME", "7"}), "+OK\r\n");
  const std::string abs = std::to_string(CommandHarness::kStartMs + 1000);
  ASSERT_EQ(aof.records.size(), 1u);
  EXPECT_EQ(aof.records[0], "RESTORE k " + abs + " " + p + " IDLETIME 7 ABSTTL");
  EXPECT_EQ(sink.got,
            (std::vector<std::string>{"__keyspace@0__:k restore", "__keyevent@0__:restore k"}));
  // No TTL or ABSTTL: propagated as given.
  aof.records.clear();
  EXPECT_EQ(Run({"RESTORE", "k", "0", p, "REPLACE"}), "+OK\r\n");
  EXPECT_EQ(aof.records, (std::vector<std::string>{"RESTORE k 0 " + p + " REPLACE"}));

  // ABSTTL in the past: nothing is created; with REPLACE of an existing key, the key is deleted
  // and that is what propagates (DEL, "del" event).
  aof.records.clear();
  sink.got.clear();
  EXPECT_EQ(Run({"RESTORE", "gone", "1", p, "ABSTTL"}), "+OK\r\n");
  EXPECT_EQ(Run({"EXISTS", "gone"}), ":0\r\n");
  EXPECT_TRUE(aof.records.empty());
  EXPECT_TRUE(sink.got.empty());
  EXPECT_EQ(Run({"RESTORE", "k", "1", p, "ABSTTL", "REPLACE"}), "+OK\r\n");
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
  EXPECT_EQ(aof.records, (std::vector<std::string>{"DEL k"}));
  EXPECT_EQ(sink.got, (std::vector<std::string>{"__keyspace@0__:k del", "__keyevent@0__:del k"}));
  h.server().notifier().set_sink(nullptr);
  h.server().set_persistence(nullptr);
}

TEST_F(DumpRestoreTest, IdletimeSetsTheAccessTime) {
  Run({"SET", "a", "v"});
  std::string p = Dump("a");
  EXPECT_EQ(Run({"RESTORE", "k", "0", p, "IDLETIME", "120"}), "+OK\r\n");
  EXPECT_EQ(Run({"OBJECT", "IDLETIME", "k"}), ":120\r\n");
  // Without an LFU policy FREQ is ignored and the access time is now.
  EXPECT_EQ(Run({"RESTORE", "f", "0", p, "FREQ", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"OBJECT", "IDLETIME", "f"}), ":0\r\n");
  // Under an LFU policy IDLETIME is ignored (the key starts with a new key's counter) and FREQ
  // sets the counter, as Redis does.
  ASSERT_EQ(Run({"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"}), "+OK\r\n");
  EXPECT_EQ(Run({"RESTORE", "g", "0", p, "IDLETIME", "50"}), "+OK\r\n");
  EXPECT_EQ(Run({"OBJECT", "FREQ", "g"}), ":5\r\n");
  EXPECT_EQ(Run({"RESTORE", "h", "0", p, "FREQ", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"OBJECT", "FREQ", "h"}), ":100\r\n");
  ASSERT_EQ(Run({"CONFIG", "SET", "maxmemory-policy", "noeviction"}), "+OK\r\n");
}

TEST_F(DumpRestoreTest, StreamRoundTrip) {
  Run({"XADD", "s", "1-1", "f", "v"});
  Run({"XADD", "s", "2-0", "a", "b", "c", "d"});
  Run({"XADD", "s", "3-0", "f", "w"});
  Run({"XDEL", "s", "2-0"});
  Run({"XGROUP", "CREATE", "s", "g", "0"});
  Run({"XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", ">"});
  h.Advance(1500);
  Run({"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"});
  Run({"XGROUP", "CREATECONSUMER", "s", "g", "carol"});
  for (int version : {10, 12}) {
    SCOPED_TRACE(version);
    ASSERT_EQ(Run({"CONFIG", "SET", "rdb-version", std::to_string(version)}), "+OK\r\n");
    std::string p = Dump("s");
    EXPECT_EQ(Run({"RESTORE", "t", "0", p, "REPLACE"}), "+OK\r\n");
    // RDB 10's stream type (19) has no consumer active-time: it loads as the seen-time, as in
    // Redis 7.2+, so only RDB 12 gives back all of XINFO STREAM FULL (carol never read: -1).
    if (version == 12) {
      EXPECT_EQ(Decode(Run({"XINFO", "STREAM", "t", "FULL"})),
                Decode(Run({"XINFO", "STREAM", "s", "FULL"})));
    }
    EXPECT_EQ(Run({"XINFO", "GROUPS", "t"}), Run({"XINFO", "GROUPS", "s"}));
    EXPECT_EQ(Run({"XRANGE", "t", "-", "+"}), Run({"XRANGE", "s", "-", "+"}));
    EXPECT_EQ(Run({"XPENDING", "t", "g", "-", "+", "10"}),
              Run({"XPENDING", "s", "g", "-", "+", "10"}));
    EXPECT_EQ(Run({"TYPE", "t"}), "+stream\r\n");
  }
}

}  // namespace
}  // namespace streamd::test
