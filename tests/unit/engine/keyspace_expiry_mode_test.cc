// ExpiryMode (keyspace.h): a master deletes expired keys on lookup and in the active cycle; a
// replica (kHide) only hides them until its master's DEL; the master's own stream (kKeep) sees
// them live. Manual clock throughout.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "streamd/engine/clock.h"
#include "streamd/engine/keyspace.h"
#include "streamd/engine/stream.h"

namespace streamd::engine {
namespace {

struct ExpiryRecorder : KeyObserver {
  void on_key_event(int, std::string_view key, KeyEvent ev) override {
    if (ev == KeyEvent::kExpired) expired.emplace_back(key);
  }
  void on_db_flushed(int) override {}
  std::vector<std::string> expired;
};

class ExpiryModeTest : public ::testing::Test {
 protected:
  ExpiryModeTest() { ks.set_observer(&rec); }

  // "k" (a string) and "s" (a stream), both expiring 100 ms from now, and a persistent "p".
  void Populate() {
    Database& d = db();
    d.set_expire("k", d.set("k", Value(std::string("v"))), clock.now_ms() + 100);
    d.set_expire("s", d.set("s", Value(std::make_unique<Stream>())), clock.now_ms() + 100);
    d.set("p", Value(std::string("x")));
  }
  Database& db() { return ks.db(0); }
  std::vector<std::string> Keys() {
    std::vector<std::string> out;
    db().for_each([&](std::string_view k, const Entry&) { out.emplace_back(k); });
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> Scanned() {
    std::vector<std::string> out;
    uint64_t cursor = 0;
    do {
      cursor =
          db().scan(cursor, 10, [&](std::string_view k, const Entry&) { out.emplace_back(k); });
    } while (cursor != 0);
    std::sort(out.begin(), out.end());
    return out;
  }

  ManualClock clock;
  Keyspace ks{16, clock};
  ExpiryRecorder rec;
};

TEST_F(ExpiryModeTest, MasterDeletesOnLookupAndInTheActiveCycle) {
  Populate();
  clock.advance(100);
  EXPECT_EQ(db().find("k"), nullptr);
  EXPECT_EQ(db().size(), 2u);  // the lookup deleted k
  EXPECT_TRUE(db().remove("p"));
  EXPECT_EQ(db().size(), 1u);
  const auto step = db().active_expire_step(20);
  EXPECT_EQ(step.sampled, 1u);
  EXPECT_EQ(step.expired, 1u);
  EXPECT_TRUE(step.done);
  EXPECT_EQ(db().size(), 0u);
  EXPECT_EQ(db().expires(), 0u);
  EXPECT_FALSE(db().remove("k"));
  EXPECT_EQ(rec.expired, (std::vector<std::string>{"k", "s"}));
  EXPECT_EQ(db().expired_keys_total(), 2u);
}

TEST_F(ExpiryModeTest, ReplicaHidesButNeverDeletes) {
  ks.set_expiry_mode(ExpiryMode::kHide);
  EXPECT_EQ(db().expiry_mode(), ExpiryMode::kHide);
  Populate();
  EXPECT_NE(db().find("k"), nullptr);  // not expired yet: live
  clock.advance(100);
  EXPECT_EQ(db().find("k"), nullptr);
  EXPECT_EQ(db().find("s"), nullptr);
  EXPECT_EQ(db().peek("k"), nullptr);
  EXPECT_FALSE(db().exists("s"));
  EXPECT_EQ(Keys(), (std::vector<std::string>{"p"}));
  EXPECT_EQ(Scanned(), (std::vector<std::string>{"p"}));
  Entry out{Value(std::string()), -1, 0};
  EXPECT_FALSE(db().take("k", out));  // RENAME of a hidden key: no such key
  for (int i = 0; i < 50; ++i) EXPECT_EQ(db().active_expire_step(20).expired, 0u);
  for (int i = 0; i < 20; ++i) {
    std::string key;
    ASSERT_TRUE(db().random_key(key));
    EXPECT_EQ(key, "p");
  }
  // Still there: DBSIZE and INFO keyspace count them, as on a Redis replica.
  EXPECT_EQ(db().size(), 3u);
  EXPECT_EQ(db().expires(), 2u);
  EXPECT_TRUE(rec.expired.empty());
  EXPECT_EQ(db().expired_keys_total(), 0u);
  // The master's DEL removes it for real (erase answers "not live", as the DEL's count would).
  EXPECT_FALSE(db().erase("k"));
  EXPECT_EQ(db().size(), 2u);
  EXPECT_EQ(db().expires(), 1u);
  // DEL of a hidden key deletes it and counts it, as Redis's DEL on a replica.
  EXPECT_TRUE(db().remove("s"));
  EXPECT_FALSE(db().remove("s"));
  EXPECT_EQ(db().size(), 1u);
  EXPECT_EQ(db().expires(), 0u);
  EXPECT_TRUE(rec.expired.empty());
}

TEST_F(ExpiryModeTest, ReplicaRandomKeyOfOnlyExpiredKeysAnswersOne) {
  // Redis's replica: when every key is volatile and the retries met only expired ones, it
  // answers one of them rather than loop.
  ks.set_expiry_mode(ExpiryMode::kHide);
  Populate();
  db().erase("p");
  clock.advance(100);
  std::string key;
  ASSERT_TRUE(db().random_key(key));
  EXPECT_TRUE(key == "k" || key == "s") << key;
  EXPECT_EQ(db().size(), 2u);
  // A master deletes them instead and finds nothing.
  ks.set_expiry_mode(ExpiryMode::kDelete);
  EXPECT_FALSE(db().random_key(key));
  EXPECT_EQ(db().size(), 0u);
}

TEST_F(ExpiryModeTest, WritesOnAReplicaReplaceAHiddenKey) {
  // A writable replica's write lookup deletes the expired key (Redis's lookupKeyWrite), then
  // stores a new persistent key.
  ks.set_expiry_mode(ExpiryMode::kHide);
  Populate();
  clock.advance(100);
  ASSERT_NE(db().add("s", Value(std::string("new"))), nullptr);
  EXPECT_EQ(db().find("s")->value.str(), "new");
  EXPECT_EQ(db().find("s")->expire_ms, -1);
  Entry& e = db().set("k", Value(std::string("w")), /*keep_ttl=*/true);
  EXPECT_EQ(e.expire_ms, -1);
  EXPECT_EQ(db().size(), 3u);
  EXPECT_EQ(db().expires(), 0u);
  EXPECT_EQ(rec.expired, (std::vector<std::string>{"s", "k"}));
}

TEST_F(ExpiryModeTest, MastersStreamSeesExpiredKeysLive) {
  ks.set_expiry_mode(ExpiryMode::kHide);
  Populate();
  clock.advance(500);
  ks.set_expiry_mode(ExpiryMode::kKeep);
  Entry* k = db().find("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->value.str(), "v");
  EXPECT_EQ(db().add("s", Value(std::string("x"))), nullptr);  // exists
  EXPECT_TRUE(db().find("s")->value.is_stream());
  EXPECT_EQ(Keys(), (std::vector<std::string>{"k", "p", "s"}));
  EXPECT_TRUE(db().erase("k"));  // the DEL counts it
  EXPECT_EQ(db().active_expire_step(20).expired, 0u);
  // Back to hiding: s is still there and hidden.
  ks.set_expiry_mode(ExpiryMode::kHide);
  EXPECT_EQ(db().find("s"), nullptr);
  EXPECT_EQ(db().size(), 2u);
  EXPECT_TRUE(rec.expired.empty());
}

TEST_F(ExpiryModeTest, PromotionDeletesAgain) {
  ks.set_expiry_mode(ExpiryMode::kHide);
  Populate();
  clock.advance(100);
  EXPECT_EQ(db().find("k"), nullptr);
  EXPECT_EQ(db().size(), 3u);
  ks.set_expiry_mode(ExpiryMode::kDelete);  // REPLICAOF NO ONE
  EXPECT_EQ(db().find("k"), nullptr);
  EXPECT_EQ(db().size(), 2u);
  EXPECT_EQ(ks.db(1).expiry_mode(), ExpiryMode::kDelete);
  EXPECT_EQ(rec.expired, (std::vector<std::string>{"k"}));
}

TEST_F(ExpiryModeTest, AverageTtlIsRedisRunningEstimateAndHugeTtlsDoNotOverflow) {
  // Found by the commands fuzzer (UBSan: signed overflow in avg_ttl_ms): EXPIREAT near the
  // largest time on two keys, then INFO keyspace. The estimate comes from active expiry's
  // samples, as Redis's db->avg_ttl: 0 before any, then the first sample's mean, then each new
  // sample's mean weighs 2%.
  Database& d = db();
  const int64_t now = clock.now_ms();
  const int64_t far = std::numeric_limits<int64_t>::max() - 1000;
  d.set_expire("a", d.set("a", Value(std::string("v"))), far);
  d.set_expire("b", d.set("b", Value(std::string("v"))), far - 100);
  EXPECT_EQ(d.avg_ttl_ms(), 0);
  d.active_expire_step(20);
  const long long first = (far - now) - 50;
  EXPECT_EQ(d.avg_ttl_ms(), first);
  d.erase("a");
  d.erase("b");
  d.set_expire("c", d.set("c", Value(std::string("v"))), now + 1000);
  d.active_expire_step(20);
  EXPECT_EQ(d.avg_ttl_ms(), (first / 50) * 49 + 1000 / 50);
  d.erase("c");
  d.active_expire_step(20);  // no key with a TTL left
  EXPECT_EQ(d.avg_ttl_ms(), 0);
}

TEST_F(ExpiryModeTest, ActiveExpiryLooksOnlyAtKeysWithATtl) {
  // 1% of the keys have a TTL: every step samples only them, so a few steps of 20 delete all
  // 30 once they have expired (sampling the whole table found one in a hundred). A pass of the
  // cursor may miss a key that a deletion moved behind it; the next pass finds it.
  Database& d = db();
  for (int i = 0; i < 3000; ++i) d.set("p" + std::to_string(i), Value(std::string("v")));
  for (int i = 0; i < 30; ++i) {
    std::string k = "t" + std::to_string(i);
    d.set_expire(k, d.set(k, Value(std::string("v"))), clock.now_ms() + 10);
  }
  EXPECT_EQ(d.expires(), 30u);
  clock.advance(10);
  std::size_t expired = 0;
  std::size_t passes = 0;
  for (int steps = 0; steps < 8 && d.expires() > 0; ++steps) {
    const auto step = d.active_expire_step(20);
    EXPECT_LE(step.sampled, 20u);
    expired += step.expired;
    passes += step.done;
  }
  EXPECT_LE(passes, 3u);
  EXPECT_EQ(expired, 30u);
  EXPECT_EQ(d.expires(), 0u);
  EXPECT_EQ(d.size(), 3000u);
  EXPECT_EQ(rec.expired.size(), 30u);
}

TEST_F(ExpiryModeTest, TtlIndexFollowsEveryWayAKeyGainsOrLosesItsTtl) {
  Database& d = db();
  const int64_t later = clock.now_ms() + 1000;
  d.set_expire("a", d.set("a", Value(std::string("v"))), later);
  d.set_expire("a", *d.find("a"), later + 1);  // a new time: still one key with a TTL
  EXPECT_EQ(d.expires(), 1u);
  d.set("a", Value(std::string("w")), /*keep_ttl=*/true);
  EXPECT_EQ(d.expires(), 1u);
  d.set("a", Value(std::string("x")));  // SET drops the TTL
  EXPECT_EQ(d.expires(), 0u);
  d.set_expire("a", *d.find("a"), later);
  EXPECT_TRUE(d.persist("a", *d.find("a")));
  EXPECT_FALSE(d.persist("a", *d.find("a")));
  EXPECT_EQ(d.expires(), 0u);
  d.set_expire("a", *d.find("a"), later);
  Entry moved{Value(std::string()), -1, 0};
  ASSERT_TRUE(d.take("a", moved));  // RENAME: out with its TTL...
  EXPECT_EQ(d.expires(), 0u);
  d.put("b", std::move(moved));  // ...and in again
  EXPECT_EQ(d.expires(), 1u);
  ks.db(1).put("b", Entry{Value(std::string("v")), later, 0});
  ks.db(1).swap_contents(d);  // SWAPDB
  EXPECT_EQ(d.expires(), 1u);
  EXPECT_EQ(ks.db(1).expires(), 1u);
  EXPECT_TRUE(d.remove("b"));
  EXPECT_EQ(d.expires(), 0u);
  ks.db(1).clear();
  EXPECT_EQ(ks.db(1).expires(), 0u);
  // Many keys gaining and losing TTLs in any order (the index's grow, shrink and erase paths),
  // checked against a volatile-* sample: it only ever yields keys that have a TTL.
  for (int i = 0; i < 2000; ++i) {
    std::string k = "k" + std::to_string(i);
    d.set_expire(k, d.set(k, Value(std::string("v"))), later);
  }
  for (int i = 0; i < 2000; i += 3) d.erase("k" + std::to_string(i));
  for (int i = 1; i < 2000; i += 3)
    d.persist("k" + std::to_string(i), *d.find("k" + std::to_string(i)));
  EXPECT_EQ(d.expires(), 666u);
  std::size_t seen = 0;
  d.sample(500, true, [&](std::string_view key, const Entry& e) {
    ++seen;
    EXPECT_GE(e.expire_ms, 0);
    EXPECT_EQ(std::stoi(std::string(key.substr(1))) % 3, 2) << key;
  });
  EXPECT_EQ(seen, 500u);
  for (int i = 2; i < 2000; i += 3) d.erase("k" + std::to_string(i));
  EXPECT_EQ(d.expires(), 0u);
  d.sample(5, true, [&](std::string_view, const Entry&) { ADD_FAILURE(); });
}

}  // namespace
}  // namespace streamd::engine
