#include "streamd/repl/backlog.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace streamd::repl {

namespace {

// Spare blocks release_spares always keeps (beside the backlog's capacity in blocks).
constexpr std::size_t kMinSpareBlocks = 4;
// How long a spare block must stay unused before release_spares frees it. A replica on a busy
// machine lags in bursts (megabytes, seconds apart, in bench/replication.py): blocks released
// within a tenth of a second of a burst were asked for again in the next one.
constexpr int64_t kSpareIdleMs = 10000;

}  // namespace

Backlog::Backlog(std::size_t capacity, int64_t next_offset, std::size_t block_size)
    : capacity_(std::max<std::size_t>(capacity, 1)),
      block_size_(std::max<std::size_t>(block_size, 1)),
      next_offset_(next_offset),
      kept_from_(next_offset) {}

void Backlog::copy_across_blocks(std::string_view bytes) {
  bool added = false;
  while (!bytes.empty()) {
    if (blocks_.empty() || blocks_.back().used == block_size_) {
      if (spare_.empty()) {
        // Not zeroed: every byte is written before it is read.
        blocks_.push_back(Block{std::make_unique_for_overwrite<char[]>(block_size_), 0});
      } else {
        blocks_.push_back(std::move(spare_.back()));
        spare_.pop_back();
        blocks_.back().used = 0;
        spare_low_ = std::min(spare_low_, spare_.size());
      }
      added = true;
    }
    Block& b = blocks_.back();
    std::size_t n = std::min(bytes.size(), block_size_ - b.used);
    std::memcpy(b.data.get() + b.used, bytes.data(), n);
    b.used += n;
    bytes.remove_prefix(n);
  }
  // The oldest blocks can only have left the backlog when the stream moved past a block's end.
  if (added) trim();
}

std::string_view Backlog::span_from(int64_t pos) const {
  assert(retains(pos));
  auto rel = static_cast<std::size_t>(pos - kept_from_);
  std::size_t i = rel / block_size_;
  if (i == blocks_.size()) return {};  // pos == next_offset_ at a block's end
  const Block& b = blocks_[i];
  std::size_t at = rel % block_size_;
  return std::string_view(b.data.get() + at, b.used - at);
}

void Backlog::copy_from(int64_t from, std::string& out) const {
  assert(holds_from(from));
  out.reserve(out.size() + static_cast<std::size_t>(next_offset_ - from));
  while (from < next_offset_) {
    std::string_view s = span_from(from);
    out.append(s);
    from += static_cast<int64_t>(s.size());
  }
}

void Backlog::resize(std::size_t capacity) {
  capacity_ = std::max<std::size_t>(capacity, 1);
  histlen_ = std::min(histlen_, capacity_);
  trim();
}

void Backlog::keep_readers_from(int64_t pos) {
  readers_from_ = pos;
  trim();
}

void Backlog::trim() {
  int64_t limit = first_byte_offset();
  if (readers_from_ >= 0) limit = std::min(limit, readers_from_);
  auto size = static_cast<int64_t>(block_size_);
  // Only full blocks can lie wholly before the limit (it is at most next_offset_).
  while (!blocks_.empty() && kept_from_ + size <= limit) {
    spare_.push_back(std::move(blocks_.front()));
    blocks_.pop_front();
    kept_from_ += size;
  }
}

void Backlog::release_spares(int64_t now_ms) {
  if (spares_since_ms_ < 0) {
    spares_since_ms_ = now_ms;
    spare_low_ = spare_.size();
    return;
  }
  if (now_ms - spares_since_ms_ < kSpareIdleMs) return;
  // spare_low_ of the spare blocks were never taken in the whole period: free those beyond the
  // floor.
  std::size_t floor = std::max(kMinSpareBlocks, capacity_ / block_size_);
  std::size_t idle = std::min(spare_low_, spare_.size());
  std::size_t keep = std::max(floor, spare_.size() - idle);
  if (spare_.size() > keep) spare_.resize(keep);
  spare_low_ = spare_.size();
  spares_since_ms_ = now_ms;
}

}  // namespace streamd::repl
