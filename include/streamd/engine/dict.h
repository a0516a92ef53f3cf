// Dict<T>: a chained hash table from string keys to T with power-of-two bucket counts.
//
// Why not std::unordered_map: SCAN needs a cursor that survives resizes between calls and still
// visits every key that is present for the whole scan. With 2^n buckets and a cursor that walks
// bucket indexes in reverse-binary order (incrementing the reversed bits), a table that grows or
// shrinks between calls maps every unvisited bucket to buckets the cursor has not passed yet.
// It also gives O(1) random-bucket sampling for RANDOMKEY and active expiry.
//
// Invariants: buckets_.size() is 0 or a power of two; size_ counts nodes; the table grows when
// size_ > buckets and shrinks when size_ < buckets/8 (never below kMinBuckets).
//
// Resizing is incremental, as Redis's: relinking every node of a table of millions at once froze
// the server (1.8 s for the SET that took a table to 4,194,304 keys). A resize past
// kIncrementalBuckets allocates the new table (next_) and moves the old one's buckets over in
// order: one bucket for each insert or erase, and more in the server's cron (rehash_for). While
// rehashing, a key whose bucket in buckets_ is below moved_ lives in next_ (that bucket is empty),
// otherwise in buckets_: each lookup reads exactly one chain. SCAN visits a bucket of the smaller
// table and every bucket of the larger one it splits into, as Redis's dictScan does.
//
// A node is one allocation: the chain link, the value, the key's length and the key's bytes
// right behind them. A std::string member took 32 bytes and, past its inline 15 bytes, a second
// allocation: a lookup of a long key read two blocks, and a key cost the string's header and its
// own malloc chunk (measured with SET of 200,000 keys: 16 bytes less per key for "k:N", 32 for
// 43-byte keys, none for 14-byte keys, where malloc's 16-byte rounding takes the difference).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "streamd/engine/zeroed_array.h"

namespace streamd::engine {

template <class T>
class Dict {
 public:
  struct Node {
    Node* next;
    T value;
    std::size_t key_len;  // (a uint32_t would save nothing: T is 8-aligned, the node padded)
    // The key's bytes follow the node in the same block (make_node).
    const char* key_data() const { return reinterpret_cast<const char*>(this + 1); }
    std::string_view key() const { return {key_data(), key_len}; }
    bool has_key(std::string_view k) const {
      return key_len == k.size() && (k.empty() || std::memcmp(key_data(), k.data(), k.size()) == 0);
    }
  };

  Dict() = default;
  Dict(const Dict&) = delete;
  Dict& operator=(const Dict&) = delete;
  Dict(Dict&& o) noexcept { swap(o); }
  Dict& operator=(Dict&& o) noexcept {
    clear();
    swap(o);
    return *this;
  }
  ~Dict() { clear(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The larger table's buckets while rehashing: SCAN's cursor space and a walk's bound.
  std::size_t bucket_count() const { return std::max(buckets_.size(), next_.size()); }
  // What the table itself costs beside the keys and values: the buckets and each node's link and
  // key length (MEMORY STATS overhead.hashtable.main).
  std::size_t table_bytes() const {
    return (buckets_.size() + next_.size()) * sizeof(Node*) +
           size_ * (sizeof(Node*) + sizeof(std::size_t));
  }
  bool rehashing() const { return !next_.empty(); }
  // While rehashing, the old table's bytes (MEMORY STATS overhead.db.hashtable.rehashing).
  std::size_t rehashing_bytes() const { return rehashing() ? buckets_.size() * sizeof(Node*) : 0; }

  // Moves up to `count` buckets of a resize in progress (empty ones count a tenth, as in Redis's
  // dictRehash); false once no resize is in progress.
  bool rehash_step(std::size_t count) {
    std::size_t empty_visits = count * 10;
    while (rehashing() && count > 0) {
      Node* head = buckets_[moved_];
      if (!head && empty_visits > 0) {
        --empty_visits;
        ++moved_;
      } else {
        buckets_[moved_++] = nullptr;
        --count;
        const std::size_t mask = next_.size() - 1;
        while (head) {
          Node* n = head;
          head = n->next;
          std::size_t b = hash(n->key()) & mask;
          n->next = next_[b];
          next_[b] = n;
        }
      }
      if (moved_ == buckets_.size()) finish_rehash();
    }
    return rehashing();
  }

  // Resizes from this many buckets on are incremental; smaller ones relink at once. Tests lower it
  // to run the incremental paths on small tables.
  static constexpr std::size_t kIncrementalBuckets = 1024;
  void set_incremental_from(std::size_t buckets) { incremental_from_ = buckets; }

  static uint64_t hash(std::string_view k) {
    // FNV-1a folded with a multiply-xorshift finaliser: cheap and well mixed in the low bits,
    // which are the ones the bucket mask keeps.
    uint64_t h = 1469598103934665603ull ^ seed_;
    for (unsigned char c : k) h = (h ^ c) * 1099511628211ull;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
  }

  T* find(std::string_view key) {
    Node* n = find_node(key);
    return n ? &n->value : nullptr;
  }
  const T* find(std::string_view key) const { return const_cast<Dict*>(this)->find(key); }
  // The node holding `key` (nodes stay where they are until erased: a rehash relinks them), or
  // nullptr.
  Node* node(std::string_view key) const { return find_node(key); }

  // Inserts (key, value) if absent. Returns the value slot and whether it was inserted.
  std::pair<T*, bool> insert(std::string_view key, T&& value) {
    if (Node* n = find_node(key)) return {&n->value, false};
    return {&insert_absent(key, std::move(value))->value, true};
  }

  // Inserts (key, value) where the caller knows `key` is absent (one hash, no search).
  Node* insert_absent(std::string_view key, T&& value) {
    if (rehashing()) rehash_step(1);
    maybe_grow();
    Node** head = slot(hash(key));
    Node* n = make_node(*head, key, std::move(value));
    *head = n;
    ++size_;
    return n;
  }

  bool erase(std::string_view key) {
    if (size_ == 0) return false;
    if (rehashing()) rehash_step(1);
    for (Node** p = slot(hash(key)); *p; p = &(*p)->next) {
      if ((*p)->has_key(key)) {
        unlink(p);
        return true;
      }
    }
    return false;
  }

  // Erases a node of this dict (from node()).
  void erase(Node* n) {
    if (rehashing()) rehash_step(1);
    for (Node** p = slot(hash(n->key())); *p; p = &(*p)->next) {
      if (*p == n) return unlink(p);
    }
  }

  // Removes the node for `key` and hands back its value (used to move a value elsewhere).
  bool extract(std::string_view key, T& out) {
    if (size_ == 0) return false;
    for (Node** p = slot(hash(key)); *p; p = &(*p)->next) {
      if ((*p)->has_key(key)) {
        Node* dead = *p;
        *p = dead->next;
        out = std::move(dead->value);
        free_node(dead);
        --size_;
        maybe_shrink();
        return true;
      }
    }
    return false;
  }

  void clear() {
    for (auto* table : {&buckets_, &next_}) {
      for (Node*& head : *table) {
        while (head) {
          Node* n = head;
          head = n->next;
          free_node(n);
        }
      }
      *table = Table();
    }
    moved_ = 0;
    size_ = 0;
    key_bytes_ = 0;
  }

  void swap(Dict& o) noexcept {
    buckets_.swap(o.buckets_);
    next_.swap(o.next_);
    std::swap(moved_, o.moved_);
    std::swap(size_, o.size_);
    std::swap(key_bytes_, o.key_bytes_);
    std::swap(incremental_from_, o.incremental_from_);
  }

  template <class F>
  void for_each(F&& f) const {
    for (const auto* table : {&buckets_, &next_}) {
      for (Node* head : *table) {
        for (Node* n = head; n; n = n->next) f(n->key(), n->value);
      }
    }
  }

  // Visits the bucket at `cursor` and returns the next cursor (0 when the scan is complete). While
  // rehashing: the smaller table's bucket at `cursor` and every bucket of the larger table that
  // it splits into (their indexes share its low bits), in either table's part (moved or not).
  template <class F>
  uint64_t scan_bucket(uint64_t cursor, F&& f) const {
    if (buckets_.empty()) return 0;
    auto visit = [&](const Table& table, uint64_t i) {
      for (Node* n = table[i & (table.size() - 1)]; n; n = n->next) f(n->key(), n->value);
    };
    if (!rehashing()) {
      visit(buckets_, cursor);
      return next_cursor(cursor, buckets_.size() - 1);
    }
    const bool old_small = buckets_.size() < next_.size();
    const auto& small = old_small ? buckets_ : next_;
    const auto& big = old_small ? next_ : buckets_;
    const uint64_t small_mask = small.size() - 1;
    const uint64_t big_mask = big.size() - 1;
    visit(small, cursor);
    // The larger table's buckets ending in the smaller one's index: walk the bits between the
    // masks in reverse-binary order until they are all back to zero.
    do {
      visit(big, cursor);
      cursor = next_cursor(cursor, big_mask);
    } while (cursor & (small_mask ^ big_mask));
    return cursor;
  }

  // A node picked from a random non-empty bucket of either table (not uniform over keys, as in
  // Redis).
  Node* random_node(std::mt19937_64& rng) {
    if (size_ == 0) return nullptr;
    const std::size_t buckets = buckets_.size() + next_.size();
    for (;;) {
      std::size_t i = rng() % buckets;
      Node* head = i < buckets_.size() ? buckets_[i] : next_[i - buckets_.size()];
      if (!head) continue;
      std::size_t len = 0;
      for (Node* n = head; n; n = n->next) ++len;
      std::size_t pick = rng() % len;
      while (pick--) head = head->next;
      return head;
    }
  }

  // Prefetch for a batch of lookups about to happen (the keys of a pipelined batch): each stage
  // starts the loads of every key before the next stage reads any, so the cache misses of a
  // stage overlap across the batch instead of following one another key by key. Stage 1: the
  // buckets; 2: the chains' first nodes (their first line and the key's); 3: the nodes found,
  // whose values `visit(const T&)` may prefetch into. Reads only. At most kPrefetchBatch keys.
  static constexpr std::size_t kPrefetchBatch = 16;
  template <class F>
  void prefetch(std::span<const std::string_view> keys, F&& visit) const {
    if (buckets_.empty()) return;
    std::size_t n = std::min(keys.size(), kPrefetchBatch);
    Node* const* heads[kPrefetchBatch];
    for (std::size_t i = 0; i < n; ++i) {
      heads[i] = slot(hash(keys[i]));
      __builtin_prefetch(heads[i]);
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (const Node* head = *heads[i]) {
        __builtin_prefetch(head);
        __builtin_prefetch(head->key_data());  // past the block when the key is empty: harmless
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (const Node* x = find_in_chain(*heads[i], keys[i])) visit(x->value);
    }
  }

  // Approximate heap bytes used by the table itself (not the values' own allocations).
  std::size_t overhead_bytes() const {
    return (buckets_.size() + next_.size()) * sizeof(Node*) + size_ * sizeof(Node) + key_bytes_;
  }

 private:
  static constexpr std::size_t kMinBuckets = 4;
  static inline const uint64_t seed_ = std::random_device{}();

  static uint64_t reverse_bits(uint64_t v) {
    v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
    v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((v & 0x0F0F0F0F0F0F0F0Full) << 4);
    v = ((v >> 8) & 0x00FF00FF00FF00FFull) | ((v & 0x00FF00FF00FF00FFull) << 8);
    v = ((v >> 16) & 0x0000FFFF0000FFFFull) | ((v & 0x0000FFFF0000FFFFull) << 16);
    return (v >> 32) | (v << 32);
  }

  // Removes and frees the node *link points to.
  void unlink(Node** link) {
    Node* dead = *link;
    *link = dead->next;
    free_node(dead);
    --size_;
    maybe_shrink();
  }

  static Node* find_in_chain(Node* head, std::string_view key) {
    for (Node* n = head; n; n = n->next) {
      if (n->has_key(key)) return n;
    }
    return nullptr;
  }

  // The head of the chain a key with hash `h` lives in (see the class comment). buckets_ must not
  // be empty. Mutable through a const Dict: its const callers only read through it.
  Node** slot(uint64_t h) const {
    std::size_t b = h & (buckets_.size() - 1);
    Node* const* head = b < moved_ ? &next_[h & (next_.size() - 1)] : &buckets_[b];
    return const_cast<Node**>(head);
  }

  Node* find_node(std::string_view key) const {
    if (size_ == 0) return nullptr;
    return find_in_chain(*slot(hash(key)), key);
  }

  static uint64_t next_cursor(uint64_t cursor, uint64_t mask) {
    // Increment the reversed cursor: set the bits above the mask so the carry propagates out.
    cursor |= ~mask;
    cursor = reverse_bits(cursor);
    ++cursor;
    return reverse_bits(cursor);
  }

  // Nothing between the allocation and the node's construction may throw, or the block leaks.
  static_assert(std::is_nothrow_move_constructible_v<T>);
  Node* make_node(Node* next, std::string_view key, T&& value) {
    void* block = ::operator new(sizeof(Node) + key.size());
    Node* n = ::new (block) Node{next, std::move(value), key.size()};
    if (!key.empty()) std::memcpy(static_cast<char*>(block) + sizeof(Node), key.data(), key.size());
    key_bytes_ += key.size();
    return n;
  }

  void free_node(Node* n) {
    key_bytes_ -= n->key_len;
    n->~Node();
    ::operator delete(n);
  }

  // Starts a resize to `count` buckets: incremental from incremental_from_ buckets on (the larger
  // of the two tables), otherwise done at once.
  void resize(std::size_t count) {
    if (std::max(count, buckets_.size()) < incremental_from_) return rehash(count);
    next_ = Table(count);
    moved_ = 0;
  }

  void finish_rehash() {
    buckets_.swap(next_);
    next_ = Table();
    moved_ = 0;
  }

  void rehash(std::size_t count) {
    Table fresh(count);
    for (Node* head : buckets_) {
      while (head) {
        Node* n = head;
        head = n->next;
        std::size_t b = hash(n->key()) & (count - 1);
        n->next = fresh[b];
        fresh[b] = n;
      }
    }
    buckets_.swap(fresh);
  }

  // Neither starts a resize while one is in progress: each insert and erase moves a bucket, so a
  // resize ends before the table could need another (a doubling takes as many inserts as the old
  // table has buckets).
  void maybe_grow() {
    if (buckets_.empty()) {
      buckets_ = Table(kMinBuckets);
    } else if (!rehashing() && size_ + 1 > buckets_.size()) {
      resize(buckets_.size() * 2);
    }
  }

  void maybe_shrink() {
    if (!rehashing() && buckets_.size() > kMinBuckets && size_ < buckets_.size() / 8) {
      std::size_t target = kMinBuckets;
      while (target < size_) target *= 2;
      resize(target);
    }
  }

  using Table = ZeroedArray<Node*>;
  Table buckets_;
  Table next_;             // while rehashing: the table being filled; empty otherwise
  std::size_t moved_ = 0;  // while rehashing: buckets_[0, moved_) were moved to next_
  std::size_t incremental_from_ = kIncrementalBuckets;
  std::size_t size_ = 0;
  std::size_t key_bytes_ = 0;  // the keys' bytes, behind their nodes
};

}  // namespace streamd::engine
