// Dispatch: the single entry point from the network layer into commands. It looks the command up
// in the table, checks authentication, arity and MULTI state, runs the handler with a Context,
// keeps INFO/SLOWLOG statistics, and parks the client when the handler asks to block.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"

namespace streamd::cmd {

enum class DispatchResult {
  kDone,     // the reply is in the output buffer
  kBlocked,  // the client is parked; stop processing its pipeline until resume()
};

// A command queued behind the running one, as Dispatcher::prefetch sees it.
struct QueuedCommand {
  std::string_view name;
  std::string_view first_arg;  // empty when argc < 2
  std::size_t argc = 0;
};

class Dispatcher {
 public:
  explicit Dispatcher(Server& server);

  // Executes one command line from `s`, appending its reply to `out`. `argv_is_request`: argv
  // views the client's request as RequestParser::parse_ready parsed it (Context::argv_is_request).
  DispatchResult execute(Session& s, std::span<const std::string_view> argv, std::string& out,
                         bool argv_is_request = false);

  // Runs a command for a session that was blocked (a key became ready). Returns kBlocked if it
  // parked again. `deadline_ms` is the deadline already in force.
  DispatchResult rerun_blocked(Session& s, const std::vector<std::string>& argv,
                               int64_t deadline_ms);

  // CLIENT PAUSE: whether `s`'s next command must wait for the pause to end. True: `s` is now
  // postponed (client_pause.h) and the caller leaves the command unread. A command that would be
  // refused anyway (unknown, wrong arity, not authenticated) is not postponed: it is answered.
  // One flag test while no pause is in force.
  bool postpones(Session& s, std::span<const std::string_view> argv) {
    return server_.client_pause().active() && postpones_slow(s, argv);
  }

  // Used by EXEC: runs one queued command inside the transaction.
  void execute_queued(Session& s, std::span<const std::string_view> argv, std::string& out);

  // Prefetches the keys of commands queued behind the one about to run (the connection parses
  // them ahead): those whose first key is their first argument, in `s`'s database. A hint for
  // the cache, with no effect on any reply; see Database::prefetch.
  void prefetch(const Session& s, std::span<const QueuedCommand> queued) const;

  // Re-runs blocked clients whose keys became ready, and expires blocked clients' deadlines.
  // The network layer calls this after each batch of client input and from its timer.
  void after_batch();

  Server& server() { return server_; }

 private:
  bool postpones_slow(Session& s, std::span<const std::string_view> argv);
  DispatchResult run(Session& s, const CommandSpec& spec, std::span<const std::string_view> argv,
                     std::string& out, int64_t rerun_deadline, bool argv_is_request = false);

  // Whether `s`'s commands are checked against its ACL user: not for the master link, the AOF
  // loader or an unrestricted user (the default user unless changed), so that the usual case
  // costs a few loads inline.
  bool acl_checked(const Session& s) const {
    return !s.master && !s.aof_loader && !server_.user_of(s).unrestricted();
  }
  // ACL, for a session acl_checked() selects: "" when its user may run the line, else the NOPERM
  // text (logged and counted). In EXEC (`in_exec`) the text says the rules changed since the
  // command was queued.
  std::string acl_refusal(Session& s, const CommandSpec& spec,
                          std::span<const std::string_view> argv, bool in_exec);
  // Writes a refusal found after queueing or blocking (no reject() there) and counts it.
  void reply_refusal(Session& s, const CommandSpec& spec, std::string& out, std::string_view error);

  // The flags a command runs with: its own, and for EXEC inside MULTI those of every queued
  // command folded in (Redis's mstate.cmd_flags / cmd_inv_flags): `any` has a flag when one of
  // them has it, `all` when every one has it (kStale: the whole transaction may run stale).
  struct RunFlags {
    uint32_t any;
    uint32_t all;
  };
  RunFlags run_flags(const Session& s, const CommandSpec& spec) const;

  // The MISCONF text when `spec` must be refused because the AOF cannot be written, else "".
  std::string persistence_error(const CommandSpec& spec) const;
  // READONLY (a write on a read-only replica) or MASTERDOWN (the link is down and stale data is
  // not served) for `spec` from `s`, else "".
  std::string_view replica_error(const Session& s, const CommandSpec& spec) const;
  // Enforces maxmemory (evicting as the policy allows) and says whether the command must be
  // refused with -OOM: memory stays over the limit and the command could grow the dataset.
  bool out_of_memory(const Session& s, const CommandSpec& spec);

  Server& server_;
  CommandTable& table_;
};

}  // namespace streamd::cmd
