// The command layer's world: the keyspace, the configuration, the sessions, the blocked clients,
// WATCH bookkeeping and statistics. One instance per process, driven by the network layer from a
// single thread (the Redis model), so nothing here is synchronised.
#pragma once

#include <cassert>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "streamd/commands/acl/acl.h"
#include "streamd/commands/core/blocking.h"
#include "streamd/commands/core/client_pause.h"
#include "streamd/commands/core/memory_limit.h"
#include "streamd/commands/core/notify.h"
#include "streamd/commands/core/persistence.h"
#include "streamd/commands/core/propagation.h"
#include "streamd/commands/core/replication.h"
#include "streamd/commands/core/session.h"
#include "streamd/commands/core/shutdown.h"
#include "streamd/commands/core/snapshots.h"
#include "streamd/commands/core/stats.h"
#include "streamd/commands/core/tracking.h"
#include "streamd/commands/core/value_codec.h"
#include "streamd/commands/pubsub/pubsub.h"
#include "streamd/config/config.h"
#include "streamd/engine/clock.h"
#include "streamd/engine/keyspace.h"

namespace streamd::cmd {

class Server final : public engine::KeyObserver {
 public:
  Server(config::Config& cfg, const engine::Clock& clock);
  ~Server() override;

  engine::Keyspace& keyspace() { return keyspace_; }
  config::Config& config() { return cfg_; }
  const engine::Clock& clock() const { return clock_; }
  // The keyspace's clock, frozen while a command runs (Dispatcher::run enters and leaves it).
  engine::CommandClock& command_clock() { return command_clock_; }
  Stats& stats() { return stats_; }
  // maxmemory (memory_limit.h): the dispatcher enforces it before each command, cron after.
  MemoryLimit& memory_limit() { return memory_limit_; }
  BlockingRegistry& blocking() { return blocking_; }
  // CLIENT PAUSE and FAILOVER (client_pause.h). pause_clients starts or extends a purpose's pause
  // and stops key expiry; unpause_clients (CLIENT UNPAUSE, the end of a failover, or cron once the
  // end time passed) ends it, lets keys expire again when no pause is left and resumes the
  // postponed clients in order.
  const ClientPause& client_pause() const { return pause_; }
  ClientPause& client_pause() { return pause_; }
  void pause_clients(ClientPause::Purpose purpose, ClientPause::Mode mode, int64_t end_ms);
  void unpause_clients(ClientPause::Purpose purpose);
  // Ends the pauses whose end time has passed (cron, and after each batch).
  void check_pause_end() {
    if (pause_.active()) check_pause_end_slow();
  }
  // SHUTDOWN and SIGTERM/SIGINT (shutdown.h): may wait for replicas before exiting.
  ShutdownSequence& shutdown() { return shutdown_; }
  // Keyspace notifications (notify.h): the pub/sub layer installs its sink here.
  Notifier& notifier() { return notifier_; }
  void notify(const KeyspaceEvent& ev, std::string_view key, int db) {
    notifier_.notify(ev, key, db);
  }
  // Channels, patterns and shard channels; publish() is the one way to send a message.
  PubSub& pubsub() { return pubsub_; }
  // Client-side caching (CLIENT TRACKING): told of every changed key by signal_modified.
  ClientTracking& tracking() { return tracking_; }
  // ACL users and log (commands/acl/acl.h).
  acl::Acl& acl() { return acl_; }
  // The user a session runs as (its own, or the default user).
  const acl::User& user_of(const Session& s) const {
    return s.user ? *s.user : *acl_.default_user();
  }
  // Whether a session must AUTH first: not authenticated, and the default user needs a password
  // (or is off). Decided at each command, as Redis's authRequired.
  bool auth_required(const Session& s) const {
    const acl::User& d = *acl_.default_user();
    return !s.authenticated && !(d.nopass && d.enabled);
  }
  // Closes the connections of sessions running as `u` (ACL DELUSER, ACL LOAD), the caller's
  // after its reply.
  void close_sessions_of(const acl::User* u);
  // Closes subscribed connections of `u` whose channels it may no longer use (ACL SETUSER).
  void close_subscribers_denied(const acl::User& u);
  // The client whose command runs (Dispatcher::run sets it; null between commands, in cron).
  Session* running() const { return running_; }
  void set_running(Session* s) { running_ = s; }

  // Sessions, by id (CLIENT LIST order is by id).
  Session& add_session(std::unique_ptr<Session> s);
  void remove_session(uint64_t id);
  Session* session(uint64_t id);
  const std::map<uint64_t, std::unique_ptr<Session>>& sessions() const { return sessions_; }
  uint64_t next_client_id() { return ++last_client_id_; }
  std::vector<Session*> monitors();

  // WATCH bookkeeping.
  void watch(Session& s, int db, std::string_view key);
  void unwatch_all(Session& s);
  // Distinct (db, key) pairs some client watches (INFO's total_watched_keys).
  std::size_t watched_keys() const { return watchers_.size(); }

  // A key's value changed (or the key was deleted): breaks WATCHes and wakes blocked readers.
  // Commands call this after every write, like Redis's signalModifiedKey.
  void signal_modified(int db, std::string_view key);
  void on_key_event(int db, std::string_view key, engine::KeyEvent ev) override;
  void on_db_flushed(int db) override;
  void on_flush(int db) override;

  // Periodic housekeeping (active expiry, idle client timeouts are the network layer's).
  void cron();
  // DEBUG SET-ACTIVE-EXPIRE: off, cron leaves expired keys until something touches them.
  void set_active_expire(bool on) { active_expire_ = on; }

  // ---- propagation (see propagation.h) -------------------------------------------------------
  // The AOF, once startup has loaded it; null while loading and when persistence is off.
  void set_persistence(Persistence* p) {
    persistence_ = p;
    refresh_propagating();
  }
  Persistence* persistence() const { return persistence_; }
  // Replication (repl/), attached by startup; null in tests that run without it.
  void set_replication(Replication* r) {
    replication_ = r;
    refresh_propagating();
  }
  // Delivers the records deferred so far first (see BatchScope), so that whoever asks sees the
  // stream, its offset and backlog whole.
  Replication* replication() {
    deliver_deferred();
    return replication_;
  }
  // The same without delivering: only for questions about the role and the replicas' health
  // (is_replica, refuses_writes, refuses_stale, enough_good_replicas), which the stream's
  // bytes do not change. Asked by every command, so it must not end a deferral.
  const Replication* replication_role() const { return replication_; }
  // RDB snapshots (persist/rdb_service.h), attached by startup; null in tests without one.
  void set_snapshots(Snapshots* s) { snapshots_ = s; }
  Snapshots* snapshots() const { return snapshots_; }
  // DUMP/RESTORE payloads (persist/), attached by startup; null in tests that run without it.
  void set_value_codec(const ValueCodec* c) { value_codec_ = c; }
  const ValueCodec* value_codec() const { return value_codec_; }
  // Whether records are wanted at all: an AOF is attached and appendonly is on, or the
  // replication stream is fed (a backlog exists) by this server's own commands. A replica's
  // stream is its master's bytes (end_unit), so a replica without an AOF builds no records: it
  // encoded every command it applied only to drop it.
  //
  // It is asked by every write command (twice for an XADD), and computing it costs three virtual
  // calls, so it is kept, with where the records go (end_unit): refresh_propagating() must be
  // called whenever what they read changes (set_persistence/set_replication do; the AOF and the
  // replication master call it when appendonly, their backlog or their role changes). The
  // asserts, alive in the sanitizer build, check that the kept answers are the computed ones.
  bool propagating() const {
    assert(kept_flags_current());
    return to_aof_ || to_replicas_;
  }
  void refresh_propagating() {
    to_aof_ = aof_wants_records();
    to_replicas_ = replication_wants_records();
    // What turns the stream off (a freed backlog, the replica role) is reached through
    // replication(), which delivered what was deferred.
    assert(to_replicas_ || propagation_.deferred().empty());
  }
  template <class Str>
  void propagate(int db, std::span<const Str> argv) {
    if (propagating()) propagation_.add(db, argv);
  }
  // A record for the replicas only (PropagationBatch::mark_last_replicas_only).
  void propagate_to_replicas(int db, std::initializer_list<std::string_view> argv) {
    if (!to_replicas_) return;
    propagation_.add(db, std::span<const std::string_view>(argv.begin(), argv.size()));
    propagation_.mark_last_replicas_only();
  }
  template <class Str, class Pair>
  void propagate(int db, std::span<const Str> head, std::span<const Pair> pairs) {
    if (propagating()) propagation_.add(db, head, pairs);
  }
  // `argc` arguments: `before` and `after` copied (encoded, resp::raw_args), `middle` encoded.
  template <class Str>
  void propagate(int db, std::size_t argc, std::string_view before, std::span<const Str> middle,
                 std::string_view after) {
    if (propagating()) propagation_.add(db, argc, before, middle, after);
  }
  // While a file is replayed into a running server (DEBUG LOADAOF), its commands are not
  // propagated: they are what the AOF already holds, and Redis does not send them to replicas
  // while loading either. Turning the stream off delivers what was deferred first (see
  // refresh_propagating).
  bool replaying() const { return replaying_; }
  void set_replaying(bool on) {
    if (on) deliver_deferred();
    replaying_ = on;
    refresh_propagating();
  }
  // Dispatch brackets every command run with these; when the outermost one ends, the records
  // gathered form one unit for the AOF and the replication stream, and `s` (if any) gets the
  // AOF's ticket and the replication offset after its unit (what WAIT waits for). `atomic` false
  // (a command that touches arbitrary keys, run directly) propagates the unit's records without
  // MULTI/EXEC; it only counts for the outermost bracket.
  void begin_unit() { ++unit_depth_; }
  void end_unit(Session* s, bool atomic = true);

  // One batch of the network layer (a connection's commands from one read, and the blocked
  // clients they woke). While one is open, a unit for the replicas that is one record in the
  // stream's database (the common pipelined write) is deferred: its bytes stay in the
  // propagation batch, the session's repl_offset counts them, and they are fed together with
  // the next unit that cannot be deferred, when the outermost scope ends, or when anything asks
  // replication() first. Feeding a pipeline's records with one call instead of one each saved
  // a fifth of what feeding two replicas cost the master per XADD (82 of 426 instructions,
  // docs/benchmarks.md); the bytes and offsets the replicas see are the same.
  // Invariant: nothing is deferred while no scope is open.
  class BatchScope {
   public:
    explicit BatchScope(Server& server) : server_(server) { ++server_.batch_depth_; }
    ~BatchScope() {
      if (--server_.batch_depth_ == 0) server_.deliver_deferred();
    }
    BatchScope(const BatchScope&) = delete;
    BatchScope& operator=(const BatchScope&) = delete;

   private:
    Server& server_;
  };
  // Feeds what end_unit deferred.
  void deliver_deferred() {
    if (!propagation_.deferred().empty()) {
      replication_->feed_raw(propagation_.deferred());
      propagation_.drop_deferred();
    }
  }
  // Counts key changes and flushes (for dispatch: did a write command change anything?).
  uint64_t changes() const { return changes_; }
  // Redis's server.dirty, INFO's rdb_changes_since_last_save: every command adds the changes it
  // counted (Context::dirty, Redis's rule per command). A successful SAVE resets it, a BGSAVE
  // takes off what it saw (set_dirty), and startup resets it after loading.
  uint64_t dirty() const { return dirty_; }
  void add_dirty(uint64_t n) { dirty_ += n; }
  void reset_dirty() { dirty_ = 0; }
  void set_dirty(uint64_t n) { dirty_ = n; }
  // Group commit, for the network layer: hold this client's output until sync_propagation().
  bool must_hold_replies(const Session& s) const {
    return persistence_ && persistence_->must_hold_replies(s.propagation_ticket);
  }
  // Writes (and fsyncs, per policy) every record propagated so far. Once per event-loop round.
  void sync_propagation() {
    if (persistence_) persistence_->sync();
  }

  // Shutdown request (SHUTDOWN): the network layer stops the event loop.
  std::function<void()> request_shutdown;

  int64_t start_ms() const { return start_ms_; }

 private:
  // cron's active expiry of keys with a TTL (Redis's slow cycle).
  void active_expire_cycle(int64_t now);
  // signal_modified's work; `by` is the client that made the change (null: expiry, eviction).
  void key_changed(int db, std::string_view key, const Session* by);
  bool aof_wants_records() const {
    return !replaying_ && persistence_ && persistence_->aof_enabled();
  }
  bool replication_wants_records() const {
    return !replaying_ && replication_ && replication_->feeding() && !replication_->is_replica();
  }
  bool kept_flags_current() const {
    return to_aof_ == aof_wants_records() && to_replicas_ == replication_wants_records();
  }

  config::Config& cfg_;
  const engine::Clock& clock_;
  engine::CommandClock command_clock_;  // before keyspace_, which keeps a pointer to it
  engine::Keyspace keyspace_;
  Stats stats_;
  MemoryLimit memory_limit_{*this};  // after keyspace_ and stats_, which it uses
  BlockingRegistry blocking_;
  void check_pause_end_slow();
  ClientPause pause_;
  ShutdownSequence shutdown_{*this};
  bool expiry_paused_ = false;  // pause_clients put the keyspace in ExpiryMode::kHide
  Notifier notifier_;
  PubSub pubsub_;
  PubSubSink pubsub_sink_{pubsub_};  // the notifier's sink (set in the constructor)
  ClientTracking tracking_{[this](uint64_t id) { return session(id); }};
  acl::Acl acl_;
  std::vector<config::Config::ListenerId> acl_listeners_;
  Session* running_ = nullptr;
  std::map<uint64_t, std::unique_ptr<Session>> sessions_;
  uint64_t last_client_id_ = 0;
  // (db, key) → sessions watching it.
  std::unordered_map<std::string, std::vector<Session*>> watchers_;
  int64_t start_ms_;
  Persistence* persistence_ = nullptr;
  Replication* replication_ = nullptr;
  // aof_wants_records() and replication_wants_records(), kept (propagating()).
  bool to_aof_ = false;
  bool to_replicas_ = false;
  bool replaying_ = false;  // set_replaying
  bool active_expire_ = true;
  int expire_next_db_ = 0;  // where the next active expiry cycle starts
  Snapshots* snapshots_ = nullptr;
  const ValueCodec* value_codec_ = nullptr;
  PropagationBatch propagation_;
  int unit_depth_ = 0;
  int batch_depth_ = 0;  // BatchScopes open
  uint64_t changes_ = 0;
  uint64_t dirty_ = 0;
};

}  // namespace streamd::cmd
