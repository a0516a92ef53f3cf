// RadixTree<V>: an ordered map from byte strings to V, built as a compressed radix tree.
// It knows nothing about streams: stream nodes (keyed by 16-byte big-endian IDs), PEL entries
// and consumer groups all use it.
//
// Layout (designed for a low cost per key):
// - A node is ONE heap block: an 8-byte header, its compressed path (`prefix`, any length), the
//   sorted edge bytes of its children, a bitmap saying which child slots are inline values, the
//   child slots, and optionally its own value (for the key that ends right after its prefix).
//   Edges, bitmap and slots are laid out for cap(nchild) children: exactly nchild up to 4, then
//   up to 1/8 spare, so a wide node gains or loses a key in place (see cap()).
// - A child slot holds either a pointer to a child node or, when a key ends right after that
//   edge byte and no longer key continues it, the value itself ("inline leaf"). Slots are
//   max(sizeof(void*), sizeof(V)) bytes, so V should be pointer-sized (a handle or a pointer).
//   Keys that differ only in their last byte therefore cost one edge byte, one bitmap bit and
//   one slot each, with no allocation of their own.
// - Keys that still have bytes left after their branching byte get a leaf node whose prefix is
//   that remaining suffix.
// Canonical form (kept by insert and erase, so memory and node_count() stay honest):
// - every node other than the root has a value or at least two children;
// - a non-root node with an empty prefix, no children and a value is stored as an inline leaf;
// - the root exists iff the tree is non-empty; it absorbs the common prefix of all keys.
// Iterators hold a path of (node, slot) frames and a copy of the current key; ANY insert or erase
// invalidates every iterator and every V* / V& obtained before it.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "streamd/engine/bit_copy.h"
#include "streamd/engine/small_buf.h"

namespace streamd::engine {

// Bytes malloc really consumes for an n-byte request (glibc: 8 bytes of chunk header, 16-byte
// granularity, 32-byte minimum chunk). Used for memory estimates across the engine.
constexpr std::size_t malloc_size_estimate(std::size_t n) {
  std::size_t chunk = (n + 8 + 15) & ~std::size_t{15};
  return chunk < 32 ? 32 : chunk;
}

enum class SeekOp { kGe, kGt, kLe, kLt };

template <class V>
class RadixTree {
  static_assert(sizeof(V) <= 32, "store large values behind a pointer");

  struct Node {
    uint32_t plen;      // prefix length
    uint16_t nchild;    // 0..256
    uint8_t has_value;  // the key ending at the end of the prefix exists
    uint8_t unused;
  };
  static constexpr std::size_t kSlot = sizeof(V) > sizeof(void*) ? sizeof(V) : sizeof(void*);
  static constexpr std::size_t kSlotAlign = alignof(V) > alignof(void*) ? alignof(V)
                                                                        : alignof(void*);
  static_assert(kSlotAlign <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

  template <bool kConst>
  class IteratorT;

 public:
  using Iterator = IteratorT<false>;
  using ConstIterator = IteratorT<true>;

  RadixTree() = default;
  RadixTree(RadixTree&& o) noexcept { swap(o); }
  RadixTree& operator=(RadixTree&& o) noexcept {
    if (this != &o) {
      clear();
      swap(o);
    }
    return *this;
  }
  RadixTree(const RadixTree& o) requires std::copy_constructible<V> {
    *this = o.clone_with([](const V& v) { return V(v); });
  }
  RadixTree& operator=(const RadixTree& o) requires std::copy_constructible<V> {
    if (this != &o) *this = o.clone_with([](const V& v) { return V(v); });
    return *this;
  }
  ~RadixTree() { clear(); }

  void swap(RadixTree& o) noexcept {
    std::swap(root_, o.root_);
    std::swap(size_, o.size_);
    std::swap(nodes_, o.nodes_);
    std::swap(bytes_, o.bytes_);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Starts loading the root block (a prefetch: nothing is read or changed).
  void prefetch_root() const {
    if (root_) __builtin_prefetch(root_);
  }
  // Number of allocated tree nodes (inline leaves are not nodes).
  std::size_t node_count() const { return nodes_; }
  // Estimated heap bytes of the tree structure itself (node blocks incl. malloc overhead and the
  // values stored inline), not of whatever the values point to.
  std::size_t memory_usage() const { return bytes_; }

  void clear() {
    if (root_) destroy_subtree(root_);
    root_ = nullptr;
    size_ = 0;
    nodes_ = 0;
    bytes_ = 0;
  }

  // Inserts key → V(args...) unless the key exists. Returns the value and whether it is new.
  template <class... Args>
  std::pair<V*, bool> emplace(std::string_view key, Args&&... args);
  std::pair<V*, bool> insert(std::string_view key, V value) {
    return emplace(key, std::move(value));
  }

  V* find(std::string_view key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  const V* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  // Removes the key; if `out` is given the value is moved there first. False if absent.
  bool erase(std::string_view key, V* out = nullptr) {
    if (!root_) return false;
    if (!erase_at(&root_, key, out)) return false;
    --size_;
    return true;
  }

  // The values of the first / last key without building an iterator; nullptr if empty.
  V* first_value() { return const_cast<V*>(std::as_const(*this).first_value()); }
  const V* first_value() const {
    for (const Node* n = root_; n;) {
      if (n->has_value) return own_value(n);
      if (is_leaf(n, 0)) return slot_value(n, 0);
      n = child(n, 0);
    }
    return nullptr;
  }
  V* last_value() { return const_cast<V*>(std::as_const(*this).last_value()); }
  const V* last_value() const {
    for (const Node* n = root_; n;) {
      if (n->nchild == 0) return own_value(n);
      int i = n->nchild - 1;
      if (is_leaf(n, i)) return slot_value(n, i);
      n = child(n, i);
    }
    return nullptr;
  }

  Iterator begin() { return Iterator(this, Iterator::kFirst); }
  ConstIterator begin() const { return ConstIterator(this, ConstIterator::kFirst); }
  Iterator last() { return Iterator(this, Iterator::kLast); }
  ConstIterator last() const { return ConstIterator(this, ConstIterator::kLast); }
  // The first key >= / > key, or the last key <= / < key; invalid if none.
  Iterator seek(SeekOp op, std::string_view key) { return Iterator(this, op, key); }
  ConstIterator seek(SeekOp op, std::string_view key) const { return ConstIterator(this, op, key); }

  // Verifies the structural invariants (sorted edges, canonical form, counters). For tests.
  bool check_invariants() const {
    std::size_t keys = 0, nodes = 0, bytes = 0;
    if (root_ && !check_node(root_, true, keys, nodes, bytes)) return false;
    return keys == size_ && nodes == nodes_ && bytes == bytes_;
  }

  // Deep copy with a value-copy function (e.g. for values that are pointers to shared data).
  template <class F>
  RadixTree clone_with(F&& copy) const {
    RadixTree t;
    if (root_) t.root_ = t.clone_node(root_, copy);
    t.size_ = size_;
    return t;
  }

 private:
  // ---- node layout -----------------------------------------------------------------------
  static constexpr std::size_t align_up(std::size_t n, std::size_t a) {
    return (n + a - 1) & ~(a - 1);
  }
  // Child slots a block with `nchild` children has room for: exactly nchild up to 4 (most
  // nodes, and every one of a sparse tree, cost what they hold), then rounded up to a multiple
  // of 4, 16 or 32 (at most 1/8 spare beyond 32 children, none when full at 256). A key added
  // to or removed from a node whose capacity stays the same shifts the slots in place
  // (reshape_in_place) instead of copying the whole block into a new one: a node taking
  // consecutive keys (a PEL's IDs, XACKs) is then reallocated every 4-32 keys, not every key.
  // The layout (edges, bitmap, slots, own value) is that of cap(nchild) slots.
  static std::size_t cap(std::size_t nchild) {
    if (nchild <= 4) return nchild;
    std::size_t g = nchild <= 32 ? 4 : (nchild <= 128 ? 16 : 32);
    return (nchild + g - 1) / g * g;
  }
  static std::size_t bitmap_size(std::size_t nchild) { return (cap(nchild) + 7) / 8; }
  static std::size_t slots_offset(std::size_t plen, std::size_t nchild) {
    return align_up(sizeof(Node) + plen + cap(nchild) + bitmap_size(nchild), kSlotAlign);
  }
  static std::size_t value_offset(std::size_t plen, std::size_t nchild) {
    return align_up(slots_offset(plen, nchild) + cap(nchild) * kSlot, alignof(V));
  }
  static std::size_t node_size(std::size_t plen, std::size_t nchild, bool has_value) {
    return value_offset(plen, nchild) + (has_value ? sizeof(V) : 0);
  }
  static std::size_t node_size(const Node* n) {
    return node_size(n->plen, n->nchild, n->has_value);
  }

  static uint8_t* raw(Node* n) { return reinterpret_cast<uint8_t*>(n); }
  static const uint8_t* raw(const Node* n) { return reinterpret_cast<const uint8_t*>(n); }
  static std::string_view prefix(const Node* n) {
    return {reinterpret_cast<const char*>(raw(n) + sizeof(Node)), n->plen};
  }
  static uint8_t* prefix_ptr(Node* n) { return raw(n) + sizeof(Node); }
  static uint8_t* edges(Node* n) { return raw(n) + sizeof(Node) + n->plen; }
  static const uint8_t* edges(const Node* n) { return raw(n) + sizeof(Node) + n->plen; }
  static uint8_t* bitmap(Node* n) { return edges(n) + cap(n->nchild); }
  static const uint8_t* bitmap(const Node* n) { return edges(n) + cap(n->nchild); }
  static bool is_leaf(const Node* n, int i) { return (bitmap(n)[i >> 3] >> (i & 7)) & 1; }
  static void set_leaf(Node* n, int i, bool leaf) {
    uint8_t bit = static_cast<uint8_t>(1u << (i & 7));
    if (leaf) {
      bitmap(n)[i >> 3] |= bit;
    } else {
      bitmap(n)[i >> 3] &= static_cast<uint8_t>(~bit);
    }
  }
  static uint8_t* slot(Node* n, int i) {
    return raw(n) + slots_offset(n->plen, n->nchild) + static_cast<std::size_t>(i) * kSlot;
  }
  static const uint8_t* slot(const Node* n, int i) { return slot(const_cast<Node*>(n), i); }
  static Node* child(const Node* n, int i) {
    Node* c;
    std::memcpy(&c, slot(n, i), sizeof c);
    return c;
  }
  static void set_child(Node* n, int i, Node* c) { std::memcpy(slot(n, i), &c, sizeof c); }
  static V* slot_value(Node* n, int i) { return std::launder(reinterpret_cast<V*>(slot(n, i))); }
  static const V* slot_value(const Node* n, int i) { return slot_value(const_cast<Node*>(n), i); }
  static V* own_value(Node* n) {
    return std::launder(reinterpret_cast<V*>(raw(n) + value_offset(n->plen, n->nchild)));
  }
  static const V* own_value(const Node* n) { return own_value(const_cast<Node*>(n)); }

  // Position of the first edge >= b; *found tells whether it equals b.
  static int find_edge(const Node* n, uint8_t b, bool* found) {
    const uint8_t* e = edges(n);
    int pos = static_cast<int>(std::lower_bound(e, e + n->nchild, b) - e);
    *found = pos < n->nchild && e[pos] == b;
    return pos;
  }

  Node* alloc(std::size_t plen, std::size_t nchild, bool has_value) {
    std::size_t size = node_size(plen, nchild, has_value);
    Node* n = static_cast<Node*>(::operator new(size));
    n->plen = static_cast<uint32_t>(plen);
    n->nchild = static_cast<uint16_t>(nchild);
    n->has_value = has_value;
    n->unused = 0;
    std::memset(bitmap(n), 0, bitmap_size(nchild));
    ++nodes_;
    bytes_ += malloc_size_estimate(size);
    return n;
  }
  // Frees the block only; values must already be destroyed or moved out.
  void free_node(Node* n) {
    --nodes_;
    bytes_ -= malloc_size_estimate(node_size(n));
    ::operator delete(n);
  }
  void destroy_subtree(Node* n) {
    for (int i = 0; i < n->nchild; ++i) {
      if (is_leaf(n, i)) {
        slot_value(n, i)->~V();
      } else {
        destroy_subtree(child(n, i));
      }
    }
    if (n->has_value) own_value(n)->~V();
    free_node(n);
  }
  // A leaf node: prefix = suffix, no children, own value V(args...).
  template <class... Args>
  Node* make_leaf(std::string_view suffix, Args&&... args) {
    Node* n = alloc(suffix.size(), 0, true);
    if (!suffix.empty()) std::memcpy(prefix_ptr(n), suffix.data(), suffix.size());
    ::new (own_value(n)) V(std::forward<Args>(args)...);
    return n;
  }

  enum class ValueOp { kKeep, kAdd, kDrop };
  // Rebuilds `old` into a new block with prefix `pre` (may point into old), optionally with a
  // new slot at `ins` (uninitialized, leaf bit per `ins_leaf`) or without slot `del` (an inline
  // value there is destroyed; a child pointer is just dropped). kAdd leaves the own value
  // uninitialized for the caller; kDrop destroys it. Frees `old`.
  Node* reshape(Node* old, std::string_view pre, int ins, uint8_t ins_byte, bool ins_leaf, int del,
                ValueOp vop) {
    if (reshape_in_place(old, pre, ins, ins_byte, ins_leaf, del, vop)) return old;
    int old_n = old->nchild;
    int new_n = old_n + (ins >= 0 ? 1 : 0) - (del >= 0 ? 1 : 0);
    bool had_value = old->has_value;
    bool has_value = vop == ValueOp::kAdd || (vop == ValueOp::kKeep && had_value);
    Node* n = alloc(pre.size(), static_cast<std::size_t>(new_n), has_value);
    if (!pre.empty()) std::memcpy(prefix_ptr(n), pre.data(), pre.size());
    // Slots [0, split) keep their index; the others shift by one.
    int split = ins >= 0 ? ins : (del >= 0 ? del : old_n);
    move_slots(old, 0, n, 0, split);
    if (ins >= 0) {
      edges(n)[ins] = ins_byte;
      set_leaf(n, ins, ins_leaf);
      move_slots(old, ins, n, ins + 1, old_n - ins);
    } else if (del >= 0) {
      if (is_leaf(old, del)) slot_value(old, del)->~V();
      move_slots(old, del + 1, n, del, old_n - del - 1);
    }
    if (had_value) {
      if (vop == ValueOp::kKeep) ::new (own_value(n)) V(std::move(*own_value(old)));
      own_value(old)->~V();
    }
    free_node(old);
    return n;
  }

  // reshape's insert or erase of one slot, done inside the block when its prefix, own value and
  // capacity stay as they are. Slots above the position shift by one (edge byte, leaf bit and
  // content); an inserted slot is left uninitialized, as reshape leaves it.
  bool reshape_in_place(Node* n, std::string_view pre, int ins, uint8_t ins_byte, bool ins_leaf,
                        int del, ValueOp vop) {
    if (vop != ValueOp::kKeep || (ins >= 0) == (del >= 0)) return false;
    if (pre.size() != n->plen || pre.data() != reinterpret_cast<const char*>(prefix_ptr(n))) {
      return false;
    }
    const int old_n = n->nchild;
    const int new_n = ins >= 0 ? old_n + 1 : old_n - 1;
    if (cap(static_cast<std::size_t>(old_n)) != cap(static_cast<std::size_t>(new_n))) return false;
    uint8_t* e = edges(n);
    if (ins >= 0) {
      std::memmove(e + ins + 1, e + ins, static_cast<std::size_t>(old_n - ins));
      e[ins] = ins_byte;
      n->nchild = static_cast<uint16_t>(new_n);  // the layout is cap's: nothing else moves
      shift_slots(n, ins, old_n, +1);
      set_leaf(n, ins, ins_leaf);
    } else {
      if (is_leaf(n, del)) slot_value(n, del)->~V();
      std::memmove(e + del, e + del + 1, static_cast<std::size_t>(old_n - del - 1));
      shift_slots(n, del + 1, old_n, -1);
      set_leaf(n, old_n - 1, false);  // already clear unless `del` was the last slot
      n->nchild = static_cast<uint16_t>(new_n);
    }
    return true;
  }
  // Moves slots [from, to) of n by one position up (+1) or down (-1): leaf bits and contents.
  // The slot moved onto (from - 1, or `to`) is raw storage or a destroyed value; the slot left
  // behind is raw storage afterwards, its leaf bit clear.
  static void shift_slots(Node* n, int from, int to, int dir) {
    if (from >= to) return;
    // Leaf bits: the bitmap (at most 256 bits) as four little-endian words, shifted as one.
    uint64_t w[4] = {0, 0, 0, 0};
    const std::size_t bytes = bitmap_size(n->nchild);
    std::memcpy(w, bitmap(n), bytes);
    auto bit_range = [](int lo, int hi, int word) {  // bits [lo, hi) that fall in `word`
      int a = std::clamp(lo - 64 * word, 0, 64), b = std::clamp(hi - 64 * word, 0, 64);
      if (a >= b) return uint64_t{0};
      uint64_t upto_b = b == 64 ? ~uint64_t{0} : (uint64_t{1} << b) - 1;
      return upto_b & ~((uint64_t{1} << a) - 1);
    };
    uint64_t moved[4], out[4];
    for (int i = 0; i < 4; ++i) moved[i] = w[i] & bit_range(from, to, i);
    for (int i = 0; i < 4; ++i) {
      // Everything outside [from, to) stays, except the bit the range moves onto or leaves.
      const int lo = dir > 0 ? from : from - 1, hi = dir > 0 ? to + 1 : to;
      uint64_t keep = w[i] & ~bit_range(lo, hi, i);
      uint64_t shifted = dir > 0 ? (moved[i] << 1) | (i > 0 ? moved[i - 1] >> 63 : 0)
                                 : (moved[i] >> 1) | (i < 3 ? moved[i + 1] << 63 : 0);
      out[i] = keep | shifted;
    }
    std::memcpy(bitmap(n), out, bytes);
    // Contents: one memmove when values may be moved as bytes, else one by one in an order
    // that never overwrites a slot not moved yet.
    if constexpr (std::is_trivially_copyable_v<V>) {
      std::memmove(slot(n, from + dir), slot(n, from), static_cast<std::size_t>(to - from) * kSlot);
    } else {
      auto move_one = [&](int k) {
        if (is_leaf(n, k + dir)) {  // the bit has moved already
          V* v = slot_value(n, k);
          ::new (slot(n, k + dir)) V(std::move(*v));
          v->~V();
        } else {
          std::memcpy(slot(n, k + dir), slot(n, k), kSlot);
        }
      };
      if (dir > 0) {
        for (int k = to - 1; k >= from; --k) move_one(k);
      } else {
        for (int k = from; k < to; ++k) move_one(k);
      }
    }
  }

  // Moves `count` slots (edge byte, leaf bit, content) from `from` at fi to `to` at ti.
  static void move_slots(Node* from, int fi, Node* to, int ti, int count) {
    if (count <= 0) return;
    std::memcpy(edges(to) + ti, edges(from) + fi, static_cast<std::size_t>(count));
    or_bits(bitmap(from), bitmap_size(from->nchild), fi, bitmap(to), bitmap_size(to->nchild), ti,
            count);
    uint8_t* fs = slot(from, fi);
    uint8_t* ts = slot(to, ti);
    if constexpr (std::is_trivially_copyable_v<V>) {
      std::memcpy(ts, fs, static_cast<std::size_t>(count) * kSlot);
    } else {
      for (int k = 0; k < count; ++k, fs += kSlot, ts += kSlot) {
        if (is_leaf(from, fi + k)) {
          V* v = std::launder(reinterpret_cast<V*>(fs));
          ::new (ts) V(std::move(*v));
          v->~V();
        } else {
          std::memcpy(ts, fs, sizeof(Node*));
        }
      }
    }
  }

  // Restores the canonical form of *link after a slot or the own value was removed from it.
  // May leave *link == nullptr (node gone: the parent must drop its slot).
  void normalize(Node** link) {
    Node* n = *link;
    if (n->has_value || n->nchild > 1) return;
    if (n->nchild == 0) {
      free_node(n);
      *link = nullptr;
      return;
    }
    // No value, one child: merge the node, its edge byte and the child into one node.
    uint8_t edge = edges(n)[0];
    if (is_leaf(n, 0)) {
      Node* m = alloc(n->plen + 1u, 0, true);
      std::memcpy(prefix_ptr(m), prefix_ptr(n), n->plen);
      prefix_ptr(m)[n->plen] = edge;
      ::new (own_value(m)) V(std::move(*slot_value(n, 0)));
      slot_value(n, 0)->~V();
      free_node(n);
      *link = m;
      return;
    }
    Node* c = child(n, 0);
    std::size_t plen = n->plen + 1u + c->plen;
    Node* m = alloc(plen, c->nchild, c->has_value);
    std::memcpy(prefix_ptr(m), prefix_ptr(n), n->plen);
    prefix_ptr(m)[n->plen] = edge;
    std::memcpy(prefix_ptr(m) + n->plen + 1, prefix_ptr(c), c->plen);
    move_slots(c, 0, m, 0, c->nchild);
    if (c->has_value) {
      ::new (own_value(m)) V(std::move(*own_value(c)));
      own_value(c)->~V();
    }
    free_node(c);
    free_node(n);
    *link = m;
  }

  // Erases `rest` below *link (the root, or a local copy of a child pointer that the caller
  // stores back), restoring the canonical form on the way up.
  bool erase_at(Node** link, std::string_view rest, V* out) {
    Node* n = *link;
    std::string_view pre = prefix(n);
    if (rest.size() < pre.size() || rest.compare(0, pre.size(), pre) != 0) return false;
    rest.remove_prefix(pre.size());
    if (rest.empty()) {
      if (!n->has_value) return false;
      if (out) *out = std::move(*own_value(n));
      *link = reshape(n, pre, -1, 0, false, -1, ValueOp::kDrop);
      normalize(link);
      return true;
    }
    bool found;
    int pos = find_edge(n, static_cast<uint8_t>(rest[0]), &found);
    if (!found) return false;
    if (is_leaf(n, pos)) {
      if (rest.size() != 1) return false;
      if (out) *out = std::move(*slot_value(n, pos));
      *link = reshape(n, pre, -1, 0, false, pos, ValueOp::kKeep);
      normalize(link);
      return true;
    }
    Node* c = child(n, pos);
    if (!erase_at(&c, rest.substr(1), out)) return false;
    if (c == nullptr) {
      *link = reshape(n, pre, -1, 0, false, pos, ValueOp::kKeep);
      normalize(link);
    } else if (c->plen == 0 && c->nchild == 0) {
      // Only its value is left: store it inline in our slot.
      ::new (slot_value(n, pos)) V(std::move(*own_value(c)));
      own_value(c)->~V();
      free_node(c);
      set_leaf(n, pos, true);
    } else {
      set_child(n, pos, c);
    }
    return true;
  }

  static bool check_node(const Node* n, bool is_root, std::size_t& keys, std::size_t& nodes,
                         std::size_t& bytes) {
    ++nodes;
    bytes += malloc_size_estimate(node_size(n));
    if (n->has_value) ++keys;
    if (!n->has_value && n->nchild < (is_root ? 1 : 2)) return false;
    if (!is_root && n->plen == 0 && n->nchild == 0) return false;  // should be inline
    for (int i = 0; i < n->nchild; ++i) {
      if (i > 0 && edges(n)[i - 1] >= edges(n)[i]) return false;
      if (is_leaf(n, i)) {
        ++keys;
      } else if (!check_node(child(n, i), false, keys, nodes, bytes)) {
        return false;
      }
    }
    return true;
  }

  template <class F>
  Node* clone_node(const Node* src, F& copy) {
    Node* n = alloc(src->plen, src->nchild, src->has_value);
    std::memcpy(prefix_ptr(n), raw(src) + sizeof(Node),
                src->plen + cap(src->nchild) + bitmap_size(src->nchild));
    for (int i = 0; i < src->nchild; ++i) {
      if (is_leaf(src, i)) {
        ::new (slot_value(n, i)) V(copy(*slot_value(src, i)));
      } else {
        set_child(n, i, clone_node(child(src, i), copy));
      }
    }
    if (src->has_value) ::new (own_value(n)) V(copy(*own_value(src)));
    return n;
  }

  Node* root_ = nullptr;
  std::size_t size_ = 0;
  std::size_t nodes_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace streamd::engine

// IteratorT, defined after the class it belongs to.
#include "streamd/engine/radix_tree_iterator.h"

namespace streamd::engine {

template <class V>
template <class... Args>
std::pair<V*, bool> RadixTree<V>::emplace(std::string_view key, Args&&... args) {
  if (!root_) {
    root_ = make_leaf(key, std::forward<Args>(args)...);
    ++size_;
    return {own_value(root_), true};
  }
  // The slot that points at the current node: parent's child slot, or root_ if no parent.
  Node* parent = nullptr;
  int ppos = 0;
  auto set_link = [&](Node* x) {
    if (parent) {
      set_child(parent, ppos, x);
    } else {
      root_ = x;
    }
  };
  std::string_view rest = key;
  while (true) {
    Node* n = parent ? child(parent, ppos) : root_;
    std::string_view pre = prefix(n);
    std::size_t c = 0;
    std::size_t m = std::min(pre.size(), rest.size());
    while (c < m && pre[c] == rest[c]) ++c;
    if (c < pre.size()) {
      // Split n after c prefix bytes: an upper node gets pre[0, c) and branches to the rest of
      // n (under byte pre[c]) and, unless the key ends at the split, to the new key.
      bool ends_here = rest.size() == c;
      uint8_t nb = static_cast<uint8_t>(pre[c]);
      Node* up = alloc(c, ends_here ? 1 : 2, ends_here);
      std::memcpy(prefix_ptr(up), pre.data(), c);
      int npos = 0;
      int kpos = -1;
      if (!ends_here) {
        uint8_t kb = static_cast<uint8_t>(rest[c]);
        npos = kb < nb ? 1 : 0;
        kpos = 1 - npos;
        edges(up)[kpos] = kb;
      }
      edges(up)[npos] = nb;
      // The lower part of n; if nothing but a value is left it becomes an inline leaf.
      if (pre.size() == c + 1 && n->nchild == 0) {
        ::new (slot_value(up, npos)) V(std::move(*own_value(n)));
        own_value(n)->~V();
        free_node(n);
        set_leaf(up, npos, true);
      } else {
        set_child(up, npos, reshape(n, pre.substr(c + 1), -1, 0, false, -1, ValueOp::kKeep));
      }
      V* v;
      if (ends_here) {
        v = ::new (own_value(up)) V(std::forward<Args>(args)...);
      } else if (rest.size() == c + 1) {
        set_leaf(up, kpos, true);
        v = ::new (slot_value(up, kpos)) V(std::forward<Args>(args)...);
      } else {
        Node* leaf = make_leaf(rest.substr(c + 1), std::forward<Args>(args)...);
        set_child(up, kpos, leaf);
        v = own_value(leaf);
      }
      set_link(up);
      ++size_;
      return {v, true};
    }
    rest.remove_prefix(pre.size());
    if (rest.empty()) {
      if (n->has_value) return {own_value(n), false};
      n = reshape(n, pre, -1, 0, false, -1, ValueOp::kAdd);
      set_link(n);
      ++size_;
      return {::new (own_value(n)) V(std::forward<Args>(args)...), true};
    }
    uint8_t b = static_cast<uint8_t>(rest[0]);
    bool found;
    int pos = find_edge(n, b, &found);
    if (found) {
      if (!is_leaf(n, pos)) {
        parent = n;
        ppos = pos;
        rest.remove_prefix(1);
        continue;
      }
      if (rest.size() == 1) return {slot_value(n, pos), false};
      // The inline key is a proper prefix of the new one: turn it into a node with an empty
      // prefix that keeps the value, and continue below it.
      Node* c2 = alloc(0, 0, true);
      ::new (own_value(c2)) V(std::move(*slot_value(n, pos)));
      slot_value(n, pos)->~V();
      set_leaf(n, pos, false);
      set_child(n, pos, c2);
      parent = n;
      ppos = pos;
      rest.remove_prefix(1);
      continue;
    }
    bool leaf = rest.size() == 1;
    n = reshape(n, pre, pos, b, leaf, -1, ValueOp::kKeep);
    set_link(n);
    ++size_;
    if (leaf) return {::new (slot_value(n, pos)) V(std::forward<Args>(args)...), true};
    Node* l = make_leaf(rest.substr(1), std::forward<Args>(args)...);
    set_child(n, pos, l);
    return {own_value(l), true};
  }
}

template <class V>
const V* RadixTree<V>::find(std::string_view key) const {
  const Node* n = root_;
  std::string_view rest = key;
  while (n) {
    std::string_view pre = prefix(n);
    if (rest.size() < pre.size() || rest.compare(0, pre.size(), pre) != 0) return nullptr;
    rest.remove_prefix(pre.size());
    if (rest.empty()) return n->has_value ? own_value(n) : nullptr;
    bool found;
    int pos = find_edge(n, static_cast<uint8_t>(rest[0]), &found);
    if (!found) return nullptr;
    if (is_leaf(n, pos)) return rest.size() == 1 ? slot_value(n, pos) : nullptr;
    n = child(n, pos);
    rest.remove_prefix(1);
  }
  return nullptr;
}

}  // namespace streamd::engine
