#include "streamd/repl/replica.h"

#include <spdlog/spdlog.h>

#include <asio/connect.hpp>
#include <asio/post.hpp>
#include <asio/ssl/error.hpp>
#include <asio/write.hpp>
#include <cassert>
#include <charconv>

#include "streamd/commands/core/blocking.h"
#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/config/config.h"
#include "streamd/persist/rdb/rdb.h"
#include "streamd/persist/rdb_service.h"
#include "streamd/repl/master.h"
#include "streamd/resp/command_encoder.h"
#include "streamd/text/ascii.h"
#include "streamd/text/random_hex.h"

namespace streamd::repl {

namespace {

const char* link_name(Replica::Link l) {
  switch (l) {
    case Replica::Link::kNone:
      return "none";
    case Replica::Link::kConnect:
      return "connect";
    case Replica::Link::kConnecting:
      return "connecting";
    case Replica::Link::kHandshake:
      return "handshake";
    case Replica::Link::kTransfer:
      return "sync";
    case Replica::Link::kConnected:
      return "connected";
  }
  return "unknown";
}

}  // namespace

Replica::Replica(asio::io_context& io, cmd::Server& server, cmd::Dispatcher& dispatcher,
                 ReplicationMaster& master)
    : io_(io), server_(server), dispatcher_(dispatcher), master_(master) {}

Replica::~Replica() {
  ++gen_;
  master_.set_replica_side(nullptr);
  master_.info_hook = nullptr;
  remove_master_session();
}

void Replica::start() {
  master_.set_replica_side(this);
  master_.info_hook = [this](cmd::ReplicationInfo& i) { fill_info(i); };
  const auto& where = server_.config().ref<std::vector<std::string>>("replicaof");
  if (where.size() == 2) {
    int port = 0;
    std::from_chars(where[1].data(), where[1].data() + where[1].size(), port);
    host_ = where[0];
    port_ = port;
    // A server started as a replica has no history of its own worth continuing (Redis caches
    // none either): its first PSYNC asks for everything.
    cached_history_ = false;
    set_role(true);
    link_ = Link::kConnect;
    next_attempt_ms_ = 0;
  }
}

std::string Replica::set_master(std::string_view host, int port) {
  if (is_replica() && text::iequals(host, host_) && port == port_) {
    spdlog::info(
        "REPLICAOF would result into synchronization with the master we are already connected "
        "with. No operation performed.");
    return "OK Already connected to specified master";
  }
  bool was_master = !is_replica();
  if (link_ != Link::kNone && link_ != Link::kConnect) drop_link("a new master was set");
  // Clients blocked here would be woken by the new master's data and run against it.
  server_.blocking().disconnect_all(cmd::errors::kUnblockedStateChanged);
  host_ = std::string(host);
  port_ = port;
  if (was_master) {
    // This server's own history is what a new master (its promoted replica) may continue.
    cached_history_ = true;
    if (!master_.backlog()) master_.create_backlog(true);
  }
  set_role(true);
  link_ = Link::kConnect;
  next_attempt_ms_ = 0;
  down_since_ms_ = 0;
  write_config();
  spdlog::info("Connecting to MASTER {}:{}", host_, port_);
  if (!stopped_) connect();
  return "OK";
}

void Replica::unset_master() {
  if (!is_replica()) return;
  drop_link("");
  host_.clear();
  port_ = 0;
  link_ = Link::kNone;
  down_since_ms_ = 0;
  set_role(false);
  // The master's history, shared up to here, becomes replid2: replicas of the old master (and
  // our own) can continue with us. Ours reconnect to learn the new id.
  master_.promote();
  master_.reset_selected_db();
  disconnect_replicas();
  write_config();
  spdlog::info("MASTER MODE enabled");
}

void Replica::set_role(bool replica) {
  master_.set_replica_role(replica);
  // A replica hides expired keys until its master's DEL arrives; a master deletes them.
  server_.keyspace().set_expiry_mode(replica ? engine::ExpiryMode::kHide
                                             : engine::ExpiryMode::kDelete);
}

std::optional<int> Replica::stream_db() const {
  if (!is_replica() || !cached_history_) return std::nullopt;
  return session_ ? session_->db : stream_db_;
}

void Replica::continue_from_rdb(int db) {
  if (!is_replica()) return;
  cached_history_ = true;
  stream_db_ = db;
}

void Replica::write_config() {
  server_.config().force_set("replicaof",
                             host_.empty() ? std::string() : host_ + " " + std::to_string(port_));
}

bool Replica::refuses_writes() const {
  return is_replica() && server_.config().ref<bool>("replica-read-only");
}

bool Replica::refuses_stale() const {
  return is_replica() && link_ != Link::kConnected &&
         !server_.config().ref<bool>("replica-serve-stale-data");
}

void Replica::fill_info(cmd::ReplicationInfo& i) const {
  if (!is_replica()) return;
  int64_t now = server_.clock().now_ms();
  i.role = "slave";
  i.master_host = host_;
  i.master_port = port_;
  i.link_state = link_name(link_);
  i.link_offset = link_ == Link::kConnected ? applied_offset_ : -1;
  auto& f = i.replica_fields;
  auto add = [&](std::string k, std::string v) { f.emplace_back(std::move(k), std::move(v)); };
  bool up = link_ == Link::kConnected;
  bool transfer = link_ == Link::kTransfer;
  add("master_host", host_);
  add("master_port", std::to_string(port_));
  add("master_link_status", up ? "up" : "down");
  add("master_last_io_seconds_ago", up ? std::to_string((now - last_io_ms_) / 1000) : "-1");
  add("master_sync_in_progress", transfer ? "1" : "0");
  // Before any history exists Redis shows 1 (no master, no cached master).
  int64_t off = up || cached_history_ ? applied_offset_ : 1;
  int64_t read_off = off + (up && proto_ ? static_cast<int64_t>(proto_->unconsumed()) : 0);
  add("slave_read_repl_offset", std::to_string(read_off));
  add("slave_repl_offset", std::to_string(off));
  if (transfer && proto_) {
    // With the $EOF: framing the size is unknown; Redis then counts it as 0.
    int64_t total = std::max<int64_t>(proto_->payload_size(), 0);
    int64_t read = proto_->payload_read();
    double perc = total > 0 ? static_cast<double>(read) / static_cast<double>(total) * 100 : 0;
    add("master_sync_total_bytes", std::to_string(total));
    add("master_sync_read_bytes", std::to_string(read));
    add("master_sync_left_bytes", std::to_string(total - read));
    add("master_sync_perc", fmt::format("{:.2f}", perc));
    add("master_sync_last_io_seconds_ago", std::to_string((now - last_io_ms_) / 1000));
  }
  if (!up) {
    add("master_link_down_since_seconds",
        down_since_ms_ ? std::to_string((now - down_since_ms_) / 1000) : "-1");
  }
  const config::Config& cfg = server_.config();
  add("slave_priority", std::to_string(cfg.ref<std::int64_t>("replica-priority")));
  add("slave_read_only", cfg.ref<bool>("replica-read-only") ? "1" : "0");
  add("replica_announced", cfg.ref<bool>("replica-announced") ? "1" : "0");
}

void Replica::shutdown() {
  stopped_ = true;
  drop_link("");
}

void Replica::cron(int64_t now_ms) {
  if (!is_replica() || stopped_) return;
  if (link_ == Link::kConnect && now_ms >= next_attempt_ms_) {
    connect();
    return;
  }
  int64_t timeout_ms = server_.config().ref<std::int64_t>("repl-timeout") * 1000;
  if (link_ == Link::kConnecting || link_ == Link::kHandshake || link_ == Link::kTransfer) {
    if (now_ms - last_io_ms_ > timeout_ms) {
      drop_link(link_ == Link::kTransfer ? "Timeout receiving bulk data from MASTER"
                                         : "Timeout connecting to the MASTER");
    }
    return;
  }
  if (link_ != Link::kConnected) return;
  if (stream_paused_ && !server_.client_pause().active()) {
    stream_paused_ = false;
    process();  // what arrived during the pause
    if (link_ != Link::kConnected) return;
  }
  if (now_ms - last_io_ms_ > timeout_ms) {
    drop_link("MASTER timeout: no data nor PING received");
    return;
  }
  if (now_ms - last_ack_ms_ >= 1000) send_ack();
}

// ---- the link ---------------------------------------------------------------------------------

HandshakeSettings Replica::handshake_settings() const {
  const config::Config& cfg = server_.config();
  HandshakeSettings h;
  h.masteruser = cfg.ref<std::string>("masteruser");
  h.masterauth = cfg.ref<std::string>("masterauth");
  int64_t announce_port = cfg.ref<std::int64_t>("replica-announce-port");
  // Over TLS the master should reach us (Sentinel, ROLE) on the TLS port, as Redis announces.
  int64_t tls_port = cfg.ref<std::int64_t>("tls-port");
  int64_t port =
      cfg.ref<bool>("tls-replication") && tls_port != 0 ? tls_port : cfg.ref<std::int64_t>("port");
  h.listening_port = static_cast<int>(announce_port ? announce_port : port);
  h.announce_ip = cfg.ref<std::string>("replica-announce-ip");
  if (cached_history_) {
    const ReplIdentity& id = master_.identity();
    h.psync_replid = id.replid;
    h.psync_offset = id.offset + 1;
  }
  h.failover = master_.failover_state() == FailoverState::kInProgress;
  return h;
}

void Replica::connect() {
  uint64_t gen = ++gen_;
  link_ = Link::kConnecting;
  int64_t now = server_.clock().now_ms();
  link_started_ms_ = now;
  last_io_ms_ = now;
  resolver_ = std::make_unique<asio::ip::tcp::resolver>(io_);
  socket_ = std::make_unique<asio::ip::tcp::socket>(io_);
  spdlog::info("MASTER <-> REPLICA sync started");
  resolver_->async_resolve(
      host_, std::to_string(port_),
      [this, gen](const asio::error_code& ec, asio::ip::tcp::resolver::results_type results) {
        if (gen != gen_) return;
        if (ec) return drop_link("Unable to resolve the MASTER's address: " + ec.message());
        auto done = [this, gen](const asio::error_code& ec2) {
          if (gen != gen_) return;
          if (ec2) return drop_link("Error condition on socket for SYNC: " + ec2.message());
          on_tcp_connected();
        };
        // bind-source-addr: the link leaves from that address (the master sees it as ours).
        const std::string& source = server_.config().ref<std::string>("bind-source-addr");
        if (source.empty()) {
          asio::async_connect(
              *socket_, results,
              [done](const asio::error_code& ec2, const asio::ip::tcp::endpoint&) { done(ec2); });
          return;
        }
        asio::error_code bind_ec;
        asio::ip::address from = asio::ip::make_address(source, bind_ec);
        asio::ip::tcp::endpoint to;
        bool found = false;
        for (const auto& r : results) {
          if (!bind_ec && r.endpoint().address().is_v6() == from.is_v6()) {
            to = r.endpoint();
            found = true;
            break;
          }
        }
        if (!bind_ec && !found) bind_ec = asio::error::address_family_not_supported;
        if (!bind_ec) socket_->open(to.protocol(), bind_ec);
        if (!bind_ec) socket_->bind(asio::ip::tcp::endpoint(from, 0), bind_ec);
        if (bind_ec) {
          return drop_link("Unable to bind to bind-source-addr " + source + ": " +
                           bind_ec.message());
        }
        socket_->async_connect(to, done);
      });
}

asio::ip::tcp::socket& Replica::socket() {
  return tls_ ? tls_->next_layer() : *socket_;
}

void Replica::on_tcp_connected() {
  if (!server_.config().ref<bool>("tls-replication")) return on_connected();
  if (!tls_ctx_) {
    return drop_link(
        "tls-replication is yes but TLS is not configured (start with tls-port or "
        "tls-replication yes and the tls-* files)");
  }
  tls_ = std::make_shared<TlsStream>(std::move(*socket_), *tls_ctx_);
  uint64_t gen = gen_;
  tls_->async_handshake(
      asio::ssl::stream_base::client, [this, gen, keep = tls_](const asio::error_code& ec) {
        if (gen != gen_) return;
        if (ec) {
          return drop_link("Failed to connect to MASTER over TLS: " + ec.message());
        }
        on_connected();
      });
}

void Replica::on_connected() {
  spdlog::info("Non blocking connect for SYNC fired the event.");
  asio::error_code ec;
  socket().set_option(asio::ip::tcp::no_delay(true), ec);
  link_ = Link::kHandshake;
  last_io_ms_ = server_.clock().now_ms();
  proto_.emplace(handshake_settings());
  if (!cached_history_) spdlog::info("Partial resynchronization not possible (no cached master)");
  send_scratch_.clear();
  proto_->start(send_scratch_);
  send(send_scratch_);
  read_more();
}

void Replica::read_more() {
  uint64_t gen = gen_;
  auto on_done = [this, gen, keep = tls_](const asio::error_code& ec, std::size_t n) {
    if (gen != gen_) return;
    if (ec) {
      bool eof = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
      return drop_link(eof ? "Connection with master lost."
                           : "Error reading from MASTER: " + ec.message());
    }
    on_read(std::string_view(rbuf_.data(), n));
    if (gen == gen_) read_more();
  };
  if (tls_) {
    tls_->async_read_some(asio::buffer(rbuf_), std::move(on_done));
  } else {
    socket_->async_read_some(asio::buffer(rbuf_), std::move(on_done));
  }
}

void Replica::on_read(std::string_view bytes) {
  last_io_ms_ = server_.clock().now_ms();
  if (session_) session_->net_in += bytes.size();
  proto_->receive(bytes);
  process();
  // Clients blocked on keys the stream changed (XREAD BLOCK) are served now.
  dispatcher_.after_batch();
}

void Replica::send(std::string_view bytes) {
  if (bytes.empty() || (!socket_ && !tls_)) return;
  wqueue_.append(bytes);
  if (!writing_) write_more();
}

void Replica::write_more() {
  if (wqueue_.empty()) return;
  winflight_.swap(wqueue_);
  wqueue_.clear();
  writing_ = true;
  uint64_t gen = gen_;
  auto on_done = [this, gen, keep = tls_](const asio::error_code& ec, std::size_t) {
    if (gen != gen_) return;
    writing_ = false;
    winflight_.clear();
    if (ec) return drop_link("Error writing to MASTER: " + ec.message());
    write_more();
  };
  if (tls_) {
    asio::async_write(*tls_, asio::buffer(winflight_), std::move(on_done));
  } else {
    asio::async_write(*socket_, asio::buffer(winflight_), std::move(on_done));
  }
}

void Replica::send_ack() {
  last_ack_ms_ = server_.clock().now_ms();
  if (pre_psync_master_) return;
  send_scratch_.clear();
  int64_t fsynced = fsynced_offset();
  if (fsynced < 0) {
    resp::append_command(send_scratch_, {"REPLCONF", "ACK", std::to_string(applied_offset_)});
  } else {
    resp::append_command(send_scratch_, {"REPLCONF", "ACK", std::to_string(applied_offset_), "FACK",
                                         std::to_string(fsynced)});
  }
  send(send_scratch_);
}

int64_t Replica::fsynced_offset() {
  cmd::Persistence* p = server_.persistence();
  if (!p || !p->aof_enabled()) {
    unsynced_.clear();
    return -1;
  }
  uint64_t synced = p->synced_ticket();
  while (!unsynced_.empty() && unsynced_.front().first <= synced) {
    fsynced_offset_ = unsynced_.front().second;
    unsynced_.pop_front();
  }
  // Everything written is fsynced: what came since (PINGs, GETACKs) wrote nothing.
  if (unsynced_.empty()) fsynced_offset_ = applied_offset_;
  return fsynced_offset_;
}

void Replica::drop_link(std::string_view why) {
  if (!why.empty()) spdlog::warn("{}", why);
  bool was_up = link_ == Link::kConnected;
  ++gen_;
  if (socket_) {
    asio::error_code ec;
    socket_->close(ec);
  }
  if (tls_) {
    // Its pending operations end with an error; their handlers hold the stream until then.
    asio::error_code ec;
    tls_->next_layer().close(ec);
    tls_.reset();
  }
  if (resolver_) resolver_->cancel();
  wqueue_.clear();
  winflight_.clear();
  writing_ = false;
  proto_.reset();
  remove_master_session();
  if (is_replica()) {
    link_ = Link::kConnect;
    int64_t now = server_.clock().now_ms();
    // Back-off: 125 ms after a link that was up dropped (a partial resync is likely), doubling
    // up to 2 s while the master stays unreachable.
    if (was_up) {
      down_since_ms_ = now;
      failures_ = 0;
    }
    next_attempt_ms_ = now + std::min<int64_t>(int64_t{125} << std::min(failures_, 4), 2000);
    ++failures_;
  }
  pre_psync_master_ = false;
}

namespace {

// The master's commands see the keys it sees (ExpiryMode::kKeep: none has expired until it sends
// the DEL); clients see expired keys hidden. process() holds kKeep for a whole run of commands
// and puts the mode back when the run ends: setting it reaches every database, and around each
// command that was 170 instructions of a replica's 5,500 per applied XADD. No client command
// runs inside process() (the clients its commands wake are served at the end of the turn).
class KeepExpiredKeys {
 public:
  explicit KeepExpiredKeys(engine::Keyspace& ks) : ks_(ks) {}
  ~KeepExpiredKeys() { release(); }
  KeepExpiredKeys(const KeepExpiredKeys&) = delete;
  KeepExpiredKeys& operator=(const KeepExpiredKeys&) = delete;
  void engage() {
    if (engaged_) return;
    before_ = ks_.expiry_mode();
    ks_.set_expiry_mode(engine::ExpiryMode::kKeep);
    engaged_ = true;
  }
  void release() {
    if (!engaged_) return;
    ks_.set_expiry_mode(before_);
    engaged_ = false;
  }

 private:
  engine::Keyspace& ks_;
  engine::ExpiryMode before_ = engine::ExpiryMode::kHide;
  bool engaged_ = false;
};

}  // namespace

void Replica::process() {
  KeepExpiredKeys keep(server_.keyspace());
  for (;;) {
    if (proto_->state() == ReplicaProtocol::State::kStream && server_.client_pause().active()) {
      stream_paused_ = true;
      return;
    }
    send_scratch_.clear();
    ReplicaProtocol::Event ev = proto_->next(send_scratch_);
    send(send_scratch_);
    if (proto_->state() == ReplicaProtocol::State::kBulkHeader ||
        proto_->state() == ReplicaProtocol::State::kPayloadEof ||
        proto_->state() == ReplicaProtocol::State::kPayloadLen) {
      if (link_ != Link::kTransfer) {
        spdlog::info("MASTER <-> REPLICA sync: receiving streamed RDB from master");
      }
      link_ = Link::kTransfer;
    }
    if (ev.kind != ReplicaProtocol::Event::Kind::kCommand) keep.release();
    switch (ev.kind) {
      case ReplicaProtocol::Event::Kind::kNone:
        return;
      case ReplicaProtocol::Event::Kind::kFailed:
        return drop_link(proto_->error());
      case ReplicaProtocol::Event::Kind::kFullSync:
        if (!apply_full_sync(ev.replid, ev.offset)) return;
        master_.failover_psync_answered(true);
        break;
      case ReplicaProtocol::Event::Kind::kContinue:
        apply_continue(ev.replid);
        master_.failover_psync_answered(true);
        break;
      case ReplicaProtocol::Event::Kind::kFailoverRefused:
        // Ends the failover: this server becomes a master again (the link is dropped).
        spdlog::warn("{}", proto_->error());
        return master_.failover_psync_answered(false);
      case ReplicaProtocol::Event::Kind::kSyncFallback:
        spdlog::info("Master does not support PSYNC or is in error state (reply: {})", ev.replid);
        spdlog::info("Retrying with SYNC...");
        break;
      case ReplicaProtocol::Event::Kind::kCommand: {
        uint64_t gen = gen_;
        keep.engage();
        apply_command(ev);
        if (gen != gen_) return;  // the command dropped the link (it cannot, but be safe)
        break;
      }
    }
  }
}

bool Replica::apply_full_sync(const std::string& replid, int64_t offset) {
  spdlog::info("Full resync from master: {}:{}", replid, offset);
  engine::Keyspace& ks = server_.keyspace();
  engine::Keyspace fresh(ks.databases(), server_.clock());
  // As a file loads (rdb-skip-unsupported-types: each skipped key logged), except that the
  // master sends the DEL when a key expires; until then the replica keeps it.
  persist::rdb::LoadOptions opts = persist::rdb_load_options(server_);
  opts.keep_expired = true;
  persist::rdb::LoadStats stats;
  std::string error;
  std::string payload = std::move(proto_->payload());
  proto_->payload().clear();
  spdlog::info("MASTER <-> REPLICA sync: Loading DB in memory ({} bytes)", payload.size());
  if (!persist::rdb::load(payload, fresh, opts, &stats, &error)) {
    // The old data set stays: it is replaced only by a whole, valid snapshot. The master would
    // most likely send the same snapshot again (a key of a type streamd does not hold): retry,
    // but backing off from 1 s up to 32 s, as a full sync costs the master a fork.
    spdlog::error("Failed trying to load the MASTER synchronization DB from socket: {}", error);
    drop_link("");
    int shift = std::min(load_failures_, 5);
    ++load_failures_;
    next_attempt_ms_ = server_.clock().now_ms() + (int64_t{1000} << shift);
    spdlog::warn("Next attempt to sync with the MASTER in {} s", int64_t{1} << shift);
    return false;
  }
  payload.clear();
  payload.shrink_to_fit();
  spdlog::info("MASTER <-> REPLICA sync: Flushing old data");
  ks.flush_all();
  for (int i = 0; i < ks.databases(); ++i) ks.db(i).swap_contents(fresh.db(i));
  if (after_full_sync_) after_full_sync_();
  ReplIdentity& id = master_.identity();
  // After SYNC (a master without PSYNC) there is no id to continue: a history of our own, from
  // 0. Such a master takes no REPLCONF ACK (Redis sends it none either).
  pre_psync_master_ = replid.empty();
  id.replid = pre_psync_master_ ? text::random_hex(40) : replid;
  id.offset = pre_psync_master_ ? 0 : offset;
  offset = id.offset;
  id.clear_replid2();
  // Our own replicas followed another history: they must sync again, from this one.
  disconnect_replicas();
  master_.free_backlog();
  master_.create_backlog(true);
  applied_offset_ = offset;
  unsynced_.clear();
  fsynced_offset_ = offset;
  cached_history_ = true;
  failures_ = 0;
  load_failures_ = 0;
  stream_db_ = 0;  // the stream after a full sync names its database first
  create_master_session();
  link_ = Link::kConnected;
  spdlog::info("MASTER <-> REPLICA sync: Finished with success ({} keys)", stats.keys);
  send_ack();
  return true;
}

void Replica::apply_continue(const std::string& replid) {
  ReplIdentity& id = master_.identity();
  spdlog::info("Successful partial resynchronization with master.");
  if (!replid.empty() && replid != id.replid) {
    // The master changed history (a failover): ours continues as replid2 up to here.
    spdlog::info("Master replication ID changed to {}", replid);
    id.replid2 = id.replid;
    id.second_offset = id.offset + 1;
    id.replid = replid;
    disconnect_replicas();
  }
  if (!master_.backlog()) master_.create_backlog(true);
  applied_offset_ = id.offset;
  failures_ = 0;
  create_master_session();
  link_ = Link::kConnected;
  spdlog::info("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
  send_ack();
}

void Replica::apply_command(const ReplicaProtocol::Event& ev) {
  const auto& a = ev.args;
  if (!a.empty() && a.size() >= 2 && text::iequals(a[0], "replconf") &&
      text::iequals(a[1], "getack")) {
    // The ACK names the offset before this GETACK, as Redis's does.
    send_ack();
  } else if (!a.empty()) {
    reply_sink_.clear();
    // The master's commands see the keys it sees: none has expired until it says so (DEL).
    // (process() holds ExpiryMode::kKeep around its whole run of commands.)
    assert(server_.keyspace().expiry_mode() == engine::ExpiryMode::kKeep);
    dispatcher_.execute(*session_, a, reply_sink_);
    reply_sink_.clear();
    session_->last_interaction_ms = server_.clock().now_ms();
  }
  // To our own replicas and the backlog (the identity's offset moves with it).
  master_.feed_raw(ev.raw);
  if (session_->in_multi) return;
  applied_offset_ = master_.identity().offset;
  cmd::Persistence* p = server_.persistence();
  uint64_t ticket = session_->propagation_ticket;
  if (p && p->aof_enabled() && ticket != 0 &&
      (unsynced_.empty() || unsynced_.back().first != ticket)) {
    unsynced_.emplace_back(ticket, applied_offset_);
  }
}

void Replica::create_master_session() {
  auto s = std::make_unique<cmd::Session>();
  s->id = server_.next_client_id();
  asio::error_code ec;
  auto remote = socket().remote_endpoint(ec);
  auto local = socket().local_endpoint(ec);
  auto fmt_ep = [](const asio::ip::tcp::endpoint& e) {
    return e.address().is_v6() ? "[" + e.address().to_string() + "]:" + std::to_string(e.port())
                               : e.address().to_string() + ":" + std::to_string(e.port());
  };
  s->addr = fmt_ep(remote);
  s->laddr = fmt_ep(local);
  s->fd = static_cast<int>(socket().native_handle());
  s->master = true;
  s->db = stream_db_;
  s->created_ms = server_.clock().now_ms();
  s->last_interaction_ms = s->created_ms;
  s->out = &reply_sink_;
  // CLIENT KILL TYPE master: the link closes (after the command that asked, which may be
  // walking the sessions), and reconnects.
  uint64_t gen = gen_;
  s->kill = [this, gen] {
    if (kill_posted_) return;
    kill_posted_ = true;
    asio::post(io_, [this, gen] {
      kill_posted_ = false;
      if (gen == gen_) drop_link("Connection with master lost (killed).");
    });
  };
  session_id_ = s->id;
  session_ = &server_.add_session(std::move(s));
}

void Replica::remove_master_session() {
  if (!session_) return;
  stream_db_ = session_->db;
  session_ = nullptr;
  server_.remove_session(session_id_);
  session_id_ = 0;
}

void Replica::disconnect_replicas() {
  master_.disconnect_replicas();
}

}  // namespace streamd::repl
