// StreamNode: one packed block of consecutive stream entries (what Redis calls a listpack node).
// A Stream keeps its nodes in a RadixTree keyed by each node's master (first) ID.
//
// Block layout (one malloc'd buffer, grown as entries are appended, shrunk when the node is
// closed):
//   Header   used/capacity, live and deleted counters, offsets of the first and last entries,
//            the Redis-equivalent size (see listpack_bytes), the master ID.
//   Master   varint nfields, then nfields × (varint len, bytes): the first entry's field names.
//   Entries  back to back, each:
//            tag      varint-like: bit 0 DELETED, bit 1 SAMEFIELDS, bits 2..6 the low 5 bits of
//                     ms_delta = ms - master.ms, bit 7 "more"; then LEB128 of ms_delta >> 5.
//            seq      LEB128: seq - master.seq when ms_delta == 0, else seq itself (so it never
//                     goes negative and stays small).
//            fields   SAMEFIELDS: nfields × (varint len, value) with the master's field names;
//                     otherwise varint n, then n × (len, field, len, value).
// A typical small entry (`temperature 23.5`, many per millisecond) takes 7 bytes.
//
// Invariants: entries are in strictly increasing ID order; the first entry has the master ID;
// deleting only sets the DELETED bit (in place, the entry keeps its bytes) and moves one from
// `live` to `deleted`. The node never becomes empty of entries (a Stream frees a node once
// nothing live is left in it, except where Redis keeps it, see Stream::trim).
// Backward iteration collects the entry offsets with one forward pass (offsets()): nodes are
// small (100 entries by default), and that saves a back-pointer byte in every entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "streamd/engine/stream_id.h"

namespace streamd::engine {

// One field/value pair of an entry. Views are into the caller's buffers or into a node.
struct FieldValue {
  std::string_view field;
  std::string_view value;
  friend bool operator==(const FieldValue&, const FieldValue&) = default;
};

class StreamNode {
 public:
  // What a walk over the node sees at one offset.
  struct Entry {
    StreamId id;
    uint32_t offset = 0;  // where the entry starts
    uint32_t next = 0;    // where the following entry starts (end_offset() after the last)
    bool deleted = false;
  };

  StreamNode() = default;  // an empty handle; only a moved-from or default node is empty
  // A new node holding one entry (its master).
  StreamNode(StreamId first, std::span<const FieldValue> fields);
  ~StreamNode();
  StreamNode(StreamNode&& o) noexcept : buf_(o.buf_) { o.buf_ = nullptr; }
  StreamNode& operator=(StreamNode&& o) noexcept;
  StreamNode(const StreamNode& o);  // deep copy, shrunk to fit
  StreamNode& operator=(const StreamNode& o);

  explicit operator bool() const { return buf_ != nullptr; }

  StreamId master_id() const;
  StreamId last_id() const;  // of the last entry, deleted or not
  Entry last_entry() const;  // the last entry, deleted or not (from the header: no walk)
  uint32_t live() const;
  uint32_t deleted() const;
  std::size_t bytes() const;     // bytes in use
  std::size_t capacity() const;  // bytes allocated
  std::size_t master_field_count() const;

  // The size Redis's listpack for the same entries would have. Stream uses it to close nodes
  // exactly where Redis does, so node boundaries (and thus `~` trimming and radix-tree-keys)
  // match Redis.
  std::size_t listpack_bytes() const;

  // Appends an entry; `id` must be greater than last_id().
  void append(StreamId id, std::span<const FieldValue> fields);
  // Drops unused capacity (called when the node stops receiving appends).
  void shrink_to_fit();

  // Walking: for (off = first_offset(); off != end_offset(); off = e.next) e = entry(off);
  uint32_t first_offset() const;
  uint32_t end_offset() const;
  Entry entry(uint32_t off) const;
  // The entry's field/value pairs (views into this node), appended to `out` after clearing it.
  void read_fields(uint32_t off, std::vector<FieldValue>& out) const;
  // entry() and read_fields() in one pass (RDB saves walk every entry this way).
  // `same_fields`: the entry's field names are the master's, in order.
  Entry read_entry(uint32_t off, std::vector<FieldValue>& out, bool& same_fields) const;
  // Offsets of all entries in order (for backward walks).
  void offsets(std::vector<uint32_t>& out) const;
  // The offset of the entry with this ID (deleted or not), if present.
  std::optional<uint32_t> find(StreamId id) const;
  // Sets the DELETED flag; false if the entry was already deleted.
  bool tombstone(uint32_t off);

  // Sum of field and value lengths: what Redis adds to the node size when deciding whether an
  // entry still fits, and what XADD limits to 1 GiB (kElementsTooLarge).
  static std::size_t elements_length(std::span<const FieldValue> fields);

 private:
  struct Header;
  Header* header() const;
  void reserve(std::size_t needed);

  uint8_t* buf_ = nullptr;
};

}  // namespace streamd::engine
