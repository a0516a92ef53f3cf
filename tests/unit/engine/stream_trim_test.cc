// Stream::trim (XTRIM / XADD MAXLEN|MINID): exact and approximate trimming on node boundaries.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "streamd/engine/stream.h"

namespace streamd::engine {
namespace {

const FieldValue kOneFieldValue[] = {{"f", "v"}};

std::vector<StreamId> all_ids(const Stream& s) {
  std::vector<StreamId> out;
  for (auto it = s.scan(StreamId::min(), StreamId::max()); it.next();) out.push_back(it.id());
  return out;
}

void fill(Stream& s, uint64_t from, uint64_t to) {
  for (uint64_t i = from; i <= to; ++i) ASSERT_TRUE(s.append({i, 0}, kOneFieldValue).ok());
}

struct Meta {
  uint64_t length;
  std::size_t keys;
  StreamId first;
  StreamId max_deleted;
};

void expect_meta(const Stream& s, const Meta& m) {
  EXPECT_EQ(s.length(), m.length);
  EXPECT_EQ(s.radix_tree_keys(), m.keys);
  EXPECT_EQ(s.first_id(), m.first);
  EXPECT_EQ(s.max_deleted_entry_id(), m.max_deleted);
  EXPECT_EQ(s.last_id(), (StreamId{10, 0}));
  EXPECT_EQ(s.entries_added(), 10u);
}

// Each case replays a redis-server 7.0.15 session: stream-node-max-entries 3, entries
// 1-0 .. 10-0 (nodes [1 2 3] [4 5 6] [7 8 9] [10]), then the commands in the comments.
class StreamTrimLikeRedis : public ::testing::Test {
 protected:
  void SetUp() override { fill(s, 1, 10); }
  Stream s{StreamLimits{3, 0}};
};

TEST_F(StreamTrimLikeRedis, ApproxMaxLen) {
  EXPECT_EQ(s.trim(TrimSpec::max_len(8, true)).removed, 0u);  // XTRIM s MAXLEN ~ 8
  expect_meta(s, {10, 4, {1, 0}, {}});
  EXPECT_EQ(s.trim(TrimSpec::max_len(5, true)).removed, 3u);  // XTRIM s MAXLEN ~ 5
  expect_meta(s, {7, 3, {4, 0}, {}});
}

TEST_F(StreamTrimLikeRedis, ApproxMaxLenWithLimit) {
  EXPECT_EQ(s.trim(TrimSpec::max_len(5, true, 2)).removed, 0u);  // ... LIMIT 2
  expect_meta(s, {10, 4, {1, 0}, {}});
  EXPECT_EQ(s.trim(TrimSpec::max_len(5, true, 3)).removed, 3u);  // ... LIMIT 3
  expect_meta(s, {7, 3, {4, 0}, {}});
}

TEST_F(StreamTrimLikeRedis, ApproxMinId) {
  EXPECT_EQ(s.trim(TrimSpec::min_id({5, 0}, true)).removed, 3u);
  expect_meta(s, {7, 3, {4, 0}, {}});
  EXPECT_EQ(s.trim(TrimSpec::min_id({7, 0}, true)).removed, 3u);
  expect_meta(s, {4, 2, {7, 0}, {}});
  TrimResult r = s.trim(TrimSpec::min_id({11, 0}, true));
  EXPECT_EQ(r.removed, 4u);
  expect_meta(s, {0, 0, {}, {}});
  EXPECT_EQ(r.exact_minid, StreamId::max());
  EXPECT_EQ(r.exact_maxlen, 0u);
}

TEST_F(StreamTrimLikeRedis, ExactMinId) {
  EXPECT_EQ(s.trim(TrimSpec::min_id({5, 0})).removed, 4u);
  expect_meta(s, {6, 3, {5, 0}, {}});
}

TEST_F(StreamTrimLikeRedis, ExactMaxLenAfterDeletes) {
  ASSERT_TRUE(s.erase({2, 0}));
  ASSERT_TRUE(s.erase({3, 0}));
  EXPECT_EQ(s.trim(TrimSpec::max_len(6)).removed, 2u);
  expect_meta(s, {6, 3, {5, 0}, {3, 0}});  // trimming leaves max_deleted alone
  EXPECT_EQ(all_ids(s), (std::vector<StreamId>{{5, 0}, {6, 0}, {7, 0}, {8, 0}, {9, 0}, {10, 0}}));
}

TEST_F(StreamTrimLikeRedis, ExactMinIdKeepsANodeWithNothingLive) {
  ASSERT_TRUE(s.erase({6, 0}));
  // [4 5 6*]: its last ID (a tombstone) is not below 6, so 4 and 5 are tombstoned in place and
  // the node stays, as in Redis (radix-tree-keys 3).
  EXPECT_EQ(s.trim(TrimSpec::min_id({6, 0})).removed, 5u);
  expect_meta(s, {4, 3, {7, 0}, {6, 0}});
  ASSERT_TRUE(s.append({11, 0}, kOneFieldValue).ok());
  EXPECT_EQ(s.radix_tree_keys(), 3u);
  EXPECT_EQ(all_ids(s), (std::vector<StreamId>{{7, 0}, {8, 0}, {9, 0}, {10, 0}, {11, 0}}));
  // The next trim frees it whole.
  EXPECT_EQ(s.trim(TrimSpec::max_len(5)).removed, 0u);
  EXPECT_EQ(s.trim(TrimSpec::max_len(4)).removed, 1u);
  EXPECT_EQ(s.radix_tree_keys(), 2u);
  EXPECT_EQ(s.first_id(), (StreamId{8, 0}));
}

TEST_F(StreamTrimLikeRedis, MaxLenZero) {
  EXPECT_EQ(s.trim(TrimSpec::max_len(0, true)).removed, 10u);
  expect_meta(s, {0, 0, {}, {}});
}

TEST(StreamTrim, AppendThenTrimToZeroLikeXaddMaxLen0) {
  for (bool approx : {false, true}) {
    Stream s({3, 0});
    fill(s, 1, 10);
    ASSERT_TRUE(s.append({11, 0}, kOneFieldValue).ok());
    s.trim(TrimSpec::max_len(0, approx));
    EXPECT_EQ(s.length(), 0u);
    EXPECT_EQ(s.radix_tree_keys(), 0u);
    EXPECT_EQ(s.last_id(), (StreamId{11, 0}));
    EXPECT_EQ(s.entries_added(), 11u);
    ASSERT_TRUE(s.append({12, 0}, kOneFieldValue).ok());
    EXPECT_EQ(s.first_id(), (StreamId{12, 0}));
    EXPECT_EQ(s.radix_tree_keys(), 1u);
  }
}

// With no deletes, node k (0-based) holds IDs k*L+1 .. (k+1)*L.
TEST(StreamTrim, ApproxRemovesWholeNodesOnly) {
  for (uint64_t per : {1, 2, 10, 100}) {
    for (uint64_t n : {1000, 1005}) {
      for (uint64_t maxlen : {0, 1, 99, 100, 101, 555, 999, 1000, 2000}) {
        for (uint64_t limit : {0, 1, 150, 10000}) {
          Stream s({per, 0});
          fill(s, 1, n);
          uint64_t full_nodes = n / per;  // a partial last node is never removable whole...
          uint64_t nodes = (n + per - 1) / per;
          uint64_t k = n > maxlen ? (n - maxlen) / per : 0;
          if (maxlen == 0 && n % per != 0) k = nodes;  // ...unless nothing may remain
          k = std::min(k, nodes);
          if (limit != 0) {
            // Whole nodes only while the running total stays within the limit.
            uint64_t by_limit = 0;
            for (uint64_t removed = 0, i = 0; i < k; ++i) {
              uint64_t size = i < full_nodes ? per : n % per;
              if (removed + size > limit) break;
              removed += size;
              ++by_limit;
            }
            k = by_limit;
          }
          uint64_t want = std::min(n, k * per);
          TrimResult r = s.trim(TrimSpec::max_len(maxlen, true, limit));
          ASSERT_EQ(r.removed, want) << per << " " << n << " " << maxlen << " " << limit;
          EXPECT_EQ(r.exact_maxlen, n - want);
          EXPECT_EQ(s.length(), n - want);
          EXPECT_EQ(s.radix_tree_keys(), nodes - k);
          EXPECT_EQ(s.first_id(), (want == n ? StreamId{} : StreamId{want + 1, 0}));
        }
      }
      for (uint64_t minid : {1, 2, 100, 101, 500, 1000, 1001, 1006}) {
        Stream s({per, 0});
        fill(s, 1, n);
        // Node k can go iff its last ID < minid.
        uint64_t want = 0;
        for (uint64_t first = 1; first <= n; first += per) {
          uint64_t last = std::min(first + per - 1, n);
          if (last >= minid) break;
          want = last;
        }
        TrimResult r = s.trim(TrimSpec::min_id({minid, 0}, true));
        ASSERT_EQ(r.removed, want) << per << " " << n << " " << minid;
        EXPECT_EQ(r.exact_minid, (want == n ? StreamId::max() : StreamId{want + 1, 0}));
      }
    }
  }
}

TEST(StreamTrim, ExactOnNodeBoundaries) {
  for (uint64_t per : {1, 2, 10, 100}) {
    for (uint64_t maxlen : {0, 1, 9, 10, 11, 99, 100, 101, 500, 999, 1000, 1001}) {
      Stream s({per, 0});
      fill(s, 1, 1000);
      TrimResult r = s.trim(TrimSpec::max_len(maxlen));
      uint64_t keep = std::min<uint64_t>(maxlen, 1000);
      ASSERT_EQ(r.removed, 1000 - keep);
      EXPECT_EQ(s.length(), keep);
      EXPECT_EQ(s.first_id(), (keep ? StreamId{1000 - keep + 1, 0} : StreamId{}));
      // Fully trimmed nodes are freed; the boundary node keeps its tombstones.
      EXPECT_EQ(s.radix_tree_keys(), (keep + (1000 - keep) % per + per - 1) / per);
      std::vector<StreamId> ids = all_ids(s);
      ASSERT_EQ(ids.size(), keep);
      if (keep) {
        EXPECT_EQ(ids.front(), (StreamId{1000 - keep + 1, 0}));
      }
      EXPECT_EQ(s.max_deleted_entry_id(), StreamId{});
    }
    for (uint64_t minid : {1, 2, 10, 11, 100, 101, 999, 1000, 1001}) {
      Stream s({per, 0});
      fill(s, 1, 1000);
      TrimResult r = s.trim(TrimSpec::min_id({minid, 0}));
      ASSERT_EQ(r.removed, std::min<uint64_t>(minid - 1, 1000));
      EXPECT_EQ(r.exact_minid, (minid <= 1000 ? StreamId{minid, 0} : StreamId::max()));
      EXPECT_EQ(s.first_id(), (minid <= 1000 ? StreamId{minid, 0} : StreamId{}));
    }
  }
}

// Random appends, deletes, trims and limit changes against a std::map model.
TEST(StreamTrim, RandomOperationsAgainstModel) {
  std::mt19937_64 rng(11);
  for (uint64_t per : {1, 2, 10, 100}) {
    Stream s({per, 0});
    std::map<StreamId, uint64_t> model;  // live entries → value
    StreamId max_deleted;
    uint64_t added = 0;
    uint64_t ms = 1;
    std::vector<FieldValue> fv;
    std::string value;
    for (int step = 0; step < 6000; ++step) {
      int op = static_cast<int>(rng() % 100);
      if (op < 55) {
        ms += rng() % 3;
        value = std::to_string(rng() % 1000);
        const FieldValue one[] = {{"f", value}};
        Result<StreamId> id = s.append(IdSpec::automatic(), one, ms);
        ASSERT_TRUE(id.ok());
        model[*id] = std::stoull(value);
        ++added;
      } else if (op < 75) {
        if (model.empty()) continue;
        auto it = model.begin();
        std::advance(it, static_cast<long>(rng() % model.size()));
        StreamId id = rng() % 4 ? it->first : StreamId{it->first.ms, it->first.seq + 1000};
        bool in_model = model.erase(id) == 1;
        ASSERT_EQ(s.erase(id), in_model);
        if (in_model) max_deleted = std::max(max_deleted, id);
      } else if (op < 97) {
        bool approx = rng() % 2;
        uint64_t limit = approx && rng() % 3 == 0 ? rng() % 300 : 0;
        uint64_t before = model.size();
        TrimResult r;
        uint64_t exact_removed;
        if (rng() % 2) {
          uint64_t maxlen = model.empty() ? 0 : rng() % (model.size() + 5);
          r = s.trim(TrimSpec::max_len(maxlen, approx, limit));
          exact_removed = before > maxlen ? before - maxlen : 0;
        } else {
          StreamId minid =
              model.empty()
                  ? StreamId{ms, 0}
                  : std::next(model.begin(), static_cast<long>(rng() % model.size()))->first;
          r = s.trim(TrimSpec::min_id(minid, approx, limit));
          exact_removed =
              static_cast<uint64_t>(std::distance(model.begin(), model.lower_bound(minid)));
        }
        if (approx) {
          ASSERT_LE(r.removed, exact_removed);
        } else {
          ASSERT_EQ(r.removed, exact_removed);
        }
        if (limit) {
          ASSERT_LE(r.removed, limit);
        }
        for (uint64_t i = 0; i < r.removed; ++i) model.erase(model.begin());
      } else {
        s.set_limits({1 + rng() % (2 * per), rng() % 3 ? 0 : 64 + rng() % 512});
      }
      ASSERT_EQ(s.length(), model.size());
      ASSERT_EQ(s.first_id(), model.empty() ? StreamId{} : model.begin()->first);
      ASSERT_EQ(s.last_entry_id(), model.empty() ? StreamId{} : model.rbegin()->first);
      ASSERT_EQ(s.max_deleted_entry_id(), max_deleted);
      ASSERT_EQ(s.entries_added(), added);
      if (step % 50 == 0) {
        std::vector<StreamId> want;
        for (auto& [id, v] : model) want.push_back(id);
        ASSERT_EQ(all_ids(s), want);
        std::vector<FieldValue> got;
        for (auto& [id, v] : model) {
          ASSERT_TRUE(s.lookup(id, got));
          ASSERT_EQ(got[0].value, std::to_string(v));
        }
      }
    }
  }
}

// Re-applying the reported exact threshold to a copy taken before an approximate trim gives
// the same stream (what the AOF and replicas rely on).
TEST(StreamTrim, ExactThresholdReproducesApproxTrim) {
  std::mt19937_64 rng(2);
  for (int round = 0; round < 200; ++round) {
    Stream s({1 + rng() % 20, 0});
    fill(s, 1, 1 + rng() % 300);
    for (int d = 0; d < 20; ++d) s.erase({1 + rng() % 300, 0});
    std::unique_ptr<Stream> replica = s.clone();
    bool by_len = rng() % 2;
    TrimResult r = by_len ? s.trim(TrimSpec::max_len(rng() % 300, true))
                          : s.trim(TrimSpec::min_id({rng() % 320, 0}, true));
    TrimResult again = by_len ? replica->trim(TrimSpec::max_len(r.exact_maxlen))
                              : replica->trim(TrimSpec::min_id(r.exact_minid));
    EXPECT_EQ(again.removed, r.removed);
    EXPECT_EQ(all_ids(*replica), all_ids(s));
    EXPECT_EQ(replica->first_id(), s.first_id());
  }
}

}  // namespace
}  // namespace streamd::engine
