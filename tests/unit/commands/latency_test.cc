// Latency statistics: the histogram layout against values redis-server 7.0.15 printed for the
// same durations, the latency monitor's series, and LATENCY / INFO latencystats / CONFIG through
// dispatch with Redis's reply bytes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "command_harness.h"
#include "streamd/commands/core/latency.h"
#include "streamd/commands/server/latency_report.h"

namespace streamd::test {
namespace {

using cmd::LatencyHistogram;
using cmd::LatencyMonitor;
using resp::Protocol;

LatencyHistogram With(std::initializer_list<int64_t> usecs) {
  LatencyHistogram h;
  for (int64_t us : usecs) h.record(us * 1000);
  return h;
}

// INFO latencystats lines redis-server 7.0.15 printed for commands called once (p50=p99=p99.9),
// e.g. "latency_percentiles_usec_set:p50=12.031": the highest value equivalent to the duration.
TEST(LatencyHistogram, PercentilesMatchRedis) {
  struct Case {
    int64_t usec;
    int64_t want_ns;
  } cases[] = {{1, 1003},   {2, 2007},   {3, 3007},   {5, 5023},  {6, 6015},
               {12, 12031}, {21, 21119}, {27, 27007}, {66, 66047}};
  for (const auto& c : cases) {
    LatencyHistogram h = With({c.usec});
    EXPECT_EQ(h.value_at_percentile(50), c.want_ns) << c.usec;
    EXPECT_EQ(h.value_at_percentile(99.9), c.want_ns) << c.usec;
  }
  // p0 is the lowest equivalent value ("p0=10.944" for 11 us, "p0=65.536" for 66 us).
  EXPECT_EQ(With({11}).value_at_percentile(0), 10944);
  EXPECT_EQ(With({66}).value_at_percentile(0), 65536);
  // config|get called twice, 6 and 21 us: p50=6.015, p99=21.119.
  LatencyHistogram two = With({6, 21});
  EXPECT_EQ(two.value_at_percentile(50), 6015);
  EXPECT_EQ(two.value_at_percentile(99), 21119);
  EXPECT_EQ(LatencyHistogram().value_at_percentile(50), 0);
}

TEST(LatencyHistogram, LayoutRoundTrips) {
  for (int i = 0; i < LatencyHistogram::kCounts; ++i) {
    int64_t v = LatencyHistogram::value_at_index(i);
    ASSERT_EQ(LatencyHistogram::index_of(v), i) << v;
    ASSERT_EQ(LatencyHistogram::lowest_equivalent(v), v);
    // Every value of the range maps to the same index; the next one does not.
    int64_t hi = LatencyHistogram::highest_equivalent(v);
    ASSERT_EQ(LatencyHistogram::index_of(hi), i);
    if (i + 1 < LatencyHistogram::kCounts) {
      ASSERT_EQ(LatencyHistogram::index_of(hi + 1), i + 1);
    }
    // Precision: a range is at most 1/128 of its values.
    ASSERT_LE((hi - v + 1) * 128, std::max<int64_t>(v, 128)) << v;
  }
  EXPECT_LT(LatencyHistogram::index_of(LatencyHistogram::kMaxNs), LatencyHistogram::kCounts);
}

// LATENCY HISTOGRAM buckets as redis-server printed them: set once at 12 us -> {16: 1};
// config|get at 6 and 21 us -> {8: 1, 33: 2}.
TEST(LatencyHistogram, Log2BucketsMatchRedis) {
  using Buckets = std::vector<std::pair<int64_t, uint64_t>>;
  EXPECT_EQ(With({12}).log2_buckets(), (Buckets{{16, 1}}));
  EXPECT_EQ(With({6, 21}).log2_buckets(), (Buckets{{8, 1}, {33, 2}}));
  EXPECT_EQ(With({1, 1, 3}).log2_buckets(), (Buckets{{1, 2}, {4, 3}}));
  // The labels of every power of two, then the last bucket, up to the 1 s clamp.
  LatencyHistogram all;
  for (int k = 0; k <= 20; ++k) all.record((int64_t{1024} << k));
  all.record(5'000'000'000);  // clamped to 1 s
  Buckets got = all.log2_buckets();
  std::vector<int64_t> labels;
  for (const auto& b : got) labels.push_back(b.first);
  EXPECT_EQ(labels, (std::vector<int64_t>{1,     2,     4,     8,      16,     33,     66,
                                          132,   264,   528,   1056,   2113,   4227,   8454,
                                          16908, 33816, 67633, 135266, 270532, 541065, 1073741}));
  EXPECT_EQ(got.back().second, 22u);
  EXPECT_TRUE(LatencyHistogram().log2_buckets().empty());
  // 0 ns is clamped to 1 ns and lands in the first bucket.
  LatencyHistogram zero;
  zero.record(0);
  EXPECT_EQ(zero.log2_buckets(), (Buckets{{1, 1}}));
}

TEST(LatencyMonitor, KeepsTheLargestSamplePerSecondAndTheAllTimeMax) {
  LatencyMonitor m;
  m.add("command", 5, 100);
  m.add("command", 9, 100);
  m.add("command", 3, 100);
  m.add("command", 4, 101);
  const cmd::LatencySeries* s = m.find("command");
  ASSERT_NE(s, nullptr);
  auto v = s->in_order();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].time_s, 100);
  EXPECT_EQ(v[0].latency_ms, 9);
  EXPECT_EQ(v[1].latency_ms, 4);
  EXPECT_EQ(s->latest().latency_ms, 4);
  EXPECT_EQ(s->max, 9);
  // 160 seconds are kept; the max outlives the ring.
  for (int t = 0; t < 200; ++t) m.add("command", 1, 200 + t);
  v = m.find("command")->in_order();
  ASSERT_EQ(v.size(), 160u);
  EXPECT_EQ(v.front().time_s, 240);
  EXPECT_EQ(v.back().time_s, 399);
  EXPECT_EQ(m.find("command")->max, 9);
  // Threshold: off at 0, inclusive otherwise.
  m.add_if_needed("fork", 10, 500, 0);
  m.add_if_needed("fork", 9, 500, 10);
  EXPECT_EQ(m.find("fork"), nullptr);
  m.add_if_needed("fork", 10, 500, 10);
  EXPECT_NE(m.find("fork"), nullptr);
  EXPECT_EQ(m.reset("FORK"), 1);
  EXPECT_EQ(m.reset("fork"), 0);
  EXPECT_EQ(m.reset_all(), 1);
}

TEST(LatencyMonitor, AnalysisAsDoctorReportsIt) {
  LatencyMonitor m;
  m.add("command", 50, 100);
  m.add("command", 20, 102);
  cmd::LatencyAnalysis a = m.analyze(*m.find("command"), 102);
  EXPECT_EQ(a.samples, 2);
  EXPECT_EQ(a.avg, 35);
  EXPECT_EQ(a.mad, 15);
  EXPECT_EQ(a.period, 2);
  EXPECT_EQ(a.min, 20);
  EXPECT_EQ(a.max, 50);
}

// redis-server 7.0.15's LATENCY GRAPH for a 50 ms sample 2 s ago and a 20 ms one just now.
TEST(LatencyReport, GraphAsRedisDrawsIt) {
  LatencyMonitor m;
  m.add("command", 50, 100);
  m.add("command", 20, 102);
  EXPECT_EQ(cmd::latency_graph("command", *m.find("command"), 102),
            "command - high 50 ms, low 20 ms (all time high 50 ms)\n" + std::string(80, '-') +
                "\n# \n| \n| \n|_\n  \n20\nss\n");
}

class LatencyCommandTest : public ::testing::Test {
 protected:
  CommandHarness h;
  int64_t now_s() const { return CommandHarness::kStartMs / 1000; }
};

TEST_F(LatencyCommandTest, LatestHistoryResetReplies) {
  EXPECT_EQ(h.Run2({"LATENCY", "LATEST"}), "*0\r\n");
  EXPECT_EQ(h.Run2({"LATENCY", "HISTORY", "command"}), "*0\r\n");
  auto& lm = h.server().stats().latency;
  lm.add("command", 20, now_s() - 2);
  lm.add("command", 50, now_s());
  std::string t = std::to_string(now_s());
  std::string t0 = std::to_string(now_s() - 2);
  EXPECT_EQ(h.Run2({"LATENCY", "LATEST"}),
            "*1\r\n*4\r\n$7\r\ncommand\r\n:" + t + "\r\n:50\r\n:50\r\n");
  EXPECT_EQ(h.Run({"LATENCY", "LATEST"}),
            "*1\r\n*4\r\n$7\r\ncommand\r\n:" + t + "\r\n:50\r\n:50\r\n");
  EXPECT_EQ(h.Run2({"latency", "history", "command"}),
            "*2\r\n*2\r\n:" + t0 + "\r\n:20\r\n*2\r\n:" + t + "\r\n:50\r\n");
  // Event names are exact for HISTORY and GRAPH, case-insensitive for RESET.
  EXPECT_EQ(h.Run2({"LATENCY", "HISTORY", "COMMAND"}), "*0\r\n");
  EXPECT_EQ(h.Run2({"LATENCY", "GRAPH", "COMMAND"}),
            "-ERR No samples available for event 'COMMAND'\r\n");
  EXPECT_EQ(h.Run2({"LATENCY", "RESET", "COMMAND", "nosuch", "command"}), ":1\r\n");
  lm.add("fork", 1, now_s());
  lm.add("aof-write", 1, now_s());
  EXPECT_EQ(h.Run2({"LATENCY", "RESET"}), ":2\r\n");
  EXPECT_EQ(h.Run2({"LATENCY", "RESET"}), ":0\r\n");
  EXPECT_EQ(h.Run2({"LATENCY", "NOPE"}), "-ERR unknown subcommand 'NOPE'. Try LATENCY HELP.\r\n");
  EXPECT_EQ(h.Run2({"LATENCY", "HISTORY"}),
            "-ERR wrong number of arguments for 'latency|history' command\r\n");
}

TEST_F(LatencyCommandTest, DoctorTexts) {
  std::string off = h.Run2({"LATENCY", "DOCTOR"});
  EXPECT_NE(off.find("I'm sorry, Dave, I can't do that."), std::string::npos) << off;
  // RESP3: a verbatim string.
  EXPECT_EQ(h.Run({"LATENCY", "DOCTOR"}).substr(0, 1), "=");
  // A threshold no real command here reaches (at 1 ms, commands of the sanitizer build on a busy
  // machine became spikes of their own), and a slow log threshold above it for the advice.
  h.Run2({"CONFIG", "SET", "latency-monitor-threshold", "100"});
  h.Run2({"CONFIG", "SET", "slowlog-log-slower-than", "200000"});
  std::string calm = h.Run2({"LATENCY", "DOCTOR"});
  EXPECT_NE(calm.find("Dave, no latency spike was observed"), std::string::npos) << calm;
  h.server().stats().latency.add("command", 50, now_s() - 2);
  h.server().stats().latency.add("command", 20, now_s());
  std::string spikes = h.Run2({"LATENCY", "DOCTOR"});
  EXPECT_NE(spikes.find("1. command: 2 latency spikes (average 35ms, mean deviation 15ms, period "
                        "1.00 sec). Worst all time event 50ms.\n"),
            std::string::npos)
      << spikes;
  // slowlog-log-slower-than 200000 us > 100 ms threshold.
  EXPECT_NE(spikes.find("Please use 'CONFIG SET slowlog-log-slower-than 100000'."),
            std::string::npos);
}

TEST_F(LatencyCommandTest, SlowCommandsBecomeEventsAtTheThreshold) {
  ASSERT_FALSE(h.config().force_set("enable-debug-command", "yes").has_value());
  h.Run2({"DEBUG", "SLEEP", "0.003"});
  EXPECT_EQ(h.Run2({"LATENCY", "LATEST"}), "*0\r\n");  // monitoring is off by default
  h.Run2({"CONFIG", "SET", "latency-monitor-threshold", "2"});
  h.Run2({"DEBUG", "SLEEP", "0.003"});
  const cmd::LatencySeries* s = h.server().stats().latency.find("command");
  ASSERT_NE(s, nullptr);
  EXPECT_GE(s->latest().latency_ms, 2);
  EXPECT_EQ(s->latest().time_s, now_s());
  EXPECT_EQ(h.server().stats().latency.find("fast-command"), nullptr);
  // CONFIG RESETSTAT keeps the events.
  h.Run2({"CONFIG", "RESETSTAT"});
  EXPECT_NE(h.server().stats().latency.find("command"), nullptr);
}

TEST_F(LatencyCommandTest, HistogramReplyShapes) {
  h.Run2({"CONFIG", "RESETSTAT"});
  // Durations are real: replace the recorded histograms by known ones.
  auto& cmds = h.server().stats().commands;
  cmds["set"].histogram = std::make_unique<LatencyHistogram>(With({6, 21}));
  cmds["config|resetstat"].histogram.reset();
  EXPECT_EQ(h.Run({"LATENCY", "HISTOGRAM", "SET"}),
            "%1\r\n$3\r\nset\r\n%2\r\n$5\r\ncalls\r\n:2\r\n$14\r\nhistogram_usec\r\n%2\r\n:8\r\n:"
            "1\r\n:33\r\n:2\r\n");
  EXPECT_EQ(h.Run2({"LATENCY", "HISTOGRAM", "set"}),
            "*2\r\n$3\r\nset\r\n*4\r\n$5\r\ncalls\r\n:2\r\n$14\r\nhistogram_usec\r\n*4\r\n:8\r\n:"
            "1\r\n:33\r\n:2\r\n");
  // Unknown and never-called commands are left out; a container brings its subcommands.
  EXPECT_EQ(h.Run2({"LATENCY", "HISTOGRAM", "nosuch", "get", "config|nosuch"}), "*0\r\n");
  cmds["config|get"].histogram = std::make_unique<LatencyHistogram>(With({12}));
  std::string config = h.Run2({"LATENCY", "HISTOGRAM", "CONFIG"});
  EXPECT_EQ(config,
            "*2\r\n$10\r\nconfig|get\r\n*4\r\n$5\r\ncalls\r\n:1\r\n$14\r\nhistogram_usec\r\n*2\r\n:"
            "16\r\n:1\r\n");
  EXPECT_EQ(h.Run2({"LATENCY", "HISTOGRAM", "Config|Get"}), config);
  // No arguments: every command with a histogram (here also the LATENCY calls just made).
  std::string all = h.Run({"LATENCY", "HISTOGRAM"});
  EXPECT_NE(all.find("$3\r\nset\r\n"), std::string::npos);
  EXPECT_NE(all.find("$17\r\nlatency|histogram\r\n"), std::string::npos);
}

TEST_F(LatencyCommandTest, TrackingSwitchAndResetstat) {
  h.Run2({"CONFIG", "SET", "latency-tracking", "no"});
  h.Run2({"CONFIG", "RESETSTAT"});
  h.Run2({"SET", "k", "v"});
  EXPECT_EQ(h.Run2({"LATENCY", "HISTOGRAM"}), "*0\r\n");
  h.Run2({"CONFIG", "SET", "latency-tracking", "yes"});
  h.Run2({"SET", "k", "v"});
  EXPECT_NE(h.server().stats().commands["set"].histogram, nullptr);
  h.Run2({"CONFIG", "RESETSTAT"});
  EXPECT_EQ(h.server().stats().commands.count("set"), 0u);
}

TEST_F(LatencyCommandTest, InfoLatencystats) {
  h.Run2({"CONFIG", "SET", "latency-tracking", "no"});
  h.Run2({"CONFIG", "RESETSTAT"});
  EXPECT_EQ(h.Run2({"INFO", "latencystats"}), "$16\r\n# Latencystats\r\n\r\n");
  // While tracking is off the section stays empty even with histograms (as in Redis).
  h.server().stats().commands["set"].histogram = std::make_unique<LatencyHistogram>(With({1}));
  EXPECT_EQ(h.Run2({"INFO", "latencystats"}), "$16\r\n# Latencystats\r\n\r\n");
  h.server().stats().commands.erase("set");
  h.Run2({"CONFIG", "SET", "latency-tracking", "yes"});
  h.server().stats().commands.erase("config|set");
  h.server().stats().commands["xadd"].histogram = std::make_unique<LatencyHistogram>(With({12}));
  h.server().stats().commands["config|get"].histogram =
      std::make_unique<LatencyHistogram>(With({6, 21}));
  std::string body =
      "# Latencystats\r\n"
      "latency_percentiles_usec_config|get:p50=6.015,p99=21.119,p99.9=21.119\r\n"
      "latency_percentiles_usec_xadd:p50=12.031,p99=12.031,p99.9=12.031\r\n";
  EXPECT_EQ(h.Run2({"INFO", "latencystats"}),
            "$" + std::to_string(body.size()) + "\r\n" + body + "\r\n");
  h.Run2({"CONFIG", "SET", "latency-tracking-info-percentiles", "0 50.50 100"});
  EXPECT_EQ(h.Run2({"CONFIG", "GET", "latency-tracking-info-percentiles"}),
            "*2\r\n$33\r\nlatency-tracking-info-percentiles\r\n$10\r\n0 50.5 100\r\n");
  std::string info = h.Run2({"INFO", "latencystats"});
  EXPECT_NE(info.find("latency_percentiles_usec_xadd:p0=11.968,p50.5=12.031,p100=12.031\r\n"),
            std::string::npos)
      << info;
  h.Run2({"CONFIG", "SET", "latency-tracking-info-percentiles", ""});
  EXPECT_NE(h.Run2({"INFO", "latencystats"}).find("latency_percentiles_usec_xadd:\r\n"),
            std::string::npos);
}

TEST_F(LatencyCommandTest, ConfigDirectives) {
  EXPECT_EQ(h.Run2({"CONFIG", "GET", "latency-monitor-threshold"}),
            "*2\r\n$25\r\nlatency-monitor-threshold\r\n$1\r\n0\r\n");
  EXPECT_EQ(h.Run2({"CONFIG", "GET", "latency-tracking-info-percentiles"}),
            "*2\r\n$33\r\nlatency-tracking-info-percentiles\r\n$10\r\n50 99 99.9\r\n");
  EXPECT_EQ(h.Run2({"CONFIG", "SET", "latency-tracking-info-percentiles", "50 abc"}),
            "-ERR CONFIG SET failed (possibly related to argument "
            "'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles "
            "parameters\r\n");
  EXPECT_EQ(h.Run2({"CONFIG", "SET", "latency-tracking-info-percentiles", "101"}),
            "-ERR CONFIG SET failed (possibly related to argument "
            "'latency-tracking-info-percentiles') - latency-tracking-info-percentiles parameters "
            "should sit between [0.0,100.0]\r\n");
  EXPECT_EQ(h.Run2({"CONFIG", "SET", "latency-monitor-threshold", "-1"}).substr(0, 22),
            "-ERR CONFIG SET failed");
  EXPECT_EQ(h.config().get("latency-tracking-info-percentiles"), "50 99 99.9");
}

}  // namespace
}  // namespace streamd::test
