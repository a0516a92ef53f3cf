// StreamGroups: the consumer groups of one stream, by name. A Stream owns one (Stream::groups());
// groups are iterated in byte order of their names, as Redis lists them (XINFO GROUPS, XINFO
// STREAM FULL). This header only needs a declaration of ConsumerGroup so that stream.h can hold
// the container without including the group code; consumer_group.h has the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "streamd/engine/radix_tree.h"
#include "streamd/engine/status.h"
#include "streamd/engine/stream_id.h"

namespace streamd::engine {

class ConsumerGroup;

class StreamGroups {
 public:
  StreamGroups() = default;
  ~StreamGroups();
  StreamGroups(StreamGroups&& o) noexcept { by_name_.swap(o.by_name_); }
  StreamGroups& operator=(StreamGroups&& o) noexcept;
  StreamGroups(const StreamGroups&) = delete;
  StreamGroups& operator=(const StreamGroups&) = delete;

  // Deep copy (COPY).
  StreamGroups clone() const;

  std::size_t size() const { return by_name_.size(); }
  bool empty() const { return by_name_.empty(); }

  ConsumerGroup* find(std::string_view name) {
    ConsumerGroup** g = by_name_.find(name);
    return g ? *g : nullptr;
  }
  const ConsumerGroup* find(std::string_view name) const {
    ConsumerGroup* const* g = by_name_.find(name);
    return g ? *g : nullptr;
  }

  // XGROUP CREATE (the caller resolves `$`; entries_read is -1 without ENTRIESREAD).
  // Errors: kBusyGroup.
  Result<ConsumerGroup*> create(std::string_view name, StreamId last_delivered_id,
                                int64_t entries_read);
  // XGROUP DESTROY: false if there is no such group.
  bool destroy(std::string_view name);
  void clear();

  // Calls f(ConsumerGroup&) / f(const ConsumerGroup&) for every group in name order. f must
  // not create or destroy groups.
  template <class F>
  void for_each(F&& f) {
    for (auto it = by_name_.begin(); it.valid(); ++it) f(*it.value());
  }
  template <class F>
  void for_each(F&& f) const {
    for (auto it = by_name_.begin(); it.valid(); ++it) f(std::as_const(*it.value()));
  }

  // Estimated heap bytes of every group (see ConsumerGroup::memory_usage).
  std::size_t memory_usage() const;

 private:
  RadixTree<ConsumerGroup*> by_name_;  // owned
};

}  // namespace streamd::engine
