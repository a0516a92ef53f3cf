// IdmpTable (idmp.h): duplicate detection, expiry by duration, eviction by maxsize, XCFGSET
// clearing, replay order, IDMPAUTO digests and the memory estimate, with plain calls.
#include "streamd/engine/idmp.h"

#include <gtest/gtest.h>

#include <malloc.h>

#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace streamd::engine {
namespace {

constexpr uint64_t kT = 1700000000000;

TEST(Idmp, RemembersPerProducer) {
  IdmpTable t;
  t.record("p1", "a", {kT, 0}, kT);
  t.record("p2", "a", {kT, 1}, kT);
  EXPECT_EQ(t.find("p1", "a", kT), (StreamId{kT, 0}));
  EXPECT_EQ(t.find("p2", "a", kT), (StreamId{kT, 1}));
  EXPECT_FALSE(t.find("p1", "b", kT));
  EXPECT_FALSE(t.find("p3", "a", kT));
  EXPECT_EQ(t.pids_tracked(), 2u);
  EXPECT_EQ(t.iids_tracked(), 2u);
  EXPECT_EQ(t.iids_added(), 2u);
  // The same (pid, iid) again keeps the first ID.
  t.record("p1", "a", {kT + 5, 0}, kT + 5);
  EXPECT_EQ(t.find("p1", "a", kT + 5), (StreamId{kT, 0}));
  EXPECT_EQ(t.iids_tracked(), 2u);
}

TEST(Idmp, ExpiresAfterTheDuration) {
  IdmpTable t;
  t.configure(10, std::nullopt);  // 10 s
  t.record("p", "a", {kT, 0}, kT);
  t.record("p", "b", {kT + 4000, 0}, kT + 4000);
  EXPECT_TRUE(t.find("p", "a", kT + 9999));
  EXPECT_FALSE(t.find("p", "a", kT + 10000));  // exactly DURATION old: forgotten
  EXPECT_TRUE(t.find("p", "b", kT + 10000));
  EXPECT_EQ(t.iids_tracked(), 1u);
  // A producer whose iids all expired is no longer tracked.
  t.record("q", "x", {kT + 5000, 0}, kT + 5000);
  t.expire_all(kT + 14500);
  EXPECT_EQ(t.pids_tracked(), 1u);  // q: b went at kT + 14000, x goes at kT + 15000
  t.expire_all(kT + 15000 + 100000);
  EXPECT_EQ(t.pids_tracked(), 0u);
  EXPECT_EQ(t.iids_tracked(), 0u);
  EXPECT_EQ(t.iids_added(), 3u);  // a lifetime count
}

TEST(Idmp, MaxsizeEvictsTheOldestFirst) {
  IdmpTable t;
  t.configure(std::nullopt, 3);
  for (uint64_t i = 0; i < 5; ++i) t.record("p", "i" + std::to_string(i), {kT + i, 0}, kT + i);
  t.record("other", "i0", {kT + 9, 0}, kT + 9);  // other producers have their own MAXSIZE
  EXPECT_EQ(t.iids_tracked(), 4u);
  EXPECT_FALSE(t.find("p", "i0", kT + 10));
  EXPECT_FALSE(t.find("p", "i1", kT + 10));
  EXPECT_TRUE(t.find("p", "i2", kT + 10));
  EXPECT_TRUE(t.find("p", "i4", kT + 10));
  EXPECT_TRUE(t.find("other", "i0", kT + 10));
}

TEST(Idmp, ConfigureClearsOnlyWhenAValueChanges) {
  IdmpTable t;
  EXPECT_FALSE(t.configured());
  t.record("p", "a", {kT, 0}, kT);
  EXPECT_FALSE(t.configure(IdmpTable::kDefaultDurationSec, IdmpTable::kDefaultMaxSize));
  EXPECT_TRUE(t.configured());
  EXPECT_TRUE(t.find("p", "a", kT));
  EXPECT_TRUE(t.configure(std::nullopt, 50));
  EXPECT_FALSE(t.find("p", "a", kT));
  EXPECT_EQ(t.iids_tracked(), 0u);
  EXPECT_EQ(t.maxsize(), 50u);
  EXPECT_EQ(t.duration_sec(), IdmpTable::kDefaultDurationSec);
}

TEST(Idmp, ReplayInForEachOrderRebuildsTheSameTable) {
  IdmpTable t;
  t.configure(100, 2);
  t.record("b", "x", {kT, 0}, kT);
  t.record("a", "y", {kT + 1, 0}, kT + 1);
  t.record("a", "z", {kT + 2, 0}, kT + 2);
  t.record("a", "w", {kT + 3, 0}, kT + 3);  // evicts y
  std::vector<std::tuple<std::string, std::string, StreamId>> records;
  t.for_each([&](std::string_view p, std::string_view i, StreamId id) {
    records.emplace_back(std::string(p), std::string(i), id);
  });
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(std::get<1>(records[0]), "z");
  EXPECT_EQ(std::get<1>(records[1]), "w");
  IdmpTable u;
  u.configure(100, 2);
  for (const auto& [p, i, id] : records) u.record(p, i, id, kT + 10);
  EXPECT_EQ(u.iids_tracked(), 3u);
  EXPECT_TRUE(u.find("a", "z", kT + 10));
  EXPECT_FALSE(u.find("a", "y", kT + 10));
  // A replayed record that is already too old is not kept.
  u.record("c", "old", {kT - 200000, 0}, kT);
  EXPECT_FALSE(u.find("c", "old", kT));
  // clone() is deep.
  auto v = u.clone();
  u.configure(std::nullopt, 1);
  EXPECT_TRUE(v->find("a", "w", kT + 10));
}

TEST(Idmp, AutoIidIsStableAndOrderSensitive) {
  std::vector<FieldValue> a = {{"f", "v"}, {"g", "w"}};
  std::vector<FieldValue> b = {{"g", "w"}, {"f", "v"}};
  std::vector<FieldValue> c = {{"fv", ""}, {"g", "w"}};
  std::string da = IdmpTable::auto_iid(a);
  EXPECT_EQ(da.size(), IdmpTable::kAutoIidSize);
  EXPECT_EQ(da, IdmpTable::auto_iid(a));
  EXPECT_NE(da, IdmpTable::auto_iid(b));
  EXPECT_NE(da, IdmpTable::auto_iid(c));
  // Pinned (computed independently from the algorithm in idmp.cc): a restarted or upgraded
  // server must derive the same iid from the same entry, or a resent entry would be added again.
  std::string hex;
  for (unsigned char ch : da) {
    static const char kDigits[] = "0123456789abcdef";
    hex += kDigits[ch >> 4];
    hex += kDigits[ch & 15];
  }
  EXPECT_EQ(hex, "3901a83f9d2aac4ac258ad114e4f54");
}

TEST(Idmp, MemoryPerIidIsAboutOneHundredBytes) {
  // Both the estimate (MEMORY USAGE) and what glibc malloc really holds for the table.
  std::vector<FieldValue> f = {{"k", ""}};
  std::vector<std::string> iids;
  for (uint64_t i = 0; i < 10000; ++i) {
    std::string v = std::to_string(i);
    f[0].value = v;
    iids.push_back(IdmpTable::auto_iid(f));
  }
  malloc_trim(0);
  std::size_t before = mallinfo2().uordblks;
  auto t = std::make_unique<IdmpTable>();
  t->configure(std::nullopt, 10000);
  std::size_t empty = t->memory_usage();
  for (uint64_t i = 0; i < iids.size(); ++i) t->record("producer-1", iids[i], {kT + i, 0}, kT + i);
  double estimate = static_cast<double>(t->memory_usage() - empty) / 10000.0;
  double held = static_cast<double>(mallinfo2().uordblks - before) / 10000.0;
  std::printf(
      "IDMP: %.1f bytes per remembered iid estimated, %.1f held by malloc (IDMPAUTO, 10000 iids, "
      "one producer)\n",
      estimate, held);
  EXPECT_LT(estimate, 130.0);
  EXPECT_LT(held, 130.0);
}

}  // namespace
}  // namespace streamd::engine
