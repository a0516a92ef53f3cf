// The time-ordered index of a group's PEL (XREADGROUP CLAIM, XNACK): direct tests of its order
// and NACK zone, and long random sequences of deliveries, history reads, claims (with TIME in
// the past), autoclaims, CLAIM reads, XNACK in every mode, acks, XDEL, DELCONSUMER and copies,
// checked after every step against a std::map model whose claim order is computed the slow way
// (NACKed entries by release order, then the rest sorted by delivery time, ties by ID).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/group_test_util.h"
#include "streamd/engine/consumer_group.h"

namespace streamd::engine {
namespace {

using testing::GroupHarness;
using testing::kT0;

std::vector<StreamId> time_order(const ConsumerGroup& g) {
  std::vector<StreamId> out;
  for (Pel::Iterator it = g.pel().by_time(); it.valid(); ++it) out.push_back(it.id());
  return out;
}

TEST(PelTimeIndex, ClaimIdleTakesOldestFirstAndSharesCount) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 6; ++i) h.add(i, 0);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 0);
  // Deliveries 1..6 at kT0; XCLAIM TIME puts them at arbitrary times.
  ClaimOptions o;
  o.justid = true;
  const int64_t ago[] = {0, 50000, 40000, 30000, 20000, 2000, 1000};
  h.now = kT0 + 100000;
  for (uint64_t i = 1; i <= 6; ++i) {
    o.delivery_time_ms = h.now - ago[i];
    StreamId id{i, 0};
    g.claim(h.s, "a", std::span<const StreamId>(&id, 1), o, h.now);
  }
  ASSERT_TRUE(g.check_invariants());
  EXPECT_EQ(time_order(g), (std::vector<StreamId>{{1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}}));
  ClaimIdleResult r = g.claim_idle(h.s, "b", 10000, 0, h.now);
  ASSERT_EQ(testing::ids_of(r.claimed), (std::vector<StreamId>{{1, 0}, {2, 0}, {3, 0}, {4, 0}}));
  EXPECT_TRUE(r.consumer_created);
  EXPECT_EQ(r.claimed[0].idle_ms, 50000);
  EXPECT_EQ(r.claimed[0].previous_count, 1u);
  EXPECT_EQ(r.claimed[0].delivery_count, 2u);
  EXPECT_TRUE(r.claimed[0].claimed);
  // Claimed ones went to the tail (at now, by ID); 5 and 6 are now the idlest.
  EXPECT_EQ(time_order(g), (std::vector<StreamId>{{5, 0}, {6, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}}));
  EXPECT_EQ(testing::ids_of(g.claim_idle(h.s, "b", 1500, 0, h.now).claimed),
            (std::vector<StreamId>{{5, 0}}));
  EXPECT_EQ(testing::ids_of(g.claim_idle(h.s, "b", 500, 1, h.now).claimed),
            (std::vector<StreamId>{{6, 0}}));
  EXPECT_TRUE(g.claim_idle(h.s, "b", 1, 0, h.now).claimed.empty());
  EXPECT_EQ(g.next_claimable_ms(1000, h.now), h.now + 1000);
  ASSERT_TRUE(g.check_invariants());
}

TEST(PelTimeIndex, NackZoneIsFifoAtTheHead) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 4; ++i) h.add(i, 0);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "c1", 0);
  StreamId three{3, 0}, one{1, 0};
  EXPECT_EQ(g.nack(h.s, std::span(&three, 1), NackMode::kFail, {}, false).released, 1u);
  EXPECT_EQ(g.nack(h.s, std::span(&one, 1), NackMode::kFail, {}, false).released, 1u);
  EXPECT_EQ(time_order(g), (std::vector<StreamId>{{3, 0}, {1, 0}, {2, 0}, {4, 0}}));
  EXPECT_EQ(g.nacked_count(), 2u);
  EXPECT_EQ(g.next_claimable_ms(99999, h.now), h.now);
  // Re-releasing moves to the end of the zone.
  g.nack(h.s, std::span(&three, 1), NackMode::kFail, {}, false);
  EXPECT_EQ(time_order(g), (std::vector<StreamId>{{1, 0}, {3, 0}, {2, 0}, {4, 0}}));
  std::vector<PendingRecord> recs = g.pending_range({0, 0}, StreamId::max(), 10, 0, h.now);
  ASSERT_EQ(recs.size(), 4u);
  EXPECT_TRUE(recs[0].nacked);
  EXPECT_EQ(recs[0].consumer, "");
  EXPECT_EQ(recs[0].delivery_time_ms, 0);
  EXPECT_FALSE(recs[1].nacked);
  // Modes.
  StreamId two{2, 0};
  g.nack(h.s, std::span(&two, 1), NackMode::kSilent, {}, false);
  EXPECT_EQ(g.pel().find(two)->delivery_count, 0u);
  g.nack(h.s, std::span(&two, 1), NackMode::kSilent, {}, false);
  EXPECT_EQ(g.pel().find(two)->delivery_count, 0u);
  g.nack(h.s, std::span(&two, 1), NackMode::kFatal, {}, false);
  EXPECT_EQ(g.pel().find(two)->delivery_count, static_cast<uint64_t>(LLONG_MAX));
  g.nack(h.s, std::span(&two, 1), NackMode::kFatal, 42, false);
  EXPECT_EQ(g.pel().find(two)->delivery_count, 42u);
  // A claim takes the zone first, in order, and reports idle -1.
  ClaimIdleResult r = g.claim_idle(h.s, "c2", 99999, 2, h.now);
  ASSERT_EQ(testing::ids_of(r.claimed), (std::vector<StreamId>{{1, 0}, {3, 0}}));
  EXPECT_EQ(r.claimed[0].idle_ms, -1);
  // FORCE: only for live entries not pending; count 0 / LLONG_MAX / RETRYCOUNT.
  g.ack(std::vector<StreamId>{one});
  StreamId ghost{9, 9};
  EXPECT_EQ(g.nack(h.s, std::span(&ghost, 1), NackMode::kFail, {}, true).released, 0u);
  EXPECT_EQ(g.nack(h.s, std::span(&one, 1), NackMode::kSilent, {}, true).released, 1u);
  EXPECT_EQ(g.pel().find(one)->delivery_count, 0u);
  EXPECT_EQ(g.consumer_count(), 2u);
  std::string why;
  ASSERT_TRUE(g.check_invariants(&why)) << why;
  // The copy keeps the zone order.
  std::unique_ptr<Stream> copy = h.s.clone();
  EXPECT_EQ(time_order(*copy->groups().find("g")), time_order(g));
  ASSERT_TRUE(copy->groups().find("g")->check_invariants(&why)) << why;
}

TEST(PelTimeIndex, ClaimIdleDropsDeletedEntries) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 0);
  ConsumerGroup& g = h.create("g", {0, 0});
  h.read("g", "a", 0);
  h.del(1, 0);
  h.now += 100;
  ClaimIdleResult r = g.claim_idle(h.s, "b", 50, 1, h.now);
  EXPECT_EQ(r.deleted, (std::vector<StreamId>{{1, 0}}));
  EXPECT_EQ(testing::ids_of(r.claimed), (std::vector<StreamId>{{2, 0}}));
  EXPECT_EQ(g.pending_count(), 2u);
  ASSERT_TRUE(g.check_invariants());
}

// ---- random sequences against a model ----------------------------------------------------------

struct ModelEntry {
  std::string owner;  // "" = NACKed
  int64_t time = 0;
  uint64_t count = 0;
  uint64_t nack_seq = 0;
};

constexpr uint64_t kMax = static_cast<uint64_t>(LLONG_MAX);
void sat_inc(uint64_t& n) {
  if (n < kMax) ++n;
}

struct TimeIndexModel {
  std::set<StreamId> live;
  StreamId last_delivered;
  std::map<StreamId, ModelEntry> pel;
  std::set<std::string> consumers;
  uint64_t next_nack = 0;

  std::vector<StreamId> order() const {
    std::vector<std::pair<uint64_t, StreamId>> zone;
    std::vector<std::pair<std::pair<int64_t, StreamId>, StreamId>> owned;
    for (const auto& [id, r] : pel) {
      if (r.owner.empty()) {
        zone.push_back({r.nack_seq, id});
      } else {
        owned.push_back({{r.time, id}, id});
      }
    }
    std::sort(zone.begin(), zone.end());
    std::sort(owned.begin(), owned.end());
    std::vector<StreamId> out;
    for (auto& z : zone) out.push_back(z.second);
    for (auto& o : owned) out.push_back(o.second);
    return out;
  }
};

struct TimeIndexCoverage {
  std::size_t nacked = 0, forced = 0, claim_idle = 0, claim_idle_deleted = 0, past_times = 0,
              max_zone = 0;
} cov;

void run(uint32_t seed, int steps) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  auto chance = [&](int percent) { return static_cast<int>(pick(100)) < percent; };
  Stream s;
  ConsumerGroup* g = s.groups().create("g", {0, 0}, kEntriesReadUnknown).value();
  TimeIndexModel m;
  int64_t now = kT0;
  uint64_t next_ms = 1;
  const std::vector<std::string> names{"a", "b", "c"};
  auto name = [&] { return names[pick(names.size())]; };
  auto any_id = [&]() -> StreamId {
    if (!m.pel.empty() && chance(50)) return std::next(m.pel.begin(), pick(m.pel.size()))->first;
    if (!m.live.empty() && chance(70)) return *std::next(m.live.begin(), pick(m.live.size()));
    return StreamId{pick(next_ms + 2), pick(3)};
  };
  auto consumer = [&](const std::string& c) {
    m.consumers.insert(c);
    return g->create_consumer(c, now).first;
  };

  for (int step = 0; step < steps; ++step) {
    // Mostly forward, sometimes not at all (ties in one millisecond).
    if (chance(70)) now += static_cast<int64_t>(pick(300));
    switch (pick(12)) {
      case 0:
      case 1: {  // XADD
        if (m.live.size() > 120) break;
        for (uint64_t n = 1 + pick(5); n > 0; --n) {
          StreamId id{next_ms, pick(3)};
          if (chance(60)) ++next_ms;
          if (id <= s.last_id()) id = *s.last_id().next();
          FieldValue fv{"f", "v"};
          ASSERT_TRUE(s.append(id, std::span<const FieldValue>(&fv, 1)).ok());
          m.live.insert(id);
        }
        break;
      }
      case 2: {  // XDEL
        if (m.live.empty()) break;
        StreamId id = *std::next(m.live.begin(), pick(m.live.size()));
        ASSERT_TRUE(s.erase(id));
        m.live.erase(id);
        break;
      }
      case 3: {  // XREADGROUP >
        if (!g->has_new_entries(s)) break;
        std::string c = name();
        std::size_t count = pick(4);
        bool noack = chance(10);
        g->read_new(s, *consumer(c), count, noack, now);
        std::size_t n = 0;
        for (auto it = m.live.upper_bound(m.last_delivered); it != m.live.end(); ++it) {
          if (count != 0 && n == count) break;
          ++n;
          m.last_delivered = *it;
          if (!noack) m.pel[*it] = ModelEntry{c, now, 1, 0};
        }
        break;
      }
      case 4: {  // XREADGROUP <id>
        std::string c = name();
        StreamId start = any_id();
        std::size_t count = pick(4);
        g->read_history(s, *consumer(c), start, count, now);
        std::size_t n = 0;
        for (auto it = m.pel.lower_bound(start); it != m.pel.end(); ++it) {
          if (it->second.owner != c) continue;
          if (count != 0 && n == count) break;
          ++n;
          if (m.live.count(it->first)) {
            it->second.time = now;
            sat_inc(it->second.count);
          }
        }
        break;
      }
      case 5: {  // XACK
        std::vector<StreamId> ids;
        for (uint64_t n = 1 + pick(3); n > 0; --n) ids.push_back(any_id());
        uint64_t want = 0;
        for (StreamId id : ids) want += m.pel.erase(id);
        ASSERT_EQ(g->ack(ids), want);
        break;
      }
      case 6: {  // XCLAIM, often with a time in the past (an ordered insert)
        std::string c = name();
        std::vector<StreamId> ids;
        for (uint64_t n = 1 + pick(3); n > 0; --n) ids.push_back(any_id());
        ClaimOptions o;
        o.min_idle_ms = chance(50) ? 0 : static_cast<int64_t>(pick(600));
        o.force = chance(30);
        o.justid = chance(30);
        if (chance(15)) o.retry_count = chance(20) ? kMax : pick(10);
        if (chance(50)) {
          o.delivery_time_ms = now - static_cast<int64_t>(pick(3000));
          ++cov.past_times;
        }
        g->claim(s, c, ids, o, now);
        m.consumers.insert(c);  // the attempt creates the consumer (7.2+)
        int64_t t = o.delivery_time_ms.value_or(now);
        if (t < 0 || t > now) t = now;
        for (StreamId id : ids) {
          auto it = m.pel.find(id);
          if (!m.live.count(id)) {
            if (it != m.pel.end()) m.pel.erase(it);
            continue;
          }
          bool fresh = false;
          if (it == m.pel.end()) {
            if (!o.force) continue;
            it = m.pel.emplace(id, ModelEntry{c, now, 1, 0}).first;
            fresh = true;
          }
          ModelEntry& r = it->second;
          if (!fresh && !r.owner.empty() && o.min_idle_ms > 0 && now - r.time < o.min_idle_ms)
            continue;
          m.consumers.insert(c);
          r.owner = c;
          r.time = t;
          if (o.retry_count) {
            r.count = *o.retry_count;
          } else if (!o.justid) {
            sat_inc(r.count);
          }
        }
        break;
      }
      case 7: {  // XAUTOCLAIM
        std::string c = name();
        int64_t min_idle = chance(30) ? 0 : static_cast<int64_t>(pick(1000));
        std::size_t count = 1 + pick(4);
        g->autoclaim(s, c, min_idle, {0, 0}, count, false, now);
        m.consumers.insert(c);  // as XCLAIM
        std::size_t attempts = count * 10;
        for (auto it = m.pel.begin(); attempts > 0 && count > 0 && it != m.pel.end();) {
          --attempts;
          if (!m.live.count(it->first)) {
            it = m.pel.erase(it);
            --count;
            continue;
          }
          if (min_idle > 0 && now - it->second.time < min_idle) {
            ++it;
            continue;
          }
          m.consumers.insert(c);
          it->second.owner = c;
          it->second.time = now;
          sat_inc(it->second.count);
          --count;
          ++it;
        }
        break;
      }
      case 8:
      case 9: {  // XREADGROUP CLAIM (the claim phase)
        std::string c = name();
        int64_t min_idle = chance(20) ? 0 : static_cast<int64_t>(pick(1500));
        std::size_t count = pick(5);
        std::vector<StreamId> order = m.order();
        ClaimIdleResult r = g->claim_idle(s, c, min_idle, count, now);
        std::vector<StreamId> want, deleted;
        std::vector<std::pair<int64_t, uint64_t>> before;
        for (StreamId id : order) {
          if (count != 0 && want.size() == count) break;
          ModelEntry& rec = m.pel.at(id);
          bool nacked = rec.owner.empty();
          if (!nacked && now - rec.time < min_idle) break;
          if (!m.live.count(id)) {
            deleted.push_back(id);
            m.pel.erase(id);
            continue;
          }
          want.push_back(id);
          before.push_back({nacked ? -1 : now - rec.time, rec.count});
          m.consumers.insert(c);
          rec.owner = c;
          rec.time = now;
          sat_inc(rec.count);
        }
        ASSERT_EQ(testing::ids_of(r.claimed), want) << "step " << step;
        ASSERT_EQ(r.deleted, deleted) << "step " << step;
        for (std::size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(r.claimed[i].idle_ms, before[i].first);
          ASSERT_EQ(r.claimed[i].previous_count, before[i].second);
        }
        cov.claim_idle += want.size();
        cov.claim_idle_deleted += deleted.size();
        break;
      }
      case 10: {  // XNACK
        std::vector<StreamId> ids;
        for (uint64_t n = 1 + pick(3); n > 0; --n) ids.push_back(any_id());
        NackMode mode = static_cast<NackMode>(pick(3));
        std::optional<uint64_t> retry;
        if (chance(15)) retry = pick(5);
        bool force = chance(30);
        NackResult r = g->nack(s, ids, mode, retry, force);
        uint64_t released = 0;
        for (StreamId id : ids) {
          auto it = m.pel.find(id);
          if (it == m.pel.end()) {
            if (!force || !m.live.count(id)) continue;
            uint64_t n = retry ? *retry : mode == NackMode::kFatal ? kMax : 0;
            it = m.pel.emplace(id, ModelEntry{"", 0, n, 0}).first;
            ++cov.forced;
          } else {
            ModelEntry& rec = it->second;
            rec.owner.clear();
            rec.time = 0;
            if (retry) {
              rec.count = *retry;
            } else if (mode == NackMode::kSilent) {
              if (rec.count > 0) --rec.count;
            } else if (mode == NackMode::kFatal) {
              rec.count = kMax;
            }
          }
          it->second.nack_seq = ++m.next_nack;
          ++released;
          ++cov.nacked;
        }
        ASSERT_EQ(r.released, released) << "step " << step;
        ASSERT_EQ(r.records.size(), released);
        break;
      }
      case 11: {  // DELCONSUMER, SETID backwards, a copy
        if (chance(40)) {
          std::string c = name();
          std::optional<uint64_t> want;
          if (m.consumers.erase(c)) {
            want = std::erase_if(m.pel, [&](const auto& kv) { return kv.second.owner == c; });
          }
          ASSERT_EQ(g->delete_consumer(c), want);
        } else if (chance(50)) {
          StreamId id = chance(50) ? StreamId{} : any_id();
          g->set_last_delivered_id(id, kEntriesReadUnknown);
          m.last_delivered = id;
        } else {
          std::unique_ptr<Stream> copy = s.clone();
          std::string why;
          ASSERT_TRUE(copy->groups().find("g")->check_invariants(&why)) << why;
          ASSERT_EQ(time_order(*copy->groups().find("g")), m.order()) << "step " << step;
        }
        break;
      }
    }
    std::string why;
    ASSERT_TRUE(g->check_invariants(&why)) << "step " << step << ": " << why;
    ASSERT_EQ(time_order(*g), m.order()) << "step " << step;
    ASSERT_EQ(g->pending_count(), m.pel.size());
    ASSERT_EQ(g->consumer_count(), m.consumers.size()) << "step " << step;
    for (Pel::Iterator it = g->pel().by_time(); it.valid(); ++it) {
      const PendingEntry e = it.entry();
      const ModelEntry& r = m.pel.at(e.id);
      ASSERT_EQ(e.owner ? e.owner->name() : std::string(), r.owner) << "step " << step;
      ASSERT_EQ(e.delivery_time_ms, r.time) << "step " << step << " " << e.id.to_string();
      ASSERT_EQ(e.delivery_count, r.count) << "step " << step << " " << e.id.to_string();
    }
    cov.max_zone = std::max(cov.max_zone, g->nacked_count());
  }
}

TEST(PelTimeIndex, RandomSequencesAgreeWithModel) {
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    run(seed, 3000);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf(
      "[ PelTimeIndex ] released %zu (forced %zu), claimed by CLAIM %zu (dropped as deleted %zu), "
      "claims with a past TIME %zu, largest NACK zone %zu\n",
      cov.nacked, cov.forced, cov.claim_idle, cov.claim_idle_deleted, cov.past_times, cov.max_zone);
}

}  // namespace
}  // namespace streamd::engine
