// ConsumerGroup core: consumers, the shared-record bookkeeping, XREADGROUP and XACK.
// Claims are in group_claim.cc; XPENDING/XINFO data, memory and invariant checks in
// group_info.cc.
#include "streamd/engine/consumer_group.h"

#include <cassert>
#include <utility>

namespace streamd::engine {

GroupEntry& DeliveryBatch::add(StreamId id, std::span<const FieldValue> fields) {
  const FieldValue* old_data = fields_.data();
  field_offsets_.push_back(static_cast<uint32_t>(fields_.size()));
  fields_.insert(fields_.end(), fields.begin(), fields.end());
  if (fields_.data() != old_data) {
    // The storage moved: point the earlier entries' spans at the new buffer.
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      std::size_t n = entries_[i].fields.size();
      if (n != 0) entries_[i].fields = {fields_.data() + field_offsets_[i], n};
    }
  }
  GroupEntry& e = entries_.emplace_back();
  e.id = id;
  if (!fields.empty()) e.fields = {fields_.data() + field_offsets_.back(), fields.size()};
  return e;
}

ConsumerGroup::ConsumerGroup(std::string_view name, StreamId last_delivered_id,
                             int64_t entries_read)
    : name_(name), last_delivered_id_(last_delivered_id), entries_read_(entries_read) {}

ConsumerGroup::~ConsumerGroup() {
  for (auto it = consumers_.begin(); it.valid(); ++it) delete it.value();
}

// ---- consumers -------------------------------------------------------------------------------

Consumer* ConsumerGroup::find_consumer(std::string_view name) {
  Consumer** c = consumers_.find(name);
  return c ? *c : nullptr;
}

const Consumer* ConsumerGroup::find_consumer(std::string_view name) const {
  Consumer* const* c = consumers_.find(name);
  return c ? *c : nullptr;
}

std::pair<Consumer*, bool> ConsumerGroup::create_consumer(std::string_view name, int64_t now_ms) {
  auto [slot, inserted] = consumers_.insert(name, nullptr);
  if (!inserted) return {*slot, false};
  auto* c = new Consumer(name, now_ms, &pel_);
  c->slot_ = pel_.add_owner(c);
  *slot = c;
  return {c, true};
}

std::optional<uint64_t> ConsumerGroup::delete_consumer(std::string_view name) {
  Consumer* c = nullptr;
  if (!consumers_.erase(name, &c)) return std::nullopt;
  uint64_t pending = c->pending_count();
  std::vector<StreamId> ids;
  ids.reserve(pending);
  for (Pel::Iterator it = c->pel().begin(); it.valid(); ++it) ids.push_back(it.id());
  for (StreamId id : ids) pel_.erase(id);
  pel_.remove_owner(c->slot_);
  delete c;
  return pending;
}

// ---- shared records --------------------------------------------------------------------------

uint64_t ConsumerGroup::bump_count(StreamId id) {
  // Saturates at LLONG_MAX (Pel::bump_count); XNACK FATAL sets exactly that.
  return pel_.bump_count(id);
}

void ConsumerGroup::debug_check_id([[maybe_unused]] StreamId id) const {
#ifndef NDEBUG
  assert(pel_.check_id(id));
  std::optional<PendingEntry> e = pel_.find(id);
  if (!e || !e->owner) return;  // not pending, or NACKed
  assert(find_consumer(e->owner->name()) == e->owner);
  assert(e->owner->pel().contains(id));
#endif
}

GroupEntry* ConsumerGroup::add_stream_entry(const Stream& s, StreamId id, DeliveryBatch& out) {
  if (!s.lookup(id, scratch_)) return nullptr;
  return &out.add(id, scratch_);
}

// ---- XREADGROUP ------------------------------------------------------------------------------

bool ConsumerGroup::has_new_entries(const Stream& s) const {
  return s.length() != 0 && s.last_entry_id() > last_delivered_id_;
}

ReadResult ConsumerGroup::read_new(const Stream& s, Consumer& c, std::size_t count, bool noack,
                                   int64_t now_ms, Admission* admit) {
  assert(find_consumer(c.name()) == &c);
  ReadResult r;
  c.seen_time_ms_ = now_ms;
  std::optional<StreamId> from = last_delivered_id_.next();
  std::vector<StreamId> delivered;
  if (from) {
    Stream::Iterator it = s.scan(*from, StreamId::max());
    while ((count == 0 || r.entries.size() < count) && it.next()) {
      StreamId id = it.id();
      if (admit && !admit->admit(GroupEntry{.id = id, .fields = it.fields()})) break;
      entries_read_ = entries_read_after_delivery(s, last_delivered_id_, id, entries_read_);
      last_delivered_id_ = id;
      GroupEntry& out = r.entries.add(id, it.fields());
      if (noack) continue;
      delivered.push_back(id);
      out.pending = true;
      out.delivery_time_ms = now_ms;
      out.delivery_count = 1;
    }
  }
  // One batch: the IDs are ascending and mostly neighbours in the PEL (Pel::deliver).
  pel_.deliver(delivered, c.slot_, now_ms);
  for (StreamId id : delivered) debug_check_id(id);
  if (!r.entries.empty()) {
    // Redis counts only deliveries that created pending entries as activity: NOACK reads leave
    // active_time alone.
    if (!noack) c.active_time_ms_ = now_ms;
    r.last_id_changed = true;
  }
  r.last_delivered_id = last_delivered_id_;
  r.entries_read = entries_read_;
  return r;
}

ReadResult ConsumerGroup::read_history(const Stream& s, Consumer& c, StreamId start,
                                       std::size_t count, int64_t now_ms, Admission* admit) {
  assert(find_consumer(c.name()) == &c);
  ReadResult r;
  c.seen_time_ms_ = now_ms;
  // Only the records' times change below (same owner), so the owner walk stays valid.
  for (Pel::Iterator it = c.pel().seek(start); it.valid(); ++it) {
    if (count != 0 && r.entries.size() >= count) break;
    StreamId id = it.id();
    const bool live = s.lookup(id, scratch_);
    if (admit && !admit->admit(GroupEntry{.id = id,
                                          .fields = live ? std::span<const FieldValue>(scratch_)
                                                         : std::span<const FieldValue>(),
                                          .deleted = !live})) {
      break;
    }
    if (!live) {
      r.entries.add(id, {}).deleted = true;
      continue;
    }
    GroupEntry* out = &r.entries.add(id, scratch_);
    pel_.redeliver(id, c.slot_, now_ms);
    out->pending = true;
    out->delivery_time_ms = now_ms;
    out->delivery_count = bump_count(id);
    debug_check_id(id);
  }
  // A history read is not activity (Redis leaves active_time alone): only new deliveries and
  // claims are.
  r.last_delivered_id = last_delivered_id_;
  r.entries_read = entries_read_;
  return r;
}

namespace {

// Passes offers on to another admission and remembers whether it refused one.
class RefusalWatch final : public Admission {
 public:
  explicit RefusalWatch(Admission* inner) : inner_(inner) {}
  Admission* get() { return inner_ ? this : nullptr; }
  bool refused() const { return refused_; }
  bool admit(const GroupEntry& e) override {
    if (inner_->admit(e)) return true;
    refused_ = true;
    return false;
  }

 private:
  Admission* inner_;
  bool refused_ = false;
};

}  // namespace

GroupReadResult ConsumerGroup::read(const Stream& s, const GroupReadRequest& req, int64_t now_ms,
                                    Admission* admit) {
  GroupReadResult r;
  auto [c, created] = create_consumer(req.consumer, now_ms);
  r.consumer_created = created;
  c->seen_time_ms_ = now_ms;
  RefusalWatch watch(admit);
  std::size_t count = req.count;
  const bool claim = req.new_entries && req.claim_min_idle_ms;
  if (claim) {
    ClaimIdleResult cr =
        claim_idle(s, req.consumer, *req.claim_min_idle_ms, count, now_ms, watch.get());
    r.deleted = std::move(cr.deleted);
    r.claimed = std::move(cr.claimed);
    r.dead_lettered = std::move(cr.dead_lettered);
    if (count != 0) count -= r.claimed.size();  // what is left for new entries
  }
  r.read_new = req.new_entries;
  if (!req.new_entries) {
    r.read = read_history(s, *c, req.start, count, now_ms, watch.get()).entries;
  } else if (!watch.refused() && (!claim || req.count == 0 || count != 0) && has_new_entries(s)) {
    ReadResult rr = read_new(s, *c, count, req.noack, now_ms, watch.get());
    r.read = std::move(rr.entries);
    r.last_id_changed = rr.last_id_changed;
  }
  r.refused = watch.refused();
  return r;
}

// ---- XACK ------------------------------------------------------------------------------------

uint64_t ConsumerGroup::ack(std::span<const StreamId> ids) {
  // One batch: a consumer acknowledges what it read, mostly neighbours in the PEL.
  return pel_.erase_many(ids);
}

}  // namespace streamd::engine
