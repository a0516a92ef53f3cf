// Dead-letter streams (a streamd extension, STREAMD.DEADLETTER): a consumer group may have a
// maximum number of deliveries and a dead-letter stream. An entry that a claim would hand out
// once more than that (XREADGROUP ... CLAIM, XCLAIM, XAUTOCLAIM), or that XNACK FATAL releases,
// leaves the group instead: it is acknowledged and a copy is appended to the dead-letter stream.
//
// The rule, precisely: a claim that would add one to the entry's delivery counter dead-letters
// it when the counter already is >= max_deliveries (this delivery would exceed the maximum).
// Claims that set the counter instead of adding to it (XCLAIM ... JUSTID or RETRYCOUNT, which is
// also what the AOF and replicas receive for every delivery) never dead-letter, so replaying a
// log never dead-letters twice. History reads (XREADGROUP with an ID) re-deliver a consumer's own
// entries and never dead-letter either.
//
// The group part (deciding, acknowledging, copying the entry out) is in the claim paths of
// ConsumerGroup (group_claim.cc); this header has the policy, the record a claim hands back and
// the append to the dead-letter stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamd/engine/status.h"
#include "streamd/engine/stream_id.h"

namespace streamd::engine {

class Stream;

struct DeadLetterPolicy {
  uint64_t max_deliveries = 1;  // >= 1
  std::string stream;           // the dead-letter stream's key, in the source's database
  uint64_t dead_lettered = 0;   // entries this group dead-lettered since the policy was set
};

enum class DeadLetterReason { kMaxDeliveries, kFatal };

// One entry taken out of a group instead of being handed out. It is no longer pending; the
// caller appends it to the dead-letter stream (append_dead_letters) in the same command. The
// fields are copies: the dead-letter stream may be the source stream itself (after a RENAME),
// and appending there would move the views.
struct DeadLetter {
  StreamId id;
  uint64_t deliveries = 0;  // the delivery counter when it was taken (before XNACK FATAL)
  std::string consumer;     // its last owner; "" when XNACK had released it
  DeadLetterReason reason = DeadLetterReason::kMaxDeliveries;
  std::vector<std::pair<std::string, std::string>> fields;
};

// The metadata fields of a dead-letter entry. They are always its first six field/value pairs,
// in this order, followed by the original entry's pairs: an original field with the same name
// (a stream entry may repeat a name) can never be mistaken for them by a reader that takes the
// first occurrence, and the "streamd-dl-" prefix keeps ordinary names apart.
inline constexpr std::string_view kDeadLetterFieldStream = "streamd-dl-stream";
inline constexpr std::string_view kDeadLetterFieldGroup = "streamd-dl-group";
inline constexpr std::string_view kDeadLetterFieldId = "streamd-dl-id";
inline constexpr std::string_view kDeadLetterFieldDeliveries = "streamd-dl-deliveries";
inline constexpr std::string_view kDeadLetterFieldConsumer = "streamd-dl-consumer";
inline constexpr std::string_view kDeadLetterFieldReason = "streamd-dl-reason";
inline constexpr std::size_t kDeadLetterMetaPairs = 6;

// "max-deliveries" or "fatal", the value of streamd-dl-reason.
std::string_view dead_letter_reason_name(DeadLetterReason r);

// Whether `dl` (nullptr: the key is missing and will be created) can take any number of
// appends with automatic IDs. Automatic IDs only run out when the last ID's milliseconds are
// the maximum, so the check is exact: kOk, or kIdExhausted (XADD's "exhausted" error). Checked
// before a claim, so that a claim never acknowledges an entry it then cannot append.
Err dead_letter_stream_ready(const Stream* dl);

// Appends each dead letter to `dl` with an automatic ID at now_ms, metadata first (see above);
// returns the new IDs, one per letter in order. Never fails after dead_letter_stream_ready(dl)
// said kOk (see the .cc for the one theoretical exception, reported as 0-0, never a real ID).
std::vector<StreamId> append_dead_letters(Stream& dl, std::string_view source_key,
                                          std::string_view group,
                                          std::span<const DeadLetter> letters, uint64_t now_ms);

}  // namespace streamd::engine
