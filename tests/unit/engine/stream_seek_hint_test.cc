// Forward scans start from the stream's seek hint (where the last forward walk was) when they can:
// random appends, deletes, trims (exact and approximate, whole nodes going), XSETID, scans from
// random starts, reads that each resume just past the previous one and groups of reads from one
// shared ID (a fan-out), against a plain model.
#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "streamd/engine/stream.h"

namespace streamd::engine {
namespace {

using IdModel = std::map<StreamId, std::string>;

std::vector<std::pair<StreamId, std::string>> Scan(const Stream& s, StreamId start, StreamId end,
                                                   std::size_t count) {
  std::vector<std::pair<StreamId, std::string>> out;
  s.range(start, end, count, Direction::kForward, [&](StreamId id, std::span<const FieldValue> f) {
    out.emplace_back(id, std::string(f[0].value));
  });
  return out;
}

std::vector<std::pair<StreamId, std::string>> ModelScan(const IdModel& m, StreamId start,
                                                        StreamId end, std::size_t count) {
  std::vector<std::pair<StreamId, std::string>> out;
  for (auto it = m.lower_bound(start); it != m.end() && it->first <= end; ++it) {
    if (count != 0 && out.size() == count) break;
    out.emplace_back(it->first, it->second);
  }
  return out;
}

TEST(StreamSeekHint, ScansAgreeWithAModelThroughEveryKindOfChange) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    Stream s(StreamLimits{.max_entries = 1 + rng() % 8, .max_bytes = 4096});
    IdModel m;
    uint64_t ms = 1;
    StreamId cursor;  // a consumer reading one after another
    StreamId shared;  // the last ID of readers blocked together
    for (int step = 0; step < 3000; ++step) {
      int op = static_cast<int>(rng() % 100);
      if (op < 40) {
        ms += rng() % 3;
        std::string v = std::to_string(step);
        FieldValue fv{"f", v};
        auto id = s.append(IdSpec::automatic(), std::span<const FieldValue>(&fv, 1), ms);
        ASSERT_TRUE(id);
        m[*id] = v;
      } else if (op < 50 && !m.empty()) {
        auto it = std::next(m.begin(), static_cast<long>(rng() % m.size()));
        ASSERT_TRUE(s.erase(it->first));
        m.erase(it);
      } else if (op < 53) {
        uint64_t keep = rng() % 30;
        bool approx = rng() % 2 == 0;
        TrimResult r = s.trim(TrimSpec::max_len(keep, approx));
        for (uint64_t i = 0; i < r.removed; ++i) m.erase(m.begin());
        ASSERT_EQ(s.length(), m.size());
      } else if (op < 54 && !m.empty()) {
        // XSETID to the top entry or beyond it (refused when below max-deleted-entry-id:
        // either way the entries stay as they are).
        StreamId top = std::prev(m.end())->first;
        s.set_id(rng() % 2 ? top : StreamId{top.ms + 1, 0});
      } else if (op < 80) {
        // The next read of a consumer: just past the cursor.
        auto got = Scan(s, cursor.next().value_or(StreamId::max()), StreamId::max(), 1 + rng() % 3);
        ASSERT_EQ(got, ModelScan(m, cursor.next().value_or(StreamId::max()), StreamId::max(),
                                 got.size() ? got.size() : 1));
        if (!got.empty()) cursor = got.back().first;
      } else if (op < 88) {
        // Readers woken by one XADD: several reads from one shared last ID (where the previous
        // walk began, not where it ended), which then moves to the top entry now and then.
        StreamId from = shared.next().value_or(StreamId::max());
        for (int r = 1 + static_cast<int>(rng() % 4); r > 0; --r) {
          std::size_t count = 1 + rng() % 4;
          ASSERT_EQ(Scan(s, from, StreamId::max(), count),
                    ModelScan(m, from, StreamId::max(), count))
              << from.to_string();
        }
        if (!m.empty() && rng() % 3 == 0) shared = std::prev(m.end())->first;
      } else {
        StreamId start = m.empty() || rng() % 4 == 0
                             ? StreamId{rng() % (ms + 2), rng() % 3}
                             : std::next(m.begin(), static_cast<long>(rng() % m.size()))->first;
        StreamId end = rng() % 3 == 0 ? StreamId::max() : StreamId{start.ms + rng() % 5, rng()};
        std::size_t count = rng() % 6;
        ASSERT_EQ(Scan(s, start, end, count), ModelScan(m, start, end, count))
            << start.to_string() << " " << end.to_string() << " " << count;
      }
    }
  }
}

}  // namespace
}  // namespace streamd::engine
