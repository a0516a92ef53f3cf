#include "streamd/engine/stream_groups.h"

#include "streamd/engine/consumer_group.h"

namespace streamd::engine {

StreamGroups::~StreamGroups() {
  clear();
}

StreamGroups& StreamGroups::operator=(StreamGroups&& o) noexcept {
  if (this != &o) {
    clear();
    by_name_.swap(o.by_name_);
  }
  return *this;
}

StreamGroups StreamGroups::clone() const {
  StreamGroups copy;
  copy.by_name_ = by_name_.clone_with([](ConsumerGroup* g) { return g->clone().release(); });
  return copy;
}

Result<ConsumerGroup*> StreamGroups::create(std::string_view name, StreamId last_delivered_id,
                                            int64_t entries_read) {
  auto [slot, inserted] = by_name_.insert(name, nullptr);
  if (!inserted) return Err::kBusyGroup;
  *slot = new ConsumerGroup(name, last_delivered_id, entries_read);
  return *slot;
}

bool StreamGroups::destroy(std::string_view name) {
  ConsumerGroup* g = nullptr;
  if (!by_name_.erase(name, &g)) return false;
  delete g;
  return true;
}

void StreamGroups::clear() {
  for (auto it = by_name_.begin(); it.valid(); ++it) delete it.value();
  by_name_.clear();
}

std::size_t StreamGroups::memory_usage() const {
  std::size_t bytes = by_name_.memory_usage();
  for_each([&](const ConsumerGroup& g) { bytes += g.memory_usage(); });
  return bytes;
}

}  // namespace streamd::engine
