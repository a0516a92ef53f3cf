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

struct Rec {
  int owner;  // -1 = NACKed
  int64_t time;
  uint64_t count;
  uint64_t release;  // NACKed: position in the release order
};

class PelModel {
 public:
  std::map<StreamId, Rec> recs;
  uint64_t releases = 0;

  // Claim order: NACKed by release, then owned by (time, id).
  std::vector<StreamId> time_order() const {
    std::vector<std::pair<StreamId, const Rec*>> v;
    for (const auto& [id, r] : recs) v.emplace_back(id, &r);
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      const Rec &x = *a.second, &y = *b.second;
      if ((x.owner < 0) != (y.owner < 0)) return x.owner < 0;
      if (x.owner < 0) return x.release < y.release;
      return x.time != y.time ? x.time < y.time : a.first < b.first;
    });
    std::vector<StreamId> out;
    for (const auto& p : v) out.push_back(p.first);
    return out;
  }
};

TEST(PelRuns, RandomChangesAgreeWithModel) {
  constexpr int kOwners = 5;
  const std::vector<int64_t> times{-7, 0, 3, 3, 5, 9, std::numeric_limits<int64_t>::max()};
  std::vector<StreamId> ids;
  for (uint64_t ms = 1; ms <= 12; ++ms) {
    for (uint64_t seq : {uint64_t{0}, uint64_t{1}, uint64_t{300}}) ids.push_back({ms, seq});
  }
  ids.push_back({12, std::numeric_limits<uint64_t>::max()});
  int token[kOwners];
  std::size_t max_runs_walk = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    Pel pel;
    PelModel m;
    std::vector<uint32_t> slot(kOwners);
    for (int o = 0; o < kOwners; ++o)
      slot[o] = pel.add_owner(reinterpret_cast<Consumer*>(&token[o]));
    auto owner_of = [&](const PendingEntry& e) {
      for (int o = 0; o < kOwners; ++o) {
        if (e.owner == reinterpret_cast<Consumer*>(&token[o])) return o;
      }
      return -1;
    };
    for (int step = 0; step < 1000; ++step) {
      StreamId id = ids[pick(ids.size())];
      auto it = m.recs.find(id);
      int op = static_cast<int>(pick(10));
      int owner = static_cast<int>(pick(kOwners));
      int64_t time = times[pick(times.size())];
      if (it == m.recs.end()) {
        if (op < 7) {
          uint64_t count = pick(4);
          ASSERT_TRUE(pel.add(id, time, count, slot[owner]));
          m.recs[id] = {owner, time, count, 0};
        } else {
          ASSERT_TRUE(pel.add_nacked(id, 2));
          m.recs[id] = {-1, 0, 2, ++m.releases};
        }
      } else if (op < 3) {
        ASSERT_TRUE(pel.erase(id));
        m.recs.erase(it);
      } else if (op < 6) {
        pel.redeliver(id, slot[owner], time);
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
      std::string why;
      ASSERT_TRUE(pel.check(&why)) << "seed " << seed << " step " << step << ": " << why;
      ASSERT_TRUE(pel.check_id(id));
      ASSERT_EQ(pel.size(), m.recs.size());
      // ID walk and fields.
      auto mit = m.recs.begin();
      for (Pel::Iterator p = pel.begin(); p.valid(); ++p, ++mit) {
        ASSERT_NE(mit, m.recs.end());
        ASSERT_EQ(p.id(), mit->first);
        PendingEntry e = p.entry();
        ASSERT_EQ(owner_of(e), mit->second.owner) << p.id().to_string();
        ASSERT_EQ(e.delivery_time_ms, mit->second.owner < 0 ? 0 : mit->second.time);
        ASSERT_EQ(e.delivery_count, mit->second.count);
      }
      ASSERT_EQ(mit, m.recs.end());
      // Owner walks, whole and from a random ID.
      StreamId from = ids[pick(ids.size())];
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
        ASSERT_EQ(got, want) << "seed " << seed << " step " << step << " owner " << o;
        ASSERT_EQ(got_from, want_from) << "seed " << seed << " step " << step << " owner " << o;
        ASSERT_EQ(view.size(), want.size());
      }
      // Claim order.
      std::vector<StreamId> order;
      for (Pel::Iterator p = pel.by_time(); p.valid(); ++p) order.push_back(p.id());
      ASSERT_EQ(order, m.time_order()) << "seed " << seed << " step " << step;
      std::size_t nacked = 0;
      for (const auto& [rid, r] : m.recs) nacked += r.owner < 0;
      ASSERT_EQ(pel.nacked(), nacked);
      max_runs_walk = std::max(max_runs_walk, order.size());
    }
    // Everything can go away; owners can be freed and reused.
    while (!m.recs.empty()) {
      ASSERT_TRUE(pel.erase(m.recs.begin()->first));
      m.recs.erase(m.recs.begin());
    }
    ASSERT_TRUE(pel.check(nullptr));
    pel.remove_owner(slot[2]);
    EXPECT_EQ(pel.add_owner(reinterpret_cast<Consumer*>(&token[2])), slot[2]);
    // Empty trees cost nothing; what is left are the two slot tables.
    EXPECT_EQ(pel.memory_usage(), 2 * malloc_size_estimate(kOwners * sizeof(void*)));
  }
  EXPECT_GT(max_runs_walk, 20u);
}

}  // namespace
}  // namespace streamd::engine
