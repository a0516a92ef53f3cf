// Dead-letter streams: the append side (see dead_letter.h). The group side, deciding which
// entries leave the group, is in group_claim.cc.
#include "streamd/engine/dead_letter.h"

#include <cassert>
#include <limits>

#include "streamd/engine/stream.h"

namespace streamd::engine {

std::string_view dead_letter_reason_name(DeadLetterReason r) {
  return r == DeadLetterReason::kFatal ? "fatal" : "max-deliveries";
}

Err dead_letter_stream_ready(const Stream* dl) {
  // next_stream_id for an automatic ID takes max(now, last.ms) and, in the last ID's
  // millisecond, its sequence + 1, moving to the next millisecond when the sequence is full: it
  // can only run out in the last millisecond there is.
  if (dl && dl->last_id().ms == std::numeric_limits<uint64_t>::max()) return Err::kIdExhausted;
  return Err::kOk;
}

std::vector<StreamId> append_dead_letters(Stream& dl, std::string_view source_key,
                                          std::string_view group,
                                          std::span<const DeadLetter> letters, uint64_t now_ms) {
  std::vector<StreamId> ids;
  ids.reserve(letters.size());
  std::vector<FieldValue> fields;
  for (const DeadLetter& d : letters) {
    std::string id = d.id.to_string();
    std::string deliveries = std::to_string(d.deliveries);
    fields.clear();
    fields.push_back({kDeadLetterFieldStream, source_key});
    fields.push_back({kDeadLetterFieldGroup, group});
    fields.push_back({kDeadLetterFieldId, id});
    fields.push_back({kDeadLetterFieldDeliveries, deliveries});
    fields.push_back({kDeadLetterFieldConsumer, d.consumer});
    fields.push_back({kDeadLetterFieldReason, dead_letter_reason_name(d.reason)});
    for (const auto& [f, v] : d.fields) fields.push_back({f, v});
    Result<StreamId> added = dl.append(IdSpec::automatic(), fields, now_ms);
    // dead_letter_stream_ready() rules out kIdExhausted; kElementsTooLarge would need an
    // original entry within the metadata's size (key and group names) of XADD's 1 GiB limit.
    assert(added);
    ids.push_back(added ? *added : StreamId{});
  }
  return ids;
}

}  // namespace streamd::engine
