// maxmemory's choosing half (eviction.h), LFU counters (access_tracking.h), the sampler it
// reads (Database::sample), Database::evict and the used-memory counter (used_memory.h).
// Manual clock throughout.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "streamd/engine/access_tracking.h"
#include "streamd/engine/clock.h"
#include "streamd/engine/eviction.h"
#include "streamd/engine/keyspace.h"
#include "streamd/engine/stream_node.h"
#include "streamd/engine/used_memory.h"

namespace streamd::engine {
namespace {

struct Recorder : KeyObserver {
  void on_key_event(int db, std::string_view key, KeyEvent ev) override {
    if (ev == KeyEvent::kEvicted) evicted.emplace_back(std::to_string(db) + ":" + std::string(key));
  }
  void on_db_flushed(int) override {}
  std::vector<std::string> evicted;
};

class EvictionTest : public ::testing::Test {
 protected:
  EvictionTest() { ks.set_observer(&rec); }
  void Put(int db, const std::string& key) { ks.db(db).set(key, Value(std::string("v"))); }
  // Picks and evicts `n` keys with `policy`; returns them as "db:key".
  std::vector<std::string> Evict(EvictionPolicy policy, int n, std::size_t samples = 64) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) {
      EvictionVictim v;
      if (!picker.pick(ks, policy, samples, v)) break;
      EXPECT_TRUE(ks.db(v.db).evict(v.key));
      out.push_back(std::to_string(v.db) + ":" + v.key);
    }
    return out;
  }

  ManualClock clock;
  Keyspace ks{4, clock};
  Recorder rec;
  EvictionPicker picker;
};

TEST_F(EvictionTest, NoEvictionNeverPicks) {
  Put(0, "a");
  EvictionVictim v;
  EXPECT_FALSE(picker.pick(ks, EvictionPolicy::kNoEviction, 5, v));
}

TEST_F(EvictionTest, EmptyKeyspaceHasNothingToPick) {
  for (auto p : {EvictionPolicy::kAllkeysLru, EvictionPolicy::kAllkeysLfu,
                 EvictionPolicy::kAllkeysRandom, EvictionPolicy::kVolatileTtl}) {
    EvictionVictim v;
    EXPECT_FALSE(picker.pick(ks, p, 5, v));
  }
}

TEST_F(EvictionTest, LruEvictsTheLeastRecentlyUsedAcrossDatabases) {
  // Sampling covers every key here (samples >= keys), so the order is exact.
  for (int i = 0; i < 6; ++i) {
    Put(i % 2 == 0 ? 0 : 3, "k" + std::to_string(i));
    clock.advance(1000);
  }
  ks.db(0).find("k0");  // touched: now the most recent
  auto order = Evict(EvictionPolicy::kAllkeysLru, 6);
  EXPECT_EQ(order, (std::vector<std::string>{"3:k1", "0:k2", "3:k3", "0:k4", "3:k5", "0:k0"}));
  EXPECT_EQ(rec.evicted, order);
  EXPECT_EQ(ks.db(0).size() + ks.db(3).size(), 0u);
}

TEST_F(EvictionTest, VolatilePoliciesOnlyTakeKeysWithATtl) {
  for (int i = 0; i < 20; ++i) Put(0, "p" + std::to_string(i));
  Database& d = ks.db(0);
  d.set_expire("t1", d.set("t1", Value(std::string("v"))), clock.now_ms() + 50000);
  d.set_expire("t2", d.set("t2", Value(std::string("v"))), clock.now_ms() + 10000);
  for (auto p : {EvictionPolicy::kVolatileLru, EvictionPolicy::kVolatileLfu,
                 EvictionPolicy::kVolatileRandom, EvictionPolicy::kVolatileTtl}) {
    SCOPED_TRACE(static_cast<int>(p));
    auto got = Evict(p, 5);
    std::set<std::string> s(got.begin(), got.end());
    EXPECT_EQ(s, (std::set<std::string>{"0:t1", "0:t2"}));
    EXPECT_EQ(d.expires(), 0u);
    EXPECT_EQ(d.size(), 20u);
    d.set_expire("t1", d.set("t1", Value(std::string("v"))), clock.now_ms() + 50000);
    d.set_expire("t2", d.set("t2", Value(std::string("v"))), clock.now_ms() + 10000);
  }
}

TEST_F(EvictionTest, VolatileTtlEvictsTheSoonestToExpireFirst) {
  Database& d = ks.db(1);
  for (int i = 0; i < 8; ++i) {
    d.set_expire("t" + std::to_string(i), d.set("t" + std::to_string(i), Value(std::string("v"))),
                 clock.now_ms() + 1000 * (8 - i));
  }
  auto order = Evict(EvictionPolicy::kVolatileTtl, 8);
  EXPECT_EQ(order, (std::vector<std::string>{"1:t7", "1:t6", "1:t5", "1:t4", "1:t3", "1:t2", "1:t1",
                                             "1:t0"}));
}

TEST_F(EvictionTest, VolatileSamplingFindsARareKeyWithATtl) {
  Database& d = ks.db(0);
  for (int i = 0; i < 5000; ++i) Put(0, "p" + std::to_string(i));
  d.set_expire("only", d.set("only", Value(std::string("v"))), clock.now_ms() + 1000);
  EXPECT_EQ(Evict(EvictionPolicy::kVolatileTtl, 1, 5), (std::vector<std::string>{"0:only"}));
}

TEST_F(EvictionTest, AGhostCandidateIsSkipped) {
  for (int i = 0; i < 4; ++i) {
    Put(0, "k" + std::to_string(i));
    clock.advance(1000);
  }
  EvictionVictim v;
  ASSERT_TRUE(picker.pick(ks, EvictionPolicy::kAllkeysLru, 64, v));
  EXPECT_EQ(v.key, "k0");
  // The rest stay pooled; delete the next best behind the picker's back.
  ks.db(0).erase("k1");
  ASSERT_TRUE(picker.pick(ks, EvictionPolicy::kAllkeysLru, 64, v));
  EXPECT_EQ(v.key, "k0");  // not evicted yet: still the idlest
  ks.db(0).evict("k0");
  ASSERT_TRUE(picker.pick(ks, EvictionPolicy::kAllkeysLru, 64, v));
  EXPECT_EQ(v.key, "k2");
}

TEST_F(EvictionTest, RandomPoliciesVisitEveryDatabaseInTurn) {
  for (int db = 0; db < 4; ++db) Put(db, "k");
  auto got = Evict(EvictionPolicy::kAllkeysRandom, 4);
  std::set<std::string> s(got.begin(), got.end());
  EXPECT_EQ(s, (std::set<std::string>{"0:k", "1:k", "2:k", "3:k"}));
}

TEST_F(EvictionTest, LfuEvictsTheLeastFrequentlyUsed) {
  ks.set_access_tracking(AccessTracking::kLfu, LfuParams{});
  for (int i = 0; i < 4; ++i) Put(0, "k" + std::to_string(i));
  // k3 read often, k2 less, k1 once or so, k0 never: the counter is logarithmic and random,
  // but 2000 reads take it well past a handful.
  for (int i = 0; i < 2000; ++i) ks.db(0).find("k3");
  for (int i = 0; i < 200; ++i) ks.db(0).find("k2");
  const LfuParams p;
  EXPECT_GT(lfu_counter(ks.db(0).peek("k3")->access_ms, clock.now_ms(), p),
            lfu_counter(ks.db(0).peek("k2")->access_ms, clock.now_ms(), p));
  auto order = Evict(EvictionPolicy::kAllkeysLfu, 4);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[2], "0:k2");
  EXPECT_EQ(order[3], "0:k3");
}

TEST(LfuCounter, StartsAtFiveGrowsLogarithmicallyAndDecaysPerPeriod) {
  std::mt19937_64 rng(1);
  LfuParams p;  // log factor 10, decay 1 minute
  int64_t now = 1700000000000;
  int64_t s = lfu_initial(now);
  EXPECT_EQ(lfu_counter(s, now, p), kLfuInitialCounter);
  for (int i = 0; i < 100; ++i) s = lfu_after_access(s, now, p, rng);
  uint8_t after100 = lfu_counter(s, now, p);
  // Redis's table for factor 10: about 10 after 100 hits, about 18 after 1000.
  EXPECT_GE(after100, 7);
  EXPECT_LE(after100, 14);
  for (int i = 0; i < 900; ++i) s = lfu_after_access(s, now, p, rng);
  uint8_t after1000 = lfu_counter(s, now, p);
  EXPECT_GE(after1000, 14);
  EXPECT_LE(after1000, 24);
  // Three minutes without access: three less. Reading does not change the state.
  EXPECT_EQ(lfu_counter(s, now + 3 * 60000, p), after1000 - 3);
  EXPECT_EQ(lfu_counter(s, now + 3 * 60000, p), after1000 - 3);
  // Decay never goes below zero; decay time 0 never decays.
  EXPECT_EQ(lfu_counter(s, now + 1000LL * 60000, p), 0);
  EXPECT_EQ(lfu_counter(s, now + 1000LL * 60000, LfuParams{10, 0}), after1000);
  // RESTORE ... FREQ
  EXPECT_EQ(lfu_counter(lfu_with_counter(200, now), now, p), 200);
}

TEST(LfuCounter, SaturatesAt255) {
  std::mt19937_64 rng(2);
  LfuParams p{0, 1};  // log factor 0: every access counts
  int64_t now = 1700000000000;
  int64_t s = lfu_initial(now);
  for (int i = 0; i < 400; ++i) s = lfu_after_access(s, now, p, rng);
  EXPECT_EQ(lfu_counter(s, now, p), 255);
}

TEST(DatabaseSample, VisitsDistinctKeysAndAtMostCount) {
  ManualClock clock;
  Database d(0, clock);
  for (int i = 0; i < 100; ++i) d.set("k" + std::to_string(i), Value(std::string("v")));
  for (std::size_t count : {1u, 5u, 100u, 500u}) {
    std::set<std::string> seen;
    std::size_t visits = 0;
    d.sample(count, false, [&](std::string_view k, const Entry&) {
      seen.emplace(k);
      ++visits;
    });
    EXPECT_EQ(visits, std::min<std::size_t>(count, 100));
    EXPECT_EQ(seen.size(), visits);
  }
}

TEST(DatabaseEvict, DropsTheTtlCountAndTellsObservers) {
  ManualClock clock;
  Database d(2, clock);
  Recorder rec;
  d.set_observer(&rec);
  d.set_expire("t", d.set("t", Value(std::string("v"))), clock.now_ms() + 1000);
  EXPECT_EQ(d.expires(), 1u);
  EXPECT_TRUE(d.evict("t"));
  EXPECT_FALSE(d.evict("t"));
  EXPECT_EQ(d.expires(), 0u);
  EXPECT_EQ(rec.evicted, (std::vector<std::string>{"2:t"}));
}

TEST(UsedMemory, CountsWhatOperatorNewHoldsAndGivesItBack) {
  std::size_t before = used_memory();
  auto* block = new char[1 << 20];
  block[0] = 1;
  std::size_t during = used_memory();
  delete[] block;
  std::size_t after = used_memory();
  EXPECT_GE(during - before, std::size_t{1} << 20);
  EXPECT_EQ(after, before);
}

TEST(UsedMemory, CountsStreamNodesWhichGrowWithRealloc) {
  std::size_t before = used_memory();
  {
    // Distinct values: one equal to the node's first entry's takes a byte.
    auto value = [](uint64_t i) { return std::to_string(i) + std::string(100, 'v'); };
    std::string v1 = value(1);
    FieldValue first[] = {{"f", v1}};
    StreamNode node(StreamId{1, 0}, first);
    for (uint64_t i = 2; i <= 100; ++i) {
      std::string v = value(i);
      FieldValue fv[] = {{"f", v}};
      node.append(StreamId{i, 0}, fv);
    }
    EXPECT_GE(used_memory() - before, node.bytes());
    EXPECT_GE(node.bytes(), 100u * 100u);
    node.shrink_to_fit();
    EXPECT_GE(used_memory() - before, node.bytes());
    StreamNode copy(node);
    EXPECT_GE(used_memory() - before, 2 * node.bytes());
  }
  EXPECT_EQ(used_memory(), before);
}

}  // namespace
}  // namespace streamd::engine
