// streamd's configuration: the current value of every directive of a directives table, loaded at
// startup from a redis.conf-style file and --flags, read by the rest of the server through typed
// accessors, changed at runtime by CONFIG SET and written back by CONFIG REWRITE.
//
// Reading on the hot path: the typed accessors (cfg.stream_node_max_entries(), cfg.requirepass())
// read a cached pointer, and cfg.ref<T>("name") hands out a reference to a directive's storage
// once, for directives without an accessor. References stay valid for the Config's lifetime: a
// value is always assigned in place and never changes type.
//
// Runtime changes: CONFIG SET goes through set(), which is all or nothing. Apply hooks (which may
// fail, e.g. rebinding a port) run after the new values are in place and before anyone is told;
// if one fails every value is restored and the hooks that ran are run again on the old values.
// Then change listeners hear about each directive whose value actually changed. Loading at
// startup calls neither.
//
// Not thread-safe: everything runs on the server's one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "streamd/config/directive.h"
#include "streamd/config/values.h"

namespace streamd::config {

// Why loading the configuration failed. main prints fatal_text() and exits with status 1.
struct LoadError {
  int line = 0;           // 1-based line in the text being read; 0 when a file could not be read
  std::string line_text;  // the offending line, trimmed (flags appear as `name "value"`)
  std::string message;    // the reason, or the whole message when line == 0
  // redis-server's format:
  //   *** FATAL CONFIG FILE ERROR (<product>) ***
  //   Reading the configuration file, at line 2
  //   >>> 'port "abc"'
  //   argument couldn't be parsed into an integer
  std::string fatal_text(std::string_view product) const;
};

// A `rename-command <name> <new-name>` line. The config layer knows no commands: it keeps these
// in file order and main applies them to the command table at startup (an empty new name removes
// the command), reporting a refused one as the fatal error of its line.
struct CommandRename {
  std::string from;
  std::string to;
  LoadError at;  // the line and its text; the message is filled in by rename_error
};
enum class RenameError { kNoSuchCommand, kTargetExists };
// A `user <name> <rules...>` line: the words after "user".
struct UserLine {
  std::vector<std::string> words;
  LoadError at;
};

// Redis's startup error for a refused rename, at the rename's line.
LoadError rename_error(const CommandRename& r, RenameError e);

// The command line as redis-server reads it: `streamd [config-file | -] [--name value ...]`.
struct CommandLine {
  std::string config_file;         // the first argument unless it starts with '-'; "" if none
  bool config_from_stdin = false;  // "-" as the first or the last argument
  // The flags as configuration text appended after the file, one directive per line with every
  // value quoted (`port "7000"`), exactly as redis-server builds it, so line numbers in errors
  // match redis-server's. A flag takes the words up to the next one starting with "--", but the
  // word right after a flag name is always its value; a bare `--save` means `save ""`.
  std::string options;
};

// What main must do before touching the configuration: `-v`/`--version` and `-h`/`--help` as the
// only argument.
enum class EarlyAction { kNone, kVersion, kHelp };
EarlyAction early_action(int argc, const char* const* argv);

// argv[0] is the program name.
CommandLine parse_command_line(int argc, const char* const* argv);
// `args` excludes the program name.
CommandLine parse_command_line(std::span<const std::string_view> args);

class Config {
 public:
  using ListenerId = std::uint64_t;
  // Told after a successful change; reads the new value from the Config.
  using Listener = std::function<void(const Directive&)>;
  // Runs with the new values in place; returns the reason to refuse them (shown as
  // "ERR CONFIG SET failed (possibly related to argument '<name>') - <reason>").
  using ApplyHook = std::function<std::optional<std::string>()>;

  // Every directive at its default. The table must outlive the Config.
  explicit Config(std::span<const Directive> table = builtin_directives());
  Config(const Config&) = delete;
  Config& operator=(const Config&) = delete;
  ~Config();

  // ---- startup ----

  // Reads the config file (if any), stdin (if asked) and the flags, in that order; later lines
  // win. On error nothing changes. Remembers the file's absolute path for REWRITE.
  std::optional<LoadError> load(const CommandLine& cmdline);
  // Reads configuration text (include directives allowed).
  std::optional<LoadError> load_text(std::string_view text);

  const std::string& config_file() const { return config_file_; }
  // The rename-command lines of the last successful load, in order. They are not directives:
  // CONFIG GET does not show them and CONFIG REWRITE keeps their lines as written.
  const std::vector<CommandRename>& renames() const { return renames_; }
  // The `user` lines of the last successful load, in order (ACL users; CONFIG REWRITE writes the
  // current users back when no aclfile is set).
  const std::vector<UserLine>& users() const { return users_; }
  void set_config_file(std::string absolute_path) { config_file_ = std::move(absolute_path); }

  // ---- lookup ----

  std::span<const Directive> directives() const { return table_; }
  // By name or alias, case-insensitively; nullptr if unknown.
  const Directive* find(std::string_view name) const;
  // The CONFIG GET text of one directive; nullopt if unknown.
  std::optional<std::string> get(std::string_view name) const;
  bool is_default(std::string_view name) const;
  // The directives marked no_effect() whose value is not their default (startup warns of them).
  std::vector<std::string_view> set_without_effect() const;

  // A reference to a directive's storage (see values.h for which T each type uses). Aborts if
  // the name is unknown or T is wrong: that is a programming error, caught at startup.
  template <class T>
  const T& ref(std::string_view name) const {
    return std::get<T>(value_of(name, Value(T{}).index()));
  }

  // ---- CONFIG GET / SET / REWRITE ----

  // CONFIG GET: (name, value) pairs for every directive whose name or alias matches one of the
  // patterns, each name once. A pattern without glob characters is looked up exactly and
  // case-insensitively and answered under the spelling given (as Redis 7.0 does); glob patterns
  // are matched case-sensitively against names and aliases.
  std::vector<std::pair<std::string, std::string>> get_matching(
      std::span<const std::string_view> patterns) const;

  // CONFIG SET name value [name value ...] (args holds the pairs): all or nothing. Returns the
  // error line (without the leading '-') or nullopt on success. Protected directives change only
  // with `allow_protected` (the CONFIG command decides it from enable-protected-configs).
  std::optional<std::string> set(std::span<const std::string_view> args,
                                 bool allow_protected = false);
  std::optional<std::string> set(std::string_view name, std::string_view value);
  // Like set() but also for immutable and protected directives: for the server itself (for
  // example main recording the absolute `dir` it changed into).
  std::optional<std::string> force_set(std::string_view name, std::string_view value);

  // CONFIG REWRITE: rewrites the config file with the current values; error line or nullopt.
  std::optional<std::string> rewrite() const;
  // The new text of a config file whose current text is `old_text` (the pure part of REWRITE).
  // Lines naming a directive are replaced by its current value in place; comments, blank lines,
  // includes and anything else stay; directives the file does not name are appended under
  // "# Generated by CONFIG REWRITE" when they differ from their default.
  std::string rewrite_text(std::string_view old_text) const;
  // What CONFIG REWRITE writes for `user` lines ("user alice on ..."), supplied by the ACL (the
  // config layer knows no users); unset, user lines are kept as written.
  void set_user_lines(std::function<std::vector<std::string>()> fn) { user_lines_ = std::move(fn); }

  // ---- runtime changes ----

  // Listener for one directive (name or alias) or for every directive.
  ListenerId on_change(std::string_view name, Listener fn);
  ListenerId on_any_change(Listener fn);
  // Apply hook for a group of directives: runs once per CONFIG SET that changes any of them.
  ListenerId add_apply_hook(std::initializer_list<std::string_view> names, ApplyHook fn);
  void remove(ListenerId id);

  // ---- typed accessors for the built-in directives ----
  std::int64_t port() const { return *c_.port; }
  const std::vector<std::string>& bind() const { return *c_.bind; }
  const std::string& unixsocket() const { return *c_.unixsocket; }
  std::int64_t unixsocketperm() const { return *c_.unixsocketperm; }
  std::int64_t tcp_backlog() const { return *c_.tcp_backlog; }
  std::int64_t tcp_keepalive() const { return *c_.tcp_keepalive; }
  std::int64_t timeout() const { return *c_.timeout; }
  std::int64_t maxclients() const { return *c_.maxclients; }
  std::uint64_t proto_max_bulk_len() const { return *c_.proto_max_bulk_len; }
  std::uint64_t client_query_buffer_limit() const { return *c_.client_query_buffer_limit; }
  const OutputBufferLimits& client_output_buffer_limit() const {
    return *c_.client_output_buffer_limit;
  }
  const std::string& dir() const { return *c_.dir; }
  std::int64_t databases() const { return *c_.databases; }
  const std::string& requirepass() const { return *c_.requirepass; }
  LogLevel loglevel() const { return static_cast<LogLevel>(*c_.loglevel); }
  const std::string& logfile() const { return *c_.logfile; }
  bool daemonize() const { return *c_.daemonize; }
  const std::string& pidfile() const { return *c_.pidfile; }
  std::int64_t hz() const { return *c_.hz; }
  std::uint32_t notify_keyspace_events() const {
    return static_cast<std::uint32_t>(*c_.notify_keyspace_events);
  }
  LocalPermission enable_debug_command() const {
    return static_cast<LocalPermission>(*c_.enable_debug_command);
  }
  LocalPermission enable_protected_configs() const {
    return static_cast<LocalPermission>(*c_.enable_protected_configs);
  }
  bool protected_mode() const { return *c_.protected_mode; }
  std::uint64_t maxmemory() const { return *c_.maxmemory; }
  MaxmemoryPolicy maxmemory_policy() const {
    return static_cast<MaxmemoryPolicy>(*c_.maxmemory_policy);
  }
  std::int64_t stream_node_max_entries() const { return *c_.stream_node_max_entries; }
  std::uint64_t stream_node_max_bytes() const { return *c_.stream_node_max_bytes; }
  const SavePoints& save() const { return *c_.save; }
  bool appendonly() const { return *c_.appendonly; }
  AppendFsync appendfsync() const { return static_cast<AppendFsync>(*c_.appendfsync); }
  const std::string& appenddirname() const { return *c_.appenddirname; }
  const std::string& appendfilename() const { return *c_.appendfilename; }
  bool aof_load_truncated() const { return *c_.aof_load_truncated; }
  std::int64_t auto_aof_rewrite_percentage() const { return *c_.auto_aof_rewrite_percentage; }
  std::uint64_t auto_aof_rewrite_min_size() const { return *c_.auto_aof_rewrite_min_size; }
  bool aof_use_rdb_preamble() const { return *c_.aof_use_rdb_preamble; }
  std::int64_t slowlog_log_slower_than() const { return *c_.slowlog_log_slower_than; }
  std::int64_t slowlog_max_len() const { return *c_.slowlog_max_len; }
  bool latency_tracking() const { return *c_.latency_tracking; }
  std::int64_t latency_monitor_threshold() const { return *c_.latency_monitor_threshold; }
  // As CONFIG GET shows them ("50", "99.9").
  const std::vector<std::string>& latency_tracking_info_percentiles() const {
    return *c_.latency_tracking_info_percentiles;
  }

 private:
  struct LoadState;
  struct Cache {
    const std::int64_t *port, *unixsocketperm, *tcp_backlog, *tcp_keepalive, *timeout, *maxclients,
        *databases, *loglevel, *hz, *notify_keyspace_events, *enable_debug_command,
        *enable_protected_configs, *maxmemory_policy, *stream_node_max_entries, *appendfsync,
        *auto_aof_rewrite_percentage, *slowlog_log_slower_than, *slowlog_max_len,
        *latency_monitor_threshold;
    const std::uint64_t *proto_max_bulk_len, *client_query_buffer_limit, *maxmemory,
        *stream_node_max_bytes, *auto_aof_rewrite_min_size;
    const bool *daemonize, *appendonly, *aof_load_truncated, *aof_use_rdb_preamble,
        *latency_tracking, *protected_mode;
    const std::string *unixsocket, *dir, *requirepass, *logfile, *pidfile, *appenddirname,
        *appendfilename;
    const std::vector<std::string>*bind, *latency_tracking_info_percentiles;
    const OutputBufferLimits* client_output_buffer_limit;
    const SavePoints* save;
  };
  struct Subscriber {
    ListenerId id;
    std::vector<std::size_t> indices;  // empty: every directive
    Listener listener;
    ApplyHook hook;
  };

  std::size_t index_of(const Directive& d) const {
    return static_cast<std::size_t>(&d - &table_[0]);
  }
  const Value& value_of(std::string_view name, std::size_t alternative) const;
  void fill_cache();
  // force: every directive (force_set); allow_protected: protected ones too (CONFIG SET).
  std::optional<std::string> set_pairs(std::span<const std::string_view> args, bool force,
                                       bool allow_protected);
  std::optional<LoadError> load_text_into(std::string_view text, LoadState& st) const;
  std::optional<LoadError> load_file_into(const std::string& path, LoadState& st) const;
  std::optional<LoadError> apply_line(std::string_view line, int line_no, LoadState& st) const;

  // The parsed defaults and the name index of a table: the same for every Config of the table,
  // so the built-in table's is built once per process (a Config is made per test harness and
  // per fuzz input, and parsing the defaults was most of that).
  struct TableIndex;
  static std::shared_ptr<const TableIndex> index_for(std::span<const Directive> table);

  std::span<const Directive> table_;
  std::shared_ptr<const TableIndex> index_;
  std::vector<Value> values_;                                    // one per table row, never resized
  const std::vector<Value>& defaults_;                           // the parsed defaults
  const std::unordered_map<std::string, std::size_t>& by_name_;  // lower-case names and aliases
  std::string config_file_;
  std::vector<CommandRename> renames_;
  std::vector<UserLine> users_;
  std::function<std::vector<std::string>()> user_lines_;
  std::vector<Subscriber> subscribers_;
  ListenerId next_id_ = 1;
  Cache c_{};
};

// The whole startup sequence for main: parses argv, loads, and on failure fills `error` with the
// text to print (then main exits with status 1). `config_file` receives the file's absolute path
// ("" when none).
bool load_from_command_line(Config& cfg, int argc, const char* const* argv,
                            std::string& config_file, std::string& error);

}  // namespace streamd::config
