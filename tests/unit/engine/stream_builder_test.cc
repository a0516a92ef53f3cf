// StreamBuilder's PEL staging: snapshots list a PEL in ID order (the fast path), but a crafted
// payload may not, and the released (XNACK) records of the extension blob come after the owned
// ones; every order must build the same PEL, and a duplicate ID must be refused in each.
#include <gtest/gtest.h>

#include <vector>

#include "streamd/engine/consumer_group.h"
#include "streamd/engine/stream_builder.h"

namespace streamd::engine {
namespace {

const FieldValue kField[] = {{"f", "v"}};

// A builder holding entries 1-0 .. n-0 and group "g" (no records yet).
std::unique_ptr<StreamBuilder> WithEntries(uint64_t n) {
  auto b = std::make_unique<StreamBuilder>(StreamLimits{});
  std::vector<BuiltEntry> entries;
  for (uint64_t i = 1; i <= n; ++i) entries.push_back({StreamId{i, 0}, false, kField});
  EXPECT_EQ(b->add_node(entries), Err::kOk);
  b->set_metadata(n, StreamId{n, 0}, n, StreamId{});
  EXPECT_EQ(b->add_group("g", StreamId{n, 0}, static_cast<int64_t>(n)), Err::kOk);
  return b;
}

std::vector<PendingEntry> Pending(const Stream& s) {
  std::vector<PendingEntry> out;
  for (auto it = s.groups().find("g")->pel().begin(); it.valid(); ++it) out.push_back(it.entry());
  return out;
}

TEST(StreamBuilderPel, AnyArrivalOrderBuildsTheSamePel) {
  const std::vector<std::vector<uint64_t>> orders = {
      {1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1}, {2, 4, 6, 1, 3, 5}, {1, 2, 3, 6, 5, 4}};
  for (const auto& order : orders) {
    auto b = WithEntries(6);
    for (uint64_t id : order) {
      ASSERT_EQ(b->add_pending(StreamId{id, 0}, static_cast<int64_t>(100 + id), id), Err::kOk);
    }
    ASSERT_EQ(b->add_consumer("c", 1, 1), Err::kOk);
    for (uint64_t id : order) ASSERT_EQ(b->own(StreamId{id, 0}), Err::kOk);
    auto s = b->finish();
    ASSERT_TRUE(s);
    std::vector<PendingEntry> p = Pending(**s);
    ASSERT_EQ(p.size(), 6u);
    for (uint64_t i = 0; i < 6; ++i) {
      EXPECT_EQ(p[i].id, (StreamId{i + 1, 0}));
      EXPECT_EQ(p[i].delivery_time_ms, static_cast<int64_t>(101 + i));
      EXPECT_EQ(p[i].delivery_count, i + 1);
      ASSERT_NE(p[i].owner, nullptr);
    }
  }
}

TEST(StreamBuilderPel, DuplicatesAreRefusedInOrderAndOutOfOrder) {
  {
    auto b = WithEntries(4);
    ASSERT_EQ(b->add_pending(StreamId{1, 0}, 1, 1), Err::kOk);
    ASSERT_EQ(b->add_pending(StreamId{2, 0}, 1, 1), Err::kOk);
    EXPECT_EQ(b->add_pending(StreamId{2, 0}, 1, 1), Err::kBadData);  // the last one again
    EXPECT_EQ(b->add_pending(StreamId{1, 0}, 1, 1), Err::kBadData);  // an earlier one
  }
  {
    auto b = WithEntries(4);
    ASSERT_EQ(b->add_pending(StreamId{3, 0}, 1, 1), Err::kOk);
    ASSERT_EQ(b->add_pending(StreamId{1, 0}, 1, 1), Err::kOk);  // now out of order
    EXPECT_EQ(b->add_pending(StreamId{3, 0}, 1, 1), Err::kBadData);
    EXPECT_EQ(b->add_pending(StreamId{1, 0}, 1, 1), Err::kBadData);
  }
}

TEST(StreamBuilderPel, OwnershipIsCheckedInBothModes) {
  for (bool out_of_order : {false, true}) {
    auto b = WithEntries(4);
    ASSERT_EQ(b->add_pending(StreamId{out_of_order ? 3u : 1u, 0}, 1, 1), Err::kOk);
    ASSERT_EQ(b->add_pending(StreamId{out_of_order ? 1u : 3u, 0}, 1, 1), Err::kOk);
    ASSERT_EQ(b->add_consumer("c", 1, 1), Err::kOk);
    EXPECT_EQ(b->own(StreamId{2, 0}), Err::kBadData);  // not in the group PEL
    ASSERT_EQ(b->own(StreamId{1, 0}), Err::kOk);
    EXPECT_EQ(b->own(StreamId{1, 0}), Err::kBadData);  // owned twice
    // 3-0 is left without an owner and not released: finish refuses the stream.
    EXPECT_FALSE(b->finish());
  }
}

TEST(StreamBuilderPel, ReleasedRecordsAfterOwnedOnes) {
  auto b = WithEntries(5);
  for (uint64_t id : {1, 3, 5}) ASSERT_EQ(b->add_pending(StreamId{id, 0}, 7, 1), Err::kOk);
  ASSERT_EQ(b->add_consumer("c", 1, 1), Err::kOk);
  for (uint64_t id : {1, 3, 5}) ASSERT_EQ(b->own(StreamId{id, 0}), Err::kOk);
  // The extension blob's released records: IDs between and before the owned ones.
  ASSERT_EQ(b->add_released("g", StreamId{4, 0}, 2), Err::kOk);
  ASSERT_EQ(b->add_released("g", StreamId{2, 0}, 3), Err::kOk);
  EXPECT_EQ(b->add_released("g", StreamId{3, 0}, 1), Err::kBadData);  // owned already
  auto s = b->finish();
  ASSERT_TRUE(s);
  std::vector<PendingEntry> p = Pending(**s);
  ASSERT_EQ(p.size(), 5u);
  for (uint64_t i = 0; i < 5; ++i) EXPECT_EQ(p[i].id, (StreamId{i + 1, 0}));
  EXPECT_EQ(p[1].owner, nullptr);
  EXPECT_EQ(p[1].delivery_count, 3u);
  EXPECT_EQ(p[3].owner, nullptr);
  EXPECT_NE(p[2].owner, nullptr);
  EXPECT_EQ((*s)->groups().find("g")->nacked_count(), 2u);
}

TEST(StreamBuilderPel, RunsOfOneOwnerAndTimeKeepEveryRecordsOwnTimeAndCount) {
  // Two consumers interleaved, delivery times that change mid-way, counts other than 1, one
  // released record, IDs looked up by own() in each consumer's ascending order (the hint) and
  // once out of order: the PEL must hold exactly what was staged, with its indexes consistent.
  auto b = WithEntries(40);
  for (uint64_t i = 1; i <= 40; ++i) {
    int64_t time = i <= 15 ? 1000 : i <= 30 ? 2000 : 3000;
    if (i == 20) continue;  // released below
    ASSERT_EQ(b->add_pending(StreamId{i, 0}, time, i % 5 == 0 ? i : 1), Err::kOk);
  }
  ASSERT_EQ(b->add_consumer("odd", 1, 1), Err::kOk);
  ASSERT_EQ(b->own(StreamId{39, 0}), Err::kOk);  // out of order first
  for (uint64_t i = 1; i < 39; i += 2) ASSERT_EQ(b->own(StreamId{i, 0}), Err::kOk);
  ASSERT_EQ(b->add_consumer("even", 1, 1), Err::kOk);
  for (uint64_t i = 2; i <= 40; i += 2) {
    if (i != 20) {
      ASSERT_EQ(b->own(StreamId{i, 0}), Err::kOk);
    }
  }
  EXPECT_EQ(b->own(StreamId{41, 0}), Err::kBadData);  // past the last record
  ASSERT_EQ(b->add_released("g", StreamId{20, 0}, 7), Err::kOk);
  auto s = b->finish();
  ASSERT_TRUE(s);
  const ConsumerGroup& g = *(*s)->groups().find("g");
  std::string why;
  EXPECT_TRUE(g.check_invariants(&why)) << why;
  std::vector<PendingEntry> p = Pending(**s);
  ASSERT_EQ(p.size(), 40u);
  for (uint64_t i = 1; i <= 40; ++i) {
    const PendingEntry& e = p[i - 1];
    EXPECT_EQ(e.id, (StreamId{i, 0}));
    if (i == 20) {
      EXPECT_EQ(e.owner, nullptr);
      EXPECT_EQ(e.delivery_count, 7u);
      continue;
    }
    EXPECT_EQ(e.delivery_time_ms, i <= 15 ? 1000 : i <= 30 ? 2000 : 3000) << i;
    EXPECT_EQ(e.delivery_count, i % 5 == 0 ? i : 1) << i;
    ASSERT_NE(e.owner, nullptr);
    EXPECT_EQ(e.owner->name(), i % 2 ? "odd" : "even") << i;
  }
  EXPECT_EQ(g.find_consumer("odd")->pending_count(), 20u);
  EXPECT_EQ(g.find_consumer("even")->pending_count(), 19u);
}

}  // namespace
}  // namespace streamd::engine
