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
#include <vector>

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
  std::size_t bucket_count() const { return buckets_.size(); }
  // What the table itself costs beside the keys and values: the buckets and each node's link and
  // key length (MEMORY STATS overhead.hashtable.main).
  std::size_t table_bytes() const {
    return buckets_.size() * sizeof(Node*) + size_ * (sizeof(Node*) + sizeof(std::size_t));
  }

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
    maybe_grow();
    std::size_t b = hash(key) & (buckets_.size() - 1);
    Node* n = make_node(buckets_[b], key, std::move(value));
    buckets_[b] = n;
    ++size_;
    return n;
  }

  bool erase(std::string_view key) {
    if (buckets_.empty()) return false;
    std::size_t b = hash(key) & (buckets_.size() - 1);
    for (Node** p = &buckets_[b]; *p; p = &(*p)->next) {
      if ((*p)->has_key(key)) {
        unlink(p);
        return true;
      }
    }
    return false;
  }

  // Erases a node of this dict (from node()).
  void erase(Node* n) {
    std::size_t b = hash(n->key()) & (buckets_.size() - 1);
    for (Node** p = &buckets_[b]; *p; p = &(*p)->next) {
      if (*p == n) return unlink(p);
    }
  }

  // Removes the node for `key` and hands back its value (used to move a value elsewhere).
  bool extract(std::string_view key, T& out) {
    if (buckets_.empty()) return false;
    std::size_t b = hash(key) & (buckets_.size() - 1);
    for (Node** p = &buckets_[b]; *p; p = &(*p)->next) {
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
    for (Node*& head : buckets_) {
      while (head) {
        Node* n = head;
        head = n->next;
        free_node(n);
      }
    }
    buckets_.clear();
    buckets_.shrink_to_fit();
    size_ = 0;
    key_bytes_ = 0;
  }

  void swap(Dict& o) noexcept {
    buckets_.swap(o.buckets_);
    std::swap(size_, o.size_);
    std::swap(key_bytes_, o.key_bytes_);
  }

  template <class F>
  void for_each(F&& f) const {
    for (Node* head : buckets_) {
      for (Node* n = head; n; n = n->next) f(n->key(), n->value);
    }
  }

  // Visits the bucket at `cursor` and returns the next cursor (0 when the scan is complete).
  template <class F>
  uint64_t scan_bucket(uint64_t cursor, F&& f) const {
    if (buckets_.empty()) return 0;
    uint64_t mask = buckets_.size() - 1;
    for (Node* n = buckets_[cursor & mask]; n; n = n->next) f(n->key(), n->value);
    // Increment the reversed cursor: set the bits above the mask so the carry propagates out.
    cursor |= ~mask;
    cursor = reverse_bits(cursor);
    ++cursor;
    cursor = reverse_bits(cursor);
    return cursor;
  }

  // A node picked from a random non-empty bucket (not uniform over keys, as in Redis).
  Node* random_node(std::mt19937_64& rng) {
    if (size_ == 0) return nullptr;
    uint64_t mask = buckets_.size() - 1;
    for (;;) {
      Node* head = buckets_[rng() & mask];
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
    Node* const* slot[kPrefetchBatch];
    std::size_t mask = buckets_.size() - 1;
    for (std::size_t i = 0; i < n; ++i) {
      slot[i] = &buckets_[hash(keys[i]) & mask];
      __builtin_prefetch(slot[i]);
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (const Node* head = *slot[i]) {
        __builtin_prefetch(head);
        __builtin_prefetch(head->key_data());  // past the block when the key is empty: harmless
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (const Node* x = find_in_chain(*slot[i], keys[i])) visit(x->value);
    }
  }

  // Approximate heap bytes used by the table itself (not the values' own allocations).
  std::size_t overhead_bytes() const {
    return buckets_.capacity() * sizeof(Node*) + size_ * sizeof(Node) + key_bytes_;
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

  Node* find_node(std::string_view key) const {
    if (buckets_.empty()) return nullptr;
    return find_in_chain(buckets_[hash(key) & (buckets_.size() - 1)], key);
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

  void rehash(std::size_t count) {
    std::vector<Node*> fresh(count, nullptr);
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

  void maybe_grow() {
    if (buckets_.empty()) {
      buckets_.assign(kMinBuckets, nullptr);
    } else if (size_ + 1 > buckets_.size()) {
      rehash(buckets_.size() * 2);
    }
  }

  void maybe_shrink() {
    if (buckets_.size() > kMinBuckets && size_ < buckets_.size() / 8) {
      std::size_t target = kMinBuckets;
      while (target < size_) target *= 2;
      rehash(target);
    }
  }

  std::vector<Node*> buckets_;
  std::size_t size_ = 0;
  std::size_t key_bytes_ = 0;  // the keys' bytes, behind their nodes
};

}  // namespace streamd::engine
