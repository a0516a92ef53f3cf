// The RDB snapshot API: what SAVE, BGSAVE, DUMP/RESTORE and replication full syncs call.
//
// For the replication developers (issue 13): a full sync runs
//   rdb::save(child's keyspace, now, options, [&](std::string_view chunk) { return send(chunk); })
// in the forked child (it only reads the keyspace, allocates per chunk, and hands the bytes out
// in chunks of about 64 KiB as they are produced, so a diskless sync streams without a file), and
// the replica side calls
//   rdb::load(bytes, fresh_keyspace, options, &stats, &error)
// on the whole payload once it has arrived: all or nothing (on any error the keyspace is left
// empty and `error` says why, naming the offending key where there is one). The format is Redis's
// own (redis-check-rdb accepts it, redis-server loads it): SaveOptions::version 12 writes what
// Redis 7.2+ reads (streams as RDB_TYPE_STREAM_LISTPACKS_3), version 10 what Redis 7.0 reads
// (RDB_TYPE_STREAM_LISTPACKS_2): `rdb-version` in the config. Replication aux fields
// (repl-id, repl-offset, repl-stream-db) go in SaveOptions::aux and come back in LoadStats::aux.
//
// State only streamd has (XNACK's released entries, IDMP tables) travels in an AUX field written
// right after the key it belongs to, which Redis ignores when it loads the file; streamd reads it
// back, so a streamd -> streamd round trip is exact.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamd/engine/keyspace.h"
#include "streamd/engine/stream.h"

namespace streamd::persist::rdb {

// The RDB versions streamd writes (10: Redis 7.0; 12: Redis 7.2..8.x) and the range it reads.
inline constexpr int kDefaultVersion = 12;
inline constexpr int kMinReadVersion = 9;
inline constexpr int kMaxReadVersion = 12;

struct SaveOptions {
  int version = kDefaultVersion;  // 10 or 12
  bool compression = true;        // rdbcompression: LZF for strings longer than 20 bytes
  bool checksum = true;           // rdbchecksum: CRC64 trailer (eight zero bytes when off)
  // Extra AUX fields written after the standard ones (redis-ver, redis-bits, ctime, used-mem,
  // aof-base): e.g. {"repl-id", ...}, {"repl-offset", ...}, {"repl-stream-db", "0"}.
  std::vector<std::pair<std::string, std::string>> aux;
};

struct SaveStats {
  uint64_t keys = 0;
  uint64_t bytes = 0;
};

// Serializes `ks` as of `now_ms` (keys already expired are left out) and hands the file to `out`
// in chunks of about 64 KiB; stops and returns false as soon as `out` returns false. Only reads
// the keyspace: safe in a forked child on its copy-on-write snapshot.
bool save(engine::Keyspace& ks, int64_t now_ms, const SaveOptions& opts,
          const std::function<bool(std::string_view)>& out, SaveStats* stats = nullptr);

struct LoadOptions {
  // rdb-skip-unsupported-types: keys of types streamd does not hold (lists, hashes, sets,
  // sorted sets, modules) are skipped and reported through `log` instead of failing the load.
  bool skip_unsupported_types = false;
  // Keys whose expiry has passed at now_ms are dropped (a master loading its file), unless
  // keep_expired (a replica keeps them: its master will send the DEL).
  int64_t now_ms = 0;
  bool keep_expired = false;
  engine::StreamLimits stream_limits;  // node limits for streams created by the load
  // Warnings worth a log line (a skipped key). May be empty.
  std::function<void(std::string_view)> log;
};

struct LoadStats {
  int version = 0;
  uint64_t keys = 0;
  uint64_t expired_skipped = 0;
  uint64_t unsupported_skipped = 0;
  std::vector<std::pair<std::string, std::string>> aux;  // every AUX field, in file order
};

// Loads a whole RDB file from memory into `ks`, which must be empty. All or nothing: on error
// every database is emptied again and `*error` holds a one-line reason (for the log and
// redis-check-rdb-style output, not a client reply). Never throws, never crashes on hostile
// input: every length is bounded by the remaining input and every stream is validated as Redis's
// sanitize-dump-payload yes validates it.
bool load(std::string_view bytes, engine::Keyspace& ks, const LoadOptions& opts, LoadStats* stats,
          std::string* error);

}  // namespace streamd::persist::rdb
