// RadixTree<V>::IteratorT, the tree's ordered walk (seek, ++/--, the current key and value), kept
// apart from radix_tree.h's node layout and updates. Included by radix_tree.h right after the
// class; include radix_tree.h, not this file.
#pragma once

#include "streamd/engine/radix_tree.h"

namespace streamd::engine {

template <class V>
template <bool kConst>
class RadixTree<V>::IteratorT {
  using Tree = std::conditional_t<kConst, const RadixTree, RadixTree>;

 public:
  using value_type = std::conditional_t<kConst, const V, V>;

  IteratorT() = default;

  bool valid() const { return !stack_.empty(); }
  explicit operator bool() const { return valid(); }
  // The current key; valid until the iterator moves.
  std::string_view key() const { return {key_.data(), key_.size()}; }
  value_type& value() const {
    const Frame& f = stack_.back();
    return f.idx < 0 ? *own_value(f.node) : *slot_value(f.node, f.idx);
  }
  value_type* operator->() const { return &value(); }

  // Moving past either end makes the iterator invalid; moving an invalid one does nothing.
  IteratorT& operator++() {
    if (valid()) next_from(stack_.back().idx + 1);
    return *this;
  }
  IteratorT& operator--() {
    if (!valid()) return *this;
    if (stack_.back().idx < 0) {
      pop_then_prev();
    } else {
      prev_from(stack_.back().idx - 1);
    }
    return *this;
  }

 private:
  friend class RadixTree;
  enum Start { kFirst, kLast };

  // idx: -1 = the node's own value, otherwise a child slot. In every frame but the top one it
  // is the child slot the next frame descends through.
  struct Frame {
    Node* node;
    int idx;
    uint32_t key_len;  // key length up to the end of this node's prefix
  };

  IteratorT(Tree* t, Start s) {
    if (!t->root_) return;
    if (s == kFirst) {
      push(t->root_);
      first_from_top();
    } else {
      push(t->root_);
      last_from_top();
    }
  }

  IteratorT(Tree* t, SeekOp op, std::string_view k) {
    if (!t->root_) return;
    seek_ge(t->root_, k);
    switch (op) {
      case SeekOp::kGe:
        break;
      case SeekOp::kGt:
        if (valid() && key() == k) ++*this;
        break;
      case SeekOp::kLe:
        if (!valid()) {
          *this = IteratorT(t, kLast);
        } else if (key() != k) {
          --*this;
        }
        break;
      case SeekOp::kLt:
        if (!valid()) {
          *this = IteratorT(t, kLast);
        } else {
          --*this;
        }
        break;
    }
  }

  void push(Node* n) {
    std::string_view pre = prefix(n);
    key_.append(pre.data(), pre.size());
    stack_.push_back({n, -1, static_cast<uint32_t>(key_.size())});
  }
  // Positions on slot i of the top node: an inline value, or the first/last key below a child.
  void enter_slot(int i, bool first) {
    Frame& f = stack_.back();
    f.idx = i;
    key_.resize(f.key_len);
    key_.push_back(static_cast<char>(edges(f.node)[i]));
    if (is_leaf(f.node, i)) return;
    push(child(f.node, i));
    if (first) {
      first_from_top();
    } else {
      last_from_top();
    }
  }
  void first_from_top() {
    Frame& f = stack_.back();
    if (f.node->has_value) {
      f.idx = -1;
      key_.resize(f.key_len);
      return;
    }
    enter_slot(0, true);
  }
  void last_from_top() {
    Frame& f = stack_.back();
    if (f.node->nchild > 0) {
      enter_slot(f.node->nchild - 1, false);
      return;
    }
    f.idx = -1;
    key_.resize(f.key_len);
  }
  void next_from(int i) {
    while (true) {
      Frame& f = stack_.back();
      if (i < f.node->nchild) {
        enter_slot(i, true);
        return;
      }
      stack_.pop_back();
      if (stack_.empty()) {
        key_.clear();
        return;
      }
      i = stack_.back().idx + 1;
    }
  }
  void prev_from(int i) {
    Frame& f = stack_.back();
    if (i >= 0) {
      enter_slot(i, false);
    } else if (f.node->has_value) {
      f.idx = -1;
      key_.resize(f.key_len);
    } else {
      pop_then_prev();
    }
  }
  void pop_then_prev() {
    stack_.pop_back();
    if (stack_.empty()) {
      key_.clear();
      return;
    }
    prev_from(stack_.back().idx - 1);
  }
  // Positions on the first key >= k (or invalid).
  void seek_ge(Node* n, std::string_view rest) {
    while (true) {
      push(n);
      std::string_view pre = prefix(n);
      std::size_t m = std::min(rest.size(), pre.size());
      int c = rest.compare(0, m, pre.substr(0, m));
      if (c < 0 || (c == 0 && rest.size() < pre.size())) {
        first_from_top();  // every key below n is greater
        return;
      }
      if (c > 0) {
        skip_subtree();  // every key below n is smaller
        return;
      }
      rest.remove_prefix(pre.size());
      if (rest.empty()) {
        first_from_top();
        return;
      }
      uint8_t b = static_cast<uint8_t>(rest[0]);
      bool found;
      int pos = find_edge(n, b, &found);
      if (pos == n->nchild) {
        skip_subtree();
        return;
      }
      if (!found) {
        enter_slot(pos, true);
        return;
      }
      if (is_leaf(n, pos)) {
        enter_slot(pos, true);
        if (rest.size() > 1) ++*this;  // the inline key is a proper prefix of k: smaller
        return;
      }
      Frame& f = stack_.back();
      f.idx = pos;
      key_.push_back(static_cast<char>(b));
      n = child(n, pos);
      rest.remove_prefix(1);
    }
  }
  // Leaves the subtree of the top frame, moving to the next key after it.
  void skip_subtree() {
    stack_.pop_back();
    if (stack_.empty()) {
      key_.clear();
      return;
    }
    next_from(stack_.back().idx + 1);
  }

  // Inline room for the usual depths and key lengths (stream IDs, PEL and run keys, key names):
  // building an iterator allocates nothing (small_buf.h says why that matters).
  SmallBuf<Frame, 8> stack_;
  SmallBuf<char, 40> key_;
};

}  // namespace streamd::engine
