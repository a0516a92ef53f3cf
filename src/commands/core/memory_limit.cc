#include "streamd/commands/core/memory_limit.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>
#include <string>

#include "streamd/commands/core/server.h"
#include "streamd/engine/clock.h"
#include "streamd/engine/used_memory.h"

namespace streamd::cmd {
namespace {

engine::EvictionPolicy to_engine(config::MaxmemoryPolicy p) {
  using config::MaxmemoryPolicy;
  using engine::EvictionPolicy;
  switch (p) {
    case MaxmemoryPolicy::kVolatileLru:
      return EvictionPolicy::kVolatileLru;
    case MaxmemoryPolicy::kVolatileLfu:
      return EvictionPolicy::kVolatileLfu;
    case MaxmemoryPolicy::kVolatileRandom:
      return EvictionPolicy::kVolatileRandom;
    case MaxmemoryPolicy::kVolatileTtl:
      return EvictionPolicy::kVolatileTtl;
    case MaxmemoryPolicy::kAllkeysLru:
      return EvictionPolicy::kAllkeysLru;
    case MaxmemoryPolicy::kAllkeysLfu:
      return EvictionPolicy::kAllkeysLfu;
    case MaxmemoryPolicy::kAllkeysRandom:
      return EvictionPolicy::kAllkeysRandom;
    case MaxmemoryPolicy::kNoEviction:
      return EvictionPolicy::kNoEviction;
  }
  return EvictionPolicy::kNoEviction;
}

}  // namespace

MemoryLimit::MemoryLimit(Server& server)
    : server_(server), maxmemory_(&server.config().ref<std::uint64_t>("maxmemory")) {
  config::Config& cfg = server.config();
  for (const char* name : {"maxmemory-policy", "lfu-log-factor", "lfu-decay-time"}) {
    listeners_.push_back(
        cfg.on_change(name, [this](const config::Directive&) { apply_tracking(); }));
  }
  listeners_.push_back(cfg.on_change("maxmemory", [this](const config::Directive&) {
    apply_tracking();
    std::size_t used = engine::used_memory();
    if (*maxmemory_ != 0 && *maxmemory_ < used) {
      spdlog::warn(
          "WARNING: the new maxmemory value set via CONFIG SET ({}) is smaller than the current "
          "memory usage ({}). This will result in key eviction and/or the inability to accept "
          "new write commands depending on the maxmemory-policy.",
          *maxmemory_, used);
    }
  }));
  apply_tracking();
}

MemoryLimit::~MemoryLimit() {
  for (auto id : listeners_) server_.config().remove(id);
}

void MemoryLimit::apply_tracking() {
  const config::Config& cfg = server_.config();
  engine::LfuParams p;
  p.log_factor = static_cast<int>(cfg.ref<std::int64_t>("lfu-log-factor"));
  p.decay_minutes = static_cast<int>(cfg.ref<std::int64_t>("lfu-decay-time"));
  engine::EvictionPolicy policy = to_engine(cfg.maxmemory_policy());
  server_.keyspace().set_access_tracking(engine::tracking_for(policy), p);
  // Redis's MAXMEMORY_FLAG_NO_SHARED_INTEGERS: with a limit and an LRU or LFU policy, every key
  // needs its own object to carry its access time or counter.
  server_.keyspace().set_shared_integers(*maxmemory_ == 0 || !engine::ranks_by_access(policy));
}

uint64_t MemoryLimit::time_limit_us(int64_t tenacity) {
  if (tenacity <= 10) return 50 * static_cast<uint64_t>(tenacity);
  if (tenacity < 100) {
    return static_cast<uint64_t>(500.0 * std::pow(1.15, static_cast<double>(tenacity - 10)));
  }
  return std::numeric_limits<uint64_t>::max();
}

bool MemoryLimit::may_evict() const {
  // As Redis's isSafeToPerformEvictions: not while a file loads, not while clients are paused
  // (the dataset must not change under a pause), not on a replica that ignores maxmemory (its
  // master decides what is deleted).
  if (server_.replaying() || server_.client_pause().active()) return false;
  const Replication* r = server_.replication_role();
  if (r && r->is_replica() && server_.config().ref<bool>("replica-ignore-maxmemory")) return false;
  return true;
}

uint64_t MemoryLimit::not_counted_memory() const {
  uint64_t overhead = 0;
  // The replication buffer up to repl-backlog-size is the backlog's and counts; what lagging
  // replicas hold beyond it does not.
  if (const Replication* r = server_.replication_role()) {
    uint64_t buffers = r->buffer_bytes();
    uint64_t backlog = server_.config().ref<std::uint64_t>("repl-backlog-size");
    if (buffers > backlog) overhead += buffers - backlog;
  }
  // The AOF buffer: propagating evictions grows it.
  if (const Persistence* p = server_.persistence()) overhead += p->buffer_allocation();
  return overhead;
}

uint64_t MemoryLimit::counted_memory() const {
  uint64_t used = engine::used_memory();
  uint64_t overhead = not_counted_memory();
  return used > overhead ? used - overhead : 0;
}

void MemoryLimit::note_state(bool over, int64_t now_us) {
  if (over && exceeded_since_us_ == 0) exceeded_since_us_ = now_us;
  if (!over && exceeded_since_us_ != 0) {
    exceeded_total_us_ += static_cast<uint64_t>(now_us - exceeded_since_us_);
    exceeded_since_us_ = 0;
  }
}

uint64_t MemoryLimit::current_exceeded_ms(int64_t now_us) const {
  return exceeded_since_us_ ? static_cast<uint64_t>(now_us - exceeded_since_us_) / 1000 : 0;
}

uint64_t MemoryLimit::total_exceeded_ms(int64_t now_us) const {
  return (exceeded_total_us_ / 1000) + current_exceeded_ms(now_us);
}

bool MemoryLimit::enforce_slow() {
  const uint64_t limit = *maxmemory_;
  const int64_t t0 = engine::monotonic_us();
  if (limit == 0) {
    note_state(false, t0);
    return true;
  }
  if (!may_evict()) return true;
  if (engine::used_memory() <= limit) {
    note_state(false, t0);
    return true;
  }
  uint64_t used = counted_memory();
  if (used <= limit) {
    note_state(false, t0);
    return true;
  }
  const config::Config& cfg = server_.config();
  const engine::EvictionPolicy policy = to_engine(cfg.maxmemory_policy());
  if (policy == engine::EvictionPolicy::kNoEviction) {
    note_state(true, t0);
    return false;
  }
  const uint64_t to_free = used - limit;
  const uint64_t budget_us = time_limit_us(cfg.ref<std::int64_t>("maxmemory-eviction-tenacity"));
  const auto samples = static_cast<std::size_t>(cfg.ref<std::int64_t>("maxmemory-samples"));
  const int64_t threshold = cfg.latency_monitor_threshold();
  Stats& stats = server_.stats();

  int64_t freed = 0;  // may go negative: a DEL record can take more than the key gave back
  uint64_t keys = 0;
  bool out_of_keys = false;
  while (freed < static_cast<int64_t>(to_free)) {
    engine::EvictionVictim victim;
    if (!picker_.pick(server_.keyspace(), policy, samples, victim)) {
      out_of_keys = true;
      break;
    }
    // Only the deletion's own effect is counted (evict measures it before the DEL is
    // propagated): what propagating allocates is freed once it is written, and counting it made
    // this loop evict every key when a DEL grew the AOF buffer or opened a backlog block.
    const int64_t del_t0 = engine::monotonic_us();
    int64_t gave_back = 0;
    server_.keyspace().db(victim.db).evict(victim.key, &gave_back);
    const int64_t del_us = engine::monotonic_us() - del_t0;
    freed += gave_back;
    stats.latency.add_if_needed("eviction-del", del_us / 1000, server_.clock().now_ms() / 1000,
                                threshold);
    ++keys;
    // Every 16 keys, as Redis: stop once the time budget is spent; the next command or cron
    // tick continues (Redis's eviction timer). Memory is then still over the limit but the
    // command is not refused: eviction is in progress.
    if (keys % 16 == 0 && static_cast<uint64_t>(engine::monotonic_us() - t0) > budget_us) break;
  }
  const int64_t t1 = engine::monotonic_us();
  stats.latency.add_if_needed("eviction-cycle", (t1 - t0) / 1000, server_.clock().now_ms() / 1000,
                              threshold);
  // Freed enough: under the limit (now_us of the end). Stopped by the budget: still over.
  note_state(out_of_keys || freed < static_cast<int64_t>(to_free), t1);
  return !out_of_keys;
}

}  // namespace streamd::cmd
