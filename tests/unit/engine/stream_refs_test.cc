// KEEPREF / DELREF / ACKED (stream_refs.h) with several groups, driven with plain calls.
#include "streamd/engine/stream_refs.h"

#include <gtest/gtest.h>

#include "group_test_util.h"

namespace streamd::engine {
namespace {

using testing::GroupHarness;

// Entries 1..n (ms = i, seq 0), groups g1 and g2 at 0-0.
void fill(GroupHarness& h, uint64_t n) {
  for (uint64_t i = 1; i <= n; ++i) h.add(i, 0);
  h.create("g1", StreamId{});
  h.create("g2", StreamId{});
}

TEST(StreamRefs, ReferencedMeansPendingOrUndeliveredInSomeGroup) {
  GroupHarness h;
  fill(h, 3);
  EXPECT_TRUE(entry_referenced(h.s, {1, 0}));  // nobody delivered it
  h.read("g1", "c", 2);                        // g1: 1, 2 pending
  EXPECT_TRUE(entry_referenced(h.s, {1, 0}));
  h.read("g2", "c", 3);  // g2: 1, 2, 3 pending
  StreamId one{1, 0}, two{2, 0};
  h.group("g1").ack(std::span<const StreamId>(&one, 1));
  EXPECT_TRUE(entry_referenced(h.s, one));  // still pending in g2
  h.group("g2").ack(std::span<const StreamId>(&one, 1));
  EXPECT_FALSE(entry_referenced(h.s, one));
  h.group("g1").ack(std::span<const StreamId>(&two, 1));
  h.group("g2").ack(std::span<const StreamId>(&two, 1));
  EXPECT_FALSE(entry_referenced(h.s, two));
  EXPECT_TRUE(entry_referenced(h.s, {3, 0}));  // g1 never delivered it
}

TEST(StreamRefs, NoGroupsReferencesNothing) {
  GroupHarness h;
  h.add(1, 0);
  EXPECT_FALSE(entry_referenced(h.s, {1, 0}));
  EXPECT_EQ(delete_entry(h.s, {1, 0}, RefPolicy::kAcked), DeleteOutcome::kDeleted);
}

TEST(StreamRefs, DeleteKeepRefLeavesEveryPel) {
  GroupHarness h;
  fill(h, 2);
  h.read("g1", "a", 2);
  h.read("g2", "b", 2);
  EXPECT_EQ(delete_entry(h.s, {1, 0}, RefPolicy::kKeepRef), DeleteOutcome::kDeleted);
  EXPECT_EQ(h.s.length(), 1u);
  EXPECT_EQ(h.s.max_deleted_entry_id(), (StreamId{1, 0}));
  EXPECT_EQ(h.group("g1").pending_count(), 2u);
  EXPECT_EQ(h.group("g2").pending_count(), 2u);
  EXPECT_EQ(delete_entry(h.s, {1, 0}, RefPolicy::kKeepRef), DeleteOutcome::kNotFound);
}

TEST(StreamRefs, DeleteDelRefCleansEveryGroupAndConsumer) {
  GroupHarness h;
  fill(h, 2);
  h.read("g1", "a", 2);
  h.read("g2", "b", 1);
  h.read("g2", "c", 1);
  EXPECT_EQ(delete_entry(h.s, {2, 0}, RefPolicy::kDelRef), DeleteOutcome::kDeleted);
  EXPECT_EQ(h.group("g1").pending_count(), 1u);
  EXPECT_EQ(h.group("g2").pending_count(), 1u);
  EXPECT_EQ(h.group("g2").find_consumer("c")->pending_count(), 0u);
  EXPECT_EQ(h.group("g2").find_consumer("b")->pending_count(), 1u);
  EXPECT_TRUE(h.group("g1").check_invariants());
  EXPECT_TRUE(h.group("g2").check_invariants());
  // A dangling reference (entry deleted with KEEPREF) goes too, but the answer is "not found".
  EXPECT_EQ(delete_entry(h.s, {1, 0}, RefPolicy::kKeepRef), DeleteOutcome::kDeleted);
  EXPECT_EQ(delete_entry(h.s, {1, 0}, RefPolicy::kDelRef), DeleteOutcome::kNotFound);
  EXPECT_EQ(h.group("g1").pending_count(), 0u);
  EXPECT_EQ(h.group("g2").pending_count(), 0u);
}

TEST(StreamRefs, DeleteAckedOnlyWhenEveryGroupIsDone) {
  GroupHarness h;
  fill(h, 1);
  StreamId id{1, 0};
  EXPECT_EQ(delete_entry(h.s, id, RefPolicy::kAcked), DeleteOutcome::kReferenced);
  h.read("g1", "a", 1);
  h.read("g2", "b", 1);
  h.group("g1").ack(std::span<const StreamId>(&id, 1));
  EXPECT_EQ(delete_entry(h.s, id, RefPolicy::kAcked), DeleteOutcome::kReferenced);
  EXPECT_EQ(h.s.length(), 1u);
  h.group("g2").ack(std::span<const StreamId>(&id, 1));
  EXPECT_EQ(delete_entry(h.s, id, RefPolicy::kAcked), DeleteOutcome::kDeleted);
  EXPECT_EQ(h.s.length(), 0u);
}

TEST(StreamRefs, TrimDelRefDropsReferencesBelowTheNewFirstEntry) {
  GroupHarness h;
  fill(h, 5);
  h.read("g1", "a", 5);
  h.read("g2", "b", 3);
  TrimResult r = trim_with_policy(h.s, TrimSpec::max_len(2), RefPolicy::kDelRef);
  EXPECT_EQ(r.removed, 3u);
  EXPECT_EQ(h.s.first_id(), (StreamId{4, 0}));
  EXPECT_EQ(h.group("g1").pending_count(), 2u);  // 4 and 5
  EXPECT_EQ(h.group("g1").pel().first_id(), (StreamId{4, 0}));
  EXPECT_EQ(h.group("g2").pending_count(), 0u);
  EXPECT_TRUE(h.group("g1").check_invariants());
  // KEEPREF leaves them.
  trim_with_policy(h.s, TrimSpec::max_len(1), RefPolicy::kKeepRef);
  EXPECT_EQ(h.group("g1").pending_count(), 2u);
  // Trimming to nothing drops every reference.
  trim_with_policy(h.s, TrimSpec::max_len(0), RefPolicy::kDelRef);
  EXPECT_EQ(h.group("g1").pending_count(), 0u);
}

TEST(StreamRefs, TrimAckedSkipsReferencedEntriesAndStopsAtTheHorizon) {
  GroupHarness h;
  fill(h, 6);
  h.read("g1", "a", 6);
  h.read("g2", "b", 4);  // g2 has not delivered 5 and 6
  std::vector<StreamId> acked = {{1, 0}, {3, 0}, {4, 0}, {5, 0}};
  h.group("g1").ack(acked);
  h.group("g2").ack(acked);
  // Unreferenced: 1, 3, 4 (2 is pending in both groups, 5 and 6 are undelivered by g2).
  TrimResult r = trim_with_policy(h.s, TrimSpec::max_len(0), RefPolicy::kAcked);
  EXPECT_EQ(r.removed, 3u);
  EXPECT_EQ(r.exact_maxlen, 3u);
  EXPECT_EQ(h.s.length(), 3u);
  EXPECT_TRUE(h.s.contains({2, 0}));
  EXPECT_TRUE(h.s.contains({5, 0}));
  EXPECT_TRUE(h.s.contains({6, 0}));
  EXPECT_EQ(h.s.max_deleted_entry_id(), StreamId{});  // trimming is not XDEL
  EXPECT_EQ(h.group("g1").pending_count(), 2u);       // 2 and 6
}

TEST(StreamRefs, TrimAckedHonoursThresholdMinIdAndLimit) {
  GroupHarness h;
  fill(h, 6);
  h.read("g1", "a", 6);
  h.read("g2", "b", 6);
  std::vector<StreamId> all = {{1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}};
  h.group("g1").ack(all);
  h.group("g2").ack(all);
  EXPECT_EQ(trim_with_policy(h.s, TrimSpec::max_len(5), RefPolicy::kAcked).removed, 1u);
  EXPECT_EQ(trim_with_policy(h.s, TrimSpec::min_id({3, 0}), RefPolicy::kAcked).removed, 1u);
  EXPECT_EQ(h.s.first_id(), (StreamId{3, 0}));
  EXPECT_EQ(trim_with_policy(h.s, TrimSpec::max_len(0, true, 2), RefPolicy::kAcked).removed, 2u);
  EXPECT_EQ(h.s.length(), 2u);
}

TEST(StreamRefs, TrimAckedWithoutGroupsIsAPlainTrim) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 4; ++i) h.add(i, 0);
  TrimResult r = trim_with_policy(h.s, TrimSpec::max_len(1), RefPolicy::kAcked);
  EXPECT_EQ(r.removed, 3u);
  EXPECT_EQ(r.exact_maxlen, 1u);
}

// RefEffects: what a replay by XTRIM / XDEL / XACK (Redis 7.0) needs to know.
using Dropped = std::vector<std::pair<std::string, std::vector<StreamId>>>;

TEST(StreamRefEffects, DeleteDelRefRecordsEachGroupsDroppedReferences) {
  GroupHarness h;
  fill(h, 3);
  h.read("g1", "a", 3);
  h.read("g2", "b", 1);
  RefEffects fx;
  EXPECT_EQ(delete_entry(h.s, {1, 0}, RefPolicy::kDelRef, &fx), DeleteOutcome::kDeleted);
  EXPECT_EQ(delete_entry(h.s, {3, 0}, RefPolicy::kDelRef, &fx), DeleteOutcome::kDeleted);
  EXPECT_EQ(delete_entry(h.s, {9, 0}, RefPolicy::kDelRef, &fx), DeleteOutcome::kNotFound);
  EXPECT_FALSE(fx.walked);
  EXPECT_TRUE(fx.erased.empty());  // the caller knows which IDs it deleted
  EXPECT_EQ(fx.dropped, (Dropped{{"g1", {{1, 0}, {3, 0}}}, {"g2", {{1, 0}}}}));
  // KEEPREF and ACKED drop nothing.
  RefEffects none;
  delete_entry(h.s, {2, 0}, RefPolicy::kKeepRef, &none);
  EXPECT_TRUE(none.dropped.empty());
}

TEST(StreamRefEffects, TrimDelRefRecordsReferencesBelowTheNewFirstEntry) {
  GroupHarness h;
  fill(h, 5);
  h.read("g1", "a", 5);
  h.read("g2", "b", 2);
  RefEffects fx;
  TrimResult r = trim_with_policy(h.s, TrimSpec::max_len(2), RefPolicy::kDelRef, &fx);
  EXPECT_EQ(r.removed, 3u);
  EXPECT_FALSE(fx.walked);  // a prefix: the exact XTRIM replays it
  EXPECT_EQ(fx.dropped, (Dropped{{"g1", {{1, 0}, {2, 0}, {3, 0}}}, {"g2", {{1, 0}, {2, 0}}}}));
}

TEST(StreamRefEffects, TrimAckedRecordsTheWalkAndCountsItAsDeletions) {
  GroupHarness h;
  fill(h, 4);
  h.read("g1", "a", 4);
  h.read("g2", "b", 4);
  std::vector<StreamId> acked = {{1, 0}, {3, 0}};
  h.group("g1").ack(acked);
  h.group("g2").ack(acked);
  RefEffects fx;
  TrimResult r = trim_with_policy(h.s, TrimSpec::max_len(0), RefPolicy::kAcked, &fx);
  EXPECT_EQ(r.removed, 2u);
  EXPECT_TRUE(fx.walked);
  EXPECT_EQ(fx.erased, (std::vector<StreamId>{{1, 0}, {3, 0}}));
  EXPECT_TRUE(fx.dropped.empty());
  // As the XDEL 1-0 3-0 that replays it would leave it (without fx it stays 0-0, above).
  EXPECT_EQ(h.s.max_deleted_entry_id(), (StreamId{3, 0}));
}

TEST(StreamRefEffects, TrimAckedWithoutGroupsIsNoWalk) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 0);
  RefEffects fx;
  EXPECT_EQ(trim_with_policy(h.s, TrimSpec::max_len(1), RefPolicy::kAcked, &fx).removed, 2u);
  EXPECT_FALSE(fx.walked);
  EXPECT_TRUE(fx.erased.empty());
}

}  // namespace
}  // namespace streamd::engine
