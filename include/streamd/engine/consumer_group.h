// ConsumerGroup: one consumer group of a stream (XGROUP, XREADGROUP, XACK, XCLAIM, XAUTOCLAIM,
// XPENDING, XINFO GROUPS/CONSUMERS). No sockets, no RESP, no client text: operations take typed
// arguments (the caller resolves `$`, exclusive ranges, option defaults and validation) and
// return plain data for the command layer to render and for the AOF to log.
//
// State, as Redis keeps it:
// - last_delivered_id: the greatest ID delivered by `>` reads (or set by SETID / XCLAIM LASTID);
// - entries_read: the group's logical read counter, kEntriesReadUnknown (-1) when unknown (see
//   group_lag.h for how it moves and how lag is computed);
// - consumers, by name, iterated in byte order of the name (as Redis's rax lists them);
// - the PEL (pel.h): one record per pending ID, walked by ID, by owner, or in claim order.
// Invariants (check_invariants() verifies them all; debug builds check every touched ID):
// - every consumer has its own owner slot in the Pel, and every record's owner is the slot of a
//   consumer of this group, or none (released by XNACK: then the record shows delivery time 0);
// - the consumers' shares and the NACKed records add up to the PEL (and the Pel's own
//   invariants: its run indexes match its records).
// Consumers follow Redis 7.2+ (newest Redis's t_stream.c): XREADGROUP (on every stream it names
// that has the group, whether it serves, blocks or reads history), XCLAIM and XAUTOCLAIM create
// the consumer on the attempt, even when nothing is delivered or claimed; seen_time is the last
// attempted interaction, active_time the last successful one: a `>` read that created pending
// entries (not NOACK, not a history read), a claim that claimed some; -1 = never active.
// (redis-server 7.0.15 created consumers only when it served or claimed something.)
//
// Views handed out (field/value spans, consumer names) stay valid until the next mutation of the
// stream (fields) or of this group (names); pointers to Consumers stay valid until that
// consumer is deleted or the group destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamd/engine/dead_letter.h"
#include "streamd/engine/group_lag.h"
#include "streamd/engine/pel.h"
#include "streamd/engine/radix_tree.h"
#include "streamd/engine/stream.h"
#include "streamd/engine/stream_id.h"
#include "streamd/engine/stream_node.h"

namespace streamd::engine {

class ConsumerGroup;

// A consumer of a group: its name, times and its share of the group's PEL (a slot of the
// group's Pel: its records carry the slot as their owner).
class Consumer {
 public:
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  const std::string& name() const { return name_; }
  int64_t seen_time_ms() const { return seen_time_ms_; }
  int64_t active_time_ms() const { return active_time_ms_; }
  std::size_t pending_count() const { return group_pel_->owner_size(slot_); }
  // This consumer's pending entries, by ID.
  Pel::OwnerView pel() const { return Pel::OwnerView(*group_pel_, slot_); }

  // An attempted interaction that the caller handles without calling into the group (e.g. an
  // XREADGROUP that ends up blocking).
  void mark_seen(int64_t now_ms) { seen_time_ms_ = now_ms; }

 private:
  friend class ConsumerGroup;
  friend class StreamBuilder;
  Consumer(std::string_view name, int64_t now_ms, const Pel* pel)
      : name_(name), seen_time_ms_(now_ms), group_pel_(pel) {}

  std::string name_;
  int64_t seen_time_ms_;
  int64_t active_time_ms_ = -1;
  const Pel* group_pel_;  // the group's PEL
  uint32_t slot_ = 0;     // owner slot in it
};

// One entry handed out by a read or a claim.
struct GroupEntry {
  StreamId id;
  // The entry's field/value pairs (views into the stream, valid until it is next mutated);
  // empty with JUSTID and for deleted entries.
  std::span<const FieldValue> fields;
  // History reads only: the entry is pending but gone from the stream (reply `[id, nil]`).
  bool deleted = false;
  // A PEL record was created or updated for this delivery (false under NOACK and for deleted
  // entries). Then the record's state after the delivery follows: what the AOF logs as
  // `XCLAIM key group consumer 0 id TIME delivery_time RETRYCOUNT delivery_count FORCE JUSTID
  // LASTID last_delivered_id`.
  bool pending = false;
  int64_t delivery_time_ms = 0;
  uint64_t delivery_count = 0;
  // XREADGROUP CLAIM only: the entry was claimed from the PEL (not read as new); then its idle
  // time before the claim (-1 for a NACKed entry, as XPENDING shows it) and the delivery count
  // before the claim. New entries of a CLAIM read leave these 0, which is what they reply.
  bool claimed = false;
  int64_t idle_ms = 0;
  uint64_t previous_count = 0;
};

// The entries of one read or claim, in reply order. Move-only: the spans point into storage
// the batch owns (the field/value views themselves point into the stream).
class DeliveryBatch {
 public:
  DeliveryBatch() = default;
  DeliveryBatch(DeliveryBatch&&) noexcept = default;
  DeliveryBatch& operator=(DeliveryBatch&&) noexcept = default;
  DeliveryBatch(const DeliveryBatch&) = delete;
  DeliveryBatch& operator=(const DeliveryBatch&) = delete;

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const GroupEntry& operator[](std::size_t i) const { return entries_[i]; }
  std::vector<GroupEntry>::const_iterator begin() const { return entries_.begin(); }
  std::vector<GroupEntry>::const_iterator end() const { return entries_.end(); }

 private:
  friend class ConsumerGroup;
  // Appends an entry with a copy of the field views (keeps every span valid).
  GroupEntry& add(StreamId id, std::span<const FieldValue> fields);

  std::vector<GroupEntry> entries_;
  std::vector<FieldValue> fields_;
  std::vector<uint32_t> field_offsets_;  // where each entry's fields start in fields_
};

// A reply budget the XREADGROUP walks ask before they take each entry (MAXCOUNT/MAXSIZE): the
// entry comes as it would be handed out (a history entry gone from the stream `deleted`, a
// claimed one with `claimed`, idle_ms and previous_count). Refusing it ends the walk before the
// entry changes anything; the entries admitted before it are delivered as usual.
class Admission {
 public:
  virtual bool admit(const GroupEntry& e) = 0;

 protected:
  ~Admission() = default;
};

// XREADGROUP (both forms).
struct ReadResult {
  DeliveryBatch entries;
  // The group position after the read; when last_id_changed the AOF logs
  // `XGROUP SETID key group last_delivered_id ENTRIESREAD entries_read`.
  bool last_id_changed = false;
  StreamId last_delivered_id;
  int64_t entries_read = kEntriesReadUnknown;
};

// XCLAIM options, already parsed and resolved by the caller.
struct ClaimOptions {
  int64_t min_idle_ms = 0;  // negative counts as 0; 0 = no idle check
  // IDLE/TIME resolved to a delivery time (TIME t → t; IDLE ms → delivery_time_from_idle);
  // the last of the two options wins, as in Redis. nullopt = now. A value below 0 or above now
  // becomes now (redis-server 7.0.15).
  std::optional<int64_t> delivery_time_ms;
  std::optional<uint64_t> retry_count;  // RETRYCOUNT (Redis ignores a negative one: pass nullopt)
  bool force = false;                   // create a PEL record for a live entry that has none
  bool justid = false;                  // no fields in the reply, no delivery_count increment
  std::optional<StreamId> last_id;      // LASTID: raises last_delivered_id (not entries_read)
};

// What one XREADGROUP (per stream), XCLAIM or XAUTOCLAIM call did, in the terms of the records
// that replay it: the command layer propagates from this alone, in one step
// (commands/stream/propagation.h), and appends the dead letters after its reply.
struct GroupEffects {
  bool consumer_created = false;  // the consumer did not exist (xgroup-createconsumer)
  std::vector<StreamId> deleted;  // dropped from the PEL: their entries are gone from the stream
  DeliveryBatch claimed;          // taken from the PEL, each with its record as it now is
  DeliveryBatch read;             // XREADGROUP: the history or `>` entries delivered
  bool read_new = false;          // `read` are new entries (`>`): they moved the position
  bool last_id_changed = false;   // the group's position moved (a `>` read, XCLAIM LASTID)
  std::vector<DeadLetter> dead_lettered;  // taken out of the group instead (dead_letter.h)
};

// XCLAIM: `claimed` in argument order (an ID given twice is claimed twice); last_id_changed when
// LASTID raised last_delivered_id.
struct ClaimResult : GroupEffects {};

// XAUTOCLAIM: deleted and dead-lettered records count against COUNT.
struct AutoClaimResult : GroupEffects {
  StreamId next_cursor;  // the first PEL entry not examined; 0-0 at the end of the PEL
};

// XREADGROUP ... CLAIM min-idle-time, the claim phase: `claimed` oldest delivery first (NACKed
// entries before all others); dead-lettered records do not count against count.
struct ClaimIdleResult : GroupEffects {};

// One stream of an XREADGROUP (ConsumerGroup::read).
struct GroupReadRequest {
  std::string_view consumer;
  bool new_entries = false;  // `>`; otherwise the consumer's history from `start` on
  StreamId start{};
  std::size_t count = 0;  // COUNT, 0 = no limit; with CLAIM shared by the claims and new entries
  bool noack = false;
  std::optional<int64_t> claim_min_idle_ms{};  // CLAIM (only with `>`)
};
struct GroupReadResult : GroupEffects {
  bool refused = false;  // the admission refused an entry: the reply ends with this stream
};

// XNACK modes: what happens to the delivery counter of a released entry.
enum class NackMode { kSilent, kFail, kFatal };

struct NackResult {
  uint64_t released = 0;  // the reply: IDs found in the PEL (or created by FORCE), duplicates too
  // Every release in order with the counter it left (what the AOF logs as XNACK ... RETRYCOUNT n
  // FORCE), duplicates included.
  std::vector<std::pair<StreamId, uint64_t>> records;
  // FATAL with a dead-letter policy: the entries taken out of the group instead of released
  // (counted in `released`, not in `records`).
  std::vector<DeadLetter> dead_lettered;
};

// XPENDING summary form. Names are views valid until the group is next mutated.
struct PendingSummary {
  uint64_t count = 0;
  StreamId first, last;                                          // only when count > 0
  std::vector<std::pair<std::string_view, uint64_t>> consumers;  // non-empty PELs, name order
};

// One pending entry as XPENDING (idle = now - delivery_time) and XINFO STREAM FULL show it.
struct PendingRecord {
  StreamId id;
  std::string_view consumer;  // "" for a NACKed entry
  bool nacked = false;        // released by XNACK (XPENDING shows idle -1)
  int64_t delivery_time_ms = 0;
  uint64_t delivery_count = 0;
};

// XINFO GROUPS.
struct GroupInfo {
  std::string_view name;
  uint64_t consumers = 0;
  uint64_t pending = 0;
  StreamId last_delivered_id;
  std::optional<int64_t> entries_read;  // nullopt = null
  std::optional<int64_t> lag;           // nullopt = null
};

// XINFO CONSUMERS (idle = now - seen_time; inactive = now - active_time, or -1 if never).
struct ConsumerInfo {
  std::string_view name;
  uint64_t pending = 0;
  int64_t seen_time_ms = 0;
  int64_t active_time_ms = -1;
};

// The group part of XINFO STREAM FULL.
struct ConsumerFullInfo {
  ConsumerInfo info;
  std::vector<PendingRecord> pending;  // capped by the requested count
};
struct GroupFullInfo {
  GroupInfo info;
  std::vector<PendingRecord> pending;  // capped by the requested count
  std::vector<ConsumerFullInfo> consumers;
  uint64_t nacked = 0;  // Redis 8.8 nacked-count
};

class ConsumerGroup {
 public:
  ConsumerGroup(std::string_view name, StreamId last_delivered_id,
                int64_t entries_read = kEntriesReadUnknown);
  ~ConsumerGroup();
  ConsumerGroup(const ConsumerGroup&) = delete;
  ConsumerGroup& operator=(const ConsumerGroup&) = delete;

  // Deep copy (COPY): new consumers and records with the same content.
  std::unique_ptr<ConsumerGroup> clone() const;

  const std::string& name() const { return name_; }
  StreamId last_delivered_id() const { return last_delivered_id_; }
  int64_t entries_read() const { return entries_read_; }

  // XGROUP SETID (the caller resolves `$` and passes kEntriesReadUnknown without ENTRIESREAD).
  void set_last_delivered_id(StreamId id, int64_t entries_read) {
    last_delivered_id_ = id;
    entries_read_ = entries_read;
  }

  // ---- consumers ----------------------------------------------------------------------------
  std::size_t consumer_count() const { return consumers_.size(); }
  Consumer* find_consumer(std::string_view name);
  const Consumer* find_consumer(std::string_view name) const;
  // XGROUP CREATECONSUMER and implicit creation: the consumer and whether it is new (a new one
  // has seen_time now and no active time).
  std::pair<Consumer*, bool> create_consumer(std::string_view name, int64_t now_ms);
  // XGROUP DELCONSUMER: the number of entries it had pending (now removed from the PEL), or
  // nullopt if there is no such consumer.
  std::optional<uint64_t> delete_consumer(std::string_view name);
  // Calls f(const Consumer&) for every consumer in name order.
  template <class F>
  void for_each_consumer(F&& f) const {
    for (auto it = consumers_.begin(); it.valid(); ++it) f(std::as_const(*it.value()));
  }

  // ---- PEL ----------------------------------------------------------------------------------
  std::size_t pending_count() const { return pel_.size(); }
  const Pel& pel() const { return pel_; }
  // pel().by_time() walks the records in claim order (NACK zone, then by delivery time).
  std::size_t nacked_count() const { return pel_.nacked(); }

  // ---- XREADGROUP ---------------------------------------------------------------------------
  // Whether a `>` read would deliver something: the stream has a live entry after
  // last_delivered_id (redis-server serves the read, and creates the consumer, only then).
  bool has_new_entries(const Stream& s) const;

  // `>`: delivers up to `count` (0 = no limit) live entries after last_delivered_id to `c`,
  // advancing last_delivered_id and entries_read entry by entry. Each delivered entry gets a
  // PEL record {now, 1, c}; an entry that is already pending (after SETID moved the group back)
  // is moved to c with its count reset to 1. NOACK leaves the PEL alone.
  // With `admit`, each entry is first offered to it, and the first refused one ends the read.
  ReadResult read_new(const Stream& s, Consumer& c, std::size_t count, bool noack, int64_t now_ms,
                      Admission* admit = nullptr);

  // An explicit ID: up to `count` (0 = no limit) of c's pending entries with ID >= start. Each
  // one still in the stream is delivered again (delivery_count + 1, delivery_time now); one gone
  // from the stream comes back `deleted` and its record is left alone.
  // `admit` as for read_new.
  ReadResult read_history(const Stream& s, Consumer& c, StreamId start, std::size_t count,
                          int64_t now_ms, Admission* admit = nullptr);

  // One stream of an XREADGROUP, all of it: the consumer (created if missing, as Redis 7.2+
  // does on every attempt, and seen), then with CLAIM the claim phase (claim_idle), then the
  // history (read_history) or, if COUNT is not used up and nothing was refused, the new entries
  // (read_new, only if the stream has some: has_new_entries). `admit` is offered every entry of
  // both phases.
  GroupReadResult read(const Stream& s, const GroupReadRequest& req, int64_t now_ms,
                       Admission* admit = nullptr);

  // ---- XACK / XCLAIM / XAUTOCLAIM -----------------------------------------------------------
  // Removes the IDs from the PEL; returns how many were pending (duplicates count once).
  uint64_t ack(std::span<const StreamId> ids);

  // XCLAIM. The consumer is created if missing (consumer_created), claimed or not. For each ID
  // in order: pending but gone from the stream → removed from the PEL and reported in `deleted`;
  // not pending → skipped unless FORCE and the entry exists (a record {now, 1} is created and
  // claimed without an idle check); pending but idle < min_idle → skipped; otherwise moved to
  // the consumer with the delivery time and count the options say, except that with a
  // dead-letter policy a record at its maximum is taken out of the group (dead_lettered) when
  // the claim would count a delivery (neither JUSTID nor RETRYCOUNT).
  ClaimResult claim(const Stream& s, std::string_view consumer, std::span<const StreamId> ids,
                    const ClaimOptions& opts, int64_t now_ms);

  // XAUTOCLAIM: creates the consumer if missing (consumer_created), then walks the PEL from `start`
  // (inclusive; the caller steps past an exclusive start) examining at most count * 10 entries: a
  // deleted entry is removed and reported (and counts against `count`), an entry idle for less than
  // min_idle is skipped, any other is claimed (delivery time now, count + 1 unless justid) until
  // `count` are done; without justid, one at the dead-letter maximum is taken out of the group
  // instead (dead_lettered; it counts against `count`).
  AutoClaimResult autoclaim(const Stream& s, std::string_view consumer, int64_t min_idle_ms,
                            StreamId start, std::size_t count, bool justid, int64_t now_ms);

  // XREADGROUP ... CLAIM min_idle (Redis 8.4), first phase: walks the time index from its head
  // and claims for `consumer` (created on the first claim) up to `count` (0 = no limit) entries
  // that are NACKed or idle for at least min_idle, oldest delivery first: each moves to the
  // consumer with delivery time now and count + 1 (saturating), and reports its idle time and
  // count from before the claim. A record whose entry is gone from the stream is dropped and
  // reported in `deleted` (as XCLAIM/XAUTOCLAIM do; it does not count against `count`), one at
  // the dead-letter maximum goes to dead_lettered (nor does it). Costs O(k + deleted +
  // dead-lettered), k the entries claimed.
  // With `admit`, each entry to claim is first offered to it (dropped and dead-lettered records
  // are not), the first refused one ends the walk, and the walk ends at the last admitted entry:
  // records it passed after that one are left as they are, for a later call, as a walk limited
  // by `count` leaves them.
  ClaimIdleResult claim_idle(const Stream& s, std::string_view consumer, int64_t min_idle_ms,
                             std::size_t count, int64_t now_ms, Admission* admit = nullptr);
  // The earliest time at which claim_idle(min_idle) would find something: now_ms if a record
  // is NACKed, else the oldest delivery + min_idle (saturating), nullopt if the PEL is empty.
  std::optional<int64_t> next_claimable_ms(int64_t min_idle_ms, int64_t now_ms) const;

  // XNACK (Redis 8.8): each ID found in the PEL is released (no owner, delivery time 0, appended
  // to the NACK zone, so a re-released one moves to its end) with its counter set by `mode`
  // (SILENT - 1 down to 0, FAIL unchanged, FATAL LLONG_MAX) or to retry_count if given. With
  // `force`, an ID not in the PEL whose entry is in the stream gets a released record with
  // counter 0 (retry_count, LLONG_MAX for FATAL). Other IDs are skipped. With a dead-letter
  // policy, FATAL takes every pending ID whose entry is in the stream out of the group instead
  // (dead_lettered, counted as released; FORCE-created records are not).
  NackResult nack(const Stream& s, std::span<const StreamId> ids, NackMode mode,
                  std::optional<uint64_t> retry_count, bool force);

  // The delivery time XCLAIM IDLE ms means: now - ms, wrapping like Redis's 64-bit arithmetic
  // (claim() then turns anything outside [0, now] into now).
  static int64_t delivery_time_from_idle(int64_t now_ms, int64_t idle_ms) {
    return static_cast<int64_t>(static_cast<uint64_t>(now_ms) - static_cast<uint64_t>(idle_ms));
  }

  // ---- dead letters (dead_letter.h) --------------------------------------------------------
  // The group's policy, nullptr if it has none (then no claim ever dead-letters).
  const DeadLetterPolicy* dead_letter() const { return dead_letter_.get(); }
  // Sets (nullopt: removes) the policy; a new policy starts its dead_lettered counter at 0, a
  // changed one keeps it.
  void set_dead_letter(std::optional<DeadLetterPolicy> policy);
  // Whether a claim that adds one to e's counter would take e out of the group instead.
  bool dead_letter_due(const PendingEntry& e) const {
    return dead_letter_ && e.delivery_count >= dead_letter_->max_deliveries;
  }

  // ---- XPENDING -----------------------------------------------------------------------------
  PendingSummary pending_summary() const;
  // Extended form: up to `count` entries (0 = none) with start <= id <= end, of one consumer if
  // given (none if it does not exist), skipping entries idle for less than min_idle_ms.
  std::vector<PendingRecord> pending_range(StreamId start, StreamId end, std::size_t count,
                                           int64_t min_idle_ms, int64_t now_ms,
                                           std::optional<std::string_view> consumer = {}) const;

  // ---- XINFO --------------------------------------------------------------------------------
  std::optional<int64_t> lag(const Stream& s) const {
    return group_lag(s, last_delivered_id_, entries_read_);
  }
  GroupInfo info(const Stream& s) const;
  std::vector<ConsumerInfo> consumers_info() const;
  // `count` caps every pending list (0 = no cap).
  GroupFullInfo full_info(const Stream& s, std::size_t count) const;

  // ---- memory and checks --------------------------------------------------------------------
  // Estimated heap bytes of the whole group (object, name, consumers, trees, records).
  std::size_t memory_usage() const;
  // Heap bytes of the PEL alone: both kinds of trees and the records.
  std::size_t pel_memory_usage() const;

  // Verifies every invariant listed at the top of this file; on failure, says which in *why.
  bool check_invariants(std::string* why = nullptr) const;

 private:
  friend class StreamBuilder;  // stream_builder.h: fills a group from snapshot values
  // Removes a record from the PEL.
  void drop(StreamId id) { pel_.erase(id); }
  // Adds one delivery to a record's count, saturating at LLONG_MAX; returns the new count.
  uint64_t bump_count(StreamId id);
  // Copies the live entry `id` into the batch; nullptr if the stream no longer has it.
  GroupEntry* add_stream_entry(const Stream& s, StreamId id, DeliveryBatch& out);
  // Debug builds: the group and owner Pels agree about this ID.
  void debug_check_id(StreamId id) const;
  // Takes the pending record `e` out of the group as a dead letter (a copy of its entry, owner
  // and counter into `out`, then the record is dropped) and counts it; false, and nothing
  // changed, if its entry is gone from the stream.
  bool take_dead_letter(const Stream& s, const PendingEntry& e, DeadLetterReason why,
                        std::vector<DeadLetter>& out);

  std::string name_;
  StreamId last_delivered_id_;
  int64_t entries_read_ = kEntriesReadUnknown;
  RadixTree<Consumer*> consumers_;   // name → consumer (owned)
  Pel pel_;                          // every pending record
  std::vector<FieldValue> scratch_;  // reused by the walks' stream lookups
  // Behind a pointer: most groups have no policy and pay 8 bytes.
  std::unique_ptr<DeadLetterPolicy> dead_letter_;
};

}  // namespace streamd::engine
