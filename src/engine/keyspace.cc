#include "streamd/engine/keyspace.h"

#include <cassert>

#include "streamd/engine/stream.h"
#include "streamd/engine/used_memory.h"

namespace streamd::engine {

Value::Value(std::string s) : str_(std::move(s)) {
  encoding_ = encoding_for(str_);
}
Value::Value(std::string s, StrEncoding enc) : str_(std::move(s)), encoding_(enc) {}
Value::Value(std::unique_ptr<Stream> s) : stream_(std::move(s)) {}
Value::Value(Value&&) noexcept = default;
Value& Value::operator=(Value&&) noexcept = default;
Value::~Value() = default;

Value Value::clone() const {
  if (stream_) return Value(stream_->clone());
  return Value(str_, encoding_ == StrEncoding::kSharedInt ? StrEncoding::kInt : encoding_);
}

StrEncoding Value::encoding_for(std::string_view s) {
  // Canonical 64-bit integers only: no sign but '-', no leading zeros, no "-0", at most 20 bytes.
  auto as_int = [](std::string_view d, bool& small) {
    small = false;
    if (d.empty() || d.size() > 20) return false;
    bool neg = d[0] == '-';
    std::string_view digits = neg ? d.substr(1) : d;
    if (digits.empty() || digits.size() > 19) return false;
    if (digits[0] == '0' && (digits.size() > 1 || neg)) return false;
    unsigned long long v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      unsigned d2 = static_cast<unsigned>(c - '0');
      if (v > (~0ull - d2) / 10) return false;
      v = v * 10 + d2;
    }
    unsigned long long limit = neg ? (1ull << 63) : (1ull << 63) - 1;
    if (v > limit) return false;
    small = !neg && v < 10000;
    return true;
  };
  bool small = false;
  if (as_int(s, small)) return small ? StrEncoding::kSharedInt : StrEncoding::kInt;
  return plain_encoding_for(s.size());
}

namespace {
std::mt19937_64& rng() {
  static std::mt19937_64 r{std::random_device{}()};
  return r;
}
}  // namespace

Entry* Database::find(std::string_view key, bool touch) {
  Entry* e = dict_.find(key);
  if (!e) return nullptr;
  int64_t now = clock_->now_ms();
  if (expired_at(*e, now)) {
    // A replica only hides it: its master's DEL removes it.
    if (mode_ == ExpiryMode::kDelete) expire_now(key);
    return nullptr;
  }
  if (touch) record_access(*e, now);
  return e;
}

void Database::record_access(Entry& e, int64_t now) {
  if (tracking_ == AccessTracking::kLfu) {
    e.access_ms = lfu_after_access(e.access_ms, now, lfu_, rng());
  } else {
    e.access_ms = now;
  }
}

const Entry* Database::peek(std::string_view key) const {
  const Entry* e = dict_.find(key);
  if (!e || is_expired(*e)) return nullptr;
  return e;
}

void Database::prefetch(std::span<const std::string_view> keys) const {
  const Stream* streams[kPrefetchBatch];
  std::size_t n = 0;
  dict_.prefetch(keys, [&](const Entry& e) {
    if (!e.value.is_stream()) return;
    streams[n] = &e.value.stream();
    streams[n++]->prefetch_object();
  });
  for (std::size_t i = 0; i < n; ++i) streams[i]->prefetch_tree();
}

void Database::expire_now(std::string_view key) {
  // Copy the key: `key` may point into the node being deleted.
  std::string k(key);
  if (Node* n = dict_.node(k)) {
    drop(n);
    ++expired_total_;
    notify(k, KeyEvent::kExpired);
  }
}

void Database::drop(Node* n) {
  if (n->value.expire_ms >= 0) volatile_.erase(n);
  dict_.erase(n);
}

Database::Node* Database::store(std::string_view key, Value value, bool keep_ttl) {
  unshare_int(value);
  Node* n = dict_.node(key);
  // An expired key is logically absent: it expires first (observers hear "expired", as after
  // Redis's lookupKeyWrite, which deletes it on a writable replica too), and the value is stored
  // as a new key without its TTL.
  if (n && is_expired(n->value)) {
    expire_now(key);
    n = nullptr;
  }
  if (n) {
    Entry& e = n->value;
    e.value = std::move(value);
    // Under LFU the key keeps its counter, as Redis's dbOverwrite keeps the old object's (the
    // command's own lookup of the key counted the access); otherwise it is accessed now.
    if (tracking_ != AccessTracking::kLfu) e.access_ms = clock_->now_ms();
    if (!keep_ttl && e.expire_ms >= 0) {
      volatile_.erase(n);
      e.expire_ms = -1;
    }
    return n;
  }
  n = dict_.insert_absent(key, Entry{std::move(value), -1, fresh_access(clock_->now_ms())});
  notify(key, KeyEvent::kAdded);
  return n;
}

Entry& Database::set(std::string_view key, Value value, bool keep_ttl) {
  return store(key, std::move(value), keep_ttl)->value;
}

Entry& Database::set_with_expiry(std::string_view key, Value value, int64_t expire_ms) {
  if (expire_ms < 0) return set(key, std::move(value));
  // The old TTL is kept through the store and replaced: a key that had one keeps its place in
  // volatile_ instead of leaving and entering it again.
  Node* n = store(key, std::move(value), /*keep_ttl=*/true);
  if (n->value.expire_ms < 0) volatile_.insert(n);
  n->value.expire_ms = expire_ms;
  return n->value;
}

Entry* Database::add(std::string_view key, Value value) {
  unshare_int(value);
  if (Entry* e = dict_.find(key)) {
    if (!is_expired(*e)) return nullptr;
    // As in set: a hidden (replica) or not yet deleted expired key is replaced.
    expire_now(key);
  }
  Node* added =
      dict_.insert_absent(key, Entry{std::move(value), -1, fresh_access(clock_->now_ms())});
  notify(key, KeyEvent::kAdded);
  return &added->value;
}

bool Database::evict(std::string_view key, int64_t* freed) {
  // Copy the key: `key` may point into the node being deleted.
  std::string k(key);
  if (!dict_.find(k)) return false;
  const auto before = static_cast<int64_t>(used_memory());
  erase(k);  // false for an expired key, which is evicted all the same
  if (freed) *freed = before - static_cast<int64_t>(used_memory());
  notify(k, KeyEvent::kEvicted);
  return true;
}

bool Database::erase(std::string_view key) {
  Node* n = dict_.node(key);
  if (!n) return false;
  bool live = !is_expired(n->value);
  drop(n);
  return live;
}

bool Database::remove(std::string_view key) {
  Node* n = dict_.node(key);
  if (!n) return false;
  if (mode_ == ExpiryMode::kDelete && is_expired(n->value)) {
    expire_now(key);
    return false;
  }
  drop(n);
  return true;
}

bool Database::take(std::string_view key, Entry& out) {
  if (!find(key, false)) return false;
  Node* n = dict_.node(key);
  if (n->value.expire_ms >= 0) volatile_.erase(n);
  Entry tmp{Value(std::string()), -1, 0};
  dict_.extract(key, tmp);
  out = std::move(tmp);
  return true;
}

void Database::put(std::string_view key, Entry entry) {
  erase(key);
  const bool with_ttl = entry.expire_ms >= 0;
  Node* n = dict_.insert_absent(key, std::move(entry));
  if (with_ttl) volatile_.insert(n);
  notify(key, KeyEvent::kAdded);
}

void Database::set_expire(std::string_view key, Entry& e, int64_t when_ms) {
  if (e.expire_ms < 0) {
    Node* n = dict_.node(key);
    assert(n && &n->value == &e);
    volatile_.insert(n);
  }
  e.expire_ms = when_ms;
}

bool Database::persist(std::string_view key, Entry& e) {
  if (e.expire_ms < 0) return false;
  Node* n = dict_.node(key);
  assert(n && &n->value == &e);
  volatile_.erase(n);
  e.expire_ms = -1;
  return true;
}

void Database::clear() {
  dict_.clear();
  volatile_.clear();
  expire_cursor_ = 0;
  avg_ttl_ = 0;
}

uint64_t Database::scan(uint64_t cursor, std::size_t count,
                        const std::function<void(std::string_view, const Entry&)>& visit,
                        ScanExpired expired) const {
  // Like Redis, COUNT is a hint: visit about `count` buckets' worth of keys (bounded by a number
  // of bucket steps so a sparse table does not make one call walk everything).
  std::size_t visited = 0;
  std::size_t steps = 0;
  std::size_t max_steps = count * 10;
  int64_t now = clock_->now_ms();
  do {
    cursor = dict_.scan_bucket(cursor, [&](std::string_view k, const Entry& e) {
      ++visited;
      if (expired == ScanExpired::kSkip && expired_at(e, now)) return;
      visit(k, e);
    });
    ++steps;
  } while (cursor != 0 && visited < count && steps < max_steps);
  return cursor;
}

void Database::for_each(const std::function<void(std::string_view, const Entry&)>& visit) const {
  int64_t now = clock_->now_ms();
  dict_.for_each([&](std::string_view k, const Entry& e) {
    if (expired_at(e, now)) return;
    visit(k, e);
  });
}

bool Database::random_key(std::string& out) {
  // Expired keys met on the way are deleted (only hidden on a replica); the retries are bounded
  // so a database made of expired keys costs a bounded amount of work per call.
  for (int tries = 0; tries < 100 && dict_.size() > 0; ++tries) {
    auto* n = dict_.random_node(rng());
    if (!is_expired(n->value)) {
      out = n->key();
      return true;
    }
    if (mode_ == ExpiryMode::kDelete) {
      expire_now(std::string(n->key()));
    } else if (tries == 99 && volatile_.size() == dict_.size()) {
      out = n->key();
      return true;
    }
  }
  return false;
}

void Database::sample(std::size_t count, bool with_ttl,
                      const std::function<void(std::string_view, const Entry&)>& visit) const {
  if (with_ttl) {
    // From the index of keys with a TTL: a member may come twice, as from Redis's sampling.
    for (std::size_t i = 0; i < count && !volatile_.empty(); ++i) {
      const Node* n = volatile_.random(rng());
      visit(n->key(), n->value);
    }
    return;
  }
  if (dict_.empty() || count == 0) return;
  // Buckets are walked in scan order from a random one, at most bucket_count() steps: the scan
  // order is a cycle through every bucket, so no bucket is visited twice.
  uint64_t cursor = rng()() & (dict_.bucket_count() - 1);
  std::size_t seen = 0;
  for (std::size_t steps = 0; steps < dict_.bucket_count() && seen < count; ++steps) {
    cursor = dict_.scan_bucket(cursor, [&](std::string_view key, const Entry& e) {
      if (seen >= count) return;
      ++seen;
      visit(key, e);
    });
  }
}

Database::ExpireStep Database::active_expire_step(std::size_t keys) {
  ExpireStep step;
  if (mode_ != ExpiryMode::kDelete) return step;
  if (volatile_.empty()) {
    avg_ttl_ = 0;  // as Redis's cycle does when a database has no key with a TTL
    step.done = true;
    return step;
  }
  const int64_t now = clock_->now_ms();
  std::vector<std::string> dead;
  // TTLs of the keys still alive: their mean feeds the estimate. 128 bits, since each TTL may be
  // near 2^63 ms (EXPIREAT accepts up to 2^63 - 1).
  unsigned __int128 ttl_sum = 0;
  uint64_t ttl_samples = 0;
  // The visit only reads: deleting moves members of the set (PointerSet::erase), so the
  // expired keys are collected and deleted after the walk.
  expire_cursor_ = volatile_.scan(expire_cursor_, keys, [&](const Node* n) {
    ++step.sampled;
    if (expired_at(n->value, now)) {
      dead.emplace_back(n->key());
    } else {
      ttl_sum += static_cast<uint64_t>(n->value.expire_ms - now);
      ++ttl_samples;
    }
  });
  step.done = expire_cursor_ == 0;
  for (auto& k : dead) expire_now(k);
  step.expired = dead.size();
  if (ttl_samples > 0) {
    // Redis's running estimate: the new sample's mean weighs 2%.
    auto mean = static_cast<long long>(ttl_sum / ttl_samples);
    avg_ttl_ = avg_ttl_ == 0 ? mean : (avg_ttl_ / 50) * 49 + mean / 50;
  }
  return step;
}

void Database::swap_contents(Database& other) {
  dict_.swap(other.dict_);
  volatile_.swap(other.volatile_);
  std::swap(expire_cursor_, other.expire_cursor_);
  std::swap(avg_ttl_, other.avg_ttl_);
}

Keyspace::Keyspace(int databases, const Clock& clock) : clock_(&clock) {
  for (int i = 0; i < databases; ++i) dbs_.push_back(std::make_unique<Database>(i, clock));
}

void Keyspace::set_observer(KeyObserver* o) {
  observer_ = o;
  for (auto& d : dbs_) d->set_observer(o);
}

void Keyspace::set_expiry_mode(ExpiryMode m) {
  mode_ = m;
  for (auto& d : dbs_) d->set_expiry_mode(m);
}

void Keyspace::set_access_tracking(AccessTracking t, const LfuParams& p) {
  for (auto& d : dbs_) d->set_access_tracking(t, p);
}

void Keyspace::set_shared_integers(bool on) {
  for (auto& d : dbs_) d->set_shared_integers(on);
}

void Keyspace::flush_db(int i) {
  if (observer_) observer_->on_flush(i);
  clear_db(i);
}

void Keyspace::flush_all() {
  if (observer_) observer_->on_flush(-1);
  for (int i = 0; i < databases(); ++i) clear_db(i);
}

void Keyspace::clear_db(int i) {
  // Observers are told first, while they can still see which keys existed.
  if (observer_) observer_->on_db_flushed(i);
  dbs_[static_cast<std::size_t>(i)]->clear();
}

void Keyspace::swap_db(int a, int b) {
  dbs_[static_cast<std::size_t>(a)]->swap_contents(*dbs_[static_cast<std::size_t>(b)]);
}

}  // namespace streamd::engine
