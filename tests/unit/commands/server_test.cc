// Server commands through dispatch: INFO, CONFIG, TIME, DEBUG, FUNCTION FLUSH, SLOWLOG, MONITOR,
// SHUTDOWN, WAIT, with reply bytes as redis-server 7.0.15 sends them.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "command_harness.h"

namespace streamd::test {
namespace {

using resp::Protocol;

class ServerTest : public ::testing::Test {
 protected:
  std::string Run(const std::vector<std::string>& argv, int client = 0) {
    return h.Run(argv, Protocol::kResp2, client);
  }
  std::string Run3(const std::vector<std::string>& argv, int client = 0) {
    return h.Run(argv, Protocol::kResp3, client);
  }
  // The text of an INFO reply (a RESP2 bulk string).
  std::string Info(std::vector<std::string> args = {}) {
    args.insert(args.begin(), "INFO");
    std::string raw = Run(args);
    std::size_t body = raw.find("\r\n") + 2;
    return raw.substr(body, raw.size() - body - 2);
  }
  static std::vector<std::string> Headers(const std::string& text) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while ((pos = text.find("# ", pos)) != std::string::npos) {
      std::size_t end = text.find("\r\n", pos);
      out.push_back(text.substr(pos + 2, end - pos - 2));
      pos = end;
    }
    return out;
  }

  CommandHarness h;
};

using Strings = std::vector<std::string>;

TEST_F(ServerTest, InfoSectionsAndOrder) {
  EXPECT_EQ(Headers(Info()),
            (Strings{"Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU",
                     "Modules", "Errorstats", "Cluster", "Keyspace"}));
  Strings all = {"Server",       "Clients", "Memory",  "Persistence",  "Stats",
                 "Replication",  "CPU",     "Modules", "Commandstats", "Errorstats",
                 "Latencystats", "Cluster", "Keyspace"};
  EXPECT_EQ(Headers(Info({"all"})), all);
  EXPECT_EQ(Headers(Info({"everything"})), all);
  EXPECT_EQ(Headers(Info({"default", "commandstats"})).size(), 12u);
  // Sections come in Redis's order whatever the argument order, each once.
  EXPECT_EQ(Headers(Info({"Keyspace", "CLUSTER", "keyspace"})), (Strings{"Cluster", "Keyspace"}));
  EXPECT_EQ(Info({"nosuchsection"}), "");
  EXPECT_EQ(Run({"INFO", "nosuch"}), "$0\r\n\r\n");
  EXPECT_EQ(Run3({"INFO", "nosuch"}), "=4\r\ntxt:\r\n");
}

TEST_F(ServerTest, InfoExactSmallSections) {
  EXPECT_EQ(Run({"INFO", "cluster"}), "$30\r\n# Cluster\r\ncluster_enabled:0\r\n\r\n");
  EXPECT_EQ(Run({"INFO", "modules"}), "$11\r\n# Modules\r\n\r\n");
  EXPECT_EQ(Run({"INFO", "keyspace"}), "$12\r\n# Keyspace\r\n\r\n");
  Run({"SET", "a", "1"});
  Run({"SET", "b", "2", "PX", "10000"});
  // avg_ttl is Redis's estimate from active expiry's samples: 0 until a cron tick ran.
  EXPECT_EQ(Run({"INFO", "keyspace"}),
            "$56\r\n# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=0,subexpiry=0\r\n\r\n");
  h.server().cron();
  EXPECT_EQ(Run3({"INFO", "cluster", "keyspace"}),
            "=96\r\ntxt:# Cluster\r\ncluster_enabled:0\r\n\r\n# Keyspace\r\n"
            "db0:keys=2,expires=1,avg_ttl=10000,subexpiry=0\r\n\r\n");
}

TEST_F(ServerTest, InfoServerAndClientsFields) {
  h.clock().advance(90061000);  // 1 day, 1 hour, 1 minute, 1 second
  std::string text = Info({"server", "clients"});
  EXPECT_EQ(text.substr(0, 39), "# Server\r\nredis_version:8.10.0\r\nstreamd");
  for (std::string field :
       {"redis_mode:standalone\r\n", "uptime_in_seconds:90061\r\n", "uptime_in_days:1\r\n",
        "tcp_port:6379\r\n", "server_time_usec:1700090061000000\r\n", "connected_clients:1\r\n",
        "maxclients:10000\r\n", "blocked_clients:0\r\n", "process_supervised:no\r\n"}) {
    EXPECT_NE(text.find("\r\n" + field), std::string::npos) << field << " in\n" << text;
  }
}

TEST_F(ServerTest, InfoMemoryPersistenceReplication) {
  std::string text = Info({"memory", "persistence", "replication"});
  for (std::string field :
       {"\r\nused_memory:", "\r\nused_memory_human:", "\r\nused_memory_rss:", "\r\nmaxmemory:0\r\n",
        "\r\nmaxmemory_human:0B\r\n", "\r\nmaxmemory_policy:noeviction\r\n",
        "\r\nmem_allocator:libc\r\n", "# Persistence\r\nloading:0\r\n", "\r\naof_enabled:0\r\n",
        "# Replication\r\nrole:master\r\nconnected_slaves:0\r\n"}) {
    EXPECT_NE(text.find(field), std::string::npos) << field << " in\n" << text;
  }
}

// used_memory_rss is read fresh on every INFO (the statm file stays open between calls): it
// follows memory the process touches after the first INFO.
TEST_F(ServerTest, InfoRssFollowsTheProcess) {
  auto rss = [&] {
    std::string text = Info({"memory"});
    std::size_t at = text.find("\r\nused_memory_rss:");
    EXPECT_NE(at, std::string::npos) << text;
    return std::stoull(text.substr(at + 18));
  };
  uint64_t before = rss();
  EXPECT_GT(before, 0u);
  // Fresh pages from the kernel, not from malloc: after an earlier test freed a large dataset,
  // malloc hands out memory that is already resident (a unity build's test order failed so).
  constexpr std::size_t kTouched = 64u << 20;
  void* block =
      ::mmap(nullptr, kTouched, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(block, MAP_FAILED);
  std::memset(block, 1, kTouched);  // every page written
  uint64_t after = rss();
  EXPECT_GE(after, before + kTouched / 2) << before << " -> " << after;
  ::munmap(block, kTouched);
}

TEST_F(ServerTest, InfoCommandAndErrorStats) {
  Run({"SET", "k", "v"});
  Run({"GET", "k"});
  Run({"GET", "k"});
  Run({"INCR", "k"});  // fails: not an integer
  Run({"GET"});        // rejected: arity
  Run({"CLIENT", "SETNAME", "x"});
  Run({"NOSUCH"});
  std::string text = Info({"commandstats", "errorstats", "stats"});
  auto has = [&](const std::string& s) { return text.find(s) != std::string::npos; };
  EXPECT_TRUE(has("\r\ncmdstat_get:calls=2,usec=")) << text;
  EXPECT_TRUE(has(",rejected_calls=1,failed_calls=0\r\n")) << text;
  EXPECT_TRUE(has("\r\ncmdstat_incr:calls=1,")) << text;
  EXPECT_TRUE(has("\r\ncmdstat_client|setname:calls=1,")) << text;
  EXPECT_TRUE(has("# Errorstats\r\nerrorstat_ERR:count=3\r\n")) << text;
  EXPECT_TRUE(has("\r\ntotal_error_replies:3\r\n")) << text;
  EXPECT_TRUE(has("\r\ntotal_commands_processed:")) << text;
  EXPECT_EQ(Run({"CONFIG", "RESETSTAT"}), "+OK\r\n");
  EXPECT_EQ(Info({"errorstats"}), "# Errorstats\r\n");
}

// The fields Redis 7.2/7.4 added to INFO clients and stats count what happened (a hard-coded 0
// would pass a field-name comparison: these check the values).
TEST_F(ServerTest, InfoNewestClientAndStatsFieldsCount) {
  auto has = [](const std::string& text, const std::string& field) {
    return text.find("\r\n" + field + "\r\n") != std::string::npos;
  };
  std::string text = Info({"clients"});
  for (std::string f : {"pubsub_clients:0", "watching_clients:0", "total_watched_keys:0",
                        "total_blocking_keys:0", "total_blocking_keys_on_nokey:0"}) {
    EXPECT_TRUE(has(text, f)) << f << " in\n" << text;
  }
  EXPECT_EQ(Run({"SUBSCRIBE", "ch"}, 1).substr(0, 4), "*3\r\n");
  EXPECT_EQ(Run({"WATCH", "a", "b"}, 2), "+OK\r\n");
  EXPECT_EQ(Run({"WATCH", "a"}, 3), "+OK\r\n");
  EXPECT_EQ(Run({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}), "+OK\r\n");
  EXPECT_EQ(h.RunRaw({"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"},
                     Protocol::kResp2, 4),
            "");
  EXPECT_EQ(h.RunRaw({"XREAD", "BLOCK", "0", "STREAMS", "s", "t", "$", "$"}, Protocol::kResp2, 5),
            "");
  text = Info({"clients"});
  for (std::string f :
       {"pubsub_clients:1", "watching_clients:2", "total_watched_keys:2", "blocked_clients:2",
        "total_blocking_keys:2", "total_blocking_keys_on_nokey:1"}) {
    EXPECT_TRUE(has(text, f)) << f << " in\n" << text;
  }

  EXPECT_EQ(Run({"CONFIG", "SET", "requirepass", "secret"}), "+OK\r\n");
  EXPECT_EQ(Run({"AUTH", "wrong"}, 6).substr(0, 10), "-WRONGPASS");
  EXPECT_EQ(Run({"AUTH", "nosuchuser", "secret"}, 6).substr(0, 10), "-WRONGPASS");
  EXPECT_EQ(Run({"AUTH", "secret"}, 6), "+OK\r\n");
  text = Info({"stats"});
  EXPECT_TRUE(has(text, "acl_access_denied_auth:2")) << text;
  EXPECT_TRUE(has(text, "acl_access_denied_cmd:0")) << text;
  EXPECT_EQ(Run({"CONFIG", "RESETSTAT"}, 6), "+OK\r\n");
  EXPECT_TRUE(has(Info({"stats"}), "acl_access_denied_auth:0"));
}

TEST_F(ServerTest, Time) {
  h.clock().advance(1234);
  EXPECT_EQ(Run({"TIME"}), "*2\r\n$10\r\n1700000001\r\n$6\r\n234000\r\n");
  EXPECT_EQ(Run({"TIME", "x"}), "-ERR wrong number of arguments for 'time' command\r\n");
}

TEST_F(ServerTest, ConfigGetSet) {
  EXPECT_EQ(Run({"CONFIG", "GET", "maxclients"}), "*2\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n");
  EXPECT_EQ(Run3({"CONFIG", "GET", "maxclients"}), "%1\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "nosuchdirective"}), "*0\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "stream-node-max-entries", "50"}), "+OK\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "stream-node-max-entries"}),
            "*2\r\n$23\r\nstream-node-max-entries\r\n$2\r\n50\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "maxclients", "abc"}),
            "-ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument "
            "couldn't be parsed into an integer\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "nosuch", "1"}),
            "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "maxclients", "100", "hz"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET"}), "-ERR wrong number of arguments for 'config|get' command\r\n");
  EXPECT_EQ(Run({"CONFIG", "REWRITE"}), "-ERR The server is running without a config file\r\n");
  EXPECT_EQ(Run({"CONFIG", "BOGUS"}), "-ERR unknown subcommand 'BOGUS'. Try CONFIG HELP.\r\n");
  EXPECT_EQ(Run({"CONFIG", "HELP"}).substr(0, 4), "*11\r");
}

TEST_F(ServerTest, DebugIsGatedByEnableLocalPermission) {
  EXPECT_EQ(Run({"DEBUG", "SLEEP", "0"}),
            "-ERR DEBUG command not allowed. If the enable-debug-command option is set to "
            "\"local\", you can run it from a local connection, otherwise you need to set this "
            "option in the configuration file, and then restart the server.\r\n");
  ASSERT_FALSE(h.config().force_set("enable-debug-command", "local").has_value());
  EXPECT_EQ(Run({"DEBUG", "SLEEP", "0"}), "+OK\r\n");  // the harness client is 127.0.0.1
  h.session().addr = "10.1.2.3:5000";
  EXPECT_EQ(Run({"DEBUG", "SLEEP", "0"}).substr(0, 30), "-ERR DEBUG command not allowed");
}

TEST_F(ServerTest, DebugSubcommands) {
  ASSERT_FALSE(h.config().force_set("enable-debug-command", "yes").has_value());
  EXPECT_EQ(Run({"DEBUG", "SLEEP", "abc"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEBUG", "SLEEP", "-1"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEBUG", "LOG", "hello"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEBUG", "LOG", "a", "b"}),
            "-ERR unknown subcommand or wrong number of arguments for 'LOG'. Try DEBUG HELP.\r\n");
  EXPECT_EQ(Run({"DEBUG", "BOGUS"}),
            "-ERR unknown subcommand or wrong number of arguments for 'BOGUS'. Try DEBUG "
            "HELP.\r\n");
  EXPECT_EQ(Run({"DEBUG"}), "-ERR wrong number of arguments for 'debug' command\r\n");
  struct Case {
    std::string type, resp2, resp3;
  };
  for (const Case& c : std::vector<Case>{
           {"string", "$11\r\nHello World\r\n", "$11\r\nHello World\r\n"},
           {"integer", ":12345\r\n", ":12345\r\n"},
           {"double", "$5\r\n3.141\r\n", ",3.141\r\n"},
           {"bignum", "$37\r\n1234567999999999999999999999999999999\r\n",
            "(1234567999999999999999999999999999999\r\n"},
           {"null", "$-1\r\n", "_\r\n"},
           {"array", "*3\r\n:0\r\n:1\r\n:2\r\n", "*3\r\n:0\r\n:1\r\n:2\r\n"},
           {"set", "*3\r\n:0\r\n:1\r\n:2\r\n", "~3\r\n:0\r\n:1\r\n:2\r\n"},
           {"map", "*6\r\n:0\r\n:0\r\n:1\r\n:1\r\n:2\r\n:0\r\n",
            "%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n"},
           {"verbatim", "$25\r\nThis is a verbatim\nstring\r\n",
            "=29\r\ntxt:This is a verbatim\nstring\r\n"},
           {"true", ":1\r\n", "#t\r\n"},
           {"FALSE", ":0\r\n", "#f\r\n"},
       }) {
    EXPECT_EQ(Run({"DEBUG", "PROTOCOL", c.type}), c.resp2) << c.type;
    EXPECT_EQ(Run3({"DEBUG", "PROTOCOL", c.type}), c.resp3) << c.type;
  }
  // RESP2 has no attributes: only the real reply that follows one. A push is out of band, so
  // a real reply follows it too (two frames: RunRaw, which does not ask for exactly one).
  using P = Protocol;
  EXPECT_EQ(h.RunRaw({"DEBUG", "PROTOCOL", "attrib"}, P::kResp2),
            "$39\r\nSome real reply following the attribute\r\n");
  EXPECT_EQ(h.RunRaw({"DEBUG", "PROTOCOL", "attrib"}, P::kResp3),
            "|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n"
            "$39\r\nSome real reply following the attribute\r\n");
  EXPECT_EQ(Run({"DEBUG", "PROTOCOL", "push"}), "-ERR RESP2 is not supported by this command\r\n");
  EXPECT_EQ(h.RunRaw({"DEBUG", "PROTOCOL", "push"}, P::kResp3),
            ">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n"
            "$40\r\nSome real reply following the push reply\r\n");
  EXPECT_EQ(Run({"DEBUG", "PROTOCOL", "bogus"}),
            "-ERR Wrong protocol type name. Please use one of the following: "
            "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false\r\n");
}

TEST_F(ServerTest, FunctionFlushAndWait) {
  EXPECT_EQ(Run({"FUNCTION", "FLUSH"}), "+OK\r\n");
  EXPECT_EQ(Run({"FUNCTION", "FLUSH", "async"}), "+OK\r\n");
  EXPECT_EQ(Run({"FUNCTION", "FLUSH", "SYNC"}), "+OK\r\n");
  EXPECT_EQ(Run({"FUNCTION", "FLUSH", "bogus"}),
            "-ERR FUNCTION FLUSH only supports SYNC|ASYNC option\r\n");
  EXPECT_EQ(Run({"FUNCTION", "FLUSH", "a", "b"}),
            "-ERR unknown subcommand or wrong number of arguments for 'FLUSH'. Try FUNCTION "
            "HELP.\r\n");
  EXPECT_EQ(Run({"FUNCTION"}), "-ERR wrong number of arguments for 'function' command\r\n");
  EXPECT_EQ(Run({"WAIT", "0", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"WAIT", "-1", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"WAIT", "a", "b"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"WAIT", "0", "1.5"}), "-ERR timeout is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"WAIT", "0", "-1"}), "-ERR timeout is negative\r\n");
}

TEST_F(ServerTest, Slowlog) {
  EXPECT_EQ(Run({"SLOWLOG", "GET"}), "*0\r\n");
  ASSERT_FALSE(h.config().set("slowlog-log-slower-than", "0").has_value());
  Run({"CLIENT", "SETNAME", "worker"});
  Run({"SET", "k", std::string(200, 'x')});
  // The newest entry first: [id, time, duration, args, addr, name]; long args are cut at 128
  // bytes. (A SLOWLOG command is logged after it ran, so it does not see itself.)
  std::string get = Run({"SLOWLOG", "GET", "1"});
  std::string cut = std::string(128, 'x') + "... (72 more bytes)";
  std::string tail = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + std::to_string(cut.size()) + "\r\n" + cut +
                     "\r\n$15\r\n127.0.0.1:40000\r\n$6\r\nworker\r\n";
  std::string head = "*1\r\n*6\r\n:1\r\n:1700000000\r\n";
  EXPECT_EQ(get.substr(0, head.size()), head);
  ASSERT_GE(get.size(), tail.size());
  EXPECT_EQ(get.substr(get.size() - tail.size()), tail);
  EXPECT_EQ(Run({"SLOWLOG", "LEN"}), ":3\r\n");
  EXPECT_EQ(Run({"SLOWLOG", "GET", "-2"}), "-ERR count should be greater than or equal to -1\r\n");
  EXPECT_EQ(Run({"SLOWLOG", "GET", "abc"}), "-ERR count should be greater than or equal to -1\r\n");
  EXPECT_EQ(Run({"SLOWLOG", "GET", "1", "2"}),
            "-ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG "
            "HELP.\r\n");
  EXPECT_EQ(Run({"SLOWLOG", "RESET"}), "+OK\r\n");
  EXPECT_EQ(Run({"SLOWLOG", "GET", "0"}), "*0\r\n");
  EXPECT_EQ(Run({"SLOWLOG", "HELP"}).substr(0, 5), "*12\r\n");
  EXPECT_EQ(Run({"SLOWLOG", "BOGUS"}), "-ERR unknown subcommand 'BOGUS'. Try SLOWLOG HELP.\r\n");
}

TEST_F(ServerTest, DebugSetActiveExpire) {
  ASSERT_FALSE(h.config().force_set("enable-debug-command", "yes").has_value());
  EXPECT_EQ(Run({"SET", "k", "v", "PX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEBUG", "SET-ACTIVE-EXPIRE", "0"}), "+OK\r\n");
  h.Advance(100);
  h.Cron();
  // Expired but not reclaimed: DBSIZE counts it until something touches it.
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  EXPECT_EQ(Run({"DEBUG", "SET-ACTIVE-EXPIRE", "1"}), "+OK\r\n");
  h.Cron();
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(Run({"DEBUG", "SET-ACTIVE-EXPIRE"}),
            "-ERR unknown subcommand or wrong number of arguments for 'SET-ACTIVE-EXPIRE'. Try "
            "DEBUG HELP.\r\n");
}

// The id of the newest SLOWLOG entry and the reply's tail from its arguments on.
std::pair<long long, std::string> newest_slowlog_entry(const std::string& get) {
  const std::string head = "*1\r\n*6\r\n:";
  if (get.compare(0, head.size(), head) != 0) return {-1, get};
  std::size_t end = get.find("\r\n", head.size());
  long long id = std::stoll(get.substr(head.size(), end - head.size()));
  std::size_t args = get.find("\r\n*", end);  // after the time and duration integers
  return {id, args == std::string::npos ? get : get.substr(args + 2)};
}

TEST_F(ServerTest, SlowlogHidesSecretsAndIsOffAtZeroLength) {
  ASSERT_FALSE(h.config().set("slowlog-log-slower-than", "0").has_value());
  EXPECT_EQ(
      Run({"CONFIG", "SET", "masterauth", "s3cret", "maxmemory-samples", "6", "masteruser", "u"}),
      "+OK\r\n");
  auto [id, entry] = newest_slowlog_entry(Run({"SLOWLOG", "GET", "1"}));
  EXPECT_EQ(entry,
            "*8\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$10\r\nmasterauth\r\n$10\r\n(redacted)\r\n"
            "$17\r\nmaxmemory-samples\r\n$1\r\n6\r\n$10\r\nmasteruser\r\n$10\r\n(redacted)\r\n"
            "$15\r\n127.0.0.1:40000\r\n$0\r\n\r\n");
  // As newest Redis: with slowlog-max-len 0 nothing is logged and no id is used (7.0 numbered
  // the entries it dropped). The SLOWLOG GET above took id + 1.
  Run({"CONFIG", "SET", "slowlog-max-len", "0"});
  Run({"PING"});
  Run({"PING"});
  Run({"CONFIG", "SET", "slowlog-max-len", "10"});  // id + 2
  Run({"ECHO", "x"});                               // id + 3
  auto [next, echo] = newest_slowlog_entry(Run({"SLOWLOG", "GET", "1"}));
  EXPECT_EQ(next, id + 3);
  EXPECT_EQ(echo.substr(0, 21), "*2\r\n$4\r\nECHO\r\n$1\r\nx\r\n");
}

TEST_F(ServerTest, MonitorSeesCommandsOfEveryClient) {
  cmd::Session& mon = h.session(1);
  std::string out;
  int flushes = 0;
  mon.out = &out;
  mon.flush = [&] { ++flushes; };
  EXPECT_EQ(Run({"MONITOR"}, 1), "+OK\r\n");
  EXPECT_TRUE(mon.monitor);
  out.clear();
  h.clock().advance(1);
  Run({"SET", "k", "va\"l\\ue\n\x01"});
  Run({"SELECT", "3"});
  Run({"AUTH", "default", "pw"});
  Run({"HELLO", "2", "AUTH", "default", "pw", "SETNAME", "n"});
  Run({"CLIENT", "LIST"});      // admin: not shown
  Run({"GET"});                 // rejected: not shown
  Run({"CONFIG", "GET", "x"});  // admin: not shown
  EXPECT_EQ(out,
            "+1700000000.001000 [0 127.0.0.1:40000] \"SET\" \"k\" \"va\\\"l\\\\ue\\n\\x01\"\r\n"
            "+1700000000.001000 [3 127.0.0.1:40000] \"SELECT\" \"3\"\r\n"
            "+1700000000.001000 [3 127.0.0.1:40000] \"AUTH\" \"(redacted)\" \"(redacted)\"\r\n"
            "+1700000000.001000 [3 127.0.0.1:40000] \"HELLO\" \"2\" \"AUTH\" \"(redacted)\" "
            "\"(redacted)\" \"SETNAME\" \"n\"\r\n");
  EXPECT_EQ(flushes, 4);
  // A second MONITOR is ignored without a reply, as Redis does.
  EXPECT_EQ(h.RunRaw({"MONITOR"}, Protocol::kResp2, 1), "");
  // RESET stops monitoring.
  out.clear();
  EXPECT_EQ(Run({"RESET"}, 1), "+RESET\r\n");
  Run({"PING"});
  EXPECT_EQ(out, "");
}

TEST_F(ServerTest, MonitorInsideExecIsRefused) {
  Run({"MULTI"});
  Run({"MONITOR"});
  EXPECT_EQ(Run({"EXEC"}), "*1\r\n-ERR MONITOR isn't allowed for DENY BLOCKING client\r\n");
}

TEST_F(ServerTest, ModuleAndFunctionHelpListWhatStreamdHas) {
  std::string module = Run({"MODULE", "HELP"});
  EXPECT_EQ(
      module.rfind("*11\r\n+MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", 0),
      0u);
  EXPECT_NE(module.find("+UNLOAD <name>\r\n"), std::string::npos);
  std::string function = Run({"FUNCTION", "HELP"});
  EXPECT_EQ(function.rfind("*9\r\n+FUNCTION <subcommand>", 0), 0u);
  EXPECT_NE(function.find("+FLUSH [ASYNC|SYNC]\r\n"), std::string::npos);
  EXPECT_EQ(Run({"MODULE", "LIST"}), "*0\r\n");
}

TEST_F(ServerTest, Shutdown) {
  int requested = 0;
  h.server().request_shutdown = [&] { ++requested; };
  EXPECT_EQ(Run({"SHUTDOWN", "BOGUS"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SHUTDOWN", "NOSAVE", "SAVE"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SHUTDOWN", "NOW", "ABORT"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SHUTDOWN", "ABORT"}), "-ERR No shutdown in progress.\r\n");
  EXPECT_EQ(requested, 0);
  EXPECT_EQ(h.RunRaw({"SHUTDOWN", "NOSAVE", "NOW", "FORCE"}, Protocol::kResp2), "");
  EXPECT_EQ(requested, 1);
  EXPECT_TRUE(h.session().close_after_reply);
}

}  // namespace
}  // namespace streamd::test
