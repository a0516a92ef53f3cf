// The engine never reads the system clock itself: time comes from a Clock so that expiry, idle
// times and auto-generated IDs are unit-tested with a clock the test moves by hand.
#pragma once

#include <cstdint>

namespace streamd::engine {

// Microseconds on the monotonic clock, for measuring durations (command and event-loop times,
// fsync and fork latency): never for times a client sees, which come from a Clock.
int64_t monotonic_us();

// One reading of both clocks: the wall time a Clock gives and the monotonic time beside it.
struct ClockReading {
  int64_t wall_us;  // Unix time in microseconds (Clock::now_us)
  int64_t mono_us;  // monotonic_us()
};

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now_ms() const = 0;  // Unix time in milliseconds
  virtual int64_t now_us() const { return now_ms() * 1000; }
  // Both clocks at once, for the start of a command (its wall time and the start of its
  // duration). The default reads each; SystemClock derives one from the other.
  virtual ClockReading read() const { return {now_us(), monotonic_us()}; }
};

class SystemClock final : public Clock {
 public:
  int64_t now_ms() const override;
  int64_t now_us() const override;
  // One clock read instead of two (every command starts with a read(), and a clock read costs
  // about 30 ns in a VM): the wall time is the monotonic time plus an offset between the two
  // clocks, measured again once a millisecond of monotonic time has passed. The result is within
  // a microsecond of now_us() (NTP slews by at most 500 ppm), except for at most a millisecond
  // after the wall clock is stepped. Not thread-safe: only the engine's thread calls read().
  ClockReading read() const override;

 private:
  static constexpr int64_t kRecalibrateUs = 1000;
  mutable int64_t offset_us_ = 0;
  mutable int64_t calibrated_at_us_ = 0;
  mutable bool calibrated_ = false;
};

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

// The keyspace's clock: time stands still while a command runs, as Redis's commandTimeSnapshot
// does. A key then cannot expire half-way through a command (one that opens a key twice sees it
// both times or neither), every "now" a command reads agrees, and a MULTI/EXEC (whose queued
// commands run nested inside EXEC) keeps EXEC's time throughout, as in Redis, where only the
// outermost execution unit takes the time. Outside a command it is the base clock.
// Invariant: depth_ counts the commands entered and not yet left; frozen_us_ is meaningful only
// while depth_ > 0.
class CommandClock final : public Clock {
 public:
  explicit CommandClock(const Clock& base) : base_(base) {}
  int64_t now_ms() const override { return depth_ > 0 ? frozen_us_ / 1000 : base_.now_ms(); }
  int64_t now_us() const override { return depth_ > 0 ? frozen_us_ : base_.now_us(); }

  // Enters a command and returns the monotonic time it starts at (for its duration). The
  // outermost command takes the time; a nested one keeps it. Pair each with leave().
  int64_t enter() {
    if (depth_++ == 0) {
      ClockReading r = base_.read();
      frozen_us_ = r.wall_us;
      return r.mono_us;
    }
    return monotonic_us();
  }
  void leave() { --depth_; }
  bool in_command() const { return depth_ > 0; }

 private:
  const Clock& base_;
  int depth_ = 0;
  int64_t frozen_us_ = 0;
};

}  // namespace streamd::engine
