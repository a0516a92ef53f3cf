#include "streamd/commands/core/server.h"
#include "streamd/engine/clock.h"

#include <algorithm>
#include <chrono>

namespace streamd::cmd {

Session::Session() = default;
Session::~Session() = default;

void Session::reset_transaction(Server& server) {
  queued.clear();
  queued_bytes = 0;
  in_multi = false;
  multi_error = false;
  server.unwatch_all(*this);  // also clears dirty_cas
}

namespace {
// The most bytes end_unit defers before it feeds them: about what one send to a replica carries.
constexpr std::size_t kDeferMax = 64 * 1024;

std::string watch_id(int db, std::string_view key) {
  std::string id = std::to_string(db);
  id.push_back(':');
  id.append(key);
  return id;
}
}  // namespace

Server::Server(config::Config& cfg, const engine::Clock& clock)
    : cfg_(cfg),
      clock_(clock),
      command_clock_(clock),
      keyspace_(static_cast<int>(cfg.databases()), command_clock_),
      notifier_(cfg),
      start_ms_(clock.now_ms()) {
  keyspace_.set_observer(this);
  notifier_.set_sink(&pubsub_sink_);
  // ACL settings that live in the configuration: requirepass is the default user's password
  // (set again on each change, as Redis; ACL SETUSER default does not change the directive),
  // acl-pubsub-default the channels of new users, acllog-max-len the log's length.
  auto apply_pass = [this](const config::Directive&) { acl_.set_requirepass(cfg_.requirepass()); };
  auto apply_pubsub = [this](const config::Directive&) {
    acl_.set_all_channels_default(cfg_.ref<std::int64_t>("acl-pubsub-default") == 1);
  };
  auto apply_log_len = [this](const config::Directive&) {
    acl_.set_log_max_len(static_cast<std::size_t>(cfg_.ref<std::int64_t>("acllog-max-len")));
  };
  acl_listeners_.push_back(cfg_.on_change("requirepass", apply_pass));
  acl_listeners_.push_back(cfg_.on_change("acl-pubsub-default", apply_pubsub));
  acl_listeners_.push_back(cfg_.on_change("acllog-max-len", apply_log_len));
  apply_pubsub(config::Directive{});
  apply_log_len(config::Directive{});
  if (!cfg_.requirepass().empty()) apply_pass(config::Directive{});
  cfg_.set_user_lines([this] {
    std::vector<std::string> lines;
    for (const auto& [name, u] : acl_.users())
      lines.push_back("user " + name + " " + u->describe());
    return lines;
  });
}

Server::~Server() {
  for (auto id : acl_listeners_) cfg_.remove(id);
  cfg_.set_user_lines(nullptr);
  keyspace_.set_observer(nullptr);
}

Session& Server::add_session(std::unique_ptr<Session> s) {
  uint64_t id = s->id;
  auto& slot = sessions_[id];
  slot = std::move(s);
  ++stats_.total_connections;
  return *slot;
}

void Server::remove_session(uint64_t id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  Session& s = *it->second;
  blocking_.forget(s);
  if (s.postponed) pause_.forget(s.id);
  s.reset_transaction(*this);
  if (replication_) replication()->session_closed(s);
  pubsub_.unsubscribe_all(s);
  tracking_.disable(s);
  if (running_ == &s) running_ = nullptr;
  sessions_.erase(it);
}

void Server::pause_clients(ClientPause::Purpose purpose, ClientPause::Mode mode, int64_t end_ms) {
  pause_.pause(purpose, mode, end_ms);
  // Expiry would delete keys (and write DELs to the AOF and the replicas) during a pause that is
  // meant to hold the dataset still: expired keys are hidden instead, as on a replica.
  if (keyspace_.expiry_mode() == engine::ExpiryMode::kDelete) {
    keyspace_.set_expiry_mode(engine::ExpiryMode::kHide);
    expiry_paused_ = true;
  }
}

void Server::check_pause_end_slow() {
  int64_t now = clock_.now_ms();
  for (ClientPause::Purpose p : ClientPause::kPurposes) {
    if (pause_.active(p) && now >= pause_.end_ms(p)) unpause_clients(p);
  }
}

void Server::unpause_clients(ClientPause::Purpose purpose) {
  if (!pause_.active(purpose)) return;
  std::vector<uint64_t> resume = pause_.end(purpose);
  if (expiry_paused_ && !pause_.active()) {
    expiry_paused_ = false;
    // A REPLICAOF during the pause made this a replica, which keeps its keys hidden.
    bool replica = replication_ && replication_->is_replica();
    if (!replica && keyspace_.expiry_mode() == engine::ExpiryMode::kHide) {
      keyspace_.set_expiry_mode(engine::ExpiryMode::kDelete);
    }
  }
  for (uint64_t id : resume) {
    Session* s = session(id);
    if (!s) continue;
    s->postponed = false;
    if (s->flush) s->flush();  // the network layer reads its pipeline again
  }
}

Session* Server::session(uint64_t id) {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second.get();
}

std::vector<Session*> Server::monitors() {
  std::vector<Session*> out;
  for (auto& [id, s] : sessions_) {
    if (s->monitor) out.push_back(s.get());
  }
  return out;
}

void Server::watch(Session& s, int db, std::string_view key) {
  for (auto& [d, k] : s.watched) {
    if (d == db && k == key) return;
  }
  s.watched.emplace_back(db, std::string(key));
  watchers_[watch_id(db, key)].push_back(&s);
}

void Server::unwatch_all(Session& s) {
  for (auto& [db, key] : s.watched) {
    auto it = watchers_.find(watch_id(db, key));
    if (it == watchers_.end()) continue;
    auto& v = it->second;
    v.erase(std::remove(v.begin(), v.end(), &s), v.end());
    if (v.empty()) watchers_.erase(it);
  }
  s.watched.clear();
  s.dirty_cas = false;
}

void Server::end_unit(Session* s, bool atomic) {
  if (--unit_depth_ > 0 || propagation_.empty()) return;
  assert(kept_flags_current());
  if (!atomic) propagation_.set_separate();
  if (persistence_) {
    // (Ticket 0 with appendonly off, as before replication existed.)
    if (!to_aof_) {
      if (s) s->propagation_ticket = 0;
    } else if (propagation_.has_aof_records()) {
      uint64_t ticket = persistence_->append(propagation_);
      if (s) s->propagation_ticket = ticket;
    }
  }
  // A replica's stream is its master's bytes, forwarded as they are applied (repl/replica.h):
  // re-encoding what it applies (or its own lazy expiries) would make the offsets differ.
  if (to_replicas_) {
    // Deferred while a batch is open (BatchScope), up to kDeferMax, so a long pipeline still
    // streams.
    int64_t offset = -1;
    if (batch_depth_ > 0 && propagation_.size() == 1 &&
        propagation_.deferred().size() < kDeferMax) {
      offset = replication_->offset_if_selected(propagation_.db(0));
    }
    if (offset >= 0) {
      propagation_.defer_unit();
      if (s) s->repl_offset = offset + static_cast<int64_t>(propagation_.deferred().size());
      return;
    }
    deliver_deferred();
    offset = replication_->feed(propagation_);
    if (s) s->repl_offset = offset;
  }
  propagation_.clear();
}

void Server::signal_modified(int db, std::string_view key) {
  key_changed(db, key, running_);
}

void Server::key_changed(int db, std::string_view key, const Session* by) {
  ++changes_;
  if (tracking_.in_use()) tracking_.invalidate(key, by, running_);
  if (!watchers_.empty()) {
    auto it = watchers_.find(watch_id(db, key));
    if (it != watchers_.end()) {
      for (Session* s : it->second) s->dirty_cas = true;
    }
  }
  blocking_.signal_ready(db, key);
}

void Server::on_key_event(int db, std::string_view key, engine::KeyEvent ev) {
  if (ev == engine::KeyEvent::kAdded) {
    // Only the "new" event: the command that stored the key reports the change itself.
    notify(events::kNew, key, db);
    return;
  }
  if (ev == engine::KeyEvent::kExpired) {
    ++stats_.expired_keys;
    // As Redis does, an expiry propagates as DEL, before what the running command (if any)
    // propagates; outside a command (active expiry) it is a unit of its own.
    if (propagating()) {
      begin_unit();
      propagation_.add(db, {"DEL", key});
      end_unit(nullptr);
    }
    notify(events::kExpired, key, db);
  } else if (ev == engine::KeyEvent::kEvicted) {
    ++stats_.evicted_keys;
    // Redis's propagateDeletion: UNLINK when the eviction frees lazily, DEL otherwise; a unit of
    // its own (evictions run before a command starts, or from cron).
    if (propagating()) {
      begin_unit();
      std::string_view verb = cfg_.ref<bool>("lazyfree-lazy-eviction") ? "UNLINK" : "DEL";
      propagation_.add(db, {verb, key});
      end_unit(nullptr);
    }
    notify(events::kEvicted, key, db);
  }
  // No client made this change: BCAST's NOLOOP clients hear of it too (Redis passes no client).
  key_changed(db, key, nullptr);
}

void Server::on_flush(int /*db*/) {
  // Tracking is by key name, whatever the database: any flush invalidates everything, as Redis.
  tracking_.invalidate_all();
}

void Server::on_db_flushed(int db) {
  ++changes_;
  // As Redis does, a flush breaks the WATCH of keys that existed (a missing key stays missing).
  std::string prefix = std::to_string(db) + ":";
  auto& database = keyspace_.db(db);
  for (auto& [id, sessions] : watchers_) {
    if (id.compare(0, prefix.size(), prefix) != 0) continue;
    if (!database.peek(std::string_view(id).substr(prefix.size()))) continue;
    for (Session* s : sessions) s->dirty_cas = true;
  }
  // Wake every client blocked on a key of this database: their re-run decides what to answer.
  for (auto& [id, s] : sessions_) {
    if (!s->blocked) continue;
    for (auto& [d, key] : s->blocked->keys) {
      if (d == db) blocking_.signal_ready(d, key);
    }
  }
}

void Server::cron() {
  check_pause_end();
  int64_t now = clock_.now_ms();
  shutdown_.cron(now);
  stats_.sample(now);
  if (persistence_) persistence_->cron(now);
  if (replication_) replication()->cron(now);
  if (snapshots_) snapshots_->cron(now);
  // Goes on with an eviction a command's time budget cut short (Redis's eviction timer).
  memory_limit_.enforce();
  if (tracking_.clients() > 0) {
    tracking_.limit(static_cast<std::size_t>(cfg_.ref<std::int64_t>("tracking-table-max-keys")));
  }
  // A replica does not expire keys on its own: its master sends the DEL (as in Redis); the replica
  // side puts the keyspace in ExpiryMode::kHide, where there is nothing to sample.
  if (active_expire_ && keyspace_.expiry_mode() == engine::ExpiryMode::kDelete) {
    active_expire_cycle(now);
  }
  // Redis's incrementallyRehash: up to a millisecond of moving buckets, for the first database
  // whose key table is being resized (inserts and erases alone would leave a resize half done
  // while the keys are only read, every lookup of a moved-over bucket going to the new table).
  if (cfg_.ref<bool>("activerehashing")) {
    for (int i = 0; i < keyspace_.databases(); ++i) {
      auto& db = keyspace_.db(i);
      if (!db.rehashing()) continue;
      const int64_t t0 = engine::monotonic_us();
      while (db.rehash_step(100) && engine::monotonic_us() - t0 < 1000) {
      }
      break;
    }
  }
}

void Server::active_expire_cycle(int64_t now) {
  // Redis's slow cycle (activeExpireCycle), with its parameters scaled by active-expire-effort
  // 1..10: each loop looks at 20 (+5 per effort step) keys with a TTL and a database's loops go
  // on while more than 10% (less 1 per step) of them had expired, within 25% (+2 per step) of the
  // cron period, checked every 16 loops; the next tick starts at the next database.
  const auto effort = static_cast<std::size_t>(cfg_.ref<std::int64_t>("active-expire-effort") - 1);
  const std::size_t keys_per_loop = 20 + 20 / 4 * effort;
  const std::size_t acceptable_stale = 10 - effort;
  const int64_t limit_us = std::max<int64_t>(
      1, static_cast<int64_t>(25 + 2 * effort) * 1000000 / std::max<int64_t>(cfg_.hz(), 1) / 100);
  const int64_t t0 = engine::monotonic_us();
  const int dbs = keyspace_.databases();
  std::size_t sampled = 0;
  std::size_t expired = 0;
  bool out_of_time = false;
  for (int i = 0, iteration = 0; i < dbs && !out_of_time; ++i) {
    auto& db = keyspace_.db(expire_next_db_);
    expire_next_db_ = (expire_next_db_ + 1) % dbs;
    for (bool repeat = true; repeat;) {
      const auto step = db.active_expire_step(keys_per_loop);
      sampled += step.sampled;
      expired += step.expired;
      repeat = !step.done && step.expired * 100 > acceptable_stale * step.sampled;
      if (++iteration % 16 == 0 && engine::monotonic_us() - t0 > limit_us) {
        out_of_time = true;
        ++stats_.expired_time_cap_reached;
        break;
      }
    }
  }
  // INFO expired_stale_perc: Redis's running estimate of the share of keys with a TTL that have
  // expired but are still stored (this cycle's weighs 5%).
  const double current = sampled ? static_cast<double>(expired) / static_cast<double>(sampled) : 0;
  stats_.expired_stale_perc = current * 0.05 + stats_.expired_stale_perc * 0.95;
  int64_t us = engine::monotonic_us() - t0;
  stats_.expire_cycle_us += static_cast<uint64_t>(us);
  // The latency monitor's expire-cycle event: the active expiry just done, in milliseconds.
  int64_t ms = us / 1000;
  stats_.latency.add_if_needed("expire-cycle", ms, now / 1000, cfg_.latency_monitor_threshold());
}

namespace {

// Ends a session as Redis's deauthenticateAndCloseClient: back to the default user, not
// authenticated, then closed (the running client once its reply is written).
void deauthenticate_and_close(Server& server, Session& s) {
  s.user = nullptr;
  s.authenticated = false;
  if (&s == server.running()) {
    s.close_after_reply = true;
  } else if (s.kill) {
    s.kill();
  }
}

}  // namespace

void Server::close_sessions_of(const acl::User* u) {
  std::vector<Session*> hit;
  for (auto& [id, s] : sessions_) {
    if (!s->master && s->user.get() == u) hit.push_back(s.get());
  }
  for (Session* s : hit) deauthenticate_and_close(*this, *s);
}

void Server::close_subscribers_denied(const acl::User& u) {
  std::vector<Session*> hit;
  for (auto& [id, s] : sessions_) {
    if (s->master || !s->subs || &user_of(*s) != &u) continue;
    const Subscriptions& subs = *s->subs;
    bool denied = false;
    for (const auto& c : subs.channels.names()) denied |= !acl::may_use_channel(u, c, false);
    for (const auto& c : subs.shard_channels.names()) denied |= !acl::may_use_channel(u, c, false);
    for (const auto& p : subs.patterns.names()) denied |= !acl::may_use_channel(u, p, true);
    if (denied) hit.push_back(s.get());
  }
  for (Session* s : hit) deauthenticate_and_close(*this, *s);
}

}  // namespace streamd::cmd
