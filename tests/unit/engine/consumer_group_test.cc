// ConsumerGroup: groups on a stream, consumers, XREADGROUP (both forms), XACK, XPENDING and
// XINFO data. Expected values follow redis-server 7.0.15 (the sequences in the comments were run
// against it).
#include "streamd/engine/consumer_group.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/group_test_util.h"

namespace streamd::engine {
namespace {

using testing::GroupHarness;
using testing::ids_of;
using testing::kT0;

std::vector<std::string> consumer_names(const ConsumerGroup& g) {
  std::vector<std::string> names;
  g.for_each_consumer([&](const Consumer& c) { names.push_back(c.name()); });
  return names;
}

TEST(ConsumerGroup, StreamGroupsCreateFindDestroyInNameOrder) {
  Stream s;
  StreamGroups& groups = s.groups();
  ASSERT_TRUE(groups.create("b", {0, 0}, kEntriesReadUnknown).ok());
  ASSERT_TRUE(groups.create("a", {1, 1}, 7).ok());
  ASSERT_TRUE(groups.create("B", {0, 0}, kEntriesReadUnknown).ok());
  ASSERT_TRUE(groups.create("", {0, 0}, kEntriesReadUnknown).ok());
  EXPECT_NE(groups.find(""), nullptr);
  EXPECT_TRUE(groups.destroy(""));
  Result<ConsumerGroup*> dup = groups.create("a", {0, 0}, kEntriesReadUnknown);
  EXPECT_EQ(dup.err(), Err::kBusyGroup);
  EXPECT_EQ(s.group_count(), 3u);
  ASSERT_NE(groups.find("a"), nullptr);
  EXPECT_EQ(groups.find("a")->last_delivered_id(), (StreamId{1, 1}));
  EXPECT_EQ(groups.find("a")->entries_read(), 7);
  EXPECT_EQ(groups.find("zz"), nullptr);
  std::vector<std::string> names;
  std::as_const(groups).for_each([&](const ConsumerGroup& g) { names.push_back(g.name()); });
  EXPECT_EQ(names, (std::vector<std::string>{"B", "a", "b"}));
  EXPECT_TRUE(groups.destroy("a"));
  EXPECT_FALSE(groups.destroy("a"));
  EXPECT_EQ(s.group_count(), 2u);
  EXPECT_GT(s.memory_usage(), Stream().memory_usage());
}

// XGROUP CREATECONSUMER twice → 1 then 0; DELCONSUMER → pending count, then 0 (nullopt here).
TEST(ConsumerGroup, ConsumersCreateDeleteAndOrder) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 1);
  ConsumerGroup& g = h.create("g", {0, 0});
  auto [zz, created] = g.create_consumer("zz", h.now);
  EXPECT_TRUE(created);
  EXPECT_EQ(zz->seen_time_ms(), kT0);
  EXPECT_EQ(zz->active_time_ms(), -1);
  EXPECT_FALSE(g.create_consumer("zz", h.now + 5).second);
  EXPECT_EQ(zz->seen_time_ms(), kT0) << "creating an existing consumer does not touch it";
  g.create_consumer("ab", h.now);
  g.create_consumer("a", h.now);
  g.create_consumer("\xff", h.now);
  g.create_consumer("Z", h.now);
  g.create_consumer("", h.now);  // Redis accepts an empty consumer name
  EXPECT_EQ(consumer_names(g), (std::vector<std::string>{"", "Z", "a", "ab", "zz", "\xff"}));
  EXPECT_EQ(g.delete_consumer(""), std::optional<uint64_t>(0));

  h.read("g", "a", 0);
  EXPECT_EQ(g.pending_count(), 3u);
  EXPECT_EQ(g.delete_consumer("a"), std::optional<uint64_t>(3));
  EXPECT_EQ(g.delete_consumer("a"), std::nullopt);
  EXPECT_EQ(g.pending_count(), 0u);
  EXPECT_EQ(g.consumer_count(), 4u);
  EXPECT_TRUE(g.check_invariants());
  PendingSummary sum = g.pending_summary();
  EXPECT_EQ(sum.count, 0u);
  EXPECT_TRUE(sum.consumers.empty());
}

TEST(ConsumerGroup, ReadNewDeliversAndRecords) {
  GroupHarness h;
  ConsumerGroup& g = h.create("g", {0, 0});
  EXPECT_FALSE(g.has_new_entries(h.s));
  for (uint64_t i = 1; i <= 5; ++i) h.add(i, 1, "v" + std::to_string(i));
  EXPECT_TRUE(g.has_new_entries(h.s));
  Consumer& a = h.consumer("g", "a");

  h.now += 10;
  ReadResult r = g.read_new(h.s, a, 2, false, h.now);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].id, (StreamId{1, 1}));
  ASSERT_EQ(r.entries[0].fields.size(), 1u);
  EXPECT_EQ(r.entries[0].fields[0].field, "f");
  EXPECT_EQ(r.entries[0].fields[0].value, "v1");
  EXPECT_EQ(r.entries[1].fields[0].value, "v2");
  EXPECT_TRUE(r.entries[1].pending);
  EXPECT_EQ(r.entries[1].delivery_count, 1u);
  EXPECT_EQ(r.entries[1].delivery_time_ms, h.now);
  EXPECT_TRUE(r.last_id_changed);
  EXPECT_EQ(r.last_delivered_id, (StreamId{2, 1}));
  EXPECT_EQ(r.entries_read, 2);
  EXPECT_EQ(a.seen_time_ms(), h.now);
  EXPECT_EQ(a.active_time_ms(), h.now);
  EXPECT_EQ(a.pending_count(), 2u);

  // NOACK: delivered and counted, not pending.
  Consumer& b = h.consumer("g", "b");
  r = g.read_new(h.s, b, 1, true, h.now);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_FALSE(r.entries[0].pending);
  EXPECT_EQ(r.last_delivered_id, (StreamId{3, 1}));
  EXPECT_EQ(b.pending_count(), 0u);
  EXPECT_EQ(g.pending_count(), 2u);

  // COUNT 0 = everything left.
  r = g.read_new(h.s, b, 0, false, h.now);
  EXPECT_EQ(ids_of(r.entries), (std::vector<StreamId>{{4, 1}, {5, 1}}));
  EXPECT_EQ(r.entries_read, 5);
  EXPECT_FALSE(g.has_new_entries(h.s));

  // Nothing new: the attempt counts as seen, not active.
  h.now += 7;
  r = g.read_new(h.s, b, 0, false, h.now);
  EXPECT_TRUE(r.entries.empty());
  EXPECT_FALSE(r.last_id_changed);
  EXPECT_EQ(b.seen_time_ms(), h.now);
  EXPECT_EQ(b.active_time_ms(), h.now - 7);
  EXPECT_TRUE(g.check_invariants());

  // A deleted last entry: nothing new even though last_id moved on.
  h.add(6, 1);
  h.del(6, 1);
  EXPECT_FALSE(g.has_new_entries(h.s));
}

// XREADGROUP a >; XGROUP SETID g 0; XREADGROUP b NOACK COUNT 1 (1-1 stays a's);
// XREADGROUP b COUNT 1 (2-1 moves to b with count 1).
TEST(ConsumerGroup, ReadNewAfterSetIdBackReassigns) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 1);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 0);
  // a re-reads its history so the counts are 2 before the group moves back.
  h.now += 5;
  g.read_history(h.s, h.consumer("g", "a"), {0, 0}, 0, h.now);
  g.set_last_delivered_id({0, 0}, kEntriesReadUnknown);
  h.now += 5;
  EXPECT_EQ(h.read("g", "b", 1, true), (std::vector<StreamId>{{1, 1}}));
  EXPECT_EQ(g.pel().find({1, 1})->owner->name(), "a");
  EXPECT_EQ(g.pel().find({1, 1})->delivery_count, 2u);
  EXPECT_EQ(h.read("g", "b", 1), (std::vector<StreamId>{{2, 1}}));
  std::optional<PendingEntry> e = g.pel().find({2, 1});
  EXPECT_EQ(e->owner->name(), "b");
  EXPECT_EQ(e->delivery_count, 1u);
  EXPECT_EQ(e->delivery_time_ms, h.now);
  EXPECT_EQ(h.consumer("g", "a").pending_count(), 2u);
  EXPECT_EQ(h.consumer("g", "b").pending_count(), 1u);
  EXPECT_TRUE(g.check_invariants());
}

// XREADGROUP a >; XDEL 2-1; XREADGROUP a 0 → [1-1 f v] [2-1 nil] [3-1 f v]; counts 2, 1, 2;
// XREADGROUP a COUNT 1 1-2 → [2-1 nil]; XREADGROUP a 9 → []; XREADGROUP zz 0 → [].
TEST(ConsumerGroup, ReadHistory) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 1);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 0);
  h.del(2, 1);
  Consumer& a = h.consumer("g", "a");
  h.now += 100;
  ReadResult r = g.read_history(h.s, a, {0, 0}, 0, h.now);
  ASSERT_EQ(r.entries.size(), 3u);
  EXPECT_FALSE(r.entries[0].deleted);
  EXPECT_EQ(r.entries[0].fields.size(), 1u);
  EXPECT_TRUE(r.entries[1].deleted);
  EXPECT_FALSE(r.entries[1].pending);
  EXPECT_TRUE(r.entries[1].fields.empty());
  EXPECT_EQ(r.entries[2].delivery_count, 2u);
  EXPECT_FALSE(r.last_id_changed);
  EXPECT_EQ(g.pel().find({1, 1})->delivery_count, 2u);
  EXPECT_EQ(g.pel().find({1, 1})->delivery_time_ms, h.now);
  EXPECT_EQ(g.pel().find({2, 1})->delivery_count, 1u);
  EXPECT_EQ(g.pel().find({2, 1})->delivery_time_ms, kT0);
  EXPECT_EQ(a.seen_time_ms(), h.now);
  EXPECT_EQ(a.active_time_ms(), kT0) << "a history read is not activity (Redis leaves it)";

  r = g.read_history(h.s, a, {1, 2}, 1, h.now);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].id, (StreamId{2, 1}));
  EXPECT_TRUE(r.entries[0].deleted);
  EXPECT_TRUE(g.read_history(h.s, a, {9, 0}, 0, h.now).entries.empty());
  EXPECT_TRUE(g.read_history(h.s, h.consumer("g", "zz"), {0, 0}, 0, h.now).entries.empty());
  EXPECT_TRUE(g.check_invariants());
}

// XACK s g 3-1 3-1 1-1 9-9 → 2; XACK s g 3-1 → 0.
TEST(ConsumerGroup, AckCountsPendingIdsOnce) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 1);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 2);
  h.read("g", "b", 1);
  std::vector<StreamId> ids{{3, 1}, {3, 1}, {1, 1}, {9, 9}};
  EXPECT_EQ(g.ack(ids), 2u);
  EXPECT_EQ(g.ack(std::vector<StreamId>{{3, 1}}), 0u);
  EXPECT_EQ(g.pending_count(), 1u);
  EXPECT_EQ(h.consumer("g", "a").pending_count(), 1u);
  EXPECT_EQ(h.consumer("g", "b").pending_count(), 0u);
  EXPECT_TRUE(g.check_invariants());
}

TEST(ConsumerGroup, PendingSummaryAndRange) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 6; ++i) h.add(i, 1);
  ConsumerGroup& g = h.create("g", {0, 0});
  PendingSummary empty = g.pending_summary();
  EXPECT_EQ(empty.count, 0u);
  EXPECT_TRUE(empty.consumers.empty());
  h.read("g", "b", 2);
  h.now += 1000;
  h.read("g", "a", 3);
  h.consumer("g", "idle-and-empty");
  h.now += 500;

  PendingSummary sum = g.pending_summary();
  EXPECT_EQ(sum.count, 5u);
  EXPECT_EQ(sum.first, (StreamId{1, 1}));
  EXPECT_EQ(sum.last, (StreamId{5, 1}));
  ASSERT_EQ(sum.consumers.size(), 2u);
  EXPECT_EQ(sum.consumers[0], (std::pair<std::string_view, uint64_t>{"a", 3}));
  EXPECT_EQ(sum.consumers[1], (std::pair<std::string_view, uint64_t>{"b", 2}));

  std::vector<PendingRecord> all = g.pending_range({0, 0}, StreamId::max(), 100, 0, h.now);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].consumer, "b");
  EXPECT_EQ(h.now - all[0].delivery_time_ms, 1500);
  EXPECT_EQ(all[0].delivery_count, 1u);
  EXPECT_EQ(all[4].consumer, "a");

  EXPECT_EQ(g.pending_range({0, 0}, StreamId::max(), 0, 0, h.now).size(), 0u) << "count 0";
  EXPECT_EQ(g.pending_range({0, 0}, StreamId::max(), 2, 0, h.now).size(), 2u);
  auto range = g.pending_range({2, 1}, {4, 1}, 10, 0, h.now);
  ASSERT_EQ(range.size(), 3u);
  EXPECT_EQ(range.front().id, (StreamId{2, 1}));
  EXPECT_EQ(range.back().id, (StreamId{4, 1}));
  // IDLE 1000: only b's older entries; the filter applies before the count.
  auto idle = g.pending_range({0, 0}, StreamId::max(), 10, 1000, h.now);
  EXPECT_EQ(idle.size(), 2u);
  EXPECT_EQ(g.pending_range({3, 1}, StreamId::max(), 1, 1000, h.now).size(), 0u);
  auto only_a = g.pending_range({0, 0}, StreamId::max(), 10, 0, h.now, "a");
  ASSERT_EQ(only_a.size(), 3u);
  EXPECT_EQ(only_a[0].id, (StreamId{3, 1}));
  EXPECT_TRUE(g.pending_range({0, 0}, StreamId::max(), 10, 0, h.now, "nobody").empty());
  EXPECT_TRUE(g.pending_range({0, 0}, StreamId::max(), 10, 0, h.now, "idle-and-empty").empty());
}

// XINFO GROUPS / CONSUMERS / STREAM FULL COUNT 1 after XREADGROUP a COUNT 2, XREADGROUP b.
TEST(ConsumerGroup, InfoConsumersAndFull) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 1);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 2);
  h.now += 10;
  h.read("g", "b", 0);
  h.consumer("g", "c");

  GroupInfo info = g.info(h.s);
  EXPECT_EQ(info.name, "g");
  EXPECT_EQ(info.consumers, 3u);
  EXPECT_EQ(info.pending, 3u);
  EXPECT_EQ(info.last_delivered_id, (StreamId{3, 1}));
  EXPECT_EQ(info.entries_read, std::optional<int64_t>(3));
  EXPECT_EQ(info.lag, std::optional<int64_t>(0));

  std::vector<ConsumerInfo> cs = g.consumers_info();
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0].name, "a");
  EXPECT_EQ(cs[0].pending, 2u);
  EXPECT_EQ(cs[0].seen_time_ms, kT0);
  EXPECT_EQ(cs[0].active_time_ms, kT0);
  EXPECT_EQ(cs[1].seen_time_ms, kT0 + 10);
  EXPECT_EQ(cs[2].name, "c");
  EXPECT_EQ(cs[2].active_time_ms, -1);

  GroupFullInfo full = g.full_info(h.s, 1);
  EXPECT_EQ(full.info.pending, 3u);
  ASSERT_EQ(full.pending.size(), 1u);
  EXPECT_EQ(full.pending[0].id, (StreamId{1, 1}));
  EXPECT_EQ(full.pending[0].consumer, "a");
  EXPECT_EQ(full.pending[0].delivery_time_ms, kT0);
  ASSERT_EQ(full.consumers.size(), 3u);
  EXPECT_EQ(full.consumers[0].info.pending, 2u);
  ASSERT_EQ(full.consumers[0].pending.size(), 1u);
  ASSERT_EQ(full.consumers[1].pending.size(), 1u);
  EXPECT_EQ(full.consumers[1].pending[0].id, (StreamId{3, 1}));
  EXPECT_EQ(full.consumers[1].pending[0].delivery_time_ms, kT0 + 10);
  EXPECT_TRUE(full.consumers[2].pending.empty());
  GroupFullInfo uncapped = g.full_info(h.s, 0);
  EXPECT_EQ(uncapped.pending.size(), 3u);
  EXPECT_EQ(uncapped.consumers[0].pending.size(), 2u);
}

TEST(ConsumerGroup, CloneIsDeepAndIndependent) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 20; ++i) h.add(i, 1);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 5);
  h.read("g", "b", 5);
  h.consumer("g", "c");
  std::unique_ptr<Stream> copy = h.s.clone();
  ConsumerGroup* cg = copy->groups().find("g");
  ASSERT_NE(cg, nullptr);
  EXPECT_TRUE(cg->check_invariants());
  EXPECT_EQ(cg->pending_count(), 10u);
  EXPECT_EQ(cg->consumer_count(), 3u);
  EXPECT_EQ(cg->last_delivered_id(), g.last_delivered_id());
  EXPECT_EQ(cg->entries_read(), g.entries_read());
  EXPECT_EQ(cg->pel_memory_usage(), g.pel_memory_usage());
  EXPECT_NE(cg->pel().find({1, 1})->owner, g.pel().find({1, 1})->owner);  // its own consumers
  EXPECT_EQ(cg->pel().find({7, 1})->owner, cg->find_consumer("b"));

  g.ack(std::vector<StreamId>{{1, 1}, {7, 1}});
  g.delete_consumer("c");
  EXPECT_EQ(cg->pending_count(), 10u);
  EXPECT_EQ(cg->consumer_count(), 3u);
  EXPECT_TRUE(g.check_invariants());
  EXPECT_TRUE(cg->check_invariants());
}

// Field spans stay valid while the batch grows (its storage moves).
TEST(ConsumerGroup, DeliveryBatchSpansSurviveGrowth) {
  GroupHarness h;
  ConsumerGroup& g = h.create("g", {0, 0});
  std::vector<std::string> values;
  for (uint64_t i = 1; i <= 300; ++i) {
    std::string v = "value-" + std::to_string(i);
    FieldValue fv[3] = {{"a", v}, {"b", "x"}, {"c", v}};
    ASSERT_TRUE(h.s.append(StreamId{i, 0}, fv).ok());
  }
  ReadResult r = g.read_new(h.s, h.consumer("g", "a"), 0, false, h.now);
  ASSERT_EQ(r.entries.size(), 300u);
  for (std::size_t i = 0; i < 300; ++i) {
    std::string v = "value-" + std::to_string(i + 1);
    ASSERT_EQ(r.entries[i].fields.size(), 3u);
    EXPECT_EQ(r.entries[i].fields[0].value, v);
    EXPECT_EQ(r.entries[i].fields[2].field, "c");
    EXPECT_EQ(r.entries[i].fields[2].value, v);
  }
  ReadResult moved = std::move(r);
  EXPECT_EQ(moved.entries[299].fields[0].value, "value-300");
}

}  // namespace
}  // namespace streamd::engine
