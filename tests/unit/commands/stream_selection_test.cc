// Which streams GET /metrics exports when the keyspace is too large to walk at each scrape: the
// background pass, what a scrape exports before and after it finishes, and that a scrape then
// costs lookups of the chosen keys only (measured under a million streams, printed).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "command_harness.h"
#include "sanitized_build.h"
#include "streamd/commands/server/metrics.h"
#include "streamd/commands/server/stream_selection.h"
#include "streamd/engine/stream.h"

namespace streamd::test {
namespace {

using cmd::StreamSelection;

// The value of the unlabelled sample `name` in `text`, or "" when it is absent.
std::string Value(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + " ", 0) == 0) return line.substr(name.size() + 1);
  }
  return "";
}

// The stream labels of redis_stream_length's samples, in order.
std::vector<std::string> Exported(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  const std::string prefix = "redis_stream_length{db=\"db0\",stream=\"";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    out.push_back(line.substr(prefix.size(), line.find('"', prefix.size()) - prefix.size()));
  }
  return out;
}

class StreamSelectionTest : public ::testing::Test {
 protected:
  CommandHarness h;
  // Walks at most 10 keys whole: anything larger goes through the background pass.
  StreamSelection sel{10};
  std::string Scrape() { return cmd::metrics_text(h.server(), &sel); }
  void AddStream(const std::string& key, int entries) {
    for (int i = 1; i <= entries; ++i) h.Run2({"XADD", key, std::to_string(i) + "-1", "f", "v"});
  }
  void FinishPass() {
    uint64_t before = sel.passes_finished();
    for (int i = 0; i < 1000 && sel.passes_finished() == before; ++i) sel.step(h.server(), 3);
    ASSERT_GT(sel.passes_finished(), before);
  }
};

TEST_F(StreamSelectionTest, SmallKeyspaceIsWalkedAtEachScrape) {
  AddStream("a", 1);
  AddStream("b", 2);
  std::string t = Scrape();
  EXPECT_EQ(Exported(t), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(Value(t, "streamd_stream_selection_age_seconds"), "0");
  EXPECT_FALSE(sel.pass_running());
}

TEST_F(StreamSelectionTest, LargeKeyspaceUsesTheFinishedPass) {
  ASSERT_FALSE(h.config().set("metrics-max-streams", "3").has_value());
  for (int i = 0; i < 20; ++i) h.Run2({"SET", "str" + std::to_string(i), "x"});
  for (int i = 0; i < 8; ++i) AddStream("s" + std::to_string(i), i + 1);

  // The first scrape starts a pass and exports what it has seen so far: nothing yet.
  std::string t = Scrape();
  EXPECT_TRUE(sel.pass_running());
  EXPECT_TRUE(Exported(t).empty());
  EXPECT_EQ(Value(t, "streamd_streams_exported"), "0");

  // A few keys per step, as the timer would.
  FinishPass();
  h.Advance(1500);
  t = Scrape();
  EXPECT_EQ(Exported(t), (std::vector<std::string>{"s7", "s6", "s5"}));
  EXPECT_EQ(Value(t, "streamd_streams_matching"), "8");
  EXPECT_EQ(Value(t, "streamd_stream_selection_age_seconds"), "1.5");

  // Between passes the choice is read fresh: a deleted stream disappears, lengths (and the
  // order) are today's, a new stream waits for the next pass.
  h.Run2({"DEL", "s7"});
  AddStream("s5", 20);  // XADD 1-1..20-1 onto s5: its IDs up to 6-1 exist, the rest are new
  AddStream("new", 50);
  t = Scrape();
  EXPECT_EQ(Exported(t), (std::vector<std::string>{"s5", "s6"}));

  FinishPass();
  t = Scrape();
  EXPECT_EQ(Exported(t), (std::vector<std::string>{"new", "s5", "s6"}));
  EXPECT_EQ(Value(t, "streamd_streams_matching"), "8");
}

TEST_F(StreamSelectionTest, ChangedGlobsFilterTheOldChoiceUntilTheNewPass) {
  for (int i = 0; i < 12; ++i) AddStream((i % 2 ? "odd" : "even") + std::to_string(i), i + 1);
  Scrape();
  FinishPass();
  EXPECT_EQ(Exported(Scrape()).size(), 12u);

  ASSERT_FALSE(h.config().set("metrics-streams", "odd*").has_value());
  std::string t = Scrape();
  for (const auto& k : Exported(t)) EXPECT_EQ(k.rfind("odd", 0), 0u) << k;
  EXPECT_EQ(Exported(t).size(), 6u);
  FinishPass();
  t = Scrape();
  EXPECT_EQ(Exported(t).size(), 6u);
  EXPECT_EQ(Value(t, "streamd_streams_matching"), "6");
}

TEST_F(StreamSelectionTest, PassesStopWithoutScrapes) {
  for (int i = 0; i < 12; ++i) AddStream("s" + std::to_string(i), 1);
  Scrape();
  EXPECT_TRUE(sel.pass_running());
  h.Advance(StreamSelection::kActiveMs + 1);
  sel.step(h.server(), 3);
  EXPECT_FALSE(sel.pass_running());
  // The next scrape starts one again.
  Scrape();
  EXPECT_TRUE(sel.pass_running());
}

TEST_F(StreamSelectionTest, ExpiredStreamsAreNotExported) {
  for (int i = 0; i < 12; ++i) AddStream("s" + std::to_string(i), i + 1);
  h.Run2({"PEXPIRE", "s11", "100"});
  Scrape();
  FinishPass();
  EXPECT_EQ(Exported(Scrape()).front(), "s11");
  h.Advance(200);
  EXPECT_EQ(Exported(Scrape()).front(), "s10");
}

// A million streams (one entry each) and the default cap of 1,000: the scrape's own cost, and a
// background step's, printed. Not asserted beyond generous bounds: the machine is shared. The
// sanitizer build, where the test took 104 s (mostly creating the streams), uses 100,000: a hundred
// times the cap and a pass of many steps, the same code paths.
TEST(StreamSelectionScale, MillionStreams) {
  const int streams = sanitized_build() ? 100000 : 1000000;
  CommandHarness h;
  StreamSelection sel;  // the default limit: a million keys is far above it
  engine::Database& db = h.server().keyspace().db(0);
  for (int i = 0; i < streams; ++i) {
    h.Run2({"XADD", "stream:" + std::to_string(i), std::to_string(1 + i % 5000) + "-1", "f", "v"});
  }
  ASSERT_EQ(db.size(), static_cast<std::size_t>(streams));
  auto ms_since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  auto t0 = std::chrono::steady_clock::now();
  std::string first = cmd::metrics_text(h.server(), &sel);
  double first_ms = ms_since(t0);
  double worst_step = 0;
  int steps = 0;
  auto p0 = std::chrono::steady_clock::now();
  while (sel.passes_finished() == 0) {
    auto s0 = std::chrono::steady_clock::now();
    sel.step(h.server());
    worst_step = std::max(worst_step, ms_since(s0));
    ++steps;
  }
  double pass_ms = ms_since(p0);
  t0 = std::chrono::steady_clock::now();
  std::string t = cmd::metrics_text(h.server(), &sel);
  double scrape_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  std::string whole = cmd::metrics_text(h.server());
  double whole_ms = ms_since(t0);
  std::printf(
      "[ selection ] %d streams: first scrape %.2f ms; pass of %d steps, %.2f ms a step on "
      "average, worst %.2f ms; scrape after it %.2f ms (%zu bytes); a whole walk at scrape %.2f "
      "ms\n",
      streams, first_ms, steps, pass_ms / steps, worst_step, scrape_ms, t.size(), whole_ms);
  EXPECT_EQ(Value(t, "streamd_streams_exported"), "1000");
  EXPECT_EQ(Value(t, "streamd_streams_matching"), std::to_string(streams));
  // The same streams, with the same samples, as the whole walk exports.
  auto streams_part = [](const std::string& s) {
    return s.substr(s.find("# HELP redis_stream_length"));
  };
  EXPECT_EQ(Exported(t).size(), 1000u);
  EXPECT_TRUE(streams_part(t) == streams_part(whole));
  EXPECT_LT(scrape_ms, 1000.0);
}

}  // namespace
}  // namespace streamd::test
