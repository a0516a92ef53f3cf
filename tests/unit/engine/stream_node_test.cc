#include "streamd/engine/stream_node.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

namespace streamd::engine {
namespace {

// An entry owning its strings, to compare with what the node decodes.
struct Owned {
  StreamId id;
  std::vector<std::pair<std::string, std::string>> fv;

  std::vector<FieldValue> views() const {
    std::vector<FieldValue> out;
    for (auto& [f, v] : fv) out.push_back({f, v});
    return out;
  }
};

void expect_entries(const StreamNode& node, const std::vector<Owned>& want,
                    const std::vector<bool>& deleted) {
  std::vector<FieldValue> got;
  std::size_t i = 0;
  for (uint32_t off = node.first_offset(); off != node.end_offset(); ++i) {
    StreamNode::Entry e = node.entry(off);
    ASSERT_LT(i, want.size());
    EXPECT_EQ(e.id, want[i].id);
    EXPECT_EQ(e.deleted, deleted[i]);
    node.read_fields(off, got);
    EXPECT_EQ(got, want[i].views()) << "entry " << i;
    off = e.next;
  }
  EXPECT_EQ(i, want.size());
  // Backward through the collected offsets gives the same entries reversed.
  std::vector<uint32_t> offs;
  node.offsets(offs);
  ASSERT_EQ(offs.size(), want.size());
  for (std::size_t k = offs.size(); k-- > 0;) EXPECT_EQ(node.entry(offs[k]).id, want[k].id);
}

TEST(StreamNode, SingleEntryRoundTrip) {
  Owned e{{1700000000000, 3}, {{"temperature", "23.5"}, {"unit", "C"}}};
  auto v = e.views();
  StreamNode node(e.id, v);
  EXPECT_EQ(node.master_id(), e.id);
  EXPECT_EQ(node.last_id(), e.id);
  EXPECT_EQ(node.live(), 1u);
  EXPECT_EQ(node.deleted(), 0u);
  EXPECT_EQ(node.master_field_count(), 2u);
  EXPECT_EQ(node.bytes(), node.capacity());
  expect_entries(node, {e}, {false});
}

TEST(StreamNode, MixedFieldsIdsAndSizes) {
  std::mt19937_64 rng(5);
  std::vector<Owned> want;
  StreamId id{1000, 7};
  auto random_string = [&](std::size_t max_len) {
    std::string s(rng() % (max_len + 1), '\0');
    for (char& c : s) c = static_cast<char>(rng());  // binary, NULs included
    return s;
  };
  want.push_back({id, {{"a", "1"}, {"b", "2"}}});
  for (int i = 0; i < 300; ++i) {
    // Deltas of every size: same ms, small and huge ms jumps, sequences below the master's.
    switch (rng() % 5) {
      case 0:
        id.seq += 1 + rng() % 3;
        break;
      case 1:
        id = {id.ms + 1 + rng() % 31, rng() % 3};
        break;
      case 2:
        id = {id.ms + 32 + rng() % 100000, rng() % 100000};
        break;
      case 3:
        id = {id.ms + (uint64_t{1} << (20 + rng() % 20)), rng()};
        break;
      default:
        id.seq += rng() % 1000 + 1;
    }
    Owned e{id, {}};
    switch (rng() % 4) {
      case 0:  // the master's fields: values only
        e.fv = {{"a", random_string(10)}, {"b", random_string(300)}};
        break;
      case 1:  // same names, other order
        e.fv = {{"b", "x"}, {"a", "y"}};
        break;
      case 2:  // other count
        e.fv = {{"a", random_string(200)}};
        break;
      default:
        for (int k = 0, n = static_cast<int>(rng() % 4); k < n; ++k) {
          e.fv.emplace_back(random_string(150), random_string(5000));
        }
    }
    want.push_back(std::move(e));
  }
  auto v0 = want[0].views();
  StreamNode node(want[0].id, v0);
  for (std::size_t i = 1; i < want.size(); ++i) node.append(want[i].id, want[i].views());
  EXPECT_EQ(node.live(), want.size());
  EXPECT_EQ(node.last_id(), want.back().id);
  expect_entries(node, want, std::vector<bool>(want.size(), false));

  // The last possible ID after a tiny master, and back in a copy.
  Owned edge{StreamId::max(), {{"", ""}}};
  node.append(edge.id, edge.views());
  want.push_back(edge);
  StreamNode copy = node;
  EXPECT_EQ(copy.bytes(), node.bytes());
  EXPECT_EQ(copy.capacity(), copy.bytes());
  expect_entries(copy, want, std::vector<bool>(want.size(), false));
}

TEST(StreamNode, TombstonesFindAndShrink) {
  std::vector<Owned> want;
  for (uint64_t i = 0; i < 50; ++i)
    want.push_back({{10 + i / 4, i % 4}, {{"f", std::to_string(i)}}});
  auto v0 = want[0].views();
  StreamNode node(want[0].id, v0);
  for (std::size_t i = 1; i < want.size(); ++i) node.append(want[i].id, want[i].views());
  std::vector<bool> deleted(want.size(), false);
  for (std::size_t i : {0, 7, 8, 49}) {
    std::optional<uint32_t> off = node.find(want[i].id);
    ASSERT_TRUE(off);
    EXPECT_TRUE(node.tombstone(*off));
    EXPECT_FALSE(node.tombstone(*off));
    deleted[i] = true;
  }
  EXPECT_EQ(node.live(), 46u);
  EXPECT_EQ(node.deleted(), 4u);
  EXPECT_EQ(node.last_id(), want.back().id);  // a tombstone still counts as the last entry
  expect_entries(node, want, deleted);
  EXPECT_FALSE(node.find({9, 0}));     // before the master
  EXPECT_FALSE(node.find({10, 9}));    // between entries
  EXPECT_FALSE(node.find({99, 0}));    // after the last
  EXPECT_TRUE(node.find(want[7].id));  // tombstones are still found
  std::size_t lp = node.listpack_bytes();
  node.shrink_to_fit();
  EXPECT_EQ(node.capacity(), node.bytes());
  EXPECT_EQ(node.listpack_bytes(), lp);
  expect_entries(node, want, deleted);

  StreamNode moved = std::move(node);
  EXPECT_FALSE(node);
  EXPECT_TRUE(moved);
  expect_entries(moved, want, deleted);
}

TEST(StreamNode, SmallEntriesAreCompact) {
  const FieldValue fv[] = {{"temperature", "23.5"}};
  StreamNode node({1700000000000, 0}, fv);
  std::size_t before = node.bytes();
  for (uint64_t i = 1; i < 100; ++i) node.append({1700000000000 + i / 10, i % 10}, fv);
  EXPECT_EQ(node.bytes() - before, 99u * 7);  // tag, seq, value length, 4 value bytes
}

// Sizes Redis's listpack would have, derived from redis-server's node rollover (a 50-byte
// stream-node-max-bytes closes the node once listpack size + element length reaches 50).
TEST(StreamNode, ListpackSizeMatchesRedis) {
  const FieldValue v1[] = {{"f", "v"}};
  const FieldValue v2[] = {{"f", "vv"}};
  const FieldValue v3[] = {{"f", "vvv"}};
  StreamNode node({1, 0}, v1);
  EXPECT_EQ(node.listpack_bytes(), 29u);
  node.append({2, 0}, v2);
  EXPECT_EQ(node.listpack_bytes(), 41u);
  node.append({3, 0}, v3);
  EXPECT_EQ(node.listpack_bytes(), 54u);
  // Integers are stored as integers; deleting changes the counters only.
  const FieldValue num[] = {{"f", "12345"}};
  std::size_t before = node.listpack_bytes();
  node.append({4, 0}, num);
  EXPECT_EQ(node.listpack_bytes() - before, 2u + 2 + 2 + 4 + 2);  // 12345 is a 16-bit int
  node.tombstone(node.first_offset());
  EXPECT_EQ(node.listpack_bytes() - before, 2u + 2 + 2 + 4 + 2);
  EXPECT_EQ(StreamNode::elements_length(v3), 4u);
  EXPECT_EQ(StreamNode::elements_length(std::span<const FieldValue>()), 0u);
}

TEST(StreamNode, EmptyFieldList) {
  StreamNode node({5, 5}, {});
  node.append({5, 6}, {});
  const FieldValue fv[] = {{"k", "v"}};
  node.append({6, 0}, fv);
  expect_entries(node, {{{5, 5}, {}}, {{5, 6}, {}}, {{6, 0}, {{"k", "v"}}}}, {false, false, false});
}

TEST(StreamNode, ExtremeIds) {
  const FieldValue fv[] = {{"f", "v"}};
  StreamNode node({0, UINT64_MAX}, fv);
  node.append({1, 0}, fv);           // seq below the master's
  node.append({UINT64_MAX, 0}, fv);  // the largest ms delta
  node.append({UINT64_MAX, UINT64_MAX - 1}, fv);
  node.append(StreamId::max(), fv);
  std::vector<StreamId> ids;
  for (uint32_t off = node.first_offset(); off != node.end_offset();) {
    StreamNode::Entry e = node.entry(off);
    ids.push_back(e.id);
    off = e.next;
  }
  EXPECT_EQ(ids, (std::vector<StreamId>{{0, UINT64_MAX},
                                        {1, 0},
                                        {UINT64_MAX, 0},
                                        {UINT64_MAX, UINT64_MAX - 1},
                                        StreamId::max()}));
}

}  // namespace
}  // namespace streamd::engine
