#include "streamd/engine/stream.h"

#include <string_view>

#include "streamd/engine/idmp.h"

namespace streamd::engine {

namespace {

// A node's tree key: its master ID, 16 bytes big-endian.
class IdKey {
 public:
  explicit IdKey(StreamId id) { id.encode(bytes_); }
  std::string_view view() const {
    return {reinterpret_cast<const char*>(bytes_), StreamId::kEncodedSize};
  }

 private:
  uint8_t bytes_[StreamId::kEncodedSize];
};

}  // namespace

Stream::Stream(StreamLimits limits) : limits_(limits) {}

Stream::~Stream() = default;

std::unique_ptr<Stream> Stream::clone() const {
  auto s = std::make_unique<Stream>(limits_);
  s->nodes_ = nodes_;  // StreamNode copies are deep and shrunk to fit
  for (auto it = s->nodes_.begin(); it.valid(); ++it) {
    s->node_bytes_ += malloc_size_estimate(it.value().capacity());
  }
  s->length_ = length_;
  s->entries_added_ = entries_added_;
  s->last_id_ = last_id_;
  s->first_id_ = first_id_;
  s->max_deleted_ = max_deleted_;
  s->groups_ = groups_.clone();
  if (idmp_) s->idmp_ = idmp_->clone();
  return s;
}

IdmpTable& Stream::idmp_or_create() {
  if (!idmp_) idmp_ = std::make_unique<IdmpTable>();
  return *idmp_;
}

std::size_t Stream::memory_usage() const {
  return sizeof(Stream) + nodes_.memory_usage() + node_bytes_ + groups_.memory_usage() +
         (idmp_ ? idmp_->memory_usage() : 0);
}

// ---- writes ----------------------------------------------------------------------------------

// The node an entry with this ID goes to, if it fits in the last node (Redis's rule); nullptr
// when a new node must start. The node that stops taking appends is shrunk to fit.
StreamNode* Stream::tail_for(StreamId id, std::span<const FieldValue> fields) {
  StreamNode* tail = nodes_.last_value();
  if (!tail) return nullptr;
  std::size_t max_bytes = limits_.max_bytes;
  if (max_bytes == 0 || max_bytes > kMaxElementsLength) max_bytes = kMaxElementsLength;
  bool full = tail->listpack_bytes() + StreamNode::elements_length(fields) >= max_bytes ||
              (limits_.max_entries != 0 &&
               uint64_t{tail->live()} + tail->deleted() >= limits_.max_entries) ||
              // Only after XSETID lowered last_id below tombstones at the tail: never put an
              // entry before existing ones in a node.
              (check_tail_last_ && id <= tail->last_id());
  if (!full) return tail;
  node_bytes_ -= malloc_size_estimate(tail->capacity());
  tail->shrink_to_fit();
  node_bytes_ += malloc_size_estimate(tail->capacity());
  return nullptr;
}

Result<StreamId> Stream::append(const IdSpec& spec, std::span<const FieldValue> fields,
                                uint64_t now_ms) {
  Result<StreamId> id = next_stream_id(spec, last_id_, now_ms);
  if (!id) return id;
  if (StreamNode::elements_length(fields) > kMaxElementsLength) return Err::kElementsTooLarge;
  if (StreamNode* tail = tail_for(*id, fields)) {
    node_bytes_ -= malloc_size_estimate(tail->capacity());
    tail->append(*id, fields);
    node_bytes_ += malloc_size_estimate(tail->capacity());
  } else {
    IdKey key(*id);
    drop_seek_hints();
    StreamNode* node = nodes_.emplace(key.view(), *id, fields).first;
    node_bytes_ += malloc_size_estimate(node->capacity());
  }
  ++length_;
  ++entries_added_;
  last_id_ = *id;
  check_tail_last_ = false;  // the last node ends with this entry
  if (length_ == 1) first_id_ = *id;
  return id;
}

void Stream::remove_node(StreamId master) {
  drop_seek_hints();
  check_tail_last_ = true;
  IdKey key(master);
  StreamNode node;
  nodes_.erase(key.view(), &node);
  node_bytes_ -= malloc_size_estimate(node.capacity());
}

TrimResult Stream::trim(const TrimSpec& spec) {
  TrimResult r;
  bool by_len = spec.strategy == TrimStrategy::kMaxLen;
  if (spec.strategy != TrimStrategy::kNone) {
    while (StreamNode* node = nodes_.first_value()) {
      if (by_len && length_ <= spec.maxlen) break;
      uint64_t live = node->live();
      if (spec.approx && spec.limit != 0 && r.removed + live > spec.limit) break;
      bool whole = by_len ? length_ - live >= spec.maxlen : node->last_id() < spec.minid;
      if (whole) {
        length_ -= live;
        r.removed += live;
        remove_node(node->master_id());
        continue;
      }
      if (spec.approx) break;
      // Exact: tombstone from the front of this node until the threshold is met. Redis stops
      // here and keeps the node even if nothing live is left in it.
      for (uint32_t off = node->first_offset(); off != node->end_offset();) {
        if (by_len && length_ <= spec.maxlen) break;
        StreamNode::Entry e = node->entry(off);
        if (!e.deleted) {
          if (!by_len && e.id >= spec.minid) break;
          node->tombstone(off);
          --length_;
          ++r.removed;
        }
        off = e.next;
      }
      break;
    }
    if (r.removed != 0) first_id_ = first_live_id();
  }
  r.exact_maxlen = length_;
  r.exact_minid = length_ != 0 ? first_id_ : StreamId::max();
  return r;
}

bool Stream::erase(StreamId id, bool record_deleted) {
  IdKey key(id);
  auto it = nodes_.seek(SeekOp::kLe, key.view());
  if (!it.valid()) return false;
  StreamNode& node = it.value();
  std::optional<uint32_t> off = node.find(id);
  if (!off || !node.tombstone(*off)) return false;
  --length_;
  if (node.live() == 0) remove_node(node.master_id());
  if (record_deleted && id > max_deleted_) max_deleted_ = id;
  if (id == first_id_) first_id_ = first_live_id();
  return true;
}

Err Stream::set_id(StreamId last_id, std::optional<uint64_t> entries_added,
                   std::optional<StreamId> max_deleted) {
  if (max_deleted && last_id < *max_deleted) return Err::kSetIdSmallerThanProvidedMaxDeleted;
  // Redis 7.2+: the last ID may not go below an ID that was deleted, or a later XADD could
  // reuse it (checked against the current value, before the top item and even when empty).
  if (last_id < max_deleted_) return Err::kSetIdSmallerThanMaxDeleted;
  if (length_ != 0) {
    if (last_id < last_entry_id()) return Err::kSetIdSmallerThanTop;
    if (entries_added && *entries_added < length_) return Err::kEntriesAddedSmallerThanLength;
  }
  last_id_ = last_id;
  check_tail_last_ = true;  // may now be below tombstones at the tail
  if (entries_added) entries_added_ = *entries_added;
  if (max_deleted && !max_deleted->is_zero()) max_deleted_ = *max_deleted;
  return Err::kOk;
}

// ---- reads -----------------------------------------------------------------------------------

StreamId Stream::first_live_id() const {
  Iterator it = scan(StreamId::min(), StreamId::max());
  return it.next() ? it.id() : StreamId{};
}

StreamId Stream::last_entry_id() const {
  // Every XREAD asks this once per stream, woken or not. The last node's last entry is live
  // unless it was deleted (never after an XADD), and then it is the answer at once; only a
  // tombstone there needs the backward walk, which collects the node's offsets first.
  if (const StreamNode* last = nodes_.last_value()) {
    StreamNode::Entry e = last->last_entry();
    if (!e.deleted) return e.id;
  }
  Iterator it = scan(StreamId::min(), StreamId::max(), Direction::kBackward);
  return it.next() ? it.id() : StreamId{};
}

bool Stream::contains(StreamId id) const {
  IdKey key(id);
  auto it = nodes_.seek(SeekOp::kLe, key.view());
  if (!it.valid()) return false;
  std::optional<uint32_t> off = it.value().find(id);
  return off && !it.value().entry(*off).deleted;
}

bool Stream::lookup(StreamId id, std::vector<FieldValue>& out) const {
  IdKey key(id);
  auto it = nodes_.seek(SeekOp::kLe, key.view());
  if (!it.valid()) return false;
  const StreamNode& node = it.value();
  std::optional<uint32_t> off = node.find(id);
  if (!off || node.entry(*off).deleted) return false;
  node.read_fields(*off, out);
  return true;
}

Stream::Iterator Stream::scan(StreamId start, StreamId end, Direction dir) const {
  return Iterator(*this, start, end, dir);
}

// ---- iterator --------------------------------------------------------------------------------

Stream::Iterator::Iterator(const Stream& s, StreamId start, StreamId end, Direction dir)
    : start_(start), end_(end), dir_(dir) {
  if (start > end || s.length_ == 0) return;
  done_ = false;
  // The node that may hold the first ID to visit is the last one whose master is <= it.
  IdKey key(dir == Direction::kForward ? start : end);
  tree_it_ = s.nodes_.seek(SeekOp::kLe, key.view());
  if (dir == Direction::kForward && !tree_it_.valid()) tree_it_ = s.nodes_.begin();
  load_node();
  if (dir == Direction::kForward) {
    hints_ = s.seek_hints_;
    if (node_ && !done_) {
      for (const SeekHint& h : s.seek_hints_) {
        if (h.valid && h.lo <= start && h.master == master_ && h.offset > off_) off_ = h.offset;
      }
    }
  }
}

void Stream::Iterator::load_node() {
  if (!tree_it_.valid()) {
    done_ = true;
    node_ = nullptr;
    return;
  }
  node_ = &tree_it_.value();
  if (dir_ == Direction::kForward) {
    master_ = node_->master_id();
    if (master_ > end_) {
      done_ = true;
      return;
    }
    off_ = node_->first_offset();
  } else {
    node_->offsets(offs_);
    oi_ = offs_.size();
  }
}

bool Stream::Iterator::next() {
  fields_ready_ = false;
  while (!done_) {
    StreamNode::Entry e;
    if (dir_ == Direction::kForward) {
      if (off_ == node_->end_offset()) {
        ++tree_it_;
        load_node();
        continue;
      }
      e = node_->entry(off_);
      off_ = e.next;
      if (e.deleted || e.id < start_) continue;
      if (e.id > end_) break;
      // Every live entry >= start_ in this node is at e.offset or after (the walk skipped
      // only dead entries and smaller IDs to get here): hint [1] for readers from the same ID.
      if (!returned_any_) hints_[1] = SeekHint{master_, start_, e.offset, true};
      returned_any_ = true;
      hints_[0] = SeekHint{master_, e.id, e.offset, true};
    } else {
      if (oi_ == 0) {
        --tree_it_;
        load_node();
        continue;
      }
      e = node_->entry(offs_[--oi_]);
      if (e.deleted || e.id > end_) continue;
      if (e.id < start_) break;
    }
    id_ = e.id;
    cur_ = e.offset;
    return true;
  }
  done_ = true;
  return false;
}

std::span<const FieldValue> Stream::Iterator::fields() const {
  if (!fields_ready_) {
    node_->read_fields(cur_, fields_);
    fields_ready_ = true;
  }
  return fields_;
}

}  // namespace streamd::engine
