// Runs one decoded REST call through the one command table and dispatcher, as a client session
// whose replies land in a plain string and are converted to JSON afterwards. Nothing here knows
// sockets; the HTTP connection drives it.
//
// Single command: {"result"} (200) or {"error"} (400). Pipeline: the commands run one after the
// other (not atomically), the answer is an array with one {"result"}/{"error"} per command (200).
// Multi-exec: MULTI, the commands, EXEC through the session's ordinary transaction machinery; an
// array of per-command results, or {"error"} (400) when the transaction was refused.
//
// Blocking: a command that blocks (XREAD/XREADGROUP ... BLOCK) parks the session in the blocking
// registry like any client; run() then returns false, and when the registry re-runs the command
// and writes its reply into Session::out (our out_) the connection calls resume(), which picks
// up where the call stopped. Deadlines are the registry's, so nothing polls.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "streamd/rest/access.h"
#include "streamd/rest/rest_call.h"

namespace streamd::cmd {
class Dispatcher;
struct Session;
}  // namespace streamd::cmd

namespace streamd::rest {

class RestExecutor {
 public:
  // `session` must outlive the executor; its `out` is pointed at the executor's buffer.
  RestExecutor(cmd::Dispatcher& dispatcher, cmd::Session& session, RestCall call, Access access);

  // Runs until every command is done (true) or one blocked (false: wait for resume()).
  bool run();
  // The blocked command's reply is in the buffer: continue. Same return as run().
  bool resume();

  int status() const { return status_; }
  const std::string& body() const { return body_; }

 private:
  bool step();     // runs commands from next_; false when one blocked
  void collect();  // converts the reply in out_ for command next_ - 1
  void finish();
  void finish_multi();

  cmd::Dispatcher& dispatcher_;
  cmd::Session& session_;
  RestCall call_;
  Access access_;
  std::string out_;
  std::size_t next_ = 0;
  bool multi_started_ = false;
  std::string multi_refusal_;  // first command refused or rejected while queueing
  nlohmann::json results_ = nlohmann::json::array();
  int status_ = 200;
  std::string body_;
};

}  // namespace streamd::rest
