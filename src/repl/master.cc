#include "streamd/repl/master.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/config/config.h"
#include "streamd/repl/replica.h"
#include "streamd/resp/command_encoder.h"
#include "streamd/text/ascii.h"

namespace streamd::repl {

namespace {}  // namespace

const char* state_name(ReplicaState s) {
  switch (s) {
    case ReplicaState::kWaitBgsaveStart:
    case ReplicaState::kWaitBgsaveEnd:
      return "wait_bgsave";
    case ReplicaState::kSendBulk:
      return "send_bulk";
    case ReplicaState::kOnline:
      return "online";
  }
  return "";
}

ReplicationMaster::ReplicationMaster(cmd::Server& server)
    : server_(server),
      min_replicas_to_write_(server.config().ref<std::int64_t>("min-replicas-to-write")),
      min_replicas_max_lag_(server.config().ref<std::int64_t>("min-replicas-max-lag")) {}

ReplicationMaster::~ReplicationMaster() {
  // The sessions outlive this (a closed one leaves replicas_ first: session_closed); their
  // connections must not read a cursor that is gone.
  for (ReplicaLink& r : replicas_) r.session->shared_out = nullptr;
  for (uint64_t id : config_listeners_) server_.config().remove(id);
  if (server_.replication() == this) server_.set_replication(nullptr);
}

void ReplicationMaster::start() {
  server_.set_replication(this);
  // The ping period counts from the start: a replica that reconnects before the first cron (a
  // restarted master's) gets no PING at once, as with Redis's scheduled pings.
  last_ping_ms_ = server_.clock().now_ms();
  config_listeners_.push_back(
      server_.config().on_change("repl-backlog-size", [this](const config::Directive&) {
        if (backlog_) backlog_->resize(server_.config().ref<std::uint64_t>("repl-backlog-size"));
      }));
}

void ReplicationMaster::set_replica_role(bool replica) {
  replica_role_ = replica;
  server_.refresh_propagating();
}

void ReplicationMaster::create_backlog(bool keep_history) {
  if (backlog_) return;
  // No replica could continue a history whose bytes were never kept: start a new one.
  if (!keep_history) id_.reset_history();
  backlog_.emplace(server_.config().ref<std::uint64_t>("repl-backlog-size"), id_.offset + 1);
  server_.refresh_propagating();
  // The first unit after the backlog exists names its database.
  selected_db_ = -1;
  if (replicas_.empty()) no_replicas_since_ms_ = server_.clock().now_ms();
}

void ReplicationMaster::free_backlog() {
  // Whoever still streams from it is being disconnected (its history changed): its connection
  // must not read the freed blocks, nor pin a new backlog's.
  for (ReplicaLink& r : replicas_) {
    r.session->shared_out = nullptr;
    r.cursor.reset();
    r.held_from = -1;  // an offset of the freed backlog's
  }
  backlog_.reset();
  server_.refresh_propagating();
}

int64_t ReplicationMaster::feed(const cmd::PropagationBatch& unit) {
  // The common unit, one record in the database already selected, is sent as it was encoded
  // (encode_unit would only copy it).
  if (unit.size() == 1 && (unit.db(0) == selected_db_ || unit.db(0) < 0)) {
    feed_raw(unit.record(0));
    return id_.offset;
  }
  scratch_.clear();
  cmd::encode_unit(unit, &selected_db_, scratch_);
  feed_raw(scratch_);
  return id_.offset;
}

void ReplicationMaster::feed_raw(std::string_view bytes) {
  if (!backlog_ || bytes.empty()) return;
  backlog_->append(bytes);
  id_.offset += static_cast<int64_t>(bytes.size());
  for (ReplicaLink& r : replicas_) {
    // A streaming link whose wake-up is already posted will write these bytes with the rest:
    // the common case under a pipelined load, where wake() would do nothing.
    if (r.cursor && r.session->wake_posted) continue;
    wake(r);
  }
}

void ReplicationMaster::wake(ReplicaLink& r) {
  if (r.state == ReplicaState::kWaitBgsaveStart) return;  // its snapshot will include this
  if (r.state != ReplicaState::kOnline || r.stream_on_ack) {
    // Held behind the snapshot (or until the first ACK after an $EOF: one), in the backlog from
    // r.held_from on. Counted against the replica's output limit: the connection checks it when
    // woken.
    if (r.held_from >= 0) {
      r.session->held_output = static_cast<std::size_t>(backlog_->next_offset() - r.held_from);
    }
    if (r.session->flush) r.session->flush();
    return;
  }
  // Streaming: the bytes are in the backlog already, where its connection writes them from. (An
  // online link without a cursor is between PSYNC and its +CONTINUE: sync_replied starts it at
  // the offset it asked for, which covers these bytes.)
  if (r.cursor && r.session->flush) r.session->flush();
}

void ReplicationMaster::start_cursor(ReplicaLink& r, int64_t pos) {
  r.cursor = std::make_unique<StreamCursor>(*this, pos);
  r.session->shared_out = r.cursor.get();
  readers_moved();
  if (r.session->flush) r.session->flush();
}

void ReplicationMaster::readers_moved() {
  if (!backlog_) return;
  int64_t oldest = -1;
  for (const ReplicaLink& r : replicas_) {
    // A streaming replica reads from its cursor; one behind its snapshot waits from held_from.
    int64_t pos = r.cursor ? r.cursor->position() : r.held_from;
    if (pos < 0) continue;
    if (oldest < 0 || pos < oldest) oldest = pos;
  }
  backlog_->keep_readers_from(oldest);
}

cmd::ReplicationInfo ReplicationMaster::info() const {
  cmd::ReplicationInfo i;
  int64_t now_ms = server_.clock().now_ms();
  for (const ReplicaLink& r : replicas_) {
    cmd::ReplicaLinkInfo l;
    l.ip = replica_ip(r);
    l.port = r.listening_port;
    l.state = state_name(r.state);
    l.online = r.state == ReplicaState::kOnline;
    l.ack_offset = r.ack_offset;
    l.lag_s = l.online ? (now_ms - r.ack_time_ms) / 1000 : 0;
    i.replicas.push_back(std::move(l));
  }
  i.good_replicas = good_replicas();
  i.failover_state = failover_state_name(failover_.state);
  i.replid = id_.replid;
  i.replid2 = id_.replid2;
  i.offset = id_.offset;
  i.second_offset = id_.second_offset;
  i.backlog_active = backlog_.has_value();
  i.backlog_size = static_cast<int64_t>(server_.config().ref<std::uint64_t>("repl-backlog-size"));
  if (backlog_) {
    i.backlog_first_byte_offset = backlog_->first_byte_offset();
    i.backlog_histlen = backlog_->histlen();
  }
  i.buffer_bytes = buffer_bytes();
  if (info_hook) info_hook(i);
  return i;
}

uint64_t ReplicationMaster::buffer_bytes() const {
  // Replicas hold no bytes of their own: the stream they lag behind is in the backlog's blocks.
  return backlog_ ? backlog_->footprint() : 0;
}

std::optional<cmd::ReplSaveInfo> ReplicationMaster::rdb_save_info() const {
  cmd::ReplSaveInfo i;
  i.replid = id_.replid;
  i.offset = id_.offset;
  if (!replica_role_) {
    // Without a backlog no replica could continue anything (the next one starts a new history).
    if (!backlog_) return std::nullopt;
    // -1: nothing propagated since the stream began; the next unit names its database.
    i.stream_db = selected_db_ < 0 ? 0 : selected_db_;
    return i;
  }
  std::optional<int> db = replica_side_ ? replica_side_->stream_db() : std::nullopt;
  if (!db) return std::nullopt;
  i.stream_db = *db;
  return i;
}

void ReplicationMaster::restore_rdb_info(const cmd::ReplSaveInfo& info) {
  if (replica_role_) {
    id_.replid = info.replid;
    id_.offset = info.offset;
    id_.clear_replid2();
    if (replica_side_) replica_side_->continue_from_rdb(info.stream_db);
    spdlog::info("Replication history {} up to offset {} restored from the RDB file", info.replid,
                 info.offset);
    return;
  }
  // A master: the file's history is the one its replicas followed; it continues as replid2
  // (shared up to offset + 1) with a backlog from there, as Redis 7 does after loading.
  id_.replid2 = info.replid;
  id_.second_offset = info.offset + 1;
  id_.offset = info.offset;
  free_backlog();
  create_backlog(true);
  spdlog::info("Replication history {} up to offset {} restored from the RDB file (as replid2)",
               info.replid, info.offset);
}

void ReplicationMaster::session_closed(cmd::Session& s) {
  auto same = [&](const ReplicaLink& r) { return r.session == &s; };
  std::erase_if(handshakes_, same);
  auto it = std::find_if(replicas_.begin(), replicas_.end(), same);
  if (it == replicas_.end()) return;
  spdlog::info("Connection with replica {} lost.", s.addr);
  s.shared_out = nullptr;
  replicas_.erase(it);
  readers_moved();
  if (replicas_.empty()) no_replicas_since_ms_ = server_.clock().now_ms();
}

void ReplicationMaster::cron(int64_t now_ms) {
  if (replica_side_) replica_side_->cron(now_ms);
  update_failover(now_ms);
  check_full_sync();
  maybe_start_full_sync(now_ms);
  ping_replicas(now_ms);
  drop_silent_replicas(now_ms);
  expire_backlog(now_ms);
  if (backlog_) backlog_->release_spares(now_ms);
}

// ---- the replica's handshake ------------------------------------------------------------------

ReplicaLink* ReplicationMaster::find(const cmd::Session& s) {
  for (ReplicaLink& r : replicas_) {
    if (r.session == &s) return &r;
  }
  return nullptr;
}

ReplicaLink& ReplicationMaster::handshake(cmd::Session& s) {
  if (ReplicaLink* r = find(s)) return *r;
  for (ReplicaLink& r : handshakes_) {
    if (r.session == &s) return r;
  }
  ReplicaLink& r = handshakes_.emplace_back();
  r.session = &s;
  return r;
}

ReplicaLink& ReplicationMaster::attach(cmd::Session& s, ReplicaState state) {
  ReplicaLink link = std::move(handshake(s));
  std::erase_if(handshakes_, [&](const ReplicaLink& r) { return r.session == &s; });
  link.session = &s;
  link.state = state;
  link.ack_time_ms = server_.clock().now_ms();
  s.replica = true;
  replicas_.push_back(std::move(link));
  return replicas_.back();
}

void ReplicationMaster::replconf_listening_port(cmd::Session& s, int64_t port) {
  handshake(s).listening_port = static_cast<int>(port);
}

void ReplicationMaster::replconf_ip_address(cmd::Session& s, std::string_view ip) {
  handshake(s).announced_ip = std::string(ip);
}

void ReplicationMaster::replconf_capa(cmd::Session& s, std::string_view capa) {
  // Capabilities this master does not know are ignored, as Redis does.
  if (text::iequals(capa, "eof")) handshake(s).capa_eof = true;
  if (text::iequals(capa, "psync2")) handshake(s).capa_psync2 = true;
}

void ReplicationMaster::replconf_ack(cmd::Session& s, int64_t offset) {
  ReplicaLink* r = find(s);
  if (!r) return;  // only replicas acknowledge; anyone else's ACK is ignored
  r->ack_offset = std::max(r->ack_offset, offset);
  r->ack_time_ms = server_.clock().now_ms();
  // The ACK may come before the child's end was noticed (that waits for the cron).
  if (r->state == ReplicaState::kWaitBgsaveEnd) check_full_sync();
  if (r->stream_on_ack) {
    // The replica has loaded the snapshot: the stream may follow the mark now (or, if the
    // child's end is still to be seen, as soon as it is).
    r->stream_on_ack = false;
    if (r->state == ReplicaState::kOnline) start_stream(*r);
  }
  // Clients in WAIT count again.
  server_.blocking().signal_ready(cmd::kWaitAckDb, cmd::kWaitAckKey);
}

void ReplicationMaster::replconf_fack(cmd::Session& s, int64_t aof_offset) {
  ReplicaLink* r = find(s);
  if (!r) return;
  r->aof_offset = std::max(r->aof_offset, aof_offset);
  server_.blocking().signal_ready(cmd::kWaitAckDb, cmd::kWaitAckKey);
}

cmd::SyncStart ReplicationMaster::sync(cmd::Session& s, bool psync, std::string_view replid,
                                       int64_t offset) {
  cmd::SyncStart out;
  if (s.replica) {
    // Already a replica: Redis ignores a repeated SYNC (and answers nothing).
    out.kind = cmd::SyncStart::Kind::kRefused;
    return out;
  }
  // A replica serves no sync while it has no master link of its own (it would hand out data it
  // cannot vouch for), nor does anyone while failing over.
  bool linked =
      !replica_role_ || !replica_side_ || replica_side_->link() == Replica::Link::kConnected;
  if (failing_over() || !linked) {
    out.kind = cmd::SyncStart::Kind::kRefused;
    out.error =
        failing_over() ? cmd::errors::kSyncWhileFailingOver : cmd::errors::kSyncWithoutMasterLink;
    return out;
  }
  if ((s.out && !s.out->empty()) || s.output_buffer > 0) {
    out.kind = cmd::SyncStart::Kind::kRefused;
    out.error = cmd::errors::kSyncPendingOutput;
    return out;
  }
  if (psync && backlog_ && id_.continues(replid, offset) && backlog_->holds_from(offset)) {
    ReplicaLink& r = attach(s, ReplicaState::kOnline);
    r.ack_offset = 0;
    r.psync_offset = offset;
    out.kind = cmd::SyncStart::Kind::kContinue;
    if (r.capa_psync2) out.replid = id_.replid;
    ++server_.stats().sync_partial_ok;
    spdlog::info(
        "Partial resynchronization request from {} accepted. Sending {} bytes of "
        "backlog starting from offset {}.",
        s.addr, id_.offset + 1 - offset, offset);
    return out;
  }
  if (psync && replid != "?") {
    // "?" asks for a full copy on purpose; any other id was a partial resync that failed.
    ++server_.stats().sync_partial_err;
    spdlog::info("Partial resynchronization not accepted for {} (asked {}:{}, have {}:{})", s.addr,
                 replid, offset, id_.replid, id_.offset + 1);
  }
  spdlog::info("Replica {} asks for synchronization", s.addr);
  ReplicaLink& r = attach(s, ReplicaState::kWaitBgsaveStart);
  r.sent_sync = !psync;
  if (!backlog_) {
    create_backlog();
    spdlog::info("Replication backlog created, my new replication IDs are '{}' and '{}'",
                 id_.replid, id_.replid2);
  }
  ++server_.stats().sync_full;
  out.kind = cmd::SyncStart::Kind::kFull;
  return out;
}

void ReplicationMaster::sync_replied(cmd::Session& s) {
  // +CONTINUE is in the connection's output: the backlog from the asked offset follows it.
  ReplicaLink* r = find(s);
  if (!r || !backlog_ || !backlog_->holds_from(r->psync_offset)) return;
  start_cursor(*r, r->psync_offset);
}

int64_t ReplicationMaster::replicas_acked(int64_t offset) const {
  int64_t n = 0;
  for (const ReplicaLink& r : replicas_) {
    if (r.state == ReplicaState::kOnline && r.ack_offset >= offset) ++n;
  }
  return n;
}

bool ReplicationMaster::replicas_in_sync() const {
  for (const ReplicaLink& r : replicas_) {
    if (r.ack_offset != id_.offset) return false;
  }
  return true;
}

void ReplicationMaster::log_replicas_at_shutdown() const {
  if (replicas_.empty()) return;
  int64_t now_ms = server_.clock().now_ms();
  std::size_t lagging = 0;
  for (const ReplicaLink& r : replicas_) {
    if (r.ack_offset == id_.offset) continue;
    ++lagging;
    int64_t lag_s = r.state == ReplicaState::kOnline ? (now_ms - r.ack_time_ms) / 1000 : 0;
    spdlog::warn("Lagging replica {}:{} reported offset {} behind master, lag={}, state={}.",
                 replica_ip(r), r.listening_port, id_.offset - r.ack_offset, lag_s,
                 state_name(r.state));
  }
  spdlog::info("{} of {} replicas are in sync when shutting down.", replicas_.size() - lagging,
               replicas_.size());
}

int64_t ReplicationMaster::replicas_aof_acked(int64_t offset) const {
  int64_t n = 0;
  for (const ReplicaLink& r : replicas_) {
    if (r.state == ReplicaState::kOnline && r.aof_offset >= offset) ++n;
  }
  return n;
}

int64_t ReplicationMaster::good_replicas() const {
  int64_t max_lag_s = min_replicas_max_lag_;
  if (min_replicas_to_write_ == 0 || max_lag_s == 0) return -1;
  int64_t now_ms = server_.clock().now_ms();
  int64_t n = 0;
  for (const ReplicaLink& r : replicas_) {
    if (r.state == ReplicaState::kOnline && (now_ms - r.ack_time_ms) / 1000 <= max_lag_s) ++n;
  }
  return n;
}

bool ReplicationMaster::enough_good_replicas() const {
  if (replica_role_) return true;
  int64_t good = good_replicas();
  return good < 0 || good >= min_replicas_to_write_;
}

void ReplicationMaster::request_acks() {
  // One GETACK per stream position is enough: every replica answers it with its offset.
  if (replicas_.empty() || getack_offset_ == id_.offset) return;
  std::string getack;
  resp::append_command(getack, {"REPLCONF", "GETACK", "*"});
  feed_raw(getack);
  getack_offset_ = id_.offset;
}

void ReplicationMaster::drop_silent_replicas(int64_t now_ms) {
  int64_t timeout_ms = server_.config().ref<std::int64_t>("repl-timeout") * 1000;
  for (ReplicaLink& r : replicas_) {
    // A replica that came with the old SYNC never acknowledges: nothing tells it is silent.
    if (r.state != ReplicaState::kOnline || r.sent_sync) continue;
    if (now_ms - r.ack_time_ms <= timeout_ms) continue;
    spdlog::warn("Disconnecting timedout replica (streaming sync): {}", r.session->addr);
    // The connection closes now; the session (and this link) goes at the next reap.
    if (r.session->kill) r.session->kill();
  }
}

void ReplicationMaster::ping_replicas(int64_t now_ms) {
  // Redis pings through the stream itself, so the PING counts in the offsets: replicas learn the
  // link is alive and their acks keep moving even when nothing is written.
  int64_t period_ms = server_.config().ref<std::int64_t>("repl-ping-replica-period") * 1000;
  // A replica forwards its master's stream, PINGs included, and adds none of its own (they
  // would put its offset ahead of its master's, breaking its next partial resync there).
  // Nor while a failover waits for its target to reach this offset (Redis skips them then too).
  if (replicas_.empty() || replica_role_ || failing_over()) {
    last_ping_ms_ = now_ms;
    return;
  }
  if (now_ms - last_ping_ms_ < period_ms) return;
  last_ping_ms_ = now_ms;
  std::string ping;
  resp::append_command(ping, {"PING"});
  feed_raw(ping);
}

void ReplicationMaster::expire_backlog(int64_t now_ms) {
  int64_t ttl_s = server_.config().ref<std::int64_t>("repl-backlog-ttl");
  if (!backlog_ || !replicas_.empty() || ttl_s == 0 || replica_role_) return;
  if (now_ms - no_replicas_since_ms_ <= ttl_s * 1000) return;
  // Nobody can continue this history without its bytes: a later replica starts a new one.
  id_.reset_history();
  free_backlog();
  spdlog::info("Replication backlog freed after {} seconds without connected replicas.", ttl_s);
}

}  // namespace streamd::repl

namespace streamd::repl {

bool ReplicationMaster::refuses_writes() const {
  return replica_side_ && replica_side_->refuses_writes();
}

bool ReplicationMaster::refuses_stale() const {
  return replica_side_ && replica_side_->refuses_stale();
}

std::string ReplicationMaster::replicaof(std::string_view host, int port) {
  if (!replica_side_) return "OK";
  if (host.empty()) {
    replica_side_->unset_master();
    return "OK";
  }
  return replica_side_->set_master(host, port);
}

void ReplicationMaster::disconnect_replicas() {
  for (ReplicaLink& r : replicas_) {
    if (r.session->kill) r.session->kill();
  }
}

}  // namespace streamd::repl
