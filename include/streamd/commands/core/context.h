// What a command handler sees: its arguments, the client session, the world (Server), the reply
// writer, the current time, and the ways to ask for blocking. Handlers parse arguments, call the
// engine and render one reply; they never touch sockets and never check the protocol version.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/propagation.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/engine/keyspace.h"
#include "streamd/resp/reply_writer.h"

namespace streamd::cmd {

class Dispatcher;

class Context {
 public:
  Context(Server& server, Session& session, resp::ReplyWriter& reply, Dispatcher& dispatcher,
          std::span<const std::string_view> argv, const CommandSpec& spec, int64_t now_ms)
      : server(server),
        session(session),
        reply(reply),
        dispatcher(dispatcher),
        argv(argv),
        spec(spec),
        now_ms(now_ms) {}

  Server& server;
  Session& session;
  resp::ReplyWriter& reply;
  Dispatcher& dispatcher;
  std::span<const std::string_view> argv;  // argv[0] is the command name as the client sent it
  const CommandSpec& spec;
  // argv views a client's request as it arrived, parsed whole (RequestParser::parse_ready: a
  // command run straight from a client's input); false for a queued, re-run or internal command.
  // Records then copy the client's arguments from it (resp::raw_args) instead of encoding them.
  bool argv_is_request = false;
  int64_t now_ms;  // one timestamp per command, as Redis caches mstime for a command's run

  std::size_t argc() const { return argv.size(); }
  std::string_view arg(std::size_t i) const { return argv[i]; }
  engine::Database& db() { return server.keyspace().db(session.db); }

  // Signals that `key` in the current database changed (WATCH, blocked readers). It also marks
  // the command dirty, so a write command propagates (see propagation.h), counting `changes`
  // changes (Redis's server.dirty: XDEL counts one per deleted entry, most commands one).
  void modified(std::string_view key, uint64_t changes = 1) {
    server.signal_modified(session.db, key);
    dirty += changes;
  }
  // The same, for a change that is also the keyspace event `ev` (notify.h) on `key`.
  void modified(std::string_view key, const KeyspaceEvent& ev, uint64_t changes = 1) {
    modified(key, changes);
    notify(ev, key);
  }
  // A keyspace event on `key` in the current database without a further modification (the
  // second event of one change: XADD's xtrim, SET EX's expire).
  void notify(const KeyspaceEvent& ev, std::string_view key) { server.notify(ev, key, session.db); }
  // `changes` changes that signal no key (a consumer created, entries acknowledged or claimed,
  // FLUSHALL...): the command propagates and INFO's change counter moves.
  // mark_dirty(0) says the command counted its changes and there were none (FLUSHALL of an
  // empty keyspace), so dispatch does not count its keyspace change as one.
  void mark_dirty(uint64_t changes = 1) {
    dirty += changes;
    dirty_counted = true;
  }

  // Propagates `argv` (in the current database) instead of this command's own argv: the
  // deterministic form of what the command did (XADD with its generated ID, PEXPIREAT instead
  // of EXPIRE, XCLAIM ... FORCE JUSTID for a delivery). May be called several times; the records
  // are applied in order and atomically.
  template <class Str>
  void propagate(std::span<const Str> argv) {
    explicit_propagation = true;
    server.propagate(session.db, argv);
  }
  void propagate(std::initializer_list<std::string_view> argv) {
    propagate(std::span<const std::string_view>(argv.begin(), argv.size()));
  }
  // `head` followed by each pair's field and value (an XADD's fields), as one record.
  template <class Str, class Pair>
  void propagate(std::span<const Str> head, std::span<const Pair> pairs) {
    explicit_propagation = true;
    server.propagate(session.db, head, pairs);
  }
  // `argc` arguments as one record: `before` and `after` are arguments already encoded (resp::
  // raw_args of argv, copied), `middle` is encoded between them.
  template <class Str>
  void propagate(std::size_t argc, std::string_view before, std::span<const Str> middle,
                 std::string_view after) {
    explicit_propagation = true;
    server.propagate(session.db, argc, before, middle, after);
  }
  // The same in another database (MOVE-like commands).
  void propagate_in(int db, std::initializer_list<std::string_view> argv) {
    explicit_propagation = true;
    server.propagate(db, std::span<const std::string_view>(argv.begin(), argv.size()));
  }
  // The command propagates nothing, whatever it changed (or its records were all given).
  void propagate_nothing() { explicit_propagation = true; }
  // Whether propagating is worth the work (no AOF: records would be dropped anyway).
  bool propagating() const { return server.propagating(); }

  uint64_t dirty = 0;                 // changes made (modified(), mark_dirty()), Redis-counted
  bool dirty_counted = false;         // mark_dirty() was called, even with 0
  bool explicit_propagation = false;  // propagate()/propagate_nothing() was called

  // May this command block? False inside MULTI/EXEC (Redis answers a would-block read at once).
  bool may_block() const { return !session.executing; }

  // Asks dispatch to park the client: nothing must have been written to the reply. `rerun` is
  // the command line to execute again when a key is ready (e.g. with `$` resolved to an ID).
  // `deadline_ms` is absolute (0 = forever); on a re-run it is the original deadline.
  void block(std::vector<std::pair<int, std::string>> keys, int64_t deadline_ms,
             std::vector<std::string> rerun) {
    block_requested = true;
    block_keys = std::move(keys);
    block_deadline_ms = deadline_ms;
    block_argv = std::move(rerun);
  }
  // The deadline already in force when this run is a wake-up re-run, else -1.
  int64_t rerun_deadline_ms = -1;

  bool block_requested = false;
  std::vector<std::pair<int, std::string>> block_keys;
  int64_t block_deadline_ms = 0;
  std::vector<std::string> block_argv;
  // XREADGROUP CLAIM: also re-run the blocked command at this time (0 = only on a key change).
  int64_t block_wake_ms = 0;
};

}  // namespace streamd::cmd
