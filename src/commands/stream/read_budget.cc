#include "streamd/commands/stream/read_budget.h"

#include <string>
#include <vector>

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
    std::size_t size = entry_reply_size(it.id(), it.fields());
    if (!budget.admits(size)) {
      budget.stop();
      break;
    }
    budget.take(size);
  }
  return n;
}

std::size_t group_read_fit(const engine::Stream& s, const engine::ConsumerGroup& g,
                           const engine::Consumer* consumer, bool new_entries, StreamId start,
                           std::size_t count, ReadBudget& budget) {
  if (new_entries) {
    std::optional<StreamId> from = g.last_delivered_id().next();
    return from ? read_fit(s, *from, count, budget) : 0;
  }
  if (!consumer) return 0;
  std::size_t n = 0;
  std::vector<engine::FieldValue> fields;
  for (auto it = consumer->pel().seek(start); it.valid() && (count == 0 || n < count); ++it, ++n) {
    std::size_t size =
        s.lookup(it.id(), fields) ? entry_reply_size(it.id(), fields) : deleted_entry_size(it.id());
    if (!budget.admits(size)) {
      budget.stop();
      break;
    }
    budget.take(size);
  }
  return n;
}

}  // namespace streamd::cmd
