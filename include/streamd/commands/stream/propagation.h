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

// XADD key [DELREF|ACKED] [MAXLEN = n | MINID = id] id field value ...: the ID the stream
// generated and, if the command trimmed, the exact trim that reproduces it (`trim` is the result
// of trim_with_policy). An ACKED trim always propagates as MAXLEN = <resulting length> ACKED,
// which removes the same entries on the same state (stream_refs.h).
void propagate_xadd(Context& ctx, std::string_view key, engine::StreamId id,
                    engine::TrimStrategy strategy, const engine::TrimResult* trim,
                    std::span<const engine::FieldValue> fields,
                    engine::RefPolicy policy = engine::RefPolicy::kKeepRef);
// XTRIM key MAXLEN = n | MINID = id [DELREF|ACKED]: the exact form of any trim.
void propagate_xtrim(Context& ctx, std::string_view key, engine::TrimStrategy strategy,
                     const engine::TrimResult& trim,
                     engine::RefPolicy policy = engine::RefPolicy::kKeepRef);

// XIDMPRECORD key pid iid id: the idempotency record an XADD IDMP/IDMPAUTO made (after the XADD
// in the same unit), so replay rebuilds the same IDMP table (the record's age comes from the ID).
void propagate_idmp_record(Context& ctx, std::string_view key, std::string_view pid,
                           std::string_view iid, engine::StreamId id);

// One delivery by XREADGROUP, XCLAIM or XAUTOCLAIM: the entry's PEL record as it now is,
//   XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID [LASTID id]
// (LASTID for `>` reads, which move the group forward). Entries that got no PEL record (NOACK,
// deleted) propagate nothing.
void propagate_delivery(Context& ctx, std::string_view key, std::string_view group,
                        std::string_view consumer, const engine::GroupEntry& e, bool lastid);
// XGROUP SETID key group last ENTRIESREAD n: the group's position after a read or a claim.
void propagate_group_position(Context& ctx, std::string_view key, const engine::ConsumerGroup& g);
// XGROUP CREATECONSUMER key group consumer: a consumer a command created implicitly. The same
// effect is its xgroup-createconsumer keyspace event (published even when nothing propagates),
// so whoever creates a consumer reports both with this one call.
void propagate_create_consumer(Context& ctx, std::string_view key, std::string_view group,
                               std::string_view consumer);
// XACK key group id: a PEL entry a claim dropped because its stream entry is gone.
void propagate_pel_drop(Context& ctx, std::string_view key, std::string_view group,
                        engine::StreamId id);

// XNACK key group FAIL IDS n id... RETRYCOUNT c FORCE: the releases of one XNACK in order, each
// run of equal resulting counters as one record (FORCE recreates a record the replay lacks).
void propagate_nack(Context& ctx, std::string_view key, std::string_view group,
                    std::span<const std::pair<engine::StreamId, uint64_t>> records);

}  // namespace streamd::cmd
