// Loading a multi-part AOF at startup: the base file, then each incremental file in manifest
// order, every command run through a runner (the normal command dispatcher, in the server).
//
// Endings (see AofReader):
// - the last file may end inside a command or inside a MULTI block (a crash in the middle of a
//   write): with aof-load-truncated yes everything before it loads, the file is cut there (so
//   that appending continues after a complete command) and a warning says so; with no, startup
//   stops and says how to fix it;
// - a truncated file that is not the last one, a corrupt byte anywhere, or a command this
//   server does not know stops startup with the file name and the offset.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "streamd/persist/manifest.h"

namespace streamd::persist {

class AofCommandRunner {
 public:
  virtual ~AofCommandRunner() = default;
  // Whether the server has this command (a file written by a newer or different server may use
  // commands it lacks; loading stops rather than skip data).
  virtual bool known(std::span<const std::string_view> argv) const = 0;
  virtual void run(std::span<const std::string_view> argv) = 0;
  // A MULTI left open at the end of the file was cut off: forget the queued commands.
  virtual void discard_transaction() = 0;
};

struct LoadOptions {
  bool load_truncated = true;  // aof-load-truncated
  // Called now and then with (bytes loaded, total bytes) for INFO's loading fields.
  std::function<void(uint64_t, uint64_t)> progress;
  // Loads a base file that is an RDB (it starts with "REDIS", as Redis 7 recognises one, whatever
  // its name): aof-use-rdb-preamble yes, streamd's or redis-server's. False (with the reason in
  // `*error`) stops loading. Without it, such a base is refused.
  std::function<bool(const std::string& path, std::string* error)> load_rdb;
};

struct LoadResult {
  bool ok = true;
  std::string error;  // why loading stopped (already logged)
  uint64_t commands = 0;
  uint64_t bytes = 0;      // total size of the files loaded
  bool truncated = false;  // the last file was cut (aof-load-truncated)
  double seconds = 0;
};

// Loads the files `m` lists from `dir`, logging as it goes.
LoadResult load_aof(const std::string& dir, const Manifest& m, AofCommandRunner& runner,
                    const LoadOptions& opts);

}  // namespace streamd::persist
