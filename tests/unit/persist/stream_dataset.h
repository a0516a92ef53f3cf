// The consumer-group state every persistence round trip must carry (the AOF rewrite's serializer,
// RDB files, DUMP payloads), built through the command harness so that it is what clients make:
// three groups (one created with ENTRIESREAD), pending entries of several owners with different
// delivery counts and times, an idle consumer, pending entries whose stream entry is gone (one
// before the first entry, after a trim), a TTL on the stream, an empty stream with a group and a
// stream in another database.
#pragma once

#include <string>
#include <vector>

#include "../commands/command_harness.h"

namespace streamd::test {

// `s` must already hold the entries 1-1 .. 20-1 (at least); `deleted` are the IDs XDEL removes
// (include some of 3-1, 8-1: pending ones, to leave ghosts).
inline void add_group_state(CommandHarness& h, const std::vector<std::string>& deleted) {
  h.Run({"XGROUP", "CREATE", "s", "g1", "0"});
  h.Run({"XGROUP", "CREATE", "s", "g2", "$"});
  h.Run({"XGROUP", "CREATE", "s", "g3", "5-1", "ENTRIESREAD", "3"});
  h.Run({"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "6", "STREAMS", "s", ">"});
  h.Advance(1000);
  h.Run({"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "4", "STREAMS", "s", ">"});
  h.Run({"XREADGROUP", "GROUP", "g1", "alice", "STREAMS", "s", "0"});  // counts up to 2
  h.Run({"XREADGROUP", "GROUP", "g3", "carol", "COUNT", "2", "STREAMS", "s", ">"});
  h.Run({"XACK", "s", "g1", "2-1"});
  h.Run({"XGROUP", "CREATECONSUMER", "s", "g1", "idle"});
  std::vector<std::string> xdel = {"XDEL", "s"};
  xdel.insert(xdel.end(), deleted.begin(), deleted.end());
  h.Run(xdel);
  h.Run({"XTRIM", "s", "MINID", "2-1"});  // 1-1 gone too: a ghost before the first entry
  h.Run({"PEXPIRE", "s", "500000"});
  h.Run({"XADD", "empty", "MAXLEN", "0", "9-9", "a", "b"});
  h.Run({"XGROUP", "CREATE", "empty", "g1", "$"});
  h.Run({"SELECT", "2"});
  h.Run({"XADD", "other", "1-1", "a", "b"});
  h.Run({"SELECT", "0"});
  h.Advance(50);
}

}  // namespace streamd::test
