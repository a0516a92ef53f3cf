// The replication backlog: the newest `capacity` bytes of the command stream, so a replica that
// reconnects can continue (PSYNC ... +CONTINUE) instead of copying the whole data set again.
//
// Invariants:
// - next_offset() is the offset the next fed byte gets (master_repl_offset + 1); the bytes held
//   are those with offsets [first_byte_offset(), next_offset()), histlen() of them, at most
//   capacity(). An empty backlog has first_byte_offset() == next_offset().
// - Memory grows with what is held, up to capacity (Redis too allocates its backlog in blocks
//   as it fills): a 1 GB repl-backlog-size costs nothing until the stream is that long.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace streamd::repl {

class Backlog {
 public:
  // An empty backlog whose first byte will have offset `next_offset`.
  Backlog(std::size_t capacity, int64_t next_offset);

  void append(std::string_view bytes);

  std::size_t capacity() const { return capacity_; }
  int64_t next_offset() const { return next_offset_; }
  int64_t histlen() const { return static_cast<int64_t>(histlen_); }
  int64_t first_byte_offset() const { return next_offset_ - static_cast<int64_t>(histlen_); }
  // Whether a replica whose first missing byte is `from` can continue from here.
  bool holds_from(int64_t from) const {
    return from >= first_byte_offset() && from <= next_offset_;
  }
  // Appends the bytes from offset `from` (holds_from(from) must be true) to the end to `out`.
  void copy_from(int64_t from, std::string& out) const;
  // CONFIG SET repl-backlog-size: keeps the newest bytes that fit.
  void resize(std::size_t capacity);

 private:
  std::size_t capacity_;
  int64_t next_offset_;
  // The ring: buf_ grows up to capacity_; once full, head_ is where the next byte goes (and so
  // the oldest byte held). Before it is full, head_ == buf_.size().
  std::string buf_;
  std::size_t head_ = 0;
  std::size_t histlen_ = 0;
};

}  // namespace streamd::repl
