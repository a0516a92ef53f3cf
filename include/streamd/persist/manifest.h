// The manifest of a multi-part append-only file (Redis 7's layout), and the names of its files.
//
// The AOF directory (appenddirname) holds one base file, the incremental files written since
// that base, and the manifest that lists them, e.g. for appendfilename "appendonly.aof":
//
//   appendonly.aof.manifest:
//     file appendonly.aof.1.base.aof seq 1 type b
//     file appendonly.aof.1.incr.aof seq 1 type i
//
// Loading reads the base, then every incremental file in order. The manifest is the only source
// of truth: files it does not list are ignored, and it is always replaced atomically (write a
// temporary file, fsync, rename, fsync the directory), so a crash leaves either the old or the
// new list. Type 'h' (history) marks files a rewrite made obsolete; they are deleted and never
// loaded.
//
// Syntax, as redis-server 7.0.15 writes and reads it: one line per file, space-separated
// key/value pairs (`file`, `seq`, `type`; unknown keys are ignored), names quoted with
// C-style escapes when they hold spaces or unprintable bytes, '#' lines are comments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::persist {

enum class AofFileType : char { kBase = 'b', kHistory = 'h', kIncr = 'i' };

struct AofFileInfo {
  std::string name;
  long long seq = 0;
  AofFileType type = AofFileType::kBase;

  friend bool operator==(const AofFileInfo&, const AofFileInfo&) = default;
};

struct Manifest {
  std::optional<AofFileInfo> base;
  std::vector<AofFileInfo> history;
  std::vector<AofFileInfo> incrs;  // in load order (ascending seq)

  long long base_seq() const { return base ? base->seq : 0; }
  long long last_incr_seq() const { return incrs.empty() ? 0 : incrs.back().seq; }
  bool empty() const { return !base && incrs.empty() && history.empty(); }

  // The manifest file's text: base, then history, then incremental files.
  std::string serialize() const;

  friend bool operator==(const Manifest&, const Manifest&) = default;
};

// Parses a manifest. On error returns false and says why in *err (the line number included).
bool parse_manifest(std::string_view text, Manifest& out, std::string* err);

// File names for appendfilename `prefix`.
std::string manifest_name(std::string_view prefix);       // prefix.manifest
std::string temp_manifest_name(std::string_view prefix);  // temp-prefix.manifest
// The incremental file written while CONFIG SET appendonly yes waits for its first base.
std::string temp_incr_file_name(std::string_view prefix);            // temp-prefix.incr
std::string base_file_name(std::string_view prefix, long long seq);  // prefix.seq.base.aof
// prefix.seq.base.rdb: the base a rewrite writes under aof-use-rdb-preamble yes (Redis 7 names).
std::string rdb_base_file_name(std::string_view prefix, long long seq);
std::string incr_file_name(std::string_view prefix, long long seq);  // prefix.seq.incr.aof

// Quotes a name if it needs it (spaces, quotes, backslashes, unprintable bytes).
std::string quote_if_needed(std::string_view s);

}  // namespace streamd::persist
