// The replication identity of this server's history: which data set the replication offsets
// count bytes of. Redis's PSYNC2 terms:
// - replid: 40 random hex characters naming the current history; a new one whenever the history
//   starts afresh (a backlog created from nothing, a full sync as a replica, a promotion).
// - offset (master_repl_offset): bytes of the command stream since that history began; the n-th
//   byte fed has offset n (so the first byte a replica lacks is its offset + 1).
// - replid2 / second_offset: the previous history this one continues, and up to where it is
//   the same (second_offset is the first offset that is no longer shared; -1 and 40 zeros when
//   there is none). A PSYNC naming replid2 at an offset <= second_offset may continue.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace streamd::repl {

// 40 random lowercase hex characters.
std::string random_replid();

struct ReplIdentity {
  static constexpr std::string_view kNoReplid = "0000000000000000000000000000000000000000";

  std::string replid = random_replid();
  std::string replid2 = std::string(kNoReplid);
  int64_t offset = 0;
  int64_t second_offset = -1;

  // A history started afresh: new replid, no previous one.
  void reset_history() {
    replid = random_replid();
    clear_replid2();
  }
  void clear_replid2() {
    replid2 = std::string(kNoReplid);
    second_offset = -1;
  }
  // REPLICAOF NO ONE (a replica promoted): the old master's history becomes replid2, shared up
  // to everything received so far, and a new replid starts here, so the old master's other
  // replicas can PSYNC to this server and continue.
  void shift() {
    replid2 = replid;
    second_offset = offset + 1;
    replid = random_replid();
  }
  // Whether a replica asking PSYNC `id` `psync_offset` continues a history this server has
  // (the backlog must still hold the bytes from psync_offset on: checked separately).
  bool continues(std::string_view id, int64_t psync_offset) const {
    if (id == replid) return true;
    return id == replid2 && id != kNoReplid && psync_offset <= second_offset;
  }
};

}  // namespace streamd::repl
