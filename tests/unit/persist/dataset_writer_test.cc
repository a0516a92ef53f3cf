// The rewrite's serializer: the commands it writes rebuild a dataset that answers every stream
// query the same way (entries, metadata, groups, pending entries with owners, times and counts,
// idle consumers, pending entries whose stream entry is gone, TTLs), and their shape is the one
// Redis 7's rewrite uses.
#include "streamd/persist/dataset_writer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../commands/command_harness.h"
#include "stream_dataset.h"
#include "streamd/persist/aof_reader.h"

namespace streamd::persist {
namespace {

using test::CommandHarness;
using test::Decode;

std::string serialize(CommandHarness& h) {
  std::string out;
  EXPECT_TRUE(write_dataset(h.server().keyspace(), h.clock().now_ms(), [&](std::string_view b) {
    out.append(b);
    return true;
  }));
  return out;
}

std::vector<std::vector<std::string>> commands_of(const std::string& data) {
  AofReader r;
  r.open_memory(data);
  std::vector<std::vector<std::string>> out;
  while (r.next() == AofReader::Status::kCommand)
    out.emplace_back(r.argv().begin(), r.argv().end());
  return out;
}

// Replays `data` into `h` and fails on any error reply.
void replay(CommandHarness& h, const std::string& data) {
  for (const auto& argv : commands_of(data)) {
    std::string rep = h.Run(argv);
    ASSERT_NE(rep[0], '-') << argv[0] << " " << (argv.size() > 1 ? argv[1] : "") << " -> "
                           << Decode(rep);
  }
}

// What a client can observe about a stream key, apart from consumer seen/active times.
std::string observe_stream(CommandHarness& h, const std::string& key) {
  std::string out;
  for (std::vector<std::string> q : std::vector<std::vector<std::string>>{{"XRANGE", key, "-", "+"},
                                                                          {"XINFO", "STREAM", key},
                                                                          {"XINFO", "GROUPS", key},
                                                                          {"PEXPIRETIME", key}}) {
    out += Decode(h.Run(q)) + "\n";
  }
  for (const char* g : {"g1", "g2", "g3"}) {
    out += Decode(h.Run({"XPENDING", key, g})) + "\n";
    out += Decode(h.Run({"XPENDING", key, g, "-", "+", "1000"})) + "\n";
  }
  return out;
}

void build(CommandHarness& h) {
  h.Run({"SET", "plain", "v"});
  h.Run({"SET", "ttl", "v", "PX", "100000"});
  h.Run({"SET", "expired", "v", "PX", "10"});
  for (int i = 1; i <= 20; ++i)
    h.Run({"XADD", "s", std::to_string(i) + "-1", "n", std::to_string(i)});
  test::add_group_state(h, {"3-1", "8-1", "15-1"});  // two pending (ghosts), one not
}

TEST(DatasetWriter, RoundTripKeepsEveryObservableStreamState) {
  CommandHarness a;
  build(a);
  std::string data = serialize(a);
  CommandHarness b;
  b.Advance(a.clock().now_ms() - CommandHarness::kStartMs);
  replay(b, data);
  b.Run({"SELECT", "0"});  // the replay ends in the last database it wrote
  for (const char* key : {"s", "empty"}) {
    EXPECT_EQ(observe_stream(a, key), observe_stream(b, key)) << key;
  }
  EXPECT_EQ(Decode(b.Run({"GET", "plain"})), "\"v\"");
  EXPECT_EQ(Decode(a.Run({"PEXPIRETIME", "ttl"})), Decode(b.Run({"PEXPIRETIME", "ttl"})));
  EXPECT_EQ(Decode(b.Run({"EXISTS", "expired"})), "(integer) 0");
  EXPECT_EQ(Decode(b.Run({"DBSIZE"})), "(integer) 4");
  b.Run({"SELECT", "2"});
  EXPECT_EQ(Decode(b.Run({"XLEN", "other"})), "(integer) 1");
}

TEST(DatasetWriter, SimpleStreamUsesRedisRewriteShape) {
  CommandHarness a;
  a.Run({"XADD", "s", "1-1", "f", "v"});
  a.Run({"XADD", "s", "2-1", "f", "w"});
  a.Run({"XGROUP", "CREATE", "s", "g", "0"});
  a.Run({"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"});
  a.Run({"XGROUP", "CREATECONSUMER", "s", "g", "idle"});
  std::string t = std::to_string(a.clock().now_ms());
  std::vector<std::vector<std::string>> want = {
      {"SELECT", "0"},
      {"XADD", "s", "1-1", "f", "v"},
      {"XADD", "s", "2-1", "f", "w"},
      {"XSETID", "s", "2-1", "ENTRIESADDED", "2", "MAXDELETEDID", "0-0"},
      {"XGROUP", "CREATE", "s", "g", "1-1", "ENTRIESREAD", "1"},
      {"XCLAIM", "s", "g", "c", "0", "1-1", "TIME", t, "RETRYCOUNT", "1", "JUSTID", "FORCE"},
      {"XGROUP", "CREATECONSUMER", "s", "g", "idle"},
  };
  EXPECT_EQ(commands_of(serialize(a)), want);
}

TEST(DatasetWriter, EmptyStreamIsCreatedThenGivenItsMetadata) {
  CommandHarness a;
  a.Run({"XADD", "e", "MAXLEN", "0", "5-5", "a", "b"});
  std::vector<std::vector<std::string>> want = {
      {"SELECT", "0"},
      {"XADD", "e", "MAXLEN", "0", "0-1", "x", "y"},
      {"XSETID", "e", "5-5", "ENTRIESADDED", "1", "MAXDELETEDID", "0-0"},
  };
  EXPECT_EQ(commands_of(serialize(a)), want);
}

TEST(DatasetWriter, StopsWhenTheOutputFails) {
  CommandHarness a;
  for (int i = 0; i < 5000; ++i) a.Run({"XADD", "s", "*", "pad", std::string(100, 'x')});
  int calls = 0;
  EXPECT_FALSE(write_dataset(a.server().keyspace(), a.clock().now_ms(), [&](std::string_view) {
    ++calls;
    return false;
  }));
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace streamd::persist
