// PelKey: the compact key of the PEL trees must round-trip and sort exactly as IDs do.
#include "streamd/engine/pel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace streamd::engine {
namespace {

std::vector<StreamId> interesting_ids() {
  // Around every boundary of the encoding: the head's seqs (0..3), the tail's one-byte range
  // (seq 4..250) and its lengths, and ms's top bits (they go to the head's first byte).
  std::vector<uint64_t> parts{0,
                              1,
                              2,
                              3,
                              4,
                              5,
                              0xF6,
                              0xF7,
                              0xF8,
                              0xFA,
                              0xFB,
                              0xFF,
                              0x100,
                              0x101,
                              0x102,
                              0x103,
                              0xFFFF,
                              0x10000,
                              0x10002,
                              0x10003,
                              0xFFFFFF,
                              1ull << 32,
                              (1ull << 56) - 1,
                              1ull << 56,
                              (1ull << 62) - 1,
                              1ull << 62,
                              (1ull << 63) + 5,
                              UINT64_MAX - 3,
                              UINT64_MAX - 2,
                              UINT64_MAX - 1,
                              UINT64_MAX};
  std::vector<StreamId> ids;
  for (uint64_t ms : parts) {
    for (uint64_t seq : parts) ids.push_back({ms, seq});
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    uint64_t ms = rng() >> (rng() % 64);
    uint64_t seq = rng() >> (rng() % 64);
    ids.push_back({ms, seq});
  }
  return ids;
}

TEST(PelKey, RoundTripsAndKeepsIdOrder) {
  std::vector<StreamId> ids = interesting_ids();
  std::vector<std::pair<std::string, StreamId>> keyed;
  for (StreamId id : ids) {
    PelKey k(id);
    ASSERT_EQ(PelKey::decode(k.view()), id) << id.to_string();
    keyed.emplace_back(std::string(k.view()), id);
  }
  // Byte order of the keys (as the radix tree sorts them) equals ID order.
  std::sort(keyed.begin(), keyed.end());
  for (std::size_t i = 1; i < keyed.size(); ++i) {
    ASSERT_LE(keyed[i - 1].second, keyed[i].second)
        << keyed[i - 1].second.to_string() << " vs " << keyed[i].second.to_string();
    if (keyed[i - 1].second == keyed[i].second) {
      ASSERT_EQ(keyed[i - 1].first, keyed[i].first);
    }
  }
  EXPECT_EQ(PelKey({5, 0}).view().size(), 9u);
  EXPECT_EQ(PelKey({5, 3}).view().size(), 9u);
  EXPECT_EQ(PelKey({5, 4}).view().size(), 10u);
  EXPECT_EQ(PelKey({5, 250}).view().size(), 10u);
  EXPECT_EQ(PelKey({5, 251}).view().size(), 11u);
  EXPECT_EQ(PelKey({5, 1000}).view().size(), 12u);
  // Consecutive milliseconds with one small seq differ in the last byte (the radix tree keeps
  // such keys inline: issue 16 item 1).
  for (uint64_t seq = 0; seq < PelKey::kHeadSeqs; ++seq) {
    PelKey a({1700000000000, seq}), b({1700000000001, seq});
    EXPECT_EQ(a.view().substr(0, 8), b.view().substr(0, 8)) << seq;
    EXPECT_NE(a.view()[8], b.view()[8]) << seq;
  }
  EXPECT_EQ(PelKey(StreamId::max()).view().size(), PelKey::kMaxSize);
}

TEST(PelKey, PelSeeksInIdOrder) {
  Pel pel;
  // The Pel never dereferences its consumers: any address names an owner.
  int token = 0;
  uint32_t owner = pel.add_owner(reinterpret_cast<const Consumer*>(&token));
  std::vector<StreamId> ids;
  for (uint64_t i = 0; i < 200; ++i) ids.push_back({1000 + i / 3, (i % 3) * 200});
  for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_TRUE(pel.add(ids[i], 7, i, owner));
  EXPECT_FALSE(pel.add(ids[7], 7, 8, owner));
  EXPECT_TRUE(pel.check(nullptr));
  EXPECT_EQ(pel.first_id(), ids.front());
  EXPECT_EQ(pel.last_id(), ids.back());
  EXPECT_EQ(pel.find(ids[5])->delivery_count, 5u);
  EXPECT_FALSE(pel.find({1000, 1}).has_value());
  Pel::Iterator it = pel.seek({1001, 1});
  ASSERT_TRUE(it.valid());
  EXPECT_EQ(it.id(), (StreamId{1001, 200}));
  it = pel.seek({1001, 200}, SeekOp::kGt);
  EXPECT_EQ(it.id(), (StreamId{1001, 400}));
  std::size_t n = 0;
  for (Pel::Iterator p = pel.begin(); p.valid(); ++p) ASSERT_EQ(p.id(), ids[n++]);
  EXPECT_EQ(n, ids.size());
  EXPECT_TRUE(pel.erase(ids[3]));
  EXPECT_FALSE(pel.erase(ids[3]));
  EXPECT_EQ(pel.size(), 199u);
  EXPECT_EQ(pel.owner_size(owner), 199u);
  EXPECT_TRUE(pel.check(nullptr));
}

}  // namespace
}  // namespace streamd::engine
