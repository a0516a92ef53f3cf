// Workloads for counting the instructions of the PEL commands (issue 16 item 1: XACK, XPENDING,
// XAUTOCLAIM and XREADGROUP CLAIM must not get slower when the PEL gets smaller). They are
// DISABLED_ (they are measurements, not checks) and run under callgrind by bench/pel_cost.sh,
// which counts only what happens inside Measured(): the setup (XADD, the reads that fill the
// PEL) is not counted. Each one checks its replies, so a broken command cannot look cheap.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "command_harness.h"

namespace streamd::test {
namespace {

constexpr int kEntries = 100000;

std::string id_of(int i) {
  return std::to_string(i + 1) + "-1";
}

// A stream of kEntries entries 1-1 .. kEntries-1, all read into group g by `consumers`
// consumers in turns of COUNT `batch`.
void fill(CommandHarness& h, int consumers, int batch) {
  for (int i = 0; i < kEntries; ++i) h.Run({"XADD", "s", id_of(i), "f", "v"});
  h.Run({"XGROUP", "CREATE", "s", "g", "0"});
  for (int turn = 0; turn * batch < kEntries; ++turn) {
    h.Run({"XREADGROUP", "GROUP", "g", "c" + std::to_string(turn % consumers), "COUNT",
           std::to_string(batch), "STREAMS", "s", ">"});
  }
  h.Advance(1000);
}

// The measured part: callgrind --toggle-collect names this function.
__attribute__((noinline)) std::size_t Measured(CommandHarness& h,
                                               const std::vector<std::vector<std::string>>& cmds) {
  std::size_t bytes = 0;
  for (const auto& c : cmds) bytes += h.Run(c).size();
  return bytes;
}

TEST(DISABLED_PelCost, Xack) {
  CommandHarness h;
  fill(h, 1, 1000);
  std::vector<int> order(kEntries);
  for (int i = 0; i < kEntries; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < kEntries; i += 10) {
    std::vector<std::string> c{"XACK", "s", "g"};
    for (int k = i; k < i + 10; ++k) c.push_back(id_of(order[k]));
    cmds.push_back(c);
  }
  Measured(h, cmds);
  EXPECT_EQ(h.Run({"XLEN", "s"}), ":100000\r\n");
  EXPECT_NE(h.Run({"XPENDING", "s", "g"}).find(":0\r\n"), std::string::npos);
}

TEST(DISABLED_PelCost, XpendingRange) {
  CommandHarness h;
  fill(h, 1, 1000);
  std::mt19937 rng(7);
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < 10000; ++i) {
    cmds.push_back({"XPENDING", "s", "g", id_of(static_cast<int>(rng() % kEntries)), "+", "100"});
  }
  EXPECT_GT(Measured(h, cmds), 10000u * 100u * 20u);
}

TEST(DISABLED_PelCost, XpendingConsumer) {
  CommandHarness h;
  fill(h, 100, 10);
  std::mt19937 rng(7);
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < 5000; ++i) {
    cmds.push_back({"XPENDING", "s", "g", id_of(static_cast<int>(rng() % (kEntries / 2))), "+",
                    "100", "c" + std::to_string(rng() % 100)});
  }
  EXPECT_GT(Measured(h, cmds), 5000u * 100u * 20u);
}

TEST(DISABLED_PelCost, XautoclaimWalk) {
  CommandHarness h;
  fill(h, 1, 1000);
  std::vector<std::vector<std::string>> cmds;
  // 1000 calls of COUNT 100 walk the whole PEL once (the cursor is the next start).
  for (int i = 0; i < kEntries; i += 100) {
    cmds.push_back({"XAUTOCLAIM", "s", "g", "w", "100", id_of(i), "COUNT", "100", "JUSTID"});
  }
  Measured(h, cmds);
  EXPECT_NE(h.Run({"XPENDING", "s", "g"}).find("w"), std::string::npos);
}

TEST(DISABLED_PelCost, XreadgroupClaim) {
  CommandHarness h;
  fill(h, 10, 100);
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < 1000; ++i) {
    cmds.push_back({"XREADGROUP", "GROUP", "g", "w" + std::to_string(i % 2), "COUNT", "100",
                    "CLAIM", "500", "STREAMS", "s", ">"});
  }
  // Every call claims the 100 idlest (the ones claimed before are now idle for 0 ms: the next
  // call takes the next 100 oldest), so 1000 calls go once through the PEL.
  EXPECT_GT(Measured(h, cmds), 1000u * 100u * 20u);
}

TEST(DISABLED_PelCost, XreadgroupNewAndAck) {
  CommandHarness h;
  for (int i = 0; i < kEntries; ++i) h.Run({"XADD", "s", id_of(i), "f", "v"});
  h.Run({"XGROUP", "CREATE", "s", "g", "0"});
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < kEntries; i += 10) {
    cmds.push_back({"XREADGROUP", "GROUP", "g", "c" + std::to_string((i / 10) % 50), "COUNT", "10",
                    "STREAMS", "s", ">"});
    if (i >= 5000) {  // a consumer acks what it read 500 reads ago
      std::vector<std::string> c{"XACK", "s", "g"};
      for (int k = i - 5000; k < i - 4990; ++k) c.push_back(id_of(k));
      cmds.push_back(c);
    }
  }
  Measured(h, cmds);
  EXPECT_NE(h.Run({"XPENDING", "s", "g"}).find(":5000\r\n"), std::string::npos);
}

TEST(DISABLED_PelCost, Xclaim10) {
  CommandHarness h;
  fill(h, 1, 1000);
  std::mt19937 rng(7);
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < 10000; ++i) {
    std::vector<std::string> c{"XCLAIM", "s", "g", "w" + std::to_string(i % 10), "0"};
    for (int k = 0; k < 10; ++k) c.push_back(id_of(static_cast<int>(rng() % kEntries)));
    c.push_back("JUSTID");
    cmds.push_back(c);
  }
  Measured(h, cmds);
  EXPECT_NE(h.Run({"XPENDING", "s", "g"}).find(":100000\r\n"), std::string::npos);
}

}  // namespace
}  // namespace streamd::test
