// Deterministic forms for the generic and string commands whose own argv would not replay to
// the same state: anything with a relative expiry, a float increment, a read-and-delete. They
// are rewritten from the state the command left, exactly as redis-server propagates them:
//
//   SET k v EX|PX|EXAT|PXAT t [NX|XX] [GET]   → SET k v PXAT <abs ms>     (DEL k if gone)
//   SETEX / PSETEX k t v                       → SET k v PXAT <abs ms>
//   EXPIRE / PEXPIRE / EXPIREAT / PEXPIREAT    → PEXPIREAT k <abs ms>      (DEL k if gone)
//   GETEX k EX|PX|EXAT|PXAT t                  → PEXPIREAT k <abs ms>      (DEL k if gone)
//   GETEX k PERSIST                            → PERSIST k
//   INCRBYFLOAT k d                            → SET k <new value> KEEPTTL
//   GETDEL k                                   → DEL k
//
// Dispatch applies it to a write command that changed something and gave no explicit records,
// so handlers of these commands need no propagation code of their own.
#pragma once

#include <span>
#include <string_view>

#include "streamd/commands/core/command_table.h"

namespace streamd::cmd {

class Server;

// Propagates the deterministic form of `argv` (run in database `db`) and returns true, or
// returns false when the command's own argv is already deterministic.
bool propagate_rewritten(Server& server, int db, const CommandSpec& spec,
                         std::span<const std::string_view> argv);

}  // namespace streamd::cmd
