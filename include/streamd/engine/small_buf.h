// SmallBuf<T, N>: a growable array of trivially copyable T that keeps its first N elements inside
// the object and moves to the heap only beyond that.
//
// Why: RadixTree iterators hold a path of frames and a copy of the current key. As a
// std::vector and a std::string (beyond its 15-byte small-string buffer) every iterator cost two
// allocations and two frees, and the PEL builds an iterator for nearly every record change
// (issue 16: the run indexes look up neighbours and runs per change). The trees' usual depths
// and key lengths fit in N, so iterators now allocate nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

namespace streamd::engine {

template <class T, std::size_t N>
class SmallBuf {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SmallBuf() = default;
  SmallBuf(const SmallBuf& o) { assign(o); }
  SmallBuf(SmallBuf&& o) noexcept { take(o); }
  SmallBuf& operator=(const SmallBuf& o) {
    if (this != &o) {
      size_ = 0;
      assign(o);
    }
    return *this;
  }
  SmallBuf& operator=(SmallBuf&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~SmallBuf() { release(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == cap_) grow(size_ + 1);
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void append(const T* p, std::size_t n) {
    if (size_ + n > cap_) grow(size_ + n);
    if (n != 0) std::memcpy(data_ + size_, p, n * sizeof(T));
    size_ += n;
  }
  // Shrinks, or grows with value-initialised elements.
  void resize(std::size_t n) {
    if (n > cap_) grow(n);
    for (std::size_t i = size_; i < n; ++i) data_[i] = T{};
    size_ = n;
  }

 private:
  bool on_heap() const { return data_ != inline_; }
  void release() {
    if (on_heap()) ::operator delete(data_);
    data_ = inline_;
    cap_ = N;
    size_ = 0;
  }
  // *this is empty (inline or with a heap block of its own).
  void assign(const SmallBuf& o) {
    if (o.size_ > cap_) grow(o.size_);
    if (o.size_ != 0) std::memcpy(data_, o.data_, o.size_ * sizeof(T));
    size_ = o.size_;
  }
  // *this holds nothing (released or new): steal o's heap block, or copy its inline elements.
  void take(SmallBuf& o) {
    if (o.on_heap()) {
      data_ = o.data_;
      cap_ = o.cap_;
      size_ = o.size_;
      o.data_ = o.inline_;
      o.cap_ = N;
      o.size_ = 0;
      return;
    }
    data_ = inline_;
    cap_ = N;
    assign(o);
    o.size_ = 0;
  }
  void grow(std::size_t need) {
    std::size_t cap = cap_ * 2;
    if (cap < need) cap = need;
    T* p = static_cast<T*>(::operator new(cap * sizeof(T)));
    if (size_ != 0) std::memcpy(p, data_, size_ * sizeof(T));
    if (on_heap()) ::operator delete(data_);
    data_ = p;
    cap_ = cap;
  }

  T inline_[N];
  T* data_ = inline_;
  std::size_t size_ = 0;
  std::size_t cap_ = N;
};

}  // namespace streamd::engine
