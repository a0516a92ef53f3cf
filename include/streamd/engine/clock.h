// The engine never reads the system clock itself: time comes from a Clock so that expiry, idle
// times and auto-generated IDs are unit-tested with a clock the test moves by hand.
#pragma once

#include <cstdint>

namespace streamd::engine {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now_ms() const = 0;  // Unix time in milliseconds
  virtual int64_t now_us() const { return now_ms() * 1000; }
};

class SystemClock final : public Clock {
 public:
  int64_t now_ms() const override;
  int64_t now_us() const override;
};

// Microseconds on the monotonic clock, for measuring durations (command and event-loop times,
// fsync and fork latency): never for times a client sees, which come from a Clock.
int64_t monotonic_us();

// A clock that only moves when told to (tests).
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 1700000000000) : now_(start_ms) {}
  int64_t now_ms() const override { return now_; }
  void set(int64_t ms) { now_ = ms; }
  void advance(int64_t ms) { now_ += ms; }

 private:
  int64_t now_;
};

}  // namespace streamd::engine
