// Lag and entries-read, case by case as newest Redis (built from its main branch) answers XINFO
// GROUPS after the same commands (each scenario was run against it; the commands are in the
// comments). Where redis-server 7.0.15 answered otherwise, the comment says what it said.
#include "streamd/engine/group_lag.h"

#include <gtest/gtest.h>

#include <optional>

#include "engine/group_test_util.h"

namespace streamd::engine {
namespace {

using testing::GroupHarness;
constexpr std::optional<int64_t> kNull = std::nullopt;

// XADD 1-1..5-1; XGROUP CREATE s g 0; then XREADGROUP COUNT 1 around an XDEL of 3-1, which is
// ahead of the group: the lag is unknown until the group reads past the tombstone.
TEST(ConsumerGroupLag, XdelAheadOfTheGroup) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 5; ++i) h.add(i, 1);
  h.create("g", {0, 0});
  h.expect_info("g", {0, 0}, kNull, 5, "created at 0");
  EXPECT_EQ(h.read("g", "c", 1), (std::vector<StreamId>{{1, 1}}));
  h.expect_info("g", {1, 1}, 1, 4, "first read estimates 1 (the first entry)");
  h.del(3, 1);
  h.expect_info("g", {1, 1}, 1, kNull, "tombstone ahead");
  EXPECT_EQ(h.read("g", "c", 1), (std::vector<StreamId>{{2, 1}}));
  h.expect_info("g", {2, 1}, kNull, kNull, "counter lost before the tombstone");
  EXPECT_EQ(h.read("g", "c", 1), (std::vector<StreamId>{{4, 1}}));
  h.expect_info("g", {4, 1}, kNull, kNull, "past the tombstone, not at the end");
  EXPECT_EQ(h.read("g", "c", 1), (std::vector<StreamId>{{5, 1}}));
  h.expect_info("g", {5, 1}, 5, 0, "at the last id the counter is exact");
  EXPECT_TRUE(h.read("g", "c", 1).empty());
  h.expect_info("g", {5, 1}, 5, 0);
  h.add(6, 1);
  h.expect_info("g", {5, 1}, 5, 1, "after XADD");
  EXPECT_EQ(h.read("g", "c", 1), (std::vector<StreamId>{{6, 1}}));
  h.expect_info("g", {6, 1}, 6, 0);
}

// XDEL of 2-1 right after the group's position: the next delivery (3-1) passes the tombstone, so
// the counter is lost until the group reaches the last entry. (7.0.15 checked for tombstones
// from the delivered ID on, just incremented the counter and undercounted: 3-1 gave
// entries-read 2 / lag 2, 4-1 entries-read 3 / lag 1 with nothing left to read.)
TEST(ConsumerGroupLag, XdelJustBehindTheNextDelivery) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 4; ++i) h.add(i, 1);
  h.create("g", {0, 0});
  h.read("g", "c", 1);
  h.expect_info("g", {1, 1}, 1, 3);
  h.del(2, 1);
  h.expect_info("g", {1, 1}, 1, kNull);
  EXPECT_EQ(h.read("g", "c", 1), (std::vector<StreamId>{{3, 1}}));
  h.expect_info("g", {3, 1}, kNull, kNull, "passed a tombstone: counter unknown");
  EXPECT_EQ(h.read("g", "c", 1), (std::vector<StreamId>{{4, 1}}));
  h.expect_info("g", {4, 1}, 4, 0, "at the last id the counter is exact");
}

// XGROUP CREATE s g $ MKSTREAM; CREATE g2 0 ENTRIESREAD 5; CREATE g3 7-0; then adds, deleting
// everything, an add, XTRIM MAXLEN 0 and SETIDs.
TEST(ConsumerGroupLag, EmptyStreamNothingAddedAndSetId) {
  GroupHarness h;
  h.create("g", {0, 0});
  h.create("g2", {0, 0}, 5);
  h.create("g3", {7, 0});
  h.expect_info("g", {0, 0}, kNull, 0, "entries_added == 0");
  h.expect_info("g2", {0, 0}, 5, 0, "entries_added == 0");
  h.expect_info("g3", {7, 0}, kNull, 0, "entries_added == 0");

  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 1);
  h.expect_info("g", {0, 0}, kNull, 3);
  h.expect_info("g2", {0, 0}, 5, 3, "before the first entry: the length (7.0.15: -2)");
  h.expect_info("g3", {7, 0}, kNull, kNull, "ahead of the stream");

  h.del(1, 1);
  h.del(2, 1);
  h.del(3, 1);
  h.expect_info("g", {0, 0}, kNull, 0, "empty stream: everything was read");
  h.expect_info("g2", {0, 0}, 5, 0, "empty stream (7.0.15: -2)");
  h.expect_info("g3", {7, 0}, kNull, 0, "empty stream (7.0.15: null)");

  h.add(4, 1);
  h.expect_info("g", {0, 0}, kNull, 1, "the tombstones are before the first entry");
  h.expect_info("g2", {0, 0}, 5, 1, "(7.0.15: -1)");
  h.expect_info("g3", {7, 0}, kNull, kNull);

  EXPECT_EQ(h.s.trim(TrimSpec::max_len(0)).removed, 1u);
  h.expect_info("g", {0, 0}, kNull, 0);
  h.expect_info("g2", {0, 0}, 5, 0, "(7.0.15: -1)");
  h.expect_info("g3", {7, 0}, kNull, 0, "(7.0.15: null)");

  h.group("g").set_last_delivered_id({0, 0}, kEntriesReadUnknown);
  h.group("g2").set_last_delivered_id({3, 1}, kEntriesReadUnknown);
  h.group("g3").set_last_delivered_id({9, 0}, 2);
  h.expect_info("g", {0, 0}, kNull, 0);
  h.expect_info("g2", {3, 1}, kNull, 0, "empty stream, id below last_id");
  h.expect_info("g3", {9, 0}, 2, 0, "empty stream (7.0.15: 2, the known counter)");
}

// XADD 1-1..5-1, groups at 0 (with and without ENTRIESREAD 0), 1-1 (with and without
// ENTRIESREAD 1), 3-1 and 2-5; XTRIM MAXLEN 3; XDEL 1-1 (already trimmed: no-op); XDEL 3-1.
TEST(ConsumerGroupLag, TrimsAndXdelOfTheFirstEntry) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 5; ++i) h.add(i, 1);
  h.create("g0", {0, 0}, 0);
  h.create("gn", {0, 0});
  h.create("g1", {1, 1}, 1);
  h.create("g1n", {1, 1});
  h.create("g3", {3, 1});
  h.create("g25", {2, 5});
  h.expect_info("g0", {0, 0}, 0, 5);
  h.expect_info("gn", {0, 0}, kNull, 5);
  h.expect_info("g1", {1, 1}, 1, 4);
  h.expect_info("g1n", {1, 1}, kNull, 4, "the first entry");
  h.expect_info("g3", {3, 1}, kNull, kNull, "an arbitrary entry");
  h.expect_info("g25", {2, 5}, kNull, kNull, "an arbitrary id");

  EXPECT_EQ(h.s.trim(TrimSpec::max_len(3)).removed, 2u);
  h.expect_info("g0", {0, 0}, 0, 3, "behind the first entry: the length (7.0.15: 5)");
  h.expect_info("gn", {0, 0}, kNull, 3);
  h.expect_info("g1", {1, 1}, 1, 3, "(7.0.15: 4)");
  h.expect_info("g1n", {1, 1}, kNull, 3, "before the first entry");
  h.expect_info("g25", {2, 5}, kNull, 3, "before the first entry");
  h.expect_info("g3", {3, 1}, kNull, 2, "now the first entry");

  EXPECT_FALSE(h.s.erase({1, 1}));
  h.del(3, 1);
  h.expect_info("g0", {0, 0}, 0, 2, "the tombstone is before the first entry (7.0.15: 5)");
  h.expect_info("gn", {0, 0}, kNull, 2);
  h.expect_info("g1", {1, 1}, 1, 2, "(7.0.15: 4)");
  h.expect_info("g1n", {1, 1}, kNull, 2);
  h.expect_info("g25", {2, 5}, kNull, 2);
  h.expect_info("g3", {3, 1}, kNull, 2, "a deleted id before the first entry");

  EXPECT_EQ(h.read("gn", "c", 1), (std::vector<StreamId>{{4, 1}}));
  EXPECT_EQ(h.read("g0", "c", 1), (std::vector<StreamId>{{4, 1}}));
  h.expect_info("gn", {4, 1}, 4, 1, "estimated at the first entry");
  h.expect_info("g0", {4, 1}, 4, 1, "passed the tombstone: estimated (7.0.15: 1, 4)");
}

// Groups whose position is a deleted entry; XSETID raising entries_added and max_deleted_id;
// SETID $ (unknown counter at the last id) and SETID back with ENTRIESREAD.
TEST(ConsumerGroupLag, PositionOnTombstoneXsetidAndSetidBack) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 1);
  h.create("g", {0, 0});
  h.create("h", {0, 0});
  h.read("g", "c", 2);
  h.expect_info("g", {2, 1}, 2, 1);
  h.expect_info("h", {0, 0}, kNull, 3);
  h.del(2, 1);
  h.expect_info("g", {2, 1}, 2, kNull, "the group sits on the tombstone");
  h.expect_info("h", {0, 0}, kNull, kNull, "fragmented after the first entry");
  h.del(3, 1);
  h.expect_info("g", {2, 1}, 2, kNull);
  h.expect_info("h", {0, 0}, kNull, kNull);
  ASSERT_EQ(h.s.set_id({3, 1}, 10, StreamId{3, 1}), Err::kOk);
  h.expect_info("g", {2, 1}, 2, kNull);
  h.add(4, 1);
  h.expect_info("g", {2, 1}, 2, kNull);
  h.expect_info("h", {0, 0}, kNull, kNull);
  EXPECT_EQ(h.read("h", "c", 1), (std::vector<StreamId>{{1, 1}}));
  h.expect_info("h", {1, 1}, kNull, kNull);
  EXPECT_EQ(h.read("h", "c", 1), (std::vector<StreamId>{{4, 1}}));
  h.expect_info("h", {4, 1}, 11, 0, "the last id: entries_added");
  h.group("g").set_last_delivered_id(h.s.last_id(), kEntriesReadUnknown);  // SETID $
  h.expect_info("g", {4, 1}, kNull, 0);
  h.group("h").set_last_delivered_id({1, 1}, 1);
  h.expect_info("h", {1, 1}, 1, kNull, "tombstones ahead make a known counter useless");
}

// XGROUP CREATE with 0, $ and an id in the middle; SETID $ ENTRIESREAD n; XCLAIM LASTID moves
// the id but not the counter.
TEST(ConsumerGroupLag, CreateSetIdAndLastId) {
  GroupHarness h;
  for (uint64_t i = 1; i <= 3; ++i) h.add(i, 1);
  h.create("g0", {0, 0});
  h.create("gd", h.s.last_id());
  h.create("gm", {2, 1});
  h.expect_info("g0", {0, 0}, kNull, 3);
  h.expect_info("gd", {3, 1}, kNull, 0);
  h.expect_info("gm", {2, 1}, kNull, kNull);

  h.read("g0", "a", 0);
  h.expect_info("g0", {3, 1}, 3, 0);
  h.group("g0").set_last_delivered_id(h.s.last_id(), 2);
  h.expect_info("g0", {3, 1}, 2, 1);
  h.group("g0").set_last_delivered_id(h.s.last_id(), kEntriesReadUnknown);
  h.expect_info("g0", {3, 1}, kNull, 0);
  h.group("g0").set_last_delivered_id({0, 0}, kEntriesReadUnknown);
  EXPECT_EQ(h.read("g0", "b", 1, /*noack=*/true), (std::vector<StreamId>{{1, 1}}));
  h.expect_info("g0", {1, 1}, 1, 2);
  EXPECT_EQ(h.read("g0", "b", 1), (std::vector<StreamId>{{2, 1}}));
  h.expect_info("g0", {2, 1}, 2, 1);

  ClaimOptions opts;
  opts.min_idle_ms = 1000000;
  opts.last_id = StreamId{5, 5};
  StreamId one{1, 1};
  ClaimResult r = h.group("g0").claim(h.s, "zz", std::span(&one, 1), opts, h.now);
  EXPECT_TRUE(r.claimed.empty());
  EXPECT_TRUE(r.last_id_changed);
  EXPECT_TRUE(r.consumer_created) << "an XCLAIM attempt creates the consumer (7.2+)";
  h.expect_info("g0", {5, 5}, 2, 1, "LASTID keeps entries_read");
}

TEST(ConsumerGroupLag, EstimateFunctionDirectly) {
  GroupHarness h;
  EXPECT_EQ(estimate_entries_read(h.s, {5, 0}), 0) << "nothing ever added";
  for (uint64_t i = 1; i <= 4; ++i) h.add(i, 0);
  EXPECT_EQ(estimate_entries_read(h.s, {4, 0}), 4);
  EXPECT_EQ(estimate_entries_read(h.s, {4, 1}), kEntriesReadUnknown);
  EXPECT_EQ(estimate_entries_read(h.s, {0, 5}), 0);
  EXPECT_EQ(estimate_entries_read(h.s, {1, 0}), 1);
  EXPECT_EQ(estimate_entries_read(h.s, {2, 0}), kEntriesReadUnknown);
  EXPECT_FALSE(stream_has_tombstones_from(h.s, {0, 0}));
  h.del(2, 0);
  EXPECT_TRUE(stream_has_tombstones_from(h.s, {2, 0}));
  EXPECT_FALSE(stream_has_tombstones_from(h.s, {2, 1}));
  EXPECT_EQ(estimate_entries_read(h.s, {1, 0}), kEntriesReadUnknown);
  EXPECT_EQ(estimate_entries_read(h.s, {0, 1}), kEntriesReadUnknown);
  EXPECT_EQ(entries_read_after_delivery(h.s, {2, 1}, {3, 0}, 1), 2)
      << "no tombstone at or after the group's position 2-1";
  EXPECT_EQ(entries_read_after_delivery(h.s, {1, 0}, {3, 0}, 1), kEntriesReadUnknown)
      << "the tombstone 2-0 lies between the position and the delivery (7.0.15 counted on: 2)";
  EXPECT_EQ(entries_read_after_delivery(h.s, {0, 0}, {1, 0}, 0), kEntriesReadUnknown);
  EXPECT_EQ(entries_read_after_delivery(h.s, {3, 0}, {4, 0}, kEntriesReadUnknown), 4);
  EXPECT_EQ(capped_entries_read(h.s, 99), 4) << "8.2.2: capped at entries_added";
  EXPECT_EQ(capped_entries_read(h.s, 3), 3);
  EXPECT_EQ(capped_entries_read(h.s, kEntriesReadUnknown), kEntriesReadUnknown);
}

}  // namespace
}  // namespace streamd::engine
