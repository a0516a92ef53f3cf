// The command table: one row per command (and per subcommand of container commands such as
// CLIENT, CONFIG, XGROUP, XINFO). Dispatch, the arity check, COMMAND INFO/LIST/COUNT/GETKEYS and
// the table test all read it; nothing else lists commands.
//
// Conventions follow Redis: arity counts the command name, a negative arity means "at least
// -arity"; key positions are (first, last, step) with last = -1 meaning "up to the last argument";
// names are lowercase.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::cmd {

class Context;
using Handler = void (*)(Context&);
// For commands whose keys cannot be described by (first, last, step) (XREAD, XREADGROUP): returns
// the argument indexes of the keys, or an empty vector if the arguments are malformed.
using KeyFinder = std::vector<int> (*)(std::span<const std::string_view> argv);

// Command flags, named as COMMAND INFO shows them.
enum CommandFlag : uint32_t {
  kWrite = 1u << 0,
  kReadonly = 1u << 1,
  kDenyOom = 1u << 2,
  kAdmin = 1u << 3,
  kPubsub = 1u << 4,
  kNoScript = 1u << 5,
  kBlocking = 1u << 6,
  kLoading = 1u << 7,
  kStale = 1u << 8,
  kSkipMonitor = 1u << 9,
  kSkipSlowlog = 1u << 10,
  kFast = 1u << 11,
  kNoAuth = 1u << 12,
  kMayReplicate = 1u << 13,
  kNoMandatoryKeys = 1u << 14,
  kNoMulti = 1u << 15,
  kMovableKeys = 1u << 16,
  kAllowBusy = 1u << 17,
  kSentinel = 1u << 18,
  kOnlySentinel = 1u << 19,
  kNoAsyncLoading = 1u << 20,
  kAsking = 1u << 21,
  // May lazily expire keys it did not name (SCAN, RANDOMKEY): run directly, what it propagates is
  // not wrapped in MULTI/EXEC (Redis's CMD_TOUCHES_ARBITRARY_KEYS, hidden from COMMAND INFO as in
  // Redis: command_docs.cc does not name it).
  kTouchesArbitraryKeys = 1u << 22,
};

// The flags and ACL categories Redis gives its administrative server commands (CONFIG, LATENCY,
// SHUTDOWN, DEBUG...), spelled once for every table file that lists such commands.
inline constexpr uint32_t kAdminFlags = kAdmin | kNoScript | kLoading | kStale;
inline constexpr std::string_view kAdminAcl = "admin slow dangerous";

struct CommandSpec {
  std::string_view name;  // lowercase; for a subcommand, the subcommand alone ("create")
  int arity;
  uint32_t flags;
  // ACL categories as COMMAND INFO lists them, space separated, without '@' ("write stream fast").
  std::string_view acl_categories;
  int first_key;
  int last_key;
  int step;
  Handler handler;  // null for a container whose subcommands carry the handlers
  std::vector<CommandSpec> subcommands = {};
  KeyFinder key_finder = nullptr;
  // COMMAND DOCS "group" (string, stream, connection, server, generic, transactions...).
  std::string_view group = {};
  // Filled in by CommandTable::add: "xgroup|create" for subcommands, the name otherwise. Used in
  // arity errors and INFO commandstats.
  std::string full_name = {};
  // Filled in by CommandTable::add: a number unique to this row (subcommands included), dense
  // from 0, indexing ACL command bitmaps; and acl_categories as bits of acl_category_bit().
  int id = -1;
  uint64_t acl_bits = 0;
};

// The ACL categories Redis has, in Redis's order (ACL CAT lists them so; COMMAND INFO orders a
// command's categories so).
std::span<const std::string_view> acl_category_names();
// The bit of a category name (without '@', case-insensitive); 0 if unknown.
uint64_t acl_category_bit(std::string_view name);

// What a command line names: `top` is the row argv[0] names (null if none); `spec` is the row that
// runs: `top` itself, or the subcommand argv[1] names when `top` is a container. A container
// named alone keeps `spec == top` (its arity check then refuses it, as Redis does); an unknown
// subcommand leaves `spec` null.
struct CommandLookup {
  const CommandSpec* top = nullptr;
  const CommandSpec* spec = nullptr;
};

class CommandTable {
 public:
  static CommandTable& instance();

  void add(CommandSpec spec);
  // Case-insensitive lookup of a top-level command; nullptr if unknown.
  const CommandSpec* find(std::string_view name) const;
  // The one lookup of command + subcommand (dispatch, MULTI queueing, blocked re-runs, COMMAND
  // GETKEYS, REST): `sub` is the argument after the name, if the line has one. Honours
  // rename-command through find().
  CommandLookup lookup(std::string_view name, std::optional<std::string_view> sub) const;
  template <class Argv>
  CommandLookup lookup(const Argv& argv) const {
    if (argv.empty()) return {};
    return lookup(argv[0],
                  argv.size() >= 2 ? std::optional<std::string_view>(argv[1]) : std::nullopt);
  }
  // Case-insensitive lookup of a subcommand of `parent`.
  static const CommandSpec* find_sub(const CommandSpec& parent, std::string_view name);
  // A full name as COMMAND INFO and LATENCY HISTOGRAM take it ("get", "client|list"),
  // case-insensitive; nullptr if unknown.
  const CommandSpec* find_full_name(std::string_view name) const;

  const std::vector<CommandSpec>& all() const { return commands_; }
  // One more than the largest CommandSpec::id.
  int id_count() const { return next_id_; }

  // rename-command (applied by main once every command is registered; add() would undo it):
  // the command `from` names now (case-insensitively) answers to `to` only, or to nothing when
  // `to` is empty. Lookup changes, the rows do not: COMMAND INFO/DOCS/LIST show the command's
  // own name, as Redis does for a renamed command. A subcommand ("config|get") cannot be
  // renamed (Redis asserts on it).
  enum class RenameResult { kOk, kNoSuchCommand, kTargetExists };
  RenameResult rename(std::string_view from, std::string_view to);
  // Every command back under its own name (tests share the process-wide table).
  void forget_renames() { index(); }

  // The argument positions of the keys of a command line, using key positions or the key finder.
  static std::vector<int> key_positions(const CommandSpec& spec,
                                        std::span<const std::string_view> argv);

 private:
  CommandTable() = default;
  void index();
  void index_slots();
  std::vector<CommandSpec> commands_;
  std::vector<std::pair<std::string, std::size_t>> by_name_;  // sorted (rename's binary search)
  // Open addressing over by_name_ (index + 1, 0 = empty; a power of two, at most a quarter
  // full), rebuilt whenever by_name_ changes: find() hashes the lowered name once, where a binary
  // search compared strings eight times (every command line is looked up).
  std::vector<uint32_t> slots_;
  // The first 16 bytes of each by_name_ name as two little-endian words (zero-padded), the
  // same index: find() compares these instead of the strings (names this short are compared
  // whole by them).
  struct NameWords {
    uint64_t w0, w1;
  };
  std::vector<NameWords> words_;
  std::size_t longest_name_ = 0;  // no longer name can be found
  int next_id_ = 0;
};

// Key positions (first, last, step) of a plain row.
struct KeySpan {
  int first = 0;
  int last = 0;
  int step = 0;
};
inline constexpr KeySpan kNoKeys{0, 0, 0};
inline constexpr KeySpan kFirstKeyOnly{1, 1, 1};

// Registers plain rows (no subcommands, no key finder) of one COMMAND DOCS group, the common
// case of the register_* functions.
class GroupRows {
 public:
  GroupRows(CommandTable& t, std::string_view group) : table_(t), group_(group) {}
  void add(std::string_view name, int arity, uint32_t flags, std::string_view acl, KeySpan keys,
           Handler h) const;
  // A command whose one key is the first argument.
  void add_single_key(std::string_view name, int arity, uint32_t flags, std::string_view acl,
                      Handler h) const {
    add(name, arity, flags, acl, kFirstKeyOnly, h);
  }

 private:
  CommandTable& table_;
  std::string_view group_;
};

// Each command family registers its rows here (called once at startup, in a fixed order).
void register_connection_commands(CommandTable& t);
void register_keyspace_commands(CommandTable& t);
void register_string_commands(CommandTable& t);
void register_transaction_commands(CommandTable& t);
void register_server_commands(CommandTable& t);
void register_introspection_commands(CommandTable& t);  // COMMAND
void register_latency_commands(CommandTable& t);        // LATENCY
void register_stream_commands(CommandTable& t);
void register_pubsub_commands(CommandTable& t);
void register_replication_commands(CommandTable& t);  // commands/repl/
void register_acl_commands(CommandTable& t);          // commands/acl/
void register_all_commands(CommandTable& t);

}  // namespace streamd::cmd
