// What COMMAND INFO / COMMAND DOCS need beyond the command table: Redis's documentation for each
// command (generated from redis-server 7.0.15 by tools/gen_command_docs.py, plus hand-written
// entries for commands newer than 7.0.15), key specs, and the names and order Redis uses for
// command flags and ACL categories.
//
// Documentation is stored as the RESP3 bytes Redis sends and replayed through a ReplyWriter, so a
// RESP2 client gets exactly the degraded form Redis would send.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/command_table.h"
#include "streamd/resp/reply_writer.h"

namespace streamd::cmd::docs {

struct CommandDoc {
  std::string_view name;       // full name: "get", "client|list"
  std::string_view info_tail;  // RESP3: the tips set and the key specs set of COMMAND INFO
  std::size_t doc_pairs = 0;   // pairs in doc_body
  std::string_view doc_body;   // RESP3: the COMMAND DOCS map's pairs, without "subcommands"
};

// The documentation of a command by full name (lowercase), or nullptr.
const CommandDoc* find(std::string_view full_name);

// Replays a sequence of complete RESP3 values into `w`. Returns the number of values written, or
// -1 if the bytes are malformed (nothing sensible can be written then; callers treat it as a bug).
long replay(std::string_view resp3, resp::ReplyWriter& w);

// One key spec of a command, as COMMAND INFO describes it (Redis 7.0 key specs).
struct KeySpec {
  std::vector<std::string> flags;  // "RW", "access", ...
  enum class Begin { kUnknown, kIndex, kKeyword } begin = Begin::kUnknown;
  int index = 0;        // kIndex
  std::string keyword;  // kKeyword
  int startfrom = 0;    // kKeyword
  enum class Find { kUnknown, kRange, kKeynum } find = Find::kUnknown;
  int lastkey = 0, keystep = 1, limit = 0;  // kRange
  int keynumidx = 0, firstkey = 0;          // kKeynum (keystep shared)
};
std::vector<KeySpec> key_specs(const CommandDoc& doc);
// The argument indexes the key spec selects in argv (argv[0] is the command name).
std::vector<int> evaluate(const KeySpec& spec, std::span<const std::string_view> argv);
// The keys of a command line with the flags of the key spec that selects each (COMMAND
// GETKEYSANDFLAGS, ACL key checks): positions in `line`, whose [0] is the command name.
struct KeyFlags {
  int pos;
  std::vector<std::string> flags;
};
std::vector<KeyFlags> keys_with_flags(const CommandSpec& spec,
                                      std::span<const std::string_view> line);

// Names of the flags set in `flags`, in the order COMMAND INFO lists them.
std::vector<std::string_view> flag_names(uint32_t flags);
// ACL categories of a row ("write stream fast") as "@write" ..., in Redis's category order.
std::vector<std::string> acl_categories(const CommandSpec& spec);
// Every ACL category name Redis 7.0 knows, without '@', in Redis's order.
std::span<const std::string_view> known_acl_categories();

}  // namespace streamd::cmd::docs
