// A connection's query buffer: bytes read from the socket and not yet consumed by the parser.
//
// Layout: [0, begin_) consumed, [begin_, end_) unparsed, [end_, cap_) free for the next read.
// consume() only moves begin_, never end_ or the storage, so a read that is in flight into the
// free tail stays valid while commands from the unparsed part run (a woken blocked client runs
// its pipelined commands while its reader waits on the socket). Only prepare() moves or
// reallocates bytes, and the caller calls it with no read in flight. The unparsed bytes keep
// their order when moved, which is all the request parser's saved progress depends on.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace streamd::net {

class InputBuffer {
 public:
  // The free space a read gets at least (Redis reads 16 KiB at a time).
  static constexpr std::size_t kReadChunk = 16 * 1024;
  // A buffer this big that empties is given back rather than kept for the next command.
  static constexpr std::size_t kKeepCapacity = 64 * 1024;

  std::string_view view() const { return {data_.get() + begin_, end_ - begin_}; }
  std::size_t size() const { return end_ - begin_; }
  bool empty() const { return begin_ == end_; }
  std::size_t capacity() const { return cap_; }
  std::size_t free_space() const { return cap_ - end_; }

  // Marks the first n unparsed bytes as used.
  void consume(std::size_t n) { begin_ += n; }

  // Makes at least `min_free` bytes writable after the data and returns where they start: reuses
  // the space of consumed bytes when that is enough (moving the unparsed bytes to the front),
  // otherwise grows. An empty oversized buffer is shrunk back first.
  char* prepare(std::size_t min_free) {
    if (begin_ == end_) {
      begin_ = end_ = 0;
      if (cap_ > kKeepCapacity && min_free <= kKeepCapacity) reset_storage(0);
    }
    if (cap_ - end_ >= min_free) return data_.get() + end_;
    std::size_t used = end_ - begin_;
    if (cap_ - used >= min_free && begin_ > 0) {
      std::memmove(data_.get(), data_.get() + begin_, used);
    } else {
      std::size_t want = used + min_free;
      std::size_t cap = cap_ ? cap_ : kReadChunk;
      while (cap < want) cap *= 2;
      std::unique_ptr<char[]> bigger(new char[cap]);
      if (used) std::memcpy(bigger.get(), data_.get() + begin_, used);
      data_ = std::move(bigger);
      cap_ = cap;
    }
    begin_ = 0;
    end_ = used;
    return data_.get() + end_;
  }

  // Accounts for n bytes a read wrote at the pointer prepare() returned.
  void commit(std::size_t n) { end_ += n; }

 private:
  void reset_storage(std::size_t cap) {
    data_.reset(cap ? new char[cap] : nullptr);
    cap_ = cap;
  }

  std::unique_ptr<char[]> data_;
  std::size_t cap_ = 0;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

}  // namespace streamd::net
