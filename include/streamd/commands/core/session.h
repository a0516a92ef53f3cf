// A Session is one client's state as the command layer sees it: selected database, protocol,
// authentication, name, MULTI queue, WATCHed keys, blocking state and the counters CLIENT LIST
// shows. The network layer owns the socket and keeps the I/O counters here up to date; it sets
// the hooks so commands can ask for a connection to be closed or resumed without knowing sockets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/resp/reply_writer.h"

namespace streamd::cmd {

namespace acl {
struct User;
}
class Server;
struct BlockedState;
struct Subscriptions;

enum class ReplyMode { kOn, kOff, kSkip, kSkipNext };

// A client's CLIENT TRACKING mode (commands/core/tracking.h); off by default.
struct TrackingState {
  bool on = false;
  bool bcast = false, optin = false, optout = false, noloop = false;
  // CLIENT CACHING yes (OPTIN) or no (OPTOUT) was given for the next command or transaction.
  bool caching = false;
  bool broken_redirect = false;       // the REDIRECT client went away (CLIENT LIST flag R)
  uint64_t redirect = 0;              // 0: none
  std::vector<std::string> prefixes;  // BCAST prefixes, sorted ("" when none was given)
};

// Output that lives outside the connection and is shared with other clients: a replica link's
// command stream, read from the replication backlog's blocks (repl/stream_cursor.h). The network
// layer writes everything in Session::out first, then what this offers, straight from where it
// lies, and reports what the socket took.
class SharedOutput {
 public:
  virtual ~SharedOutput() = default;
  // The next bytes to write, contiguous ("" when there are none). Valid until consume() or the
  // next command runs.
  virtual std::string_view peek() const = 0;
  // `n` bytes of peek() were written.
  virtual void consume(std::size_t n) = 0;
  // Bytes not written yet (they count against the client's output limit).
  virtual std::size_t size() const = 0;
};

struct Session {
  uint64_t id = 0;
  std::string name;
  std::string lib_name, lib_ver;
  std::string addr;   // "ip:port" of the peer, or "/path:0" for a unix socket
  std::string laddr;  // local address
  int fd = -1;
  bool unix_socket = false;

  // A unix socket client, or one connected from a loopback address (127.x.x.x or ::1), as Redis
  // decides for protected-mode and the "local" of enable-debug-command / -protected-configs.
  bool local() const {
    if (unix_socket) return true;
    std::string_view ip = std::string_view(addr).substr(0, addr.rfind(':'));
    if (ip.size() >= 2 && ip.front() == '[' && ip.back() == ']') ip = ip.substr(1, ip.size() - 2);
    return ip.starts_with("127.") || ip == "::1";
  }

  int db = 0;
  resp::Protocol proto = resp::Protocol::kResp2;
  bool authenticated = true;  // false until AUTH when the default user needs a password
  // The ACL user this client runs as (commands/acl/acl.h) once it authenticated; null stands for
  // the default user (a new connection, a REST request, RESET). The master link and the AOF
  // loader are never checked.
  std::shared_ptr<acl::User> user;
  int64_t created_ms = 0;
  int64_t last_interaction_ms = 0;

  // MULTI/EXEC.
  bool in_multi = false;
  bool multi_error = false;  // a command failed to queue: EXEC answers EXECABORT
  std::vector<std::vector<std::string>> queued;
  // What the queue holds, as Redis's mstate.argv_len_sums counts it: each queued argument's bytes
  // plus a pointer per argument. CLIENT LIST's multi-mem; counted with the unparsed input against
  // client-query-buffer-limit (Redis 7.4+, redis/redis#12961), so a client cannot queue without
  // bound.
  std::size_t queued_bytes = 0;
  bool dirty_cas = false;                            // a WATCHed key changed: EXEC answers null
  std::vector<std::pair<int, std::string>> watched;  // (db, key)
  bool executing = false;  // inside EXEC (blocking commands must not block)
  // Ends the transaction: queue, MULTI flags and WATCHed keys (which the server indexes, hence
  // the argument). The one way EXEC, DISCARD, RESET, a rejected EXEC, a closed connection and
  // the AOF loader drop a transaction, so none forgets a part.
  void reset_transaction(Server& server);

  ReplyMode reply_mode = ReplyMode::kOn;
  bool no_evict = false;
  bool no_touch = false;
  bool monitor = false;
  bool close_after_reply = false;  // QUIT, protocol error, CLIENT KILL of self
  // "cmd" field of CLIENT LIST: a CommandSpec::full_name (the table lives as long as the
  // process and its rows do not move once registered), so a command need not copy it.
  std::string_view last_command;

  // Propagation: the sink's sequence number after this client's last propagated unit; its
  // replies wait until that is durable when the fsync policy asks (see propagation.h).
  uint64_t propagation_ticket = 0;
  // The replication offset right after this client's last propagated unit (WAIT's target).
  int64_t repl_offset = 0;
  // A replica link (after SYNC/PSYNC): CLIENT LIST flag S, never idle-timed out, not a "normal"
  // client; dispatch drops every reply it would get (its acks are never answered), and its
  // output is the command stream the master sends.
  bool replica = false;
  // The link to this server's master (the replica side, repl/replica.h): CLIENT LIST flag M,
  // type master; its writes pass the READONLY/MASTERDOWN checks and its replies are discarded.
  bool master = false;
  // The AOF loader's session (persist/loading_runner.h): it replays writes accepted before, which
  // no check of what may be accepted now refuses (rdb-version 10's, stream/propagation.h).
  bool aof_loader = false;

  // Blocking: non-null while the client waits in a blocking command.
  std::unique_ptr<BlockedState> blocked;
  // CLIENT PAUSE (commands/core/client_pause.h): the client's next command waits, unread in its
  // connection's input, for the pause to end. CLIENT LIST shows it blocked (flag b), as Redis.
  bool postponed = false;

  // Pub/sub (commands/pubsub/pubsub.h): this client's channels, patterns and shard channels;
  // null until it first subscribes.
  std::unique_ptr<Subscriptions> subs;
  // Client-side caching (CLIENT TRACKING).
  TrackingState tracking;
  // Set by dispatch while this client's own command runs: messages for it wait in
  // deferred_pushes and follow the command's reply (newest Redis's order).
  bool defer_pushes = false;
  std::string deferred_pushes;
  // Sends a push frame (a pub/sub message, an invalidation): after the reply of this client's
  // running command when there is one, otherwise appended to *out and flushed at once.
  void push(std::string_view frame) {
    if (defer_pushes) {
      deferred_pushes += frame;
    } else if (out) {
      out->append(frame);
      if (flush) flush();
    }
  }

  // I/O counters maintained by the network layer for CLIENT LIST / INFO.
  std::size_t query_buffer = 0;
  std::size_t query_buffer_free = 0;
  std::size_t output_buffer = 0;  // includes held_output
  // Output kept outside the connection: a replica's command stream buffered while its snapshot
  // is produced or sent (repl/master.h: ReplicaLink::pending), maintained by the replication
  // layer. The network layer counts it against client-output-buffer-limit, as Redis counts a
  // syncing replica's share of the replication buffer.
  std::size_t held_output = 0;
  // Set by the replication layer while a replica link streams: its command stream, written after
  // *out (see SharedOutput). Counted in output_buffer.
  SharedOutput* shared_out = nullptr;
  uint64_t net_in = 0, net_out = 0;
  uint64_t commands = 0;

  // Where replies produced outside the client's own read loop (wake-ups, timeouts) go; the
  // network layer points it at the connection's output buffer.
  std::string* out = nullptr;
  // Set by the network layer: close the connection (CLIENT KILL, timeouts).
  std::function<void()> kill;
  // Set by the network layer: the client was unblocked (its reply is in *out); flush and resume
  // processing pipelined commands.
  std::function<void()> resume;
  // Set by the network layer: a push message (MONITOR lines, pub/sub messages) was appended to
  // *out; flush it.
  std::function<void()> flush;
  // The network layer's own flag (its only copy): true while a wake-up of this client is posted,
  // which will write *out and *shared_out to their ends, so flush() would do nothing (the
  // replication layer skips the call for every record it streams to the replica).
  bool wake_posted = false;

  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

}  // namespace streamd::cmd
