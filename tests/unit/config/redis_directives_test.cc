// Redis's directives that streamd accepts without acting on them (a stock redis.conf must load),
// protected-mode, and enable-protected-configs. Texts and CONFIG GET shapes were observed with
// redis-server 7.0.15 (`CONFIG SET shutdown-on-sigterm "save nosave"` and friends).
#include <gtest/gtest.h>

#include <algorithm>

#include "config/config_test_util.h"
#include "streamd/config/config.h"

namespace streamd::config {
namespace {

using test::ScratchDir;
using test::set;

std::string load_error(Config& cfg, const std::string& file) {
  const std::string_view args[] = {file};
  auto err = cfg.load(parse_command_line(args));
  return err ? err->fatal_text("Redis 7.0.15") : "no error";
}

// Every line of Debian 12's /etc/redis/redis.conf (redis-server 7.0.15) that streamd refused
// before these directives were accepted, values as Debian ships them.
constexpr const char* kDebianLines =
    "protected-mode yes\n"
    "always-show-logo no\n"
    "set-proc-title yes\n"
    "proc-title-template \"{title} {listen-addr} {server-mode}\"\n"
    "rdb-del-sync-files no\n"
    "repl-diskless-load disabled\n"
    "repl-disable-tcp-nodelay no\n"
    "acllog-max-len 128\n"
    "lazyfree-lazy-eviction no\n"
    "lazyfree-lazy-expire no\n"
    "lazyfree-lazy-server-del no\n"
    "replica-lazy-flush no\n"
    "lazyfree-lazy-user-del no\n"
    "lazyfree-lazy-user-flush no\n"
    "oom-score-adj no\n"
    "oom-score-adj-values 0 200 800\n"
    "disable-thp yes\n"
    "no-appendfsync-on-rewrite no\n"
    "aof-timestamp-enabled no\n"
    "hash-max-listpack-entries 512\n"
    "hash-max-listpack-value 64\n"
    "list-max-listpack-size -2\n"
    "list-compress-depth 0\n"
    "set-max-intset-entries 512\n"
    "zset-max-listpack-entries 128\n"
    "zset-max-listpack-value 64\n"
    "hll-sparse-max-bytes 3000\n"
    "activerehashing yes\n"
    "dynamic-hz yes\n"
    "aof-rewrite-incremental-fsync yes\n"
    "rdb-save-incremental-fsync yes\n"
    "jemalloc-bg-thread yes\n";

TEST(RedisDirectives, DebiansStockLinesLoadAsTheirDefaults) {
  ScratchDir dir;
  Config cfg;
  EXPECT_EQ(load_error(cfg, dir.write("redis.conf", kDebianLines)), "no error");
  // Debian ships the defaults: nothing to warn of.
  EXPECT_TRUE(cfg.set_without_effect().empty());
  EXPECT_EQ(cfg.get("oom-score-adj-values"), "0 200 800");
  EXPECT_EQ(cfg.get("proc-title-template"), "{title} {listen-addr} {server-mode}");
  EXPECT_EQ(cfg.get("hash-max-listpack-value"), "64");
}

TEST(RedisDirectives, RedisTestSuiteDefaultsLoad) {
  // tests/assets/default.conf of Redis's own test suite, the lines streamd refused.
  ScratchDir dir;
  Config cfg;
  EXPECT_EQ(load_error(cfg, dir.write("default.conf",
                                      "always-show-logo yes\n"
                                      "activerehashing yes\n"
                                      "enable-protected-configs yes\n"
                                      "enable-debug-command yes\n"
                                      "enable-module-command yes\n"
                                      "propagation-error-behavior panic\n"
                                      "shutdown-on-sigterm force\n")),
            "no error");
  EXPECT_EQ(cfg.enable_protected_configs(), LocalPermission::kYes);
  // Changed from their defaults, and without effect here: startup warns of each
  // (shutdown-on-sigterm has an effect: the shutdown sequence runs with its flags; so has
  // enable-module-command: it guards MODULE LOAD / UNLOAD).
  std::vector<std::string_view> warned = cfg.set_without_effect();
  EXPECT_EQ(warned, (std::vector<std::string_view>{"propagation-error-behavior"}));
}

TEST(RedisDirectives, LegacyNamesAreAliases) {
  Config cfg;
  EXPECT_EQ(set(cfg, {"hash-max-ziplist-entries", "100"}), "OK");
  EXPECT_EQ(cfg.get("hash-max-listpack-entries"), "100");
  EXPECT_EQ(set(cfg, {"lua-time-limit", "7"}), "OK");
  EXPECT_EQ(cfg.get("busy-reply-threshold"), "7");
  EXPECT_EQ(set(cfg, {"slave-lazy-flush", "yes"}), "OK");
  EXPECT_EQ(cfg.get("replica-lazy-flush"), "yes");
}

TEST(RedisDirectives, ShutdownOnSignalFlags) {
  Config cfg;
  EXPECT_EQ(cfg.get("shutdown-on-sigterm"), "default");
  EXPECT_EQ(set(cfg, {"shutdown-on-sigterm", "NOW force"}), "OK");
  EXPECT_EQ(cfg.get("shutdown-on-sigterm"), "now force");
  EXPECT_EQ(set(cfg, {"shutdown-on-sigint", "force save"}), "OK");
  EXPECT_EQ(cfg.get("shutdown-on-sigint"), "save force");  // Redis's order, not the input's
  EXPECT_EQ(set(cfg, {"shutdown-on-sigint", "nosave"}), "OK");
  EXPECT_EQ(cfg.get("shutdown-on-sigint"), "nosave");
  EXPECT_EQ(set(cfg, {"shutdown-on-sigterm", "save nosave"}),
            "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigterm') - "
            "shutdown options SAVE and NOSAVE can't be used simultaneously");
  EXPECT_EQ(set(cfg, {"shutdown-on-sigterm", "bogus"}),
            "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigterm') - "
            "argument(s) must be one of the following: default, save, nosave, now, force");
  EXPECT_EQ(cfg.get("shutdown-on-sigterm"), "now force");  // unchanged by the failures
}

TEST(RedisDirectives, OomScoreAdjValues) {
  Config cfg;
  EXPECT_EQ(set(cfg, {"oom-score-adj-values", "-5 +10 2000"}), "OK");
  EXPECT_EQ(cfg.get("oom-score-adj-values"), "-5 10 2000");
  EXPECT_EQ(set(cfg, {"oom-score-adj-values", "1 2"}),
            "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - "
            "wrong number of arguments");
  EXPECT_EQ(set(cfg, {"oom-score-adj-values", "1 2 3000"}),
            "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - "
            "Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
  EXPECT_EQ(set(cfg, {"oom-score-adj", "yes"}), "OK");
  EXPECT_EQ(cfg.get("oom-score-adj"), "yes");
}

TEST(RedisDirectives, ValuesAreCheckedAsRedisChecksThem) {
  Config cfg;
  const std::string bad_template =
      "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - template "
      "format is invalid or contains unknown variables";
  EXPECT_EQ(set(cfg, {"proc-title-template", "{foo}"}), bad_template);
  EXPECT_EQ(set(cfg, {"proc-title-template", "{title"}), bad_template);
  EXPECT_EQ(set(cfg, {"proc-title-template", "{title} {server-mode}"}), bad_template);
  EXPECT_EQ(set(cfg, {"proc-title-template", "streamd {port}"}), "OK");
  EXPECT_EQ(set(cfg, {"maxmemory-samples", "65"}),
            "ERR CONFIG SET failed (possibly related to argument 'maxmemory-samples') - "
            "argument must be between 1 and 64 inclusive");
  EXPECT_EQ(set(cfg, {"io-threads", "4"}),
            "ERR CONFIG SET failed (possibly related to argument 'io-threads') - can't set "
            "immutable config");
  EXPECT_EQ(set(cfg, {"repl-diskless-load", "sometimes"}),
            "ERR CONFIG SET failed (possibly related to argument 'repl-diskless-load') - "
            "argument(s) must be one of the following: disabled, on-empty-db, swapdb");
}

TEST(RedisDirectives, ClusterModeIsRefused) {
  ScratchDir dir;
  Config cfg;
  EXPECT_EQ(load_error(cfg, dir.write("a.conf", "cluster-enabled no\n")), "no error");
  EXPECT_EQ(load_error(cfg, dir.write("b.conf", "cluster-enabled yes\n")),
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, "
            "at line 1\n>>> 'cluster-enabled yes'\nstreamd does not run in cluster mode");
}

TEST(RedisDirectives, UserLinesAndAclfileAreKept) {
  // The config layer keeps `user` lines, in order, for startup to apply (it knows no ACL rules);
  // a `user` line needs a name. aclfile is a plain directive, immutable as in Redis.
  ScratchDir dir;
  Config cfg;
  EXPECT_EQ(load_error(cfg, dir.write("a.conf",
                                      "user default off\nuser alice on >p ~* +@all\n"
                                      "aclfile /etc/redis/users.acl\n")),
            "no error");
  ASSERT_EQ(cfg.users().size(), 2u);
  EXPECT_EQ(cfg.users()[0].words, (std::vector<std::string>{"default", "off"}));
  EXPECT_EQ(cfg.users()[1].words, (std::vector<std::string>{"alice", "on", ">p", "~*", "+@all"}));
  EXPECT_EQ(cfg.users()[1].at.line, 2);
  EXPECT_EQ(cfg.get("aclfile"), "/etc/redis/users.acl");
  EXPECT_NE(load_error(cfg, dir.write("b.conf", "user\n")), "no error");
  EXPECT_EQ(set(cfg, {"aclfile", "/tmp/x.acl"}),
            "ERR CONFIG SET failed (possibly related to argument 'aclfile') - can't set immutable "
            "config");
}

TEST(RedisDirectives, ProtectedConfigsChangeOnlyWhenAllowed) {
  Config cfg;
  EXPECT_EQ(set(cfg, {"dir", "/tmp"}),
            "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected "
            "config");
  EXPECT_EQ(set(cfg, {"dbfilename", "x.rdb"}, true), "OK");
  EXPECT_EQ(cfg.get("dbfilename"), "x.rdb");
  // Allowing protected ones does not make immutable ones settable.
  EXPECT_EQ(set(cfg, {"databases", "4"}, true),
            "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
            "immutable config");
  EXPECT_EQ(set(cfg, {"enable-protected-configs", "yes"}),
            "ERR CONFIG SET failed (possibly related to argument 'enable-protected-configs') - "
            "can't set immutable config");
}

TEST(RedisDirectives, ProtectedModeIsOnByDefaultAndSettable) {
  Config cfg;
  EXPECT_TRUE(cfg.protected_mode());
  EXPECT_EQ(set(cfg, {"protected-mode", "no"}), "OK");
  EXPECT_FALSE(cfg.protected_mode());
  EXPECT_TRUE(cfg.set_without_effect().empty());  // it has an effect
}

TEST(RedisDirectives, RewriteKeepsChangedOnes) {
  Config cfg;
  EXPECT_EQ(set(cfg, {"lazyfree-lazy-user-del", "yes", "shutdown-on-sigint", "now"}), "OK");
  const std::string text = cfg.rewrite_text("port 6379\n");
  EXPECT_NE(text.find("\nlazyfree-lazy-user-del yes\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nshutdown-on-sigint now\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("oom-score-adj"), std::string::npos) << text;  // defaults stay out
}

}  // namespace
}  // namespace streamd::config
