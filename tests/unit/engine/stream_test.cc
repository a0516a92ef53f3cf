#include "streamd/engine/stream.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <string>
#include <vector>

#include "streamd/engine/clock.h"

namespace streamd::engine {
namespace {

const FieldValue kFv[] = {{"f", "v"}};

std::vector<StreamId> ids_of(const Stream& s, StreamId a = StreamId::min(),
                             StreamId b = StreamId::max(), Direction d = Direction::kForward,
                             std::size_t count = 0) {
  std::vector<StreamId> out;
  s.range(a, b, count, d, [&](StreamId id, std::span<const FieldValue>) { out.push_back(id); });
  return out;
}

// Entries 1-0 .. n-0 with field f.
void fill(Stream& s, uint64_t n) {
  for (uint64_t i = 1; i <= n; ++i) ASSERT_TRUE(s.append({i, 0}, kFv).ok());
}

TEST(Stream, EmptyStream) {
  Stream s;
  EXPECT_EQ(s.length(), 0u);
  EXPECT_EQ(s.last_id(), StreamId::min());
  EXPECT_EQ(s.first_id(), StreamId::min());
  EXPECT_EQ(s.last_entry_id(), StreamId::min());
  EXPECT_EQ(s.radix_tree_keys(), 0u);
  EXPECT_FALSE(s.first_entry([](StreamId, std::span<const FieldValue>) {}));
  EXPECT_TRUE(ids_of(s).empty());
  EXPECT_FALSE(s.erase({1, 0}));
  EXPECT_FALSE(s.contains({1, 0}));
  EXPECT_EQ(s.group_count(), 0u);
  EXPECT_EQ(s.trim(TrimSpec::max_len(0)).removed, 0u);
}

TEST(Stream, AppendAndMetadata) {
  Stream s;
  const FieldValue fv[] = {{"temperature", "23.5"}, {"unit", "C"}};
  Result<StreamId> id = s.append(IdSpec::automatic(), fv, 1000);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, (StreamId{1000, 0}));
  EXPECT_EQ(*s.append(IdSpec::automatic(), fv, 1000), (StreamId{1000, 1}));
  EXPECT_EQ(*s.append(IdSpec::seq_auto(1000), fv, 0), (StreamId{1000, 2}));
  EXPECT_EQ(*s.append(IdSpec::explicit_id({2000, 5}), fv, 0), (StreamId{2000, 5}));
  EXPECT_EQ(s.length(), 4u);
  EXPECT_EQ(s.entries_added(), 4u);
  EXPECT_EQ(s.first_id(), (StreamId{1000, 0}));
  EXPECT_EQ(s.last_id(), (StreamId{2000, 5}));
  EXPECT_EQ(s.last_entry_id(), (StreamId{2000, 5}));
  std::vector<FieldValue> got;
  ASSERT_TRUE(s.lookup({1000, 1}, got));
  EXPECT_EQ(got, std::vector<FieldValue>(std::begin(fv), std::end(fv)));
  EXPECT_FALSE(s.lookup({1000, 3}, got));
  EXPECT_TRUE(s.contains({2000, 5}));
  EXPECT_FALSE(s.contains({2000, 4}));
  StreamId last;
  EXPECT_TRUE(s.last_entry([&](StreamId i, std::span<const FieldValue> f) {
    last = i;
    EXPECT_EQ(f.size(), 2u);
  }));
  EXPECT_EQ(last, (StreamId{2000, 5}));
}

TEST(Stream, AppendErrors) {
  Stream s;
  EXPECT_EQ(s.append({0, 0}, kFv).err(), Err::kIdZero);
  EXPECT_EQ(s.length(), 0u);
  ASSERT_TRUE(s.append({5, 5}, kFv).ok());
  EXPECT_EQ(s.append({5, 5}, kFv).err(), Err::kIdTooSmall);
  EXPECT_EQ(s.append({4, 9}, kFv).err(), Err::kIdTooSmall);
  EXPECT_EQ(s.append(IdSpec::seq_auto(4), kFv, 0).err(), Err::kIdTooSmall);
  ASSERT_TRUE(s.append(StreamId::max(), kFv).ok());
  EXPECT_EQ(s.append(IdSpec::automatic(), kFv, 1).err(), Err::kIdExhausted);
  EXPECT_EQ(s.append({1, 1}, kFv).err(), Err::kIdExhausted);
  EXPECT_EQ(s.append({0, 0}, kFv).err(), Err::kIdZero);
  EXPECT_EQ(s.length(), 2u);
  EXPECT_EQ(s.entries_added(), 2u);

  // More than 1 GiB of fields and values. The view is never read: the size check comes first.
  Stream t;
  const char small[1] = {'x'};
  const FieldValue huge[] = {{"f", std::string_view(small, Stream::kMaxElementsLength)}};
  EXPECT_EQ(t.append(IdSpec::automatic(), huge, 1).err(), Err::kElementsTooLarge);
  EXPECT_EQ(t.length(), 0u);
  EXPECT_EQ(t.last_id(), StreamId::min());
}

TEST(Stream, AutoIdWhenTheClockGoesBackwards) {
  ManualClock clock(1000);
  Stream s;
  auto add = [&] {
    return *s.append(IdSpec::automatic(), kFv, static_cast<uint64_t>(clock.now_ms()));
  };
  EXPECT_EQ(add(), (StreamId{1000, 0}));
  EXPECT_EQ(add(), (StreamId{1000, 1}));
  clock.set(900);  // the clock jumps back: the IDs keep going from the last one
  EXPECT_EQ(add(), (StreamId{1000, 2}));
  EXPECT_EQ(add(), (StreamId{1000, 3}));
  clock.set(1001);
  EXPECT_EQ(add(), (StreamId{1001, 0}));
  // An explicit future ID also holds auto IDs back.
  ASSERT_TRUE(s.append({5000, 7}, kFv).ok());
  EXPECT_EQ(add(), (StreamId{5000, 8}));
  ASSERT_TRUE(s.append({5000, UINT64_MAX}, kFv).ok());
  EXPECT_EQ(add(), (StreamId{5001, 0}));
}

TEST(Stream, NodeRolloverByEntries) {
  for (uint64_t per_node : {1, 2, 10, 100}) {
    Stream s({per_node, 0});
    fill(s, 1000);
    EXPECT_EQ(s.radix_tree_keys(), (1000 + per_node - 1) / per_node) << per_node;
    EXPECT_EQ(ids_of(s).size(), 1000u);
  }
}

// Node counts observed on redis-server 7.0.15 with stream-node-max-entries 0 and the given
// stream-node-max-bytes, adding i-0 => {f: "v" * i} for i = 1..29.
TEST(Stream, NodeRolloverByBytesMatchesRedis) {
  const std::vector<std::pair<uint64_t, std::vector<int>>> observed = {
      {50, {1,  1,  1,  2,  2,  3,  3,  4,  4,  5,  6,  7,  8,  9, 10,
            11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}},
      {100,
       {1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10}},
      {200,
       {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4}},
  };
  for (const auto& [max_bytes, keys] : observed) {
    Stream s({0, max_bytes});
    for (int i = 1; i <= 29; ++i) {
      std::string v(static_cast<std::size_t>(i), 'v');
      const FieldValue fv[] = {{"f", v}};
      ASSERT_TRUE(s.append({static_cast<uint64_t>(i), 0}, fv).ok());
      EXPECT_EQ(s.radix_tree_keys(), static_cast<std::size_t>(keys[i - 1]))
          << "max_bytes " << max_bytes << " entry " << i;
    }
  }
}

TEST(Stream, NewLimitsApplyToNewNodes) {
  Stream s({2, 0});
  fill(s, 4);
  EXPECT_EQ(s.radix_tree_keys(), 2u);
  // Like Redis, the limit is checked when appending: the tail node [3, 4] takes 5..7.
  s.set_limits({5, 0});
  for (uint64_t i = 5; i <= 9; ++i) ASSERT_TRUE(s.append({i, 0}, kFv).ok());
  EXPECT_EQ(s.radix_tree_keys(), 3u);  // [1, 2] [3 .. 7] [8, 9]
  EXPECT_EQ(s.limits().max_entries, 5u);
  s.trim(TrimSpec::max_len(7, true));
  EXPECT_EQ(s.first_id(), (StreamId{3, 0}));
}

TEST(Stream, RangesForwardAndBackward) {
  Stream s({3, 0});
  fill(s, 10);
  using V = std::vector<StreamId>;
  EXPECT_EQ(ids_of(s, {3, 0}, {5, 0}), (V{{3, 0}, {4, 0}, {5, 0}}));
  EXPECT_EQ(ids_of(s, {3, 1}, {5, 0}), (V{{4, 0}, {5, 0}}));
  EXPECT_EQ(ids_of(s, {3, 0}, {5, 0}, Direction::kBackward), (V{{5, 0}, {4, 0}, {3, 0}}));
  EXPECT_EQ(ids_of(s, {0, 0}, {2, UINT64_MAX}), (V{{1, 0}, {2, 0}}));
  EXPECT_EQ(ids_of(s, {9, 0}, StreamId::max(), Direction::kBackward), (V{{10, 0}, {9, 0}}));
  EXPECT_EQ(ids_of(s, {11, 0}, StreamId::max()), V{});
  EXPECT_EQ(ids_of(s, {0, 0}, {0, 5}, Direction::kBackward), V{});
  EXPECT_EQ(ids_of(s, {5, 0}, {4, 0}), V{});  // start > end
  EXPECT_EQ(ids_of(s, {5, 0}, {5, 0}), (V{{5, 0}}));
  EXPECT_EQ(ids_of(s, StreamId::min(), StreamId::max(), Direction::kForward, 4),
            (V{{1, 0}, {2, 0}, {3, 0}, {4, 0}}));
  EXPECT_EQ(ids_of(s, StreamId::min(), StreamId::max(), Direction::kBackward, 2),
            (V{{10, 0}, {9, 0}}));
  // A visitor returning false stops.
  std::size_t n = s.range(StreamId::min(), StreamId::max(), 0, Direction::kForward,
                          [](StreamId id, std::span<const FieldValue>) { return id.ms < 3; });
  EXPECT_EQ(n, 3u);
  // Tombstones are skipped, whole freed nodes too.
  ASSERT_TRUE(s.erase({4, 0}));
  ASSERT_TRUE(s.erase({5, 0}));
  ASSERT_TRUE(s.erase({6, 0}));
  ASSERT_TRUE(s.erase({8, 0}));
  EXPECT_EQ(ids_of(s, {3, 0}, {9, 0}), (V{{3, 0}, {7, 0}, {9, 0}}));
  EXPECT_EQ(ids_of(s, {3, 0}, {9, 0}, Direction::kBackward), (V{{9, 0}, {7, 0}, {3, 0}}));
  EXPECT_EQ(ids_of(s, {4, 0}, {6, 0}), V{});
  EXPECT_EQ(ids_of(s, {4, 0}, {6, 0}, Direction::kBackward), V{});
}

TEST(Stream, IteratorFieldsAndMixedEntries) {
  Stream s({4, 0});
  const FieldValue a[] = {{"a", "1"}, {"b", "2"}};
  const FieldValue b[] = {{"b", "2"}, {"a", "1"}};
  const std::string long_value(300, 'y');
  const FieldValue c[] = {{"x", long_value}};
  for (uint64_t i = 1; i <= 12; ++i) {
    auto f = i % 3 == 0   ? std::span<const FieldValue>(a)
             : i % 3 == 1 ? std::span<const FieldValue>(b)
                          : std::span<const FieldValue>(c);
    ASSERT_TRUE(s.append({i, i}, f).ok());
  }
  uint64_t i = 12;
  for (auto it = s.scan(StreamId::min(), StreamId::max(), Direction::kBackward); it.next(); --i) {
    EXPECT_EQ(it.id(), (StreamId{i, i}));
    auto want = i % 3 == 0   ? std::span<const FieldValue>(a)
                : i % 3 == 1 ? std::span<const FieldValue>(b)
                             : std::span<const FieldValue>(c);
    auto got = it.fields();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], want[k]);
    EXPECT_EQ(it.fields().data(), got.data());  // decoded once per entry
  }
  EXPECT_EQ(i, 0u);
}

TEST(Stream, EraseUpdatesMetadataAndFreesNodes) {
  // The same steps as a redis-server 7.0.15 session (stream-node-max-entries 3).
  Stream s({3, 0});
  fill(s, 10);
  EXPECT_EQ(s.radix_tree_keys(), 4u);
  EXPECT_TRUE(s.erase({1, 0}));
  EXPECT_TRUE(s.erase({5, 0}));
  EXPECT_FALSE(s.erase({99, 0}));
  EXPECT_FALSE(s.erase({5, 0}));  // already deleted
  EXPECT_EQ(s.length(), 8u);
  EXPECT_EQ(s.first_id(), (StreamId{2, 0}));
  EXPECT_EQ(s.max_deleted_entry_id(), (StreamId{5, 0}));
  EXPECT_TRUE(s.erase({4, 0}));
  EXPECT_TRUE(s.erase({6, 0}));  // node [4, 5, 6] has nothing live left: freed
  EXPECT_EQ(s.radix_tree_keys(), 3u);
  EXPECT_EQ(s.max_deleted_entry_id(), (StreamId{6, 0}));
  EXPECT_TRUE(s.erase({3, 0}));  // smaller than max deleted: that stays
  EXPECT_EQ(s.max_deleted_entry_id(), (StreamId{6, 0}));
  EXPECT_TRUE(s.erase({10, 0}));  // the last entry: last_id stays
  EXPECT_EQ(s.last_id(), (StreamId{10, 0}));
  EXPECT_EQ(s.last_entry_id(), (StreamId{9, 0}));
  for (uint64_t i : {2, 7, 8, 9}) EXPECT_TRUE(s.erase({i, 0}));
  EXPECT_EQ(s.length(), 0u);
  EXPECT_EQ(s.radix_tree_keys(), 0u);
  EXPECT_EQ(s.first_id(), StreamId::min());
  EXPECT_EQ(s.max_deleted_entry_id(), (StreamId{10, 0}));
  EXPECT_EQ(s.entries_added(), 10u);
  // Appending after everything was deleted starts a fresh node.
  ASSERT_TRUE(s.append({11, 0}, kFv).ok());
  EXPECT_EQ(s.first_id(), (StreamId{11, 0}));
  EXPECT_EQ(s.radix_tree_keys(), 1u);
}

TEST(Stream, SetIdLikeRedis72) {
  Stream s;
  fill(s, 5);
  ASSERT_TRUE(s.erase({5, 0}));
  ASSERT_TRUE(s.erase({4, 0}));
  EXPECT_EQ(s.max_deleted_entry_id(), (StreamId{5, 0}));
  // Redis 7.2+ compares with the current max_deleted_entry_id (7.0.15 accepted 4-5 and 3-5,
  // only the top item 3-0 bounded it), before the top-item check.
  EXPECT_EQ(s.set_id({4, 5}), Err::kSetIdSmallerThanMaxDeleted);
  EXPECT_EQ(s.set_id({2, 5}), Err::kSetIdSmallerThanMaxDeleted);
  EXPECT_EQ(s.last_id(), (StreamId{5, 0}));
  EXPECT_EQ(s.set_id({5, 0}), Err::kOk);  // equal to max_deleted_entry_id is allowed
  EXPECT_EQ(s.set_id({5, 0}, std::nullopt, StreamId{5, 1}),
            Err::kSetIdSmallerThanProvidedMaxDeleted);
  EXPECT_EQ(s.set_id({5, 0}, 1, StreamId{5, 0}), Err::kEntriesAddedSmallerThanLength);
  // The provided max-deleted check comes before the others.
  EXPECT_EQ(s.set_id({1, 0}, 1, StreamId{2, 0}), Err::kSetIdSmallerThanProvidedMaxDeleted);
  EXPECT_EQ(s.last_id(), (StreamId{5, 0}));
  EXPECT_EQ(s.set_id({11, 0}, 5, StreamId{0, 0}), Err::kOk);  // 0-0 keeps max_deleted
  EXPECT_EQ(s.max_deleted_entry_id(), (StreamId{5, 0}));
  EXPECT_EQ(s.entries_added(), 5u);
  EXPECT_EQ(s.set_id({12, 0}, 3, StreamId{2, 0}), Err::kOk);  // max_deleted may go down
  EXPECT_EQ(s.max_deleted_entry_id(), (StreamId{2, 0}));
  EXPECT_EQ(s.entries_added(), 3u);
  // The entry after a lowered last_id still lands in order (a new node past the tombstones).
  ASSERT_EQ(s.set_id({3, 1}), Err::kOk);
  ASSERT_TRUE(s.append(IdSpec::automatic(), kFv, 0).ok());
  EXPECT_EQ(s.last_id(), (StreamId{3, 2}));
  EXPECT_EQ(ids_of(s), (std::vector<StreamId>{{1, 0}, {2, 0}, {3, 0}, {3, 2}}));
  EXPECT_EQ(ids_of(s, StreamId::min(), StreamId::max(), Direction::kBackward),
            (std::vector<StreamId>{{3, 2}, {3, 0}, {2, 0}, {1, 0}}));
  // A stream that never lost an entry takes any ID and any entries_added when empty.
  Stream e;
  EXPECT_EQ(e.set_id({10, 5}, 0), Err::kOk);
  EXPECT_EQ(e.last_id(), (StreamId{10, 5}));
  EXPECT_EQ(e.append({10, 5}, kFv).err(), Err::kIdTooSmall);
  // One emptied by XDEL is still bounded by its max_deleted_entry_id.
  ASSERT_TRUE(e.append({11, 0}, kFv).ok());
  ASSERT_TRUE(e.erase({11, 0}));
  EXPECT_EQ(e.length(), 0u);
  EXPECT_EQ(e.set_id({10, 9}), Err::kSetIdSmallerThanMaxDeleted);
  EXPECT_EQ(e.set_id({11, 0}), Err::kOk);
}

TEST(Stream, CloneIsDeepAndEqual) {
  Stream s({10, 0});
  fill(s, 95);
  ASSERT_TRUE(s.erase({50, 0}));
  std::unique_ptr<Stream> c = s.clone();
  EXPECT_EQ(ids_of(*c), ids_of(s));
  EXPECT_EQ(c->length(), s.length());
  EXPECT_EQ(c->last_id(), s.last_id());
  EXPECT_EQ(c->first_id(), s.first_id());
  EXPECT_EQ(c->max_deleted_entry_id(), s.max_deleted_entry_id());
  EXPECT_EQ(c->entries_added(), s.entries_added());
  EXPECT_EQ(c->radix_tree_keys(), s.radix_tree_keys());
  EXPECT_EQ(c->limits().max_entries, 10u);
  EXPECT_LE(c->memory_usage(), s.memory_usage());  // the copy's tail node is shrunk
  ASSERT_TRUE(c->erase({1, 0}));
  ASSERT_TRUE(c->append({96, 0}, kFv).ok());
  EXPECT_TRUE(s.contains({1, 0}));
  EXPECT_FALSE(s.contains({96, 0}));
}

TEST(Stream, MemoryUsageTracksNodes) {
  Stream s;
  std::size_t empty = s.memory_usage();
  EXPECT_GE(empty, sizeof(Stream));
  fill(s, 1000);
  std::size_t full = s.memory_usage();
  EXPECT_GT(full, empty + 1000 * 5);
  s.trim(TrimSpec::max_len(0));
  EXPECT_EQ(s.memory_usage(), empty);
}

// Not a timed assertion: prints what one small entry costs. Redis 7.0.15 needs about 16 bytes
// per entry for this workload.
TEST(Stream, MemoryPerEntryReport) {
  const FieldValue fv[] = {{"temperature", "23.5"}};
  const uint64_t n = 1000000;
  for (uint64_t per_ms : {10, 1}) {
    struct mallinfo2 before = mallinfo2();
    auto s = std::make_unique<Stream>();
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(s->append(IdSpec::automatic(), fv, 1700000000000 + i / per_ms).ok());
    }
    struct mallinfo2 after = mallinfo2();
    double estimate = static_cast<double>(s->memory_usage()) / n;
    double measured = static_cast<double>(after.uordblks - before.uordblks) / n;
    std::printf(
        "[ stream ] %llu entries/ms: memory_usage %.2f bytes/entry, malloc %.2f "
        "bytes/entry, %zu nodes\n",
        static_cast<unsigned long long>(per_ms), estimate, measured, s->radix_tree_keys());
    EXPECT_LT(estimate, 16.0);
  }
}

}  // namespace
}  // namespace streamd::engine
