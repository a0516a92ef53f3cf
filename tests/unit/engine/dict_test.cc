// Dict keeps each key's bytes inside its node's allocation (dict.h): keys of every length
// (empty, inside and past std::string's inline size, with NUL bytes) must still be found,
// erased, extracted, visited and accounted for, and move-only values must survive rehashing.
#include "streamd/engine/dict.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace streamd::engine {
namespace {

std::vector<std::string> AwkwardKeys() {
  std::vector<std::string> keys = {"", "a", std::string(15, 'x'), std::string(16, 'x'),
                                   std::string(5000, 'y')};
  keys.push_back(std::string("nul\0inside", 10));
  keys.push_back(std::string("nul\0insidf", 10));  // same length, differs after the NUL
  return keys;
}

TEST(Dict, KeysOfEveryLengthAreFoundErasedAndExtracted) {
  Dict<std::unique_ptr<int>> d;
  std::vector<std::string> keys = AwkwardKeys();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto [slot, inserted] = d.insert(keys[i], std::make_unique<int>(static_cast<int>(i)));
    ASSERT_TRUE(inserted);
    ASSERT_EQ(**slot, static_cast<int>(i));
  }
  EXPECT_EQ(d.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto* v = d.find(keys[i]);
    ASSERT_NE(v, nullptr) << i;
    EXPECT_EQ(**v, static_cast<int>(i));
    // An extension of a key is another key.
    EXPECT_EQ(d.find(keys[i] + "z"), nullptr);
  }
  EXPECT_EQ(d.find(std::string(14, 'x')), nullptr);
  EXPECT_EQ(d.find(std::string(4999, 'y')), nullptr);
  // Inserting an existing key keeps the first value.
  auto [again, inserted] = d.insert(keys[4], std::make_unique<int>(99));
  EXPECT_FALSE(inserted);
  EXPECT_EQ(**again, 4);

  std::unique_ptr<int> out;
  ASSERT_TRUE(d.extract(keys[4], out));
  EXPECT_EQ(*out, 4);
  EXPECT_EQ(d.find(keys[4]), nullptr);
  EXPECT_FALSE(d.extract(keys[4], out));
  ASSERT_TRUE(d.erase(""));
  EXPECT_FALSE(d.erase(""));
  EXPECT_EQ(d.find(""), nullptr);
  EXPECT_NE(d.find(keys[5]), nullptr);
  EXPECT_NE(d.find(keys[6]), nullptr);
  EXPECT_EQ(d.size(), keys.size() - 2);
}

TEST(Dict, OverheadCountsTheKeyBytesAndReturnsToTheTableAlone) {
  Dict<int> d;
  std::size_t empty = d.overhead_bytes();
  d.insert(std::string(1000, 'k'), 1);
  std::size_t one = d.overhead_bytes();
  EXPECT_GE(one, empty + sizeof(Dict<int>::Node) + 1000);
  d.insert("short", 2);
  EXPECT_GE(d.overhead_bytes(), one + sizeof(Dict<int>::Node) + 5);
  d.erase(std::string(1000, 'k'));
  d.erase("short");
  // Only the bucket array is left (it does not shrink below its minimum).
  EXPECT_EQ(d.overhead_bytes(), d.bucket_count() * sizeof(Dict<int>::Node*));
  d.insert("x", 3);
  d.clear();
  EXPECT_EQ(d.overhead_bytes(), 0u);
}

// A random run against std::map, through growth and shrinking, with move-only values; for_each,
// scan_bucket, swap and move assignment see exactly the live keys.
TEST(Dict, RandomOperationsMatchAMap) {
  std::mt19937_64 rng(17);
  Dict<std::unique_ptr<std::string>> d;
  std::map<std::string, std::string> model;
  auto random_key = [&] {
    std::size_t len = rng() % 4 == 0 ? 16 + rng() % 40 : rng() % 16;
    std::string k(len, '\0');
    for (char& c : k) c = static_cast<char>('a' + rng() % 3);  // few letters: many collisions
    return k;
  };
  for (int step = 0; step < 20000; ++step) {
    std::string k = random_key();
    switch (rng() % 4) {
      case 0:
      case 1: {
        std::string v = "v" + std::to_string(step);
        bool inserted = d.insert(k, std::make_unique<std::string>(v)).second;
        EXPECT_EQ(inserted, model.emplace(k, v).second);
        break;
      }
      case 2:
        EXPECT_EQ(d.erase(k), model.erase(k) == 1);
        break;
      default: {
        std::unique_ptr<std::string> out;
        auto it = model.find(k);
        ASSERT_EQ(d.extract(k, out), it != model.end());
        if (it != model.end()) {
          EXPECT_EQ(*out, it->second);
          model.erase(it);
        }
      }
    }
    ASSERT_EQ(d.size(), model.size());
  }
  for (const auto& [k, v] : model) {
    auto* found = d.find(k);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(**found, v);
  }

  std::map<std::string, std::string> seen;
  d.for_each([&](std::string_view k, const std::unique_ptr<std::string>& v) {
    EXPECT_TRUE(seen.emplace(std::string(k), *v).second);
  });
  EXPECT_EQ(seen, model);

  std::map<std::string, std::string> scanned;
  uint64_t cursor = 0;
  do {
    cursor = d.scan_bucket(cursor, [&](std::string_view k, const std::unique_ptr<std::string>& v) {
      scanned.emplace(std::string(k), *v);
    });
  } while (cursor != 0);
  EXPECT_EQ(scanned, model);

  Dict<std::unique_ptr<std::string>> other;
  other.insert("only-in-other", std::make_unique<std::string>("o"));
  std::size_t bytes = d.overhead_bytes();
  other.swap(d);
  EXPECT_EQ(other.size(), model.size());
  EXPECT_EQ(other.overhead_bytes(), bytes);
  ASSERT_NE(d.find("only-in-other"), nullptr);
  d = std::move(other);
  EXPECT_EQ(d.size(), model.size());
  EXPECT_EQ(d.find("only-in-other"), nullptr);
}

// Incremental resizing (set_incremental_from(4): every resize past the minimum table is done a
// bucket at a time): a random run of inserts and erases against std::set, with finds, the chains
// seen by for_each and random_node, and a SCAN that runs through the run. Every key present for
// the whole scan is visited, as Redis guarantees across resizes.
TEST(Dict, IncrementalResizeKeepsFindsScansAndSamples) {
  std::mt19937_64 rng(5);
  Dict<int> d;
  d.set_incremental_from(4);
  std::set<std::string> model;
  std::set<std::string> scanned;
  std::set<std::string> present_since_scan_start;
  uint64_t cursor = 0;
  bool scanning = false;
  int rehashing_seen = 0;
  int scans_completed = 0;
  for (int step = 0; step < 60000; ++step) {
    // Phases of growth and shrinking, so resizes go both ways while the scan runs.
    const bool growing = (step / 6000) % 2 == 0;
    std::string k = "k" + std::to_string(rng() % 5000);
    if (rng() % 100 < (growing ? 70u : 25u)) {
      if (d.insert(k, int{step}).second) model.insert(k);
    } else if (d.erase(k)) {
      model.erase(k);
      present_since_scan_start.erase(k);
    }
    rehashing_seen += d.rehashing();
    if (step % 7 == 0) {
      if (!scanning) {
        scanning = true;
        scanned.clear();
        present_since_scan_start = model;
      }
      cursor = d.scan_bucket(cursor,
                             [&](std::string_view key, int) { scanned.insert(std::string(key)); });
      if (cursor == 0) {
        scanning = false;
        ++scans_completed;
        for (const auto& key : present_since_scan_start) ASSERT_TRUE(scanned.count(key)) << key;
      }
    }
    if (step % 997 == 0) {
      ASSERT_EQ(d.size(), model.size());
      for (const auto& key : model) ASSERT_NE(d.find(key), nullptr) << key;
      std::size_t visited = 0;
      d.for_each([&](std::string_view key, int) {
        ++visited;
        ASSERT_TRUE(model.count(std::string(key)));
      });
      ASSERT_EQ(visited, model.size());
      if (!model.empty()) {
        std::mt19937_64 pick(step);
        for (int i = 0; i < 20; ++i)
          ASSERT_TRUE(model.count(std::string(d.random_node(pick)->key())));
      }
    }
  }
  EXPECT_GT(rehashing_seen, 1000);  // the run did spend time mid-resize
  EXPECT_GE(scans_completed, 3);
  // The cron's steps finish a resize without any insert or erase.
  while (d.size() > 8) {
    d.erase(*model.begin());
    model.erase(model.begin());
  }
  for (int i = 0; i < 10000 && d.rehashing(); ++i) d.rehash_step(1);
  EXPECT_FALSE(d.rehashing());
  EXPECT_EQ(d.rehashing_bytes(), 0u);
  for (const auto& key : model) EXPECT_NE(d.find(key), nullptr);
}

}  // namespace
}  // namespace streamd::engine
