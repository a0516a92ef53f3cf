#include "streamd/engine/eviction.h"

#include <algorithm>
#include <limits>

namespace streamd::engine {
namespace {

bool volatile_only(EvictionPolicy p) {
  return p == EvictionPolicy::kVolatileLru || p == EvictionPolicy::kVolatileLfu ||
         p == EvictionPolicy::kVolatileRandom || p == EvictionPolicy::kVolatileTtl;
}

uint64_t score(EvictionPolicy p, const Entry& e, const Database& db, int64_t now) {
  switch (p) {
    case EvictionPolicy::kAllkeysLfu:
    case EvictionPolicy::kVolatileLfu:
      return 255 - lfu_counter(e.access_ms, now, db.lfu_params());
    case EvictionPolicy::kVolatileTtl:
      // The sooner it expires, the better a candidate.
      return std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(e.expire_ms);
    default:
      return e.access_ms < now ? static_cast<uint64_t>(now - e.access_ms) : 0;
  }
}

}  // namespace

bool ranks_by_access(EvictionPolicy p) {
  return p == EvictionPolicy::kAllkeysLru || p == EvictionPolicy::kVolatileLru ||
         p == EvictionPolicy::kAllkeysLfu || p == EvictionPolicy::kVolatileLfu;
}

AccessTracking tracking_for(EvictionPolicy p) {
  return p == EvictionPolicy::kAllkeysLfu || p == EvictionPolicy::kVolatileLfu
             ? AccessTracking::kLfu
             : AccessTracking::kLru;
}

void EvictionPicker::populate(const Database& db, EvictionPolicy policy, std::size_t samples,
                              int64_t now) {
  db.sample(samples, volatile_only(policy), [&](std::string_view key, const Entry& e) {
    uint64_t s = score(policy, e, db, now);
    // Already pooled (sampled again): its score is refreshed in place.
    auto same = std::find_if(pool_.begin(), pool_.end(), [&](const Candidate& c) {
      return c.db == db.index() && c.key == key;
    });
    if (same != pool_.end()) pool_.erase(same);
    if (pool_.size() == kPoolSize) {
      if (s <= pool_.front().score) return;  // worse than every pooled candidate
      pool_.erase(pool_.begin());
    }
    auto at = std::upper_bound(pool_.begin(), pool_.end(), s,
                               [](uint64_t v, const Candidate& c) { return v < c.score; });
    pool_.insert(at, Candidate{s, db.index(), std::string(key)});
  });
}

bool EvictionPicker::pick_random(Keyspace& ks, bool with_ttl, EvictionVictim& out) {
  const int n = ks.databases();
  for (int i = 0; i < n; ++i) {
    int d = static_cast<int>(++next_db_ % static_cast<unsigned>(n));
    bool found = false;
    ks.db(d).sample(1, with_ttl, [&](std::string_view key, const Entry&) {
      out.db = d;
      out.key = std::string(key);
      found = true;
    });
    if (found) return true;
  }
  return false;
}

bool EvictionPicker::pick(Keyspace& ks, EvictionPolicy policy, std::size_t samples,
                          EvictionVictim& out) {
  if (policy == EvictionPolicy::kNoEviction) return false;
  if (policy != policy_) {
    pool_.clear();  // scores of another policy do not compare
    policy_ = policy;
  }
  if (policy == EvictionPolicy::kAllkeysRandom || policy == EvictionPolicy::kVolatileRandom) {
    return pick_random(ks, policy == EvictionPolicy::kVolatileRandom, out);
  }
  const bool with_ttl = volatile_only(policy);
  const int64_t now = ks.clock().now_ms();
  for (;;) {
    std::size_t keys = 0;
    for (int d = 0; d < ks.databases(); ++d) {
      const Database& db = ks.db(d);
      std::size_t eligible = with_ttl ? db.expires() : db.size();
      if (eligible == 0) continue;
      keys += eligible;
      populate(db, policy, samples, now);
    }
    if (keys == 0) return false;
    // Best first; a ghost (deleted, or no longer with a TTL for volatile-*) is dropped.
    while (!pool_.empty()) {
      Candidate c = std::move(pool_.back());
      pool_.pop_back();
      const Entry* e = ks.db(c.db).peek_stored(c.key);
      if (!e || (with_ttl && e->expire_ms < 0)) continue;
      out.db = c.db;
      out.key = std::move(c.key);
      return true;
    }
  }
}

}  // namespace streamd::engine
