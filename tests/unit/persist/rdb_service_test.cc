// RDB snapshots in-process: the save-rule decisions on plain numbers, then SAVE, BGSAVE
// [SCHEDULE], LASTSAVE, the rules firing from cron, MISCONF after a failed BGSAVE, the SHUTDOWN
// save, DEBUG RELOAD and the startup precedence (AOF when appendonly yes, else dump.rdb) through
// the command harness, in a temporary working directory; then snapshots next to a full sync's
// child, FLUSHALL, and the replication fields (RdbChildrenTest). BGSAVE really forks here.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "commands/command_harness.h"
#include "repl/fake_replication.h"
#include "streamd/persist/aof_service.h"
#include "streamd/persist/rdb/rdb.h"
#include "streamd/persist/rdb_service.h"
#include "streamd/persist/save_rules.h"
#include "streamd/persist/startup.h"

namespace streamd::persist {
namespace {

namespace fs = std::filesystem;
using Mode = cmd::Snapshots::ShutdownSave;
using config::SavePoint;
using config::SavePoints;

const SavePoints kRedisDefault = {{3600, 1}, {300, 100}, {60, 10000}};

TEST(SaveRules, NeedBothChangesAndStrictlyMoreSeconds) {
  SaveClock c{.dirty = 1, .now_s = 1000 + 3600, .lastsave_s = 1000};
  EXPECT_FALSE(due_save_point(kRedisDefault, c));  // 3600 s is not more than 3600
  c.now_s += 1;
  EXPECT_EQ(due_save_point(kRedisDefault, c), (SavePoint{3600, 1}));
  c.dirty = 0;
  EXPECT_FALSE(due_save_point(kRedisDefault, c));
  // 100 changes after 301 s: the second rule; 10000 after 61 s: the third.
  EXPECT_EQ(due_save_point(kRedisDefault, {.dirty = 100, .now_s = 301, .lastsave_s = 0}),
            (SavePoint{300, 100}));
  EXPECT_FALSE(due_save_point(kRedisDefault, {.dirty = 99, .now_s = 301, .lastsave_s = 0}));
  EXPECT_EQ(due_save_point(kRedisDefault, {.dirty = 10000, .now_s = 61, .lastsave_s = 0}),
            (SavePoint{60, 10000}));
  // The first rule that fires, in configuration order.
  SavePoints both = {{10, 5}, {5, 5}};
  EXPECT_EQ(due_save_point(both, {.dirty = 5, .now_s = 11, .lastsave_s = 0}), (SavePoint{10, 5}));
  EXPECT_FALSE(due_save_point({}, {.dirty = 1000000, .now_s = 1000000, .lastsave_s = 0}));
  // "save 1 0": saves every second even without changes, as Redis does.
  EXPECT_EQ(due_save_point({{1, 0}}, {.dirty = 0, .now_s = 2, .lastsave_s = 0}), (SavePoint{1, 0}));
}

TEST(SaveRules, AFailedBgsaveWaitsTheRetryDelay) {
  SaveClock c{.dirty = 50, .now_s = 2000, .lastsave_s = 0, .last_try_s = 2000, .last_ok = false};
  for (int64_t wait = 0; wait <= kBgsaveRetryDelaySec; ++wait) {
    c.now_s = 2000 + wait;
    EXPECT_FALSE(due_save_point({{1, 1}}, c)) << wait;
    EXPECT_FALSE(scheduled_bgsave_may_start(c)) << wait;
  }
  c.now_s = 2000 + kBgsaveRetryDelaySec + 1;
  EXPECT_TRUE(due_save_point({{1, 1}}, c));
  EXPECT_TRUE(scheduled_bgsave_may_start(c));
  c.last_ok = true;
  c.now_s = 2000;
  EXPECT_TRUE(scheduled_bgsave_may_start(c));
}

TEST(SaveRules, ShutdownSavesWithRulesOrWhenAsked) {
  EXPECT_TRUE(shutdown_saves(true, Mode::kDefault));
  EXPECT_FALSE(shutdown_saves(false, Mode::kDefault));
  EXPECT_TRUE(shutdown_saves(false, Mode::kSave));
  EXPECT_FALSE(shutdown_saves(true, Mode::kNoSave));
}

// A server in a fresh temporary working directory (the process's cwd while the test runs).
class RdbServiceTest : public ::testing::Test {
 protected:
  RdbServiceTest() {
    char tmpl[] = "/tmp/streamd-rdb-test-XXXXXX";
    EXPECT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    old_cwd_ = fs::current_path();
    fs::current_path(dir_);
    fresh();
  }
  ~RdbServiceTest() override {
    rdb_.reset();
    h_.reset();
    fs::current_path(old_cwd_);
    fs::remove_all(dir_);
  }
  // A new server (a restart), `advance_ms` later than the harness's start time.
  void fresh(int64_t advance_ms = 0) {
    rdb_.reset();
    h_ = std::make_unique<test::CommandHarness>();
    h_->config().set("appendonly", "no");
    h_->Advance(advance_ms);
    if (repl_) h_->server().set_replication(repl_);
    rdb_ = std::make_unique<RdbService>(h_->server());
  }
  std::string run(const std::vector<std::string>& argv) { return test::Decode(h_->Run2(argv)); }
  std::string info(std::string_view field) {
    std::string text = run({"INFO", "persistence"});
    std::string key = std::string(field) + ":";
    auto at = text.find(key);
    if (at == std::string::npos) return "?";
    auto end = text.find_first_of("\r\n\"", at);
    return text.substr(at + key.size(), end - at - key.size());
  }
  bool temp_files_left() {
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().filename().string().rfind("temp-", 0) == 0) return true;
    }
    return false;
  }

  fs::path dir_, old_cwd_;
  test::FakeReplication* repl_ = nullptr;  // attached by fresh() when set
  std::unique_ptr<test::CommandHarness> h_;
  std::unique_ptr<RdbService> rdb_;
};

TEST_F(RdbServiceTest, SaveWritesTheFileAndARestartLoadsIt) {
  rdb_->attach();
  EXPECT_EQ(run({"SET", "a", "1"}), "+OK");
  EXPECT_EQ(run({"XADD", "s", "5-1", "f", "v"}), "\"5-1\"");
  EXPECT_EQ(info("rdb_changes_since_last_save"), "2");
  h_->Advance(3000);
  EXPECT_EQ(run({"SAVE"}), "+OK");
  EXPECT_TRUE(fs::exists(dir_ / "dump.rdb"));
  EXPECT_FALSE(temp_files_left());
  EXPECT_EQ(run({"LASTSAVE"}),
            "(integer) " + std::to_string(test::CommandHarness::kStartMs / 1000 + 3));
  EXPECT_EQ(info("rdb_changes_since_last_save"), "0");
  EXPECT_EQ(info("rdb_saves"), "1");
  EXPECT_EQ(info("rdb_last_bgsave_status"), "ok");

  fresh();
  ASSERT_TRUE(rdb_->load_at_startup());
  rdb_->attach();
  EXPECT_EQ(run({"GET", "a"}), "\"1\"");
  EXPECT_EQ(run({"XRANGE", "s", "-", "+"}), "[[\"5-1\", [\"f\", \"v\"]]]");
  EXPECT_EQ(info("rdb_last_load_keys_loaded"), "2");
  EXPECT_EQ(info("rdb_last_load_keys_expired"), "0");
}

TEST_F(RdbServiceTest, CommandsWithoutAService) {
  EXPECT_EQ(run({"SAVE"}), "(error) ERR");
  EXPECT_EQ(run({"LASTSAVE"}),
            "(integer) " + std::to_string(test::CommandHarness::kStartMs / 1000));
  EXPECT_EQ(info("rdb_last_save_time"), std::to_string(test::CommandHarness::kStartMs / 1000));
}

TEST_F(RdbServiceTest, BgsaveForksAndKeepsWritesMadeMeanwhileAsChanges) {
  rdb_->attach();
  for (int i = 0; i < 3; ++i) run({"SET", "k" + std::to_string(i), "v"});
  EXPECT_EQ(run({"BGSAVE"}), "+Background saving started");
  EXPECT_GT(rdb_->child(), 0);
  EXPECT_EQ(info("rdb_bgsave_in_progress"), "1");
  EXPECT_EQ(run({"BGSAVE"}), "(error) ERR Background save already in progress");
  EXPECT_EQ(run({"BGSAVE", "SCHEDULE"}), "(error) ERR Background save already in progress");
  EXPECT_EQ(run({"SAVE"}), "(error) ERR Background save already in progress");
  run({"SET", "after", "fork"});
  run({"SET", "after2", "fork"});
  ASSERT_TRUE(rdb_->wait_child());
  EXPECT_EQ(info("rdb_bgsave_in_progress"), "0");
  EXPECT_EQ(info("rdb_changes_since_last_save"), "2");  // the two writes after the fork
  EXPECT_EQ(info("rdb_last_bgsave_status"), "ok");
  EXPECT_EQ(info("rdb_last_bgsave_time_sec"), "0");
  EXPECT_EQ(info("rdb_saves"), "1");
  EXPECT_FALSE(temp_files_left());

  fresh();
  ASSERT_TRUE(rdb_->load_at_startup());
  rdb_->attach();
  EXPECT_EQ(run({"DBSIZE"}), "(integer) 3");  // the snapshot is the state at the fork
  EXPECT_EQ(run({"GET", "after"}), "(nil)");
}

TEST_F(RdbServiceTest, BgsaveArgumentsAndScheduling) {
  rdb_->attach();
  EXPECT_EQ(run({"BGSAVE", "NOW"}), "(error) ERR syntax error");
  EXPECT_EQ(run({"BGSAVE", "SCHEDULE", "x"}), "(error) ERR syntax error");
  // With no other child, SCHEDULE starts at once (as Redis).
  EXPECT_EQ(run({"BGSAVE", "schedule"}), "+Background saving started");
  ASSERT_TRUE(rdb_->wait_child());
  // Inside EXEC it is always scheduled; the cron starts it.
  run({"MULTI"});
  run({"BGSAVE"});
  EXPECT_EQ(run({"EXEC"}), "[+Background saving scheduled]");
  EXPECT_EQ(rdb_->child(), 0);
  h_->Cron();
  EXPECT_GT(rdb_->child(), 0);
  ASSERT_TRUE(rdb_->wait_child());
  EXPECT_EQ(info("rdb_saves"), "2");
}

TEST_F(RdbServiceTest, SaveRulesFireFromCron) {
  rdb_->attach();
  ASSERT_FALSE(h_->config().set("save", "10 2"));
  run({"SET", "a", "1"});
  h_->Advance(11000);
  h_->Cron();
  EXPECT_EQ(rdb_->child(), 0);  // one change is not enough
  run({"SET", "b", "1"});
  h_->Cron();
  ASSERT_GT(rdb_->child(), 0);
  ASSERT_TRUE(rdb_->wait_child());
  EXPECT_EQ(info("rdb_changes_since_last_save"), "0");
  EXPECT_EQ(run({"LASTSAVE"}),
            "(integer) " + std::to_string(test::CommandHarness::kStartMs / 1000 + 11));
  run({"SET", "c", "1"});
  run({"SET", "d", "1"});
  h_->Advance(5000);
  h_->Cron();
  EXPECT_EQ(rdb_->child(), 0);  // 5 s since that save: not yet
}

TEST_F(RdbServiceTest, AFailedBgsaveRefusesWritesUntilASaveSucceeds) {
  rdb_->attach();
  // rename() cannot replace a directory that is not empty: the child's save fails.
  fs::create_directories(dir_ / "dump.rdb" / "blocker");
  ASSERT_FALSE(h_->config().set("save", "3600 1"));
  run({"SET", "a", "1"});
  EXPECT_EQ(run({"BGSAVE"}), "+Background saving started");
  EXPECT_FALSE(rdb_->wait_child());
  EXPECT_FALSE(temp_files_left());
  EXPECT_EQ(info("rdb_last_bgsave_status"), "err");
  const std::string misconf =
      "(error) MISCONF Redis is configured to save RDB snapshots, but it's currently unable to "
      "persist to disk. Commands that may modify the data set are disabled, because this "
      "instance is configured to report errors during writes if RDB snapshotting fails "
      "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the "
      "RDB error.";
  EXPECT_EQ(run({"SET", "b", "1"}), misconf);
  EXPECT_EQ(run({"PING"}), misconf);
  EXPECT_EQ(run({"GET", "a"}), "\"1\"");  // reads go on
  ASSERT_FALSE(h_->config().set("stop-writes-on-bgsave-error", "no"));
  EXPECT_EQ(run({"SET", "b", "1"}), "+OK");
  ASSERT_FALSE(h_->config().set("stop-writes-on-bgsave-error", "yes"));
  ASSERT_FALSE(h_->config().set("save", ""));
  EXPECT_EQ(run({"SET", "b", "2"}), "+OK");  // no rules: no refusal
  ASSERT_FALSE(h_->config().set("save", "3600 1"));
  EXPECT_EQ(run({"SAVE"}), "(error) ERR");
  fs::remove_all(dir_ / "dump.rdb");
  EXPECT_EQ(run({"SAVE"}), "+OK");
  EXPECT_EQ(run({"SET", "b", "3"}), "+OK");
  EXPECT_EQ(info("rdb_last_bgsave_status"), "ok");
}

TEST_F(RdbServiceTest, ShutdownSavesWithRulesOrWhenAsked) {
  rdb_->attach();
  run({"SET", "a", "1"});
  EXPECT_TRUE(rdb_->shutdown_save(Mode::kDefault));  // save "" (streamd's default)
  EXPECT_FALSE(fs::exists(dir_ / "dump.rdb"));
  fresh();
  rdb_->attach();
  run({"SET", "a", "1"});
  EXPECT_TRUE(rdb_->shutdown_save(Mode::kSave));
  EXPECT_TRUE(fs::exists(dir_ / "dump.rdb"));
  fs::remove(dir_ / "dump.rdb");
  fresh();
  ASSERT_FALSE(h_->config().set("save", "3600 1"));
  rdb_->attach();
  EXPECT_TRUE(rdb_->shutdown_save(Mode::kNoSave));
  EXPECT_FALSE(fs::exists(dir_ / "dump.rdb"));
  fresh();
  ASSERT_FALSE(h_->config().set("save", "3600 1"));
  rdb_->attach();
  EXPECT_TRUE(rdb_->shutdown_save(Mode::kDefault));
  EXPECT_TRUE(fs::exists(dir_ / "dump.rdb"));
  EXPECT_TRUE(rdb_->shutdown_save(Mode::kDefault));  // the second call (the hook) does nothing
  // A save that fails keeps the server up.
  fresh();
  fs::remove(dir_ / "dump.rdb");
  fs::create_directories(dir_ / "dump.rdb" / "blocker");
  rdb_->attach();
  EXPECT_FALSE(rdb_->shutdown_save(Mode::kSave));
}

TEST_F(RdbServiceTest, DebugReloadSavesAndLoadsBack) {
  h_->config().force_set("enable-debug-command", "yes");
  rdb_->attach();
  run({"SET", "a", "1", "EX", "100"});
  run({"XADD", "s", "1-1", "f", "v"});
  run({"XGROUP", "CREATE", "s", "g", "0"});
  run({"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"});
  EXPECT_EQ(run({"DEBUG", "RELOAD"}), "+OK");
  EXPECT_TRUE(fs::exists(dir_ / "dump.rdb"));
  EXPECT_EQ(run({"TTL", "a"}), "(integer) 100");
  EXPECT_EQ(run({"XPENDING", "s", "g"}), "[(integer) 1, \"1-1\", \"1-1\", [[\"c\", \"1\"]]]");
  EXPECT_EQ(run({"DEBUG", "RELOAD", "BOGUS"}),
            "(error) ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
  // NOSAVE loads the file as it is: the key set since is gone.
  run({"SET", "new", "1"});
  EXPECT_EQ(run({"DEBUG", "RELOAD", "NOSAVE"}), "+OK");
  EXPECT_EQ(run({"EXISTS", "new"}), "(integer) 0");
  // NOFLUSH over data: streamd loads only into an empty keyspace.
  EXPECT_EQ(run({"DEBUG", "RELOAD", "NOFLUSH", "NOSAVE"}),
            "(error) ERR Error trying to load the RDB dump");
}

TEST_F(RdbServiceTest, KeysExpiredAtLoadAreDropped) {
  rdb_->attach();
  run({"SET", "short", "1", "PX", "1000"});
  run({"SET", "long", "1", "PX", "100000"});
  EXPECT_EQ(run({"SAVE"}), "+OK");
  fresh(5000);
  ASSERT_TRUE(rdb_->load_at_startup());
  rdb_->attach();
  EXPECT_EQ(run({"KEYS", "*"}), "[\"long\"]");
  EXPECT_EQ(info("rdb_last_load_keys_loaded"), "1");
  EXPECT_EQ(info("rdb_last_load_keys_expired"), "1");
}

TEST_F(RdbServiceTest, ABadFileStopsStartupAndAMissingOneStartsEmpty) {
  EXPECT_TRUE(rdb_->load_at_startup());  // no dump.rdb
  {
    std::FILE* f = std::fopen("dump.rdb", "wb");
    std::fputs("REDIS0011\xfe", f);
    std::fclose(f);
  }
  fresh();
  EXPECT_FALSE(rdb_->load_at_startup());
}

TEST_F(RdbServiceTest, StartupPrefersTheAofWhenAppendonlyIsOn) {
  rdb_->attach();
  run({"SET", "from-rdb", "1"});
  EXPECT_EQ(run({"SAVE"}), "+OK");

  fresh();
  {
    AofOptions o = AofService::options_from(h_->config());
    o.enabled = true;
    AofService aof(h_->server(), h_->dispatcher(), o);
    ASSERT_TRUE(load_dataset(*rdb_, aof, true));
    EXPECT_EQ(run({"EXISTS", "from-rdb"}), "(integer) 0");  // dump.rdb ignored
    EXPECT_TRUE(fs::exists(dir_ / "appendonlydir"));
    EXPECT_TRUE(aof.shutdown_flush());
  }
  fresh();
  {
    AofOptions o = AofService::options_from(h_->config());
    o.enabled = false;
    AofService aof(h_->server(), h_->dispatcher(), o);
    ASSERT_TRUE(load_dataset(*rdb_, aof, false));
    EXPECT_EQ(run({"GET", "from-rdb"}), "\"1\"");
  }
}

TEST_F(RdbServiceTest, AnAofWithAnRdbBaseLoads) {
  rdb_->attach();
  run({"SET", "in-base", "1"});
  run({"XADD", "s", "1-1", "f", "v"});
  EXPECT_EQ(run({"SAVE"}), "+OK");
  fs::create_directories(dir_ / "appendonlydir");
  fs::rename(dir_ / "dump.rdb", dir_ / "appendonlydir" / "appendonly.aof.1.base.rdb");
  {
    std::FILE* f = std::fopen("appendonlydir/appendonly.aof.1.incr.aof", "wb");
    std::fputs("*3\r\n$3\r\nSET\r\n$7\r\nin-incr\r\n$1\r\n2\r\n", f);
    std::fclose(f);
    f = std::fopen("appendonlydir/appendonly.aof.manifest", "wb");
    std::fputs(
        "file appendonly.aof.1.base.rdb seq 1 type b\n"
        "file appendonly.aof.1.incr.aof seq 1 type i\n",
        f);
    std::fclose(f);
  }
  fresh();
  AofOptions o = AofService::options_from(h_->config());
  o.enabled = true;
  AofService aof(h_->server(), h_->dispatcher(), o);
  ASSERT_TRUE(load_dataset(*rdb_, aof, true));
  EXPECT_EQ(run({"GET", "in-base"}), "\"1\"");
  EXPECT_EQ(run({"GET", "in-incr"}), "\"2\"");
  EXPECT_EQ(run({"XLEN", "s"}), "(integer) 1");
  // aof-use-rdb-preamble yes: the rewrite's base is an RDB again, named .base.rdb.
  ASSERT_FALSE(h_->config().set("aof-use-rdb-preamble", "yes"));
  ASSERT_EQ(aof.start_rewrite(false), cmd::Persistence::RewriteStart::kStarted);
  ASSERT_TRUE(aof.wait_rewrite());
  ASSERT_TRUE(aof.manifest().base);
  EXPECT_EQ(aof.manifest().base->name, "appendonly.aof.2.base.rdb");
  EXPECT_TRUE(aof.shutdown_flush());
}

// ---- next to the other forks and to replication (issue 14) -----------------------------------
// A full sync's child counts as an RDB child (SAVE / BGSAVE refused, INFO rdb_bgsave_in_progress,
// the save rules wait), FLUSHALL kills a running BGSAVE and with save rules saves an empty file,
// and the replication fields (repl-stream-db, repl-id, repl-offset) go into saved files and come
// back at startup.
class RdbChildrenTest : public RdbServiceTest {
 protected:
  RdbChildrenTest() {
    repl_ = &fake_;
    fresh();
  }
  ~RdbChildrenTest() override {  // before fake_ goes: the server points at it
    rdb_.reset();
    h_.reset();
  }
  // The AUX fields of the saved dump.rdb.
  std::vector<std::pair<std::string, std::string>> saved_aux() {
    std::string bytes;
    {
      std::FILE* f = std::fopen("dump.rdb", "rb");
      EXPECT_NE(f, nullptr);
      if (!f) return {};
      char buf[4096];
      std::size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
      std::fclose(f);
    }
    engine::Keyspace ks(16, h_->server().clock());
    rdb::LoadStats st;
    std::string error;
    EXPECT_TRUE(rdb::load(bytes, ks, {}, &st, &error)) << error;
    return st.aux;
  }

  test::FakeReplication fake_;
};

TEST_F(RdbChildrenTest, AFullSyncChildCountsAsAnRdbChild) {
  rdb_->attach();
  ASSERT_FALSE(h_->config().set("save", "1 0"));
  run({"SET", "a", "1"});
  fake_.sync_child = true;
  // As redis-server 7.0.15 answers while a replica's snapshot is being made.
  EXPECT_EQ(run({"SAVE"}), "(error) ERR Background save already in progress");
  EXPECT_EQ(run({"BGSAVE"}), "(error) ERR Background save already in progress");
  EXPECT_EQ(run({"BGSAVE", "SCHEDULE"}), "(error) ERR Background save already in progress");
  EXPECT_EQ(info("rdb_bgsave_in_progress"), "1");
  h_->Advance(2000);
  h_->Cron();
  EXPECT_EQ(rdb_->child(), 0);  // the save rule waits for the other child
  fake_.sync_child = false;
  EXPECT_EQ(info("rdb_bgsave_in_progress"), "0");
  h_->Cron();
  EXPECT_GT(rdb_->child(), 0);
  ASSERT_TRUE(rdb_->wait_child());
}

TEST_F(RdbChildrenTest, FlushallWithSaveRulesSavesAnEmptyFile) {
  rdb_->attach();
  run({"SET", "a", "1"});
  EXPECT_EQ(run({"FLUSHALL"}), "+OK");
  EXPECT_FALSE(fs::exists(dir_ / "dump.rdb"));  // no rules: nothing saved
  EXPECT_EQ(info("rdb_changes_since_last_save"), "2");
  ASSERT_FALSE(h_->config().set("save", "3600 1"));
  run({"SET", "a", "1"});
  run({"SET", "b", "1"});
  h_->Advance(5000);
  EXPECT_EQ(run({"FLUSHALL"}), "+OK");
  ASSERT_TRUE(fs::exists(dir_ / "dump.rdb"));
  // As redis-server 7.0.15: no change left to save, LASTSAVE moved, rdb_saves did not.
  EXPECT_EQ(info("rdb_changes_since_last_save"), "0");
  EXPECT_EQ(info("rdb_saves"), "0");
  EXPECT_EQ(run({"LASTSAVE"}),
            "(integer) " + std::to_string(test::CommandHarness::kStartMs / 1000 + 5));
  fresh();
  ASSERT_TRUE(rdb_->load_at_startup());
  EXPECT_EQ(run({"DBSIZE"}), "(integer) 0");
}

TEST_F(RdbChildrenTest, FlushallKillsARunningBgsave) {
  rdb_->attach();
  run({"SET", "a", "1"});
  EXPECT_EQ(run({"BGSAVE"}), "+Background saving started");
  ASSERT_GT(rdb_->child(), 0);
  EXPECT_EQ(run({"FLUSHALL"}), "+OK");
  EXPECT_EQ(rdb_->child(), 0);
  EXPECT_EQ(info("rdb_bgsave_in_progress"), "0");
  EXPECT_EQ(info("rdb_last_bgsave_status"), "ok");
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_NE(e.path().filename().string().rfind("temp-", 0), 0u) << e.path();
  }
}

TEST_F(RdbChildrenTest, ReplicationFieldsAreSavedAndRestored) {
  rdb_->attach();
  run({"SET", "a", "1"});
  // Nothing to record (a master without a backlog): no fields.
  EXPECT_EQ(run({"SAVE"}), "+OK");
  for (const auto& [k, v] : saved_aux()) EXPECT_NE(k.rfind("repl-", 0), 0u) << k;
  fresh();
  ASSERT_TRUE(rdb_->load_at_startup());
  EXPECT_FALSE(rdb_->loaded_repl_info());

  const std::string id(40, 'a');
  fake_.save_info = cmd::ReplSaveInfo{3, id, 123456};
  rdb_->attach();
  EXPECT_EQ(run({"SAVE"}), "+OK");
  auto aux = saved_aux();
  auto has = [&](std::string_view k, std::string_view v) {
    for (const auto& [ak, av] : aux) {
      if (ak == k) return av == v;
    }
    return false;
  };
  EXPECT_TRUE(has("repl-stream-db", "3"));
  EXPECT_TRUE(has("repl-id", id));
  EXPECT_TRUE(has("repl-offset", "123456"));
  // BGSAVE's child writes them too.
  fake_.save_info->offset = 777;
  EXPECT_EQ(run({"BGSAVE"}), "+Background saving started");
  ASSERT_TRUE(rdb_->wait_child());
  aux = saved_aux();
  EXPECT_TRUE(has("repl-offset", "777"));
  fresh();
  ASSERT_TRUE(rdb_->load_at_startup());
  ASSERT_TRUE(rdb_->loaded_repl_info());
  EXPECT_EQ(rdb_->loaded_repl_info()->stream_db, 3);
  EXPECT_EQ(rdb_->loaded_repl_info()->replid, id);
  EXPECT_EQ(rdb_->loaded_repl_info()->offset, 777);
}

}  // namespace
}  // namespace streamd::persist
