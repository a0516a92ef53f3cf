// Stream bodies (value_codec.h has the layout) and the streamd extension blob.
#include <algorithm>
#include <string>
#include <vector>

#include "streamd/engine/consumer_group.h"
#include "streamd/engine/idmp.h"
#include "streamd/persist/rdb/listpack.h"
#include "streamd/persist/rdb/stream_codec.h"

namespace streamd::persist::rdb {

namespace {

using engine::StreamId;

constexpr int64_t kFlagDeleted = 1;
constexpr int64_t kFlagSameFields = 2;
// Version 2 added the dead-letter policies (STREAMD.DEADLETTER) after the IDMP table; a
// version 1 blob (no such section) still loads.
constexpr uint64_t kExtVersion = 2;
constexpr uint64_t kExtVersionNoDeadLetters = 1;

void raw_id(Writer& w, StreamId id) {
  auto b = id.encode();
  w.raw(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

StreamId read_raw_id(Reader& r) {
  std::string_view v = r.raw(StreamId::kEncodedSize);
  if (!r.ok()) return {};
  return StreamId::decode(reinterpret_cast<const uint8_t*>(v.data()));
}

// One node as a Redis stream listpack; the master fields are the first entry's field names.
std::string node_listpack(const engine::StreamNode& node) {
  ListpackWriter lp;
  // Reused across calls: a save walks every node of every stream.
  thread_local std::vector<engine::FieldValue> fields;
  const StreamId mid = node.master_id();
  lp.add_int(node.live());
  lp.add_int(node.deleted());
  // The master entry's field names, written once; entries with the same names (the node's
  // SAMEFIELDS flag, which is exactly Redis's) store only their values.
  bool same;
  node.read_entry(node.first_offset(), fields, same);
  lp.add_int(static_cast<int64_t>(fields.size()));
  for (const auto& f : fields) lp.add_string(f.field);
  lp.add_int(0);
  const uint32_t end = node.end_offset();  // out of line: asked once, not per entry
  for (uint32_t off = node.first_offset(); off != end;) {
    engine::StreamNode::Entry e = node.read_entry(off, fields, same);
    lp.add_int((e.deleted ? kFlagDeleted : 0) | (same ? kFlagSameFields : 0));
    lp.add_int(static_cast<int64_t>(e.id.ms - mid.ms));
    lp.add_int(static_cast<int64_t>(e.id.seq - mid.seq));
    if (!same) lp.add_int(static_cast<int64_t>(fields.size()));
    for (const auto& f : fields) {
      if (!same) lp.add_string(f.field);
      lp.add_string(f.value);
    }
    int64_t count = static_cast<int64_t>(fields.size()) + 3;
    if (!same) count += static_cast<int64_t>(fields.size()) + 1;
    lp.add_int(count);
    off = e.next;
  }
  return lp.finish();
}

}  // namespace

void write_stream_body(Writer& w, const engine::Stream& s, uint8_t type) {
  w.len(s.radix_tree_keys());
  s.for_each_node([&](const engine::StreamNode& node) {
    auto key = node.master_id().encode();
    w.plain_string(std::string_view(reinterpret_cast<const char*>(key.data()), key.size()));
    // As rdbSaveRawString stores it: LZF-compressed when rdbcompression is on (a node's entries
    // repeat their field names and flags, so it usually halves).
    w.string(node_listpack(node));
    w.spill_point();
  });
  w.len(s.length());
  w.len(s.last_id().ms);
  w.len(s.last_id().seq);
  if (type >= kTypeStreamListpacks2) {
    w.len(s.first_id().ms);
    w.len(s.first_id().seq);
    w.len(s.max_deleted_entry_id().ms);
    w.len(s.max_deleted_entry_id().seq);
    w.len(s.entries_added());
  }
  w.len(s.group_count());
  s.groups().for_each([&](const engine::ConsumerGroup& g) {
    w.string(g.name());
    w.len(g.last_delivered_id().ms);
    w.len(g.last_delivered_id().seq);
    if (type >= kTypeStreamListpacks2) w.len(static_cast<uint64_t>(g.entries_read()));
    // Released (XNACK) records have no consumer, which Redis's format cannot say: they travel
    // in the extension blob only.
    w.len(g.pending_count() - g.nacked_count());
    {
      // Each record: the ID (16 bytes big-endian), the delivery time (8, little-endian), the
      // delivery count (a length).
      Writer::Batch b(w);
      for (auto it = g.pel().begin(); it.valid(); ++it) {
        const engine::PendingEntry p = it.entry();
        if (!p.owner) continue;
        char* out = b.room(StreamId::kEncodedSize + 8 + 9);
        p.id.encode(reinterpret_cast<uint8_t*>(out));
        encode_u64_le(static_cast<uint64_t>(p.delivery_time_ms), out + StreamId::kEncodedSize);
        b.commit(StreamId::kEncodedSize + 8 +
                 encode_len(p.delivery_count, out + StreamId::kEncodedSize + 8));
      }
    }
    w.len(g.consumer_count());
    g.for_each_consumer([&](const engine::Consumer& c) {
      w.string(c.name());
      w.ms_time(c.seen_time_ms());
      if (type >= kTypeStreamListpacks3) w.ms_time(c.active_time_ms());
      w.len(c.pending_count());
      Writer::Batch b(w);
      for (auto it = c.pel().begin(); it.valid(); ++it) {
        it.id().encode(reinterpret_cast<uint8_t*>(b.room(StreamId::kEncodedSize)));
        b.commit(StreamId::kEncodedSize);
      }
    });
  });
}

std::string stream_ext(const engine::Stream& s) {
  std::size_t nacked = 0;
  s.groups().for_each([&](const engine::ConsumerGroup& g) { nacked += g.nacked_count(); });
  const engine::IdmpTable* t = s.idmp();
  std::size_t policies = 0;
  s.groups().for_each(
      [&](const engine::ConsumerGroup& g) { policies += g.dead_letter() != nullptr; });
  if (nacked == 0 && !t && policies == 0) return {};
  std::string out;
  Writer w(out);
  w.len(kExtVersion);
  // Released records, per group with any, in NACK-zone order.
  std::size_t groups = 0;
  s.groups().for_each([&](const engine::ConsumerGroup& g) { groups += g.nacked_count() != 0; });
  w.len(groups);
  s.groups().for_each([&](const engine::ConsumerGroup& g) {
    if (g.nacked_count() == 0) return;
    w.string(g.name());
    w.len(g.nacked_count());
    for (auto it = g.pel().by_time(); it.valid() && !it.entry().owner; ++it) {
      raw_id(w, it.id());
      w.len(it.entry().delivery_count);
    }
  });
  w.len(t ? 1 : 0);
  if (t) {
    w.len(t->configured());
    w.len(t->duration_sec());
    w.len(t->maxsize());
    w.len(t->iids_added());
    w.len(t->iids_duplicates());
    w.len(t->iids_tracked());
    t->for_each([&](std::string_view pid, std::string_view iid, StreamId id) {
      w.string(pid);
      w.string(iid);
      raw_id(w, id);
    });
  }
  // Dead-letter policies: group name, maximum deliveries, dead-letter key (the runtime counter
  // of moved entries is not kept, as the AOF does not keep it either).
  w.len(policies);
  s.groups().for_each([&](const engine::ConsumerGroup& g) {
    const engine::DeadLetterPolicy* p = g.dead_letter();
    if (!p) return;
    w.string(g.name());
    w.len(p->max_deliveries);
    w.string(p->stream);
  });
  return out;
}

bool apply_stream_ext(std::string_view blob, engine::StreamBuilder& b, uint64_t now_ms) {
  Reader r(blob);
  const uint64_t version = r.len();
  if (!r.ok() || (version != kExtVersion && version != kExtVersionNoDeadLetters)) return false;
  std::string scratch;
  uint64_t groups = r.count(2);
  for (uint64_t gi = 0; gi < groups && r.ok(); ++gi) {
    std::string name = r.string();
    uint64_t n = r.count(17);
    for (uint64_t i = 0; i < n && r.ok(); ++i) {
      StreamId id = read_raw_id(r);
      uint64_t count = r.len();
      if (r.ok() && b.add_released(name, id, count) != engine::Err::kOk) return false;
    }
  }
  uint64_t has_idmp = r.len();
  if (has_idmp > 1) return false;
  if (has_idmp == 1) {
    uint64_t configured = r.len(), duration = r.len(), maxsize = r.len(), added = r.len(),
             dups = r.len();
    if (!r.ok() || configured > 1 || duration > UINT32_MAX || maxsize > UINT32_MAX) return false;
    if (b.set_idmp(configured == 1, static_cast<uint32_t>(duration), static_cast<uint32_t>(maxsize),
                   added, dups) != engine::Err::kOk) {
      return false;
    }
    uint64_t n = r.count(18);
    std::string pid, iid;
    for (uint64_t i = 0; i < n && r.ok(); ++i) {
      pid = r.string();
      iid = r.string();
      StreamId id = read_raw_id(r);
      if (r.ok() && b.add_idmp_record(pid, iid, id, now_ms) != engine::Err::kOk) return false;
    }
  }
  if (version == kExtVersion) {
    uint64_t n = r.count(3);
    for (uint64_t i = 0; i < n && r.ok(); ++i) {
      std::string group = r.string();
      uint64_t max = r.len();
      std::string key = r.string();
      if (r.ok() && b.set_dead_letter(group, max, key) != engine::Err::kOk) return false;
    }
  }
  return r.ok() && r.at_end();
}

namespace {

// Decodes one node listpack into entries; the strings decoded from integers live in `arena`.
// One decoder serves every node of a stream: its vectors keep their capacity between nodes.
struct NodeDecoder {
  // An entry of the node, before its field span can be made (fvs is still growing).
  struct Pending {
    StreamId id;
    bool deleted;
    std::size_t first, n;
  };
  std::vector<LpElement> els;
  std::vector<std::string_view> master_fields;
  std::vector<Pending> pend;
  std::vector<std::string> arena;  // texts of integer elements (stable: reserved up front)
  std::vector<engine::FieldValue> fvs;
  std::vector<engine::BuiltEntry> entries;

  bool decode(std::string_view lp, StreamId master, std::string* why) {
    auto bad = [&](const char* w) {
      if (why) *why = w;
      return false;
    };
    if (!read_listpack(lp, els)) return bad("Stream listpack integrity check failed.");
    if (els.empty()) return bad("Empty listpack inside stream");
    arena.clear();
    arena.reserve(els.size());
    std::size_t i = 0;
    auto next_int = [&](int64_t& v) {
      if (i >= els.size() || !els[i].is_int) return false;
      v = els[i++].i;
      return true;
    };
    auto next_text = [&](std::string_view& v) {
      if (i >= els.size()) return false;
      const LpElement& e = els[i++];
      if (e.is_int) {
        arena.emplace_back();
        v = e.text(arena.back());
      } else {
        v = e.s;
      }
      return true;
    };
    int64_t live, deleted, nmaster, zero;
    if (!next_int(live) || !next_int(deleted) || !next_int(nmaster) || live < 0 || deleted < 0 ||
        nmaster <= 0 || static_cast<uint64_t>(nmaster) > els.size()) {
      return bad("Stream listpack master entry is invalid");
    }
    master_fields.assign(static_cast<std::size_t>(nmaster), std::string_view());
    for (auto& f : master_fields) {
      if (!next_text(f)) return bad("Stream listpack master entry is invalid");
    }
    if (!next_int(zero) || zero != 0) return bad("Stream listpack master entry is invalid");
    // First pass: collect field/value views; spans are made once fvs stops growing.
    fvs.clear();
    pend.clear();
    int64_t seen_live = 0, seen_deleted = 0;
    while (i < els.size()) {
      int64_t flags, dms, dseq;
      if (!next_int(flags) || !next_int(dms) || !next_int(dseq) || (flags & ~3) != 0) {
        return bad("Stream listpack entry is invalid");
      }
      bool same = flags & kFlagSameFields;
      int64_t nf = nmaster;
      if (!same && (!next_int(nf) || nf <= 0 || static_cast<uint64_t>(nf) > els.size())) {
        return bad("Stream listpack entry is invalid");
      }
      std::size_t first = fvs.size();
      for (int64_t k = 0; k < nf; ++k) {
        engine::FieldValue fv;
        if (same) {
          fv.field = master_fields[static_cast<std::size_t>(k)];
        } else if (!next_text(fv.field)) {
          return bad("Stream listpack entry is invalid");
        }
        if (!next_text(fv.value)) return bad("Stream listpack entry is invalid");
        fvs.push_back(fv);
      }
      int64_t lp_count;
      int64_t want = nf + 3 + (same ? 0 : nf + 1);
      if (!next_int(lp_count) || lp_count != want) return bad("Stream listpack entry is invalid");
      StreamId id{master.ms + static_cast<uint64_t>(dms), master.seq + static_cast<uint64_t>(dseq)};
      bool del = flags & kFlagDeleted;
      (del ? seen_deleted : seen_live)++;
      pend.push_back({id, del, first, static_cast<std::size_t>(nf)});
    }
    if (seen_live != live || seen_deleted != deleted || pend.empty() || pend.front().id != master) {
      return bad("Stream listpack counts or master ID are inconsistent");
    }
    entries.clear();
    for (const Pending& p : pend) {
      entries.push_back(
          {p.id, p.deleted, std::span<const engine::FieldValue>(fvs.data() + p.first, p.n)});
    }
    return true;
  }
};

}  // namespace

ReadStatus read_stream_body(Reader& r, uint8_t type, ReadValue& out, std::string* why) {
  auto bad = [&](const char* w) {
    if (why && why->empty()) *why = w;
    return ReadStatus::kBadData;
  };
  engine::StreamBuilder& b = *out.builder;
  NodeDecoder dec;
  std::string key_scratch, lp_scratch;
  uint64_t nodes = r.count(2);
  for (uint64_t n = 0; n < nodes && r.ok(); ++n) {
    std::string_view key = r.string(key_scratch);
    if (!r.ok()) break;
    if (key.size() != StreamId::kEncodedSize) {
      return bad("Stream node key entry is not the size of a stream ID");
    }
    StreamId master = StreamId::decode(reinterpret_cast<const uint8_t*>(key.data()));
    std::string_view lp = r.string(lp_scratch);
    if (!r.ok()) break;
    if (!dec.decode(lp, master, why)) return ReadStatus::kBadData;
    if (b.add_node(dec.entries) != engine::Err::kOk) {
      return bad("Stream node entries are out of order or invalid");
    }
  }
  uint64_t length = r.len();
  StreamId last{r.len(), r.len()};
  uint64_t added = length;
  StreamId max_deleted;
  if (type >= kTypeStreamListpacks2) {
    r.len();  // first_id: recomputed from the entries
    r.len();
    max_deleted = {r.len(), r.len()};
    added = r.len();
  } else {
    out.estimate_entries_read = true;
  }
  if (!r.ok()) return bad("Stream object metadata loading failed.");
  b.set_metadata(length, last, added, max_deleted);
  uint64_t groups = r.count(3);
  std::string name_scratch;
  for (uint64_t g = 0; g < groups && r.ok(); ++g) {
    std::string name(r.string(name_scratch));
    StreamId gid{r.len(), r.len()};
    int64_t entries_read = engine::kEntriesReadUnknown;
    if (type >= kTypeStreamListpacks2) entries_read = static_cast<int64_t>(r.len());
    if (!r.ok()) break;
    if (b.add_group(name, gid, entries_read) != engine::Err::kOk) {
      return bad("Duplicated or invalid consumer group");
    }
    uint64_t pel = r.count(StreamId::kEncodedSize + 9);
    for (uint64_t i = 0; i < pel && r.ok(); ++i) {
      StreamId id = read_raw_id(r);
      int64_t t = r.ms_time();
      uint64_t count = r.len();
      if (r.ok() && b.add_pending(id, t, count) != engine::Err::kOk) {
        return bad("Duplicated or invalid global PEL entry");
      }
    }
    uint64_t consumers = r.count(9);
    for (uint64_t c = 0; c < consumers && r.ok(); ++c) {
      std::string cname(r.string(name_scratch));
      int64_t seen = r.ms_time();
      int64_t active = type >= kTypeStreamListpacks3 ? r.ms_time() : seen;
      if (!r.ok()) break;
      if (b.add_consumer(cname, seen, active) != engine::Err::kOk) {
        return bad("Duplicate or invalid stream consumer");
      }
      uint64_t cpel = r.count(StreamId::kEncodedSize);
      for (uint64_t i = 0; i < cpel && r.ok(); ++i) {
        StreamId id = read_raw_id(r);
        if (r.ok() && b.own(id) != engine::Err::kOk) {
          return bad("Consumer PEL entry not in the group PEL or owned twice");
        }
      }
    }
  }
  if (!r.ok()) return bad("Stream value is truncated or malformed");
  return ReadStatus::kOk;
}

}  // namespace streamd::persist::rdb
