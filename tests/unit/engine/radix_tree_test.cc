#include "streamd/engine/radix_tree.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "streamd/engine/stream_id.h"

namespace streamd::engine {
namespace {

using Tree = RadixTree<uint64_t>;
using Map = std::map<std::string, uint64_t>;

std::string id_key(uint64_t ms, uint64_t seq) {
  auto a = StreamId{ms, seq}.encode();
  return std::string(reinterpret_cast<const char*>(a.data()), a.size());
}

// Compares a seek on the tree with the same seek on the map.
void expect_same_seek(const Tree& t, const Map& m, SeekOp op, const std::string& k) {
  Map::const_iterator want;
  bool have = false;
  switch (op) {
    case SeekOp::kGe:
      want = m.lower_bound(k);
      have = want != m.end();
      break;
    case SeekOp::kGt:
      want = m.upper_bound(k);
      have = want != m.end();
      break;
    case SeekOp::kLe:
      want = m.upper_bound(k);
      have = want != m.begin();
      if (have) --want;
      break;
    case SeekOp::kLt:
      want = m.lower_bound(k);
      have = want != m.begin();
      if (have) --want;
      break;
  }
  Tree::ConstIterator it = t.seek(op, k);
  ASSERT_EQ(it.valid(), have) << "op " << static_cast<int>(op);
  if (!have) return;
  ASSERT_EQ(it.key(), want->first);
  ASSERT_EQ(it.value(), want->second);
  // A few steps each way from the seek position.
  Tree::ConstIterator fwd = it;
  Map::const_iterator mf = want;
  for (int i = 0; i < 3; ++i) {
    ++fwd;
    ++mf;
    ASSERT_EQ(fwd.valid(), mf != m.end());
    if (!fwd.valid()) break;
    ASSERT_EQ(fwd.key(), mf->first);
  }
  Tree::ConstIterator back = it;
  Map::const_iterator mb = want;
  for (int i = 0; i < 3; ++i) {
    if (mb == m.begin()) {
      --back;
      ASSERT_FALSE(back.valid());
      break;
    }
    --back;
    --mb;
    ASSERT_TRUE(back.valid());
    ASSERT_EQ(back.key(), mb->first);
  }
}

// Any tree against any std::map of the same keys and values, forward and backward.
template <class T, class M>
void expect_same_contents(const T& t, const M& m) {
  ASSERT_EQ(t.size(), m.size());
  ASSERT_TRUE(t.check_invariants());
  auto mi = m.begin();
  for (auto it = t.begin(); it.valid(); ++it, ++mi) {
    ASSERT_NE(mi, m.end());
    ASSERT_EQ(it.key(), mi->first);
    ASSERT_EQ(it.value(), mi->second);
  }
  ASSERT_EQ(mi, m.end());
  auto rmi = m.rbegin();
  for (auto it = t.last(); it.valid(); --it, ++rmi) {
    ASSERT_NE(rmi, m.rend());
    ASSERT_EQ(it.key(), rmi->first);
  }
  ASSERT_EQ(rmi, m.rend());
}

// Runs `ops` random operations with keys from `gen` against both containers.
template <class Gen>
void random_ops(Tree& t, Map& m, std::mt19937_64& rng, int ops, Gen gen, int check_every) {
  for (int i = 0; i < ops; ++i) {
    std::string k = gen();
    int op = static_cast<int>(rng() % 10);
    if (op < 4) {
      uint64_t v = rng();
      auto [p, inserted] = t.insert(k, v);
      auto [mit, minserted] = m.emplace(k, v);
      ASSERT_EQ(inserted, minserted);
      ASSERT_EQ(*p, mit->second);
    } else if (op < 7) {
      uint64_t out = 0;
      bool erased = t.erase(k, &out);
      auto mit = m.find(k);
      ASSERT_EQ(erased, mit != m.end()) << "erase";
      if (erased) {
        ASSERT_EQ(out, mit->second);
        m.erase(mit);
      }
    } else if (op < 8) {
      const uint64_t* p = std::as_const(t).find(k);
      auto mit = m.find(k);
      ASSERT_EQ(p != nullptr, mit != m.end());
      if (p) {
        ASSERT_EQ(*p, mit->second);
      }
    } else {
      expect_same_seek(t, m, static_cast<SeekOp>(rng() % 4), k);
    }
    if (check_every && i % check_every == 0) expect_same_contents(t, m);
  }
  expect_same_contents(t, m);
}

TEST(RadixTree, EmptyTree) {
  Tree t;
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.node_count(), 0u);
  EXPECT_EQ(t.memory_usage(), 0u);
  EXPECT_FALSE(t.begin().valid());
  EXPECT_FALSE(t.last().valid());
  EXPECT_FALSE(t.seek(SeekOp::kGe, "a").valid());
  EXPECT_FALSE(t.seek(SeekOp::kLe, "a").valid());
  EXPECT_EQ(t.find("a"), nullptr);
  EXPECT_FALSE(t.erase("a"));
  Tree::Iterator it = t.begin();
  ++it;
  --it;
  EXPECT_FALSE(it.valid());
}

TEST(RadixTree, PrefixKeysAndEmptyKey) {
  Tree t;
  Map m;
  for (std::string k : {"abc", "ab", "", "a", "b", "abd", "abcd", "ac"}) {
    uint64_t v = k.size() * 10 + (k.empty() ? 0 : static_cast<uint64_t>(k.back()));
    EXPECT_TRUE(t.insert(k, v).second);
    m.emplace(k, v);
    expect_same_contents(t, m);
  }
  EXPECT_FALSE(t.insert("ab", 7).second);
  EXPECT_EQ(*t.find("ab"), m["ab"]);
  EXPECT_EQ(t.find("abce"), nullptr);
  EXPECT_EQ(t.find("x"), nullptr);
  for (std::string k : {"", "a", "ab", "abc", "abcd", "abd", "ac", "b", "aa", "abb", "zz"}) {
    for (int op = 0; op < 4; ++op) expect_same_seek(t, m, static_cast<SeekOp>(op), k);
  }
  for (std::string k : {"ab", "", "abcd", "a", "b", "abc", "ac", "abd"}) {
    EXPECT_TRUE(t.erase(k));
    m.erase(k);
    expect_same_contents(t, m);
  }
  EXPECT_EQ(t.node_count(), 0u);
  EXPECT_EQ(t.memory_usage(), 0u);
}

TEST(RadixTree, InlineLeavesNeedNoNodes) {
  // 256 keys differing only in their last byte: one node holds them all inline.
  Tree t;
  for (int i = 0; i < 256; ++i) t.insert(id_key(1000, static_cast<uint64_t>(i)), i);
  EXPECT_EQ(t.node_count(), 1u);
  EXPECT_TRUE(t.check_invariants());
  t.insert(id_key(1000, 256), 256);  // second-to-last byte differs: splits
  EXPECT_TRUE(t.check_invariants());
  EXPECT_EQ(t.node_count(), 3u);
}

TEST(RadixTree, RandomShortKeysAgainstStdMap) {
  std::mt19937_64 rng(42);
  Tree t;
  Map m;
  // A tiny alphabet (including 0x00 and 0xff) and short lengths make keys share prefixes and
  // be prefixes of each other all the time.
  const char alphabet[] = {'\0', '\x01', 'a', 'b', '\x7f', '\x80', '\xff'};
  auto gen = [&] {
    std::string k(rng() % 6, ' ');
    for (char& c : k) c = alphabet[rng() % sizeof alphabet];
    return k;
  };
  random_ops(t, m, rng, 300000, gen, 5000);
}

TEST(RadixTree, WideNodesMixingInlineLeavesAndChildrenAgainstStdMap) {
  // Keys of one or two bytes over all 256 values: nodes with up to 256 slots where inline
  // leaves and child nodes alternate, so every insert and erase moves leaf bits across several
  // bitmap bytes at odd offsets.
  std::mt19937_64 rng(7);
  Tree t;
  Map m;
  auto gen = [&] {
    std::string k(1 + rng() % 2, ' ');
    for (char& c : k) c = static_cast<char>(rng() % 256);
    if (k.size() == 2 && rng() % 2) k[0] = static_cast<char>(rng() % 4);  // crowd a few nodes
    return k;
  };
  random_ops(t, m, rng, 200000, gen, 2000);
}

// The same wide nodes with values that are not trivially copyable (heap strings): the in-place
// shifts of a node with spare capacity must move them one by one, never overwrite one not
// moved yet, and destroy an erased one; sequential keys fill and empty nodes from both ends.
TEST(RadixTree, WideNodesWithNonTrivialValuesShiftInPlace) {
  std::mt19937_64 rng(11);
  RadixTree<std::string> t;
  std::map<std::string, std::string> m;
  auto value = [&](const std::string& k) { return std::string(40, 'v') + k; };  // heap-held
  auto check = [&] { expect_same_contents(t, m); };
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 3000; ++i) {
      std::string k(1 + rng() % 2, ' ');
      for (char& c : k) c = static_cast<char>(round % 2 ? rng() % 256 : (i * 7 + round) % 256);
      if (rng() % 3 == 0) {
        EXPECT_EQ(t.erase(k), m.erase(k) == 1);
      } else {
        bool added = t.emplace(k, value(k)).second;
        EXPECT_EQ(added, m.emplace(k, value(k)).second);
      }
    }
    check();
  }
  while (!m.empty()) {  // empty it from the front, as XACK of the oldest IDs does
    ASSERT_TRUE(t.erase(m.begin()->first));
    m.erase(m.begin());
    if (m.size() % 64 == 0) check();
  }
  EXPECT_TRUE(t.empty());
}

TEST(RadixTree, RandomStreamIdKeysAgainstStdMap) {
  std::mt19937_64 rng(7);
  Tree t;
  Map m;
  // ID-like keys: clustered milliseconds and small sequences, plus occasional far-away ones.
  auto gen = [&] {
    uint64_t r = rng();
    if (r % 50 == 0) return id_key(rng(), rng());
    return id_key(1700000000000 + (r >> 8) % 3000, (r >> 40) % 40);
  };
  random_ops(t, m, rng, 700000, gen, 100000);
}

TEST(RadixTree, GrowAndShrinkToEmpty) {
  std::mt19937_64 rng(3);
  Tree t;
  Map m;
  for (int i = 0; i < 100000; ++i) {
    std::string k = id_key(rng() % 100000, rng() % 4);
    t.insert(k, static_cast<uint64_t>(i));
    m.emplace(k, i);
  }
  expect_same_contents(t, m);
  std::vector<std::string> keys;
  for (auto& [k, v] : m) keys.push_back(k);
  std::shuffle(keys.begin(), keys.end(), rng);
  for (const std::string& k : keys) ASSERT_TRUE(t.erase(k));
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.node_count(), 0u);
  EXPECT_EQ(t.memory_usage(), 0u);
  EXPECT_TRUE(t.check_invariants());
}

// Counts live objects so that leaks and double destructions show up.
struct Counted {
  static inline int live = 0;
  std::unique_ptr<int> p;
  explicit Counted(int v) : p(std::make_unique<int>(v)) { ++live; }
  Counted(Counted&& o) noexcept : p(std::move(o.p)) { ++live; }
  Counted& operator=(Counted&& o) noexcept {
    p = std::move(o.p);
    return *this;
  }
  ~Counted() { --live; }
};

TEST(RadixTree, NonTrivialValuesAreMovedAndDestroyed) {
  std::mt19937_64 rng(9);
  {
    RadixTree<Counted> t;
    std::map<std::string, int> m;
    for (int i = 0; i < 50000; ++i) {
      std::string k(rng() % 5, 'x');
      for (char& c : k) c = static_cast<char>('a' + rng() % 3);
      if (rng() % 3) {
        int v = static_cast<int>(rng() % 1000);
        bool ins = t.emplace(k, v).second;
        ASSERT_EQ(ins, m.emplace(k, v).second);
      } else {
        Counted out(0);
        bool erased = t.erase(k, &out);
        ASSERT_EQ(erased, m.count(k) == 1);
        if (erased) {
          ASSERT_EQ(*out.p, m[k]);
          m.erase(k);
        }
      }
    }
    ASSERT_TRUE(t.check_invariants());
    for (auto& [k, v] : m) ASSERT_EQ(*t.find(k)->p, v);
    EXPECT_EQ(Counted::live, static_cast<int>(m.size()));
    RadixTree<Counted> copy = t.clone_with([](const Counted& c) { return Counted(*c.p); });
    EXPECT_EQ(Counted::live, static_cast<int>(2 * m.size()));
    EXPECT_TRUE(copy.check_invariants());
    EXPECT_EQ(copy.node_count(), t.node_count());
    EXPECT_EQ(copy.memory_usage(), t.memory_usage());
    for (auto& [k, v] : m) ASSERT_EQ(*copy.find(k)->p, v);
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(RadixTree, CopyMoveAndMutableValues) {
  Tree t;
  for (int i = 0; i < 1000; ++i) t.insert(id_key(static_cast<uint64_t>(i), 0), 1);
  for (auto it = t.begin(); it.valid(); ++it) it.value() += 1;
  Tree copy = t;
  Tree moved = std::move(t);
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(copy.size(), 1000u);
  EXPECT_EQ(moved.size(), 1000u);
  for (auto it = copy.begin(); it.valid(); ++it) EXPECT_EQ(it.value(), 2u);
  *moved.find(id_key(5, 0)) = 9;
  EXPECT_EQ(*copy.find(id_key(5, 0)), 2u);
}

// Memory per key for the two shapes a PEL takes (many IDs per millisecond, or one per ms).
TEST(RadixTree, MemoryPerKeyReport) {
  for (int per_ms : {100, 1}) {
    RadixTree<void*> t;
    const int n = 500000;
    for (int i = 0; i < n; ++i) {
      t.insert(id_key(1700000000000 + static_cast<uint64_t>(i / per_ms),
                      static_cast<uint64_t>(i % per_ms)),
               nullptr);
    }
    double per_key = static_cast<double>(t.memory_usage()) / n;
    std::printf("[ radix ] %d ids/ms: %.1f bytes/key, %zu nodes for %d keys\n", per_ms, per_key,
                t.node_count(), n);
    EXPECT_LT(per_key, 48.0);  // Redis's rax needs ~45-70 bytes per such key
  }
}

}  // namespace
}  // namespace streamd::engine
