#include "streamd/repl/backlog.h"

#include <algorithm>
#include <cassert>

namespace streamd::repl {

Backlog::Backlog(std::size_t capacity, int64_t next_offset)
    : capacity_(std::max<std::size_t>(capacity, 1)), next_offset_(next_offset) {}

void Backlog::append(std::string_view bytes) {
  next_offset_ += static_cast<int64_t>(bytes.size());
  // Only the newest capacity_ bytes can be kept.
  if (bytes.size() > capacity_) bytes = bytes.substr(bytes.size() - capacity_);
  histlen_ = std::min(histlen_ + bytes.size(), capacity_);
  // Still growing: append what fits.
  if (buf_.size() < capacity_) {
    std::size_t n = std::min(bytes.size(), capacity_ - buf_.size());
    buf_.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
    head_ = buf_.size() == capacity_ ? 0 : buf_.size();
  }
  // Full: overwrite the oldest bytes from head_, wrapping once at most.
  while (!bytes.empty()) {
    std::size_t n = std::min(bytes.size(), capacity_ - head_);
    buf_.replace(head_, n, bytes.substr(0, n));
    bytes.remove_prefix(n);
    head_ = (head_ + n) % capacity_;
  }
}

void Backlog::copy_from(int64_t from, std::string& out) const {
  assert(holds_from(from));
  auto n = static_cast<std::size_t>(next_offset_ - from);
  if (n == 0) return;
  // The newest byte is just before head_ (when full) or at buf_.size() - 1 (while growing, where
  // head_ == buf_.size()): in both cases the n newest bytes end at head_, wrapping.
  std::size_t start = (head_ + buf_.size() - n) % buf_.size();
  std::size_t first = std::min(n, buf_.size() - start);
  out.append(buf_, start, first);
  if (first < n) out.append(buf_, 0, n - first);
}

void Backlog::resize(std::size_t capacity) {
  capacity = std::max<std::size_t>(capacity, 1);
  if (capacity == capacity_) return;
  std::size_t keep = std::min(histlen_, capacity);
  std::string newest;
  newest.reserve(keep);
  copy_from(next_offset_ - static_cast<int64_t>(keep), newest);
  capacity_ = capacity;
  buf_ = std::move(newest);
  histlen_ = keep;
  head_ = buf_.size() == capacity_ ? 0 : buf_.size();
}

}  // namespace streamd::repl
