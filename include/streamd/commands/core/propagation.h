// Propagation: how state changes leave the command layer, in a deterministic form, for the
// append-only file and the replication stream. Commands never know about files or replicas: they
// produce records, dispatch groups them into units and hands each unit to the PropagationSink
// (the AOF in persist/ implements it) and to the Replication (repl/, replication.h). Both encode
// a unit with encode_unit(), each with its own SELECT state, so a replica receives exactly the
// bytes an AOF opened at the same moment would hold.
//
// What a command propagates (see Context):
// - by default, a write command (kWrite) that changed something (Context::modified() or
//   mark_dirty(), or any key change the keyspace reported while it ran) propagates its own
//   argv as the client sent it;
// - a command whose argv would not replay to the same state (generated IDs, approximate trims,
//   relative expiries, group deliveries) calls Context::propagate() with explicit records
//   instead; calling it even once (or propagate_nothing()) switches the default off.
// - a key that expires (lazily inside a command, or in the active-expiry cron) propagates
//   `DEL key` before whatever the command itself propagates, as Redis does.
// Every record carries its database; the sink emits SELECT when it changes.
//
// Units: everything one top-level command produced (an EXEC: all its queued commands; a woken
// blocked client: its re-run) is one unit. A unit of more than one record must be applied
// atomically: the AOF writes it as MULTI ... EXEC, so a crash in the middle loads as nothing.
//
// Group commit: a sink may need replies to wait until their records are durable (appendfsync
// always). Dispatch stamps each session with the sink's sequence number after its last unit
// (Session::propagation_ticket); the network layer asks Server::must_hold_replies(session)
// before writing a client's output and calls Server::sync_propagation() once per event-loop
// round before releasing held output.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamd/resp/command_encoder.h"

namespace streamd::cmd {

// The records of one unit, RESP-encoded back to back, each tagged with its database.
class PropagationBatch {
 public:
  template <class Str>
  void add(int db, std::span<const Str> argv) {
    end_record(db, resp::put_command(room(resp::command_size_bound(argv)), argv));
  }
  // `head` then each pair's field and value (resp::put_command's pair form).
  template <class Str, class Pair>
  void add(int db, std::span<const Str> head, std::span<const Pair> pairs) {
    end_record(db, resp::put_command(room(resp::command_size_bound(head, pairs)), head, pairs));
  }
  // `argc` arguments: the encoded `before`, `middle` encoded, the encoded `after`
  // (resp::put_command's splicing form: `before` and `after` are bytes of a client's request,
  // resp::raw_args).
  template <class Str>
  void add(int db, std::size_t argc, std::string_view before, std::span<const Str> middle,
           std::string_view after) {
    std::size_t bound = resp::command_size_bound(middle) + before.size() + after.size();
    end_record(db, resp::put_command(room(bound), argc, before, middle, after));
  }
  void add(int db, std::initializer_list<std::string_view> argv) {
    add(db, std::span<const std::string_view>(argv.begin(), argv.size()));
  }

  // The unit's records (not the deferred ones).
  std::size_t size() const { return marks_.size(); }
  bool empty() const { return marks_.empty(); }
  int db(std::size_t i) const { return marks_[i].db; }
  // The i-th record, RESP-encoded.
  std::string_view record(std::size_t i) const {
    std::size_t begin = i == 0 ? unit_from_ : marks_[i - 1].end;
    return std::string_view(bytes_.data() + begin, marks_[i].end - begin);
  }

  // Marks the last record added as one for the replicas only, never the AOF (PUBLISH: Redis's
  // forceCommandPropagation(c, PROPAGATE_REPL), so that subscribers of a replica hear what is
  // published on its master).
  void mark_last_replicas_only() {
    assert(!marks_.empty() && !marks_.back().replicas_only);
    marks_.back().replicas_only = true;
    ++replicas_only_;
  }
  bool replicas_only(std::size_t i) const { return marks_[i].replicas_only; }
  // Whether the AOF gets anything of this unit.
  bool has_aof_records() const { return marks_.size() > replicas_only_; }
  // The unit's records, back to back.
  std::string_view bytes() const {
    return std::string_view(bytes_.data() + unit_from_, used_ - unit_from_);
  }

  // ---- deferred units (Server::end_unit: records for the replicas gathered over a batch) ----
  // Ends the unit but keeps its bytes: they join deferred(), ahead of the next unit's records.
  void defer_unit() {
    unit_from_ = used_;
    marks_.clear();
    replicas_only_ = 0;
    separate_ = false;
  }
  // The deferred units' bytes, in order.
  std::string_view deferred() const { return std::string_view(bytes_.data(), unit_from_); }
  // Forgets the deferred bytes (they were delivered), keeping the unit's records.
  void drop_deferred() {
    if (unit_from_ == 0) return;
    std::size_t unit_bytes = used_ - unit_from_;
    std::memmove(bytes_.data(), bytes_.data() + unit_from_, unit_bytes);
    for (auto& mark : marks_) mark.end -= unit_from_;
    used_ = unit_bytes;
    unit_from_ = 0;
  }

  // A unit of more than one record is applied atomically (MULTI ... EXEC) unless it is marked
  // separate: the lazy expiries of a command that touches arbitrary keys (kTouchesArbitraryKeys),
  // which Redis propagates as they are. Reset by clear().
  void set_separate() { separate_ = true; }
  bool atomic() const { return !separate_; }

  // Forgets the unit's records and the deferred bytes.
  void clear() {
    used_ = 0;
    unit_from_ = 0;
    marks_.clear();
    replicas_only_ = 0;
    separate_ = false;
    // The room is zero-filled when it grows and sized by bounds (up to about 3x the bytes of an
    // argument list of tiny arguments), so a unit of megabytes (a large MULTI, a command with
    // thousands of arguments) would keep several times its size resident: it is let go.
    // (clear + shrink_to_fit, not swap with an empty string: GCC 12 warns falsely of the swap's
    // inlined small-string copy, -Wstringop-overflow, in some inlining contexts.)
    if (bytes_.size() > kKeptRoom) {
      bytes_.clear();
      bytes_.shrink_to_fit();
    }
  }
  // Bytes held for records and room (what clear() keeps for the next unit).
  std::size_t held() const { return bytes_.size(); }
  static constexpr std::size_t kKeptRoom = 1 << 20;

 private:
  // Where the next record starts, with room for n bytes there. The string is only ever grown
  // (doubling) and never shrunk by clear(): what used_ does not cover is scratch, so the common
  // add writes into bytes already there instead of resizing (which zero-fills) every time. A
  // record is encoded into room for its size bound (no digit counting first); end_record keeps
  // what it wrote.
  char* room(std::size_t n) {
    if (bytes_.size() - used_ < n) [[unlikely]]
      grow(n);
    return bytes_.data() + used_;
  }
  // Out of line, so that room() is a compare where it is inlined.
  [[gnu::noinline]] void grow(std::size_t n) {
    bytes_.resize(std::max(used_ + n, 2 * bytes_.size()));
  }
  void end_record(int db, const char* end) {
    assert(end > bytes_.data() + used_ && end <= bytes_.data() + bytes_.size());
    used_ = static_cast<std::size_t>(end - bytes_.data());
    marks_.push_back(Mark{db, used_, false});
  }

  // [0, unit_from_): the deferred units; [unit_from_, used_): the unit's records; the rest is
  // room for the next ones.
  std::string bytes_;
  std::size_t unit_from_ = 0;
  std::size_t used_ = 0;
  struct Mark {
    int db;
    std::size_t end;  // offset just past the record
    bool replicas_only;
  };
  std::vector<Mark> marks_;        // the unit's records
  std::size_t replicas_only_ = 0;  // how many of them are marked replicas-only
  bool separate_ = false;
};

// Appends `unit` in its wire form to `out`: SELECT n before a record whose database differs from
// `*selected_db` (updated; -1 means none selected yet, so the first record always selects), and
// for an atomic unit of more than one record MULTI ... EXEC around it, with every SELECT inside:
// Redis 7.2+ propagates MULTI with no database (server.c propagatePendingCommands), so its AOF
// and replication stream read `MULTI, SELECT n, ...`; 7.0 wrote the first SELECT ahead of MULTI.
// Both load anywhere (a SELECT queued in MULTI runs in EXEC and stays in effect after it).
//
// For the AOF (kAof) the replicas-only records are left out, but the unit is wrapped as it is for
// the replicas, as Redis decides MULTI by every record of the unit (a SET and a PUBLISH in one
// EXEC reach the AOF as MULTI, SET, EXEC). A unit with no record for the AOF is not given to it.
enum class PropagationTarget { kAof, kReplicas };
inline void encode_unit(const PropagationBatch& unit, int* selected_db, std::string& out,
                        PropagationTarget target = PropagationTarget::kReplicas) {
  auto put = [&](std::size_t i) {
    if (target == PropagationTarget::kAof && unit.replicas_only(i)) return;
    int db = unit.db(i);
    if (db != *selected_db && db >= 0) {
      std::string n = std::to_string(db);
      resp::append_command(out, {"SELECT", n});
      *selected_db = db;
    }
    out.append(unit.record(i));
  };
  bool wrap = unit.size() > 1 && unit.atomic();
  if (wrap) out.append("*1\r\n$5\r\nMULTI\r\n");
  for (std::size_t i = 0; i < unit.size(); ++i) put(i);
  if (wrap) out.append("*1\r\n$4\r\nEXEC\r\n");
}

class PropagationSink {
 public:
  virtual ~PropagationSink() = default;

  // Takes one unit (never empty). Returns the sink's sequence number after it: a session whose
  // ticket is <= durable_sequence() has all its records on disk.
  virtual uint64_t append(const PropagationBatch& unit) = 0;

  // Whether output produced for a session whose last unit has `ticket` must be held until
  // sync() (appendfsync always with unsynced records, or anything not yet written).
  virtual bool must_hold_replies(uint64_t ticket) const = 0;
  // Writes what was appended and, per the fsync policy, fsyncs it. Called once per event-loop
  // round by the network layer, and by SHUTDOWN.
  virtual void sync() = 0;

  // Non-empty while write commands must be refused (the AOF cannot be written): the full error
  // text without the leading '-', e.g. "MISCONF Errors writing to the AOF file: No space left
  // on device".
  virtual std::string write_error() const = 0;
  // Whether write_error() is non-empty, without building the text (asked before every write).
  virtual bool refuses_writes() const { return !write_error().empty(); }

  // Periodic work (everysec fsync bookkeeping, retrying failed writes, rewrite completion,
  // automatic rewrite), from Server::cron.
  virtual void cron(int64_t now_ms) = 0;
};

}  // namespace streamd::cmd
