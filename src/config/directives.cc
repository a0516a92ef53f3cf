// streamd's directives table. One row per directive; see directive.h for the row builders.
// Bounds, defaults and mutability are redis-server 7.0.15's unless a comment says otherwise.
#include <algorithm>
#include <array>

#include "messages.h"
#include "streamd/config/directive.h"

namespace streamd::config {

namespace {

constexpr EnumName kLogLevels[] = {
    {"debug", static_cast<std::int64_t>(LogLevel::kDebug)},
    {"verbose", static_cast<std::int64_t>(LogLevel::kVerbose)},
    {"notice", static_cast<std::int64_t>(LogLevel::kNotice)},
    {"warning", static_cast<std::int64_t>(LogLevel::kWarning)},
};

// Listed in Redis's order, which error messages show.
constexpr EnumName kAppendFsync[] = {
    {"everysec", static_cast<std::int64_t>(AppendFsync::kEverySec)},
    {"always", static_cast<std::int64_t>(AppendFsync::kAlways)},
    {"no", static_cast<std::int64_t>(AppendFsync::kNo)},
};

constexpr EnumName kMaxmemoryPolicies[] = {
    {"volatile-lru", static_cast<std::int64_t>(MaxmemoryPolicy::kVolatileLru)},
    {"volatile-lfu", static_cast<std::int64_t>(MaxmemoryPolicy::kVolatileLfu)},
    {"volatile-random", static_cast<std::int64_t>(MaxmemoryPolicy::kVolatileRandom)},
    {"volatile-ttl", static_cast<std::int64_t>(MaxmemoryPolicy::kVolatileTtl)},
    {"allkeys-lru", static_cast<std::int64_t>(MaxmemoryPolicy::kAllkeysLru)},
    {"allkeys-lfu", static_cast<std::int64_t>(MaxmemoryPolicy::kAllkeysLfu)},
    {"allkeys-random", static_cast<std::int64_t>(MaxmemoryPolicy::kAllkeysRandom)},
    {"noeviction", static_cast<std::int64_t>(MaxmemoryPolicy::kNoEviction)},
};

// tls-auth-clients: whether a TLS client must present a certificate the CA list verifies.
constexpr EnumName kTlsAuthClients[] = {
    {"no", static_cast<std::int64_t>(TlsAuthClients::kNo)},
    {"yes", static_cast<std::int64_t>(TlsAuthClients::kYes)},
    {"optional", static_cast<std::int64_t>(TlsAuthClients::kOptional)},
};

constexpr EnumName kLocalPermission[] = {
    {"no", static_cast<std::int64_t>(LocalPermission::kNo)},
    {"yes", static_cast<std::int64_t>(LocalPermission::kYes)},
    {"local", static_cast<std::int64_t>(LocalPermission::kLocal)},
};

// ---- enumerations of Redis's directives that streamd accepts without acting on them ----
constexpr EnumName kAclPubsubDefault[] = {{"allchannels", 1}, {"resetchannels", 0}};
constexpr EnumName kEndpointTypes[] = {{"ip", 0}, {"hostname", 1}, {"unknown-endpoint", 2}};
// "yes" is "relative" (CONFIG GET shows the first name of a value, as Redis).
constexpr EnumName kOomScoreAdj[] = {{"no", 0}, {"yes", 1}, {"relative", 1}, {"absolute", 2}};
constexpr EnumName kPropagationErrorBehavior[] = {
    {"ignore", 0}, {"panic", 1}, {"panic-on-replicas", 2}};
constexpr EnumName kDisklessLoad[] = {{"disabled", 0}, {"on-empty-db", 1}, {"swapdb", 2}};
constexpr EnumName kSanitizeDumpPayload[] = {{"no", 0}, {"yes", 1}, {"clients", 2}};
constexpr EnumName kSupervised[] = {{"upstart", 1}, {"systemd", 2}, {"auto", 3}, {"no", 0}};
constexpr EnumName kSyslogFacility[] = {{"user", 8},     {"local0", 128}, {"local1", 136},
                                        {"local2", 144}, {"local3", 152}, {"local4", 160},
                                        {"local5", 168}, {"local6", 176}, {"local7", 184}};

std::string_view name_in(std::span<const EnumName> names, std::int64_t v) {
  for (const auto& e : names) {
    if (e.value == v) return e.name;
  }
  return {};
}

// Redis stores hz clamped to 1..500 (CONFIG GET shows the clamped value).
std::optional<std::string> clamp_hz(Value& v) {
  auto& hz = std::get<std::int64_t>(v);
  if (hz < 1) hz = 1;
  if (hz > 500) hz = 500;
  return std::nullopt;
}

std::optional<std::string> check_append_filename(Value& v) {
  const auto& s = std::get<std::string>(v);
  if (s.empty()) return std::string(msg::kAppendFilenameEmpty);
  if (s.find('/') != std::string::npos) return std::string(msg::kAppendFilenamePath);
  return std::nullopt;
}

std::optional<std::string> check_append_dirname(Value& v) {
  const auto& s = std::get<std::string>(v);
  if (s.empty()) return std::string(msg::kAppendDirnameEmpty);
  if (s.find('/') != std::string::npos) return std::string(msg::kAppendDirnamePath);
  return std::nullopt;
}

std::optional<std::string> check_db_filename(Value& v) {
  const auto& s = std::get<std::string>(v);
  if (s.find_first_of("/\\") != std::string::npos) return std::string(msg::kDbfilenamePath);
  return std::nullopt;
}

// RDB 10 is what Redis 7.0 reads (streams as type 19), 12 what Redis 7.2+ reads; 11 is not
// written (persist/rdb/rdb.h).
std::optional<std::string> check_rdb_version(Value& v) {
  auto n = std::get<std::int64_t>(v);
  if (n != 10 && n != 12) return std::string(msg::kRdbVersion);
  return std::nullopt;
}

// cluster-enabled is accepted as "no" only: streamd is never a cluster node, and a server that
// took "yes" and answered as a standalone one would mislead cluster clients.
std::optional<std::string> check_not_cluster(Value& v) {
  if (std::get<bool>(v)) return std::string(msg::kClusterMode);
  return std::nullopt;
}

// proc-title-template: Redis's variables only, braces balanced, something left once {title}
// and {server-mode} (both may expand to nothing) are taken out. streamd does not set its
// process title; the check keeps a file Redis would refuse from loading here.
std::optional<std::string> check_proc_title(Value& v) {
  static constexpr std::array<std::string_view, 7> kVariables = {
      "{title}",    "{listen-addr}", "{server-mode}", "{port}",
      "{tls-port}", "{unixsocket}",  "{config-file}"};
  const auto& t = std::get<std::string>(v);
  bool solid = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '}') return std::string(msg::kProcTitleTemplate);
    if (t[i] != '{') {
      solid = solid || t[i] != ' ';
      continue;
    }
    const std::size_t end = t.find('}', i);
    if (end == std::string::npos) return std::string(msg::kProcTitleTemplate);
    const std::string_view var = std::string_view(t).substr(i, end - i + 1);
    if (std::find(kVariables.begin(), kVariables.end(), var) == kVariables.end()) {
      return std::string(msg::kProcTitleTemplate);
    }
    solid = solid || (var != "{title}" && var != "{server-mode}");
    i = end;
  }
  if (!solid) return std::string(msg::kProcTitleTemplate);
  return std::nullopt;
}

constexpr std::uint64_t kMb = 1024 * 1024;

// Redis 5's replica names stay accepted as aliases (CONFIG GET answers under the name asked).
constexpr std::string_view kPingReplicaAliases[] = {"repl-ping-slave-period"};
constexpr std::string_view kMinReplicasAliases[] = {"min-slaves-to-write"};
constexpr std::string_view kMinReplicasLagAliases[] = {"min-slaves-max-lag"};
constexpr std::string_view kReplicaofAliases[] = {"slaveof"};
constexpr std::string_view kReplicaReadOnlyAliases[] = {"slave-read-only"};
constexpr std::string_view kServeStaleAliases[] = {"slave-serve-stale-data"};
constexpr std::string_view kReplicaPriorityAliases[] = {"slave-priority"};
constexpr std::string_view kAnnounceIpAliases[] = {"slave-announce-ip"};
constexpr std::string_view kAnnouncePortAliases[] = {"slave-announce-port"};
constexpr std::string_view kBusyReplyAliases[] = {"lua-time-limit"};
constexpr std::string_view kNoFailoverAliases[] = {"cluster-slave-no-failover"};
constexpr std::string_view kValidityFactorAliases[] = {"cluster-slave-validity-factor"};
constexpr std::string_view kHashEntriesAliases[] = {"hash-max-ziplist-entries"};
constexpr std::string_view kHashValueAliases[] = {"hash-max-ziplist-value"};
constexpr std::string_view kListSizeAliases[] = {"list-max-ziplist-size"};
constexpr std::string_view kZsetEntriesAliases[] = {"zset-max-ziplist-entries"};
constexpr std::string_view kZsetValueAliases[] = {"zset-max-ziplist-value"};
constexpr std::string_view kIgnoreMaxmemoryAliases[] = {"slave-ignore-maxmemory"};
constexpr std::string_view kLazyFlushAliases[] = {"slave-lazy-flush"};
constexpr std::string_view kServerCpulistAliases[] = {"server_cpulist"};
constexpr std::string_view kBioCpulistAliases[] = {"bio_cpulist"};
constexpr std::string_view kAofRewriteCpulistAliases[] = {"aof_rewrite_cpulist"};
constexpr std::string_view kBgsaveCpulistAliases[] = {"bgsave_cpulist"};

const Directive kDirectives[] = {
    // ---- network ----
    int_row("port", "6379", 0, 65535),
    special_row("bind", "127.0.0.1 -::1", kBindCodec),
    string_row("unixsocket", "").immutable(),
    octal_row("unixsocketperm", "0", 0, 0777).immutable(),
    int_row("tcp-backlog", "511", 0, kIntMax).immutable(),
    // streamd's own: batch client reads and writes through io_uring when the kernel allows it.
    bool_row("io-uring", "yes").immutable(),
    int_row("tcp-keepalive", "300", 0, kIntMax),
    int_row("timeout", "0", 0, kIntMax),
    int_row("maxclients", "10000", 1, kUintMax),
    memory_row("proto-max-bulk-len", "512mb", kMb, kLongMax),
    memory_row("client-query-buffer-limit", "1gb", kMb, kLongMax),
    // streamd's normal clients have a 256mb hard limit (Redis: none).
    special_row("client-output-buffer-limit",
                "normal 256mb 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60",
                kOutputBufferLimitCodec),

    // ---- TLS (Redis's names and defaults; read at startup: streamd does not reload them) ----
    int_row("tls-port", "0", 0, 65535).immutable(),
    string_row("tls-cert-file", "").immutable(),
    string_row("tls-key-file", "").immutable(),
    string_row("tls-key-file-pass", "").immutable().sensitive(),
    // The certificate a replica's link presents to its master instead of tls-cert-file (Redis's
    // outgoing-connection identity; empty = tls-cert-file / -key-file / -key-file-pass).
    string_row("tls-client-cert-file", "").immutable(),
    string_row("tls-client-key-file", "").immutable(),
    string_row("tls-client-key-file-pass", "").immutable().sensitive(),
    string_row("tls-ca-cert-file", "").immutable(),
    string_row("tls-ca-cert-dir", "").immutable(),
    enum_row("tls-auth-clients", "yes", kTlsAuthClients).immutable(),
    string_row("tls-protocols", "").immutable(),
    string_row("tls-ciphers", "").immutable(),
    string_row("tls-ciphersuites", "").immutable(),
    bool_row("tls-prefer-server-ciphers", "no").immutable(),
    bool_row("tls-session-caching", "yes").immutable(),
    int_row("tls-session-cache-size", "20480", 0, kIntMax).immutable(),
    int_row("tls-session-cache-timeout", "300", 0, kIntMax).immutable(),
    // A replica's link to its master goes over TLS (tls-client-cert-file/-key-file, or else
    // tls-cert-file/-key-file, are its client certificate; tls-ca-cert-file/-dir verify the
    // master's). Read at each connection attempt.
    bool_row("tls-replication", "no"),

    // ---- REST API (Upstash's conventions, streamd's own directives; rest-port 0 = off) ----
    int_row("rest-port", "0", 0, 65535).immutable(),
    special_row("rest-bind", "127.0.0.1 -::1", kBindCodec).immutable(),
    string_row("rest-token", ""),
    string_row("rest-readonly-token", ""),
    bool_row("rest-tls", "no").immutable(),
    memory_row("rest-max-body-size", "64mb", 1024, kLongMax),
    int_row("rest-idle-timeout", "60", 0, kIntMax),

    // ---- Prometheus metrics (streamd's own; metrics-port 0 = only on the REST port, if any) ----
    int_row("metrics-port", "0", 0, 65535).immutable(),
    special_row("metrics-bind", "127.0.0.1 -::1", kBindCodec).immutable(),
    string_row("metrics-token", ""),
    bool_row("metrics-tls", "no").immutable(),
    special_row("metrics-streams", "*", kGlobListCodec),
    int_row("metrics-max-streams", "1000", 0, kIntMax),

    // ---- general ----
    string_row("dir", "./").protected_config(),
    int_row("databases", "16", 1, kIntMax).immutable(),
    string_row("requirepass", "").sensitive(),
    string_row("aclfile", "").immutable(),
    enum_row("loglevel", "notice", kLogLevels),
    string_row("logfile", "").immutable(),
    bool_row("daemonize", "no").immutable(),
    string_row("pidfile", "").immutable(),
    int_row("hz", "10", 0, kIntMax).with_check(clamp_hz),
    // Scales active expiry's keys per loop, tolerated stale share and time (Server::cron).
    int_row("active-expire-effort", "1", 1, 10),
    // Whether cron moves a key table's resize on (Server::cron; Dict's incremental rehash).
    bool_row("activerehashing", "yes"),
    special_row("notify-keyspace-events", "", kNotifyEventsCodec),
    enum_row("enable-debug-command", "no", kLocalPermission).immutable(),
    // Guards MODULE LOAD / LOADEX / UNLOAD (which fail anyway: streamd loads no modules).
    enum_row("enable-module-command", "no", kLocalPermission).immutable(),

    // ---- memory ----
    memory_row("maxmemory", "0", 0, kULongMax),
    enum_row("maxmemory-policy", "noeviction", kMaxmemoryPolicies),

    // ---- streams ----
    int_row("stream-node-max-entries", "100", 0, kLongMax),
    memory_row("stream-node-max-bytes", "4096", 0, kLongMax),

    // ---- persistence: streamd is durable by default (appendonly yes, no RDB snapshots) ----
    special_row("save", "", kSaveCodec),
    string_row("dbfilename", "dump.rdb").protected_config().with_check(check_db_filename),
    bool_row("stop-writes-on-bgsave-error", "yes"),
    bool_row("appendonly", "yes"),
    enum_row("appendfsync", "everysec", kAppendFsync),
    string_row("appenddirname", "appendonlydir").immutable().with_check(check_append_dirname),
    string_row("appendfilename", "appendonly.aof").immutable().with_check(check_append_filename),
    bool_row("aof-load-truncated", "yes"),
    int_row("auto-aof-rewrite-percentage", "100", 0, kIntMax),
    memory_row("auto-aof-rewrite-min-size", "64mb", 0, kLongMax),
    bool_row("aof-use-rdb-preamble", "no"),

    // ---- replication, master side (see repl/master.h) ----
    // The RDB version of full syncs (and, with issue 14, SAVE/BGSAVE/DUMP): a replica does not
    // say which Redis it runs, so a redis-server 7.0 replica needs rdb-version 10.
    int_row("rdb-version", "12", 10, 12).with_check(check_rdb_version),
    // RDB output (full syncs, DUMP, SAVE/BGSAVE): LZF for strings, the CRC64 trailer. Redis
    // reads rdbchecksum only at startup; so does streamd.
    bool_row("rdbcompression", "yes"),
    bool_row("rdbchecksum", "yes").immutable(),
    // streamd's own: an input RDB with lists, hashes, sets, sorted sets or modules loads the
    // rest (each skipped key logged) instead of stopping startup.
    bool_row("rdb-skip-unsupported-types", "no"),
    memory_row("repl-backlog-size", "1mb", 1, kLongMax),
    int_row("repl-backlog-ttl", "3600", 0, kIntMax),
    bool_row("repl-diskless-sync", "yes"),
    int_row("repl-diskless-sync-delay", "5", 0, kIntMax),
    int_row("repl-diskless-sync-max-replicas", "0", 0, kIntMax),
    int_row("repl-ping-replica-period", "10", 1, kIntMax).with_aliases(kPingReplicaAliases),
    int_row("repl-timeout", "60", 1, kIntMax),
    int_row("min-replicas-to-write", "0", 0, kIntMax).with_aliases(kMinReplicasAliases),
    int_row("min-replicas-max-lag", "10", 0, kIntMax).with_aliases(kMinReplicasLagAliases),
    // The address a replica's link to its master leaves from ("" = the kernel's choice).
    string_row("bind-source-addr", ""),
    // The replica side. replicaof is "<host> <port>" or empty; REPLICAOF changes it at runtime
    // (CONFIG SET refuses it, as Redis's immutable config).
    special_row("replicaof", "", kReplicaofCodec).immutable().with_aliases(kReplicaofAliases),
    string_row("masterauth", "").sensitive(),
    string_row("masteruser", "").sensitive(),
    bool_row("replica-read-only", "yes").with_aliases(kReplicaReadOnlyAliases),
    bool_row("replica-serve-stale-data", "yes").with_aliases(kServeStaleAliases),
    int_row("replica-priority", "100", 0, kIntMax).with_aliases(kReplicaPriorityAliases),
    string_row("replica-announce-ip", "").with_aliases(kAnnounceIpAliases),
    int_row("replica-announce-port", "0", 0, 65535).with_aliases(kAnnouncePortAliases),
    bool_row("replica-announced", "yes"),

    // ---- shutdown (commands/core/shutdown.h): how long a master waits for its replicas, and
    // the SHUTDOWN flags SIGINT / SIGTERM run with ----
    special_row("shutdown-on-sigint", "default", kShutdownOnSignalCodec),
    special_row("shutdown-on-sigterm", "default", kShutdownOnSignalCodec),
    int_row("shutdown-timeout", "10", 0, kIntMax),
    // ---- diagnostics ----
    int_row("slowlog-log-slower-than", "10000", -1, kLongMax),
    int_row("slowlog-max-len", "128", 0, kLongMax),
    bool_row("latency-tracking", "yes"),
    special_row("latency-tracking-info-percentiles", "50 99 99.9", kPercentilesCodec),
    int_row("latency-monitor-threshold", "0", 0, kLongMax),

    // ---- security (Redis's) ----
    // Without requirepass, TCP clients from other than a loopback address get Redis's -DENIED
    // line and are closed (net/listener.cc).
    bool_row("protected-mode", "yes"),
    // CONFIG SET of the protected directives (dir, dbfilename): no, yes, or local clients only.
    enum_row("enable-protected-configs", "no", kLocalPermission).immutable(),

    // ---- Redis's directives that streamd accepts and does not act on ----
    // So that a stock redis.conf (Debian's, Redis's own) loads unchanged. Types, bounds,
    // defaults and mutability are Redis's (7.0.15's; 7.2/7.4 for the directives those added;
    // maxmemory-samples takes 7.4's bound of 64). Left out on purpose, so that a file naming
    // them stops startup: maxmemory-clients (no client eviction), loadmodule, and Redis's hidden
    // test-only directives. (The two ACL rows first do act: they sort with their neighbours.)
    enum_row("acl-pubsub-default", "resetchannels", kAclPubsubDefault),
    int_row("acllog-max-len", "128", 0, kLongMax),
    bool_row("activedefrag", "no").no_effect(),
    int_row("active-defrag-cycle-max", "25", 1, 99).no_effect(),
    int_row("active-defrag-cycle-min", "1", 1, 99).no_effect(),
    memory_row("active-defrag-ignore-bytes", "100mb", 1, kLongMax).no_effect(),
    int_row("active-defrag-max-scan-fields", "1000", 1, kLongMax).no_effect(),
    int_row("active-defrag-threshold-lower", "10", 0, 1000).no_effect(),
    int_row("active-defrag-threshold-upper", "100", 0, 1000).no_effect(),
    bool_row("always-show-logo", "no").immutable(),
    string_row("aof-rewrite-cpulist", "")
        .immutable()
        .with_aliases(kAofRewriteCpulistAliases)
        .no_effect(),
    bool_row("aof-rewrite-incremental-fsync", "yes").no_effect(),
    bool_row("aof-timestamp-enabled", "no").no_effect(),
    string_row("bgsave-cpulist", "").immutable().with_aliases(kBgsaveCpulistAliases).no_effect(),
    string_row("bio-cpulist", "").immutable().with_aliases(kBioCpulistAliases).no_effect(),
    int_row("busy-reply-threshold", "5000", 0, kLongMax)
        .with_aliases(kBusyReplyAliases)
        .no_effect(),
    bool_row("cluster-allow-pubsubshard-when-down", "yes").no_effect(),
    bool_row("cluster-allow-reads-when-down", "no").no_effect(),
    bool_row("cluster-allow-replica-migration", "yes").no_effect(),
    int_row("cluster-announce-bus-port", "0", 0, 65535).no_effect(),
    string_row("cluster-announce-hostname", "").no_effect(),
    string_row("cluster-announce-human-nodename", "").no_effect(),
    string_row("cluster-announce-ip", "").no_effect(),
    int_row("cluster-announce-port", "0", 0, 65535).no_effect(),
    int_row("cluster-announce-tls-port", "0", 0, 65535).no_effect(),
    string_row("cluster-config-file", "nodes.conf").immutable().no_effect(),
    bool_row("cluster-enabled", "no").immutable().with_check(check_not_cluster).no_effect(),
    memory_row("cluster-link-sendbuf-limit", "0", 0, kULongMax).no_effect(),
    int_row("cluster-migration-barrier", "1", 0, kIntMax).no_effect(),
    int_row("cluster-node-timeout", "15000", 0, kLongMax).no_effect(),
    int_row("cluster-port", "0", 0, 65535).immutable().no_effect(),
    enum_row("cluster-preferred-endpoint-type", "ip", kEndpointTypes).no_effect(),
    bool_row("cluster-replica-no-failover", "no").with_aliases(kNoFailoverAliases).no_effect(),
    int_row("cluster-replica-validity-factor", "10", 0, kIntMax)
        .with_aliases(kValidityFactorAliases)
        .no_effect(),
    bool_row("cluster-require-full-coverage", "yes").no_effect(),
    bool_row("crash-log-enabled", "yes").no_effect(),
    bool_row("crash-memcheck-enabled", "yes").no_effect(),
    bool_row("disable-thp", "yes").immutable().no_effect(),
    bool_row("dynamic-hz", "yes").no_effect(),
    int_row("hash-max-listpack-entries", "512", 0, kLongMax)
        .with_aliases(kHashEntriesAliases)
        .no_effect(),
    memory_row("hash-max-listpack-value", "64", 0, kLongMax)
        .with_aliases(kHashValueAliases)
        .no_effect(),
    bool_row("hide-user-data-from-log", "no").no_effect(),
    memory_row("hll-sparse-max-bytes", "3000", 0, kLongMax).no_effect(),
    string_row("ignore-warnings", "").no_effect(),
    int_row("io-threads", "1", 1, 128).immutable().no_effect(),
    bool_row("io-threads-do-reads", "no").immutable().no_effect(),
    bool_row("jemalloc-bg-thread", "yes").no_effect(),
    bool_row("lazyfree-lazy-eviction", "no"),
    bool_row("lazyfree-lazy-expire", "no").no_effect(),
    bool_row("lazyfree-lazy-server-del", "no").no_effect(),
    bool_row("lazyfree-lazy-user-del", "no").no_effect(),
    bool_row("lazyfree-lazy-user-flush", "no"),
    int_row("lfu-decay-time", "1", 0, kIntMax),
    int_row("lfu-log-factor", "10", 0, kIntMax),
    int_row("list-compress-depth", "0", 0, kIntMax).no_effect(),
    int_row("list-max-listpack-size", "-2", -kIntMax - 1, kIntMax)
        .with_aliases(kListSizeAliases)
        .no_effect(),
    string_row("locale-collate", "").no_effect(),
    int_row("max-new-connections-per-cycle", "10", 1, 1000).no_effect(),
    int_row("max-new-tls-connections-per-cycle", "1", 1, 1000).no_effect(),
    int_row("maxmemory-eviction-tenacity", "10", 0, 100),
    int_row("maxmemory-samples", "5", 1, 64),
    bool_row("no-appendfsync-on-rewrite", "no").no_effect(),
    enum_row("oom-score-adj", "no", kOomScoreAdj).no_effect(),
    special_row("oom-score-adj-values", "0 200 800", kOomScoreAdjValuesCodec).no_effect(),
    string_row("proc-title-template", "{title} {listen-addr} {server-mode}")
        .with_check(check_proc_title)
        .no_effect(),
    enum_row("propagation-error-behavior", "ignore", kPropagationErrorBehavior).no_effect(),
    bool_row("rdb-del-sync-files", "no").no_effect(),
    bool_row("rdb-save-incremental-fsync", "yes").no_effect(),
    bool_row("repl-disable-tcp-nodelay", "no").no_effect(),
    enum_row("repl-diskless-load", "disabled", kDisklessLoad).no_effect(),
    bool_row("replica-ignore-disk-write-errors", "no").no_effect(),
    bool_row("replica-ignore-maxmemory", "yes").with_aliases(kIgnoreMaxmemoryAliases),
    bool_row("replica-lazy-flush", "no").with_aliases(kLazyFlushAliases).no_effect(),
    enum_row("sanitize-dump-payload", "no", kSanitizeDumpPayload).no_effect(),
    string_row("server-cpulist", "").immutable().with_aliases(kServerCpulistAliases).no_effect(),
    int_row("set-max-intset-entries", "512", 0, kLongMax).no_effect(),
    int_row("set-max-listpack-entries", "128", 0, kLongMax).no_effect(),
    int_row("set-max-listpack-value", "64", 0, kLongMax).no_effect(),
    bool_row("set-proc-title", "yes").immutable().no_effect(),
    int_row("socket-mark-id", "0", 0, kUintMax).immutable().no_effect(),
    enum_row("supervised", "no", kSupervised).immutable().no_effect(),
    bool_row("syslog-enabled", "no").immutable().no_effect(),
    enum_row("syslog-facility", "local0", kSyslogFacility).immutable().no_effect(),
    string_row("syslog-ident", "redis").immutable().no_effect(),
    bool_row("tls-cluster", "no").no_effect(),
    string_row("tls-dh-params-file", "").no_effect(),
    int_row("tracking-table-max-keys", "1000000", 0, kLongMax),
    int_row("zset-max-listpack-entries", "128", 0, kLongMax)
        .with_aliases(kZsetEntriesAliases)
        .no_effect(),
    memory_row("zset-max-listpack-value", "64", 0, kLongMax)
        .with_aliases(kZsetValueAliases)
        .no_effect(),
};

}  // namespace

std::span<const Directive> builtin_directives() {
  return kDirectives;
}

std::string_view to_string(LogLevel v) {
  return name_in(kLogLevels, static_cast<std::int64_t>(v));
}
std::string_view to_string(AppendFsync v) {
  return name_in(kAppendFsync, static_cast<std::int64_t>(v));
}
std::string_view to_string(MaxmemoryPolicy v) {
  return name_in(kMaxmemoryPolicies, static_cast<std::int64_t>(v));
}
std::string_view to_string(TlsAuthClients v) {
  return name_in(kTlsAuthClients, static_cast<std::int64_t>(v));
}
std::string_view to_string(LocalPermission v) {
  return name_in(kLocalPermission, static_cast<std::int64_t>(v));
}

}  // namespace streamd::config
