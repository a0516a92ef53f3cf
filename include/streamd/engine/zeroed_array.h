// ZeroedArray<T>: a fixed-size array of a trivial type, all zero bytes at first, for hash tables'
// slots (Dict's buckets, PointerSet's slots).
//
// Why not std::vector<T>(n): a vector writes every element when it is made. For a table of
// millions of slots that is tens of megabytes written and every page faulted in at once, while a
// resize or a command waits (a Dict growing to 8,388,608 buckets spent 0.35 s there on this
// machine). calloc of a large block maps fresh zero pages from the kernel without writing them:
// a page is faulted in when a slot on it is first used, so the cost spreads over the operations
// that use the table (Redis's zcalloc does the same for its dict tables). Counted in
// used_memory() like every allocation of streamd's.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "streamd/engine/used_memory.h"

namespace streamd::engine {

template <class T>
class ZeroedArray {
  static_assert(std::is_trivial_v<T>, "zero bytes must be a valid T, and nothing to destroy");

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(std::size_t n) : size_(n) {
    if (n == 0) return;
    data_ = static_cast<T*>(counted_calloc(n, sizeof(T)));
    if (!data_) throw std::bad_alloc();
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ZeroedArray(ZeroedArray&& o) noexcept { swap(o); }
  ZeroedArray& operator=(ZeroedArray&& o) noexcept {
    ZeroedArray(std::move(o)).swap(*this);
    return *this;
  }
  ~ZeroedArray() { counted_free(data_); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  void swap(ZeroedArray& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace streamd::engine
