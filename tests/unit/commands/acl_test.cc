// ACL users, rules and checks (commands/acl/), with plain calls: no server, no sockets.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "streamd/commands/acl/acl.h"
#include "streamd/commands/core/command_table.h"

namespace streamd::cmd::acl {
namespace {

// Applies rules in order; the first failure's error, or kNone.
RuleError apply(User& u, std::initializer_list<std::string_view> rules) {
  for (std::string_view r : rules) {
    if (RuleError e = u.apply(r, false); e != RuleError::kNone) return e;
  }
  return RuleError::kNone;
}

Check run(const User& u, std::vector<std::string_view> argv) {
  const CommandSpec* spec = CommandTable::instance().lookup(argv).spec;
  EXPECT_NE(spec, nullptr) << argv[0];
  return check_command(u, *spec, argv);
}

TEST(AclUser, NewUserIsOffWithNothingAllowed) {
  User u("alice", false);
  EXPECT_EQ(u.describe(), "off sanitize-payload resetchannels -@all");
  EXPECT_EQ(run(u, {"get", "k"}).denied, Denied::kCommand);
  User open("bob", true);  // acl-pubsub-default allchannels
  EXPECT_EQ(open.describe(), "off sanitize-payload &* -@all");
}

TEST(AclUser, RulesAreShownInTheOrderGiven) {
  User u("alice", false);
  ASSERT_EQ(apply(u, {"on", ">p1", "~q:*", "%R~r*", "%W~w*", "%RW~rw*", "&ch*", "+@stream", "-xadd",
                      "+config|get", "+get"}),
            RuleError::kNone);
  EXPECT_EQ(u.describe(),
            "on sanitize-payload #" + hash_password("p1") +
                " ~q:* %R~r* %W~w* ~rw* resetchannels &ch* -@all +@stream -xadd +config|get +get");
  // A rule for a command replaces earlier ones for it and its subcommands, then goes last.
  ASSERT_EQ(apply(u, {"+client|kill", "-client|list", "+client"}), RuleError::kNone);
  EXPECT_EQ(describe_commands(u.selectors[0]), "-@all +@stream -xadd +config|get +get +client");
  ASSERT_EQ(apply(u, {"allcommands", "-debug"}), RuleError::kNone);
  EXPECT_EQ(describe_commands(u.selectors[0]), "+@all -debug");
  EXPECT_FALSE(u.selectors[0].all_commands);
}

TEST(AclUser, PasswordsAreSha256AndRemovable) {
  User u("alice", false);
  EXPECT_EQ(hash_password(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  ASSERT_EQ(apply(u, {">a", ">b", ">a"}), RuleError::kNone);
  EXPECT_EQ(u.passwords.size(), 2u);
  EXPECT_TRUE(u.check_password("b"));
  EXPECT_FALSE(u.check_password("c"));
  EXPECT_EQ(apply(u, {"<c"}), RuleError::kNoSuchPassword);
  EXPECT_EQ(apply(u, {"<a", "!" + hash_password("b")}), RuleError::kNone);
  EXPECT_TRUE(u.passwords.empty());
  EXPECT_EQ(apply(u, {"#ABC"}), RuleError::kBadHash);
  EXPECT_EQ(apply(u, {"#" + std::string(64, 'A')}), RuleError::kBadHash);
  ASSERT_EQ(apply(u, {"nopass"}), RuleError::kNone);
  EXPECT_TRUE(u.check_password("anything"));
  ASSERT_EQ(apply(u, {"resetpass"}), RuleError::kNone);
  EXPECT_FALSE(u.check_password("anything"));
}

TEST(AclUser, RuleErrorsAreRedisOnes) {
  User u("alice", false);
  EXPECT_EQ(apply(u, {"bogus"}), RuleError::kSyntax);
  EXPECT_EQ(apply(u, {"+nosuch"}), RuleError::kUnknownCommand);
  EXPECT_EQ(apply(u, {"+@nosuch"}), RuleError::kUnknownCommand);
  EXPECT_EQ(apply(u, {"-select|0"}), RuleError::kUnknownCommand);
  EXPECT_EQ(apply(u, {"+config|get|x"}), RuleError::kFirstArgOfSub);
  EXPECT_EQ(apply(u, {"+get|"}), RuleError::kSyntax);
  EXPECT_EQ(apply(u, {"%X~k"}), RuleError::kSyntax);
  EXPECT_EQ(apply(u, {"%RR~k"}), RuleError::kSyntax);
  EXPECT_EQ(apply(u, {"allkeys", "~k"}), RuleError::kKeyAfterAll);
  EXPECT_EQ(apply(u, {"allchannels", "&c"}), RuleError::kChannelAfterAll);
  EXPECT_EQ(apply(u, {"(on)"}), RuleError::kSyntax);  // user flags are not selector rules
  // As Redis: "%R" is "%R~" with an empty pattern; "+select|0" allows SELECT 0 only.
  EXPECT_EQ(apply(u, {"resetkeys", "%R"}), RuleError::kNone);
  EXPECT_EQ(describe_keys(u.selectors[0]), "%R~");
  ASSERT_EQ(apply(u, {"+select|0"}), RuleError::kNone);
  EXPECT_EQ(run(u, {"select", "0"}).denied, Denied::kNone);
  EXPECT_EQ(run(u, {"select", "1"}).denied, Denied::kCommand);
}

TEST(AclUser, RulesNameCommandsByTheirOriginalNames) {
  // rename-command changes what clients type, not what ACL rules say (Redis's orig_commands).
  CommandTable& t = CommandTable::instance();
  ASSERT_EQ(t.rename("config", "cfgx"), CommandTable::RenameResult::kOk);
  User u("alice", false);
  EXPECT_EQ(apply(u, {"+config|get", "-config|set", "+config"}), RuleError::kNone);
  EXPECT_EQ(apply(u, {"+cfgx"}), RuleError::kUnknownCommand);
  EXPECT_EQ(run(u, {"cfgx", "get", "x"}).denied, Denied::kNone);
  t.forget_renames();
}

TEST(AclCheck, KeysNeedTheirAccessKind) {
  User u("alice", false);
  ASSERT_EQ(apply(u, {"+@all", "%R~r*", "%W~w*", "~rw*"}), RuleError::kNone);
  EXPECT_EQ(run(u, {"get", "r1"}).denied, Denied::kNone);
  Check c = run(u, {"set", "r1", "v"});
  EXPECT_EQ(c.denied, Denied::kKey);
  EXPECT_EQ(c.arg, 1);
  EXPECT_EQ(run(u, {"set", "w1", "v"}).denied, Denied::kNone);
  EXPECT_EQ(run(u, {"get", "w1"}).denied, Denied::kKey);
  // SET ... GET reads the key too.
  EXPECT_EQ(run(u, {"set", "w1", "v", "get"}).denied, Denied::kKey);
  EXPECT_EQ(run(u, {"set", "rw1", "v", "get"}).denied, Denied::kNone);
  // Every key counts; the refusal names the first one denied.
  c = run(u, {"mset", "w1", "a", "r2", "b"});
  EXPECT_EQ(c.denied, Denied::kKey);
  EXPECT_EQ(c.arg, 3);
  c = run(u, {"xread", "streams", "r1", "x1", "0", "0"});
  EXPECT_EQ(c.denied, Denied::kKey);
  EXPECT_EQ(c.arg, 3);
}

TEST(AclCheck, ChannelsOfPublishAndSubscribe) {
  User u("alice", false);
  ASSERT_EQ(apply(u, {"+@all", "~*", "&news.*", "&ch1"}), RuleError::kNone);
  EXPECT_EQ(run(u, {"publish", "news.x", "m"}).denied, Denied::kNone);
  EXPECT_EQ(run(u, {"publish", "other", "m"}).denied, Denied::kChannel);
  Check c = run(u, {"subscribe", "ch1", "news.a", "nope"});
  EXPECT_EQ(c.denied, Denied::kChannel);
  EXPECT_EQ(c.arg, 3);
  // A pattern must be one of the user's patterns, literally.
  EXPECT_EQ(run(u, {"psubscribe", "news.*"}).denied, Denied::kNone);
  EXPECT_EQ(run(u, {"psubscribe", "news.x"}).denied, Denied::kChannel);
  EXPECT_EQ(run(u, {"unsubscribe", "nope"}).denied, Denied::kNone);
  EXPECT_TRUE(may_use_channel(u, "news.1", false));
  EXPECT_FALSE(may_use_channel(u, "*", true));
}

TEST(AclCheck, SelectorsAnyOneAllows) {
  User u("alice", false);
  std::vector<std::string_view> rules = {"on", "+get", "~a*", "(", "+set", "~b*", ")"};
  Acl acl;
  ASSERT_EQ(acl.set_user("alice", rules), std::nullopt);
  const User& a = *acl.find("alice");
  EXPECT_EQ(a.describe(),
            "on sanitize-payload ~a* resetchannels -@all +get (~b* resetchannels "
            "-@all +set)");
  EXPECT_EQ(run(a, {"get", "a1"}).denied, Denied::kNone);
  EXPECT_EQ(run(a, {"set", "b1", "v"}).denied, Denied::kNone);
  // The root allows GET but not the key, the selector neither: the key is reported.
  EXPECT_EQ(run(a, {"get", "b1"}).denied, Denied::kKey);
  EXPECT_EQ(run(a, {"incr", "a1"}).denied, Denied::kCommand);
}

TEST(Acl, SetUserIsAllOrNothing) {
  Acl acl;
  std::vector<std::string_view> bad = {"on", ">p", "+nosuch"};
  EXPECT_EQ(acl.set_user("alice", bad),
            "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL");
  EXPECT_EQ(acl.find("alice"), nullptr);
  std::vector<std::string_view> open = {"on", "(~a", "+get"};
  EXPECT_EQ(acl.set_user("alice", open),
            "Unmatched parenthesis in acl selector starting at '(~a'.");
  std::vector<std::string_view> good = {"on", ">p"};
  ASSERT_EQ(acl.set_user("alice", good), std::nullopt);
  EXPECT_NE(acl.authenticate("alice", "p"), nullptr);
  EXPECT_EQ(acl.authenticate("alice", "q"), nullptr);
  std::vector<std::string_view> off = {"off"};
  ASSERT_EQ(acl.set_user("alice", off), std::nullopt);
  EXPECT_EQ(acl.authenticate("alice", "p"), nullptr);
  EXPECT_EQ(acl.remove("default"), nullptr);
  EXPECT_NE(acl.remove("alice"), nullptr);
  EXPECT_EQ(acl.remove("alice"), nullptr);
}

TEST(Acl, RequirepassIsTheDefaultUsersPassword) {
  Acl acl;
  EXPECT_TRUE(acl.default_user()->unrestricted());
  EXPECT_NE(acl.authenticate("default", "x"), nullptr);
  acl.set_requirepass("secret");
  EXPECT_EQ(acl.authenticate("default", "x"), nullptr);
  EXPECT_NE(acl.authenticate("default", "secret"), nullptr);
  acl.set_requirepass("");
  EXPECT_TRUE(acl.default_user()->nopass);
}

TEST(Acl, ConfigLinesDefineWholeUsers) {
  Acl acl;
  acl.set_requirepass("x");
  // `user default ...` resets the default user first (requirepass, its keys and commands gone).
  ASSERT_EQ(acl.load_config_user({"default", "on", "nopass", "+get"}), std::nullopt);
  EXPECT_EQ(acl.default_user()->describe(), "on nopass sanitize-payload resetchannels -@all +get");
  ASSERT_EQ(acl.load_config_user({"alice", "on", ">p", "(~a", "+set)"}), std::nullopt);
  EXPECT_EQ(acl.find("alice")->selectors.size(), 2u);
  EXPECT_EQ(acl.load_config_user({"alice", "on"}),
            "Error in user declaration 'alice': Duplicate user found. A user can only be defined "
            "once in config files");
  EXPECT_EQ(acl.load_config_user({"bob", "on", "bogus"}),
            "Error in user declaration 'bogus': Syntax error");
  EXPECT_EQ(acl.find("bob"), nullptr);
}

TEST(Acl, FileLoadsWholeOrNotAtAll) {
  Acl acl;
  auto before = acl.default_user();
  ASSERT_EQ(acl.load_text("user alice on >p ~* +@all\n\nuser default on nopass ~* &* -debug\n",
                          "users.acl"),
            std::nullopt);
  EXPECT_EQ(acl.default_user(), before);  // the same object, rules copied in
  EXPECT_EQ(acl.default_user()->describe(), "on nopass sanitize-payload ~* &* -@all -debug");
  EXPECT_NE(acl.find("alice"), nullptr);
  EXPECT_EQ(acl.load_text("user bob on +nosuch bogus\nfoo\n", "users.acl"),
            "users.acl:1: Error in applying operation '+nosuch': Unknown command or category name "
            "in ACL. users.acl:1: Syntax error. users.acl:2 should start with user keyword "
            "followed by the username. ");
  EXPECT_NE(acl.find("alice"), nullptr);  // unchanged
  EXPECT_EQ(acl.find("bob"), nullptr);
  // Saved text loads back to the same users.
  std::string saved = acl.save_text();
  Acl again;
  ASSERT_EQ(again.load_text(saved, "x"), std::nullopt);
  EXPECT_EQ(again.save_text(), saved);
}

TEST(Acl, LogGroupsRepeatsAndKeepsItsLength) {
  Acl acl;
  acl.log(LogReason::kKey, LogContext::kToplevel, "k", "alice", "info1", 1000);
  acl.log(LogReason::kCommand, LogContext::kToplevel, "set", "alice", "info2", 2000);
  acl.log(LogReason::kKey, LogContext::kToplevel, "k", "alice", "info3", 3000);
  ASSERT_EQ(acl.log_entries().size(), 2u);
  const LogEntry& top = acl.log_entries().front();
  EXPECT_EQ(top.object, "k");
  EXPECT_EQ(top.count, 2u);
  EXPECT_EQ(top.entry_id, 0u);
  EXPECT_EQ(top.created_ms, 1000);
  EXPECT_EQ(top.ctime_ms, 3000);
  EXPECT_EQ(top.client_info, "info3");
  // Beyond 60 s it is a new entry.
  acl.log(LogReason::kKey, LogContext::kToplevel, "k", "alice", "info4", 70000);
  EXPECT_EQ(acl.log_entries().size(), 3u);
  EXPECT_EQ(acl.log_entries().front().entry_id, 2u);
  acl.set_log_max_len(1);
  EXPECT_EQ(acl.log_entries().size(), 1u);
}

}  // namespace
}  // namespace streamd::cmd::acl
