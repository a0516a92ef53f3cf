// Client-side caching (CLIENT TRACKING), as Redis 6+ implements it:
//
// - Default mode: after a read-only command of a tracking client, the keys it named are
//   remembered for that client (OPTIN: only when CLIENT CACHING yes preceded the command or
//   transaction; OPTOUT: unless CLIENT CACHING no did). When such a key changes (a write,
//   expiry, eviction), each client that read it gets one invalidation message and the key is
//   forgotten: a client reads it again to be told of the next change.
// - BCAST mode: no key is remembered; every change of a key starting with one of the client's
//   prefixes (all keys when none was given) is collected, and once per batch each prefix's keys
//   go out as one message to every client registered for it.
// - NOLOOP: no message about a change the client made itself.
// - Messages: a RESP3 push `>2 invalidate [keys]` to the client, or to its REDIRECT client: a
//   RESP3 one gets the same push, a RESP2 one in pub/sub mode gets a `message` on
//   `__redis__:invalidate`, any other gets nothing. FLUSHALL and FLUSHDB send a null instead of
//   keys to every tracking client. A client whose redirect client went away is told so once
//   per message (RESP3 `>2 tracking-redir-broken <id>`) and flagged (CLIENT LIST R).
//
// Invariants: table_ holds a key exactly while some client read it since its last change, with
// the ids of those clients, sorted and distinct (a client that turned tracking off or left is
// skipped when the key changes, as in Redis); each BCAST client's prefixes are in prefixes_ with
// the client listed there, and a prefix is there only while a client has it. Nothing here costs
// anything while no client ever enabled tracking (in_use() is false).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "streamd/commands/core/session.h"

namespace streamd::cmd {

class ClientTracking {
 public:
  // `find` returns the session with an id, or null (REDIRECT targets).
  explicit ClientTracking(std::function<Session*(uint64_t)> find) : find_(std::move(find)) {}
  ClientTracking(const ClientTracking&) = delete;
  ClientTracking& operator=(const ClientTracking&) = delete;

  struct Options {
    uint64_t redirect = 0;  // 0: none
    bool bcast = false, optin = false, optout = false, noloop = false;
    std::vector<std::string> prefixes;  // BCAST only
  };
  // CLIENT TRACKING ON, its options already checked by the command: sets the mode (BCAST
  // prefixes add to those the client had).
  void enable(Session& s, const Options& o);
  // CLIENT TRACKING OFF, RESET, and a client that leaves.
  void disable(Session& s);

  // A read-only command `argv` of `s` named the keys at `key_positions` (Redis's
  // trackingRememberKeys).
  void remember(Session& s, std::span<const std::string_view> argv,
                std::span<const int> key_positions);
  // `key` changed. `by`: the client whose command changed it (null for expiry and eviction);
  // `running`: the client whose command runs, if any (NOLOOP in default mode compares with it).
  void invalidate(std::string_view key, const Session* by, const Session* running);
  // FLUSHALL / FLUSHDB: a null invalidation to every tracking client; every key is forgotten.
  void invalidate_all();
  // Sends what BCAST clients' prefixes collected since the last call (after each batch).
  void broadcast();
  // tracking-table-max-keys: forgets keys (telling their readers) while the table has more than
  // `max_keys` (0: no limit); the effort grows each time a call ends still over the limit.
  void limit(std::size_t max_keys);

  bool in_use() const { return used_; }
  std::size_t clients() const { return clients_.size(); }
  std::size_t keys() const { return table_.size(); }
  std::size_t items() const { return items_; }
  std::size_t prefixes() const { return prefixes_.size(); }

  // Whether two BCAST prefixes overlap (one starts the other): Redis refuses such a pair for one
  // client.
  static bool overlap(std::string_view a, std::string_view b);

 private:
  struct Prefix {
    // Keys changed since the last broadcast, sorted as Redis sends them, each with the client
    // that changed it last (null: not a client), for NOLOOP.
    std::map<std::string, const Session*, std::less<>> changed;
    std::set<Session*> clients;
  };

  // Sends `keys` (an encoded array, or a null) to `s` as an invalidation, through its redirect.
  void send(Session& s, std::string_view keys);
  void drop_key(std::unordered_map<std::string, std::vector<uint64_t>>::iterator it,
                const Session* running);

  std::function<Session*(uint64_t)> find_;
  bool used_ = false;  // a client enabled tracking once: from then on changes are looked up
  std::map<uint64_t, Session*> clients_;  // the tracking clients, by id
  std::unordered_map<std::string, std::vector<uint64_t>> table_;
  std::size_t items_ = 0;  // ids across table_
  std::map<std::string, Prefix, std::less<>> prefixes_;
  unsigned limit_rounds_ = 0;  // calls of limit() that ended over the limit, in a row
};

}  // namespace streamd::cmd
