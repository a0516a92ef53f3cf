// streamd's directives table. One row per directive; see directive.h for the row builders.
// Bounds, defaults and mutability are redis-server 7.0.15's unless a comment says otherwise.
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

constexpr EnumName kDebugCommand[] = {
    {"no", static_cast<std::int64_t>(DebugCommand::kNo)},
    {"yes", static_cast<std::int64_t>(DebugCommand::kYes)},
    {"local", static_cast<std::int64_t>(DebugCommand::kLocal)},
};

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
    string_row("tls-key-file-pass", "").immutable(),
    // The certificate a replica's link presents to its master instead of tls-cert-file (Redis's
    // outgoing-connection identity; empty = tls-cert-file / -key-file / -key-file-pass).
    string_row("tls-client-cert-file", "").immutable(),
    string_row("tls-client-key-file", "").immutable(),
    string_row("tls-client-key-file-pass", "").immutable(),
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
    string_row("requirepass", ""),
    enum_row("loglevel", "notice", kLogLevels),
    string_row("logfile", "").immutable(),
    bool_row("daemonize", "no").immutable(),
    string_row("pidfile", "").immutable(),
    int_row("hz", "10", 0, kIntMax).with_check(clamp_hz),
    special_row("notify-keyspace-events", "", kNotifyEventsCodec),
    enum_row("enable-debug-command", "no", kDebugCommand).immutable(),

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
    // The replica side. replicaof is "<host> <port>" or empty; REPLICAOF changes it at runtime
    // (CONFIG SET refuses it, as Redis's immutable config).
    special_row("replicaof", "", kReplicaofCodec).immutable().with_aliases(kReplicaofAliases),
    string_row("masterauth", ""),
    string_row("masteruser", ""),
    bool_row("replica-read-only", "yes").with_aliases(kReplicaReadOnlyAliases),
    bool_row("replica-serve-stale-data", "yes").with_aliases(kServeStaleAliases),
    int_row("replica-priority", "100", 0, kIntMax).with_aliases(kReplicaPriorityAliases),
    string_row("replica-announce-ip", "").with_aliases(kAnnounceIpAliases),
    int_row("replica-announce-port", "0", 0, 65535).with_aliases(kAnnouncePortAliases),
    bool_row("replica-announced", "yes"),

    // ---- diagnostics ----
    int_row("slowlog-log-slower-than", "10000", -1, kLongMax),
    int_row("slowlog-max-len", "128", 0, kLongMax),
    bool_row("latency-tracking", "yes"),
    special_row("latency-tracking-info-percentiles", "50 99 99.9", kPercentilesCodec),
    int_row("latency-monitor-threshold", "0", 0, kLongMax),
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
std::string_view to_string(DebugCommand v) {
  return name_in(kDebugCommand, static_cast<std::int64_t>(v));
}

}  // namespace streamd::config
