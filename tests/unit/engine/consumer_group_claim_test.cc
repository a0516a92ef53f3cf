// XCLAIM and XAUTOCLAIM on the engine. The sequences in the comments were run against
// redis-server 7.0.15 and the expectations are its answers.
#include <gtest/gtest.h>

#include <vector>

#include "engine/group_test_util.h"
#include "streamd/engine/consumer_group.h"

namespace streamd::engine {
namespace {

using testing::GroupHarness;
using testing::ids_of;
using testing::kT0;

// 1-1, 2-1, 3-1 (and more when asked) read by "a" at kT0, clock at kT0 + 1000.
struct ConsumerGroupClaim : ::testing::Test {
  GroupHarness h;
  ConsumerGroup* g = nullptr;

  void SetUp() override { setup(3); }
  void setup(uint64_t n) {
    for (uint64_t i = 1; i <= n; ++i) h.add(i, 1);
    g = &h.create("g", {0, 0});
    h.read("g", "a", 0);
    h.now += 1000;
  }
  ClaimResult claim(std::string_view consumer, std::vector<StreamId> ids,
                    const ClaimOptions& opts = {}) {
    ClaimResult r = g->claim(h.s, consumer, ids, opts, h.now);
    EXPECT_TRUE(g->check_invariants());
    return r;
  }
  AutoClaimResult autoclaim(std::string_view consumer, int64_t min_idle, StreamId start,
                            std::size_t count, bool justid = false) {
    AutoClaimResult r = g->autoclaim(h.s, consumer, min_idle, start, count, justid, h.now);
    EXPECT_TRUE(g->check_invariants());
    return r;
  }
  PendingEntry rec(StreamId id) {
    std::optional<PendingEntry> e = g->pel().find(id);
    EXPECT_TRUE(e.has_value()) << id.to_string();
    return e.value_or(PendingEntry{});
  }
};

// XCLAIM b 0 1-1 TIME <future>; 2-1 TIME -5; 3-1 IDLE <huge> → idle 0 for all (now), count 2.
TEST_F(ConsumerGroupClaim, DeliveryTimeOutOfRangeBecomesNow) {
  ClaimOptions future;
  future.delivery_time_ms = h.now + 99999999;
  ClaimOptions negative;
  negative.delivery_time_ms = -5;
  ClaimOptions huge_idle;
  huge_idle.delivery_time_ms = ConsumerGroup::delivery_time_from_idle(h.now, 99999999999999999);
  ClaimOptions zero;
  zero.delivery_time_ms = 0;
  EXPECT_EQ(claim("b", {{1, 1}}, future).claimed.size(), 1u);
  EXPECT_EQ(claim("b", {{2, 1}}, negative).claimed.size(), 1u);
  EXPECT_EQ(claim("b", {{3, 1}}, huge_idle).claimed.size(), 1u);
  for (uint64_t i = 1; i <= 3; ++i) {
    EXPECT_EQ(rec({i, 1}).delivery_time_ms, h.now);
    EXPECT_EQ(rec({i, 1}).delivery_count, 2u);
    EXPECT_EQ(rec({i, 1}).owner->name(), "b");
  }
  // TIME 0 is kept (idle = now).
  claim("b", {{3, 1}}, zero);
  EXPECT_EQ(rec({3, 1}).delivery_time_ms, 0);
  // IDLE 250 → now - 250.
  ClaimOptions idle;
  idle.delivery_time_ms = ConsumerGroup::delivery_time_from_idle(h.now, 250);
  claim("b", {{2, 1}}, idle);
  EXPECT_EQ(rec({2, 1}).delivery_time_ms, h.now - 250);
  // IDLE with a value that wraps around (Redis's 64-bit arithmetic) also ends up now.
  idle.delivery_time_ms = ConsumerGroup::delivery_time_from_idle(h.now, INT64_MIN);
  claim("b", {{2, 1}}, idle);
  EXPECT_EQ(rec({2, 1}).delivery_time_ms, h.now);
}

// XCLAIM c 0 1-1 LASTID 2-0 JUSTID RETRYCOUNT 7 → count 7; XCLAIM b 0 3-1 3-1 TIME 0 → claimed
// twice, count +2; RETRYCOUNT -5 is ignored by Redis (the caller passes nullopt).
TEST_F(ConsumerGroupClaim, CountsJustIdAndDuplicates) {
  ClaimOptions o;
  o.justid = true;
  o.retry_count = 7;
  o.last_id = StreamId{2, 0};
  ClaimResult r = claim("c", {{1, 1}}, o);
  ASSERT_EQ(r.claimed.size(), 1u);
  EXPECT_TRUE(r.claimed[0].fields.empty());
  EXPECT_EQ(r.claimed[0].delivery_count, 7u);
  EXPECT_TRUE(r.consumer_created);
  EXPECT_FALSE(r.last_id_changed) << "2-0 is below last_delivered_id";
  EXPECT_EQ(g->last_delivered_id(), (StreamId{3, 1}));

  ClaimOptions justid;
  justid.justid = true;
  claim("d", {{1, 1}}, justid);
  EXPECT_EQ(rec({1, 1}).delivery_count, 7u) << "JUSTID does not count";

  r = claim("b", {{3, 1}, {3, 1}});
  ASSERT_EQ(r.claimed.size(), 2u);
  EXPECT_EQ(r.claimed[0].fields.size(), 1u);
  EXPECT_EQ(r.claimed[0].delivery_count, 2u);
  EXPECT_EQ(r.claimed[1].delivery_count, 3u);
  EXPECT_EQ(rec({3, 1}).delivery_count, 3u);
  EXPECT_EQ(h.consumer("g", "a").pending_count(), 1u);
}

// XCLAIM nobody 100000 1-1 → [] (not idle enough), yet "nobody" exists from then on, never
// active (Redis 7.2+; 7.0.15 created no consumer).
TEST_F(ConsumerGroupClaim, MinIdleAndEagerConsumer) {
  ClaimOptions o;
  o.min_idle_ms = 100000;
  ClaimResult r = claim("nobody", {{1, 1}}, o);
  EXPECT_TRUE(r.claimed.empty());
  EXPECT_TRUE(r.consumer_created);
  Consumer* nobody = g->find_consumer("nobody");
  ASSERT_NE(nobody, nullptr);
  EXPECT_EQ(nobody->seen_time_ms(), h.now);
  EXPECT_EQ(nobody->active_time_ms(), -1);
  o.min_idle_ms = 1000;  // exactly the idle time: claimable
  r = claim("nobody", {{1, 1}, {9, 9}}, o);
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{1, 1}}));
  EXPECT_FALSE(r.consumer_created);
  EXPECT_EQ(g->find_consumer("nobody"), nobody);
  EXPECT_EQ(nobody->active_time_ms(), h.now);
  // An existing consumer is "seen" even when nothing is claimed.
  h.now += 50;
  o.min_idle_ms = 100000;
  claim("nobody", {{2, 1}}, o);
  EXPECT_EQ(nobody->seen_time_ms(), h.now);
  EXPECT_EQ(nobody->active_time_ms(), h.now - 50);
  // A negative min-idle is 0.
  o.min_idle_ms = -5;
  EXPECT_EQ(claim("nobody", {{2, 1}}, o).claimed.size(), 1u);
}

// XCLAIM b 0 9-9 FORCE → []; XCLAIM b 0 3-1 FORCE (not pending) → count 2;
// XCLAIM b 0 4-1 FORCE JUSTID → count 1; FORCE ignores min-idle for the new record.
TEST_F(ConsumerGroupClaim, Force) {
  h.add(4, 1);
  h.add(5, 1);
  g->ack(std::vector<StreamId>{{3, 1}});
  ClaimOptions force;
  force.force = true;
  force.min_idle_ms = 100000;
  ClaimResult r = claim("q", {{9, 9}}, force);
  EXPECT_TRUE(r.claimed.empty());
  EXPECT_TRUE(r.consumer_created) << "the attempt creates the consumer (Redis 7.2+)";
  ASSERT_NE(g->find_consumer("q"), nullptr);
  EXPECT_EQ(g->find_consumer("q")->pending_count(), 0u);
  r = claim("b", {{3, 1}}, force);
  ASSERT_EQ(r.claimed.size(), 1u);
  EXPECT_EQ(rec({3, 1}).delivery_count, 2u);
  EXPECT_EQ(rec({3, 1}).delivery_time_ms, h.now);
  force.justid = true;
  claim("b", {{4, 1}}, force);
  EXPECT_EQ(rec({4, 1}).delivery_count, 1u);
  // FORCE with RETRYCOUNT and TIME: what the AOF writes for each delivery.
  force.retry_count = 5;
  force.delivery_time_ms = kT0 + 3;
  r = claim("b", {{5, 1}}, force);
  ASSERT_EQ(r.claimed.size(), 1u);
  EXPECT_EQ(rec({5, 1}).delivery_count, 5u);
  EXPECT_EQ(rec({5, 1}).delivery_time_ms, kT0 + 3);
  // FORCE on a pending entry that is not idle enough still respects min-idle.
  force.retry_count.reset();
  force.delivery_time_ms.reset();
  EXPECT_TRUE(claim("c", {{5, 1}}, force).claimed.empty());
  EXPECT_EQ(g->last_delivered_id(), (StreamId{3, 1})) << "FORCE does not move the group";
}

// XDEL 1-1 2-1 (both pending); XCLAIM b 100000 2-1 → [] and 2-1 leaves the PEL;
// XCLAIM d 0 1-1 3-1 JUSTID → [3-1], 1-1 gone too.
TEST_F(ConsumerGroupClaim, DropsDeletedEntries) {
  h.del(1, 1);
  h.del(2, 1);
  ClaimOptions o;
  o.min_idle_ms = 100000;
  ClaimResult r = claim("b", {{2, 1}}, o);
  EXPECT_TRUE(r.claimed.empty());
  EXPECT_EQ(r.deleted, (std::vector<StreamId>{{2, 1}}));
  EXPECT_TRUE(r.consumer_created) << "nothing claimed, b created all the same (7.2+)";
  EXPECT_FALSE(g->pel().find({2, 1}).has_value());
  ClaimOptions justid;
  justid.justid = true;
  r = claim("d", {{1, 1}, {3, 1}}, justid);
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{3, 1}}));
  EXPECT_EQ(r.deleted, (std::vector<StreamId>{{1, 1}}));
  EXPECT_EQ(g->pending_count(), 1u);
  EXPECT_EQ(h.consumer("g", "a").pending_count(), 0u);
}

// XADD 1-1..5-1; XREADGROUP a; XDEL 2-1 3-1;
// XAUTOCLAIM b 0 0 COUNT 1 → [2-1, [1-1], []]
// XAUTOCLAIM b 0 0 COUNT 2 → [3-1, [1-1], [2-1]]
// XAUTOCLAIM b 0 0 COUNT 2 JUSTID → [4-1, [1-1], [3-1]]  (1-1 count stays 3)
// XAUTOCLAIM c 0 4-1 COUNT 1 → [5-1, [4-1], []]; ... 5-1 COUNT 1 → [0-0, [5-1], []];
// ... 6-1 → [0-0, [], []]; XAUTOCLAIM e 100000 0 COUNT 1 → [0-0, [], []], no consumer e.
TEST(ConsumerGroupAutoClaim, CursorDeletedAndJustId) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 5; ++i) h.add(i, 1);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 0);
  h.del(2, 1);
  h.del(3, 1);

  AutoClaimResult r = g.autoclaim(h.s, "b", 0, {0, 0}, 1, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{2, 1}));
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{1, 1}}));
  EXPECT_EQ(r.claimed[0].fields.size(), 1u);
  EXPECT_TRUE(r.deleted.empty());
  EXPECT_TRUE(r.consumer_created);

  r = g.autoclaim(h.s, "b", 0, {0, 0}, 2, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{3, 1}));
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{1, 1}}));
  EXPECT_EQ(r.deleted, (std::vector<StreamId>{{2, 1}}));
  EXPECT_FALSE(r.consumer_created) << "b exists since the first call";

  r = g.autoclaim(h.s, "b", 0, {0, 0}, 2, true, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{4, 1}));
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{1, 1}}));
  EXPECT_TRUE(r.claimed[0].fields.empty());
  EXPECT_EQ(r.deleted, (std::vector<StreamId>{{3, 1}}));
  EXPECT_EQ(g.pel().find({1, 1})->delivery_count, 3u);

  r = g.autoclaim(h.s, "c", 0, {4, 1}, 1, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{5, 1}));
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{4, 1}}));
  r = g.autoclaim(h.s, "c", 0, {5, 1}, 1, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{0, 0}));
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{5, 1}}));
  r = g.autoclaim(h.s, "c", 0, {6, 1}, 1, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{0, 0}));
  EXPECT_TRUE(r.claimed.empty());

  r = g.autoclaim(h.s, "e", 100000, {0, 0}, 1, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{0, 0}));
  EXPECT_TRUE(r.claimed.empty());
  EXPECT_TRUE(r.consumer_created) << "XAUTOCLAIM creates the consumer as XCLAIM does (7.2+)";
  ASSERT_NE(g.find_consumer("e"), nullptr);
  EXPECT_EQ(g.find_consumer("e")->active_time_ms(), -1);
  EXPECT_EQ(g.pending_count(), 3u);
  EXPECT_TRUE(g.check_invariants());
}

// XDEL 1-1 2-1 (pending, not idle enough): XAUTOCLAIM b 100000 0 COUNT 1 → [2-1, [], [1-1]]:
// the deleted check comes before the idle check and uses up COUNT.
TEST(ConsumerGroupAutoClaim, DeletedCountsAgainstCountEvenWhenNotIdle) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 4; ++i) h.add(i, 1);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 2);
  h.del(1, 1);
  h.del(2, 1);
  AutoClaimResult r = g.autoclaim(h.s, "b", 100000, {0, 0}, 1, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{2, 1}));
  EXPECT_TRUE(r.claimed.empty());
  EXPECT_EQ(r.deleted, (std::vector<StreamId>{{1, 1}}));
  EXPECT_EQ(g.pending_count(), 1u);
  EXPECT_TRUE(g.check_invariants());
}

// The scan examines at most COUNT * 10 entries: with 25 entries too young to claim, COUNT 1
// stops after 10 and the cursor is the 11th; COUNT 2 after 20; COUNT 3 reaches the end.
TEST(ConsumerGroupAutoClaim, ScanLimitIsTenTimesCount) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 25; ++i) h.add(i, 0);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 0);
  h.now += 10;
  AutoClaimResult r = g.autoclaim(h.s, "b", 1000, {0, 0}, 1, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{11, 0}));
  EXPECT_TRUE(r.claimed.empty());
  r = g.autoclaim(h.s, "b", 1000, r.next_cursor, 1, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{21, 0}));
  r = g.autoclaim(h.s, "b", 1000, {0, 0}, 2, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{21, 0}));
  r = g.autoclaim(h.s, "b", 1000, {0, 0}, 3, false, h.now);
  EXPECT_EQ(r.next_cursor, (StreamId{0, 0}));

  // Make entries 5 and 18 claimable: COUNT 1 claims 5 and stops right after it.
  h.now += 5000;
  g.read_history(h.s, h.consumer("g", "a"), {0, 0}, 0, h.now);  // everything fresh again
  h.now += 100;
  ClaimOptions old;
  old.delivery_time_ms = h.now - 2000;
  g.claim(h.s, "a", std::vector<StreamId>{{5, 0}, {18, 0}}, old, h.now);
  r = g.autoclaim(h.s, "b", 1000, {0, 0}, 1, false, h.now);
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{5, 0}}));
  EXPECT_EQ(r.next_cursor, (StreamId{6, 0}));
  // From the cursor: 18 is the 13th entry examined, beyond COUNT 1's window of 10...
  r = g.autoclaim(h.s, "b", 1000, r.next_cursor, 1, false, h.now);
  EXPECT_TRUE(r.claimed.empty());
  EXPECT_EQ(r.next_cursor, (StreamId{16, 0}));
  // ...and the next call finds it.
  r = g.autoclaim(h.s, "b", 1000, r.next_cursor, 1, false, h.now);
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{18, 0}}));
  EXPECT_EQ(r.next_cursor, (StreamId{19, 0}));
  EXPECT_EQ(g.pel().find({18, 0})->owner->name(), "b");
  EXPECT_EQ(g.pel().find({18, 0})->delivery_time_ms, h.now);
  EXPECT_EQ(g.find_consumer("b")->pending_count(), 2u);
  EXPECT_TRUE(g.check_invariants());
}

}  // namespace
}  // namespace streamd::engine
