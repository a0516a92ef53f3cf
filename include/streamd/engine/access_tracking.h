// What a key remembers of its accesses, for OBJECT IDLETIME / OBJECT FREQ and for eviction.
// Entry::access_ms holds one of two things, by the maxmemory policy (as Redis's 24-bit `lru`
// field does):
// - kLru: the Unix time in ms of the last access.
// - kLfu: Redis's LFU state: (minutes << 8) | counter, where counter is a logarithmic access
//   count (0..255, new keys start at kLfuInitialCounter) and minutes (mod 65536) is when the
//   counter last decayed. The counter loses one per `decay_minutes` without access.
// Switching the policy does not convert what keys hold, as in Redis: until a key is accessed
// again its value is read the other way.
#pragma once

#include <cstdint>
#include <random>

namespace streamd::engine {

enum class AccessTracking : uint8_t { kLru, kLfu };

struct LfuParams {
  int log_factor = 10;    // lfu-log-factor
  int decay_minutes = 1;  // lfu-decay-time; 0: never decays
};

inline constexpr uint8_t kLfuInitialCounter = 5;  // Redis's LFU_INIT_VAL

// The state a key stored now starts with.
int64_t lfu_initial(int64_t now_ms);
// The counter as decayed to now (OBJECT FREQ; eviction reads it without changing the key).
uint8_t lfu_counter(int64_t state, int64_t now_ms, const LfuParams& p);
// The state after an access: decay, then a probabilistic increment (likelier the lower the
// counter: 1 / ((counter - 5) * log_factor + 1)).
int64_t lfu_after_access(int64_t state, int64_t now_ms, const LfuParams& p, std::mt19937_64& rng);
// The state holding `counter`, decayed from now (RESTORE ... FREQ).
int64_t lfu_with_counter(uint8_t counter, int64_t now_ms);

}  // namespace streamd::engine
