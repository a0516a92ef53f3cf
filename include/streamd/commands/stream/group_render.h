// Renderers for consumer-group data shared by XINFO (GROUPS, CONSUMERS, STREAM FULL) and the
// group commands: one place decides every group reply shape.
#pragma once

#include <string_view>

#include "streamd/commands/core/context.h"
#include "streamd/engine/consumer_group.h"
#include "streamd/engine/stream.h"

namespace streamd::cmd {

// The entries of a read or claim: [id, fields] each, or [id, nil] for deleted history entries,
// or bare IDs when `justid`.
void write_delivery(resp::ReplyWriter& w, const engine::DeliveryBatch& batch, bool justid);
// The entries of a `>` read with CLAIM: the claimed ones, then the new ones, each as
// [id, fields, ms-since-last-delivery, previous-delivery-count] (integers; 0 and 0 for new ones).
void write_claim_delivery(resp::ReplyWriter& w, const engine::DeliveryBatch& claimed,
                          const engine::DeliveryBatch& fresh);

// XINFO GROUPS: an array of group maps.
void write_groups_summary(Context& ctx, const engine::Stream& s);
// XINFO CONSUMERS: replies NOGROUP if the group is missing.
void write_consumers(Context& ctx, const engine::Stream& s, std::string_view group);
// The "groups" value of XINFO STREAM FULL, with pending lists capped at `count` (0 = all).
void write_groups_full(Context& ctx, const engine::Stream& s, std::size_t count);

}  // namespace streamd::cmd
