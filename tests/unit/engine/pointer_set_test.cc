// PointerSet: random inserts and erases checked against std::set, the cursor's walk and the
// random pick's reach.
#include "streamd/engine/pointer_set.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace streamd::engine {
namespace {

// Every resize at once (a threshold above these sizes), from the default threshold on, and every
// resize incremental (from 16 slots on): the members, contains and the random pick stay right
// mid-resize.
TEST(PointerSet, MatchesAReferenceSetThroughGrowthAndShrinking) {
  for (std::size_t incremental_from :
       {std::size_t{1} << 20, PointerSet<int>::kIncrementalSlots, std::size_t{16}}) {
    SCOPED_TRACE(incremental_from);
    std::vector<int> objects(5000);
    PointerSet<int> set;
    set.set_incremental_from(incremental_from);
    std::set<int*> ref;
    std::mt19937_64 rng(7);
    int migrating_seen = 0;
    // Grow to thousands, shrink to a handful, grow again: every resize and the backward shift of
    // erase are exercised, with the lookups checked after each phase.
    for (int phase = 0; phase < 3; ++phase) {
      const std::size_t target = phase == 1 ? 10 : 4000;
      for (int op = 0; op < 20000; ++op) {
        int* p = &objects[rng() % objects.size()];
        bool grow = ref.size() < target ? rng() % 4 != 0 : rng() % 4 == 0;
        if (grow && !ref.count(p)) {
          set.insert(p);
          ref.insert(p);
        } else if (!grow) {
          EXPECT_EQ(set.erase(p), ref.erase(p) == 1);
        }
        migrating_seen += set.migrating();
        if (op % 1000 == 0 && !ref.empty()) {
          for (int i = 0; i < 10; ++i) ASSERT_TRUE(ref.count(set.random(rng)));
        }
      }
      ASSERT_EQ(set.size(), ref.size());
      for (int& o : objects) ASSERT_EQ(set.contains(&o), ref.count(&o) == 1);
    }
    EXPECT_EQ(migrating_seen > 0, incremental_from < (std::size_t{1} << 20));
    for (int* p : std::set<int*>(ref)) EXPECT_TRUE(set.erase(p));
    EXPECT_TRUE(set.empty());
    EXPECT_FALSE(set.erase(&objects[0]));
  }
}

TEST(PointerSet, ScanVisitsEveryMemberOnceInAPassWithoutChanges) {
  std::vector<int> objects(270);
  PointerSet<int> set;
  set.set_incremental_from(16);
  for (int& o : objects) set.insert(&o);
  // The resize to 1,024 slots began at the 257th insert and moves 16 old slots per insert: it is
  // under way, so the walk crosses both tables.
  EXPECT_TRUE(set.migrating());
  std::multiset<int*> seen;
  std::size_t cursor = 0;
  int calls = 0;
  do {
    std::size_t before = seen.size();
    cursor = set.scan(cursor, 7, [&](int* p) { seen.insert(p); });
    EXPECT_LE(seen.size() - before, 7u);
    ++calls;
  } while (cursor != 0);
  EXPECT_EQ(seen.size(), objects.size());
  for (int& o : objects) EXPECT_EQ(seen.count(&o), 1u);
  EXPECT_GE(calls, 270 / 7);
  PointerSet<int> none;
  EXPECT_EQ(none.scan(0, 5, [&](int*) { ADD_FAILURE(); }), 0u);
}

TEST(PointerSet, RandomReachesEveryMember) {
  std::vector<int> objects(50);
  PointerSet<int> set;
  std::mt19937_64 rng(3);
  EXPECT_EQ(set.random(rng), nullptr);
  for (int& o : objects) set.insert(&o);
  std::set<int*> seen;
  for (int i = 0; i < 5000; ++i) seen.insert(set.random(rng));
  EXPECT_EQ(seen.size(), objects.size());
  PointerSet<int> other;
  other.insert(&objects[0]);
  other.swap(set);
  EXPECT_EQ(set.size(), 1u);
  EXPECT_EQ(set.random(rng), &objects[0]);
  EXPECT_EQ(other.size(), 50u);
  other.clear();
  EXPECT_EQ(other.random(rng), nullptr);
}

}  // namespace
}  // namespace streamd::engine
