// Replica: the replica side of replication. While `replicaof` names a master it keeps one TCP
// link to it, speaks the handshake (ReplicaProtocol, sans I/O), loads a full sync's RDB payload
// into a fresh keyspace and swaps it in only once the whole payload parsed, then applies the
// command stream as the master client (a session flagged `master`: CLIENT LIST flags=M, replies
// discarded) through cmd::Dispatcher, as the AOF loader replays a file. It acknowledges its
// offset (REPLCONF ACK, with FACK <offset fsynced to the AOF> when appendonly is on, as Redis
// 7.2+) every second and on REPLCONF GETACK, and forwards the raw bytes it applied
// to its own replicas (ReplicationMaster::feed_raw), so chained replicas see the master's stream.
//
// Offsets are Redis's: every applied command's RESP bytes (PING and REPLCONF GETACK included)
// advance the identity's offset; an ACK names the offset after the last command applied outside
// a MULTI (GETACK's own bytes are not covered by the ACK it triggers, as in Redis).
//
// With tls-replication yes the link is TLS (the client context main.cc hands over: the
// tls-cert-file/-key-file certificate, the master's verified against tls-ca-cert-file/-dir),
// and REPLCONF listening-port announces tls-port, as Redis does.
//
// Link states (ROLE's names): connect (waiting for the next attempt: 125 ms after a link that
// was up dropped, doubling up to 2 s), connecting
// (TCP connect in flight), handshake (PING .. PSYNC), sync (receiving the payload), connected.
// A payload that does not load (e.g. a key of a type streamd does not hold, with
// rdb-skip-unsupported-types no) keeps the old data and backs off from 1 s to 32 s.
#pragma once

#include <array>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl/context.hpp>
#include <asio/ssl/stream.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "streamd/commands/core/replication.h"
#include "streamd/repl/replica_protocol.h"

namespace streamd::cmd {
class Server;
class Dispatcher;
struct Session;
}  // namespace streamd::cmd

namespace streamd::repl {

class ReplicationMaster;

class Replica {
 public:
  enum class Link { kNone, kConnect, kConnecting, kHandshake, kTransfer, kConnected };

  Replica(asio::io_context& io, cmd::Server& server, cmd::Dispatcher& dispatcher,
          ReplicationMaster& master);
  ~Replica();
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  // Hooks into the master side (INFO, ROLE, REPLICAOF, the write checks) and, when the config
  // names a master (replicaof), becomes its replica.
  void start();

  // REPLICAOF host port: the reply line without '+' ("OK", or "OK Already connected to
  // specified master").
  std::string set_master(std::string_view host, int port);
  // REPLICAOF NO ONE: keeps the data, becomes a master continuing this history (replid2).
  void unset_master();

  bool is_replica() const { return !host_.empty(); }
  Link link() const { return link_; }
  // Writes from clients other than the master link are refused (replica-read-only).
  bool refuses_writes() const;
  // Commands without the stale flag are refused (link down, replica-serve-stale-data no).
  bool refuses_stale() const;
  // The database the master's stream has selected: the master client's while linked, else the
  // one a partial resync would resume in. nullopt: no history to continue (nothing for an RDB
  // to record).
  std::optional<int> stream_db() const;
  // Startup loaded an RDB of this replica's (ReplicationMaster::restore_rdb_info has set the
  // identity): the first PSYNC continues it, the stream resuming in `db`.
  void continue_from_rdb(int db);
  // INFO's replica fields and ROLE's replica form.
  void fill_info(cmd::ReplicationInfo& i) const;
  // Server shutdown: closes the link for good (the event loop ends once nothing is pending).
  void shutdown();
  // From the server's cron: connection attempts, ACKs, the master's timeout.
  void cron(int64_t now_ms);
  // Runs once a full sync's snapshot replaced the data (main.cc: the AOF restarts on it).
  void set_after_full_sync(std::function<void()> hook) { after_full_sync_ = std::move(hook); }
  // The TLS client context for tls-replication yes (null: such a link cannot be made).
  void set_tls_context(asio::ssl::context* ctx) { tls_ctx_ = ctx; }

 private:
  using TlsStream = asio::ssl::stream<asio::ip::tcp::socket>;

  void connect();
  // TCP is up: the TLS handshake first when tls-replication asks for it, then on_connected.
  void on_tcp_connected();
  void on_connected();
  // The link's TCP socket (inside the TLS stream when there is one).
  asio::ip::tcp::socket& socket();
  void read_more();
  void on_read(std::string_view bytes);
  void send(std::string_view bytes);
  void write_more();
  void send_ack();
  // The stream offset up to which what this replica applied is fsynced to its AOF (-1: no AOF).
  int64_t fsynced_offset();
  // Closes the link (an error, a timeout, CLIENT KILL); a replica tries again within a second.
  void drop_link(std::string_view why);
  void process();
  bool apply_full_sync(const std::string& replid, int64_t offset);
  void apply_continue(const std::string& replid);
  void apply_command(const ReplicaProtocol::Event& ev);
  void create_master_session();
  void remove_master_session();
  void disconnect_replicas();
  HandshakeSettings handshake_settings() const;
  // The role's switches: the master side's replica role and the keyspace's ExpiryMode.
  void set_role(bool replica);
  void write_config();

  asio::io_context& io_;
  cmd::Server& server_;
  cmd::Dispatcher& dispatcher_;
  ReplicationMaster& master_;

  std::string host_;  // "" = not a replica
  int port_ = 0;
  Link link_ = Link::kNone;
  // Whether this server has a history a master could continue (PSYNC <replid> <offset+1>): it
  // synced from a master before, or was a master itself.
  bool cached_history_ = false;
  // The master stream's selected database, kept while the link is down: a partial resync
  // continues a stream that does not name its database again (Redis's cached master).
  int stream_db_ = 0;
  int64_t next_attempt_ms_ = 0;
  int failures_ = 0;       // connection attempts since the link was last up (the back-off)
  int load_failures_ = 0;  // full syncs in a row whose payload did not load (a longer back-off)
  int64_t link_started_ms_ = 0;
  int64_t last_io_ms_ = 0;
  int64_t last_ack_ms_ = 0;
  int64_t down_since_ms_ = 0;      // when an established link went down (0 = never up)
  int64_t applied_offset_ = 0;     // the offset ACKs name
  bool pre_psync_master_ = false;  // the link synced with SYNC: no ACKs
  // FACK (WAITAOF on the master): the AOF tickets of applied units not known fsynced yet, each
  // with the stream offset right after it, oldest first; and the offset the last FACK named.
  std::deque<std::pair<uint64_t, int64_t>> unsynced_;
  int64_t fsynced_offset_ = 0;

  uint64_t gen_ = 0;  // bumped on every drop: handlers of an older link do nothing
  std::unique_ptr<asio::ip::tcp::resolver> resolver_;
  std::unique_ptr<asio::ip::tcp::socket> socket_;
  // A TLS link: the stream owns the socket (socket_ is left empty). Shared with the handlers of
  // its operations, which may complete after drop_link let it go.
  std::shared_ptr<TlsStream> tls_;
  asio::ssl::context* tls_ctx_ = nullptr;
  std::function<void()> after_full_sync_;
  std::array<char, 16 * 1024> rbuf_{};
  std::string wqueue_;
  std::string winflight_;
  bool writing_ = false;
  std::optional<ReplicaProtocol> proto_;
  std::string send_scratch_;

  cmd::Session* session_ = nullptr;  // the master client while connected
  uint64_t session_id_ = 0;
  std::string reply_sink_;  // the master client's replies, discarded
  bool kill_posted_ = false;
  // CLIENT PAUSE (either mode, as Redis) holds the master's stream: process() leaves it unread
  // while a pause is in force, and cron() runs it again once the pause has ended.
  bool stream_paused_ = false;
  bool stopped_ = false;
};

}  // namespace streamd::repl
