#include "streamd/commands/server/metrics.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <span>
#include <vector>

#include "streamd/commands/core/redis_version.h"
#include "streamd/commands/core/replication.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/repl/commands.h"
#include "streamd/commands/server/exposition.h"
#include "streamd/commands/server/info.h"
#include "streamd/commands/server/persistence_commands.h"
#include "streamd/commands/server/stream_selection.h"
#include "streamd/config/config.h"
#include "streamd/config/values.h"
#include "streamd/engine/consumer_group.h"
#include "streamd/engine/stream.h"
#include "streamd/text/glob.h"

namespace streamd::cmd {

namespace {

// The millisecond part of a stream ID, as redis_exporter exports IDs.
double id_ms(engine::StreamId id) {
  return static_cast<double>(id.ms);
}

struct Gauge {
  std::string_view name;
  double value;
};

// Metrics redis_exporter maps from INFO fields: its HELP is the name without the namespace
// followed by " metric".
void write_info_metrics(Exposition& e, std::span<const Gauge> metrics, std::string_view type) {
  for (const auto& g : metrics) {
    e.family(g.name, fmt::format("{} metric", g.name.substr(6)), type);
    e.sample(g.name, {}, g.value);
  }
}

void server_metrics(Server& server, Exposition& e) {
  const Stats& st = server.stats();
  int64_t uptime = (server.clock().now_ms() - server.start_ms()) / 1000;
  e.family("redis_up", "Information about the Redis instance", "gauge");
  e.sample("redis_up", {}, int64_t{1});
  const Gauge gauges[] = {
      {"redis_uptime_in_seconds", static_cast<double>(uptime)},
      {"redis_connected_clients", static_cast<double>(connected_clients(server))},
      {"redis_blocked_clients", static_cast<double>(server.blocking().blocked_clients())},
      {"redis_memory_used_bytes", static_cast<double>(used_memory_bytes())},
  };
  write_info_metrics(e, gauges, "gauge");
  const Gauge counters[] = {
      {"redis_commands_processed_total", static_cast<double>(st.total_commands)},
      {"redis_connections_received_total", static_cast<double>(st.total_connections)},
      {"redis_rejected_connections_total", static_cast<double>(st.rejected_connections)},
      {"redis_net_input_bytes_total", static_cast<double>(st.net_input_bytes)},
      {"redis_net_output_bytes_total", static_cast<double>(st.net_output_bytes)},
      {"redis_expired_keys_total", static_cast<double>(st.expired_keys)},
      {"redis_evicted_keys_total", static_cast<double>(st.evicted_keys)},
      {"redis_keyspace_hits_total", static_cast<double>(st.keyspace_hits)},
      {"redis_keyspace_misses_total", static_cast<double>(st.keyspace_misses)},
  };
  write_info_metrics(e, counters, "counter");
  // streamd's dead-letter streams (STREAMD.DEADLETTER): entries moved since the server started.
  e.family("streamd_dead_letters_total",
           "Entries moved to dead-letter streams instead of being delivered again", "counter");
  e.sample("streamd_dead_letters_total", {}, st.dead_lettered);

  PersistenceInfo p = persistence_info(server);
  const Gauge aof[] = {
      {"redis_aof_enabled", p.aof_enabled ? 1.0 : 0.0},
      {"redis_aof_rewrite_in_progress", p.aof_rewrite_in_progress ? 1.0 : 0.0},
      {"redis_aof_rewrite_scheduled", p.aof_rewrite_scheduled ? 1.0 : 0.0},
      {"redis_aof_last_rewrite_duration_sec", static_cast<double>(p.aof_last_rewrite_time_sec)},
      {"redis_aof_current_rewrite_duration_sec",
       static_cast<double>(p.aof_current_rewrite_time_sec)},
      {"redis_aof_last_bgrewrite_status", p.aof_last_bgrewrite_ok ? 1.0 : 0.0},
      {"redis_aof_last_write_status", p.aof_last_write_ok ? 1.0 : 0.0},
      {"redis_aof_current_size_bytes", static_cast<double>(p.aof_current_size)},
      {"redis_aof_base_size_bytes", static_cast<double>(p.aof_base_size)},
      {"redis_aof_buffer_length", static_cast<double>(p.aof_buffer_length)},
  };
  write_info_metrics(e, aof, "gauge");
}

// INFO replication as redis_exporter maps it: the plain fields as "<name> metric" gauges, each
// replica's offset and lag labelled by slave_ip/slave_port/slave_state, and on a replica the
// master link labelled by master_host/master_port; redis_instance_info names the role.
void replication_metrics(Server& server, Exposition& e) {
  ReplicationInfo r = replication_info(server);
  const auto& cfg = server.config();
  e.family("redis_instance_info", "Information about the Redis instance", "gauge");
  e.sample("redis_instance_info",
           {{"role", r.role},
            {"redis_version", std::string(kRedisVersion)},
            {"redis_build_id", "0"},
            {"redis_mode", "standalone"},
            {"os", os_name()},
            {"maxmemory_policy", config::to_string(cfg.maxmemory_policy())},
            {"tcp_port", fmt::format("{}", cfg.port())},
            {"run_id", run_id()},
            {"process_id", fmt::format("{}", getpid())},
            {"master_replid", r.replid}},
           int64_t{1});
  const Gauge gauges[] = {
      {"redis_connected_slaves", static_cast<double>(r.replicas.size())},
      {"redis_master_repl_offset", static_cast<double>(r.offset)},
      {"redis_second_repl_offset", static_cast<double>(r.second_offset)},
      {"redis_repl_backlog_is_active", r.backlog_active ? 1.0 : 0.0},
      {"redis_replication_backlog_bytes", static_cast<double>(r.backlog_size)},
      {"redis_repl_backlog_first_byte_offset", static_cast<double>(r.backlog_first_byte_offset)},
      {"redis_repl_backlog_history_bytes", static_cast<double>(r.backlog_histlen)},
  };
  write_info_metrics(e, gauges, "gauge");
  auto per_replica = [&](std::string_view name, std::string_view help, auto value) {
    e.family(name, help, "gauge");
    for (const auto& l : r.replicas) {
      std::string port = fmt::format("{}", l.port);
      e.sample(name, {{"slave_ip", l.ip}, {"slave_port", port}, {"slave_state", l.state}},
               value(l));
    }
  };
  per_replica("redis_connected_slave_offset_bytes", "Offset of connected slave",
              [](const ReplicaLinkInfo& l) { return l.ack_offset; });
  per_replica("redis_connected_slave_lag_seconds", "Lag of connected slave",
              [](const ReplicaLinkInfo& l) { return l.lag_s; });
  if (r.role != "slave") return;
  // A replica: its INFO fields, as the replica side fills them.
  auto field = [&](std::string_view name) -> std::string {
    for (const auto& [k, v] : r.replica_fields)
      if (k == name) return v;
    return "";
  };
  std::string host = field("master_host"), port = field("master_port");
  auto number = [&](std::string_view name) {
    std::string v = field(name);
    return v.empty() ? 0.0 : std::strtod(v.c_str(), nullptr);
  };
  struct Linked {
    std::string_view name, help, field;
  };
  e.family("redis_master_link_up", "Master link status on Redis slave", "gauge");
  e.sample("redis_master_link_up", {{"master_host", host}, {"master_port", port}},
           field("master_link_status") == "up" ? int64_t{1} : int64_t{0});
  for (const Linked& m :
       {Linked{"redis_master_last_io_seconds_ago", "Master last io seconds ago",
               "master_last_io_seconds_ago"},
        Linked{"redis_master_sync_in_progress", "Master sync in progress",
               "master_sync_in_progress"},
        Linked{"redis_slave_repl_offset", "Slave replication offset", "slave_repl_offset"}}) {
    e.family(m.name, m.help, "gauge");
    e.sample(m.name, {{"master_host", host}, {"master_port", port}}, number(m.field));
  }
  e.family("redis_slave_info", "Information about the Redis slave", "gauge");
  e.sample("redis_slave_info",
           {{"master_host", host}, {"master_port", port}, {"read_only", field("slave_read_only")}},
           int64_t{1});
}

void command_metrics(Server& server, Exposition& e) {
  const auto& cmds = server.stats().commands;
  e.family("redis_commands_total", "Total number of calls per command", "counter");
  for (const auto& [name, cs] : cmds) e.sample("redis_commands_total", {{"cmd", name}}, cs.calls);
  e.family("redis_commands_duration_seconds_total",
           "Total amount of time in seconds spent per command", "counter");
  for (const auto& [name, cs] : cmds) {
    e.sample("redis_commands_duration_seconds_total", {{"cmd", name}},
             static_cast<double>(cs.usec) / 1e6);
  }
  e.family("redis_commands_failed_calls_total", "Total number of errors within command execution",
           "counter");
  for (const auto& [name, cs] : cmds) {
    e.sample("redis_commands_failed_calls_total", {{"cmd", name}}, cs.failed_calls);
  }
  e.family("redis_commands_rejected_calls_total", "Total number of errors prior command execution",
           "counter");
  for (const auto& [name, cs] : cmds) {
    e.sample("redis_commands_rejected_calls_total", {{"cmd", name}}, cs.rejected_calls);
  }

  // streamd's own: the latency histograms of LATENCY HISTOGRAM, as a Prometheus histogram with
  // the same power-of-two bounds (seconds) for every command, so histogram_quantile() works.
  e.family("streamd_command_duration_seconds",
           "Command latency histogram (the durations of LATENCY HISTOGRAM)", "histogram");
  std::array<std::string, LatencyHistogram::kLog2Levels> bounds;
  for (int k = 0; k < LatencyHistogram::kLog2Levels; ++k) {
    bounds[static_cast<std::size_t>(k)] =
        fmt::format("{}", static_cast<double>(LatencyHistogram::log2_bound_ns(k)) / 1e9);
  }
  for (const auto& [name, cs] : cmds) {
    if (!cs.histogram) continue;
    auto cumulative = cs.histogram->cumulative_log2();
    for (int k = 0; k < LatencyHistogram::kLog2Levels; ++k) {
      e.sample("streamd_command_duration_seconds_bucket",
               {{"cmd", name}, {"le", bounds[static_cast<std::size_t>(k)]}},
               cumulative[static_cast<std::size_t>(k)]);
    }
    e.sample("streamd_command_duration_seconds_bucket", {{"cmd", name}, {"le", "+Inf"}},
             cs.histogram->total());
    // The histogram's own calls; the time is commandstats' (exact, the histogram rounds).
    e.sample("streamd_command_duration_seconds_sum", {{"cmd", name}},
             static_cast<double>(cs.usec) / 1e6);
    e.sample("streamd_command_duration_seconds_count", {{"cmd", name}}, cs.histogram->total());
  }
}

void keyspace_metrics(Server& server, Exposition& e) {
  auto& ks = server.keyspace();
  e.family("redis_db_keys", "Total number of keys by DB", "gauge");
  for (int i = 0; i < ks.databases(); ++i) {
    e.sample("redis_db_keys", {{"db", fmt::format("db{}", i)}},
             static_cast<uint64_t>(ks.db(i).size()));
  }
  e.family("redis_db_keys_expiring", "Total number of expiring keys by DB", "gauge");
  for (int i = 0; i < ks.databases(); ++i) {
    e.sample("redis_db_keys_expiring", {{"db", fmt::format("db{}", i)}},
             static_cast<uint64_t>(ks.db(i).expires()));
  }
}

void stream_metrics(Server& server, StreamSelection* selection, Exposition& e) {
  auto& cfg = server.config();
  const auto& patterns = cfg.ref<std::vector<std::string>>("metrics-streams");
  std::vector<text::GlobMatcher> globs;
  for (const auto& p : patterns) globs.emplace_back(p);
  auto cap = static_cast<std::size_t>(cfg.ref<std::int64_t>("metrics-max-streams"));
  StreamSelection::Choice chosen;
  if (selection) {
    chosen =
        selection->choose(server, globs, fmt::format("{} {}", fmt::join(patterns, " "), cap), cap);
  } else {
    chosen = StreamSelection::walk_whole(server, globs, cap);
  }

  struct Row {
    std::string db, key;
    const engine::Stream* s;
  };
  std::vector<Row> rows;
  rows.reserve(chosen.picks.size());
  auto& ks = server.keyspace();
  for (const auto& p : chosen.picks) {
    // choose() looked them up; one may have expired since (the clock moves). Read, not touched.
    const engine::Entry* en = ks.db(p.db).peek(p.key);
    if (!en || !en->value.is_stream()) continue;
    rows.push_back({fmt::format("db{}", p.db), label_text(p.key), &en->value.stream()});
  }

  e.family("streamd_streams_matching", "Streams whose key matches metrics-streams", "gauge");
  e.sample("streamd_streams_matching", {}, chosen.matching);
  e.family("streamd_streams_exported",
           "Streams exported (the longest metrics-max-streams of those matching)", "gauge");
  e.sample("streamd_streams_exported", {}, static_cast<uint64_t>(rows.size()));
  e.family("streamd_stream_selection_age_seconds",
           "Age of the keyspace pass that chose the exported streams (0: chosen at this scrape)",
           "gauge");
  e.sample("streamd_stream_selection_age_seconds", {}, static_cast<double>(chosen.age_ms) / 1e3);

  struct StreamGauge {
    std::string_view name, help;
    double (*value)(const engine::Stream&);
  };
  static const StreamGauge kStream[] = {
      {"redis_stream_length", "The number of elements of the stream",
       [](const engine::Stream& s) { return static_cast<double>(s.length()); }},
      {"redis_stream_radix_tree_keys", "Radix tree keys count\"",
       [](const engine::Stream& s) { return static_cast<double>(s.radix_tree_keys()); }},
      {"redis_stream_radix_tree_nodes", "Radix tree nodes count",
       [](const engine::Stream& s) { return static_cast<double>(s.radix_tree_nodes()); }},
      {"redis_stream_last_generated_id", "stream_last_generated_id metric",
       [](const engine::Stream& s) { return id_ms(s.last_id()); }},
      {"redis_stream_groups", "Groups count of stream",
       [](const engine::Stream& s) { return static_cast<double>(s.group_count()); }},
      {"redis_stream_max_deleted_entry_id", "stream_max_deleted_entry_id metric",
       [](const engine::Stream& s) { return id_ms(s.max_deleted_entry_id()); }},
      {"redis_stream_first_entry_id", "stream_first_entry_id metric",
       [](const engine::Stream& s) { return s.length() ? id_ms(s.first_id()) : 0.0; }},
      {"redis_stream_last_entry_id", "stream_last_entry_id metric",
       [](const engine::Stream& s) { return id_ms(s.last_entry_id()); }},
  };
  for (const auto& g : kStream) {
    e.family(g.name, g.help, "gauge");
    for (const auto& r : rows) e.sample(g.name, {{"db", r.db}, {"stream", r.key}}, g.value(*r.s));
  }
  // redis_exporter has no counter of entries ever added (XINFO STREAM's entries-added).
  e.family("streamd_stream_entries_added_total", "Entries ever added to the stream", "counter");
  for (const auto& r : rows) {
    e.sample("streamd_stream_entries_added_total", {{"db", r.db}, {"stream", r.key}},
             r.s->entries_added());
  }

  // Groups and consumers: gathered once, written family by family.
  struct GroupRow {
    const Row* stream;
    std::string name;
    engine::GroupInfo info;
    std::vector<engine::ConsumerInfo> consumers;
    std::vector<std::string> consumer_names;
    const engine::DeadLetterPolicy* dead_letter;  // nullptr: the group has no policy
  };
  std::vector<GroupRow> groups;
  for (const auto& r : rows) {
    r.s->groups().for_each([&](const engine::ConsumerGroup& g) {
      GroupRow gr{&r, {}, g.info(*r.s), g.consumers_info(), {}, g.dead_letter()};
      gr.name = label_text(gr.info.name);
      for (const auto& ci : gr.consumers) gr.consumer_names.push_back(label_text(ci.name));
      groups.push_back(std::move(gr));
    });
  }
  auto group_family = [&](std::string_view name, std::string_view help, auto value,
                          bool skip_null = false) {
    e.family(name, help, "gauge");
    for (const auto& g : groups) {
      std::optional<double> v = value(g.info);
      if (!v && skip_null) continue;
      e.sample(name, {{"db", g.stream->db}, {"stream", g.stream->key}, {"group", g.name}},
               v.value_or(0));
    }
  };
  group_family("redis_stream_group_consumers", "Consumers count of stream group",
               [](const engine::GroupInfo& i) -> std::optional<double> {
                 return static_cast<double>(i.consumers);
               });
  group_family("redis_stream_group_messages_pending",
               "Pending number of messages in that stream group",
               [](const engine::GroupInfo& i) -> std::optional<double> {
                 return static_cast<double>(i.pending);
               });
  group_family("redis_stream_group_last_delivered_id", "stream_group_last_delivered_id metric",
               [](const engine::GroupInfo& i) -> std::optional<double> {
                 return id_ms(i.last_delivered_id);
               });
  // XINFO GROUPS answers null for entries-read and lag when they cannot be known (after XDEL
  // or XSETID in some cases): no sample then, rather than a made-up 0.
  group_family(
      "redis_stream_group_entries_read", "stream_group_entries_read metric",
      [](const engine::GroupInfo& i) -> std::optional<double> {
        if (!i.entries_read) return std::nullopt;
        return static_cast<double>(*i.entries_read);
      },
      true);
  group_family(
      "redis_stream_group_lag", "stream_group_lag metric",
      [](const engine::GroupInfo& i) -> std::optional<double> {
        if (!i.lag) return std::nullopt;
        return static_cast<double>(*i.lag);
      },
      true);

  // Only groups with a dead-letter policy have the series (since the policy was set).
  e.family("streamd_stream_group_dead_letters_total",
           "Entries of the group moved to its dead-letter stream", "counter");
  for (const auto& g : groups) {
    if (!g.dead_letter) continue;
    e.sample("streamd_stream_group_dead_letters_total",
             {{"db", g.stream->db}, {"stream", g.stream->key}, {"group", g.name}},
             g.dead_letter->dead_lettered);
  }

  int64_t now_ms = server.clock().now_ms();
  e.family("redis_stream_group_consumer_messages_pending",
           "Pending number of messages for this specific consumer", "gauge");
  for (const auto& g : groups) {
    for (std::size_t i = 0; i < g.consumers.size(); ++i) {
      e.sample("redis_stream_group_consumer_messages_pending",
               {{"db", g.stream->db},
                {"stream", g.stream->key},
                {"group", g.name},
                {"consumer", g.consumer_names[i]}},
               g.consumers[i].pending);
    }
  }
  e.family("redis_stream_group_consumer_idle_seconds", "Consumer idle time in seconds", "gauge");
  for (const auto& g : groups) {
    for (std::size_t i = 0; i < g.consumers.size(); ++i) {
      int64_t idle = std::max<int64_t>(0, now_ms - g.consumers[i].seen_time_ms);
      e.sample("redis_stream_group_consumer_idle_seconds",
               {{"db", g.stream->db},
                {"stream", g.stream->key},
                {"group", g.name},
                {"consumer", g.consumer_names[i]}},
               static_cast<double>(idle) / 1e3);
    }
  }
}

}  // namespace

std::string metrics_text(Server& server, StreamSelection* selection) {
  std::string out;
  out.reserve(16 * 1024);
  Exposition e(out);
  server_metrics(server, e);
  command_metrics(server, e);
  keyspace_metrics(server, e);
  replication_metrics(server, e);
  stream_metrics(server, selection, e);
  return out;
}

}  // namespace streamd::cmd
