// What the command layer sees of replication (implemented in repl/, which uses commands/, never
// the reverse; like Persistence in persistence.h). Commands hand it the propagated units (Server
// does, in end_unit), ask it for ROLE and INFO replication, and forward the replication protocol
// (REPLCONF, PSYNC, SYNC, WAIT) to it. When no Replication is attached (unit tests) the server
// answers as a master that never had a replica.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/propagation.h"

namespace streamd::cmd {

struct Session;

// Clients blocked in WAIT wait on this (db, key), which no real key can be (databases are
// >= 0); REPLCONF ACK signals it, so the blocking registry re-runs their WAIT.
constexpr int kWaitAckDb = -1;
constexpr std::string_view kWaitAckKey = "replconf-ack";

// One attached replica as INFO (slaveN:) and ROLE show it.
struct ReplicaLinkInfo {
  std::string ip;
  int port = 0;            // its REPLCONF listening-port (0 until it says)
  std::string state;       // wait_bgsave, send_bulk, online
  bool online = false;     // ROLE lists only these
  int64_t ack_offset = 0;  // the offset it last acknowledged (REPLCONF ACK)
  int64_t lag_s = 0;       // seconds since its last ACK
};

// INFO replication, in Redis 7.0's field order (see info_command.cc).
struct ReplicationInfo {
  // "master" or "slave".
  std::string role = "master";
  // The replica side's fields, rendered right after role in this order (master_host, ...,
  // replica_announced): the replica side fills them; empty on a master.
  std::vector<std::pair<std::string, std::string>> replica_fields;
  // ROLE's replica form (role "slave"): the master's address, the link's state (connect,
  // connecting, handshake, sync, connected) and the offset applied (-1 while not connected).
  std::string master_host;
  int master_port = 0;
  std::string link_state;
  int64_t link_offset = -1;
  std::vector<ReplicaLinkInfo> replicas;
  // min_slaves_good_slaves, shown when min-replicas-to-write and min-replicas-max-lag are set.
  int64_t good_replicas = -1;
  std::string failover_state = "no-failover";
  std::string replid;
  std::string replid2 = std::string(40, '0');
  int64_t offset = 0;
  int64_t second_offset = -1;
  bool backlog_active = false;
  int64_t backlog_size = 1048576;
  int64_t backlog_first_byte_offset = 0;
  int64_t backlog_histlen = 0;
  // Memory holding the stream: the backlog's blocks (shared with the replicas reading them, as
  // Redis 7's replication buffer) and what replicas have buffered during a snapshot.
  uint64_t buffer_bytes = 0;
};

// The replication fields a saved RDB carries (AUX repl-stream-db, repl-id, repl-offset, as
// Redis writes them), so that a server restarted from the file continues its history with a
// partial resync: the database its stream has selected, the history's id and its offset.
struct ReplSaveInfo {
  int stream_db = 0;
  std::string replid;
  int64_t offset = 0;
};

// FAILOVER [TO host port [FORCE]] [TIMEOUT ms] (repl/failover.cc).
struct FailoverRequest {
  bool has_target = false;  // TO host port
  std::string host;
  int64_t port = 0;
  int64_t timeout_ms = 0;  // 0 = wait for a replica to catch up until FAILOVER ABORT
  bool force = false;      // fail over to the target at the timeout even if it lags
};

// What SYNC / PSYNC start (commands/repl/ renders it).
struct SyncStart {
  enum class Kind {
    kFull,      // no reply now: "+FULLRESYNC <replid> <offset>" (PSYNC) and the snapshot follow
                // when the snapshot starts, as Redis sends them
    kContinue,  // reply "+CONTINUE <replid>" ("+CONTINUE" to a replica without capa psync2),
                // then call sync_replied(): the backlog from the replica's offset follows
    kRefused,   // reply `error`
  };
  Kind kind = Kind::kFull;
  std::string replid;  // kContinue: the id to name ("" for a replica without capa psync2)
  std::string error;   // kRefused: the full error line without '-'
};

class Replication {
 public:
  virtual ~Replication() = default;

  // Whether propagated units are wanted: a backlog exists (it is created when the first replica
  // attaches and outlives the replicas by repl-backlog-ttl). Without one, writes do not advance
  // the replication offset, as in Redis.
  virtual bool feeding() const = 0;
  // Appends one unit (never empty) to the stream: backlog and every attached replica. Returns
  // offset() after it.
  virtual int64_t feed(const PropagationBatch& unit) = 0;
  // The replication offset after everything fed so far (master_repl_offset).
  virtual int64_t offset() const = 0;
  // offset(), when a unit of one record in `db` would be fed as it is (no SELECT before it: `db`
  // is the stream's database); otherwise -1. Server::end_unit defers such units over a batch and
  // feeds them together with feed_raw.
  virtual int64_t offset_if_selected(int db) const {
    (void)db;
    return -1;
  }
  // Appends bytes already in the stream's form (units offset_if_selected allowed, back to back).
  virtual void feed_raw(std::string_view bytes) = 0;

  virtual ReplicationInfo info() const = 0;
  // info().buffer_bytes without building the rest (maxmemory asks before each command, INFO
  // memory for its own fields).
  virtual uint64_t buffer_bytes() const { return 0; }
  // info().replicas.size(): attached replica links, in any state.
  virtual std::size_t replica_count() const { return 0; }

  // ---- the protocol a replica speaks (commands/repl/) ----
  // REPLCONF listening-port / ip-address / capa: remembered for the session's SYNC or PSYNC.
  virtual void replconf_listening_port(Session& s, int64_t port) = 0;
  virtual void replconf_ip_address(Session& s, std::string_view ip) = 0;
  virtual void replconf_capa(Session& s, std::string_view capa) = 0;
  // REPLCONF ACK <offset> from an attached replica (from any other client: ignored).
  virtual void replconf_ack(Session& s, int64_t offset) = 0;
  // ... FACK <aof offset> after it (Redis 7.2+): how far the replica's AOF is fsynced, in the
  // stream's offsets (WAITAOF counts it).
  virtual void replconf_fack(Session& s, int64_t aof_offset) {
    (void)s;
    (void)aof_offset;
  }
  // PSYNC <replid> <offset> (`psync`), or SYNC: attaches `s` as a replica unless refused.
  virtual SyncStart sync(Session& s, bool psync, std::string_view replid, int64_t offset) = 0;
  // After the +CONTINUE line: sends the backlog from the replica's offset, then the stream.
  virtual void sync_replied(Session& s) = 0;
  // min-replicas-to-write: false while fewer good replicas (online, acknowledged within
  // min-replicas-max-lag seconds) are attached than it asks; write commands then get NOREPLICAS.
  virtual bool enough_good_replicas() const = 0;
  // WAIT: how many online replicas acknowledged at least `offset`.
  virtual int64_t replicas_acked(int64_t offset) const = 0;
  // WAITAOF: how many online replicas reported (FACK) an fsynced AOF up to at least `offset`.
  virtual int64_t replicas_aof_acked(int64_t offset) const {
    (void)offset;
    return 0;
  }
  // WAIT is about to block: ask the replicas for their offsets (REPLCONF GETACK *), once per
  // stream position.
  virtual void request_acks() = 0;
  // Shutdown (shutdown.h): whether every attached replica, in any state, acknowledged the whole
  // stream (true with none), and the log lines Redis writes about them as it exits.
  virtual bool replicas_in_sync() const { return true; }
  virtual void log_replicas_at_shutdown() const {}

  // ---- the replica side (repl/replica.h); a server that is no replica answers the defaults ----
  virtual bool is_replica() const { return false; }
  // replica-read-only: writes from clients other than the master link get READONLY.
  virtual bool refuses_writes() const { return false; }
  // The link is down and replica-serve-stale-data is no: commands without the stale flag get
  // MASTERDOWN.
  virtual bool refuses_stale() const { return false; }
  // REPLICAOF host port, or NO ONE (`host` empty): the status line to reply ("OK", "OK Already
  // connected to specified master").
  virtual std::string replicaof(std::string_view host, int port) {
    (void)host;
    (void)port;
    return "OK";
  }

  // ---- FAILOVER (a master hands its role to a replica; repl/failover.cc) ----
  // Starts a failover: the error line (without '-') when refused, "" when started.
  virtual std::string failover(const FailoverRequest& request) {
    (void)request;
    return std::string(errors::kFailoverNoReplicas);
  }
  // FAILOVER ABORT: the error line, or "" when a failover was aborted.
  virtual std::string failover_abort() { return std::string(errors::kNoFailoverInProgress); }
  // Whether a failover is under way (REPLICAOF and SYNC are refused meanwhile).
  virtual bool failing_over() const { return false; }
  // PSYNC <replid> <offset> FAILOVER from this replica's master: when `replid` is ours, this
  // server becomes a master first (the PSYNC then continues as usual). The error line, or "".
  virtual std::string psync_failover(std::string_view replid) {
    (void)replid;
    return std::string(errors::kPsyncFailoverToMaster);
  }

  // Whether a forked child is writing a full sync's snapshot. Redis counts it as an RDB child:
  // while it runs, SAVE and BGSAVE answer "Background save already in progress", INFO shows
  // rdb_bgsave_in_progress:1, save rules and AOF rewrites wait (one fork at a time).
  virtual bool sync_child_active() const { return false; }

  // What a SAVE / BGSAVE / SHUTDOWN file records of replication, as Redis decides it: a master
  // with a backlog, or a replica that has a history (linked or not); nothing otherwise.
  virtual std::optional<ReplSaveInfo> rdb_save_info() const { return std::nullopt; }
  // Startup loaded an RDB carrying those fields: a replica continues that history (its first
  // PSYNC asks for offset + 1, its master's stream resumes in `stream_db`); a master keeps it
  // as replid2 up to offset + 1 with a backlog from there, so its replicas can continue.
  virtual void restore_rdb_info(const ReplSaveInfo& info) { (void)info; }

  // A session is going away (its connection closed): forget it if it was a replica.
  virtual void session_closed(Session& s) = 0;
  // Periodic work (replica pings, timeouts, forked snapshots, backlog expiry), from Server::cron.
  virtual void cron(int64_t now_ms) = 0;
};

}  // namespace streamd::cmd
