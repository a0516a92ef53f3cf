#include "streamd/engine/stream_builder.h"

#include <algorithm>

#include "streamd/engine/consumer_group.h"
#include "streamd/engine/idmp.h"

namespace streamd::engine {

StreamBuilder::StreamBuilder(StreamLimits limits) : s_(std::make_unique<Stream>(limits)) {}

StreamBuilder::~StreamBuilder() = default;

bool StreamBuilder::StagedPel::add(StreamId id, const Staged& r) {
  if (!in_map_) {
    if (sorted_.empty() || sorted_.back().first < id) {
      sorted_.emplace_back(id, r);
      return true;
    }
    // Out of order: from here on a map keeps the order.
    for (const auto& [sid, sr] : sorted_) map_.emplace_hint(map_.end(), sid, sr);
    sorted_.clear();
    sorted_.shrink_to_fit();
    in_map_ = true;
  }
  return map_.try_emplace(id, r).second;
}

StreamBuilder::Staged* StreamBuilder::StagedPel::find(StreamId id) {
  if (in_map_) {
    auto it = map_.find(id);
    return it == map_.end() ? nullptr : &it->second;
  }
  auto less = [](const auto& e, StreamId v) { return e.first < v; };
  auto lo = sorted_.begin(), hi = sorted_.end();
  if (hint_ < sorted_.size() && !(id < sorted_[hint_].first)) {
    // At or after the hint: gallop forward to bracket it, then search the bracket.
    std::size_t from = hint_, step = 1;
    while (from + step < sorted_.size() && sorted_[from + step].first < id) {
      from += step;
      step *= 2;
    }
    lo = sorted_.begin() + static_cast<std::ptrdiff_t>(from);
    hi = sorted_.begin() + static_cast<std::ptrdiff_t>(std::min(sorted_.size(), from + step + 1));
  }
  auto it = std::lower_bound(lo, hi, id, less);
  if (it == sorted_.end() || it->first != id) return nullptr;
  hint_ = static_cast<std::size_t>(it - sorted_.begin());
  return &it->second;
}

Err StreamBuilder::add_node(std::span<const BuiltEntry> entries) {
  if (entries.empty()) return Err::kBadData;
  for (const BuiltEntry& e : entries) {
    if (e.fields.empty()) return Err::kBadData;
    if (StreamNode::elements_length(e.fields) > Stream::kMaxElementsLength) return Err::kBadData;
    if (have_entry_ && e.id <= last_entry_) return Err::kBadData;
    have_entry_ = true;
    last_entry_ = e.id;
    if (!e.deleted) {
      last_live_ = e.id;
      ++live_;
    }
  }
  // The previous node takes no more appends: shrink it as Stream::tail_for does.
  if (StreamNode* prev = s_->nodes_.last_value()) {
    s_->node_bytes_ -= malloc_size_estimate(prev->capacity());
    prev->shrink_to_fit();
    s_->node_bytes_ += malloc_size_estimate(prev->capacity());
  }
  auto key = entries.front().id.encode();
  std::string_view kv(reinterpret_cast<const char*>(key.data()), key.size());
  s_->drop_seek_hints();
  StreamNode* node = s_->nodes_.emplace(kv, entries.front().id, entries.front().fields).first;
  if (entries.front().deleted) node->tombstone(node->first_offset());
  for (std::size_t i = 1; i < entries.size(); ++i) {
    node->append(entries[i].id, entries[i].fields);
    if (entries[i].deleted) node->tombstone(node->last_entry().offset);
  }
  s_->node_bytes_ += malloc_size_estimate(node->capacity());
  return Err::kOk;
}

void StreamBuilder::set_metadata(uint64_t length, StreamId last_id, uint64_t entries_added,
                                 StreamId max_deleted) {
  length_ = length;
  last_id_ = last_id;
  entries_added_ = entries_added;
  max_deleted_ = max_deleted;
}

Err StreamBuilder::add_group(std::string_view name, StreamId last_delivered, int64_t entries_read) {
  if (entries_read < kEntriesReadUnknown) return Err::kBadData;
  Result<ConsumerGroup*> g = s_->groups_.create(name, last_delivered, entries_read);
  if (!g) return Err::kBadData;
  group_ = *g;
  consumer_ = nullptr;
  return Err::kOk;
}

Err StreamBuilder::add_pending(StreamId id, int64_t delivery_time_ms, uint64_t delivery_count) {
  if (!group_ || delivery_time_ms < 0 || delivery_time_ms > kMaxTime) return Err::kBadData;
  bool added = staged_[group_].add(id, Staged{delivery_time_ms, delivery_count, nullptr, false});
  return added ? Err::kOk : Err::kBadData;
}

Err StreamBuilder::add_consumer(std::string_view name, int64_t seen_time_ms,
                                int64_t active_time_ms) {
  if (!group_ || seen_time_ms < 0 || seen_time_ms > kMaxTime || active_time_ms < -1 ||
      active_time_ms > kMaxTime) {
    return Err::kBadData;
  }
  auto [c, created] = group_->create_consumer(name, seen_time_ms);
  if (!created) return Err::kBadData;
  c->active_time_ms_ = active_time_ms;
  consumer_ = c;
  return Err::kOk;
}

Err StreamBuilder::own(StreamId id) {
  if (!consumer_) return Err::kBadData;
  auto g = staged_.find(group_);
  if (g == staged_.end()) return Err::kBadData;
  Staged* r = g->second.find(id);
  if (!r || r->owner || r->released) return Err::kBadData;
  r->owner = consumer_;
  return Err::kOk;
}

Err StreamBuilder::add_released(std::string_view group, StreamId id, uint64_t delivery_count) {
  ConsumerGroup* g = s_->groups_.find(group);
  if (!g) return Err::kBadData;
  if (!staged_[g].add(id, Staged{0, delivery_count, nullptr, true})) {
    return Err::kBadData;
  }
  released_.emplace_back(g, id);
  return Err::kOk;
}

Err StreamBuilder::set_dead_letter(std::string_view group, uint64_t max_deliveries,
                                   std::string_view stream) {
  ConsumerGroup* g = s_->groups_.find(group);
  if (!g || max_deliveries == 0 || g->dead_letter()) return Err::kBadData;
  g->set_dead_letter(DeadLetterPolicy{max_deliveries, std::string(stream)});
  return Err::kOk;
}

Err StreamBuilder::set_idmp(bool configured, uint32_t duration_sec, uint32_t maxsize,
                            uint64_t iids_added, uint64_t duplicates) {
  if (duration_sec < 1 || duration_sec > IdmpTable::kMaxDurationSec || maxsize < 1 ||
      maxsize > IdmpTable::kMaxMaxSize || s_->idmp()) {
    return Err::kBadData;
  }
  IdmpTable& t = s_->idmp_or_create();
  if (configured) t.configure(duration_sec, maxsize);
  t.restore_counters(iids_added, duplicates);
  return Err::kOk;
}

Err StreamBuilder::add_idmp_record(std::string_view pid, std::string_view iid, StreamId id,
                                   uint64_t now_ms) {
  if (!s_->idmp()) return Err::kBadData;
  IdmpTable& t = *s_->idmp();
  uint64_t added = t.iids_added();
  t.record(pid, iid, id, now_ms);
  t.restore_counters(added, t.iids_duplicates());  // record() counted it: the file has the total
  return Err::kOk;
}

Result<std::unique_ptr<Stream>> StreamBuilder::finish() {
  if (live_ != length_ || entries_added_ < length_) return Err::kBadData;
  if (live_ != 0 && last_id_ < last_live_) return Err::kBadData;
  Stream& s = *s_;
  s.length_ = length_;
  s.entries_added_ = entries_added_;
  s.last_id_ = last_id_;
  s.max_deleted_ = max_deleted_;
  s.first_id_ = live_ != 0 ? s.first_live_id() : StreamId{};
  // Every record must have an owner or be released. The owned ones go into the Pel in ID order,
  // each run of records with one owner and one delivery time as one delivery (what a group read
  // made them; Pel::deliver links a run in one step), then their delivery counts where not 1;
  // then the released ones in release order (the NACK zone's order). The Pel orders its time
  // index itself.
  Err err = Err::kOk;
  std::size_t released_seen = 0;
  std::vector<StreamId> run;
  std::vector<std::pair<StreamId, uint64_t>> counts;
  for (auto& [g, records] : staged_) {
    bool unowned = false;
    ConsumerGroup* group = g;
    uint32_t run_owner = 0;
    int64_t run_time = 0;
    auto deliver_run = [&] {
      if (!run.empty()) group->pel_.deliver(run, run_owner, run_time);
      run.clear();
    };
    counts.clear();
    records.for_each([&](StreamId id, const Staged& r) {
      if (r.released || unowned) return;
      if (!r.owner) {
        unowned = true;
        return;
      }
      if (!run.empty() && (r.owner->slot_ != run_owner || r.delivery_time_ms != run_time)) {
        deliver_run();
      }
      run_owner = r.owner->slot_;
      run_time = r.delivery_time_ms;
      run.push_back(id);
      if (r.delivery_count != 1) counts.emplace_back(id, r.delivery_count);
    });
    if (unowned) return Err::kBadData;
    deliver_run();
    for (const auto& [id, count] : counts) group->pel_.set_count(id, count);
  }
  for (const auto& [g, id] : released_) {
    g->pel_.add_nacked(id, staged_[g].find(id)->delivery_count);
    ++released_seen;
  }
  if (err != Err::kOk || released_seen != released_.size()) return Err::kBadData;
  return std::move(s_);
}

}  // namespace streamd::engine
