// The keyspace: numbered databases of keys, each holding a string or a stream, with optional
// expiry. On a master, expiry is lazy (a lookup of an expired key deletes it first) and active (a
// periodic sampler, active_expire_cycle); on a replica expired keys are only hidden (ExpiryMode).
// The keyspace tells a KeyObserver about every key it changes or deletes on its own (expiry,
// flush), so the command layer can break WATCHes and wake blocked readers without the engine
// knowing about clients.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/engine/access_tracking.h"
#include "streamd/engine/clock.h"
#include "streamd/engine/dict.h"
#include "streamd/engine/pointer_set.h"

namespace streamd::engine {

class Stream;

enum class ValueType { kString, kStream };

// How redis-server 7.0 would have encoded a string value. The engine only stores it for OBJECT
// ENCODING / OBJECT REFCOUNT and MEMORY USAGE; which command yields which encoding is decided by
// the commands. kSharedInt is an int from Redis's shared pool (0..9999), whose refcount is
// INT_MAX.
enum class StrEncoding : uint8_t { kRaw, kEmbstr, kInt, kSharedInt };

// A key's value. Streams live behind a pointer so a Value stays small and moving it is cheap.
class Value {
 public:
  // A string encoded as SET would store it (see encoding_for).
  explicit Value(std::string s);
  Value(std::string s, StrEncoding enc);
  explicit Value(std::unique_ptr<Stream> s);
  Value(Value&&) noexcept;
  Value& operator=(Value&&) noexcept;
  ~Value();

  ValueType type() const { return stream_ ? ValueType::kStream : ValueType::kString; }
  bool is_string() const { return !stream_; }
  bool is_stream() const { return static_cast<bool>(stream_); }
  std::string& str() { return str_; }
  const std::string& str() const { return str_; }
  StrEncoding str_encoding() const { return encoding_; }
  void set_str_encoding(StrEncoding e) { encoding_ = e; }
  Stream& stream() { return *stream_; }
  const Stream& stream() const { return *stream_; }

  Value clone() const;  // deep copy (COPY); a shared int becomes a private int, as in Redis

  // Redis's rule for a string stored from a client argument: an integer in canonical form that
  // fits in 64 bits is an int (shared when 0..9999), otherwise embstr up to 44 bytes, else raw.
  static StrEncoding encoding_for(std::string_view s);
  // The encoding of a string Redis builds itself (INCRBYFLOAT results): embstr or raw by length.
  static StrEncoding plain_encoding_for(std::size_t len) {
    return len <= kEmbstrMaxLen ? StrEncoding::kEmbstr : StrEncoding::kRaw;
  }
  static constexpr std::size_t kEmbstrMaxLen = 44;

 private:
  std::string str_;
  StrEncoding encoding_ = StrEncoding::kRaw;
  std::unique_ptr<Stream> stream_;
};

// Why a key went away, changed or appeared, for observers. kAdded: set/add/put stored a key that
// did not exist (or existed only as an expired entry): Redis's "new" keyspace event. kEvicted:
// deleted to bring memory under maxmemory (Database::evict).
enum class KeyEvent { kModified, kDeleted, kExpired, kAdded, kEvicted };

class KeyObserver {
 public:
  virtual ~KeyObserver() = default;
  virtual void on_key_event(int db, std::string_view key, KeyEvent ev) = 0;
  // Called just before database `db` is emptied.
  virtual void on_db_flushed(int db) = 0;
  // Called once as a flush starts, before its on_db_flushed calls: `db` for one database,
  // -1 for all of them.
  virtual void on_flush(int /*db*/) {}
};

// What an expired key is, by the server's role (Redis's expireIfNeeded):
// - kDelete: a master. A lookup deletes an expired key first (observers hear kExpired) and
//   active_expire_cycle samples and deletes them.
// - kHide: a replica. Expired keys read as absent (find/peek/scan/for_each skip them) but nothing
//   deletes them on its own: neither lookups nor active_expire_cycle. Only the master's DEL
//   (erase) removes them, so DBSIZE and expires() still count them, as on a Redis replica. A write
//   that stores over one (set, add: a writable replica's write) replaces it, as Redis's write
//   lookups do there.
// - kKeep: a replica applying its master's stream. Expired keys are live: the master decides
//   when a key expires, and its commands act on what it sees.
enum class ExpiryMode : uint8_t { kDelete, kHide, kKeep };

struct Entry {
  Value value;
  int64_t expire_ms = -1;  // absolute Unix ms, -1 = persistent
  // Last access for OBJECT IDLETIME / FREQ and eviction: set when the value is stored and by
  // lookups that touch the key (Database::find with touch = true). A time in Unix ms, or under
  // an LFU policy Redis's LFU state (access_tracking.h says which and how).
  int64_t access_ms = 0;
};

class Database {
 public:
  Database(int index, const Clock& clock) : index_(index), clock_(&clock) {}

  int index() const { return index_; }

  // Finds a live key; an expired key is deleted first (and observers told). nullptr if absent.
  // `touch` records the access for OBJECT IDLETIME (false for OBJECT itself, TYPE, TTL...).
  Entry* find(std::string_view key, bool touch = true);
  // Prefetches what lookups of these keys will read (the dict's buckets and nodes, a stream's
  // object and node tree root), for a pipelined batch about to run: see Dict::prefetch. Hints
  // only: nothing is read into a result, expired or not, and nothing changes.
  void prefetch(std::span<const std::string_view> keys) const;
  static constexpr std::size_t kPrefetchBatch = Dict<Entry>::kPrefetchBatch;  // keys at most
  // Below this many keys a database's hot part stays in the cache and a prefetch costs more
  // than it saves (pipelined XADD to one key: 6% slower with it).
  static constexpr std::size_t kPrefetchMinKeys = 1024;
  bool worth_prefetching() const { return dict_.size() >= kPrefetchMinKeys; }
  // Same, but never deletes (used where Redis avoids side effects, e.g. during a scan).
  const Entry* peek(std::string_view key) const;
  // The stored entry, expired or not (DEBUG DIGEST-VALUE looks at what is stored).
  const Entry* peek_stored(std::string_view key) const { return dict_.find(key); }
  bool exists(std::string_view key) { return find(key) != nullptr; }

  // Inserts or overwrites. `keep_ttl` keeps an existing expiry; otherwise the key is persistent.
  // A stored value counts as accessed now (set, add). set and add tell observers kAdded when
  // the key is new; put always does (it is Redis's delete + add: RENAME, MOVE, COPY).
  Entry& set(std::string_view key, Value value, bool keep_ttl = false);
  // set, with the key's expiry set to `expire_ms` in the same lookup, or none when it is -1 (as
  // set without keep_ttl): SET ... EX, RESTORE, loading an RDB file.
  Entry& set_with_expiry(std::string_view key, Value value, int64_t expire_ms);
  // Inserts only if absent; returns nullptr if the key exists.
  Entry* add(std::string_view key, Value value);
  bool erase(std::string_view key);
  // Deletes a key to free memory (maxmemory): observers hear kEvicted. False if absent. With
  // `freed`, stores what the deletion alone gave back (used_memory before and after it, measured
  // before observers run: the DEL record they propagate may grow the AOF buffer or open a
  // backlog block, and counting that made one eviction look like it freed megabytes less than
  // nothing, so the caller evicted every key; Redis's performEvictions measures the same way).
  bool evict(std::string_view key, int64_t* freed = nullptr);
  // DEL / UNLINK: true if a key was deleted. On a master an expired key expires first and
  // counts as absent; on a replica (kHide, kKeep), where expiry only hides it, it is deleted and
  // counts, as Redis's DEL does there.
  bool remove(std::string_view key);
  // Moves a key out (RENAME, MOVE); the entry keeps its expiry.
  bool take(std::string_view key, Entry& out);
  void put(std::string_view key, Entry entry);  // overwrites

  // Set or drop the expiry of `e`, the entry stored at `key` (the index of keys with a TTL is
  // kept by node, found by the key when a key gains or loses its TTL).
  void set_expire(std::string_view key, Entry& e, int64_t when_ms);
  bool persist(std::string_view key, Entry& e);
  // Whether `e` counts as expired now (never in kKeep mode).
  bool is_expired(const Entry& e) const { return expired_at(e, clock_->now_ms()); }

  void set_expiry_mode(ExpiryMode m) { mode_ = m; }
  ExpiryMode expiry_mode() const { return mode_; }

  std::size_t size() const { return dict_.size(); }
  std::size_t expires() const { return volatile_.size(); }
  // The key table's own bytes (Dict::table_bytes).
  std::size_t table_overhead() const { return dict_.table_bytes(); }
  // An incremental resize of the key table (Dict) in progress: inserts and erases move it on a
  // bucket at a time, the server's cron by rehash_step (activerehashing).
  bool rehashing() const { return dict_.rehashing(); }
  std::size_t rehashing_bytes() const { return dict_.rehashing_bytes(); }
  bool rehash_step(std::size_t buckets) { return dict_.rehash_step(buckets); }
  // The index of keys with a TTL (MEMORY STATS overhead.hashtable.expires).
  std::size_t expires_overhead() const { return volatile_.table_bytes(); }
  // INFO keyspace's avg_ttl: Redis's estimate, a running mean of the TTLs active expiry samples
  // (active_expire_step); 0 until a step sampled a live key, and again once no key has a TTL.
  long long avg_ttl_ms() const { return avg_ttl_; }
  void clear();

  // SCAN: visits the keys of the buckets at `cursor` (reverse-binary order); returns the next
  // cursor, 0 when done. A key present for the whole scan is visited at least once. Expired keys
  // are skipped unless `expired` is kVisit (the SCAN command filters first, then expires what it
  // would have returned, as Redis's does).
  enum class ScanExpired { kSkip, kVisit };
  uint64_t scan(uint64_t cursor, std::size_t count,
                const std::function<void(std::string_view, const Entry&)>& visit,
                ScanExpired expired = ScanExpired::kSkip) const;
  // Visits every key (KEYS, AOF rewrite). The callback must not modify the database.
  void for_each(const std::function<void(std::string_view, const Entry&)>& visit) const;
  // Visits every stored key, expired ones included (DEBUG DIGEST: Redis digests its whole dict).
  template <class F>
  void for_each_stored(F&& visit) const {
    dict_.for_each(visit);
  }
  // A random live key, or nullopt-like empty string with found=false. In kHide mode, when every
  // key has a TTL and the bounded retries met only expired ones, one of them (Redis's replica
  // does the same rather than loop forever).
  bool random_key(std::string& out);

  // Visits up to `count` stored keys (expired ones included): walking the table from a random
  // bucket (Redis's dictGetSomeKeys), or with `with_ttl` picked at random among the keys with a
  // TTL (a key may come twice), however few of the keys have one.
  void sample(std::size_t count, bool with_ttl,
              const std::function<void(std::string_view, const Entry&)>& visit) const;

  // How accesses are recorded in Entry::access_ms (the maxmemory policy decides).
  void set_access_tracking(AccessTracking t, const LfuParams& p) {
    tracking_ = t;
    lfu_ = p;
  }
  AccessTracking access_tracking() const { return tracking_; }
  const LfuParams& lfu_params() const { return lfu_; }
  // Whether small integers are stored as Redis's shared objects (kSharedInt, refcount INT_MAX).
  // Redis stops sharing them under an LRU or LFU maxmemory policy with a limit set, since a
  // shared object cannot keep a per-key access time; set and add then store them as kInt.
  void set_shared_integers(bool on) { shared_ints_ = on; }
  bool shared_integers() const { return shared_ints_; }
  // What access_ms holds for a key stored now.
  int64_t fresh_access(int64_t now_ms) const {
    return tracking_ == AccessTracking::kLfu ? lfu_initial(now_ms) : now_ms;
  }

  // One loop of Redis's active expiry in this database: looks at up to `keys` keys with a TTL,
  // going on from where the last step stopped (a cursor over them, Redis's expires_cursor),
  // deletes the expired ones and folds the others' TTLs into avg_ttl_ms. `done`: the cursor
  // came round to the start (Redis stops a database's loop there). Only in kDelete mode.
  struct ExpireStep {
    std::size_t sampled = 0;
    std::size_t expired = 0;
    bool done = false;
  };
  ExpireStep active_expire_step(std::size_t keys);

  void set_observer(KeyObserver* o) { observer_ = o; }
  void notify(std::string_view key, KeyEvent ev) {
    if (observer_) observer_->on_key_event(index_, key, ev);
  }

  uint64_t expired_keys_total() const { return expired_total_; }

  // Swaps contents with another database (SWAPDB); indexes stay.
  void swap_contents(Database& other);

 private:
  using Node = Dict<Entry>::Node;
  void expire_now(std::string_view key);
  // Deletes a node of dict_ and its place in volatile_.
  void drop(Node* n);
  // set's work; returns the node stored.
  Node* store(std::string_view key, Value value, bool keep_ttl);
  void record_access(Entry& e, int64_t now);
  void unshare_int(Value& v) const {
    if (!shared_ints_ && v.str_encoding() == StrEncoding::kSharedInt) {
      v.set_str_encoding(StrEncoding::kInt);
    }
  }
  bool expired_at(const Entry& e, int64_t now) const {
    return mode_ != ExpiryMode::kKeep && e.expire_ms >= 0 && e.expire_ms <= now;
  }

  int index_;
  const Clock* clock_;
  Dict<Entry> dict_;
  // The nodes of dict_ whose entry has a TTL (expire_ms >= 0): exactly those, always.
  PointerSet<Node> volatile_;
  std::size_t expire_cursor_ = 0;
  long long avg_ttl_ = 0;
  uint64_t expired_total_ = 0;
  KeyObserver* observer_ = nullptr;
  ExpiryMode mode_ = ExpiryMode::kDelete;
  AccessTracking tracking_ = AccessTracking::kLru;
  LfuParams lfu_;
  bool shared_ints_ = true;
};

class Keyspace {
 public:
  Keyspace(int databases, const Clock& clock);

  Database& db(int i) { return *dbs_[static_cast<std::size_t>(i)]; }
  const Database& db(int i) const { return *dbs_[static_cast<std::size_t>(i)]; }
  int databases() const { return static_cast<int>(dbs_.size()); }
  const Clock& clock() const { return *clock_; }
  void set_observer(KeyObserver* o);
  // Every database's ExpiryMode (the replica side sets it as the server's role changes).
  void set_expiry_mode(ExpiryMode m);
  ExpiryMode expiry_mode() const { return mode_; }
  // Every database's access tracking (the maxmemory policy and lfu-* directives decide).
  void set_access_tracking(AccessTracking t, const LfuParams& p);
  // Every database's set_shared_integers.
  void set_shared_integers(bool on);

  void flush_all();
  void flush_db(int i);
  void swap_db(int a, int b);

 private:
  void clear_db(int i);

  const Clock* clock_;
  std::vector<std::unique_ptr<Database>> dbs_;
  KeyObserver* observer_ = nullptr;
  ExpiryMode mode_ = ExpiryMode::kDelete;
};

}  // namespace streamd::engine
