// Long random sequences of XADD, XDEL, XTRIM, XREADGROUP (both forms), XACK, XCLAIM,
// XAUTOCLAIM, DELCONSUMER, CREATECONSUMER and SETID against a consumer group, checked after
// every step against a plain std::map model of the PEL and against the group's own invariant
// check (one shared record per ID, group and owner PELs agreeing).
#include <gtest/gtest.h>

#include <algorithm>
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

struct ModelRecord {
  std::string owner;
  int64_t time = 0;
  uint64_t count = 0;
  friend bool operator==(const ModelRecord&, const ModelRecord&) = default;
};

struct ModelConsumer {
  int64_t seen = 0;
  int64_t active = -1;
};

// The semantics written out the simple way.
struct Model {
  std::set<StreamId> live;
  StreamId last_delivered;
  std::map<StreamId, ModelRecord> pel;
  std::map<std::string, ModelConsumer> consumers;

  ModelConsumer& touch(const std::string& c, int64_t now) {
    auto [it, created] = consumers.try_emplace(c);
    if (created) it->second.seen = now;
    return it->second;
  }

  std::vector<StreamId> read_new(const std::string& c, std::size_t count, bool noack, int64_t now) {
    ModelConsumer& mc = touch(c, now);
    mc.seen = now;
    std::vector<StreamId> out;
    for (auto it = live.upper_bound(last_delivered); it != live.end(); ++it) {
      if (count != 0 && out.size() == count) break;
      out.push_back(*it);
      last_delivered = *it;
      if (!noack) pel[*it] = {c, now, 1};
    }
    if (!out.empty() && !noack) mc.active = now;  // NOACK deliveries are not activity
    return out;
  }

  // (id, deleted) pairs.
  std::vector<std::pair<StreamId, bool>> read_history(const std::string& c, StreamId start,
                                                      std::size_t count, int64_t now) {
    ModelConsumer& mc = consumers.at(c);
    mc.seen = now;
    std::vector<std::pair<StreamId, bool>> out;
    for (auto it = pel.lower_bound(start); it != pel.end(); ++it) {
      if (it->second.owner != c) continue;
      if (count != 0 && out.size() == count) break;
      bool gone = !live.count(it->first);
      out.emplace_back(it->first, gone);
      if (!gone) {
        it->second.time = now;
        ++it->second.count;
      }
    }
    return out;  // a history read is not activity
  }

  uint64_t ack(const std::vector<StreamId>& ids) {
    uint64_t n = 0;
    for (StreamId id : ids) n += pel.erase(id);
    return n;
  }

  struct Claimed {
    std::vector<StreamId> claimed, deleted;
    bool created = false;
    StreamId cursor;
  };

  Claimed claim(const std::string& c, const std::vector<StreamId>& ids, const ClaimOptions& o,
                int64_t now) {
    Claimed r;
    r.created = !consumers.count(c);  // the attempt creates the consumer (7.2+)
    touch(c, now).seen = now;
    if (o.last_id && *o.last_id > last_delivered) last_delivered = *o.last_id;
    int64_t t = o.delivery_time_ms.value_or(now);
    if (t < 0 || t > now) t = now;
    for (StreamId id : ids) {
      auto it = pel.find(id);
      if (!live.count(id)) {
        if (it != pel.end()) {
          pel.erase(it);
          r.deleted.push_back(id);
        }
        continue;
      }
      bool fresh = false;
      if (it == pel.end()) {
        if (!o.force) continue;
        it = pel.emplace(id, ModelRecord{"", now, 1}).first;
        fresh = true;
      }
      if (!fresh && o.min_idle_ms > 0 && now - it->second.time < o.min_idle_ms) continue;
      it->second.owner = c;
      it->second.time = t;
      if (o.retry_count) {
        it->second.count = *o.retry_count;
      } else if (!o.justid) {
        ++it->second.count;
      }
      consumers[c].active = now;
      r.claimed.push_back(id);
    }
    return r;
  }

  Claimed autoclaim(const std::string& c, int64_t min_idle, StreamId start, std::size_t count,
                    bool justid, int64_t now) {
    Claimed r;
    r.created = !consumers.count(c);  // as XCLAIM
    touch(c, now).seen = now;
    std::size_t attempts = count * 10;
    auto it = pel.lower_bound(start);
    while (attempts > 0 && count > 0 && it != pel.end()) {
      --attempts;
      StreamId id = it->first;
      if (!live.count(id)) {
        it = pel.erase(it);
        r.deleted.push_back(id);
        --count;
        continue;
      }
      if (min_idle > 0 && now - it->second.time < min_idle) {
        ++it;
        continue;
      }
      it->second.owner = c;
      it->second.time = now;
      if (!justid) ++it->second.count;
      consumers[c].active = now;
      r.claimed.push_back(id);
      --count;
      ++it;
    }
    r.cursor = it == pel.end() ? StreamId{} : it->first;
    return r;
  }

  std::optional<uint64_t> delete_consumer(const std::string& c) {
    if (!consumers.erase(c)) return std::nullopt;
    uint64_t n = std::erase_if(pel, [&](const auto& kv) { return kv.second.owner == c; });
    return n;
  }
};

void expect_same(const ConsumerGroup& g, const Model& m, int step) {
  std::string why;
  ASSERT_TRUE(g.check_invariants(&why)) << "step " << step << ": " << why;
  ASSERT_EQ(g.last_delivered_id(), m.last_delivered) << "step " << step;
  ASSERT_EQ(g.pending_count(), m.pel.size()) << "step " << step;
  auto mit = m.pel.begin();
  for (Pel::Iterator it = g.pel().begin(); it.valid(); ++it, ++mit) {
    ASSERT_EQ(it.id(), mit->first) << "step " << step;
    PendingEntry e = it.entry();
    ModelRecord got{e.owner->name(), e.delivery_time_ms, e.delivery_count};
    ASSERT_EQ(got, mit->second) << "step " << step << " id " << it.id().to_string() << " owner "
                                << got.owner << "/" << mit->second.owner;
  }
  ASSERT_EQ(g.consumer_count(), m.consumers.size()) << "step " << step;
  std::map<std::string, std::size_t> owned;
  for (const auto& [id, rec] : m.pel) ++owned[rec.owner];
  auto cit = m.consumers.begin();
  g.for_each_consumer([&](const Consumer& c) {
    ASSERT_EQ(c.name(), cit->first) << "step " << step;
    ASSERT_EQ(c.seen_time_ms(), cit->second.seen) << "step " << step << " " << c.name();
    ASSERT_EQ(c.active_time_ms(), cit->second.active) << "step " << step << " " << c.name();
    ASSERT_EQ(c.pending_count(), owned[c.name()]) << "step " << step << " " << c.name();
    ++cit;
  });
}

// What the sequences exercised (printed, so a change that stops covering a case shows).
struct Coverage {
  std::size_t max_pel = 0, claimed = 0, dropped = 0, cursors = 0, history_deleted = 0,
              redelivered = 0, consumers_deleted = 0;
} coverage;

void run_random_sequence(uint32_t seed, int steps) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  auto chance = [&](int percent) { return static_cast<int>(pick(100)) < percent; };

  Stream s;
  ConsumerGroup* g = s.groups().create("g", {0, 0}, kEntriesReadUnknown).value();
  Model m;
  int64_t now = testing::kT0;
  uint64_t next_ms = 1;
  const std::vector<std::string> names{"alice", "bob", "carol", "dave", "e"};
  auto any_name = [&] { return names[pick(names.size())]; };
  // An ID that is live, pending, deleted or never existed.
  auto any_id = [&]() -> StreamId {
    switch (pick(3)) {
      case 0:
        if (!m.pel.empty()) return std::next(m.pel.begin(), pick(m.pel.size()))->first;
        [[fallthrough]];
      case 1:
        if (!m.live.empty()) return *std::next(m.live.begin(), pick(m.live.size()));
        [[fallthrough]];
      default:
        return StreamId{pick(next_ms + 2), chance(80) ? pick(5) : pick(400)};
    }
  };

  for (int step = 0; step < steps; ++step) {
    now += static_cast<int64_t>(pick(200));
    switch (pick(14)) {
      case 0:
      case 1: {  // XADD a few entries (keeping the stream, and so the PEL, small enough to
                 // compare in full after every step)
        if (m.live.size() > 150) break;
        for (uint64_t n = 1 + pick(6); n > 0; --n) {
          // Mostly the seqs PelKey keeps in its head (0..3), sometimes ones with a tail of one
          // byte or two.
          StreamId id{next_ms, chance(75) ? pick(4) : 4 + pick(chance(50) ? 240 : 2000)};
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
      case 3: {  // XTRIM MAXLEN (rarely)
        if (!chance(20)) break;
        uint64_t keep = m.live.size() - std::min<uint64_t>(m.live.size(), pick(4));
        s.trim(TrimSpec::max_len(keep));
        while (m.live.size() > keep) m.live.erase(m.live.begin());
        break;
      }
      case 4:
      case 5: {  // XREADGROUP >
        std::string c = any_name();
        std::size_t count = pick(5);
        bool noack = chance(15);
        if (!g->has_new_entries(s)) break;  // Redis neither serves nor creates the consumer
        std::size_t pending_before = m.pel.size();
        ReadResult r = g->read_new(s, *g->create_consumer(c, now).first, count, noack, now);
        std::vector<StreamId> want = m.read_new(c, count, noack, now);
        ASSERT_EQ(testing::ids_of(r.entries), want) << "step " << step;
        ASSERT_EQ(r.last_delivered_id, m.last_delivered);
        if (!noack) coverage.redelivered += pending_before + want.size() - m.pel.size();
        for (const GroupEntry& e : r.entries) {
          ASSERT_EQ(e.pending, !noack);
          ASSERT_EQ(e.fields.size(), 1u);
        }
        break;
      }
      case 6: {  // XREADGROUP <id>
        std::string c = any_name();
        Consumer* consumer = g->create_consumer(c, now).first;
        m.touch(c, now);
        StreamId start = any_id();
        std::size_t count = pick(4);
        ReadResult r = g->read_history(s, *consumer, start, count, now);
        auto want = m.read_history(c, start, count, now);
        ASSERT_EQ(r.entries.size(), want.size()) << "step " << step;
        for (std::size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(r.entries[i].id, want[i].first);
          ASSERT_EQ(r.entries[i].deleted, want[i].second);
          coverage.history_deleted += want[i].second;
        }
        break;
      }
      case 7:
      case 8: {  // XACK, mostly of pending IDs
        std::vector<StreamId> ids;
        for (uint64_t n = 1 + pick(6); n > 0; --n) {
          bool pending = !m.pel.empty() && chance(70);
          ids.push_back(pending ? std::next(m.pel.begin(), pick(m.pel.size()))->first : any_id());
        }
        ASSERT_EQ(g->ack(ids), m.ack(ids)) << "step " << step;
        break;
      }
      case 9:
      case 10: {  // XCLAIM
        std::string c = any_name();
        std::vector<StreamId> ids;
        for (uint64_t n = 1 + pick(4); n > 0; --n) ids.push_back(any_id());
        ClaimOptions o;
        o.min_idle_ms = chance(50) ? 0 : static_cast<int64_t>(pick(800));
        o.force = chance(30);
        o.justid = chance(30);
        if (chance(20)) o.retry_count = pick(10);
        if (chance(20)) o.delivery_time_ms = now - static_cast<int64_t>(pick(2000)) + 500;
        if (chance(10)) o.last_id = any_id();
        ClaimResult r = g->claim(s, c, ids, o, now);
        Model::Claimed want = m.claim(c, ids, o, now);
        ASSERT_EQ(testing::ids_of(r.claimed), want.claimed) << "step " << step;
        ASSERT_EQ(r.deleted, want.deleted) << "step " << step;
        ASSERT_EQ(r.consumer_created, want.created) << "step " << step;
        coverage.claimed += want.claimed.size();
        coverage.dropped += want.deleted.size();
        break;
      }
      case 11: {  // XAUTOCLAIM
        std::string c = any_name();
        int64_t min_idle = chance(30) ? 0 : static_cast<int64_t>(pick(1500));
        StreamId start = chance(50) ? StreamId{} : any_id();
        std::size_t count = 1 + pick(4);
        bool justid = chance(30);
        AutoClaimResult r = g->autoclaim(s, c, min_idle, start, count, justid, now);
        Model::Claimed want = m.autoclaim(c, min_idle, start, count, justid, now);
        ASSERT_EQ(testing::ids_of(r.claimed), want.claimed) << "step " << step;
        ASSERT_EQ(r.deleted, want.deleted) << "step " << step;
        ASSERT_EQ(r.next_cursor, want.cursor) << "step " << step;
        ASSERT_EQ(r.consumer_created, want.created) << "step " << step;
        coverage.claimed += want.claimed.size();
        coverage.dropped += want.deleted.size();
        coverage.cursors += !want.cursor.is_zero();
        break;
      }
      case 12: {  // XGROUP DELCONSUMER / CREATECONSUMER
        std::string c = any_name();
        if (chance(50)) {
          std::optional<uint64_t> n = m.delete_consumer(c);
          ASSERT_EQ(g->delete_consumer(c), n) << "step " << step;
          coverage.consumers_deleted += n.value_or(0) != 0;
        } else {
          bool created = g->create_consumer(c, now).second;
          ASSERT_EQ(created, !m.consumers.count(c));
          m.touch(c, now);
        }
        break;
      }
      case 13: {  // XGROUP SETID somewhere (often backwards), now and then a deep copy
        if (chance(30)) {
          StreamId id = chance(50) ? StreamId{} : any_id();
          g->set_last_delivered_id(id, kEntriesReadUnknown);
          m.last_delivered = id;
        } else if (chance(10)) {
          std::unique_ptr<Stream> copy = s.clone();
          expect_same(*copy->groups().find("g"), m, step);
        }
        break;
      }
    }
    expect_same(*g, m, step);
    coverage.max_pel = std::max(coverage.max_pel, m.pel.size());
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(PelRandom, AgreesWithModel) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    run_random_sequence(seed, 4000);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf(
      "[ PelRandom ] largest PEL %zu; claimed %zu, dropped as deleted %zu, autoclaim cursors %zu, "
      "deleted in history %zu, re-delivered by > after SETID %zu, consumers deleted %zu\n",
      coverage.max_pel, coverage.claimed, coverage.dropped, coverage.cursors,
      coverage.history_deleted, coverage.redelivered, coverage.consumers_deleted);
}

}  // namespace
}  // namespace streamd::engine
