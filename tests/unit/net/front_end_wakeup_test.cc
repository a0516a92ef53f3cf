// FrontEnd: clients woken by a command are answered in the same turn as that command, and their
// replies leave before its own (issue 16's fan-out tail: readers served in a later turn than the
// producer's acknowledgement waited for as long as the producer then stayed quiet).
//
// A whole front end (server, dispatcher, unix-socket listener) runs on an io_context that the
// test steps one handler at a time, so "which handler wrote what" is observable exactly. Unix
// socket writes land in the peer's receive queue inside send(), so after each step a poll() with
// no timeout says what has been written so far.
#include "streamd/net/front_end.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/server.h"
#include "streamd/config/config.h"
#include "streamd/engine/clock.h"

namespace streamd::net {
namespace {

std::string command(const std::vector<std::string>& argv) {
  std::string out = "*" + std::to_string(argv.size()) + "\r\n";
  for (const std::string& a : argv) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

class FrontEndWakeupTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/streamd-wakeup-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = dir_ + "/s.sock";
    ASSERT_FALSE(cfg_.force_set("port", "0").has_value());
    ASSERT_FALSE(cfg_.force_set("unixsocket", path_).has_value());
    ASSERT_FALSE(cfg_.force_set("io-uring", GetParam() ? "yes" : "no").has_value());
    server_ = std::make_unique<cmd::Server>(cfg_, clock_);
    dispatcher_ = std::make_unique<cmd::Dispatcher>(*server_);
    fe_ = std::make_unique<FrontEnd>(io_, *server_, *dispatcher_, cfg_);
    ASSERT_TRUE(fe_->listen());
    fe_->start();
  }

  void TearDown() override {
    for (int fd : fds_) ::close(fd);
    if (fe_) {
      fe_->shutdown("test");
      io_.run_for(std::chrono::seconds(2));
    }
    fe_.reset();
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }

  int connect_client() {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path_.c_str());
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    fds_.push_back(fd);
    return fd;
  }

  void send_all(int fd, const std::string& bytes) {
    ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
  }

  // Runs handlers one at a time until `done` holds (checked after each), at most `limit` of them.
  // `after_step` sees the state after every handler.
  bool step_until(const std::function<bool()>& done, const std::function<void()>& after_step = {},
                  int limit = 10000) {
    for (int i = 0; i < limit; ++i) {
      if (done()) return true;
      io_.run_one_for(std::chrono::milliseconds(20));
      if (after_step) after_step();
    }
    return done();
  }

  // Connects n readers that block in XREAD COUNT 100 BLOCK 0 on "s" from "$", then a producer,
  // and runs the server until every reader is blocked and every client has its session.
  void block_readers(int n, std::vector<int>& readers, int& producer) {
    for (int i = 0; i < n; ++i) {
      readers.push_back(connect_client());
      send_all(readers.back(),
               command({"XREAD", "COUNT", "100", "BLOCK", "0", "STREAMS", "s", "$"}));
    }
    producer = connect_client();
    ASSERT_TRUE(step_until([&] {
      return server_->blocking().blocked_clients() == static_cast<std::size_t>(n) &&
             server_->sessions().size() == static_cast<std::size_t>(n) + 1;
    })) << "the readers did not all block";
  }

  std::string dir_, path_;
  config::Config cfg_;
  engine::SystemClock clock_;
  std::unique_ptr<cmd::Server> server_;
  std::unique_ptr<cmd::Dispatcher> dispatcher_;
  asio::io_context io_{1};
  std::unique_ptr<FrontEnd> fe_;
  std::vector<int> fds_;
};

TEST_P(FrontEndWakeupTest, ReadersWokenByAnXaddAreAnsweredNoLaterThanTheXadd) {
  constexpr int kReaders = 20;
  std::vector<int> readers;
  int producer = -1;
  ASSERT_NO_FATAL_FAILURE(block_readers(kReaders, readers, producer));

  for (int round = 0; round < 5; ++round) {
    send_all(producer, command({"XADD", "s", "*", "round", std::to_string(round)}));
    // The first handler after which the producer can read its reply: every reader must be able
    // to read its entry by then.
    int readers_ready_at_ack = -1;
    ASSERT_TRUE(step_until([&] { return readable(producer); },
                           [&] {
                             if (readers_ready_at_ack >= 0 || !readable(producer)) return;
                             readers_ready_at_ack = 0;
                             for (int r : readers) readers_ready_at_ack += readable(r) ? 1 : 0;
                           }))
        << "no XADD reply in round " << round;
    EXPECT_EQ(readers_ready_at_ack, kReaders)
        << "round " << round << ": readers that had their entry when the XADD was acknowledged";

    // Drain every reply and block the readers again from the entry they got.
    char buf[4096];
    ASSERT_GT(::recv(producer, buf, sizeof buf, 0), 0);
    ASSERT_TRUE(step_until([&] {
      for (int r : readers) {
        if (!readable(r)) return false;
      }
      return true;
    })) << "a reader never got its entry in round "
        << round;
    for (int r : readers) {
      ASSERT_GT(::recv(r, buf, sizeof buf, 0), 0);
      send_all(r, command({"XREAD", "COUNT", "100", "BLOCK", "0", "STREAMS", "s", "$"}));
    }
    ASSERT_TRUE(step_until([&] {
      return server_->blocking().blocked_clients() == static_cast<std::size_t>(kReaders);
    })) << "the readers did not all block again in round "
        << round;
  }
}

// The readers woken by one XADD get their replies while the turn is still re-running the others'
// XREADs, not once all of them are done: when the last reader's re-run completes, most of the
// readers served before it can read their entry already (none could, when every woken reply
// waited for the turn's write batch: issue 16's fan-out p50 started with 200 re-runs, 0.7 ms).
TEST_P(FrontEndWakeupTest, WokenRepliesLeaveWhileTheOtherReadersAreServed) {
  constexpr int kReaders = 20;
  std::vector<int> readers;
  int producer = -1;
  ASSERT_NO_FATAL_FAILURE(block_readers(kReaders, readers, producer));

  // Every reader's resume hook (called as its re-run completes) notes how many readers can read
  // their entry at that moment; the last one's count is what the test is about.
  int resumed = 0;
  int readable_at_last_resume = -1;
  for (const auto& [id, session] : server_->sessions()) {
    if (!session->blocked) continue;
    std::function<void()> resume = session->resume;
    session->resume = [&, resume] {
      if (++resumed == kReaders) {
        readable_at_last_resume = 0;
        for (int r : readers) readable_at_last_resume += readable(r) ? 1 : 0;
      }
      resume();
    };
  }
  send_all(producer, command({"XADD", "s", "*", "f", "v"}));
  ASSERT_TRUE(step_until([&] { return readable(producer); })) << "no XADD reply";
  EXPECT_EQ(resumed, kReaders);
  EXPECT_GE(readable_at_last_resume, kReaders / 2)
      << "readers that had their entry when the last woken reader's re-run completed";
  for (int r : readers) EXPECT_TRUE(readable(r));
}

// A woken reader whose reply cannot be written (its peer shut its reading side: the server sees
// no event for that) is closed in the middle of the wake-ups; the others still get their entry
// and the producer its reply, and the closed client's session goes.
TEST_P(FrontEndWakeupTest, AReaderThatFailsAmidTheWakeupsIsClosedAndTheRestServed) {
  constexpr int kReaders = 12;
  constexpr int kBroken = 3;
  std::vector<int> readers;
  int producer = -1;
  ASSERT_NO_FATAL_FAILURE(block_readers(kReaders, readers, producer));
  ASSERT_EQ(::shutdown(readers[kBroken], SHUT_RD), 0);

  send_all(producer, command({"XADD", "s", "*", "f", "v"}));
  ASSERT_TRUE(step_until([&] { return readable(producer); })) << "no XADD reply";
  for (int i = 0; i < kReaders; ++i) {
    if (i == kBroken) continue;
    EXPECT_TRUE(readable(readers[i])) << "reader " << i;
  }
  EXPECT_TRUE(step_until([&] { return server_->sessions().size() == kReaders; }))
      << "the reader whose write failed is still connected";
  EXPECT_EQ(server_->blocking().blocked_clients(), 0u);
}

INSTANTIATE_TEST_SUITE_P(IoUringAndDirect, FrontEndWakeupTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "IoUring" : "Direct";
                         });

}  // namespace
}  // namespace streamd::net
