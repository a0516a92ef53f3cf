// Helpers shared by the consumer-group unit tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/engine/consumer_group.h"
#include "streamd/engine/stream.h"

namespace streamd::engine::testing {

inline constexpr int64_t kT0 = 1700000000000;

// A stream with groups, driven the way the commands drive it, with a clock moved by hand.
class GroupHarness {
 public:
  Stream s;
  int64_t now = kT0;

  void add(uint64_t ms, uint64_t seq, std::string_view value = "v") {
    FieldValue fv{"f", value};
    ASSERT_TRUE(s.append(StreamId{ms, seq}, std::span<const FieldValue>(&fv, 1)).ok());
  }
  void del(uint64_t ms, uint64_t seq) { ASSERT_TRUE(s.erase(StreamId{ms, seq})); }

  ConsumerGroup& create(std::string_view name, StreamId id,
                        int64_t entries_read = kEntriesReadUnknown) {
    Result<ConsumerGroup*> g = s.groups().create(name, id, entries_read);
    EXPECT_TRUE(g.ok());
    return *g.value();
  }
  ConsumerGroup& group(std::string_view name) {
    ConsumerGroup* g = s.groups().find(name);
    EXPECT_NE(g, nullptr) << name;
    return *g;
  }
  Consumer& consumer(std::string_view group_name, std::string_view name) {
    return *group(group_name).create_consumer(name, now).first;
  }

  // XREADGROUP GROUP g c COUNT n STREAMS s > ; returns the delivered IDs.
  std::vector<StreamId> read(std::string_view g, std::string_view c, std::size_t count,
                             bool noack = false) {
    ConsumerGroup& grp = group(g);
    std::vector<StreamId> ids;
    if (!grp.has_new_entries(s)) return ids;
    ReadResult r = grp.read_new(s, consumer(g, c), count, noack, now);
    for (const GroupEntry& e : r.entries) ids.push_back(e.id);
    EXPECT_TRUE(grp.check_invariants());
    return ids;
  }

  // What XINFO GROUPS shows for the group.
  void expect_info(std::string_view g, StreamId last, std::optional<int64_t> entries_read,
                   std::optional<int64_t> lag, const char* where = "") {
    GroupInfo info = group(g).info(s);
    EXPECT_EQ(info.last_delivered_id, last) << g << " " << where;
    EXPECT_EQ(info.entries_read, entries_read) << g << " entries-read " << where;
    EXPECT_EQ(info.lag, lag) << g << " lag " << where;
  }
};

inline std::vector<StreamId> ids_of(const DeliveryBatch& b) {
  std::vector<StreamId> ids;
  for (const GroupEntry& e : b) ids.push_back(e.id);
  return ids;
}

}  // namespace streamd::engine::testing
