// INFO [section ...]: the sections and fields of the newest Redis (7.4 / main: listener lines,
// pubsub_clients, eventloop_*, acl_access_denied_* ...), in its order, with the values streamd
// has. Fields about features streamd does not have (RDB saving, replicas, Lua,
// eviction, I/O threads) report them as absent or idle: zero counters, "no-failover", role master.
// Fields Redis derives from its allocator come from glibc (mallinfo2) and /proc.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/redis_version.h"
#include "streamd/commands/repl/commands.h"
#include "streamd/commands/server/info.h"
#include "streamd/commands/server/memory_overhead.h"
#include "streamd/commands/server/persistence_commands.h"
#include "streamd/config/config.h"
#include "streamd/engine/used_memory.h"
#include "streamd/text/random_hex.h"

#ifndef STREAMD_VERSION
#define STREAMD_VERSION "unknown"
#endif

namespace streamd::cmd {

// ---- process facts ----------------------------------------------------------------------------

// Redis's run_id: random per process.
const std::string& run_id() {
  static const std::string id = text::random_hex(40);
  return id;
}

std::string os_name() {
  // Fixed for the life of the process: asked once, not on every INFO.
  static const std::string name = [] {
    struct utsname u {};
    if (uname(&u) != 0) return std::string("Linux");
    return fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  }();
  return name;
}

namespace {

const std::string& executable_path() {
  static const std::string path = [] {
    std::array<char, 4096> buf{};
    ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    return n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : std::string();
  }();
  return path;
}

std::string gcc_version() {
#if defined(__GNUC__) && !defined(__clang__)
  return fmt::format("{}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "0.0.0";
#endif
}

// ---- formatting -------------------------------------------------------------------------------

// Redis's bytesToHuman: "123B", "1.50K", "2.00M", ...
std::string human(uint64_t n) {
  double d = static_cast<double>(n);
  if (n < 1024) return fmt::format("{}B", n);
  if (n < 1024ull * 1024) return fmt::format("{:.2f}K", d / 1024);
  if (n < 1024ull * 1024 * 1024) return fmt::format("{:.2f}M", d / (1024.0 * 1024));
  if (n < 1024ull * 1024 * 1024 * 1024) return fmt::format("{:.2f}G", d / (1024.0 * 1024 * 1024));
  if (n < 1024ull * 1024 * 1024 * 1024 * 1024) {
    return fmt::format("{:.2f}T", d / (1024.0 * 1024 * 1024 * 1024));
  }
  return fmt::format("{:.2f}P", d / (1024.0 * 1024 * 1024 * 1024 * 1024));
}

double tv_seconds(const struct timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1000000.0;
}

class Section {
 public:
  explicit Section(std::string& out) : out_(out) {}
  // "key:value\r\n". Strings and integers are appended directly (INFO writes a few hundred
  // lines: a format string parsed per line was most of its time); other values through fmt.
  template <typename T>
  void add(std::string_view key, const T& value) {
    out_.append(key);
    out_.push_back(':');
    if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      out_.append(std::string_view(value));
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                         !std::is_same_v<T, char>) {
      fmt::format_int digits(value);
      out_.append(digits.data(), digits.size());
    } else {
      fmt::format_to(std::back_inserter(out_), "{}", value);
    }
    out_.append("\r\n");
  }

 private:
  std::string& out_;
};

// ---- sections ---------------------------------------------------------------------------------

void server_section(Context& ctx, Section& s) {
  auto& cfg = ctx.server.config();
  int64_t now_ms = ctx.server.clock().now_ms();
  int64_t uptime = (now_ms - ctx.server.start_ms()) / 1000;
  s.add("redis_version", kRedisVersion);
  s.add("streamd_version", STREAMD_VERSION);
  s.add("redis_git_sha1", "00000000");
  s.add("redis_git_dirty", 0);
  s.add("redis_build_id", "0");
  s.add("redis_mode", "standalone");
  s.add("os", os_name());
  s.add("arch_bits", sizeof(void*) * 8);
  s.add("monotonic_clock", "POSIX clock_gettime");
  s.add("multiplexing_api", "epoll");
  s.add("atomicvar_api", "c11-builtin");
  s.add("gcc_version", gcc_version());
  s.add("process_id", getpid());
  s.add("process_supervised", "no");
  s.add("run_id", run_id());
  s.add("tcp_port", cfg.port());
  s.add("server_time_usec", ctx.server.clock().now_us());
  s.add("uptime_in_seconds", uptime);
  s.add("uptime_in_days", uptime / 86400);
  s.add("hz", cfg.hz());
  s.add("configured_hz", cfg.hz());
  s.add("lru_clock", (now_ms / 1000) & ((1 << 24) - 1));
  s.add("executable", executable_path());
  s.add("config_file", cfg.config_file());
  s.add("io_threads_active", 0);
  if (ctx.server.shutdown().waiting()) {
    s.add("shutdown_in_milliseconds", ctx.server.shutdown().deadline_ms() - now_ms);
  }
  // Redis 7.2+'s listener lines, one per kind that is on. The number is Redis's connection-type
  // index (tcp 0, unix 1, tls 2: their registration order), not a count.
  std::string binds;
  for (const std::string& b : cfg.bind()) binds += fmt::format(",bind={}", b);
  if (cfg.port() != 0) s.add("listener0", fmt::format("name=tcp{},port={}", binds, cfg.port()));
  if (!cfg.unixsocket().empty()) {
    s.add("listener1", fmt::format("name=unix,bind={}", cfg.unixsocket()));
  }
  if (int64_t tls = cfg.ref<std::int64_t>("tls-port"); tls != 0) {
    s.add("listener2", fmt::format("name=tls{},port={}", binds, tls));
  }
}

}  // namespace

std::size_t connected_clients(const Server& server) {
  // A replica's own link to its master counts (Redis keeps it in its client list).
  std::size_t replicas = 0;
  for (const auto& [id, sess] : server.sessions()) replicas += sess->replica ? 1 : 0;
  return server.sessions().size() - replicas;
}

namespace {

void clients_section(Context& ctx, Section& s) {
  std::size_t max_in = 0, max_out = 0, with_timeout = 0, pubsub = 0, watching = 0;
  for (const auto& [id, sess] : ctx.server.sessions()) {
    max_in = std::max(max_in, sess->query_buffer);
    max_out = std::max(max_out, sess->output_buffer);
    if (sess->blocked && sess->blocked->deadline_ms > 0) ++with_timeout;
    if (subscribed(*sess)) ++pubsub;
    if (!sess->watched.empty()) ++watching;
  }
  s.add("connected_clients", connected_clients(ctx.server));
  s.add("cluster_connections", 0);
  s.add("maxclients", ctx.server.config().maxclients());
  s.add("client_recent_max_input_buffer", max_in);
  s.add("client_recent_max_output_buffer", max_out);
  // Clients postponed by CLIENT PAUSE count as blocked, as in Redis.
  s.add("blocked_clients",
        ctx.server.blocking().blocked_clients() + ctx.server.client_pause().postponed());
  s.add("tracking_clients", ctx.server.tracking().clients());
  s.add("pubsub_clients", pubsub);
  s.add("watching_clients", watching);
  s.add("clients_in_timeout_table", with_timeout);
  s.add("total_watched_keys", ctx.server.watched_keys());
  BlockingRegistry::KeyCounts blocking = ctx.server.blocking().key_counts();
  s.add("total_blocking_keys", blocking.keys);
  s.add("total_blocking_keys_on_nokey", blocking.keys_on_nokey);
}

std::string kbps(double bytes_per_sec) {
  return fmt::format("{:.2f}", bytes_per_sec / 1024);
}

std::string ratio(uint64_t a, uint64_t b) {
  return fmt::format("{:.2f}", b ? static_cast<double>(a) / static_cast<double>(b) : 0.0);
}

int64_t diff(uint64_t a, uint64_t b) {
  return static_cast<int64_t>(a) - static_cast<int64_t>(b);
}

void memory_section(Context& ctx, Section& s) {
  const MemoryOverhead m = memory_overhead(ctx.server);
  const uint64_t used = m.used;
  const uint64_t rss = m.rss;
  const uint64_t allocated = m.allocator_allocated;
  const uint64_t active = m.allocator_active;
  const uint64_t maxmemory = ctx.server.config().maxmemory();
  s.add("used_memory", used);
  s.add("used_memory_human", human(used));
  s.add("used_memory_rss", rss);
  s.add("used_memory_rss_human", human(rss));
  s.add("used_memory_peak", m.peak);
  s.add("used_memory_peak_human", human(m.peak));
  s.add("used_memory_peak_perc", fmt::format("{:.2f}%", m.peak_perc));
  s.add("used_memory_overhead", m.overhead);
  s.add("used_memory_startup", m.startup);
  s.add("used_memory_dataset", m.dataset);
  s.add("used_memory_dataset_perc", fmt::format("{:.2f}%", m.dataset_perc));
  s.add("allocator_allocated", allocated);
  s.add("allocator_active", active);
  s.add("allocator_resident", rss);
  s.add("allocator_muzzy", 0);  // a jemalloc state; glibc has none (Redis built with libc says 0)
  s.add("total_system_memory", total_system_memory());
  s.add("total_system_memory_human", human(total_system_memory()));
  // No scripting engine: nothing is used by Lua or functions.
  s.add("used_memory_lua", 0);
  s.add("used_memory_vm_eval", 0);
  s.add("used_memory_lua_human", human(0));
  s.add("used_memory_scripts_eval", 0);
  s.add("number_of_cached_scripts", 0);
  s.add("number_of_functions", 0);
  s.add("number_of_libraries", 0);
  s.add("used_memory_vm_functions", 0);
  s.add("used_memory_vm_total", 0);
  s.add("used_memory_vm_total_human", human(0));
  s.add("used_memory_functions", 0);
  s.add("used_memory_scripts", 0);
  s.add("used_memory_scripts_human", human(0));
  s.add("maxmemory", maxmemory);
  s.add("maxmemory_human", human(maxmemory));
  s.add("maxmemory_policy", config::to_string(ctx.server.config().maxmemory_policy()));
  s.add("allocator_frag_ratio", ratio(active, allocated));
  s.add("allocator_frag_bytes", diff(active, allocated));
  s.add("allocator_rss_ratio", ratio(rss, active));
  s.add("allocator_rss_bytes", diff(rss, active));
  s.add("rss_overhead_ratio", ratio(rss, rss));
  s.add("rss_overhead_bytes", 0);
  s.add("mem_fragmentation_ratio", ratio(rss, used));
  s.add("mem_fragmentation_bytes", diff(rss, used));
  s.add("mem_not_counted_for_evict", ctx.server.memory_limit().not_counted_memory());
  // As Redis 7 splits its shared replication buffer: up to repl-backlog-size is the backlog's,
  // what replicas hold beyond that counts as theirs.
  s.add("mem_replication_backlog", m.repl_backlog);
  s.add("mem_total_replication_buffers", m.repl_buffers);
  s.add("mem_clients_slaves", m.clients_replicas);
  s.add("mem_clients_normal", m.clients_normal);
  s.add("mem_cluster_links", 0);
  s.add("mem_aof_buffer", m.aof_buffer);
  s.add("mem_allocator", "libc");
  // Redis's incremental rehashing; the keyspace's tables rehash at once, so nothing is held.
  s.add("mem_overhead_db_hashtable_rehashing", 0);
  s.add("active_defrag_running", 0);
  s.add("lazyfree_pending_objects", 0);
  s.add("lazyfreed_objects", 0);
}

void persistence_section(Context& ctx, Section& s) {
  PersistenceInfo p = persistence_info(ctx.server);
  s.add("loading", p.loading ? 1 : 0);
  s.add("async_loading", 0);
  s.add("current_cow_peak", 0);
  s.add("current_cow_size", 0);
  s.add("current_cow_size_age", 0);
  s.add("current_fork_perc", "0.00");
  s.add("current_save_keys_processed", 0);
  s.add("current_save_keys_total", 0);
  SnapshotInfo r = snapshot_info(ctx.server);
  s.add("rdb_changes_since_last_save", r.changes_since_last_save);
  s.add("rdb_bgsave_in_progress", r.bgsave_in_progress ? 1 : 0);
  s.add("rdb_last_save_time", r.last_save_time);
  s.add("rdb_last_bgsave_status", r.last_bgsave_ok ? "ok" : "err");
  s.add("rdb_last_bgsave_time_sec", r.last_bgsave_time_sec);
  s.add("rdb_current_bgsave_time_sec", r.current_bgsave_time_sec);
  s.add("rdb_saves", r.saves);
  s.add("rdb_last_cow_size", r.last_cow_size);
  s.add("rdb_last_load_keys_expired", r.last_load_keys_expired);
  s.add("rdb_last_load_keys_loaded", r.last_load_keys_loaded);
  s.add("aof_enabled", p.aof_enabled ? 1 : 0);
  s.add("aof_rewrite_in_progress", p.aof_rewrite_in_progress ? 1 : 0);
  s.add("aof_rewrite_scheduled", p.aof_rewrite_scheduled ? 1 : 0);
  s.add("aof_last_rewrite_time_sec", p.aof_last_rewrite_time_sec);
  s.add("aof_current_rewrite_time_sec", p.aof_current_rewrite_time_sec);
  s.add("aof_last_bgrewrite_status", p.aof_last_bgrewrite_ok ? "ok" : "err");
  s.add("aof_rewrites", p.aof_rewrites);
  s.add("aof_rewrites_consecutive_failures", p.aof_rewrites_consecutive_failures);
  s.add("aof_last_write_status", p.aof_last_write_ok ? "ok" : "err");
  s.add("aof_last_cow_size", p.aof_last_cow_size);
  s.add("module_fork_in_progress", 0);
  s.add("module_fork_last_cow_size", 0);
  if (p.aof_enabled) {
    s.add("aof_current_size", p.aof_current_size);
    s.add("aof_base_size", p.aof_base_size);
    s.add("aof_pending_rewrite", p.aof_pending_rewrite ? 1 : 0);
    s.add("aof_buffer_length", p.aof_buffer_length);
    s.add("aof_pending_bio_fsync", p.aof_pending_bio_fsync);
    s.add("aof_delayed_fsync", p.aof_delayed_fsync);
  }
  if (p.loading) {
    int64_t now_s = ctx.server.clock().now_ms() / 1000;
    double perc = p.loading_total_bytes ? 100.0 * static_cast<double>(p.loading_loaded_bytes) /
                                              static_cast<double>(p.loading_total_bytes)
                                        : 0;
    s.add("loading_start_time", p.loading_start_time);
    s.add("loading_total_bytes", p.loading_total_bytes);
    s.add("loading_rdb_used_mem", 0);
    s.add("loading_loaded_bytes", p.loading_loaded_bytes);
    s.add("loading_loaded_perc", fmt::format("{:.2f}", perc));
    s.add(
        "loading_eta_seconds",
        perc > 0 ? static_cast<int64_t>((now_s - p.loading_start_time) * (100 - perc) / perc) : 1);
  }
}

void stats_section(Context& ctx, Section& s) {
  const Stats& st = ctx.server.stats();
  s.add("total_connections_received", st.total_connections);
  s.add("total_commands_processed", st.total_commands);
  s.add("instantaneous_ops_per_sec", static_cast<long long>(st.ops_per_sec()));
  s.add("total_net_input_bytes", st.net_input_bytes);
  s.add("total_net_output_bytes", st.net_output_bytes);
  s.add("total_net_repl_input_bytes", 0);
  s.add("total_net_repl_output_bytes", 0);
  s.add("instantaneous_input_kbps", kbps(st.rate(&Stats::Sample::net_in)));
  s.add("instantaneous_output_kbps", kbps(st.rate(&Stats::Sample::net_out)));
  s.add("instantaneous_input_repl_kbps", "0.00");
  s.add("instantaneous_output_repl_kbps", "0.00");
  s.add("rejected_connections", st.rejected_connections);
  s.add("sync_full", st.sync_full);
  s.add("sync_partial_ok", st.sync_partial_ok);
  s.add("sync_partial_err", st.sync_partial_err);
  s.add("expired_subkeys", 0);  // hash-field expiry (7.4): streamd holds no hashes
  s.add("expired_keys", st.expired_keys);
  s.add("expired_stale_perc", fmt::format("{:.2f}", st.expired_stale_perc * 100));
  s.add("expired_time_cap_reached_count", st.expired_time_cap_reached);
  s.add("expire_cycle_cpu_milliseconds", st.expire_cycle_us / 1000);
  s.add("evicted_keys", st.evicted_keys);
  s.add("evicted_clients", 0);  // no maxmemory-clients
  s.add("evicted_scripts", 0);  // no scripting engine
  const int64_t now_us = engine::monotonic_us();
  s.add("total_eviction_exceeded_time", ctx.server.memory_limit().total_exceeded_ms(now_us));
  s.add("current_eviction_exceeded_time", ctx.server.memory_limit().current_exceeded_ms(now_us));
  s.add("keyspace_hits", st.keyspace_hits);
  s.add("keyspace_misses", st.keyspace_misses);
  s.add("pubsub_channels", ctx.server.pubsub().channel_count());
  s.add("pubsub_patterns", ctx.server.pubsub().pattern_count());
  s.add("pubsubshard_channels", ctx.server.pubsub().shard_channel_count());
  PersistenceInfo pi = persistence_info(ctx.server);
  SnapshotInfo ri = snapshot_info(ctx.server);
  // Two services fork; neither knows which forked last, so the AOF's time wins when both have.
  s.add("latest_fork_usec", pi.total_forks ? pi.latest_fork_usec : ri.latest_fork_usec);
  s.add("total_forks", pi.total_forks + ri.total_forks);
  s.add("migrate_cached_sockets", 0);
  s.add("slave_expires_tracked_keys", 0);
  s.add("active_defrag_hits", 0);
  s.add("active_defrag_misses", 0);
  s.add("active_defrag_key_hits", 0);
  s.add("active_defrag_key_misses", 0);
  s.add("total_active_defrag_time", 0);
  s.add("current_active_defrag_time", 0);
  s.add("tracking_total_keys", ctx.server.tracking().keys());
  s.add("tracking_total_items", ctx.server.tracking().items());
  s.add("tracking_total_prefixes", ctx.server.tracking().prefixes());
  s.add("unexpected_error_replies", 0);
  s.add("total_error_replies", st.total_error_replies);
  s.add("dump_payload_sanitizations", 0);
  s.add("total_reads_processed", st.total_reads);
  s.add("total_writes_processed", st.total_writes);
  s.add("io_threaded_reads_processed", 0);
  s.add("io_threaded_writes_processed", 0);
  s.add("client_query_buffer_limit_disconnections", st.client_query_limit_disconnections);
  s.add("client_output_buffer_limit_disconnections", st.client_output_limit_disconnections);
  s.add("reply_buffer_shrinks", st.reply_buffer_shrinks);
  s.add("reply_buffer_expands", st.reply_buffer_expands);
  s.add("eventloop_cycles", st.eventloop_cycles);
  s.add("eventloop_duration_sum", st.eventloop_us);
  s.add("eventloop_duration_cmd_sum", st.eventloop_cmd_us);
  s.add("instantaneous_eventloop_cycles_per_sec",
        static_cast<long long>(st.rate(&Stats::Sample::cycles)));
  s.add("instantaneous_eventloop_duration_usec", st.recent_cycle_us());
  s.add("acl_access_denied_auth", st.acl_denied_auth);
  // Only the default user, with no command, key or channel rules: nothing else can be denied.
  s.add("acl_access_denied_cmd", st.acl_denied_cmd);
  s.add("acl_access_denied_key", st.acl_denied_key);
  s.add("acl_access_denied_channel", st.acl_denied_channel);
  // streamd's own (STREAMD.DEADLETTER), after Redis's fields: entries moved to dead-letter
  // streams since the server started.
  s.add("streamd_dead_lettered_entries", st.dead_lettered);
}

// Redis 7.0's order; the replica side's fields (master_host ... replica_announced) come right
// after role, min_slaves_good_slaves only when min-replicas-to-write and -max-lag are both set.
void replication_section(Context& ctx, Section& s) {
  ReplicationInfo r = replication_info(ctx.server);
  s.add("role", r.role);
  for (const auto& [name, value] : r.replica_fields) s.add(name, value);
  s.add("connected_slaves", r.replicas.size());
  if (r.good_replicas >= 0) s.add("min_slaves_good_slaves", r.good_replicas);
  for (std::size_t i = 0; i < r.replicas.size(); ++i) {
    const ReplicaLinkInfo& l = r.replicas[i];
    s.add(fmt::format("slave{}", i), fmt::format("ip={},port={},state={},offset={},lag={}", l.ip,
                                                 l.port, l.state, l.ack_offset, l.lag_s));
  }
  s.add("master_failover_state", r.failover_state);
  s.add("master_replid", r.replid);
  s.add("master_replid2", r.replid2);
  s.add("master_repl_offset", r.offset);
  s.add("second_repl_offset", r.second_offset);
  s.add("repl_backlog_active", r.backlog_active ? 1 : 0);
  s.add("repl_backlog_size", r.backlog_size);
  s.add("repl_backlog_first_byte_offset", r.backlog_first_byte_offset);
  s.add("repl_backlog_histlen", r.backlog_histlen);
}

void cpu_section(Context&, Section& s) {
  struct rusage self {
  }, children{}, thread{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_THREAD, &thread);  // INFO runs on the engine thread
  s.add("used_cpu_sys", fmt::format("{:.6f}", tv_seconds(self.ru_stime)));
  s.add("used_cpu_user", fmt::format("{:.6f}", tv_seconds(self.ru_utime)));
  s.add("used_cpu_sys_children", fmt::format("{:.6f}", tv_seconds(children.ru_stime)));
  s.add("used_cpu_user_children", fmt::format("{:.6f}", tv_seconds(children.ru_utime)));
  s.add("used_cpu_sys_main_thread", fmt::format("{:.6f}", tv_seconds(thread.ru_stime)));
  s.add("used_cpu_user_main_thread", fmt::format("{:.6f}", tv_seconds(thread.ru_utime)));
}

void modules_section(Context&, Section&) {}

void commandstats_section(Context& ctx, Section& s) {
  for (const auto& [name, cs] : ctx.server.stats().commands) {
    if (cs.calls == 0 && cs.failed_calls == 0 && cs.rejected_calls == 0) continue;
    double per_call = cs.calls ? static_cast<double>(cs.usec) / static_cast<double>(cs.calls) : 0;
    s.add("cmdstat_" + name,
          fmt::format("calls={},usec={},usec_per_call={:.2f},rejected_calls={},failed_calls={}",
                      cs.calls, cs.usec, per_call, cs.rejected_calls, cs.failed_calls));
  }
}

void errorstats_section(Context& ctx, Section& s) {
  for (const auto& [code, count] : ctx.server.stats().errors) {
    s.add("errorstat_" + code, fmt::format("count={}", count));
  }
}

// One line per command with a latency histogram, in name order (Redis: its command table's hash
// order): latency_percentiles_usec_<name>:p50=1.003,p99=...,p99.9=... for the percentiles of
// latency-tracking-info-percentiles, each printed as CONFIG GET shows it. Empty while
// latency-tracking is off (the histograms are kept, as in Redis).
void latencystats_section(Context& ctx, Section& s) {
  if (!ctx.server.config().latency_tracking()) return;
  const auto& names = ctx.server.config().latency_tracking_info_percentiles();
  std::vector<double> pcts;
  for (const auto& p : names) pcts.push_back(std::strtod(p.c_str(), nullptr));
  std::string value;
  for (const auto& [name, cs] : ctx.server.stats().commands) {
    if (!cs.histogram) continue;
    value.clear();
    for (std::size_t i = 0; i < pcts.size(); ++i) {
      if (i) value += ',';
      double usec = static_cast<double>(cs.histogram->value_at_percentile(pcts[i])) / 1000.0;
      fmt::format_to(std::back_inserter(value), "p{}={:.3f}", names[i], usec);
    }
    s.add("latency_percentiles_usec_" + name, value);
  }
}

void cluster_section(Context&, Section& s) {
  s.add("cluster_enabled", 0);
}

void keyspace_section(Context& ctx, Section& s) {
  auto& ks = ctx.server.keyspace();
  for (int i = 0; i < ks.databases(); ++i) {
    auto& db = ks.db(i);
    if (db.size() == 0) continue;
    // subexpiry (Redis 7.4+): keys with hash fields that expire; streamd has no hashes.
    s.add(fmt::format("db{}", i), fmt::format("keys={},expires={},avg_ttl={},subexpiry=0",
                                              db.size(), db.expires(), db.avg_ttl_ms()));
  }
}

struct SectionDef {
  std::string_view name;  // lowercase, as INFO arguments name it
  std::string_view title;
  bool in_default;
  void (*write)(Context&, Section&);
};

constexpr SectionDef kSections[] = {
    {"server", "Server", true, server_section},
    {"clients", "Clients", true, clients_section},
    {"memory", "Memory", true, memory_section},
    {"persistence", "Persistence", true, persistence_section},
    {"stats", "Stats", true, stats_section},
    {"replication", "Replication", true, replication_section},
    {"cpu", "CPU", true, cpu_section},
    {"modules", "Modules", true, modules_section},
    {"commandstats", "Commandstats", false, commandstats_section},
    {"errorstats", "Errorstats", true, errorstats_section},
    {"latencystats", "Latencystats", false, latencystats_section},
    {"cluster", "Cluster", true, cluster_section},
    {"keyspace", "Keyspace", true, keyspace_section},
};

}  // namespace

std::string info_text(Context& ctx, std::span<const std::string_view> sections) {
  bool wanted[std::size(kSections)] = {};
  auto select_default = [&] {
    for (std::size_t i = 0; i < std::size(kSections); ++i) wanted[i] |= kSections[i].in_default;
  };
  if (sections.empty()) select_default();
  for (std::string_view arg : sections) {
    if (iequals(arg, "default")) {
      select_default();
    } else if (iequals(arg, "all") || iequals(arg, "everything")) {
      for (bool& w : wanted) w = true;
    } else {
      for (std::size_t i = 0; i < std::size(kSections); ++i) {
        if (iequals(arg, kSections[i].name)) wanted[i] = true;
      }
    }
  }
  std::string out;
  bool first = true;
  for (std::size_t i = 0; i < std::size(kSections); ++i) {
    if (!wanted[i]) continue;
    if (!first) out += "\r\n";
    first = false;
    out += "# ";
    out += kSections[i].title;
    out += "\r\n";
    Section s(out);
    kSections[i].write(ctx, s);
  }
  return out;
}

void info(Context& ctx) {
  ctx.reply.verbatim(info_text(ctx, ctx.argv.subspan(1)));
}

}  // namespace streamd::cmd
