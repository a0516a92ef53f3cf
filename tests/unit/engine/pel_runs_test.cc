// The Pel's run indexes (pel.h) against a plain model: random adds, releases, redeliveries,
// count changes and erases over a small ID space (so neighbours keep changing owner and time
// and runs split and merge all the time), checked after every step: the Pel's own invariant
// check (runs canonical, counts), the ID walk, every owner walk (from the start and from a
// random ID), the claim-order walk and every record's fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "streamd/engine/pel.h"

namespace streamd::engine {
namespace {

struct RunsEntry {
  int owner;  // -1 = NACKed
  int64_t time;
  uint64_t count;
  uint64_t release;  // NACKed: position in the release order
};

class PelModel {
 public:
  std::map<StreamId, RunsEntry> recs;
  uint64_t releases = 0;

  // Claim order: NACKed by release, then owned by (time, id).
  std::vector<StreamId> time_order() const {
    std::vector<std::pair<StreamId, const RunsEntry*>> v;
    for (const auto& [id, r] : recs) v.emplace_back(id, &r);
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      const RunsEntry &x = *a.second, &y = *b.second;
      if ((x.owner < 0) != (y.owner < 0)) return x.owner < 0;
      if (x.owner < 0) return x.release < y.release;
      return x.time != y.time ? x.time < y.time : a.first < b.first;
    });
    std::vector<StreamId> out;
    for (const auto& p : v) out.push_back(p.first);
    return out;
  }
};

// A Pel and its model, with kOwners owners and the checks every step runs.
class Checked {
 public:
  static constexpr int kOwners = 5;

  Checked() {
    for (int o = 0; o < kOwners; ++o)
      slot[o] = pel.add_owner(reinterpret_cast<Consumer*>(&token[o]));
  }

  int owner_of(const PendingEntry& e) const {
    for (int o = 0; o < kOwners; ++o) {
      if (e.owner == reinterpret_cast<const Consumer*>(&token[o])) return o;
    }
    return -1;
  }

  // Everything the Pel answers against the model; `from` starts the partial owner walks.
  void verify(const std::string& where, StreamId from) {
    std::string why;
    ASSERT_TRUE(pel.check(&why)) << where << ": " << why;
    ASSERT_EQ(pel.size(), m.recs.size());
    // ID walk and fields.
    auto mit = m.recs.begin();
    for (Pel::Iterator p = pel.begin(); p.valid(); ++p, ++mit) {
      ASSERT_NE(mit, m.recs.end());
      ASSERT_EQ(p.id(), mit->first);
      ASSERT_TRUE(pel.check_id(p.id()));
      PendingEntry e = p.entry();
      ASSERT_EQ(owner_of(e), mit->second.owner) << where << " " << p.id().to_string();
      ASSERT_EQ(e.delivery_time_ms, mit->second.owner < 0 ? 0 : mit->second.time);
      ASSERT_EQ(e.delivery_count, mit->second.count) << where << " " << p.id().to_string();
    }
    ASSERT_EQ(mit, m.recs.end());
    // Owner walks, whole and from a given ID.
    for (int o = 0; o < kOwners; ++o) {
      std::vector<StreamId> want, want_from, got, got_from;
      for (const auto& [rid, r] : m.recs) {
        if (r.owner != o) continue;
        want.push_back(rid);
        if (!(rid < from)) want_from.push_back(rid);
      }
      Pel::OwnerView view(pel, slot[o]);
      for (Pel::Iterator p = view.begin(); p.valid(); ++p) got.push_back(p.id());
      for (Pel::Iterator p = view.seek(from); p.valid(); ++p) got_from.push_back(p.id());
      ASSERT_EQ(got, want) << where << " owner " << o;
      ASSERT_EQ(got_from, want_from) << where << " owner " << o;
      ASSERT_EQ(view.size(), want.size());
    }
    // Claim order.
    std::vector<StreamId> order;
    for (Pel::Iterator p = pel.by_time(); p.valid(); ++p) order.push_back(p.id());
    ASSERT_EQ(order, m.time_order()) << where;
    std::size_t nacked = 0;
    for (const auto& [rid, r] : m.recs) nacked += r.owner < 0;
    ASSERT_EQ(pel.nacked(), nacked);
  }

  Pel pel;
  PelModel m;
  uint32_t slot[kOwners];

 private:
  int token[kOwners];
};

std::vector<StreamId> test_ids() {
  std::vector<StreamId> ids;
  for (uint64_t ms = 1; ms <= 12; ++ms) {
    for (uint64_t seq : {uint64_t{0}, uint64_t{1}, uint64_t{300}}) ids.push_back({ms, seq});
  }
  ids.push_back({12, std::numeric_limits<uint64_t>::max()});
  return ids;
}

const std::vector<int64_t> kTimes{-7, 0, 3, 3, 5, 9, std::numeric_limits<int64_t>::max()};

TEST(PelRuns, RandomChangesAgreeWithModel) {
  constexpr int kOwners = Checked::kOwners;
  const std::vector<int64_t>& times = kTimes;
  const std::vector<StreamId> ids = test_ids();
  std::size_t max_runs_walk = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    Checked c;
    Pel& pel = c.pel;
    PelModel& m = c.m;
    for (int step = 0; step < 1000; ++step) {
      StreamId id = ids[pick(ids.size())];
      auto it = m.recs.find(id);
      int op = static_cast<int>(pick(10));
      int owner = static_cast<int>(pick(kOwners));
      int64_t time = times[pick(times.size())];
      if (it == m.recs.end()) {
        if (op < 7) {
          uint64_t count = pick(4);
          ASSERT_TRUE(pel.add(id, time, count, c.slot[owner]));
          m.recs[id] = {owner, time, count, 0};
        } else {
          ASSERT_TRUE(pel.add_nacked(id, 2));
          m.recs[id] = {-1, 0, 2, ++m.releases};
        }
      } else if (op < 3) {
        ASSERT_TRUE(pel.erase(id));
        m.recs.erase(it);
      } else if (op < 6) {
        pel.redeliver(id, c.slot[owner], time);
        it->second.owner = owner;
        it->second.time = time;
      } else if (op < 8) {
        pel.release(id);
        it->second = {-1, 0, it->second.count, ++m.releases};
      } else {
        uint64_t count = pick(2) ? pick(5) : (uint64_t{1} << 32) - 2 + pick(4);
        pel.set_count(id, count);
        it->second.count = count;
      }
      ASSERT_TRUE(pel.check_id(id));
      c.verify("seed " + std::to_string(seed) + " step " + std::to_string(step),
               ids[pick(ids.size())]);
      max_runs_walk = std::max(max_runs_walk, m.recs.size());
    }
    // Everything can go away; owners can be freed and reused.
    while (!m.recs.empty()) {
      ASSERT_TRUE(pel.erase(m.recs.begin()->first));
      m.recs.erase(m.recs.begin());
    }
    ASSERT_TRUE(pel.check(nullptr));
    pel.remove_owner(c.slot[2]);
    EXPECT_EQ(pel.add_owner(reinterpret_cast<Consumer*>(&c)), c.slot[2]);
    // Empty trees cost nothing; what is left are the two slot tables.
    EXPECT_EQ(pel.memory_usage(), 2 * malloc_size_estimate(kOwners * sizeof(void*)));
  }
  EXPECT_GT(max_runs_walk, 20u);
}

// The batch changes (redeliver_many, deliver, erase_many) against the same model, mixed with
// single changes so that the batches meet every shape of runs: contiguous and scattered sets of
// IDs, NACKed records, big counts, IDs pending or not.
TEST(PelRuns, RandomBatchesAgreeWithModel) {
  constexpr int kOwners = Checked::kOwners;
  const std::vector<StreamId> ids = test_ids();
  std::size_t batched = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    Checked c;
    Pel& pel = c.pel;
    PelModel& m = c.m;
    // A set of IDs: a contiguous range of the ID space, or a random subset.
    auto some_ids = [&]() {
      std::vector<StreamId> v;
      if (pick(2)) {
        std::size_t a = pick(ids.size()), n = 1 + pick(12);
        for (std::size_t k = a; k < ids.size() && k < a + n; ++k) v.push_back(ids[k]);
      } else {
        for (StreamId id : ids) {
          if (pick(3) == 0) v.push_back(id);
        }
      }
      return v;
    };
    for (int step = 0; step < 600; ++step) {
      int op = static_cast<int>(pick(8));
      int owner = static_cast<int>(pick(kOwners));
      int64_t time = kTimes[pick(kTimes.size())];
      std::vector<StreamId> v = some_ids();
      if (op < 2) {
        // deliver: ascending, pending or not.
        pel.deliver(v, c.slot[owner], time);
        for (StreamId id : v) m.recs[id] = {owner, time, 1, 0};
        batched += v.size();
      } else if (op < 4) {
        // redeliver_many of the pending ones, shuffled, with or without a count bump.
        std::vector<StreamId> p;
        for (StreamId id : v) {
          if (m.recs.count(id)) p.push_back(id);
        }
        std::shuffle(p.begin(), p.end(), rng);
        bool bump = pick(2);
        pel.redeliver_many(p, c.slot[owner], time, bump);
        for (StreamId id : p) {
          RunsEntry& r = m.recs[id];
          r.owner = owner;
          r.time = time;
          if (bump && r.count < Pel::kMaxCount) ++r.count;  // saturates at INT64_MAX
        }
        batched += p.size();
      } else if (op < 5) {
        // erase_many with duplicates and IDs that are not pending.
        if (!v.empty()) v.push_back(v[pick(v.size())]);
        std::shuffle(v.begin(), v.end(), rng);
        std::size_t want = 0;
        for (StreamId id : v) want += m.recs.erase(id);
        ASSERT_EQ(pel.erase_many(v), want);
        batched += v.size();
      } else {
        // Single changes that make NACKed records, big counts and scattered owners and times.
        StreamId id = ids[pick(ids.size())];
        auto it = m.recs.find(id);
        if (it == m.recs.end()) {
          if (op == 5) {
            ASSERT_TRUE(pel.add(id, time, 1, c.slot[owner]));
            m.recs[id] = {owner, time, 1, 0};
          } else {
            ASSERT_TRUE(pel.add_nacked(id, 0));
            m.recs[id] = {-1, 0, 0, ++m.releases};
          }
        } else if (op == 5) {
          pel.release(id);
          it->second = {-1, 0, it->second.count, ++m.releases};
        } else {
          uint64_t count = pick(2) ? Pel::kMaxCount - pick(2) : (uint64_t{1} << 32) - 2 + pick(4);
          pel.set_count(id, count);
          it->second.count = count;
        }
      }
      c.verify("seed " + std::to_string(seed) + " step " + std::to_string(step) + " op " +
                   std::to_string(op),
               ids[pick(ids.size())]);
    }
  }
  EXPECT_GT(batched, 10000u);
}

}  // namespace
}  // namespace streamd::engine
