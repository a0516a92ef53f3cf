#include "streamd/commands/stream/read_budget.h"

namespace streamd::cmd {

using engine::StreamId;

namespace {

std::size_t digits(std::size_t n) {
  std::size_t d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

// "$<len>\r\n<bytes>\r\n"
std::size_t bulk_size(std::size_t len) {
  return 1 + digits(len) + 2 + len + 2;
}

// "*<n>\r\n"
std::size_t array_header(std::size_t n) {
  return 1 + digits(n) + 2;
}

std::size_t id_size(StreamId id) {
  char buf[StreamId::kMaxTextSize];
  return bulk_size(id.format(buf));
}

// ":<v>\r\n"
std::size_t int_size(int64_t v) {
  std::size_t n = v < 0 ? 1 : 0;
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return 1 + n + digits(u) + 2;
}

// A pending entry gone from the stream renders as [id, nil]; the null is counted as RESP2's
// "*-1\r\n", the larger of the two forms.
std::size_t deleted_entry_size(StreamId id) {
  return array_header(2) + id_size(id) + 5;
}

}  // namespace

std::size_t entry_reply_size(StreamId id, std::span<const engine::FieldValue> fields) {
  std::size_t n = array_header(2) + id_size(id) + array_header(fields.size() * 2);
  for (const auto& fv : fields) n += bulk_size(fv.field.size()) + bulk_size(fv.value.size());
  return n;
}

std::size_t read_fit(const engine::Stream& s, StreamId start, std::size_t count,
                     ReadBudget& budget) {
  std::size_t n = 0;
  for (auto it = s.scan(start, StreamId::max()); (count == 0 || n < count) && it.next(); ++n) {
    if (!budget.offer(entry_reply_size(it.id(), it.fields()))) break;
  }
  return n;
}

bool ReadBudget::admit(const engine::GroupEntry& e) {
  std::size_t size = e.deleted ? deleted_entry_size(e.id) : entry_reply_size(e.id, e.fields);
  if (e.claimed) size += int_size(e.idle_ms) + int_size(static_cast<int64_t>(e.previous_count));
  return offer(size);
}

}  // namespace streamd::cmd
