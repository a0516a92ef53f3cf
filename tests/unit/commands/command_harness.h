// In-process command runner for unit tests: a Server with a ManualClock, sessions and a
// Dispatcher, no sockets. Run() sends one command line through Dispatcher::execute (the same path
// the network layer uses) and returns the raw reply bytes, after checking that the command wrote
// exactly one complete top-level reply. Decode() turns reply bytes into a readable one-line form
// for failure messages and for tests that do not care about the protocol.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "reply_reader.h"
#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/config/config.h"
#include "streamd/engine/clock.h"
#include "streamd/persist/rdb/dump_codec.h"
#include "streamd/resp/reply_writer.h"

namespace streamd::test {

// Both protocols, for tests that run every case in each (SCOPED_TRACE(ProtoName(p))).
inline constexpr resp::Protocol kProtos[] = {resp::Protocol::kResp2, resp::Protocol::kResp3};
inline std::string ProtoName(resp::Protocol p) {
  return p == resp::Protocol::kResp2 ? "RESP2" : "RESP3";
}

class CommandHarness {
 public:
  static constexpr int64_t kStartMs = 1700000000000;  // 2023-11-14T22:13:20Z

  CommandHarness();
  ~CommandHarness();

  // Runs `argv` on client `client` (created on first use, starting in db 0) with the given
  // protocol and returns the reply bytes. Fails the test unless exactly one reply was written.
  std::string Run(const std::vector<std::string>& argv,
                  resp::Protocol proto = resp::Protocol::kResp3, int client = 0);
  std::string Run2(const std::vector<std::string>& argv, int client = 0) {
    return Run(argv, resp::Protocol::kResp2, client);
  }
  // Runs `argv` and returns whatever was written (possibly nothing, e.g. a blocked command).
  std::string RunRaw(const std::vector<std::string>& argv,
                     resp::Protocol proto = resp::Protocol::kResp3, int client = 0);

  engine::ManualClock& clock() { return clock_; }
  cmd::Server& server() { return *server_; }
  cmd::Dispatcher& dispatcher() { return *dispatcher_; }
  config::Config& config() { return *config_; }
  cmd::Session& session(int client = 0);

  // Moves the clock forward, then runs the server's periodic housekeeping (active expiry).
  void Advance(int64_t ms) { clock_.advance(ms); }
  void Cron() { server_->cron(); }

 private:
  engine::ManualClock clock_{kStartMs};
  persist::rdb::DumpCodec dump_codec_;  // DUMP / RESTORE, as startup attaches it
  std::unique_ptr<config::Config> config_;
  std::unique_ptr<cmd::Server> server_;
  std::unique_ptr<cmd::Dispatcher> dispatcher_;
  std::map<int, uint64_t> clients_;  // test client index → session id
};

}  // namespace streamd::test
