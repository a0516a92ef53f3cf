#include "streamd/engine/access_tracking.h"

namespace streamd::engine {
namespace {

constexpr int64_t kMinuteMask = 65535;

int64_t minutes(int64_t now_ms) {
  return (now_ms / 1000 / 60) & kMinuteMask;
}

// Minutes since `then`, on a clock that wraps every 65536 minutes (Redis's LFUTimeElapsed).
int64_t minutes_since(int64_t then, int64_t now_ms) {
  int64_t now = minutes(now_ms);
  return now >= then ? now - then : kMinuteMask - then + now;
}

}  // namespace

int64_t lfu_initial(int64_t now_ms) {
  return lfu_with_counter(kLfuInitialCounter, now_ms);
}

int64_t lfu_with_counter(uint8_t counter, int64_t now_ms) {
  return (minutes(now_ms) << 8) | counter;
}

uint8_t lfu_counter(int64_t state, int64_t now_ms, const LfuParams& p) {
  int64_t counter = state & 255;
  int64_t then = (state >> 8) & kMinuteMask;
  int64_t periods = p.decay_minutes > 0 ? minutes_since(then, now_ms) / p.decay_minutes : 0;
  return static_cast<uint8_t>(periods >= counter ? 0 : counter - periods);
}

int64_t lfu_after_access(int64_t state, int64_t now_ms, const LfuParams& p, std::mt19937_64& rng) {
  uint8_t counter = lfu_counter(state, now_ms, p);
  if (counter < 255) {
    double base = counter > kLfuInitialCounter ? counter - kLfuInitialCounter : 0;
    double chance = 1.0 / (base * p.log_factor + 1);
    double r = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    if (r < chance) ++counter;
  }
  return lfu_with_counter(counter, now_ms);
}

}  // namespace streamd::engine
