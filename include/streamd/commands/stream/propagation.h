// The deterministic records stream commands propagate instead of their own argv (see
// propagation.h). They follow what redis-server propagates, so an AOF streamd writes replays the
// same state in streamd and in Redis, with two deliberate additions that make the state exact:
// every delivery also logs the group's position (XGROUP SETID ... ENTRIESREAD), and history
// re-deliveries log their new delivery time and count.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "streamd/commands/core/context.h"
#include "streamd/engine/consumer_group.h"
#include "streamd/engine/stream.h"
#include "streamd/engine/stream_id.h"
#include "streamd/engine/stream_refs.h"

namespace streamd::cmd {

// rdb-version 10 (streamd's own: "write what Redis 7.0 reads") makes what streams propagate
// Redis 7.0 commands too, so that a redis-server 7.0 replica, and Redis 7.0 reading the AOF,
// arrive at the same state:
//   - the 8.2 KEEPREF / DELREF / ACKED trims and deletes propagate as what 7.0 has: the exact
//     XADD / XTRIM without a policy, XDEL of the entries an ACKED walk, XDELEX or XACKDEL
//     removed, XACK key group ... of the references DELREF dropped (engine::RefEffects);
//   - writes whose effect 7.0 cannot hold (XNACK, IDMP and XCFGSET, dead-letter policies) are
//     refused (refuse_without_redis70_form), so nothing the replica lacks was ever accepted.
// The stream is shared by every replica (one backlog, one offset), so a streamd replica gets the
// same 7.0 forms, which give it the same state.
bool redis70_forms(const Context& ctx);
// When redis70_forms() holds, replies errors::no_redis70_equivalent(what) and returns true,
// except to a client replaying writes accepted before (the master link, the AOF loader).
bool refuse_without_redis70_form(Context& ctx, std::string_view what);

// XADD key [DELREF|ACKED] [MAXLEN = n | MINID = id] id field value ...: the ID the stream
// generated and, if the command trimmed, the exact trim that reproduces it (`trim` is the result
// of trim_with_policy). An ACKED trim always propagates as MAXLEN = <resulting length> ACKED,
// which removes the same entries on the same state (stream_refs.h). With `as_redis70` (the
// trim's effects, see redis70_forms) the policy is replayed by 7.0 commands instead. `id_text` is
// the generated ID as the reply wrote it (formatted once for both).
//
// Two functions behind it: the common XADD's (a few registers) is tried first, so that it does
// not pay for the stack and registers of the general one (about 15 instructions per XADD,
// bench/pipeline_cost.py).
// - propagate_plain_xadd: an XADD with no option (`XADD key id field value ...`, `field_count`
//   pairs) sent in canonical bytes: its record is the client's request with the ID it asked for
//   ("*", "5-*", or one given) replaced by `id_text`, the rest copied. True when it propagated
//   (or there is nothing to propagate to); false for any other XADD, with nothing done.
// - propagate_encoded_xadd: any XADD, encoded.
bool propagate_plain_xadd(Context& ctx, std::string_view id_text, std::size_t field_count);
void propagate_encoded_xadd(Context& ctx, std::string_view key, std::string_view id_text,
                            engine::TrimStrategy strategy, const engine::TrimResult* trim,
                            std::span<const engine::FieldValue> fields, engine::RefPolicy policy,
                            const engine::RefEffects* as_redis70);
inline void propagate_xadd(Context& ctx, std::string_view key, std::string_view id_text,
                           engine::TrimStrategy strategy, const engine::TrimResult* trim,
                           std::span<const engine::FieldValue> fields,
                           engine::RefPolicy policy = engine::RefPolicy::kKeepRef,
                           const engine::RefEffects* as_redis70 = nullptr) {
  if (!trim && !as_redis70 && propagate_plain_xadd(ctx, id_text, fields.size())) return;
  propagate_encoded_xadd(ctx, key, id_text, strategy, trim, fields, policy, as_redis70);
}
// XTRIM key MAXLEN = n | MINID = id [DELREF|ACKED]: the exact form of any trim (`as_redis70` as
// for propagate_xadd).
void propagate_xtrim(Context& ctx, std::string_view key, engine::TrimStrategy strategy,
                     const engine::TrimResult& trim,
                     engine::RefPolicy policy = engine::RefPolicy::kKeepRef,
                     const engine::RefEffects* as_redis70 = nullptr);
// XDELEX / XACKDEL in Redis 7.0's commands (redis70_forms): XACK key group <acked> (XACKDEL's own
// group), XDEL key <deleted>, then the references DELREF dropped in `fx`. Nothing when all three
// are empty.
void propagate_ref_delete_as_redis70(Context& ctx, std::string_view key, std::string_view group,
                                     std::span<const engine::StreamId> acked,
                                     std::span<const engine::StreamId> deleted,
                                     const engine::RefEffects& fx);

// XIDMPRECORD key pid iid id: the idempotency record an XADD IDMP/IDMPAUTO made (after the XADD
// in the same unit), so replay rebuilds the same IDMP table (the record's age comes from the ID).
void propagate_idmp_record(Context& ctx, std::string_view key, std::string_view pid,
                           std::string_view iid, engine::StreamId id);

// Everything one XREADGROUP stream, XCLAIM or XAUTOCLAIM did (engine::GroupEffects), in one
// step and in this order:
//   XGROUP CREATECONSUMER key group consumer   the created consumer (and its keyspace event,
//                                              xgroup-createconsumer, published even when
//                                              nothing propagates);
//   XACK key group id                          each PEL record dropped (its entry is gone);
//   XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID [LASTID id]
//                                              each claimed, then each read entry: its PEL
//                                              record as it now is (LASTID for `>` reads, which
//                                              move the group); entries that got no record
//                                              (NOACK, deleted) propagate nothing;
//   XGROUP SETID key group last ENTRIESREAD n  the group's position, if it moved.
// The AOF, replicas and keyspace notifications of a group call all come from here.
void propagate_group_effects(Context& ctx, std::string_view key, std::string_view group,
                             std::string_view consumer, const engine::ConsumerGroup& g,
                             const engine::GroupEffects& fx);

// XNACK key group FAIL IDS n id... RETRYCOUNT c FORCE: the releases of one XNACK in order, each
// run of equal resulting counters as one record (FORCE recreates a record the replay lacks).
void propagate_nack(Context& ctx, std::string_view key, std::string_view group,
                    std::span<const std::pair<engine::StreamId, uint64_t>> records);

}  // namespace streamd::cmd
