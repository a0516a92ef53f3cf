// Config: construction, lookup, CONFIG GET, CONFIG SET (atomic, with apply hooks) and change
// listeners. Loading is in loader.cc, CONFIG REWRITE in rewrite.cc.
#include "streamd/config/config.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>

#include "messages.h"
#include "streamd/config/syntax.h"
#include "streamd/text/glob.h"

namespace streamd::config {

namespace {

[[noreturn]] void programming_error(std::string_view what, std::string_view name) {
  std::fprintf(stderr, "streamd config: %.*s '%.*s'\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(name.size()), name.data());
  std::abort();
}

}  // namespace

struct Config::TableIndex {
  std::vector<Value> defaults;
  std::unordered_map<std::string, std::size_t> by_name;
};

std::shared_ptr<const Config::TableIndex> Config::index_for(std::span<const Directive> table) {
  auto build = [](std::span<const Directive> t) {
    auto index = std::make_shared<TableIndex>();
    index->defaults.reserve(t.size());
    for (const Directive& d : t) {
      Value v = initial_value(d);
      if (auto err = parse_set_value(d, d.default_value, v)) {
        programming_error("bad default value (" + *err + ") for", d.name);
      }
      index->defaults.push_back(std::move(v));
      const std::size_t row = index->defaults.size() - 1;
      if (!index->by_name.emplace(ascii_lower(d.name), row).second) {
        programming_error("duplicate directive", d.name);
      }
      for (std::string_view alias : d.aliases) {
        if (!index->by_name.emplace(ascii_lower(alias), row).second) {
          programming_error("duplicate directive", alias);
        }
      }
    }
    return std::shared_ptr<const TableIndex>(std::move(index));
  };
  // Only the built-in table is shared: a test's table may be a temporary whose address a later
  // one reuses.
  std::span<const Directive> builtin = builtin_directives();
  if (table.data() == builtin.data() && table.size() == builtin.size()) {
    static const std::shared_ptr<const TableIndex> shared = build(builtin);
    return shared;
  }
  return build(table);
}

Config::Config(std::span<const Directive> table)
    : table_(table),
      index_(index_for(table)),
      values_(index_->defaults),
      defaults_(index_->defaults),
      by_name_(index_->by_name) {
  fill_cache();
}

Config::~Config() = default;

void Config::fill_cache() {
  // Pointers into values_ for the accessors; a table without a built-in directive (tests) leaves
  // its pointer null, and the accessor must not be used then.
  auto ptr = [this]<class T>(std::string_view name, const T*& out) {
    out = nullptr;
    if (auto it = by_name_.find(std::string(name)); it != by_name_.end()) {
      out = std::get_if<T>(&values_[it->second]);
    }
  };
  ptr("port", c_.port);
  ptr("bind", c_.bind);
  ptr("unixsocket", c_.unixsocket);
  ptr("unixsocketperm", c_.unixsocketperm);
  ptr("tcp-backlog", c_.tcp_backlog);
  ptr("tcp-keepalive", c_.tcp_keepalive);
  ptr("timeout", c_.timeout);
  ptr("maxclients", c_.maxclients);
  ptr("proto-max-bulk-len", c_.proto_max_bulk_len);
  ptr("client-query-buffer-limit", c_.client_query_buffer_limit);
  ptr("client-output-buffer-limit", c_.client_output_buffer_limit);
  ptr("dir", c_.dir);
  ptr("databases", c_.databases);
  ptr("requirepass", c_.requirepass);
  ptr("loglevel", c_.loglevel);
  ptr("logfile", c_.logfile);
  ptr("daemonize", c_.daemonize);
  ptr("pidfile", c_.pidfile);
  ptr("hz", c_.hz);
  ptr("notify-keyspace-events", c_.notify_keyspace_events);
  ptr("enable-debug-command", c_.enable_debug_command);
  ptr("enable-protected-configs", c_.enable_protected_configs);
  ptr("protected-mode", c_.protected_mode);
  ptr("maxmemory", c_.maxmemory);
  ptr("maxmemory-policy", c_.maxmemory_policy);
  ptr("stream-node-max-entries", c_.stream_node_max_entries);
  ptr("stream-node-max-bytes", c_.stream_node_max_bytes);
  ptr("save", c_.save);
  ptr("appendonly", c_.appendonly);
  ptr("appendfsync", c_.appendfsync);
  ptr("appenddirname", c_.appenddirname);
  ptr("appendfilename", c_.appendfilename);
  ptr("aof-load-truncated", c_.aof_load_truncated);
  ptr("auto-aof-rewrite-percentage", c_.auto_aof_rewrite_percentage);
  ptr("auto-aof-rewrite-min-size", c_.auto_aof_rewrite_min_size);
  ptr("aof-use-rdb-preamble", c_.aof_use_rdb_preamble);
  ptr("slowlog-log-slower-than", c_.slowlog_log_slower_than);
  ptr("slowlog-max-len", c_.slowlog_max_len);
  ptr("latency-tracking", c_.latency_tracking);
  ptr("latency-monitor-threshold", c_.latency_monitor_threshold);
  ptr("latency-tracking-info-percentiles", c_.latency_tracking_info_percentiles);
}

const Directive* Config::find(std::string_view name) const {
  auto it = by_name_.find(ascii_lower(name));
  return it == by_name_.end() ? nullptr : &table_[it->second];
}

const Value& Config::value_of(std::string_view name, std::size_t alternative) const {
  const Directive* d = find(name);
  if (!d) programming_error("unknown directive", name);
  const Value& v = values_[index_of(*d)];
  if (v.index() != alternative) programming_error("wrong type requested for directive", name);
  return v;
}

std::optional<std::string> Config::get(std::string_view name) const {
  const Directive* d = find(name);
  if (!d) return std::nullopt;
  return format_value(*d, values_[index_of(*d)]);
}

bool Config::is_default(std::string_view name) const {
  const Directive* d = find(name);
  return d && values_[index_of(*d)] == defaults_[index_of(*d)];
}

std::vector<std::string_view> Config::set_without_effect() const {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < table_.size(); ++i) {
    if (table_[i].without_effect && values_[i] != defaults_[i]) out.push_back(table_[i].name);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Config::get_matching(
    std::span<const std::string_view> patterns) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::unordered_set<std::string> seen;
  auto add = [&](std::string_view name, std::size_t i) {
    if (seen.emplace(name).second) out.emplace_back(name, format_value(table_[i], values_[i]));
  };
  for (std::string_view pattern : patterns) {
    if (!text::has_glob_chars(pattern)) {
      if (const Directive* d = find(pattern)) add(pattern, index_of(*d));
      continue;
    }
    for (std::size_t i = 0; i < table_.size(); ++i) {
      if (text::glob_match(pattern, table_[i].name)) add(table_[i].name, i);
      for (std::string_view alias : table_[i].aliases) {
        if (text::glob_match(pattern, alias)) add(alias, i);
      }
    }
  }
  return out;
}

std::optional<std::string> Config::set(std::span<const std::string_view> args,
                                       bool allow_protected) {
  return set_pairs(args, false, allow_protected);
}

std::optional<std::string> Config::set(std::string_view name, std::string_view value) {
  const std::string_view args[] = {name, value};
  return set_pairs(args, false, false);
}

std::optional<std::string> Config::force_set(std::string_view name, std::string_view value) {
  const std::string_view args[] = {name, value};
  return set_pairs(args, true, true);
}

std::optional<std::string> Config::set_pairs(std::span<const std::string_view> args, bool force,
                                             bool allow_protected) {
  if (args.empty() || args.size() % 2 != 0) return std::string(msg::kSyntaxError);
  const std::size_t pairs = args.size() / 2;

  // 1. Names: unknown, not settable at runtime, or given twice (compared as spelled, ignoring
  //    case; a name and its alias are not duplicates, the later one wins).
  std::vector<std::size_t> index(pairs);
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::string_view name = args[2 * p];
    const Directive* d = find(name);
    if (!d) return msg::unknown_option(name);
    if (!force && d->mutability == Mutability::kImmutable) {
      return msg::set_failed(name, msg::kImmutable);
    }
    if (!allow_protected && d->mutability == Mutability::kProtected) {
      return msg::set_failed(name, msg::kProtected);
    }
    for (std::size_t q = 0; q < p; ++q) {
      if (iequals(args[2 * q], name)) return msg::set_failed(name, msg::kDuplicate);
    }
    index[p] = index_of(*d);
  }

  // 2. Values, parsed onto copies: nothing changes unless every one parses.
  std::vector<std::pair<std::size_t, Value>> staged;  // (row, new value), one entry per row
  for (std::size_t p = 0; p < pairs; ++p) {
    auto it = std::find_if(staged.begin(), staged.end(),
                           [&](const auto& s) { return s.first == index[p]; });
    if (it == staged.end()) it = staged.insert(staged.end(), {index[p], values_[index[p]]});
    if (auto err = parse_set_value(table_[index[p]], args[2 * p + 1], it->second)) {
      return msg::set_failed(args[2 * p], *err);
    }
  }

  // 3. Commit what changed, keeping the old values to roll back to. Assigning a Value that holds
  //    the same alternative assigns in place, so references handed out stay valid.
  std::vector<std::pair<std::size_t, Value>> old;
  for (auto& [i, v] : staged) {
    if (v == values_[i]) continue;
    old.emplace_back(i, values_[i]);
    values_[i] = std::move(v);
  }
  if (old.empty()) return std::nullopt;
  auto changed = [&](std::size_t i) {
    return std::any_of(old.begin(), old.end(), [&](const auto& o) { return o.first == i; });
  };

  // 4. Apply hooks, once each, for the groups that changed.
  std::vector<const Subscriber*> ran;
  const std::vector<Subscriber> subscribers = subscribers_;  // hooks may (un)register
  for (const Subscriber& s : subscribers) {
    if (!s.hook || !std::any_of(s.indices.begin(), s.indices.end(), changed)) continue;
    ran.push_back(&s);
    std::optional<std::string> err = s.hook();
    if (!err) continue;
    for (auto& [i, v] : old) values_[i] = v;
    for (const Subscriber* r : ran) (void)r->hook();  // back to the old values; best effort
    std::string_view culprit = args[0];
    for (std::size_t p = 0; p < pairs; ++p) {
      if (std::find(s.indices.begin(), s.indices.end(), index[p]) != s.indices.end()) {
        culprit = args[2 * p];
        break;
      }
    }
    return msg::set_failed(culprit, *err);
  }

  // 5. Listeners, in the order the directives were given.
  for (const auto& [i, v] : old) {
    for (const Subscriber& s : subscribers) {
      if (!s.listener) continue;
      if (s.indices.empty() ||
          std::find(s.indices.begin(), s.indices.end(), i) != s.indices.end()) {
        s.listener(table_[i]);
      }
    }
  }
  return std::nullopt;
}

Config::ListenerId Config::on_change(std::string_view name, Listener fn) {
  const Directive* d = find(name);
  if (!d) programming_error("listener for unknown directive", name);
  subscribers_.push_back({next_id_, {index_of(*d)}, std::move(fn), nullptr});
  return next_id_++;
}

Config::ListenerId Config::on_any_change(Listener fn) {
  subscribers_.push_back({next_id_, {}, std::move(fn), nullptr});
  return next_id_++;
}

Config::ListenerId Config::add_apply_hook(std::initializer_list<std::string_view> names,
                                          ApplyHook fn) {
  std::vector<std::size_t> indices;
  for (std::string_view name : names) {
    const Directive* d = find(name);
    if (!d) programming_error("apply hook for unknown directive", name);
    indices.push_back(index_of(*d));
  }
  subscribers_.push_back({next_id_, std::move(indices), nullptr, std::move(fn)});
  return next_id_++;
}

void Config::remove(ListenerId id) {
  std::erase_if(subscribers_, [id](const Subscriber& s) { return s.id == id; });
}

}  // namespace streamd::config
