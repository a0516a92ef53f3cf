#include "streamd/persist/dataset_writer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "streamd/engine/consumer_group.h"
#include "streamd/engine/idmp.h"
#include "streamd/engine/stream.h"
#include "streamd/resp/command_encoder.h"

namespace streamd::persist {

namespace {

using engine::StreamId;

constexpr std::size_t kChunk = 64 * 1024;

class Emitter {
 public:
  Emitter(const std::function<bool(std::string_view)>& out, DatasetStats& stats)
      : out_(out), stats_(stats) {}

  bool ok() const { return ok_; }

  void cmd(std::initializer_list<std::string_view> argv) {
    resp::append_command(buf_, argv);
    done_one();
  }
  void cmd(const std::vector<std::string_view>& argv) {
    resp::append_command(buf_, std::span<const std::string_view>(argv));
    done_one();
  }
  bool finish() {
    if (ok_ && !buf_.empty()) push();
    return ok_;
  }

 private:
  void done_one() {
    ++stats_.commands;
    if (buf_.size() >= kChunk) push();
  }
  void push() {
    if (!ok_) return;
    stats_.bytes += buf_.size();
    ok_ = out_(buf_);
    buf_.clear();
  }

  const std::function<bool(std::string_view)>& out_;
  DatasetStats& stats_;
  std::string buf_;
  bool ok_ = true;
};

std::string id_text(StreamId id) {
  return id.to_string();
}

void write_string(Emitter& e, std::string_view key, const engine::Entry& entry) {
  if (entry.expire_ms >= 0) {
    std::string at = std::to_string(entry.expire_ms);
    e.cmd({"SET", key, entry.value.str(), "PXAT", at});
  } else {
    e.cmd({"SET", key, entry.value.str()});
  }
}

// IDs pending in some group whose stream entry no longer exists, ascending, no duplicates.
std::vector<StreamId> ghost_ids(const engine::Stream& s) {
  std::vector<StreamId> out;
  s.groups().for_each([&](const engine::ConsumerGroup& g) {
    for (auto it = g.pel().begin(); it.valid(); ++it) {
      if (!s.contains(it.id())) out.push_back(it.id());
    }
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// ---- one function per kind of stream state --------------------------------------------------
// write_stream() calls these in order. State added later (stream settings, idempotency records,
// per-entry flags of pending entries) gets its own function here, called from write_stream() or
// write_group() at the point where the commands that restore it can run: after the entries and
// groups exist, before the ghosts are removed (a claim needs its entry).

// XADD per live entry, with the ghost placeholders merged in ID order.
void write_entries(Emitter& e, std::string_view key, const engine::Stream& s,
                   const std::vector<StreamId>& ghosts) {
  std::size_t next_ghost = 0;
  std::vector<std::string_view> argv;
  std::string idbuf;
  auto add_ghosts_before = [&](const StreamId* limit) {
    for (; next_ghost < ghosts.size() && (!limit || ghosts[next_ghost] < *limit); ++next_ghost) {
      idbuf = id_text(ghosts[next_ghost]);
      e.cmd({"XADD", key, idbuf, "x", "y"});
    }
  };
  s.range(StreamId::min(), StreamId::max(), 0, engine::Direction::kForward,
          [&](StreamId id, std::span<const engine::FieldValue> fields) {
            add_ghosts_before(&id);
            idbuf = id_text(id);
            argv.clear();
            argv.push_back("XADD");
            argv.push_back(key);
            argv.push_back(idbuf);
            for (const auto& fv : fields) {
              argv.push_back(fv.field);
              argv.push_back(fv.value);
            }
            e.cmd(argv);
          });
  add_ghosts_before(nullptr);
  // A stream must exist before XSETID can set its metadata.
  if (s.length() == 0 && ghosts.empty()) e.cmd({"XADD", key, "MAXLEN", "0", "0-1", "x", "y"});
}

// XSETID: last ID, entries added, max deleted ID.
void write_stream_metadata(Emitter& e, std::string_view key, const engine::Stream& s) {
  std::string last = id_text(s.last_id());
  std::string added = std::to_string(s.entries_added());
  std::string maxdel = id_text(s.max_deleted_entry_id());
  e.cmd({"XSETID", key, last, "ENTRIESADDED", added, "MAXDELETEDID", maxdel});
}

// XGROUP CREATE with the group's last-delivered ID and entries-read.
void write_group_create(Emitter& e, std::string_view key, const engine::ConsumerGroup& g) {
  std::string glast = id_text(g.last_delivered_id());
  std::string read = std::to_string(g.entries_read());
  e.cmd({"XGROUP", "CREATE", key, g.name(), glast, "ENTRIESREAD", read});
}

// One pending entry: owner, delivery time and count, through XCLAIM ... JUSTID FORCE (which
// creates the consumer when needed and neither touches the count nor the group's last ID).
void write_pending_entry(Emitter& e, std::string_view key, const engine::ConsumerGroup& g,
                         StreamId id, const engine::PendingEntry& p) {
  std::string idt = id_text(id);
  std::string time = std::to_string(p.delivery_time_ms);
  std::string count = std::to_string(p.delivery_count);
  std::string_view owner = p.owner ? std::string_view(p.owner->name()) : "";
  e.cmd({"XCLAIM", key, g.name(), owner, "0", idt, "TIME", time, "RETRYCOUNT", count, "JUSTID",
         "FORCE"});
}

// Consumers that own nothing (the claims above created all the others).
void write_idle_consumers(Emitter& e, std::string_view key, const engine::ConsumerGroup& g) {
  g.for_each_consumer([&](const engine::Consumer& c) {
    if (c.pending_count() == 0) e.cmd({"XGROUP", "CREATECONSUMER", key, g.name(), c.name()});
  });
}

// Released (XNACK) entries, from the head of the time index: XNACK ... FAIL IDS n id...
// RETRYCOUNT c FORCE per run of equal counters (at most 64 IDs each), which rebuilds the NACK
// zone in the same order. Leaves `p` on the first owned record.
void write_nack_zone(Emitter& e, std::string_view key, const engine::ConsumerGroup& g,
                     engine::Pel::Iterator& p) {
  while (p.valid() && !p.entry().owner) {
    std::vector<std::string> ids;
    uint64_t n = p.entry().delivery_count;
    for (; p.valid() && !p.entry().owner && p.entry().delivery_count == n && ids.size() < 64; ++p) {
      ids.push_back(id_text(p.id()));
    }
    std::string numids = std::to_string(ids.size());
    std::string count = std::to_string(n);
    std::vector<std::string_view> argv{"XNACK", key, g.name(), "FAIL", "IDS", numids};
    argv.insert(argv.end(), ids.begin(), ids.end());
    argv.insert(argv.end(), {"RETRYCOUNT", count, "FORCE"});
    e.cmd(argv);
  }
}

void write_group(Emitter& e, std::string_view key, const engine::ConsumerGroup& g) {
  write_group_create(e, key, g);
  // The PEL in claim order (see pel.h): the NACK zone first, then the owned records oldest
  // delivery first, so that each replayed XCLAIM ... TIME is an append to the time index.
  engine::Pel::Iterator p = g.pel().by_time();
  write_nack_zone(e, key, g, p);
  for (; p.valid(); ++p) write_pending_entry(e, key, g, p.id(), p.entry());
  write_idle_consumers(e, key, g);
  // streamd's dead-letter policy, after the records (which are JUSTID claims: never
  // dead-lettered on replay either way).
  if (const engine::DeadLetterPolicy* p = g.dead_letter()) {
    std::string max = std::to_string(p->max_deliveries);
    e.cmd({"STREAMD.DEADLETTER", "SET", key, g.name(), "MAXDELIVERIES", max, "STREAM", p->stream});
  }
}

// Removes the ghost placeholders once every claim is done: the ones before the first live entry
// with one exact trim, the others with one XDEL.
void remove_ghosts(Emitter& e, std::string_view key, const engine::Stream& s,
                   const std::vector<StreamId>& ghosts) {
  StreamId first = s.first_id();
  bool has_live = s.length() > 0;
  bool head = false;
  std::vector<std::string> later;
  for (StreamId g : ghosts) {
    if (!has_live || g < first) {
      head = true;
    } else {
      later.push_back(id_text(g));
    }
  }
  if (head && has_live) {
    std::string f = id_text(first);
    e.cmd({"XTRIM", key, "MINID", "=", f});
  } else if (head) {
    e.cmd({"XTRIM", key, "MAXLEN", "=", "0"});
  }
  if (!later.empty()) {
    std::vector<std::string_view> argv{"XDEL", key};
    for (const auto& id : later) argv.push_back(id);
    e.cmd(argv);
  }
}

// The stream's idempotency state (Redis 8.6 IDMP): its settings if XCFGSET set them, then every
// remembered iid as XIDMPRECORD, oldest first per producer, which rebuilds the same table (an
// iid's age comes from its ID, so nothing else is needed). Runs last: it needs only the key.
void write_idmp(Emitter& e, std::string_view key, const engine::Stream& s) {
  const engine::IdmpTable* t = s.idmp();
  if (!t) return;
  if (t->configured()) {
    std::string d = std::to_string(t->duration_sec()), m = std::to_string(t->maxsize());
    e.cmd({"XCFGSET", key, "IDMP-DURATION", d, "IDMP-MAXSIZE", m});
  }
  std::string idbuf;
  t->for_each([&](std::string_view pid, std::string_view iid, StreamId id) {
    idbuf = id_text(id);
    e.cmd({"XIDMPRECORD", key, pid, iid, idbuf});
  });
}

void write_stream(Emitter& e, std::string_view key, const engine::Stream& s) {
  std::vector<StreamId> ghosts = ghost_ids(s);
  write_entries(e, key, s, ghosts);
  // Without ghosts, Redis's order; with them, XSETID must follow the ghosts' removal (which
  // would otherwise move max-deleted-id and entries-added).
  if (ghosts.empty()) write_stream_metadata(e, key, s);
  s.groups().for_each([&](const engine::ConsumerGroup& g) { write_group(e, key, g); });
  if (!ghosts.empty()) {
    remove_ghosts(e, key, s, ghosts);
    write_stream_metadata(e, key, s);
  }
  write_idmp(e, key, s);
}

}  // namespace

bool write_dataset(engine::Keyspace& ks, int64_t now_ms,
                   const std::function<bool(std::string_view)>& out, DatasetStats* stats) {
  DatasetStats local;
  DatasetStats& st = stats ? *stats : local;
  Emitter e(out, st);
  for (int i = 0; i < ks.databases() && e.ok(); ++i) {
    engine::Database& db = ks.db(i);
    if (db.size() == 0) continue;
    std::string index = std::to_string(i);
    e.cmd({"SELECT", index});
    db.for_each([&](std::string_view key, const engine::Entry& entry) {
      if (!e.ok()) return;
      if (entry.expire_ms >= 0 && entry.expire_ms <= now_ms) return;
      ++st.keys;
      if (entry.value.is_string()) {
        write_string(e, key, entry);
      } else {
        write_stream(e, key, entry.value.stream());
        if (entry.expire_ms >= 0) {
          std::string at = std::to_string(entry.expire_ms);
          e.cmd({"PEXPIREAT", key, at});
        }
      }
    });
  }
  return e.finish();
}

}  // namespace streamd::persist
