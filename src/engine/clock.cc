#include "streamd/engine/clock.h"

#include <chrono>

namespace streamd::engine {

int64_t SystemClock::now_ms() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

int64_t SystemClock::now_us() const {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

ClockReading SystemClock::read() const {
  int64_t mono = monotonic_us();
  if (!calibrated_ || mono - calibrated_at_us_ >= kRecalibrateUs) {
    int64_t wall = now_us();
    offset_us_ = wall - mono;
    calibrated_at_us_ = mono;
    calibrated_ = true;
    return {wall, mono};
  }
  return {mono + offset_us_, mono};
}

int64_t monotonic_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace streamd::engine
