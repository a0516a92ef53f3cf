// A command's time stands still while it runs, and EXEC's holds for the commands it runs (Redis's
// commandTimeSnapshot): driven with a clock that moves a millisecond at every read, so anything
// that read the clock twice in one command would see two times.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/config/config.h"
#include "streamd/engine/clock.h"

namespace streamd::test {
namespace {

class TickingClock final : public engine::Clock {
 public:
  int64_t now_ms() const override { return now_++; }

 private:
  mutable int64_t now_ = 1700000000000;
};

class CommandTimeTest : public ::testing::Test {
 protected:
  CommandTimeTest() : server_(config_, clock_), dispatcher_(server_) {
    auto s = std::make_unique<cmd::Session>();
    s->id = server_.next_client_id();
    s->proto = resp::Protocol::kResp2;
    id_ = s->id;
    server_.add_session(std::move(s));
  }
  std::string Run(const std::vector<std::string>& argv) {
    std::vector<std::string_view> views(argv.begin(), argv.end());
    std::string out;
    dispatcher_.execute(*server_.session(id_), views, out);
    return out;
  }

  TickingClock clock_;
  config::Config config_;
  cmd::Server server_;
  cmd::Dispatcher dispatcher_;
  uint64_t id_ = 0;
};

// The milliseconds part of a RESP2 bulk stream ID reply ("$15\r\n1700000000005-0\r\n").
std::string Ms(const std::string& reply) {
  auto start = reply.find("\r\n") + 2;
  return reply.substr(start, reply.find('-', start) - start);
}

TEST_F(CommandTimeTest, ExecKeepsOneTimeForItsCommands) {
  ASSERT_EQ(Run({"MULTI"}), "+OK\r\n");
  for (int i = 0; i < 3; ++i) ASSERT_EQ(Run({"XADD", "s", "*", "f", "v"}), "+QUEUED\r\n");
  std::string exec = Run({"EXEC"});
  // One millisecond for all three: sequence numbers 0, 1, 2 of it.
  auto first = exec.find("$15\r\n");
  ASSERT_NE(first, std::string::npos) << exec;
  std::string ms = exec.substr(first + 5, 13);
  EXPECT_EQ(exec, "*3\r\n$15\r\n" + ms + "-0\r\n$15\r\n" + ms + "-1\r\n$15\r\n" + ms + "-2\r\n");
}

TEST_F(CommandTimeTest, EachCommandTakesTheTimeAnew) {
  std::string a = Ms(Run({"XADD", "s", "*", "f", "v"}));
  std::string b = Ms(Run({"XADD", "s", "*", "f", "v"}));
  EXPECT_LT(a, b);
}

TEST_F(CommandTimeTest, AKeyDoesNotExpireHalfWayThroughACommand) {
  // k expires a few ticks ahead, so that with a clock read per lookup MGET's three lookups
  // straddle the expiry for some `ahead`: all three must agree.
  for (int ahead = 0; ahead < 8; ++ahead) {
    ASSERT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
    int64_t at = clock_.now_ms() + ahead;
    ASSERT_EQ(Run({"PEXPIREAT", "k", std::to_string(at)}), ":1\r\n");
    std::string r = Run({"MGET", "k", "k", "k"});
    const std::string present = "*3\r\n$1\r\nv\r\n$1\r\nv\r\n$1\r\nv\r\n";
    const std::string absent = "*3\r\n$-1\r\n$-1\r\n$-1\r\n";
    EXPECT_TRUE(r == present || r == absent) << "ahead " << ahead << ": " << r;
  }
}

}  // namespace
}  // namespace streamd::test
