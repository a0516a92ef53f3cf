// The command side of dead-letter streams (engine/dead_letter.h has the rule): what XCLAIM,
// XAUTOCLAIM, XREADGROUP ... CLAIM and XNACK call around their engine call when the group has a
// policy, and the rendering of a policy in XINFO.
#pragma once

#include <span>
#include <string_view>

#include "streamd/commands/core/context.h"
#include "streamd/engine/consumer_group.h"

namespace streamd::cmd {

// Before a claim on `g`: whether its dead-letter stream can take entries. If the key holds
// another type (WRONGTYPE) or a stream whose IDs are exhausted (XADD's error), replies that and
// returns false, and the command must change nothing: a claim never acknowledges an entry it
// then cannot append. True for a group without a policy.
bool dead_letter_ready(Context& ctx, const engine::ConsumerGroup& g);

// After the claim: appends `letters` (taken out of group `g` of the stream at `key`) to the
// group's dead-letter stream, creating it if missing, and reports what that amounts to as
// plain commands: for each letter `XADD <dl> <new id> <fields...>` (keyspace event xadd, and
// "new" when the key is created), then one `XACK <key> <group> <ids...>` (no event, as XACK).
// Wakes the dead-letter stream's blocked readers and counts the letters in INFO and /metrics.
void deliver_dead_letters(Context& ctx, std::string_view key, const engine::ConsumerGroup& g,
                          std::span<const engine::DeadLetter> letters);

// The XINFO GROUPS / XINFO STREAM FULL fields of a group's policy: how many map pairs
// (0 without a policy) and the pairs themselves.
std::size_t dead_letter_info_pairs(const engine::ConsumerGroup& g);
void write_dead_letter_info(resp::ReplyWriter& w, const engine::ConsumerGroup& g);

}  // namespace streamd::cmd
