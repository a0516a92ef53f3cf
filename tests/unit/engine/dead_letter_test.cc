// Dead letters on the engine (dead_letter.h): the "would exceed max on this delivery" rule at
// every claim path, XNACK FATAL, the forms that never dead-letter (JUSTID, RETRYCOUNT, history
// reads), the copy handed back and the append to the dead-letter stream.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "engine/group_test_util.h"
#include "streamd/engine/consumer_group.h"
#include "streamd/engine/dead_letter.h"

namespace streamd::engine {
namespace {

using testing::GroupHarness;
using testing::ids_of;

// 1-1, 2-1, 3-1 read once by "a" (count 1); policy: at most 3 deliveries.
struct DeadLetterTest : ::testing::Test {
  GroupHarness h;
  ConsumerGroup* g = nullptr;

  void SetUp() override {
    h.add(1, 1, "one");
    h.add(2, 1, "two");
    h.add(3, 1, "three");
    g = &h.create("g", {0, 0});
    g->set_dead_letter(DeadLetterPolicy{3, "dlq"});
    h.read("g", "a", 0);
    h.now += 1000;
  }
  // XCLAIM c 0 id (a counted delivery).
  ClaimResult claim(std::string_view c, StreamId id, ClaimOptions opts = {}) {
    std::vector<StreamId> ids{id};
    ClaimResult r = g->claim(h.s, c, ids, opts, h.now);
    EXPECT_TRUE(g->check_invariants());
    return r;
  }
  uint64_t count(StreamId id) {
    std::optional<PendingEntry> e = g->pel().find(id);
    return e ? e->delivery_count : 0;
  }
};

TEST_F(DeadLetterTest, XclaimDeliversUpToTheMaximumThenDeadLetters) {
  // Deliveries 2 and 3 are handed out (3 does not exceed the maximum of 3).
  EXPECT_EQ(ids_of(claim("b", {1, 1}).claimed), (std::vector<StreamId>{{1, 1}}));
  EXPECT_EQ(ids_of(claim("a", {1, 1}).claimed), (std::vector<StreamId>{{1, 1}}));
  EXPECT_EQ(count({1, 1}), 3u);
  // The 4th would exceed it: the entry leaves the group, with what it had.
  ClaimResult r = claim("b", {1, 1});
  EXPECT_TRUE(r.claimed.empty());
  EXPECT_TRUE(r.deleted.empty());
  ASSERT_EQ(r.dead_lettered.size(), 1u);
  const DeadLetter& d = r.dead_lettered[0];
  EXPECT_EQ(d.id, (StreamId{1, 1}));
  EXPECT_EQ(d.deliveries, 3u);
  EXPECT_EQ(d.consumer, "a");  // its owner before this attempt
  EXPECT_EQ(d.reason, DeadLetterReason::kMaxDeliveries);
  ASSERT_EQ(d.fields.size(), 1u);
  EXPECT_EQ(d.fields[0].first, "f");
  EXPECT_EQ(d.fields[0].second, "one");
  EXPECT_FALSE(g->pel().contains({1, 1}));  // acknowledged
  EXPECT_TRUE(h.s.contains({1, 1}));        // still in the source stream
  EXPECT_EQ(g->pending_summary().count, 2u);
  EXPECT_EQ(g->dead_letter()->dead_lettered, 1u);
}

TEST_F(DeadLetterTest, MinIdleIsCheckedFirstAndSetCountsNeverDeadLetter) {
  ClaimOptions retry;
  retry.retry_count = 3;
  claim("b", {1, 1}, retry);
  // Not idle enough: skipped, not dead-lettered.
  ClaimOptions idle;
  idle.min_idle_ms = 5000;
  EXPECT_TRUE(claim("b", {1, 1}, idle).dead_lettered.empty());
  // JUSTID and RETRYCOUNT set the counter (the AOF's form of a delivery): never dead-letter.
  ClaimOptions justid;
  justid.justid = true;
  EXPECT_EQ(claim("c", {1, 1}, justid).claimed.size(), 1u);
  EXPECT_EQ(claim("c", {1, 1}, retry).claimed.size(), 1u);
  ClaimOptions force;
  force.force = true;
  force.justid = true;
  force.retry_count = 7;
  EXPECT_EQ(claim("c", {1, 1}, force).claimed.size(), 1u);
  EXPECT_EQ(count({1, 1}), 7u);
  EXPECT_EQ(claim("c", {1, 1}).dead_lettered.size(), 1u);
}

TEST_F(DeadLetterTest, WithoutAPolicyNothingIsDeadLettered) {
  g->set_dead_letter(std::nullopt);
  ClaimOptions retry;
  retry.retry_count = 100;
  claim("b", {1, 1}, retry);
  ClaimResult r = claim("b", {1, 1});
  EXPECT_EQ(r.claimed.size(), 1u);
  EXPECT_TRUE(r.dead_lettered.empty());
  EXPECT_EQ(count({1, 1}), 101u);
  EXPECT_EQ(g->dead_letter(), nullptr);
}

TEST_F(DeadLetterTest, AutoclaimLeavesThemOutAndCountsThemAgainstCount) {
  ClaimOptions retry;
  retry.retry_count = 3;
  claim("a", {1, 1}, retry);
  claim("a", {2, 1}, retry);
  h.now += 1000;
  AutoClaimResult r = g->autoclaim(h.s, "j", 500, {0, 0}, 2, false, h.now);
  EXPECT_TRUE(g->check_invariants());
  EXPECT_TRUE(r.claimed.empty());
  EXPECT_TRUE(r.deleted.empty());
  ASSERT_EQ(r.dead_lettered.size(), 2u);
  EXPECT_EQ(r.dead_lettered[0].id, (StreamId{1, 1}));
  EXPECT_EQ(r.dead_lettered[1].id, (StreamId{2, 1}));
  EXPECT_EQ(r.next_cursor, (StreamId{3, 1}));
  r = g->autoclaim(h.s, "j", 500, r.next_cursor, 2, false, h.now);
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{3, 1}}));
  EXPECT_EQ(r.next_cursor, (StreamId{0, 0}));
  // JUSTID does not count a delivery: never dead-letters.
  claim("a", {3, 1}, retry);
  r = g->autoclaim(h.s, "j", 0, {0, 0}, 10, true, h.now);
  EXPECT_EQ(ids_of(r.claimed), (std::vector<StreamId>{{3, 1}}));
  EXPECT_TRUE(r.dead_lettered.empty());
}

TEST_F(DeadLetterTest, ClaimIdleSkipsThemWithoutCountingThem) {
  ClaimOptions retry;
  retry.retry_count = 3;
  retry.delivery_time_ms = h.now - 5000;
  claim("a", {2, 1}, retry);  // the idlest: first in the time index
  h.now += 1000;
  ClaimIdleResult r = g->claim_idle(h.s, "b", 500, 1, h.now);
  EXPECT_TRUE(g->check_invariants());
  ASSERT_EQ(r.dead_lettered.size(), 1u);
  EXPECT_EQ(r.dead_lettered[0].id, (StreamId{2, 1}));
  EXPECT_EQ(r.claimed.size(), 1u);  // COUNT 1 still got an entry to work on
  EXPECT_NE(r.claimed[0].id, (StreamId{2, 1}));
}

TEST_F(DeadLetterTest, NackedEntriesAreJudgedByTheirCounter) {
  std::vector<StreamId> ids{{1, 1}};
  g->nack(h.s, ids, NackMode::kFail, 3, false);  // released, counter 3, no owner
  ClaimIdleResult r = g->claim_idle(h.s, "b", 0, 0, h.now);
  ASSERT_EQ(r.dead_lettered.size(), 1u);
  EXPECT_EQ(r.dead_lettered[0].consumer, "");  // released by XNACK: no last owner
  EXPECT_TRUE(g->check_invariants());
}

TEST_F(DeadLetterTest, XnackFatalDeadLettersWithThePreviousCounter) {
  claim("b", {2, 1});
  std::vector<StreamId> ids{{2, 1}, {9, 9}, {3, 1}};
  NackResult r = g->nack(h.s, ids, NackMode::kFatal, std::nullopt, false);
  EXPECT_TRUE(g->check_invariants());
  EXPECT_EQ(r.released, 2u);
  EXPECT_TRUE(r.records.empty());
  ASSERT_EQ(r.dead_lettered.size(), 2u);
  EXPECT_EQ(r.dead_lettered[0].deliveries, 2u);
  EXPECT_EQ(r.dead_lettered[0].consumer, "b");
  EXPECT_EQ(r.dead_lettered[0].reason, DeadLetterReason::kFatal);
  EXPECT_EQ(r.dead_lettered[1].id, (StreamId{3, 1}));
  EXPECT_EQ(g->pending_summary().count, 1u);
  // FAIL and SILENT still release.
  std::vector<StreamId> one{{1, 1}};
  r = g->nack(h.s, one, NackMode::kFail, std::nullopt, false);
  EXPECT_EQ(r.records.size(), 1u);
  EXPECT_TRUE(r.dead_lettered.empty());
}

TEST_F(DeadLetterTest, AnEntryGoneFromTheStreamIsDroppedNotDeadLettered) {
  ClaimOptions retry;
  retry.retry_count = 3;
  claim("a", {1, 1}, retry);
  h.del(1, 1);
  ClaimResult r = claim("b", {1, 1});
  EXPECT_EQ(r.deleted, (std::vector<StreamId>{{1, 1}}));
  EXPECT_TRUE(r.dead_lettered.empty());
}

TEST_F(DeadLetterTest, HistoryReadsNeverDeadLetter) {
  ClaimOptions retry;
  retry.retry_count = 3;
  claim("a", {1, 1}, retry);
  ReadResult r = g->read_history(h.s, h.consumer("g", "a"), {0, 0}, 0, h.now);
  EXPECT_EQ(r.entries.size(), 3u);
  EXPECT_EQ(count({1, 1}), 4u);
}

TEST_F(DeadLetterTest, PolicyChangesKeepTheCounterAndClonesCopyIt) {
  ClaimOptions retry;
  retry.retry_count = 3;
  claim("a", {1, 1}, retry);
  claim("b", {1, 1});
  g->set_dead_letter(DeadLetterPolicy{5, "other"});
  EXPECT_EQ(g->dead_letter()->dead_lettered, 1u);
  EXPECT_EQ(g->dead_letter()->max_deliveries, 5u);
  auto copy = g->clone();
  ASSERT_NE(copy->dead_letter(), nullptr);
  EXPECT_EQ(copy->dead_letter()->stream, "other");
  EXPECT_GT(g->memory_usage(), 0u);
}

TEST(DeadLetterAppend, MetadataFirstThenTheOriginalFields) {
  Stream dl;
  DeadLetter d;
  d.id = {5, 2};
  d.deliveries = 4;
  d.consumer = "worker-1";
  d.fields = {{"streamd-dl-id", "spoof"}, {"job", "42"}};
  std::vector<DeadLetter> letters{d};
  d.reason = DeadLetterReason::kFatal;
  d.consumer.clear();
  letters.push_back(d);
  ASSERT_EQ(dead_letter_stream_ready(&dl), Err::kOk);
  std::vector<StreamId> ids = append_dead_letters(dl, "jobs", "workers", letters, 1000);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0], (StreamId{1000, 0}));
  EXPECT_EQ(ids[1], (StreamId{1000, 1}));
  std::vector<FieldValue> got;
  ASSERT_TRUE(dl.lookup(ids[0], got));
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const FieldValue& fv : got) pairs.emplace_back(fv.field, fv.value);
  std::vector<std::pair<std::string, std::string>> want{{"streamd-dl-stream", "jobs"},
                                                        {"streamd-dl-group", "workers"},
                                                        {"streamd-dl-id", "5-2"},
                                                        {"streamd-dl-deliveries", "4"},
                                                        {"streamd-dl-consumer", "worker-1"},
                                                        {"streamd-dl-reason", "max-deliveries"},
                                                        {"streamd-dl-id", "spoof"},
                                                        {"job", "42"}};
  EXPECT_EQ(pairs, want);
  ASSERT_TRUE(dl.lookup(ids[1], got));
  EXPECT_EQ(got[4].value, "");
  EXPECT_EQ(got[5].value, "fatal");
  EXPECT_EQ(kDeadLetterMetaPairs, 6u);
}

TEST(DeadLetterAppend, ReadinessFailsOnlyInTheLastMillisecond) {
  EXPECT_EQ(dead_letter_stream_ready(nullptr), Err::kOk);
  Stream dl;
  FieldValue fv{"f", "v"};
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  ASSERT_TRUE(dl.append(StreamId{kMax - 1, kMax}, std::span<const FieldValue>(&fv, 1)).ok());
  EXPECT_EQ(dead_letter_stream_ready(&dl), Err::kOk);
  ASSERT_TRUE(dl.append(StreamId{kMax, 0}, std::span<const FieldValue>(&fv, 1)).ok());
  EXPECT_EQ(dead_letter_stream_ready(&dl), Err::kIdExhausted);
}

}  // namespace
}  // namespace streamd::engine
