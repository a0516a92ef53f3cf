// The admission the XREADGROUP walks ask before each entry (engine::Admission, MAXCOUNT and
// MAXSIZE): what each walk offers, and that a refusal changes nothing about the refused entry
// or anything after it; and ConsumerGroup::read, one XREADGROUP stream, reporting what it did
// (engine::GroupEffects).
#include <gtest/gtest.h>

#include <vector>

#include "engine/group_test_util.h"
#include "streamd/engine/consumer_group.h"

namespace streamd::engine {
namespace {

using testing::GroupHarness;
using testing::ids_of;
using testing::kT0;

// Admits `n` entries, then refuses; remembers what it was offered.
struct Quota final : Admission {
  explicit Quota(std::size_t n) : left(n) {}
  bool admit(const GroupEntry& e) override {
    offered.push_back(e);
    if (left == 0) return false;
    --left;
    return true;
  }
  std::size_t left;
  std::vector<GroupEntry> offered;
};

TEST(GroupAdmission, ReadNewStopsBeforeTheRefusedEntry) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 4; ++i) h.add(i, 0);
  ConsumerGroup& g = h.create("g", {0, 0}, 0);
  Quota q(2);
  ReadResult r = g.read_new(h.s, h.consumer("g", "a"), 0, false, h.now, &q);
  EXPECT_EQ(ids_of(r.entries), (std::vector<StreamId>{{1, 0}, {2, 0}}));
  ASSERT_EQ(q.offered.size(), 3u);
  EXPECT_EQ(q.offered[2].id, (StreamId{3, 0}));
  EXPECT_EQ(q.offered[2].fields.size(), 1u);
  // The position moved past the admitted entries only; the refused one is not pending.
  EXPECT_EQ(g.last_delivered_id(), (StreamId{2, 0}));
  EXPECT_EQ(g.entries_read(), 2);
  EXPECT_EQ(g.pending_count(), 2u);
  EXPECT_TRUE(g.check_invariants());
}

TEST(GroupAdmission, ReadHistoryOffersDeletedEntries) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 0);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 0);
  h.del(2, 0);
  h.now = kT0 + 10;
  Quota q(2);
  ReadResult r = g.read_history(h.s, h.consumer("g", "a"), {0, 0}, 0, h.now, &q);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_TRUE(r.entries[1].deleted);
  ASSERT_EQ(q.offered.size(), 3u);
  EXPECT_TRUE(q.offered[1].deleted);
  EXPECT_TRUE(q.offered[1].fields.empty());
  // 3-0 was refused: its delivery is unchanged.
  std::vector<PendingRecord> p = g.pending_range({3, 0}, {3, 0}, 1, 0, h.now);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].delivery_count, 1u);
  EXPECT_EQ(p[0].delivery_time_ms, kT0);
}

TEST(GroupAdmission, ClaimIdleEndsAtTheLastAdmittedEntry) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 4; ++i) h.add(i, 0);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 0);
  h.del(2, 0);
  h.del(4, 0);
  h.now = kT0 + 1000;
  Quota q(1);
  ClaimIdleResult r = g.claim_idle(h.s, "b", 500, 0, h.now, &q);
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{1, 0}}));
  EXPECT_TRUE(r.deleted.empty());   // 2-0 lies after the last admitted entry: left for later
  ASSERT_EQ(q.offered.size(), 2u);  // 1-0 and 3-0 (deleted ones are not offered)
  EXPECT_TRUE(q.offered[0].claimed);
  EXPECT_EQ(q.offered[0].idle_ms, 1000);
  EXPECT_EQ(q.offered[0].previous_count, 1u);
  EXPECT_EQ(q.offered[1].id, (StreamId{3, 0}));
  EXPECT_EQ(g.pending_count(), 4u);
  // Without an admission the same walk drops what it passes.
  ClaimIdleResult all = g.claim_idle(h.s, "b", 500, 0, h.now);
  EXPECT_EQ(ids_of(all.claimed), (std::vector<StreamId>{{3, 0}}));
  EXPECT_EQ(all.deleted, (std::vector<StreamId>{{2, 0}, {4, 0}}));
  EXPECT_TRUE(g.check_invariants());
}

TEST(GroupReadEffects, ClaimThenNewEntriesReportEverything) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 0);
  ConsumerGroup& g = h.create("g", {0, 0}, 0);
  h.read("g", "a", 0);
  h.add(4, 0);
  h.add(5, 0);
  h.del(2, 0);
  h.now = kT0 + 1000;
  GroupReadRequest req{.consumer = "b", .new_entries = true, .count = 3, .claim_min_idle_ms = 500};
  GroupReadResult r = g.read(h.s, req, h.now);
  EXPECT_TRUE(r.consumer_created);
  EXPECT_EQ(r.deleted, (std::vector<StreamId>{{2, 0}}));
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{1, 0}, {3, 0}}));
  EXPECT_EQ(ids_of(r.read), (std::vector<StreamId>{{4, 0}}));  // COUNT 3: one left after claims
  EXPECT_TRUE(r.read_new);
  EXPECT_TRUE(r.last_id_changed);
  EXPECT_FALSE(r.refused);
  EXPECT_EQ(g.last_delivered_id(), (StreamId{4, 0}));
  // Again: the consumer exists, nothing is idle, 5-0 is new.
  r = g.read(h.s, req, h.now);
  EXPECT_FALSE(r.consumer_created);
  EXPECT_TRUE(r.claimed.empty());
  EXPECT_EQ(ids_of(r.read), (std::vector<StreamId>{{5, 0}}));
  // A history read moves nothing; a refused first entry is reported.
  Quota none(0);
  r = g.read(h.s, GroupReadRequest{.consumer = "b"}, h.now, &none);
  EXPECT_TRUE(r.read.empty());
  EXPECT_TRUE(r.refused);
  EXPECT_FALSE(r.last_id_changed);
  r = g.read(h.s, GroupReadRequest{.consumer = "b"}, h.now);
  EXPECT_EQ(ids_of(r.read), (std::vector<StreamId>{{1, 0}, {3, 0}, {4, 0}, {5, 0}}));
  EXPECT_FALSE(r.read_new);
  EXPECT_FALSE(r.last_id_changed);
  EXPECT_TRUE(g.check_invariants());
}

}  // namespace
}  // namespace streamd::engine
