// MEMORY STATS' figures (memory_overhead) and MEMORY DOCTOR's report, with plain calls: the
// report's branches follow Redis's thresholds (getMemoryDoctorReport), its texts are Redis's.
#include <gtest/gtest.h>

#include <string>

#include "command_harness.h"
#include "streamd/commands/server/memory_overhead.h"

namespace streamd::test {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

cmd::MemoryOverhead healthy() {
  cmd::MemoryOverhead m;
  m.used = 100 * kMiB;
  m.peak = 110 * kMiB;
  m.allocator_allocated = 100 * kMiB;
  m.allocator_active = 104 * kMiB;
  m.rss = 108 * kMiB;
  m.normal_clients = 10;
  m.clients_normal = 10 * 1024;
  return m;
}

TEST(MemoryReport, TheFiguresAddUpAndNameTheDatabasesWithKeys) {
  CommandHarness h;
  h.Run2({"SET", "a", "1"});
  h.Run2({"SELECT", "3"});
  h.Run2({"SET", "b", "2"});
  h.Run2({"SET", "c", "3"});
  cmd::MemoryOverhead m = cmd::memory_overhead(h.server());
  EXPECT_EQ(m.keys, 3u);
  ASSERT_EQ(m.dbs.size(), 2u);
  EXPECT_EQ(m.dbs[0].db, 0);
  EXPECT_EQ(m.dbs[1].db, 3);
  EXPECT_GT(m.dbs[1].main_table, m.dbs[0].main_table);  // two nodes against one
  EXPECT_EQ(m.overhead + m.dataset, m.used);
  EXPECT_GE(m.peak, m.used);
  EXPECT_LE(m.startup, m.used);
  // The same figures, as the command answers them: 31 fields and one map per database.
  std::string stats = h.Run2({"MEMORY", "STATS"});
  EXPECT_EQ(stats.substr(0, 5), "*66\r\n");
  EXPECT_NE(stats.find("$4\r\ndb.3\r\n*4\r\n$23\r\noverhead.hashtable.main\r\n:"),
            std::string::npos);
  EXPECT_EQ(h.Run2({"MEMORY", "STATS", "x"}),
            "-ERR wrong number of arguments for 'memory|stats' command\r\n");
}

TEST(MemoryReport, UnderFiveMegabytesTheDoctorDoesNotJudge) {
  cmd::MemoryOverhead m = healthy();
  m.used = 4 * kMiB;
  m.peak = 40 * kMiB;  // a peak that would be an issue on a bigger instance
  EXPECT_EQ(cmd::memory_doctor_report(m).substr(0, 56),
            "Hi Sam, this instance is empty or is using very little m");
}

TEST(MemoryReport, AHealthyInstanceHasNoIssue) {
  EXPECT_EQ(cmd::memory_doctor_report(healthy()),
            "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
            "occurs on this base.\n");
}

TEST(MemoryReport, EachIssueHasItsParagraphInRedissOrder) {
  cmd::MemoryOverhead m = healthy();
  m.peak = 160 * kMiB;  // more than 150% of used
  m.rss = 150 * kMiB;   // over 1.4x used and 10 MB past it
  m.replicas = 1;
  m.clients_replicas = 11 * kMiB;      // over 10 MB per replica
  m.clients_normal = 10 * 300 * 1024;  // 300K per client
  std::string r = cmd::memory_doctor_report(m);
  EXPECT_EQ(r.rfind("Sam, I detected a few issues in this Redis instance memory implants:\n\n", 0),
            0u);
  const auto peak = r.find(" * Peak memory:");
  const auto total_rss = r.find(" * High total RSS:");
  const auto alloc_rss = r.find(" * High allocator RSS overhead:");  // 150 MB on 104 MB active
  const auto replicas = r.find(" * Big replica buffers:");
  const auto clients = r.find(" * Big client buffers:");
  ASSERT_NE(peak, std::string::npos);
  ASSERT_NE(total_rss, std::string::npos);
  ASSERT_NE(alloc_rss, std::string::npos);
  ASSERT_NE(replicas, std::string::npos);
  ASSERT_NE(clients, std::string::npos);
  EXPECT_LT(peak, total_rss);
  EXPECT_LT(total_rss, alloc_rss);
  EXPECT_LT(alloc_rss, replicas);
  EXPECT_LT(replicas, clients);
  EXPECT_EQ(r.find(" * High allocator fragmentation:"), std::string::npos);
  EXPECT_NE(r.find("The currently used allocator is \"libc\".\n\n"), std::string::npos);
  EXPECT_EQ(r.substr(r.size() - 52), "I'm here to keep you safe, Sam. I want to help you.\n");
}

TEST(MemoryReport, ARatioIsAnIssueOnlyTenMegabytesPastTheBase) {
  cmd::MemoryOverhead m = healthy();
  m.used = 6 * kMiB;
  m.peak = 6 * kMiB;
  m.allocator_allocated = 6 * kMiB;
  m.allocator_active = 6 * kMiB;
  m.rss = 12 * kMiB;  // twice used, but only 6 MB more
  EXPECT_EQ(cmd::memory_doctor_report(m).rfind("Hi Sam, I can't find any memory issue", 0), 0u);
}

}  // namespace
}  // namespace streamd::test
