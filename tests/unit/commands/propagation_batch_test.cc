// PropagationBatch keeps room past its records (it never shrinks, and a record is written into
// room for its size bound before its exact end is kept): records must read back exactly, across
// growth and after clear(), whatever scratch lies beyond them.
#include "streamd/commands/core/propagation.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::cmd {
namespace {

struct Pair {
  std::string_view field, value;
};

std::string enc(std::span<const std::string_view> argv) {
  std::string out;
  resp::append_command(out, argv);
  return out;
}

const std::string& big_arg() {
  static const std::string big(70000, 'q');
  return big;
}

TEST(PropagationBatchTest, RecordsReadBackAcrossGrowthAndClear) {
  std::string big(5000, 'z');
  PropagationBatch batch;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::string> want;
    std::vector<int> dbs;
    std::string all;
    // Lengths from 0 past every copy seam and digit boundary, so the string grows several times
    // while records are in it; the second and third rounds write over the first's scratch.
    for (std::size_t i = 0; i < 300; i += 1 + round) {
      std::string_view arg(big.data(), i * i % 1200);
      std::vector<std::string_view> head = {"XADD", "k", arg};
      std::vector<Pair> pairs = {{"f", arg}, {arg, ""}};
      int db = static_cast<int>(i % 16);
      if (i % 2 == 0) {
        batch.add(db, std::span<const std::string_view>(head), std::span<const Pair>(pairs));
        std::vector<std::string_view> flat = {"XADD", "k", arg, "f", arg, arg, ""};
        want.push_back(enc(flat));
      } else {
        batch.add(db, std::span<const std::string_view>(head));
        want.push_back(enc(head));
      }
      dbs.push_back(db);
      all += want.back();
    }
    ASSERT_EQ(batch.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(batch.record(i), want[i]) << round << " " << i;
      EXPECT_EQ(batch.db(i), dbs[i]);
    }
    EXPECT_EQ(batch.bytes(), all);
    batch.clear();
    EXPECT_TRUE(batch.empty());
    EXPECT_EQ(batch.bytes(), "");
  }
}

// A large unit does not leave its room behind; a common one keeps it for the next.
TEST(PropagationBatchTest, ClearLetsGoOfTheRoomOfALargeUnit) {
  PropagationBatch batch;
  std::vector<std::string_view> small = {"XADD", "k", "1-1", "f", "v"};
  batch.add(0, std::span<const std::string_view>(small));
  batch.clear();
  std::size_t kept = batch.held();
  EXPECT_GT(kept, 0u);
  EXPECT_LE(kept, PropagationBatch::kKeptRoom);
  batch.add(0, std::span<const std::string_view>(small));
  EXPECT_EQ(batch.held(), kept);  // written into the room kept

  std::vector<std::string_view> many(200000, "key");
  many.front() = "DEL";
  batch.add(0, std::span<const std::string_view>(many));
  EXPECT_EQ(batch.record(1), enc(many));
  EXPECT_GT(batch.held(), PropagationBatch::kKeptRoom);
  batch.clear();
  EXPECT_LE(batch.held(), PropagationBatch::kKeptRoom);
  batch.add(0, std::span<const std::string_view>(small));
  EXPECT_EQ(batch.record(0), enc(small));
}

// Deferred units (Server::end_unit, over a batch) stay ahead of the unit being built, which reads
// back alone; dropping them keeps the unit's records.
TEST(PropagationBatchTest, DeferredUnitsStayAheadOfTheUnit) {
  std::vector<std::string_view> a = {"SET", "a", "1"}, b = {"SET", "b", "2"};
  std::vector<std::string_view> c = {"DEL", "c"}, d = {"DEL", "d", std::string_view(big_arg())};
  PropagationBatch batch;
  batch.add(0, std::span<const std::string_view>(a));
  batch.defer_unit();
  batch.add(0, std::span<const std::string_view>(b));
  batch.defer_unit();
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(batch.bytes(), "");
  EXPECT_EQ(batch.deferred(), enc(a) + enc(b));

  batch.add(1, std::span<const std::string_view>(c));
  batch.add(2, std::span<const std::string_view>(d));  // grows the room past what was deferred
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch.deferred(), enc(a) + enc(b));
  EXPECT_EQ(batch.record(0), enc(c));
  EXPECT_EQ(batch.record(1), enc(d));
  EXPECT_EQ(batch.bytes(), enc(c) + enc(d));

  batch.drop_deferred();
  EXPECT_EQ(batch.deferred(), "");
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch.db(0), 1);
  EXPECT_EQ(batch.db(1), 2);
  EXPECT_EQ(batch.record(0), enc(c));
  EXPECT_EQ(batch.record(1), enc(d));
  EXPECT_EQ(batch.bytes(), enc(c) + enc(d));

  batch.defer_unit();
  EXPECT_EQ(batch.deferred(), enc(c) + enc(d));
  batch.clear();
  EXPECT_EQ(batch.deferred(), "");
  EXPECT_TRUE(batch.empty());
}

}  // namespace
}  // namespace streamd::cmd
