// Every directive type: parsing, bounds, error texts, and the CONFIG GET rendering. Error texts
// and renderings were observed with redis-server 7.0.15 (CONFIG SET / CONFIG GET).
#include <gtest/gtest.h>

#include "streamd/config/config.h"

namespace streamd::config {
namespace {

std::string set_error(Config& cfg, std::string_view name, std::string_view value) {
  auto err = cfg.set(name, value);
  return err.value_or("OK");
}

std::string failed(std::string_view name, std::string_view reason) {
  return "ERR CONFIG SET failed (possibly related to argument '" + std::string(name) + "') - " +
         std::string(reason);
}

TEST(ConfigValues, Defaults) {
  Config cfg;
  const std::pair<const char*, const char*> expected[] = {
      {"port", "6379"},
      {"bind", "127.0.0.1 -::1"},
      {"unixsocket", ""},
      {"unixsocketperm", "0"},
      {"dir", "./"},
      {"databases", "16"},
      {"requirepass", ""},
      {"maxclients", "10000"},
      {"timeout", "0"},
      {"tcp-keepalive", "300"},
      {"tcp-backlog", "511"},
      {"loglevel", "notice"},
      {"logfile", ""},
      {"daemonize", "no"},
      {"pidfile", ""},
      {"proto-max-bulk-len", "536870912"},
      {"client-query-buffer-limit", "1073741824"},
      {"client-output-buffer-limit",
       "normal 268435456 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
      {"stream-node-max-entries", "100"},
      {"stream-node-max-bytes", "4096"},
      {"hz", "10"},
      {"maxmemory", "0"},
      {"maxmemory-policy", "noeviction"},
      {"notify-keyspace-events", ""},
      {"save", ""},
      {"appendonly", "yes"},
      {"appendfsync", "everysec"},
      {"appenddirname", "appendonlydir"},
      {"appendfilename", "appendonly.aof"},
      {"aof-load-truncated", "yes"},
      {"auto-aof-rewrite-percentage", "100"},
      {"auto-aof-rewrite-min-size", "67108864"},
      {"aof-use-rdb-preamble", "no"},
      {"rdb-version", "12"},
      {"rdbcompression", "yes"},
      {"rdbchecksum", "yes"},
      {"rdb-skip-unsupported-types", "no"},
      {"slowlog-log-slower-than", "10000"},
      {"slowlog-max-len", "128"},
      {"latency-tracking", "yes"},
      {"enable-debug-command", "no"},
  };
  for (const auto& [name, value] : expected) {
    EXPECT_EQ(cfg.get(name), std::optional<std::string>(value)) << name;
    EXPECT_TRUE(cfg.is_default(name)) << name;
  }
}

TEST(ConfigValues, TypedAccessorsSeeDefaults) {
  Config cfg;
  EXPECT_EQ(cfg.port(), 6379);
  EXPECT_EQ(cfg.bind(), (std::vector<std::string>{"127.0.0.1", "-::1"}));
  EXPECT_EQ(cfg.databases(), 16);
  EXPECT_EQ(cfg.loglevel(), LogLevel::kNotice);
  EXPECT_EQ(cfg.appendfsync(), AppendFsync::kEverySec);
  EXPECT_EQ(cfg.maxmemory_policy(), MaxmemoryPolicy::kNoEviction);
  EXPECT_EQ(cfg.enable_debug_command(), LocalPermission::kNo);
  EXPECT_TRUE(cfg.appendonly());
  EXPECT_FALSE(cfg.aof_use_rdb_preamble());
  EXPECT_EQ(cfg.proto_max_bulk_len(), 512ull * 1024 * 1024);
  EXPECT_EQ(cfg.client_query_buffer_limit(), 1024ull * 1024 * 1024);
  EXPECT_EQ(cfg.stream_node_max_entries(), 100);
  EXPECT_EQ(cfg.stream_node_max_bytes(), 4096u);
  EXPECT_EQ(cfg.client_output_buffer_limit()[ClientClass::kNormal],
            (OutputBufferLimit{256ull << 20, 0, 0}));
  EXPECT_EQ(cfg.client_output_buffer_limit()[ClientClass::kReplica],
            (OutputBufferLimit{256ull << 20, 64ull << 20, 60}));
  EXPECT_EQ(cfg.client_output_buffer_limit()[ClientClass::kPubSub],
            (OutputBufferLimit{32ull << 20, 8ull << 20, 60}));
  EXPECT_TRUE(cfg.save().empty());
  EXPECT_EQ(cfg.notify_keyspace_events(), 0u);
  EXPECT_EQ(cfg.slowlog_log_slower_than(), 10000);
  EXPECT_EQ(cfg.appendfilename(), "appendonly.aof");
  EXPECT_EQ(to_string(cfg.loglevel()), "notice");
  EXPECT_EQ(to_string(cfg.maxmemory_policy()), "noeviction");
}

TEST(ConfigValues, Bool) {
  Config cfg;
  EXPECT_EQ(set_error(cfg, "appendonly", "no"), "OK");
  EXPECT_FALSE(cfg.appendonly());
  EXPECT_EQ(set_error(cfg, "appendonly", "YES"), "OK");
  EXPECT_EQ(cfg.get("appendonly"), "yes");
  EXPECT_EQ(set_error(cfg, "appendonly", "Yes"), "OK");
  for (const char* bad : {"true", "1", "", "maybe", "yes "}) {
    EXPECT_EQ(set_error(cfg, "appendonly", bad),
              failed("appendonly", "argument must be 'yes' or 'no'"))
        << bad;
  }
  EXPECT_TRUE(cfg.appendonly());
}

TEST(ConfigValues, IntegerAndBounds) {
  Config cfg;
  EXPECT_EQ(set_error(cfg, "port", "7000"), "OK");
  EXPECT_EQ(cfg.port(), 7000);
  EXPECT_EQ(set_error(cfg, "port", "abc"),
            failed("port", "argument couldn't be parsed into an integer"));
  EXPECT_EQ(set_error(cfg, "port", "99999"),
            failed("port", "argument must be between 0 and 65535 inclusive"));
  EXPECT_EQ(set_error(cfg, "port", "-5"),
            failed("port", "argument must be between 0 and 65535 inclusive"));
  EXPECT_EQ(set_error(cfg, "maxclients", "0"),
            failed("maxclients", "argument must be between 1 and 4294967295 inclusive"));
  EXPECT_EQ(set_error(cfg, "timeout", "-5"),
            failed("timeout", "argument must be between 0 and 2147483647 inclusive"));
  EXPECT_EQ(set_error(cfg, "stream-node-max-entries", "-5"),
            failed("stream-node-max-entries",
                   "argument must be between 0 and 9223372036854775807 inclusive"));
  EXPECT_EQ(set_error(cfg, "slowlog-log-slower-than", "-2"),
            failed("slowlog-log-slower-than",
                   "argument must be between -1 and 9223372036854775807 inclusive"));
  EXPECT_EQ(set_error(cfg, "slowlog-log-slower-than", "-1"), "OK");
  EXPECT_EQ(set_error(cfg, "hz", "99999999999999999999999"),
            failed("hz", "argument couldn't be parsed into an integer"));
  for (const char* bad : {"+5", " 5", "05", "-0", "5.0", "", "1k", "0x5", "5 "}) {
    EXPECT_EQ(set_error(cfg, "hz", bad),
              failed("hz", "argument couldn't be parsed into an integer"))
        << bad;
  }
  EXPECT_EQ(cfg.port(), 7000);
}

TEST(ConfigValues, HzIsClamped) {
  Config cfg;
  EXPECT_EQ(set_error(cfg, "hz", "1000"), "OK");
  EXPECT_EQ(cfg.get("hz"), "500");
  EXPECT_EQ(set_error(cfg, "hz", "0"), "OK");
  EXPECT_EQ(cfg.hz(), 1);
}

TEST(ConfigValues, Memory) {
  Config cfg;
  EXPECT_EQ(set_error(cfg, "maxmemory", "100mb"), "OK");
  EXPECT_EQ(cfg.get("maxmemory"), "104857600");  // CONFIG GET shows plain bytes
  EXPECT_EQ(cfg.maxmemory(), 100ull << 20);
  EXPECT_EQ(set_error(cfg, "maxmemory", "1k"), "OK");
  EXPECT_EQ(cfg.get("maxmemory"), "1000");
  EXPECT_EQ(set_error(cfg, "maxmemory", "18446744073709551615"), "OK");
  EXPECT_EQ(cfg.get("maxmemory"), "18446744073709551615");
  EXPECT_EQ(set_error(cfg, "maxmemory", "1xb"),
            failed("maxmemory", "argument must be a memory value"));
  EXPECT_EQ(set_error(cfg, "maxmemory", "-1"),
            failed("maxmemory", "argument must be a memory value"));
  EXPECT_EQ(set_error(cfg, "proto-max-bulk-len", "1kb"),
            failed("proto-max-bulk-len",
                   "argument must be between 1048576 and 9223372036854775807 inclusive"));
  EXPECT_EQ(set_error(cfg, "proto-max-bulk-len", "99999999999999999999999"),
            failed("proto-max-bulk-len",
                   "argument must be between 1048576 and 9223372036854775807 inclusive"));
  EXPECT_EQ(set_error(cfg, "stream-node-max-bytes", "4kb"), "OK");
  EXPECT_EQ(cfg.stream_node_max_bytes(), 4096u);
  EXPECT_TRUE(cfg.is_default("stream-node-max-bytes"));
}

TEST(ConfigValues, Octal) {
  Config cfg;
  ASSERT_FALSE(cfg.force_set("unixsocketperm", "700").has_value());
  EXPECT_EQ(cfg.unixsocketperm(), 0700);
  EXPECT_EQ(cfg.get("unixsocketperm"), "700");
  EXPECT_EQ(cfg.force_set("unixsocketperm", "800"),
            failed("unixsocketperm", "argument couldn't be parsed as an octal number"));
  EXPECT_EQ(cfg.force_set("unixsocketperm", "0x1"),
            failed("unixsocketperm", "argument couldn't be parsed as an octal number"));
  EXPECT_EQ(cfg.force_set("unixsocketperm", "1000"),
            failed("unixsocketperm", "argument must be between 0 and 777 inclusive"));
  EXPECT_EQ(cfg.force_set("unixsocketperm", "-1"),
            failed("unixsocketperm", "argument must be between 0 and 777 inclusive"));
}

TEST(ConfigValues, String) {
  Config cfg;
  EXPECT_EQ(set_error(cfg, "requirepass", "a b \"c\""), "OK");
  EXPECT_EQ(cfg.requirepass(), "a b \"c\"");
  EXPECT_EQ(set_error(cfg, "requirepass", ""), "OK");
  EXPECT_EQ(cfg.requirepass(), "");
}

TEST(ConfigValues, StringChecks) {
  Config cfg;
  EXPECT_EQ(cfg.force_set("appendfilename", "/a/b"),
            failed("appendfilename", "appendfilename can't be a path, just a filename"));
  EXPECT_EQ(cfg.force_set("appendfilename", ""),
            failed("appendfilename", "appendfilename can't be empty"));
  EXPECT_EQ(cfg.force_set("appenddirname", "a/b"),
            failed("appenddirname", "appenddirname can't be a path, just a dirname"));
  EXPECT_EQ(cfg.force_set("appenddirname", ""),
            failed("appenddirname", "appenddirname can't be empty"));
  EXPECT_FALSE(cfg.force_set("appendfilename", "x.aof").has_value());
  EXPECT_EQ(cfg.appendfilename(), "x.aof");
}

TEST(ConfigValues, Enum) {
  Config cfg;
  EXPECT_EQ(set_error(cfg, "loglevel", "WARNING"), "OK");
  EXPECT_EQ(cfg.get("loglevel"), "warning");
  EXPECT_EQ(cfg.loglevel(), LogLevel::kWarning);
  EXPECT_EQ(set_error(cfg, "loglevel", "notice "),
            failed("loglevel",
                   "argument(s) must be one of the following: debug, verbose, notice, warning"));
  EXPECT_EQ(set_error(cfg, "appendfsync", "always"), "OK");
  EXPECT_EQ(cfg.appendfsync(), AppendFsync::kAlways);
  EXPECT_EQ(
      set_error(cfg, "appendfsync", "sometimes"),
      failed("appendfsync", "argument(s) must be one of the following: everysec, always, no"));
  EXPECT_EQ(set_error(cfg, "maxmemory-policy", "foo"),
            failed("maxmemory-policy",
                   "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                   "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                   "noeviction"));
  EXPECT_EQ(set_error(cfg, "maxmemory-policy", "allkeys-lru"), "OK");
  EXPECT_EQ(cfg.maxmemory_policy(), MaxmemoryPolicy::kAllkeysLru);
}

TEST(ConfigValues, Save) {
  Config cfg;
  EXPECT_EQ(set_error(cfg, "save", "900 1 300 10"), "OK");
  EXPECT_EQ(cfg.get("save"), "900 1 300 10");
  EXPECT_EQ(cfg.save(), (SavePoints{{900, 1}, {300, 10}}));
  // CONFIG SET replaces the whole list.
  EXPECT_EQ(set_error(cfg, "save", "60 5"), "OK");
  EXPECT_EQ(cfg.get("save"), "60 5");
  for (const char* bad :
       {"900 1 300", "900 x", "0 1", "-1 1", "900 -1", "1kb 1", "  900   1  ", "1 1 ", "1  1"}) {
    EXPECT_EQ(set_error(cfg, "save", bad), failed("save", "Invalid save parameters")) << bad;
  }
  EXPECT_EQ(cfg.get("save"), "60 5");
  EXPECT_EQ(set_error(cfg, "save", "1 0"), "OK");  // zero changes is allowed
  EXPECT_EQ(set_error(cfg, "save", "01 +1"), "OK");
  EXPECT_EQ(cfg.get("save"), "1 1");
  EXPECT_EQ(set_error(cfg, "save", ""), "OK");
  EXPECT_EQ(cfg.get("save"), "");
}

TEST(ConfigValues, Bind) {
  Config cfg;
  EXPECT_EQ(set_error(cfg, "bind", "127.0.0.1"), "OK");
  EXPECT_EQ(cfg.bind(), std::vector<std::string>{"127.0.0.1"});
  EXPECT_EQ(set_error(cfg, "bind", "0.0.0.0 ::"), "OK");
  EXPECT_EQ(cfg.get("bind"), "0.0.0.0 ::");
  EXPECT_EQ(set_error(cfg, "bind", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17"),
            failed("bind", "Too many bind addresses specified."));
  EXPECT_EQ(set_error(cfg, "bind", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"), "OK");
}

TEST(ConfigValues, ClientOutputBufferLimit) {
  Config cfg;
  const std::string name = "client-output-buffer-limit";
  EXPECT_EQ(set_error(cfg, name, "pubsub 1mb 2mb 10"), "OK");
  EXPECT_EQ(cfg.get(name),
            "normal 268435456 0 0 slave 268435456 67108864 60 pubsub 1048576 2097152 10");
  EXPECT_EQ(set_error(cfg, name, "replica 1kb 1k 1 NORMAL 1 2 3"), "OK");
  EXPECT_EQ(cfg.get(name), "normal 1 2 3 slave 1024 1000 1 pubsub 1048576 2097152 10");
  EXPECT_EQ(set_error(cfg, name, "Slave 5 5 5"), "OK");
  EXPECT_EQ(cfg.client_output_buffer_limit()[ClientClass::kReplica], (OutputBufferLimit{5, 5, 5}));
  EXPECT_EQ(set_error(cfg, name, ""), "OK");  // nothing to change
  EXPECT_EQ(set_error(cfg, name, "master 1mb 2mb 10"),
            failed(name, "Invalid client class specified in buffer limit configuration."));
  EXPECT_EQ(set_error(cfg, name, "normal 1mb 2mb"),
            failed(name, "Wrong number of arguments in buffer limit configuration."));
  EXPECT_EQ(set_error(cfg, name, "normal 1 1 1 "),
            failed(name, "Wrong number of arguments in buffer limit configuration."));
  for (const char* bad : {"normal 1xb 2mb 5", "normal 1mb 2mb x", "normal 1mb 2mb -1",
                          "normal 0 0 1kb", "normal -0 0 0", "normal 0 0 99999999999999999999"}) {
    EXPECT_EQ(set_error(cfg, name, bad),
              failed(name,
                     "Error in hard, soft or soft_seconds setting in buffer limit "
                     "configuration."))
        << bad;
  }
  // A bad class later in the value leaves the earlier ones untouched too.
  EXPECT_NE(set_error(cfg, name, "normal 9 9 9 nope 1 1 1"), "OK");
  EXPECT_EQ(cfg.client_output_buffer_limit()[ClientClass::kNormal], (OutputBufferLimit{1, 2, 3}));
}

TEST(ConfigValues, NotifyKeyspaceEvents) {
  Config cfg;
  const std::pair<const char*, const char*> cases[] = {
      {"KEA", "AKE"},
      {"Kx", "xK"},
      {"", ""},
      {"E", "E"},
      {"g$lshzxeKEAtmdn", "AKEm"},
      {"An", "A"},
      {"Kn", "nK"},
      {"dtexzhsl$g", "A"},
      {"Ed", "dE"},
      {"nmE", "nEm"},
      {"ge$", "g$e"},
      {"te", "et"},
      {"$lshzxetdn", "$lshzxetdn"},
  };
  for (const auto& [in, out] : cases) {
    EXPECT_EQ(set_error(cfg, "notify-keyspace-events", in), "OK") << in;
    EXPECT_EQ(cfg.get("notify-keyspace-events"), out) << in;
  }
  ASSERT_EQ(set_error(cfg, "notify-keyspace-events", "Kt"), "OK");
  EXPECT_EQ(cfg.notify_keyspace_events(), notify::kKeyspace | notify::kStream);
  for (const char* bad : {"Q", "K E", "a"}) {
    EXPECT_EQ(
        set_error(cfg, "notify-keyspace-events", bad),
        failed("notify-keyspace-events", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."))
        << bad;
  }
}

TEST(ConfigValues, RefHandsOutStableStorage) {
  Config cfg;
  const std::int64_t& entries = cfg.ref<std::int64_t>("stream-node-max-entries");
  const std::uint64_t& bytes = cfg.ref<std::uint64_t>("STREAM-NODE-MAX-BYTES");
  const std::string& pass = cfg.ref<std::string>("requirepass");
  const SavePoints& save = cfg.ref<SavePoints>("save");
  EXPECT_EQ(entries, 100);
  ASSERT_FALSE(cfg.set("stream-node-max-entries", "7").has_value());
  ASSERT_FALSE(cfg.set("stream-node-max-bytes", "1mb").has_value());
  ASSERT_FALSE(cfg.set("requirepass", std::string(100, 'x')).has_value());
  ASSERT_FALSE(cfg.set("save", "1 2 3 4").has_value());
  EXPECT_EQ(entries, 7);
  EXPECT_EQ(&entries, &cfg.ref<std::int64_t>("stream-node-max-entries"));
  EXPECT_EQ(bytes, 1u << 20);
  EXPECT_EQ(pass, std::string(100, 'x'));
  EXPECT_EQ(save.size(), 2u);
  EXPECT_EQ(cfg.stream_node_max_entries(), 7);
}

TEST(ConfigValuesDeathTest, RefMisuseAborts) {
  Config cfg;
  EXPECT_DEATH((void)cfg.ref<std::int64_t>("no-such-directive"), "unknown directive");
  EXPECT_DEATH((void)cfg.ref<std::string>("port"), "wrong type");
}

}  // namespace
}  // namespace streamd::config
