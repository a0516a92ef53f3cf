// RDB files and DUMP payloads written from real datasets (built with commands through the
// command harness) load back to the same observable state: XINFO STREAM FULL, XRANGE,
// XPENDING, TTLs, XNACK's released entries and IDMP; every truncation or corruption of them
// is an error or a consistent dataset, never a crash.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "../../commands/command_harness.h"
#include "../stream_dataset.h"
#include "streamd/commands/core/server.h"
#include "streamd/engine/consumer_group.h"
#include "streamd/persist/rdb/dump.h"
#include "streamd/persist/rdb/rdb.h"

namespace streamd::persist::rdb {
namespace {

using test::CommandHarness;
using test::Decode;

std::string save_to_string(CommandHarness& h, SaveOptions opts = {}) {
  std::string out;
  EXPECT_TRUE(save(h.server().keyspace(), h.clock().now_ms(), opts, [&](std::string_view b) {
    out.append(b);
    return true;
  }));
  return out;
}

bool load_into(CommandHarness& h, const std::string& data, std::string* err = nullptr,
               LoadOptions opts = {}) {
  opts.now_ms = h.clock().now_ms();
  std::string e;
  bool ok = load(data, h.server().keyspace(), opts, nullptr, &e);
  if (err) *err = e;
  return ok;
}

std::string observe(CommandHarness& h, const std::string& key) {
  std::string out;
  for (std::vector<std::string> q : std::vector<std::vector<std::string>>{
           {"TYPE", key},
           {"PEXPIRETIME", key},
           {"XRANGE", key, "-", "+"},
           {"XINFO", "STREAM", key, "FULL"},
           {"XINFO", "GROUPS", key},
       }) {
    out += Decode(h.Run(q)) + "\n";
  }
  if (Decode(h.Run({"TYPE", key})) != "stream") return out + Decode(h.Run({"GET", key}));
  for (const char* g : {"g1", "g2", "g3"}) {
    out += Decode(h.Run({"XPENDING", key, g, "-", "+", "1000"})) + "\n";
    out += Decode(h.Run({"XINFO", "CONSUMERS", key, g})) + "\n";
  }
  return out;
}

void build(CommandHarness& h) {
  h.Run({"SET", "int", "12345"});
  h.Run({"SET", "short", "hello"});
  h.Run({"SET", "long", std::string(300, 'x') + "tail"});
  h.Run({"SET", "ttl", "v", "PX", "100000"});
  for (int i = 1; i <= 250; ++i) {
    h.Run({"XADD", "s", std::to_string(i) + "-1", "n", std::to_string(i), "txt",
           "value number " + std::to_string(i)});
    if (i % 7 == 0) h.Run({"XADD", "s", std::to_string(i) + "-2", "other", "f", "x", "y"});
  }
  test::add_group_state(h, {"3-1", "8-1", "15-1", "100-1", "101-1"});
}

std::vector<std::string> keys0 = {"int", "short", "long", "ttl", "s", "empty"};

void expect_same(CommandHarness& a, CommandHarness& b) {
  // The observation covers what it should (a guard against comparing two error replies).
  std::string s = observe(a, "s");
  for (const char* what : {"seen-time", "active-time", "pel-count", "alice", "entries-read"}) {
    EXPECT_NE(s.find(what), std::string::npos) << what << " in " << s.substr(0, 2000);
  }
  for (const auto& k : keys0) EXPECT_EQ(observe(a, k), observe(b, k)) << k;
  EXPECT_EQ(Decode(a.Run({"DBSIZE"})), Decode(b.Run({"DBSIZE"})));
  a.Run({"SELECT", "2"});
  b.Run({"SELECT", "2"});
  EXPECT_EQ(observe(a, "other"), observe(b, "other"));
  a.Run({"SELECT", "0"});
  b.Run({"SELECT", "0"});
}

TEST(RdbFile, ABigStreamIsWrittenInChunks) {
  // One stream of about 3 MB with 20,000 pending entries: the sink gets it piece by piece (a
  // chunk is cut between nodes and inside the PELs once 64 KB are buffered), and the pieces
  // load back as the same file.
  CommandHarness a;
  std::string payload(100, 'p');
  for (int i = 1; i <= 30000; ++i) {
    a.Run({"XADD", "big", std::to_string(i) + "-1", "n", std::to_string(i), "p", payload});
  }
  a.Run({"XGROUP", "CREATE", "big", "g", "0"});
  a.Run({"XREADGROUP", "GROUP", "g", "c", "COUNT", "20000", "STREAMS", "big", ">"});
  std::vector<std::size_t> pieces;
  std::string data;
  SaveOptions o;
  o.compression = false;
  ASSERT_TRUE(save(a.server().keyspace(), a.clock().now_ms(), o, [&](std::string_view b) {
    pieces.push_back(b.size());
    data.append(b);
    return true;
  }));
  EXPECT_GT(data.size(), 3'000'000u);
  EXPECT_GT(pieces.size(), 40u);
  for (std::size_t n : pieces) EXPECT_LT(n, 64u * 1024 + 8192) << "a piece of " << n << " bytes";
  EXPECT_EQ(data, save_to_string(a, o));
  CommandHarness b;
  std::string err;
  ASSERT_TRUE(load_into(b, data, &err)) << err;
  EXPECT_EQ(Decode(b.Run({"XLEN", "big"})), "(integer) 30000");
  EXPECT_EQ(Decode(a.Run({"XPENDING", "big", "g"})), Decode(b.Run({"XPENDING", "big", "g"})));
}

TEST(RdbFile, RoundTripKeepsEveryObservableState) {
  for (int version : {10, 12}) {
    for (bool compression : {true, false}) {
      CommandHarness a;
      build(a);
      SaveOptions o;
      o.version = version;
      o.compression = compression;
      std::string data = save_to_string(a, o);
      EXPECT_EQ(data.substr(0, 9), version == 10 ? "REDIS0010" : "REDIS0012");
      CommandHarness b;
      b.Advance(a.clock().now_ms() - CommandHarness::kStartMs);
      std::string err;
      ASSERT_TRUE(load_into(b, data, &err)) << err;
      if (version == 12) {
        expect_same(a, b);
      } else {
        // RDB 10 has no active time: Redis 7.0 loads it as the seen time, and so does streamd.
        EXPECT_EQ(Decode(a.Run({"XRANGE", "s", "-", "+"})),
                  Decode(b.Run({"XRANGE", "s", "-", "+"})));
        EXPECT_EQ(Decode(a.Run({"XPENDING", "s", "g1", "-", "+", "100"})),
                  Decode(b.Run({"XPENDING", "s", "g1", "-", "+", "100"})));
      }
    }
  }
}

TEST(RdbFile, StreamListpacksAreCompressedAsRedisDoes) {
  // rdbSaveRawString LZF-compresses every string over 20 bytes, a stream node's listpack
  // included; streamd wrote listpacks plain, so its files were about twice Redis's.
  CommandHarness a;
  for (int i = 1; i <= 1000; ++i) {
    a.Run({"XADD", "s", std::to_string(i) + "-0", "temperature", "23.5", "sensor", "a-1"});
  }
  SaveOptions plain;
  plain.compression = false;
  std::string on = save_to_string(a), off = save_to_string(a, plain);
  EXPECT_LT(on.size() * 2, off.size()) << on.size() << " vs " << off.size();
  for (const std::string* data : {&on, &off}) {
    CommandHarness b;
    ASSERT_TRUE(load_into(b, *data));
    EXPECT_EQ(Decode(a.Run({"XRANGE", "s", "-", "+"})), Decode(b.Run({"XRANGE", "s", "-", "+"})));
  }
}

TEST(RdbFile, ChecksumOffWritesZeroAndLoads) {
  CommandHarness a;
  build(a);
  SaveOptions o;
  o.checksum = false;
  std::string data = save_to_string(a, o);
  EXPECT_EQ(data.substr(data.size() - 8), std::string(8, '\0'));
  CommandHarness b;
  EXPECT_TRUE(load_into(b, data));
  std::string with = save_to_string(a);
  with[with.size() - 1] ^= 1;
  CommandHarness c;
  std::string err;
  EXPECT_FALSE(load_into(c, with, &err));
  EXPECT_EQ(err, "Wrong RDB checksum. Aborting now.");
}

TEST(RdbFile, StreamdOnlyStateSurvives) {
  CommandHarness a;
  for (int i = 1; i <= 10; ++i) a.Run({"XADD", "s", std::to_string(i) + "-0", "f", "v"});
  a.Run({"XGROUP", "CREATE", "s", "g1", "0"});
  a.Run({"XREADGROUP", "GROUP", "g1", "c", "COUNT", "5", "STREAMS", "s", ">"});
  std::string nack = Decode(a.Run({"XNACK", "s", "g1", "FAIL", "IDS", "2", "3-0", "1-0"}));
  ASSERT_EQ(nack, "(integer) 2");
  a.Run({"XADD", "s", "IDMP", "p1", "i1", "*", "f", "v"});
  a.Run({"XADD", "s", "IDMP", "p1", "i2", "*", "f", "v"});
  a.Run({"XCFGSET", "s", "IDMP-DURATION", "200", "IDMP-MAXSIZE", "50"});
  a.Run({"XADD", "s", "IDMP", "p2", "i1", "*", "f", "v"});
  a.Run({"XGROUP", "CREATE", "s", "g2", "0"});
  ASSERT_EQ(a.Run({"STREAMD.DEADLETTER", "SET", "s", "g2", "MAXDELIVERIES", "4", "STREAM", "dl"}),
            "+OK\r\n");
  std::string data = save_to_string(a);
  CommandHarness b;
  b.Advance(a.clock().now_ms() - CommandHarness::kStartMs);
  std::string err;
  ASSERT_TRUE(load_into(b, data, &err)) << err;
  EXPECT_EQ(observe(a, "s"), observe(b, "s"));
  // The dead-letter policy (observe() shows it in XINFO GROUPS, this says so explicitly).
  EXPECT_EQ(
      Decode(b.Run({"STREAMD.DEADLETTER", "GET", "s", "g2"})),
      "{\"max-deliveries\": (integer) 4, \"stream\": \"dl\", \"dead-lettered\": (integer) 0}");
  EXPECT_EQ(Decode(b.Run({"STREAMD.DEADLETTER", "GET", "s", "g1"})), "(nil)");
  // The released entries come back first, in release order, as in the original.
  std::vector<std::string> claim = {"XREADGROUP", "GROUP", "g1",      "d", "CLAIM", "0",
                                    "COUNT",      "3",     "STREAMS", "s", ">"};
  EXPECT_EQ(Decode(a.Run(claim)), Decode(b.Run(claim)));
  std::vector<std::string> dup = {"XADD", "s", "IDMP", "p2", "i1", "*", "f", "v"};
  EXPECT_EQ(Decode(a.Run(dup)), Decode(b.Run(dup)));
  // The same through DUMP / RESTORE payloads.
  engine::Entry* e = a.server().keyspace().db(0).find("s");
  std::string payload = dump_payload(e->value, 12);
  engine::Value v(std::string("x"));
  ASSERT_EQ(restore_payload(payload, {}, a.clock().now_ms(), &v), RestoreStatus::kOk);
  EXPECT_EQ(dump_payload(v, 12), payload);
}

TEST(RdbFile, UnsupportedTypesFailOrAreSkipped) {
  // A file with a list (quicklist 2 of one listpack) between two strings, written by hand.
  using namespace std::string_literals;
  std::string lp = "\x0d\x00\x00\x00\x02\x00\x01\x01\x82"s + "ab\x03\xff"s;
  std::string body = "REDIS0011\xfe\x00"s + "\x00\x01"s + "a\x01"s + "1"s + "\x12\x04"s +
                     "list\x01\x02\x0d"s + lp + "\x00\x01"s + "b\x01"s + "2\xff"s;
  std::string data = body + std::string(8, '\0');
  CommandHarness a;
  std::string err;
  EXPECT_FALSE(load_into(a, data, &err));
  EXPECT_EQ(err,
            "Unsupported type list (RDB type 18) of key \"list\" in database 0: streamd holds "
            "strings and streams only (rdb-skip-unsupported-types yes skips such keys)");
  EXPECT_EQ(Decode(a.Run({"DBSIZE"})), "(integer) 0");  // nothing half loaded
  LoadOptions o;
  o.skip_unsupported_types = true;
  std::vector<std::string> logs;
  o.log = [&](std::string_view l) { logs.emplace_back(l); };
  ASSERT_TRUE(load_into(a, data, &err, o)) << err;
  EXPECT_EQ(Decode(a.Run({"MGET", "a", "b", "list"})), "[\"1\", \"2\", (nil)]");
  ASSERT_EQ(logs.size(), 1u);
}

// Every prefix of a file is refused; random corruptions are refused or load a dataset whose
// groups are consistent. Run under ASan in CI.
TEST(RdbFile, TruncatedAndCorruptedFilesNeverCrash) {
  CommandHarness a;
  build(a);
  SaveOptions o;
  o.checksum = false;  // so that corruptions reach the value readers
  std::string data = save_to_string(a, o);
  for (std::size_t cut = 0; cut + 8 < data.size(); cut += 1 + cut / 50) {
    CommandHarness b;
    EXPECT_FALSE(load_into(b, data.substr(0, cut))) << cut;
  }
  std::mt19937 rng(11);
  int loaded = 0;
  for (int i = 0; i < 300; ++i) {
    std::string c = data;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) {
      c[rng() % (c.size() - 8)] = static_cast<char>(rng());
    }
    CommandHarness b;
    if (!load_into(b, c)) {
      EXPECT_EQ(b.server().keyspace().db(0).size(), 0u);
      continue;
    }
    ++loaded;
    b.server().keyspace().db(0).for_each([&](std::string_view, const engine::Entry& e) {
      if (!e.value.is_stream()) return;
      e.value.stream().groups().for_each([&](const engine::ConsumerGroup& g) {
        std::string why;
        EXPECT_TRUE(g.check_invariants(&why)) << why;
      });
    });
  }
  EXPECT_GT(loaded, 0);  // some flips land in values and keep them valid
}

TEST(RdbDump, PayloadErrors) {
  CommandHarness a;
  a.Run({"SET", "k", "v"});
  engine::Value v(std::string("x"));
  std::string p = dump_payload(a.server().keyspace().db(0).find("k")->value, 12);
  // Redis 7.0.15's DUMP of SET k v: type 0, "v", version 10, CRC64.
  std::string redis70 = dump_payload(a.server().keyspace().db(0).find("k")->value, 10);
  EXPECT_EQ(redis70, std::string("\x00\x01v\x0a\x00", 5) + std::string(redis70.substr(5)));
  EXPECT_EQ(restore_payload(p, {}, 0, &v), RestoreStatus::kOk);
  EXPECT_EQ(v.str(), "v");
  EXPECT_EQ(restore_payload("short", {}, 0, &v), RestoreStatus::kBadVersionOrChecksum);
  std::string bad = p;
  bad[1] = 'w';
  EXPECT_EQ(restore_payload(bad, {}, 0, &v), RestoreStatus::kBadVersionOrChecksum);
  std::string v13 = p;
  v13[v13.size() - 10] = 13;
  EXPECT_EQ(restore_payload(v13, {}, 0, &v), RestoreStatus::kBadVersionOrChecksum);
}

}  // namespace
}  // namespace streamd::persist::rdb
