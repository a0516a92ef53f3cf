// CONFIG GET pattern matching, CONFIG SET atomicity and error texts, apply hooks and change
// listeners. Error texts and GET shapes were observed with redis-server 7.0.15.
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "streamd/config/config.h"

namespace streamd::config {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs get(const Config& cfg, std::initializer_list<std::string_view> patterns) {
  std::vector<std::string_view> v(patterns);
  return cfg.get_matching(v);
}

using test::set;

// A small table with aliases, as a future directive with a legacy name would have.
constexpr std::string_view kColourAliases[] = {"color", "old-colour"};
const Directive kTestTable[] = {
    string_row("colour", "red").with_aliases(kColourAliases),
    int_row("size", "1", 0, 100),
    int_row("fixed", "5", 0, 10).immutable(),
    bool_row("flag", "no"),
};

TEST(ConfigGetSet, ExactNamesAreCaseInsensitiveAndEchoed) {
  Config cfg;
  EXPECT_EQ(get(cfg, {"port"}), (Pairs{{"port", "6379"}}));
  EXPECT_EQ(get(cfg, {"PORT"}), (Pairs{{"PORT", "6379"}}));
  // Different spellings are different names in the reply (Redis 7.0 does the same).
  EXPECT_EQ(get(cfg, {"PORT", "port"}), (Pairs{{"PORT", "6379"}, {"port", "6379"}}));
  EXPECT_EQ(get(cfg, {"port", "port"}), (Pairs{{"port", "6379"}}));
  EXPECT_EQ(get(cfg, {"no-such-thing"}), Pairs{});
}

TEST(ConfigGetSet, GlobPatterns) {
  Config cfg;
  // Redis 7.0.15 also has maxmemory-clients, which streamd does not accept (no client eviction).
  EXPECT_EQ(get(cfg, {"maxmemory*"}), (Pairs{{"maxmemory", "0"},
                                             {"maxmemory-policy", "noeviction"},
                                             {"maxmemory-eviction-tenacity", "10"},
                                             {"maxmemory-samples", "5"}}));
  EXPECT_EQ(get(cfg, {"PO*"}), Pairs{});  // glob patterns are case-sensitive
  EXPECT_EQ(get(cfg, {"stream-node-max-????s"}), (Pairs{{"stream-node-max-bytes", "4096"}}));
  EXPECT_EQ(get(cfg, {"[pb]o*"}), (Pairs{{"port", "6379"}}));
  // A name matched by several patterns comes once.
  EXPECT_EQ(get(cfg, {"port", "p*"}).size(), get(cfg, {"p*"}).size());
  // "*" lists every directive under its name and under each alias, as redis-server 7.0.15 lists
  // both min-replicas-to-write and min-slaves-to-write.
  std::size_t names = 0;
  for (const auto& d : cfg.directives()) names += 1 + d.aliases.size();
  EXPECT_EQ(get(cfg, {"*"}).size(), names);
  EXPECT_EQ(get(cfg, {"min-slaves-to-write"}), (Pairs{{"min-slaves-to-write", "0"}}));
}

TEST(ConfigGetSet, AliasesAnswerUnderTheirOwnName) {
  Config cfg(kTestTable);
  EXPECT_EQ(get(cfg, {"color"}), (Pairs{{"color", "red"}}));
  EXPECT_EQ(get(cfg, {"col*"}), (Pairs{{"colour", "red"}, {"color", "red"}}));
  EXPECT_EQ(get(cfg, {"*"}).size(), 6u);
  EXPECT_EQ(set(cfg, {"OLD-COLOUR", "blue"}), "OK");
  EXPECT_EQ(cfg.get("colour"), "blue");
  // A name and its alias are not duplicates: the later one wins.
  EXPECT_EQ(set(cfg, {"colour", "green", "color", "pink"}), "OK");
  EXPECT_EQ(cfg.get("colour"), "pink");
  EXPECT_EQ(cfg.find("Color"), cfg.find("colour"));
}

TEST(ConfigGetSet, SetErrors) {
  Config cfg;
  EXPECT_EQ(set(cfg, {"foo", "bar"}),
            "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
  EXPECT_EQ(set(cfg, {"port", "abc"}),
            "ERR CONFIG SET failed (possibly related to argument 'port') - argument couldn't be "
            "parsed into an integer");
  EXPECT_EQ(set(cfg, {"databases", "5"}),
            "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
            "immutable config");
  EXPECT_EQ(set(cfg, {"dir", "/tmp"}),
            "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected "
            "config");
  EXPECT_EQ(set(cfg, {"hz", "5", "hz", "6"}),
            "ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter");
  EXPECT_EQ(set(cfg, {"hz", "5", "HZ", "6"}),
            "ERR CONFIG SET failed (possibly related to argument 'HZ') - duplicate parameter");
  EXPECT_EQ(set(cfg, {"hz", "5", "foo"}), "ERR syntax error");
  for (const char* immutable :
       {"unixsocket", "unixsocketperm", "tcp-backlog", "logfile", "daemonize", "pidfile",
        "appenddirname", "appendfilename", "enable-debug-command", "rdbchecksum"}) {
    EXPECT_EQ(set(cfg, {immutable, "x"}),
              std::string("ERR CONFIG SET failed (possibly related to argument '") + immutable +
                  "') - can't set immutable config");
  }
}

TEST(ConfigGetSet, NamesAreCheckedBeforeValues) {
  Config cfg;
  // Redis checks every name first: the immutable directive is reported although the bad port
  // value comes earlier.
  EXPECT_EQ(set(cfg, {"port", "abc", "databases", "5"}),
            "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
            "immutable config");
  EXPECT_EQ(set(cfg, {"port", "abc", "foo", "5"}),
            "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
  EXPECT_EQ(set(cfg, {"hz", "abc", "hz", "5"}),
            "ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter");
}

TEST(ConfigGetSet, SetIsAllOrNothing) {
  Config cfg;
  EXPECT_EQ(set(cfg, {"hz", "5", "maxmemory", "1mb", "port", "abc"}),
            "ERR CONFIG SET failed (possibly related to argument 'port') - argument couldn't be "
            "parsed into an integer");
  EXPECT_EQ(cfg.hz(), 10);
  EXPECT_EQ(cfg.maxmemory(), 0u);
  EXPECT_EQ(set(cfg, {"hz", "5", "maxmemory", "1mb", "port", "7000"}), "OK");
  EXPECT_EQ(cfg.hz(), 5);
  EXPECT_EQ(cfg.maxmemory(), 1u << 20);
  EXPECT_EQ(cfg.port(), 7000);
}

TEST(ConfigGetSet, ListenersHearActualChanges) {
  Config cfg;
  std::vector<std::string> heard_any;
  std::vector<std::int64_t> entries_seen;
  cfg.on_any_change([&](const Directive& d) { heard_any.emplace_back(d.name); });
  cfg.on_change("stream-node-max-entries",
                [&](const Directive&) { entries_seen.push_back(cfg.stream_node_max_entries()); });

  EXPECT_EQ(set(cfg, {"stream-node-max-entries", "50", "loglevel", "debug"}), "OK");
  EXPECT_EQ(heard_any, (std::vector<std::string>{"stream-node-max-entries", "loglevel"}));
  EXPECT_EQ(entries_seen, std::vector<std::int64_t>{50});

  // Setting the current value is not a change.
  heard_any.clear();
  EXPECT_EQ(set(cfg, {"stream-node-max-entries", "50", "maxclients", "10000"}), "OK");
  EXPECT_TRUE(heard_any.empty());

  // A failed SET tells nobody.
  EXPECT_NE(set(cfg, {"stream-node-max-entries", "60", "port", "x"}), "OK");
  EXPECT_TRUE(heard_any.empty());
  EXPECT_EQ(entries_seen.size(), 1u);
}

TEST(ConfigGetSet, RemovedListenersAreQuiet) {
  Config cfg;
  int calls = 0;
  auto id = cfg.on_change("hz", [&](const Directive&) { ++calls; });
  EXPECT_EQ(set(cfg, {"hz", "20"}), "OK");
  cfg.remove(id);
  EXPECT_EQ(set(cfg, {"hz", "30"}), "OK");
  EXPECT_EQ(calls, 1);
}

TEST(ConfigGetSet, ApplyHookFailureRollsBack) {
  Config cfg;
  std::vector<std::string> log;
  int listener_calls = 0;
  cfg.on_any_change([&](const Directive&) { ++listener_calls; });
  cfg.add_apply_hook({"maxclients"}, [&]() -> std::optional<std::string> {
    log.push_back("maxclients " + std::to_string(cfg.maxclients()));
    return std::nullopt;
  });
  // Like a listener rebinding: it sees the new values, and refuses port 1.
  cfg.add_apply_hook({"port", "bind"}, [&]() -> std::optional<std::string> {
    log.push_back("listen " + std::to_string(cfg.port()));
    if (cfg.port() == 1) return "Unable to listen on this port";
    return std::nullopt;
  });

  EXPECT_EQ(set(cfg, {"maxclients", "5", "hz", "20", "port", "1"}),
            "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on "
            "this port");
  EXPECT_EQ(cfg.port(), 6379);
  EXPECT_EQ(cfg.maxclients(), 10000);
  EXPECT_EQ(cfg.hz(), 10);
  EXPECT_EQ(listener_calls, 0);
  // The hooks ran in registration order on the new values until the port hook failed, then
  // both ran again on the restored ones.
  EXPECT_EQ(log, (std::vector<std::string>{"maxclients 5", "listen 1", "maxclients 10000",
                                           "listen 6379"}));

  log.clear();
  EXPECT_EQ(set(cfg, {"bind", "0.0.0.0", "port", "7000"}), "OK");
  EXPECT_EQ(log, std::vector<std::string>{"listen 7000"});  // once for the group
  EXPECT_EQ(listener_calls, 2);

  log.clear();
  EXPECT_EQ(set(cfg, {"hz", "11"}), "OK");  // no hook for hz
  EXPECT_TRUE(log.empty());
}

TEST(ConfigGetSet, ForceSetBypassesMutability) {
  Config cfg;
  int calls = 0;
  cfg.on_change("dir", [&](const Directive&) { ++calls; });
  EXPECT_FALSE(cfg.force_set("dir", "/var/lib/streamd").has_value());
  EXPECT_EQ(cfg.dir(), "/var/lib/streamd");
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(cfg.force_set("databases", "4").has_value());
  EXPECT_EQ(cfg.databases(), 4);
}

TEST(ConfigGetSet, CustomTableWithoutBuiltins) {
  Config cfg(kTestTable);
  EXPECT_EQ(set(cfg, {"fixed", "6"}),
            "ERR CONFIG SET failed (possibly related to argument 'fixed') - can't set immutable "
            "config");
  EXPECT_EQ(set(cfg, {"size", "101"}),
            "ERR CONFIG SET failed (possibly related to argument 'size') - argument must be "
            "between 0 and 100 inclusive");
  EXPECT_EQ(set(cfg, {"flag", "yes", "size", "7"}), "OK");
  EXPECT_TRUE(cfg.ref<bool>("flag"));
  EXPECT_EQ(cfg.ref<std::int64_t>("size"), 7);
}

}  // namespace
}  // namespace streamd::config
