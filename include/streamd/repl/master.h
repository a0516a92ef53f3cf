// ReplicationMaster: the master side of Redis's replication (PSYNC2), and the replication state
// every server has (a replica has an identity and a backlog too, and feeds its own replicas
// what it receives). It is what the command layer sees as cmd::Replication.
//
// The command stream (what replicas receive, what the offsets count):
// - every propagated unit, encoded by cmd::encode_unit exactly as the AOF encodes it (SELECT when
//   the database differs from the stream's last one, MULTI/EXEC around units of several
//   records), with its own SELECT state: the AOF's file and the replication stream select
//   independently, as in Redis;
// - PING every repl-ping-replica-period seconds while replicas are attached;
// - REPLCONF GETACK * when WAIT needs fresh acknowledgements;
// - what a replica receives from its master, when this server is a replica (feed_raw, replica
// side). The offset counts every byte of it; the n-th byte has offset n (identity.h).
//
// When the stream exists: propagated units are fed only while a backlog exists (feeding()).
// The backlog is created when the first replica attaches (with a new replid and no replid2 when
// there was none, since there is no history to continue), and freed repl-backlog-ttl seconds
// after the last replica left (replid changes then, as in Redis: nothing can continue a history
// whose bytes are gone). So a master that never had a replica has offset 0 and pays nothing.
#pragma once

#include <sys/types.h>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/replication.h"
#include "streamd/repl/backlog.h"
#include "streamd/repl/identity.h"
#include "streamd/repl/stream_cursor.h"

namespace streamd::cmd {
class Server;
struct Session;
}  // namespace streamd::cmd

namespace streamd::repl {

class Replica;

// Where a replica link is (INFO's state= names).
enum class ReplicaState {
  kWaitBgsaveStart,  // full sync asked, snapshot not started yet (repl-diskless-sync-delay)
  kWaitBgsaveEnd,    // the forked child is producing the snapshot; the stream is buffered
  kSendBulk,         // (disk-based) the snapshot file is being sent
  kOnline,           // receives the command stream
};
const char* state_name(ReplicaState s);

// A coordinated failover (FAILOVER; repl/failover.cc), as Redis's failover_state.
enum class FailoverState {
  kNone,         // "no-failover"
  kWaitForSync,  // "waiting-for-sync": writes paused, waiting for a replica to acknowledge all
  kInProgress,   // "failover-in-progress": this server replicates from the target and asks it,
                 // with PSYNC ... FAILOVER, to become the master
};
const char* failover_state_name(FailoverState s);

// One replica link: a client connection that ran SYNC or PSYNC.
struct ReplicaLink {
  cmd::Session* session = nullptr;
  ReplicaState state = ReplicaState::kWaitBgsaveStart;
  std::string announced_ip;  // REPLCONF ip-address ("" = the peer address)
  int listening_port = 0;    // REPLCONF listening-port
  bool capa_eof = false;     // REPLCONF capa eof: takes the diskless $EOF: framing
  bool capa_psync2 = false;  // REPLCONF capa psync2
  int64_t ack_offset = 0;    // REPLCONF ACK
  int64_t aof_offset = 0;    // REPLCONF ACK ... FACK: its AOF is fsynced up to here
  int64_t ack_time_ms = 0;   // when it last acknowledged (or attached)
  int64_t psync_offset = 0;  // PSYNC ... +CONTINUE: the first byte it lacks
  bool sent_sync = false;    // old SYNC: the snapshot comes without a +FULLRESYNC line
  // A replica on a TLS connection: the child writes its snapshot into a pipe the connection
  // relays (TlsLinks::relay); it goes online once both the child succeeded and the relay hit
  // the pipe's end, whichever comes last.
  bool relayed = false;
  bool relay_done = false;
  bool child_done = false;
  // Set when a diskless ($EOF:-framed) snapshot starts; cleared by the replica's first REPLCONF
  // ACK. Online with it set, the stream is still held (held_from): a replica finds the payload's
  // end by the mark being the last bytes it read (Redis's does exactly that), so nothing may
  // follow the mark until the replica says it has loaded (Redis: repl_start_cmd_stream_on_ack).
  bool stream_on_ack = false;
  // While the snapshot is produced or sent (states kWaitBgsaveEnd, kSendBulk), and while
  // stream_on_ack holds it: the offset of the first byte of the stream that follows the
  // snapshot, or -1. The backlog retains its bytes from here (readers_moved counts it as a
  // reader), so holding the stream copies nothing: Redis's replicas in wait_bgsave_end likewise
  // reference the shared replication buffer. A copy per replica cost maxmemory up to twice what
  // the stream held (std::string's growth) while the backlog already had every byte of it.
  int64_t held_from = -1;
  // Once it streams (online, past +CONTINUE or the snapshot): its place in the backlog, which
  // its connection writes from (Session::shared_out points at it).
  std::unique_ptr<StreamCursor> cursor;
};

class ReplicationMaster final : public cmd::Replication {
 public:
  explicit ReplicationMaster(cmd::Server& server);
  ~ReplicationMaster() override;
  ReplicationMaster(const ReplicationMaster&) = delete;
  ReplicationMaster& operator=(const ReplicationMaster&) = delete;

  // Attaches to the server (Server::set_replication) and follows CONFIG SET of repl-backlog-size.
  void start();

  // ---- cmd::Replication ----
  bool feeding() const override { return backlog_.has_value(); }
  int64_t feed(const cmd::PropagationBatch& unit) override;
  int64_t offset() const override { return id_.offset; }
  int64_t offset_if_selected(int db) const override {
    return db == selected_db_ || db < 0 ? id_.offset : -1;
  }
  // Raw stream bytes (already encoded) to the backlog and every replica: the units Server::end_unit
  // deferred, and on a replica what its master sends (forwarded to its own replicas).
  void feed_raw(std::string_view bytes) override;
  cmd::ReplicationInfo info() const override;
  uint64_t buffer_bytes() const override;
  std::size_t replica_count() const override { return replicas_.size(); }
  void session_closed(cmd::Session& s) override;
  void cron(int64_t now_ms) override;
  void replconf_listening_port(cmd::Session& s, int64_t port) override;
  void replconf_ip_address(cmd::Session& s, std::string_view ip) override;
  void replconf_capa(cmd::Session& s, std::string_view capa) override;
  void replconf_ack(cmd::Session& s, int64_t offset) override;
  void replconf_fack(cmd::Session& s, int64_t aof_offset) override;
  cmd::SyncStart sync(cmd::Session& s, bool psync, std::string_view replid,
                      int64_t offset) override;
  void sync_replied(cmd::Session& s) override;
  int64_t replicas_acked(int64_t offset) const override;
  int64_t replicas_aof_acked(int64_t offset) const override;
  bool enough_good_replicas() const override;
  void request_acks() override;
  bool replicas_in_sync() const override;
  void log_replicas_at_shutdown() const override;
  bool is_replica() const override { return replica_role_; }
  bool sync_child_active() const override { return child_.has_value(); }
  std::optional<cmd::ReplSaveInfo> rdb_save_info() const override;
  void restore_rdb_info(const cmd::ReplSaveInfo& info) override;
  bool refuses_writes() const override;
  bool refuses_stale() const override;
  std::string replicaof(std::string_view host, int port) override;
  std::string failover(const cmd::FailoverRequest& request) override;
  std::string failover_abort() override;
  bool failing_over() const override { return failover_.state != FailoverState::kNone; }
  std::string psync_failover(std::string_view replid) override;

  // ---- the failover, seen from the replica side (repl/failover.cc) ----
  FailoverState failover_state() const { return failover_.state; }
  // The target answered PSYNC ... FAILOVER: +CONTINUE or +FULLRESYNC (`accepted`: the failover
  // is done, writes resume and meet READONLY) or anything else (it is aborted: this server
  // becomes a master again).
  void failover_psync_answered(bool accepted);

  // ---- for the replica side and tests ----
  ReplIdentity& identity() { return id_; }
  const ReplIdentity& identity() const { return id_; }
  const Backlog* backlog() const { return backlog_ ? &*backlog_ : nullptr; }
  // Creates the backlog if there is none. A fresh history (a new replid, no replid2) unless
  // `keep_history` (a replica keeps its master's ids and offset).
  void create_backlog(bool keep_history = false);
  void free_backlog();
  // REPLICAOF NO ONE: the promotion shift (identity.h). Replicas stay attached and continue.
  void promote() { id_.shift(); }
  // The next unit starts with SELECT (after a full sync, the replica's db is unknown).
  void reset_selected_db() { selected_db_ = -1; }
  const std::vector<ReplicaLink>& replicas() const { return replicas_; }
  // The replica side's hooks: while this server replicates from a master, the backlog is kept
  // (no repl-backlog-ttl: Redis frees it only on masters), min-replicas-to-write does not apply,
  // and `info_hook` fills the replica fields of INFO / the role (cmd::ReplicationInfo).
  void set_replica_role(bool replica);
  bool replica_role() const { return replica_role_; }
  std::function<void(cmd::ReplicationInfo&)> info_hook;
  // The replica side (REPLICAOF, the READONLY/MASTERDOWN checks, its cron); null in tests.
  void set_replica_side(Replica* r) { replica_side_ = r; }
  // Closes every attached replica's connection (their history changed: they reconnect).
  void disconnect_replicas();
  // A replica's cursor moved (its connection wrote): the backlog may free what every replica
  // has been sent and the backlog no longer holds.
  void readers_moved();

  // The network layer's part in full syncs to replicas on TLS connections, whose TLS session
  // the forked child cannot write into (main.cc wires net::FrontEnd in; unset: every replica's
  // socket is written to by the child directly). `relay` takes ownership of `fd`.
  struct TlsLinks {
    std::function<bool(const cmd::Session&)> is_tls;
    std::function<void(const cmd::Session&, int fd, int64_t timeout_ms,
                       std::function<void(bool)> done)>
        relay;
  };
  void set_tls_links(TlsLinks links) { tls_links_ = std::move(links); }

 private:
  // The stream grew (its bytes are in the backlog): wakes `r` to send them, or, while its
  // stream is held behind a snapshot, updates what it holds against its output limit.
  void wake(ReplicaLink& r);
  // `r` streams from `pos` on (a position the backlog holds).
  void start_cursor(ReplicaLink& r, int64_t pos);
  void ping_replicas(int64_t now_ms);
  // ---- failover (failover.cc) ----
  // From cron: the timeout, and whether the replica waited for has caught up.
  void update_failover(int64_t now_ms);
  // Becomes the target's replica; its PSYNC carries FAILOVER (Replica::handshake_settings).
  void start_failover_psync();
  void abort_failover(std::string_view why);
  void clear_failover();
  // The attached replica at `host` (its announced or peer IP, case-insensitive) and `port` (its
  // listening port), as Redis's findReplica.
  ReplicaLink* find_replica(std::string_view host, int64_t port);
  std::string replica_ip(const ReplicaLink& r) const;
  void expire_backlog(int64_t now_ms);
  void drop_silent_replicas(int64_t now_ms);
  // Online replicas that acknowledged within min-replicas-max-lag; -1 when the check is off.
  int64_t good_replicas() const;
  ReplicaLink* find(const cmd::Session& s);
  // The REPLCONF settings of a session that has not run SYNC/PSYNC yet (created on first use).
  ReplicaLink& handshake(cmd::Session& s);
  // Moves `s` from the handshakes into the replicas.
  ReplicaLink& attach(cmd::Session& s, ReplicaState state);

  // ---- full sync (full_sync.cc) ----
  // Forks a child that sends the snapshot to every replica in kWaitBgsaveStart (when the diskless
  // delay allows); the child writes "+FULLRESYNC", the framing and the payload to their sockets
  // itself, while the parent buffers their stream.
  void maybe_start_full_sync(int64_t now_ms);
  bool start_full_sync(int64_t now_ms);
  // The child finished: its replicas go online (their buffered stream follows the snapshot) or,
  // if it failed, are disconnected.
  void check_full_sync();
  void full_sync_done(bool ok);
  // A TLS replica's relay ended (ok: the pipe's end was reached with every byte sent on).
  void relay_finished(uint64_t session_id, bool ok);
  // Online once the snapshot is through; the buffered stream follows at once after a
  // $<length> snapshot, and at the replica's first ACK after an $EOF: one (stream_on_ack).
  void go_online(ReplicaLink& r, int64_t now_ms);
  void start_stream(ReplicaLink& r);

  struct SyncChild {
    pid_t pid = -1;
    int report_fd = -1;
    std::vector<uint64_t> sessions;  // the replicas it serves, by session id
  };

  cmd::Server& server_;
  // Read by every write command (enough_good_replicas): the directives' storage, looked up once
  // (a lookup by name was a fifth of a pipelined XADD's instructions).
  const std::int64_t& min_replicas_to_write_;
  const std::int64_t& min_replicas_max_lag_;
  ReplIdentity id_;
  std::optional<Backlog> backlog_;
  int selected_db_ = -1;  // the stream's database (cmd::encode_unit)
  std::string scratch_;   // one unit's encoding
  std::vector<ReplicaLink> replicas_;
  std::vector<ReplicaLink> handshakes_;  // sessions that sent REPLCONF but no SYNC/PSYNC yet
  std::optional<SyncChild> child_;
  bool waiting_for_child_ = false;  // replicas wait for another child to end (logged once)
  int64_t getack_offset_ = -1;      // the stream offset right after the last GETACK sent
  int64_t no_replicas_since_ms_ = 0;
  int64_t last_ping_ms_ = 0;
  std::vector<uint64_t> config_listeners_;
  bool replica_role_ = false;
  Replica* replica_side_ = nullptr;
  TlsLinks tls_links_;
  struct Failover {
    FailoverState state = FailoverState::kNone;
    int64_t end_ms = 0;  // 0: no timeout
    bool force = false;
    std::string host;  // the target; empty until chosen when FAILOVER named none
    int port = 0;
  };
  Failover failover_;
};

}  // namespace streamd::repl
