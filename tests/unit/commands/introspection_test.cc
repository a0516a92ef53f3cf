// COMMAND and its subcommands through dispatch, against bytes recorded from redis-server 7.0.15.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "command_harness.h"
#include "streamd/commands/core/command_table.h"
#include "streamd/commands/server/introspection.h"

namespace streamd::test {
namespace {

using resp::Protocol;

class IntrospectionTest : public ::testing::Test {
 protected:
  std::string Run(const std::vector<std::string>& argv) { return h.Run(argv, Protocol::kResp2); }
  std::string Run3(const std::vector<std::string>& argv) { return h.Run(argv, Protocol::kResp3); }
  CommandHarness h;
};

TEST_F(IntrospectionTest, Count) {
  EXPECT_EQ(Run({"COMMAND", "COUNT"}),
            ":" + std::to_string(cmd::CommandTable::instance().all().size()) + "\r\n");
  EXPECT_EQ(Run({"COMMAND", "COUNT", "x"}),
            "-ERR wrong number of arguments for 'command|count' command\r\n");
}

TEST_F(IntrospectionTest, InfoOfASubcommand) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "client|list"}),
            "*1\r\n*10\r\n$11\r\nclient|list\r\n:-2\r\n*4\r\n+admin\r\n+noscript\r\n+loading\r\n+"
            "stale\r\n:0\r\n:0\r\n:0\r\n*4\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n+@connection\r\n*"
            "1\r\n$23\r\nnondeterministic_output\r\n*0\r\n*0\r\n");
  EXPECT_EQ(Run({"COMMAND", "INFO", "CLIENT|LIST"}).substr(0, 21), "*1\r\n*10\r\n$11\r\nclient|");
  EXPECT_EQ(Run({"COMMAND", "INFO", "nosuch"}), "*1\r\n$-1\r\n");
  EXPECT_EQ(Run3({"COMMAND", "INFO", "nosuch"}), "*1\r\n_\r\n");
  for (std::string bad : {"|", "client|", "get|x", "client|list|x", ""}) {
    EXPECT_EQ(Run({"COMMAND", "INFO", bad}), "*1\r\n$-1\r\n") << bad;
  }
}

TEST_F(IntrospectionTest, InfoWithKeySpecsInBothProtocols) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "get"}),
            "*1\r\n*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n*3\r\n+"
            "@read\r\n+@string\r\n+@fast\r\n*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+"
            "access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*"
            "2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$"
            "4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:"
            "0\r\n*0\r\n");
  EXPECT_EQ(Run3({"COMMAND", "INFO", "get"}),
            "*1\r\n*10\r\n$3\r\nget\r\n:2\r\n~2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n~3\r\n+"
            "@read\r\n+@string\r\n+@fast\r\n~0\r\n~1\r\n%3\r\n$5\r\nflags\r\n~2\r\n+RO\r\n+"
            "access\r\n$12\r\nbegin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n%"
            "1\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n$5\r\nrange\r\n$"
            "4\r\nspec\r\n%3\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:"
            "0\r\n~0\r\n");
  EXPECT_EQ(
      Run({"COMMAND", "INFO", "xread"}),
      "*1\r\n*10\r\n$5\r\nxread\r\n:-4\r\n*3\r\n+readonly\r\n+blocking\r\n+movablekeys\r\n:"
      "0\r\n:0\r\n:0\r\n*4\r\n+@read\r\n+@stream\r\n+@slow\r\n+@blocking\r\n*0\r\n*1\r\n*"
      "6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$"
      "7\r\nkeyword\r\n$4\r\nspec\r\n*4\r\n$7\r\nkeyword\r\n$7\r\nSTREAMS\r\n$9\r\nstartfrom\r\n:"
      "1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$"
      "7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:2\r\n*0\r\n");
}

TEST_F(IntrospectionTest, ContainerListsItsSubcommandsSorted) {
  std::string info = Run({"COMMAND", "INFO", "client"});
  std::string head =
      "*1\r\n*10\r\n$6\r\nclient\r\n:-2\r\n*0\r\n:0\r\n:0\r\n:0\r\n*1\r\n+@slow\r\n*0\r\n*0\r\n*";
  EXPECT_EQ(info.substr(0, head.size()), head);
  EXPECT_LT(info.find("client|getname"), info.find("client|id"));
  EXPECT_LT(info.find("client|id"), info.find("client|kill"));
  EXPECT_LT(info.find("client|setinfo"), info.find("client|setname"));
  // A leaf row ends with an empty set of subcommands, as Redis 7.0 sends it.
  EXPECT_EQ(Run3({"COMMAND", "INFO", "client|id"})
                .substr(Run3({"COMMAND", "INFO", "client|id"}).size() - 12),
            "~0\r\n~0\r\n~0\r\n");
}

TEST_F(IntrospectionTest, Docs) {
  EXPECT_EQ(Run({"COMMAND", "DOCS", "get"}),
            "*2\r\n$3\r\nget\r\n*10\r\n$7\r\nsummary\r\n$22\r\nGet the value of a "
            "key\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n$"
            "10\r\ncomplexity\r\n$4\r\nO(1)\r\n$9\r\narguments\r\n*1\r\n*6\r\n$4\r\nname\r\n$"
            "3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n");
  EXPECT_EQ(
      Run3({"COMMAND", "DOCS", "echo"}),
      "%1\r\n$4\r\necho\r\n%5\r\n$7\r\nsummary\r\n$21\r\nEcho the given string\r\n$"
      "5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n$10\r\ncomplexity\r\n$"
      "4\r\nO(1)\r\n$9\r\narguments\r\n*1\r\n%2\r\n$4\r\nname\r\n$7\r\nmessage\r\n$4\r\ntype\r\n$"
      "6\r\nstring\r\n");
  EXPECT_EQ(Run({"COMMAND", "DOCS", "client|id"}),
            "*2\r\n$9\r\nclient|id\r\n*8\r\n$7\r\nsummary\r\n$48\r\nReturns the client ID for "
            "the current connection\r\n$5\r\nsince\r\n$5\r\n5.0.0\r\n$5\r\ngroup\r\n$"
            "10\r\nconnection\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n");
  EXPECT_EQ(Run({"COMMAND", "DOCS", "nosuch"}), "*0\r\n");
  EXPECT_EQ(Run3({"COMMAND", "DOCS", "nosuch"}), "%0\r\n");
  // Unknown names are skipped, repeated ones repeated.
  std::string two = Run({"COMMAND", "DOCS", "get", "nosuch", "get"});
  EXPECT_EQ(two.substr(0, 4), "*4\r\n");
  // A container's doc map ends with its subcommands.
  std::string client = Run3({"COMMAND", "DOCS", "client"});
  EXPECT_NE(client.find("$11\r\nsubcommands\r\n%"), std::string::npos);
  EXPECT_NE(client.find("$14\r\nclient|setinfo\r\n%5\r\n$7\r\nsummary\r\n"), std::string::npos);
  // Every command: one map entry per top-level row.
  std::string all = Run3({"COMMAND", "DOCS"});
  EXPECT_EQ(all.substr(0, all.find("\r\n")),
            "%" + std::to_string(cmd::CommandTable::instance().all().size()));
}

TEST_F(IntrospectionTest, CommandWithoutArgumentsListsEverything) {
  std::string all = Run({"COMMAND"});
  EXPECT_EQ(all.substr(0, all.find("\r\n")),
            "*" + std::to_string(cmd::CommandTable::instance().all().size()));
  EXPECT_EQ(Run({"COMMAND", "INFO"}), all);
}

// COMMAND and COMMAND DOCS of the whole table are rendered once per protocol and then copied:
// the copies are what naming every command renders afresh, call after call, in both protocols.
TEST_F(IntrospectionTest, WholeTableRepliesEqualAFreshRendering) {
  std::vector<std::string> names;
  for (const cmd::CommandSpec& spec : cmd::CommandTable::instance().all()) {
    names.push_back(std::string(spec.name));
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> info{"COMMAND", "INFO"}, docs{"COMMAND", "DOCS"};
  info.insert(info.end(), names.begin(), names.end());
  docs.insert(docs.end(), names.begin(), names.end());
  for (Protocol p : kProtos) {
    SCOPED_TRACE(ProtoName(p));
    for (int round = 0; round < 2; ++round) {
      EXPECT_EQ(h.Run({"COMMAND"}, p), h.Run(info, p));
      EXPECT_EQ(h.Run({"COMMAND", "DOCS"}, p), h.Run(docs, p));
    }
  }
  EXPECT_NE(h.Run({"COMMAND", "DOCS"}, Protocol::kResp2),
            h.Run({"COMMAND", "DOCS"}, Protocol::kResp3));
}

TEST_F(IntrospectionTest, List) {
  std::string all = Run({"COMMAND", "LIST"});
  EXPECT_NE(all.find("$11\r\nclient|list\r\n"), std::string::npos);
  EXPECT_EQ(Run({"COMMAND", "LIST", "FILTERBY", "pattern", "CLIENT|L*"}),
            "*1\r\n$11\r\nclient|list\r\n");
  EXPECT_EQ(Run({"COMMAND", "LIST", "FILTERBY", "PATTERN", "cl?ent"}), "*1\r\n$6\r\nclient\r\n");
  EXPECT_EQ(Run({"COMMAND", "LIST", "FILTERBY", "module", "x"}), "*0\r\n");
  EXPECT_EQ(Run({"COMMAND", "LIST", "FILTERBY", "aclcat", "nosuch"}), "*0\r\n");
  std::string conn = Run({"COMMAND", "LIST", "FILTERBY", "aclcat", "CONNECTION"});
  EXPECT_NE(conn.find("$4\r\nping\r\n"), std::string::npos);
  EXPECT_NE(conn.find("$9\r\nclient|id\r\n"), std::string::npos);
  EXPECT_EQ(conn.find("$6\r\nclient\r\n"), std::string::npos);  // the container is only @slow
  EXPECT_EQ(Run({"COMMAND", "LIST", "FILTERBY"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"COMMAND", "LIST", "FILTERBY", "bogus", "x"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"COMMAND", "LIST", "x"}), "-ERR syntax error\r\n");
}

TEST_F(IntrospectionTest, GetKeys) {
  EXPECT_EQ(Run({"COMMAND", "GETKEYS", "set", "a", "b"}), "*1\r\n$1\r\na\r\n");
  EXPECT_EQ(Run({"COMMAND", "GETKEYS", "mset", "a", "b", "c", "d"}),
            "*2\r\n$1\r\na\r\n$1\r\nc\r\n");
  EXPECT_EQ(Run({"COMMAND", "GETKEYS", "xread", "streams", "a", "b", "1", "2"}),
            "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(Run({"COMMAND", "GETKEYS", "nosuch", "a"}), "-ERR Invalid command specified\r\n");
  EXPECT_EQ(Run({"COMMAND", "GETKEYS", "client", "nosuch"}), "-ERR Invalid command specified\r\n");
  EXPECT_EQ(Run({"COMMAND", "GETKEYS", "get", "a", "b"}),
            "-ERR Invalid number of arguments specified for command\r\n");
  EXPECT_EQ(Run({"COMMAND", "GETKEYS", "client", "list", "x"}),
            "-ERR The command has no key arguments\r\n");
  EXPECT_EQ(Run({"COMMAND", "GETKEYS", "get"}),
            "-ERR wrong number of arguments for 'command|getkeys' command\r\n");
}

TEST_F(IntrospectionTest, GetKeysAndFlags) {
  EXPECT_EQ(Run({"COMMAND", "GETKEYSANDFLAGS", "set", "a", "b"}),
            "*1\r\n*2\r\n$1\r\na\r\n*2\r\n+OW\r\n+update\r\n");
  EXPECT_EQ(Run3({"COMMAND", "GETKEYSANDFLAGS", "set", "a", "b"}),
            "*1\r\n*2\r\n$1\r\na\r\n~2\r\n+OW\r\n+update\r\n");
  EXPECT_EQ(Run({"COMMAND", "GETKEYSANDFLAGS", "set", "a", "b", "get"}),
            "*1\r\n*2\r\n$1\r\na\r\n*3\r\n+RW\r\n+access\r\n+update\r\n");
  EXPECT_EQ(Run({"COMMAND", "GETKEYSANDFLAGS", "xread", "streams", "a", "b", "1", "2"}),
            "*2\r\n*2\r\n$1\r\na\r\n*2\r\n+RO\r\n+access\r\n*2\r\n$1\r\nb\r\n*2\r\n+RO\r\n+"
            "access\r\n");
  EXPECT_EQ(Run({"COMMAND", "GETKEYSANDFLAGS", "rename", "a", "b"}),
            "*2\r\n*2\r\n$1\r\na\r\n*3\r\n+RW\r\n+access\r\n+delete\r\n*2\r\n$1\r\nb\r\n*2\r\n+"
            "OW\r\n+update\r\n");
}

TEST_F(IntrospectionTest, Help) {
  std::string help = Run({"COMMAND", "HELP"});
  EXPECT_EQ(help.substr(0, 72),
            "*21\r\n+COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n");
  EXPECT_EQ(Run({"COMMAND", "BOGUS"}), "-ERR unknown subcommand 'BOGUS'. Try COMMAND HELP.\r\n");
}

TEST(KeySpecs, EvaluateRangesKeywordsAndKeynum) {
  std::vector<std::string_view> xread = {"xread", "count", "1", "streams", "a", "b", "1", "2"};
  cmd::docs::KeySpec kw;
  kw.begin = cmd::docs::KeySpec::Begin::kKeyword;
  kw.keyword = "STREAMS";
  kw.startfrom = 1;
  kw.find = cmd::docs::KeySpec::Find::kRange;
  kw.lastkey = -1;
  kw.keystep = 1;
  kw.limit = 2;
  EXPECT_EQ(cmd::docs::evaluate(kw, xread), (std::vector<int>{4, 5}));
  std::vector<std::string_view> mset = {"mset", "a", "1", "b", "2"};
  cmd::docs::KeySpec range;
  range.begin = cmd::docs::KeySpec::Begin::kIndex;
  range.index = 1;
  range.find = cmd::docs::KeySpec::Find::kRange;
  range.lastkey = -1;
  range.keystep = 2;
  EXPECT_EQ(cmd::docs::evaluate(range, mset), (std::vector<int>{1, 3}));
  std::vector<std::string_view> zdiff = {"zdiff", "2", "a", "b", "withscores"};
  cmd::docs::KeySpec keynum;
  keynum.begin = cmd::docs::KeySpec::Begin::kIndex;
  keynum.index = 1;
  keynum.find = cmd::docs::KeySpec::Find::kKeynum;
  keynum.keynumidx = 0;
  keynum.firstkey = 1;
  keynum.keystep = 1;
  EXPECT_EQ(cmd::docs::evaluate(keynum, zdiff), (std::vector<int>{2, 3}));
}

}  // namespace
}  // namespace streamd::test
