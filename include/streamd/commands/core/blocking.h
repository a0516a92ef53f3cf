// Blocked clients. A blocking command (XREAD/XREADGROUP ... BLOCK) that finds nothing to serve
// asks its Context to block on some keys; dispatch parks the session here with an owned copy of
// the command line to re-run. When a key a client waits on is modified, the key is marked ready;
// serve_ready() then re-runs each waiting client's command through the normal dispatch path, in
// the order the clients blocked (FIFO per key). A re-run that still finds nothing parks the client
// again with its original deadline. So a woken reply and an immediate reply are built by the same
// handler code.
//
// XREADGROUP ... CLAIM also waits for a pending entry to become claimable: such a client has a
// wake time, and expire() re-runs its command when that time comes (a re-run that finds nothing
// parks it again with the next wake time). Clients without one cost nothing more.
//
// Invariants: a session is blocked iff session.blocked != nullptr; then it appears in the FIFO of
// every key it waits on, in deadlines_ if it has a timeout and in wakeups_ if it has a wake time.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streamd::cmd {

struct Session;
class Dispatcher;

struct BlockedState {
  std::vector<std::pair<int, std::string>> keys;  // (db, key)
  int64_t deadline_ms = 0;                        // 0 = forever
  std::vector<std::string> argv;                  // the command to re-run
  uint64_t seq = 0;                               // blocking order, for FIFO fairness
  int64_t wake_ms = 0;                            // re-run at this time too (0 = none)
};

class BlockingRegistry {
 public:
  void block(Session& s, std::vector<std::pair<int, std::string>> keys, int64_t deadline_ms,
             std::vector<std::string> argv, int64_t wake_ms = 0);
  // Removes a session from every wait list (disconnect, unblock); no reply is written.
  void forget(Session& s);

  void signal_ready(int db, std::string_view key);
  bool has_ready() const { return !ready_.empty(); }
  // Re-runs the commands of clients waiting on ready keys. Returns the sessions whose command
  // completed (they must be resumed by the network layer; the dispatcher already called resume).
  void serve_ready(Dispatcher& d);
  // Re-runs the commands of clients whose wake time came, then replies to clients whose deadline
  // passed (null array) and resumes them.
  void expire(int64_t now_ms, Dispatcher& d);
  // CLIENT UNBLOCK: `error` selects the UNBLOCKED error instead of the timeout reply.
  bool unblock(Session& s, bool error, Dispatcher& d);
  // The instance's state changed (REPLICAOF host port): every blocked client, in blocking order,
  // gets the error `error` and its connection closes after that reply, as Redis's
  // disconnectAllBlockedClients does (a woken command must not run against the new master's
  // data, where a write would not be the master's). Returns how many.
  std::size_t disconnect_all(std::string_view error);

  // Earliest deadline or wake time among blocked clients, or 0 if none has one.
  int64_t next_deadline() const;
  std::size_t blocked_clients() const { return blocked_count_; }
  std::size_t keys_with_waiters() const { return waiters_.size(); }
  // INFO's total_blocking_keys and total_blocking_keys_on_nokey: keys someone waits on, and
  // those among them with a client that must also be woken when the key goes away (XREADGROUP,
  // whose re-run then answers NOGROUP or WRONGTYPE). Walks the wait lists: for INFO only.
  struct KeyCounts {
    std::size_t keys = 0;
    std::size_t keys_on_nokey = 0;
  };
  KeyCounts key_counts() const;

 private:
  static std::string key_id(int db, std::string_view key);

  std::unordered_map<std::string, std::deque<Session*>> waiters_;  // key_id → FIFO
  std::multimap<int64_t, Session*> deadlines_;
  std::multimap<int64_t, Session*> wakeups_;
  std::vector<std::string> ready_;  // key_ids, in signal order, deduplicated
  uint64_t next_seq_ = 0;
  std::size_t blocked_count_ = 0;
};

}  // namespace streamd::cmd
