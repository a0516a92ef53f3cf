// maxmemory through dispatch (commands/core/memory_limit.h): which commands -OOM refuses, what
// the policies evict and how evictions propagate, are notified and counted. maxmemory 1 is
// always exceeded, which makes the outcomes exact (as they are in redis-server 7.0.15, where
// each of these sequences was checked by hand).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "capture_sink.h"
#include "command_harness.h"
#include "recording_persistence.h"
#include "streamd/commands/core/notify.h"
#include "streamd/engine/used_memory.h"

namespace streamd::test {
namespace {

constexpr const char* kOom = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";

class MaxmemoryTest : public ::testing::Test {
 protected:
  std::string Run(const std::vector<std::string>& argv, int client = 0) {
    return h.Run(argv, resp::Protocol::kResp2, client);
  }
  // From its own client, so that it is never queued in a test's transaction.
  void Set(const std::string& name, const std::string& value) {
    ASSERT_EQ(Run({"CONFIG", "SET", name, value}, 9), "+OK\r\n");
  }
  // The line of INFO commandstats for `cmd`.
  std::string CmdStat(const std::string& cmd) {
    std::string stats = Run({"INFO", "commandstats"}, 9);
    std::size_t at = stats.find("cmdstat_" + cmd + ":");
    if (at == std::string::npos) return "";
    return stats.substr(at, stats.find("\r\n", at) - at);
  }
  long long InfoField(const std::string& field) {
    std::string info = Run({"INFO", "all"}, 9);
    std::size_t at = info.find("\r\n" + field + ":");
    if (at == std::string::npos) return -1;
    return std::stoll(info.substr(at + field.size() + 3));
  }
  CommandHarness h;
};

TEST_F(MaxmemoryTest, NoevictionRefusesWhatGrowsTheDatasetAndServesTheRest) {
  Run({"SET", "a", "1"});
  Run({"XADD", "s", "1-1", "f", "v"});
  Set("maxmemory", "1");
  EXPECT_EQ(Run({"SET", "b", "1"}), kOom);
  EXPECT_EQ(Run({"XADD", "s", "*", "f", "v"}), kOom);
  EXPECT_EQ(Run({"INCR", "a"}), kOom);
  EXPECT_EQ(Run({"GET", "a"}), "$1\r\n1\r\n");
  EXPECT_EQ(Run({"XLEN", "s"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "100"}), ":1\r\n");  // not denyoom
  EXPECT_EQ(Run({"DEL", "a"}), ":1\r\n");
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
  EXPECT_EQ(InfoField("evicted_keys"), 0);
  // The refusals count as rejected calls.
  EXPECT_NE(CmdStat("set").find("calls=1,"), std::string::npos) << CmdStat("set");
  EXPECT_NE(CmdStat("set").find("rejected_calls=1,"), std::string::npos) << CmdStat("set");
  EXPECT_NE(CmdStat("xadd").find("rejected_calls=1,"), std::string::npos) << CmdStat("xadd");
  EXPECT_NE(Run({"INFO", "errorstats"}).find("errorstat_OOM:count=3"), std::string::npos);
  Set("maxmemory", "0");
  EXPECT_EQ(Run({"SET", "b", "1"}), "+OK\r\n");
}

TEST_F(MaxmemoryTest, InATransactionOnlyWhatCouldGrowTheDatasetIsRefused) {
  Run({"SET", "a", "1"});
  // Queued before the limit: EXEC runs a denyoom command, so EXEC itself is refused.
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "b", "2"}), "+QUEUED\r\n");
  Set("maxmemory", "1");  // from another client: not queued
  EXPECT_EQ(Run({"EXEC"}),
            "-EXECABORT Transaction discarded because of: OOM command not allowed when used "
            "memory > 'maxmemory'.\r\n");
  EXPECT_EQ(Run({"GET", "b"}), "$-1\r\n");
  // Queueing a denyoom command is refused and dooms the transaction.
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "b", "2"}), kOom);
  EXPECT_EQ(Run({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.\r\n");
  // Reads queue and run (Redis 7.4+; 7.0 refused anything queued over the limit).
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "a"}), "+QUEUED\r\n");
  EXPECT_EQ(Run({"DEL", "a"}), "+QUEUED\r\n");
  EXPECT_EQ(Run({"EXEC"}), "*2\r\n$1\r\n1\r\n:1\r\n");
}

TEST_F(MaxmemoryTest, AllkeysRandomEvictsEverythingThenRefuses) {
  RecordingPersistence aof;
  h.server().set_persistence(&aof);
  CaptureSink sink;
  h.server().notifier().set_sink(&sink);
  Set("notify-keyspace-events", "Ee");
  Run({"SET", "a", "1"});
  Run({"SELECT", "3"});
  Run({"XADD", "s", "1-1", "f", "v"});
  Run({"SELECT", "0"});
  aof.records.clear();
  Set("maxmemory-policy", "allkeys-random");
  Set("maxmemory", "1");
  // The first command after the limit evicts every key it may, then (still over) refuses SET.
  EXPECT_EQ(Run({"SET", "b", "1"}), kOom);
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(InfoField("evicted_keys"), 2);
  std::vector<std::string> recs = aof.records;
  std::sort(recs.begin(), recs.end());
  EXPECT_EQ(recs, (std::vector<std::string>{"DEL a", "DEL s"}));
  std::vector<std::string> events = sink.got;
  std::sort(events.begin(), events.end());
  EXPECT_EQ(events,
            (std::vector<std::string>{"__keyevent@0__:evicted a", "__keyevent@3__:evicted s"}));
  // lazyfree-lazy-eviction: UNLINK instead of DEL.
  Set("maxmemory", "0");
  Run({"SET", "c", "1"});
  Set("lazyfree-lazy-eviction", "yes");
  aof.records.clear();
  Set("maxmemory", "1");
  EXPECT_EQ(Run({"GET", "c"}), "$-1\r\n");
  EXPECT_EQ(aof.records, (std::vector<std::string>{"UNLINK c"}));
  Set("maxmemory", "0");
  EXPECT_EQ(Run({"SET", "b", "1"}), "+OK\r\n");
  EXPECT_EQ(InfoField("current_eviction_exceeded_time"), 0);
  h.server().notifier().set_sink(nullptr);
  h.server().set_persistence(nullptr);
}

TEST_F(MaxmemoryTest, VolatilePoliciesKeepKeysWithoutATtl) {
  Run({"SET", "keep", "1"});
  Run({"SET", "t", "1", "EX", "100"});
  Set("maxmemory-policy", "volatile-ttl");
  Set("maxmemory", "1");
  EXPECT_EQ(Run({"SET", "x", "1"}), kOom);
  EXPECT_EQ(Run({"EXISTS", "keep", "t"}), ":1\r\n");
  EXPECT_EQ(Run({"GET", "keep"}), "$1\r\n1\r\n");
}

TEST_F(MaxmemoryTest, AllkeysLruKeepsMemoryNearTheLimitAndTheRecentKeys) {
  Set("maxmemory-policy", "allkeys-lru");
  Set("maxmemory-samples", "10");
  const std::size_t limit = engine::used_memory() + 300 * 1024;
  Set("maxmemory", std::to_string(limit));
  const std::string value(1000, 'x');
  for (int i = 0; i < 2000; ++i) {
    h.Advance(1000);  // LRU compares access times: make each key's distinct
    ASSERT_EQ(Run({"SET", "k" + std::to_string(i), value}), "+OK\r\n");
  }
  long long evicted = InfoField("evicted_keys");
  EXPECT_GT(evicted, 1000);
  EXPECT_LE(engine::used_memory(), limit + 64 * 1024);
  // The newest keys survive; the first ones went.
  EXPECT_EQ(Run({"EXISTS", "k1999", "k1998", "k1997"}), ":3\r\n");
  EXPECT_EQ(Run({"EXISTS", "k0", "k1", "k2"}), ":0\r\n");
}

// An AOF whose buffer grows by 256 KiB with every unit it takes: as a real buffer does when the
// DELs of evictions arrive in a turn larger than any before (it doubles). It keeps nothing else
// (recording the SETs would grow memory as fast as the keys).
class GrowingAof : public RecordingPersistence {
 public:
  std::string buf;
  uint64_t append(const cmd::PropagationBatch&) override {
    buf.append(256 * 1024, 'x');
    return ++units;
  }
  uint64_t units = 0;
  uint64_t buffer_allocation() const override { return buf.capacity(); }
};

// What propagating an eviction allocates is neither counted as freed by it nor as used: the loop
// used to count the buffer's growth against the deletion and evicted every key (then answered
// -OOM), which a loaded test machine hit with a real AOF.
TEST_F(MaxmemoryTest, TheAofBufferAndWhatEvictionsPropagateAreNotCounted) {
  GrowingAof aof;
  h.server().set_persistence(&aof);
  Set("maxmemory-policy", "allkeys-random");
  const std::string value(1000, 'x');
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Run({"SET", "a" + std::to_string(i), value}), "+OK\r\n");
  Set("maxmemory", std::to_string(engine::used_memory() - aof.buffer_allocation() + 20 * 1024));
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Run({"SET", "b" + std::to_string(i), value}), "+OK\r\n");
  EXPECT_GT(InfoField("evicted_keys"), 50);
  // About what the new keys took was evicted, not everything (each command may evict first).
  std::string dbsize = Run({"DBSIZE"});
  long long keys = std::stoll(dbsize.substr(1));
  EXPECT_GT(keys, 50) << dbsize;
  EXPECT_LT(keys, 150) << dbsize;
  // INFO shows it as Redis does (mem_not_counted_for_evict: here the AOF buffer alone).
  EXPECT_EQ(InfoField("mem_aof_buffer"), static_cast<long long>(aof.buf.capacity()));
  EXPECT_EQ(InfoField("mem_not_counted_for_evict"), static_cast<long long>(aof.buf.capacity()));
  h.server().set_persistence(nullptr);
}

TEST_F(MaxmemoryTest, ObjectFreqFollowsTheLfuCounter) {
  Set("maxmemory-policy", "allkeys-lfu");
  Run({"SET", "k", "v"});
  EXPECT_EQ(Run({"OBJECT", "FREQ", "k"}), ":5\r\n");
  Run({"GET", "k"});  // from 5 the first access always counts
  EXPECT_EQ(Run({"OBJECT", "FREQ", "k"}), ":6\r\n");
  // One minute without access decays it by one (lfu-decay-time 1).
  h.Advance(61 * 1000);
  EXPECT_EQ(Run({"OBJECT", "FREQ", "k"}), ":5\r\n");
  Set("lfu-decay-time", "0");
  h.Advance(10 * 60 * 1000);
  EXPECT_EQ(Run({"OBJECT", "FREQ", "k"}), ":6\r\n");
  // RESTORE ... FREQ sets it.
  std::string dump = Run({"DUMP", "k"});
  std::string payload = dump.substr(dump.find("\r\n") + 2);
  payload.resize(payload.size() - 2);
  EXPECT_EQ(Run({"RESTORE", "r", "0", payload, "FREQ", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"OBJECT", "FREQ", "r"}), ":100\r\n");
}

TEST_F(MaxmemoryTest, NothingIsEvictedWhileClientsArePaused) {
  // Evictions are not run while clients are paused (the dataset must not change meanwhile).
  Run({"SET", "a", "1"});
  Set("maxmemory-policy", "allkeys-random");
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "100000", "WRITE"}), "+OK\r\n");
  Set("maxmemory", "1");
  EXPECT_EQ(Run({"GET", "a"}), "$1\r\n1\r\n");
  EXPECT_EQ(Run({"CLIENT", "UNPAUSE"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "a"}), "$-1\r\n");
}

}  // namespace
}  // namespace streamd::test
