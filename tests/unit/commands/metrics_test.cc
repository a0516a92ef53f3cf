// GET /metrics text: the exposition format (HELP/TYPE lines, label escaping, binary key names),
// redis_exporter's names for streams and groups, the stream selection and its cap.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "command_harness.h"
#include "streamd/commands/server/exposition.h"
#include "streamd/commands/server/metrics.h"

namespace streamd::test {
namespace {

using cmd::Exposition;

// The sample lines of `text` whose metric name is `name` (labels included).
std::vector<std::string> Samples(const std::string& text, const std::string& name) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + "{", 0) == 0 || line.rfind(name + " ", 0) == 0) out.push_back(line);
  }
  return out;
}

TEST(Exposition, FamilyAndSamples) {
  std::string out;
  Exposition e(out);
  e.family("redis_x", "A help\\text\nwith a line feed", "gauge");
  e.sample("redis_x", {}, int64_t{-3});
  e.sample("redis_x", {{"db", "db0"}, {"stream", "a\"b\\c\nd"}}, 1.5);
  e.sample("redis_x", {{"k", "v"}}, uint64_t{18446744073709551615u});
  EXPECT_EQ(out,
            "# HELP redis_x A help\\\\text\\nwith a line feed\n"
            "# TYPE redis_x gauge\n"
            "redis_x -3\n"
            "redis_x{db=\"db0\",stream=\"a\\\"b\\\\c\\nd\"} 1.5\n"
            "redis_x{k=\"v\"} 18446744073709551615\n");
}

TEST(Exposition, BinaryNamesBecomeRedisQuoting) {
  EXPECT_TRUE(cmd::valid_utf8("plain"));
  EXPECT_TRUE(cmd::valid_utf8("caf\xc3\xa9 \xf0\x9f\x98\x80"));
  EXPECT_FALSE(cmd::valid_utf8("\xff"));
  EXPECT_FALSE(cmd::valid_utf8("\xc3"));          // cut short
  EXPECT_FALSE(cmd::valid_utf8("\xc0\xaf"));      // overlong
  EXPECT_FALSE(cmd::valid_utf8("\xed\xa0\x80"));  // surrogate
  EXPECT_EQ(cmd::label_text("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(cmd::label_text(std::string("a\xff\x00", 3)), "\"a\\xff\\x00\"");
  // Control bytes are valid UTF-8 and pass through; the format escapes only \n.
  std::string out;
  Exposition e(out);
  e.sample("m", {{"stream", cmd::label_text("x\xfe")}}, int64_t{1});
  EXPECT_EQ(out, "m{stream=\"\\\"x\\\\xfe\\\"\"} 1\n");
}

class MetricsTest : public ::testing::Test {
 protected:
  CommandHarness h;
  std::string Text() { return cmd::metrics_text(h.server()); }
};

TEST_F(MetricsTest, EveryFamilyHasHelpAndTypeOnce) {
  h.Run2({"XADD", "s", "1-1", "f", "v"});
  std::string t = Text();
  std::istringstream in(t);
  std::string line, last_help;
  std::map<std::string, int> types;
  while (std::getline(in, line)) {
    ASSERT_FALSE(line.empty());
    if (line.rfind("# HELP ", 0) == 0) {
      last_help = line.substr(7, line.find(' ', 7) - 7);
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      std::string name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_EQ(name, last_help) << "TYPE without its HELP just before";
      EXPECT_EQ(++types[name], 1) << name << " declared twice";
      continue;
    }
    // Every sample belongs to the family declared last (histograms: _bucket/_sum/_count).
    std::string name = line.substr(0, line.find_first_of("{ "));
    EXPECT_TRUE(name == last_help || name.rfind(last_help + "_", 0) == 0) << line;
  }
  for (const char* f :
       {"redis_up", "redis_uptime_in_seconds", "redis_connected_clients", "redis_blocked_clients",
        "redis_memory_used_bytes", "redis_commands_total", "redis_commands_duration_seconds_total",
        "redis_keyspace_hits_total", "redis_db_keys", "redis_aof_enabled", "redis_stream_length",
        "redis_stream_group_lag", "streamd_command_duration_seconds"}) {
    EXPECT_EQ(types.count(f), 1u) << f;
  }
  EXPECT_NE(t.find("# TYPE redis_commands_total counter\n"), std::string::npos);
  EXPECT_NE(t.find("# TYPE streamd_command_duration_seconds histogram\n"), std::string::npos);
}

TEST_F(MetricsTest, StreamGroupAndConsumerSeriesMatchXinfo) {
  for (int i = 1; i <= 5; ++i) h.Run2({"XADD", "jobs", std::to_string(i) + "-1", "f", "v"});
  h.Run2({"XGROUP", "CREATE", "jobs", "workers", "0"});
  h.Run2({"XREADGROUP", "GROUP", "workers", "alice", "COUNT", "2", "STREAMS", "jobs", ">"});
  h.Run2({"XACK", "jobs", "workers", "1-1"});
  h.Advance(1500);
  std::string t = Text();
  EXPECT_EQ(Samples(t, "redis_stream_length"),
            std::vector<std::string>{"redis_stream_length{db=\"db0\",stream=\"jobs\"} 5"});
  const std::string g = "{db=\"db0\",stream=\"jobs\",group=\"workers\"}";
  EXPECT_EQ(Samples(t, "redis_stream_group_lag"),
            std::vector<std::string>{"redis_stream_group_lag" + g + " 3"});
  EXPECT_EQ(Samples(t, "redis_stream_group_messages_pending"),
            std::vector<std::string>{"redis_stream_group_messages_pending" + g + " 1"});
  EXPECT_EQ(Samples(t, "redis_stream_group_entries_read"),
            std::vector<std::string>{"redis_stream_group_entries_read" + g + " 2"});
  EXPECT_EQ(Samples(t, "redis_stream_group_consumers"),
            std::vector<std::string>{"redis_stream_group_consumers" + g + " 1"});
  const std::string c = "{db=\"db0\",stream=\"jobs\",group=\"workers\",consumer=\"alice\"}";
  EXPECT_EQ(Samples(t, "redis_stream_group_consumer_messages_pending"),
            std::vector<std::string>{"redis_stream_group_consumer_messages_pending" + c + " 1"});
  EXPECT_EQ(Samples(t, "redis_stream_group_consumer_idle_seconds"),
            std::vector<std::string>{"redis_stream_group_consumer_idle_seconds" + c + " 1.5"});
  EXPECT_EQ(
      Samples(t, "streamd_stream_entries_added_total"),
      std::vector<std::string>{"streamd_stream_entries_added_total{db=\"db0\",stream=\"jobs\"} 5"});
  EXPECT_EQ(
      Samples(t, "redis_stream_last_generated_id"),
      std::vector<std::string>{"redis_stream_last_generated_id{db=\"db0\",stream=\"jobs\"} 5"});
  // After an XDEL inside the unread range XINFO GROUPS reports the lag as null: no lag sample
  // then, rather than a made-up one.
  h.Run2({"XDEL", "jobs", "3-1"});
  EXPECT_NE(h.Run2({"XINFO", "GROUPS", "jobs"}).find("$3\r\nlag\r\n$-1\r\n"), std::string::npos);
  EXPECT_TRUE(Samples(Text(), "redis_stream_group_lag").empty());
}

TEST_F(MetricsTest, SelectionByGlobAndTheLongestFirstCap) {
  h.Run2({"SET", "notastream", "x"});
  for (int n = 1; n <= 5; ++n) {
    for (int i = 1; i <= n; ++i) {
      h.Run2({"XADD", "s" + std::to_string(n), std::to_string(i) + "-1", "f", "v"});
    }
  }
  h.Run2({"SELECT", "2"});
  h.Run2({"XADD", "other", "1-1", "f", "v"});
  std::string t = Text();
  EXPECT_EQ(Samples(t, "redis_stream_length").size(), 6u);
  EXPECT_EQ(Samples(t, "streamd_streams_matching"),
            std::vector<std::string>{"streamd_streams_matching 6"});
  ASSERT_FALSE(h.config().set("metrics-max-streams", "2").has_value());
  t = Text();
  EXPECT_EQ(Samples(t, "redis_stream_length"),
            (std::vector<std::string>{"redis_stream_length{db=\"db0\",stream=\"s5\"} 5",
                                      "redis_stream_length{db=\"db0\",stream=\"s4\"} 4"}));
  EXPECT_EQ(Samples(t, "streamd_streams_exported"),
            std::vector<std::string>{"streamd_streams_exported 2"});
  ASSERT_FALSE(h.config().set("metrics-streams", "oth* s1").has_value());
  t = Text();
  EXPECT_EQ(Samples(t, "redis_stream_length"),
            (std::vector<std::string>{"redis_stream_length{db=\"db0\",stream=\"s1\"} 1",
                                      "redis_stream_length{db=\"db2\",stream=\"other\"} 1"}));
  ASSERT_FALSE(h.config().set("metrics-streams", "").has_value());
  EXPECT_TRUE(Samples(Text(), "redis_stream_length").empty());
  EXPECT_EQ(h.config().get("metrics-streams"), "");
}

TEST_F(MetricsTest, CommandHistogramBuckets) {
  h.Run2({"CONFIG", "RESETSTAT"});
  h.server().stats().commands["xadd"].calls = 3;
  h.server().stats().commands["xadd"].usec = 40;
  auto hist = std::make_unique<cmd::LatencyHistogram>();
  for (int us : {6, 21, 2000}) hist->record(int64_t{us} * 1000);
  h.server().stats().commands["xadd"].histogram = std::move(hist);
  std::string t = Text();
  auto b = Samples(t, "streamd_command_duration_seconds_bucket");
  std::vector<std::string> xadd;
  for (const auto& l : b) {
    if (l.find("cmd=\"xadd\"") != std::string::npos) xadd.push_back(l);
  }
  ASSERT_EQ(xadd.size(), 22u);
  EXPECT_EQ(xadd[0], "streamd_command_duration_seconds_bucket{cmd=\"xadd\",le=\"1.031e-06\"} 0");
  EXPECT_EQ(xadd[3], "streamd_command_duration_seconds_bucket{cmd=\"xadd\",le=\"8.255e-06\"} 1");
  EXPECT_EQ(xadd[5], "streamd_command_duration_seconds_bucket{cmd=\"xadd\",le=\"3.3023e-05\"} 2");
  EXPECT_EQ(xadd[21], "streamd_command_duration_seconds_bucket{cmd=\"xadd\",le=\"+Inf\"} 3");
  EXPECT_NE(t.find("streamd_command_duration_seconds_sum{cmd=\"xadd\"} 4e-05\n"),
            std::string::npos);
  EXPECT_NE(t.find("streamd_command_duration_seconds_count{cmd=\"xadd\"} 3\n"), std::string::npos);
  EXPECT_NE(t.find("redis_commands_total{cmd=\"xadd\"} 3\n"), std::string::npos);
}

// The scrape under 10,000 streams with a group each (the default cap exports 1,000): printed,
// not asserted beyond a generous bound (the machine is shared).
TEST_F(MetricsTest, ScrapeTimeUnderTenThousandStreams) {
  for (int i = 0; i < 10000; ++i) {
    std::string k = "stream:" + std::to_string(i);
    h.Run2({"XADD", k, "1-1", "f", "v"});
    if (i % 3 == 0) h.Run2({"XADD", k, "2-1", "f", "v"});
    h.Run2({"XGROUP", "CREATE", k, "g", "0"});
  }
  auto t0 = std::chrono::steady_clock::now();
  std::string t = Text();
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ metrics ] 10000 streams, 1000 exported: scrape %.2f ms, %zu bytes\n", ms,
              t.size());
  EXPECT_EQ(Samples(t, "redis_stream_length").size(), 1000u);
  EXPECT_EQ(Samples(t, "streamd_streams_matching"),
            std::vector<std::string>{"streamd_streams_matching 10000"});
  EXPECT_LT(ms, 1000.0);
}

}  // namespace
}  // namespace streamd::test
