// The AOF rewrite's serializer: writes a keyspace as the shortest list of commands that rebuilds
// it, in RESP command form (the body of a base file). It reads the engine directly and only
// reads, so the forked rewrite child can run it on its copy-on-write snapshot.
//
// Per database with keys: SELECT n, then per key (keys already expired are skipped):
// - string: SET key value [PXAT unix-ms]
// - stream, in the order Redis 7's rewrite uses:
//     XADD key id field value ...            every live entry, in ID order
//     XADD key MAXLEN 0 0-1 x y              instead, for a stream with no entries
//     XSETID key last ENTRIESADDED n MAXDELETEDID id
//     XGROUP CREATE key group last ENTRIESREAD n              per group
//     XCLAIM key group consumer 0 id TIME t RETRYCOUNT n JUSTID FORCE   per pending entry
//     XGROUP CREATECONSUMER key group consumer                per consumer with no pending
//     PEXPIREAT key unix-ms                                   if the stream has a TTL
//   A pending entry whose stream entry is gone (XDEL'd or trimmed after delivery) cannot be
//   recreated by XCLAIM alone, and Redis's rewrite silently loses it. Here it survives: such
//   "ghost" IDs are added as placeholder entries (`x y`) among the live ones, claimed like the
//   others, then removed again (XTRIM MINID = first-live-id for ghosts before the first live
//   entry, XDEL for the rest), and XSETID comes last to restore the stream's metadata. Every
//   command is one Redis 7.0 knows, so the file still loads into redis-server.
// Each kind of stream state has its own function in dataset_writer.cc (entries, metadata, group,
// pending entry, idle consumers, ghosts); new state gets a new function called from there.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "streamd/engine/keyspace.h"

namespace streamd::persist {

struct DatasetStats {
  uint64_t keys = 0;
  uint64_t commands = 0;
  uint64_t bytes = 0;
};

// Serializes `ks` as of `now_ms`, handing the output to `out` in chunks of about 64 KiB; stops
// and returns false as soon as `out` returns false.
bool write_dataset(engine::Keyspace& ks, int64_t now_ms,
                   const std::function<bool(std::string_view)>& out, DatasetStats* stats = nullptr);

}  // namespace streamd::persist
