// SystemClock::read (the wall time derived from the monotonic clock) and CommandClock (time that
// stands still while a command runs).
#include <gtest/gtest.h>

#include <cstdlib>

#include "streamd/engine/clock.h"

namespace streamd::engine {
namespace {

TEST(SystemClockTest, ReadAgreesWithBothClocks) {
  SystemClock c;
  for (int i = 0; i < 2000; ++i) {
    int64_t wall_before = c.now_us();
    int64_t mono_before = monotonic_us();
    ClockReading r = c.read();
    int64_t mono_after = monotonic_us();
    int64_t wall_after = c.now_us();
    ASSERT_GE(r.mono_us, mono_before);
    ASSERT_LE(r.mono_us, mono_after);
    // Derived or read, the wall time lies between the two direct reads, give or take the
    // microsecond of rounding and drift the derivation allows (the wall clock is not stepped
    // while the test runs).
    ASSERT_GE(r.wall_us, wall_before - 2) << i;
    ASSERT_LE(r.wall_us, wall_after + 2) << i;
  }
}

TEST(CommandClockTest, StandsStillInsideACommandAndNested) {
  ManualClock base(1000);
  CommandClock c(base);
  EXPECT_FALSE(c.in_command());
  EXPECT_EQ(c.now_ms(), 1000);
  base.advance(5);
  EXPECT_EQ(c.now_ms(), 1005);  // outside a command: the base clock

  c.enter();
  EXPECT_TRUE(c.in_command());
  base.advance(7);
  EXPECT_EQ(c.now_ms(), 1005);
  EXPECT_EQ(c.now_us(), 1005000);
  c.enter();  // nested (a command queued in MULTI, run by EXEC): keeps the outer time
  base.advance(7);
  EXPECT_EQ(c.now_ms(), 1005);
  c.leave();
  EXPECT_EQ(c.now_ms(), 1005);
  c.leave();
  EXPECT_FALSE(c.in_command());
  EXPECT_EQ(c.now_ms(), 1019);

  c.enter();  // the next command takes the time again
  EXPECT_EQ(c.now_ms(), 1019);
  c.leave();
}

TEST(CommandClockTest, EnterReturnsTheMonotonicStart) {
  ManualClock base;
  CommandClock c(base);
  int64_t before = monotonic_us();
  int64_t outer = c.enter();
  int64_t inner = c.enter();
  int64_t after = monotonic_us();
  c.leave();
  c.leave();
  EXPECT_GE(outer, before);
  EXPECT_GE(inner, outer);
  EXPECT_LE(inner, after);
}

}  // namespace
}  // namespace streamd::engine
