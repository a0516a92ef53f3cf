// The replication backlog: the newest `capacity` bytes of the command stream, so a replica that
// reconnects can continue (PSYNC ... +CONTINUE) instead of copying the whole data set again.
//
// It is also the one copy of the stream that online replicas are sent from (Redis 7's shared
// replication buffer): the bytes live in fixed-size blocks, a replica link is only a position in
// them (repl/stream_cursor.h), and the network layer writes a replica's socket straight from the
// block. Feeding N replicas therefore copies each byte once, not N + 1 times, and a replica that
// lags does not grow (and reallocate, and page-fault in) a buffer of its own.
//
// Invariants:
// - next_offset() is the offset the next fed byte gets (master_repl_offset + 1); the backlog
//   proper is the bytes with offsets [first_byte_offset(), next_offset()), histlen() of them, at
//   most capacity(). An empty backlog has first_byte_offset() == next_offset().
// - The blocks hold the contiguous run [kept_from(), next_offset()): each starts where the one
//   before it ended, and every block but the last is full, so the block of an offset is found by
//   division. kept_from() <= first_byte_offset() and kept_from() <= the oldest reader's position
//   (keep_readers_from): a block is freed only once it lies wholly before both.
// - Memory grows with what is held, up to capacity plus what lagging readers still need, plus
//   one block (Redis too allocates its backlog in blocks as it fills): a 1 GB repl-backlog-size
//   costs nothing until the stream is that long.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::repl {

class Backlog {
 public:
  // 64 KiB: one send to a replica carries at most one block, and a turn of pipelined XADDs
  // feeds tens of kilobytes.
  static constexpr std::size_t kDefaultBlockSize = 64 * 1024;

  // An empty backlog whose first byte will have offset `next_offset`.
  Backlog(std::size_t capacity, int64_t next_offset, std::size_t block_size = kDefaultBlockSize);

  void append(std::string_view bytes) {
    next_offset_ += static_cast<int64_t>(bytes.size());
    histlen_ = std::min(histlen_ + bytes.size(), capacity_);
    // The common case, once per propagated command: the bytes fit in the last block.
    if (!blocks_.empty() && block_size_ - blocks_.back().used >= bytes.size()) {
      Block& b = blocks_.back();
      std::memcpy(b.data.get() + b.used, bytes.data(), bytes.size());
      b.used += bytes.size();
      return;
    }
    copy_across_blocks(bytes);
  }

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

  // ---- readers (online replicas) ----
  // The first offset whose bytes are still in memory (<= first_byte_offset()).
  int64_t kept_from() const { return kept_from_; }
  // Whether a reader at `pos` still has its bytes.
  bool retains(int64_t pos) const { return pos >= kept_from_ && pos <= next_offset_; }
  // The bytes from `pos` (retains(pos)) to the end of its block or of the stream: what a reader
  // at `pos` writes next. Valid until the next append, resize or keep_readers_from.
  std::string_view span_from(int64_t pos) const;
  // The oldest position any reader is at, or -1 when there is no reader: blocks wholly before
  // both it and first_byte_offset() are freed, now and as the stream grows.
  void keep_readers_from(int64_t pos);
  // Bytes held in blocks (what the stream costs in memory, for INFO).
  std::size_t allocated() const { return blocks_.size() * block_size_; }
  // Blocks freed are kept for reuse: a lagging replica pins megabytes of them, frees them as it
  // catches up and pins as many again, and memory handed back to malloc and asked for again
  // comes back as fresh pages, a page fault each on first write (most of the master's page
  // faults with two replicas, measured). From the cron: every 10 s, frees the spare blocks that
  // were not used in that time, down to the backlog's capacity and a few; so what a burst left
  // behind goes within 20 s.
  void release_spares(int64_t now_ms);
  std::size_t spare_blocks() const { return spare_.size(); }
  // Everything the stream's memory holds, spare blocks included: the replication buffer as
  // maxmemory and INFO see it (the spares are its cache, not data anyone may evict).
  std::size_t footprint() const { return (blocks_.size() + spare_.size()) * block_size_; }

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    std::size_t used = 0;
  };
  // append's copy when the bytes do not fit in the last block (or there is none): fills it, then
  // new or spare blocks, and trims.
  void copy_across_blocks(std::string_view bytes);
  // Frees the blocks no one needs any more (see the invariants).
  void trim();

  std::size_t capacity_;
  std::size_t block_size_;
  int64_t next_offset_;
  std::size_t histlen_ = 0;
  std::deque<Block> blocks_;
  int64_t kept_from_;          // offset of blocks_.front()'s first byte
  int64_t readers_from_ = -1;  // keep_readers_from's position; -1: no reader
  std::vector<Block> spare_;   // freed blocks kept for reuse (release_spares)
  std::size_t spare_low_ = 0;  // the fewest spare blocks since spares_since_ms_
  int64_t spares_since_ms_ = -1;
};

}  // namespace streamd::repl
