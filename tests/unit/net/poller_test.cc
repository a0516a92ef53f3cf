// Poller: level-triggered readiness through the io_context, interest changes, and removal of a
// registration while a batch of its events is being delivered.
#include "streamd/net/poller.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>
#include "socket_pair.h"

#include <asio/io_context.hpp>
#include <functional>
#include <vector>

namespace streamd::net {
namespace {

using Pair = testing::SocketPair;

class PollerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(poller.open()); }
  asio::io_context io{1};
  Poller poller{io};
};

struct Recorder : Poller::Handler {
  std::function<void(bool, bool, bool)> fn;
  int calls = 0;
  void on_ready(bool readable, bool writable, bool failed) override {
    ++calls;
    if (fn) fn(readable, writable, failed);
  }
};

TEST_F(PollerTest, ReportsReadableLevelTriggeredUntilDrained) {
  poller.start();
  Pair p;
  Recorder r;
  int reads = 0;
  r.fn = [&](bool readable, bool, bool) {
    ASSERT_TRUE(readable);
    char c;
    // One byte per event: the rest must be reported again (level-triggered).
    if (::read(p.fd[0], &c, 1) == 1) ++reads;
    if (reads == 3) poller.stop();
  };
  poller.add(p.fd[0], Poller::kRead, &r);
  ASSERT_EQ(::write(p.fd[1], "abc", 3), 3);
  io.run();
  EXPECT_EQ(reads, 3);
  EXPECT_EQ(r.calls, 3);
}

TEST_F(PollerTest, NoEventsWithoutInterestAndWritabilityOnRequest) {
  poller.start();
  Pair p;
  Recorder r;
  Poller::Token t = poller.add(p.fd[0], Poller::kNone, &r);
  ASSERT_EQ(::write(p.fd[1], "x", 1), 1);
  io.run_for(std::chrono::milliseconds(50));
  EXPECT_EQ(r.calls, 0);  // readable, but nobody asked

  bool saw_write = false;
  r.fn = [&](bool readable, bool writable, bool) {
    EXPECT_FALSE(readable);
    saw_write = writable;
    poller.stop();
  };
  poller.set_interest(t, Poller::kWrite);
  io.restart();
  io.run();
  EXPECT_TRUE(saw_write);
}

TEST_F(PollerTest, HangUpIsReportedAsFailed) {
  poller.start();
  Pair p;
  Recorder r;
  bool failed_seen = false;
  Poller::Token t = poller.add(p.fd[0], Poller::kNone, &r);
  r.fn = [&](bool, bool, bool failed) {
    failed_seen = failed;
    poller.remove(t);
    poller.stop();
  };
  ::close(p.fd[1]);
  p.fd[1] = -1;
  io.run_for(std::chrono::seconds(2));
  EXPECT_TRUE(failed_seen);
  EXPECT_EQ(r.calls, 1);
}

TEST_F(PollerTest, RegistrationRemovedMidBatchGetsNoMoreEvents) {
  poller.start();
  Pair a, b;
  Recorder ra, rb;
  Poller::Token ta = poller.add(a.fd[0], Poller::kRead, &ra);
  Poller::Token tb = poller.add(b.fd[0], Poller::kRead, &rb);
  // Both are ready in the same batch; whichever runs first removes the other (as CLIENT KILL
  // closes another client), and the other's already-collected event must be dropped.
  ra.fn = [&](bool, bool, bool) {
    poller.remove(tb);
    poller.remove(ta);
    poller.stop();
  };
  rb.fn = [&](bool, bool, bool) {
    poller.remove(ta);
    poller.remove(tb);
    poller.stop();
  };
  ASSERT_EQ(::write(a.fd[1], "x", 1), 1);
  ASSERT_EQ(::write(b.fd[1], "y", 1), 1);
  io.run_for(std::chrono::seconds(2));
  EXPECT_EQ(ra.calls + rb.calls, 1);
}

TEST_F(PollerTest, ReusedSlotDoesNotReceiveTheOldRegistrationsEvents) {
  Pair a, b;
  Recorder ra, rb;
  Poller::Token ta = poller.add(a.fd[0], Poller::kRead, &ra);
  poller.remove(ta);
  Poller::Token tb = poller.add(b.fd[0], Poller::kRead, &rb);
  EXPECT_NE(ta, tb);  // same slot, new generation
  EXPECT_EQ(ta & 0xffffffffu, tb & 0xffffffffu);
  // Changing interest through the stale token must not touch the new registration.
  poller.set_interest(ta, Poller::kNone);
  rb.fn = [&](bool readable, bool, bool) {
    EXPECT_TRUE(readable);
    poller.stop();
  };
  poller.start();
  ASSERT_EQ(::write(b.fd[1], "y", 1), 1);
  io.run_for(std::chrono::seconds(2));
  EXPECT_EQ(rb.calls, 1);
  EXPECT_EQ(ra.calls, 0);
}

}  // namespace
}  // namespace streamd::net
