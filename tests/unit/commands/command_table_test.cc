// The command table against Redis: every row (and subcommand row) must have the arity, flags,
// key positions and ACL categories redis-server 7.0.15 reports in COMMAND INFO
// (tests/data/redis_command_list.txt, written by tools/gen_command_docs.py), or, for commands
// 7.0.15 does not have, the hand-written line in tests/data/command_list_extra.txt. A row missing
// from both lists fails. Every row must also have COMMAND DOCS data that replays cleanly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/server/introspection.h"
#include "streamd/resp/reply_writer.h"

namespace streamd::cmd {
namespace {

struct RedisRow {
  int arity = 0;
  std::set<std::string> flags;
  int first = 0, last = 0, step = 0;
  std::set<std::string> acl;
};

std::set<std::string> split_set(const std::string& s) {
  std::set<std::string> out;
  if (s == "-") return out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.insert(item);
  return out;
}

std::map<std::string, RedisRow> load_list(const std::string& file) {
  std::filesystem::path path =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "data" / file;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::map<std::string, RedisRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ls(line);
    std::string name, flags, acl;
    RedisRow r;
    ls >> name >> r.arity >> flags >> r.first >> r.last >> r.step >> acl;
    EXPECT_FALSE(ls.fail()) << "bad line in " << file << ": " << line;
    r.flags = split_set(flags);
    r.acl = split_set(acl);
    EXPECT_TRUE(rows.emplace(name, r).second) << "duplicate " << name << " in " << file;
  }
  return rows;
}

std::vector<const CommandSpec*> all_rows() {
  std::vector<const CommandSpec*> out;
  for (const auto& top : CommandTable::instance().all()) {
    out.push_back(&top);
    for (const auto& sub : top.subcommands) out.push_back(&sub);
  }
  return out;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
  return out.empty() ? "-" : out;
}

TEST(CommandTable, EveryRowMatchesRedis) {
  auto redis = load_list("redis_command_list.txt");
  auto extra = load_list("command_list_extra.txt");
  ASSERT_GT(redis.size(), 300u);
  for (const CommandSpec* spec : all_rows()) {
    const std::string& name = spec->full_name;
    SCOPED_TRACE(name);
    bool in_redis = redis.count(name) > 0;
    bool in_extra = extra.count(name) > 0;
    EXPECT_FALSE(in_redis && in_extra)
        << name << " is in redis-server 7.0.15: remove it from command_list_extra.txt";
    if (!in_redis && !in_extra) {
      ADD_FAILURE() << name
                    << " is in neither tests/data/redis_command_list.txt nor "
                       "tests/data/command_list_extra.txt (hand-write its line there if Redis "
                       "7.0.15 lacks it)";
      continue;
    }
    const RedisRow& want = in_redis ? redis[name] : extra[name];
    EXPECT_EQ(spec->arity, want.arity) << "arity";
    std::set<std::string> flags;
    for (auto f : docs::flag_names(spec->flags)) flags.emplace(f);
    EXPECT_EQ(join(flags), join(want.flags)) << "flags";
    EXPECT_EQ(spec->first_key, want.first) << "first key";
    EXPECT_EQ(spec->last_key, want.last) << "last key";
    EXPECT_EQ(spec->step, want.step) << "key step";
    std::set<std::string> acl;
    for (const auto& c : docs::acl_categories(*spec)) acl.insert(c);
    EXPECT_EQ(join(acl), join(want.acl)) << "ACL categories";
  }
}

TEST(CommandTable, NamesAreLowercaseAndUnique) {
  std::set<std::string> seen;
  for (const CommandSpec* spec : all_rows()) {
    EXPECT_TRUE(seen.insert(spec->full_name).second) << "duplicate row " << spec->full_name;
    for (char c : spec->name) {
      EXPECT_FALSE(c >= 'A' && c <= 'Z') << spec->full_name << " is not lowercase";
    }
    if (spec->subcommands.empty()) {
      EXPECT_NE(spec->handler, nullptr) << spec->full_name << " has no handler";
    }
  }
}

TEST(CommandTable, LookupIsCaseInsensitive) {
  auto& t = CommandTable::instance();
  ASSERT_NE(t.find("ping"), nullptr);
  EXPECT_EQ(t.find("PiNg"), t.find("ping"));
  const CommandSpec* client = t.find("CLIENT");
  ASSERT_NE(client, nullptr);
  const CommandSpec* list = CommandTable::find_sub(*client, "LiSt");
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(list->full_name, "client|list");
  EXPECT_EQ(t.find("nosuchcommand"), nullptr);
}

// find() lowers 8 bytes at a time: every row, in any case, is found; a byte next to a letter in
// ASCII ('@', '[', '`', '{') or with the top bit set does not stand for one.
TEST(CommandTable, LookupLowersOnlyAsciiLetters) {
  auto& t = CommandTable::instance();
  for (const CommandSpec& spec : t.all()) {
    std::string name(spec.name);
    std::string upper = name, mixed = name;
    for (std::size_t i = 0; i < name.size(); ++i) {
      upper[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[i])));
      if (i % 2 == 0) mixed[i] = upper[i];
    }
    EXPECT_EQ(t.find(name), &spec) << name;
    EXPECT_EQ(t.find(upper), &spec) << upper;
    EXPECT_EQ(t.find(mixed), &spec) << mixed;
    for (std::size_t i = 0; i < name.size(); ++i) {
      if (name[i] != 'a' && name[i] != 'z') continue;
      for (char c : {'@', '[', '`', '{', static_cast<char>(name[i] | 0x80),
                     static_cast<char>((name[i] - 32) | 0x80)}) {
        std::string other = name;
        other[i] = c;
        EXPECT_EQ(t.find(other), nullptr) << name << " at " << i;
      }
    }
  }
  EXPECT_EQ(t.find(std::string(40, 'X')), nullptr);  // longer than any name
  EXPECT_EQ(t.find(""), nullptr);
}

// CommandTable::lookup, the one lookup of command + subcommand every caller shares.
TEST(CommandTable, LookupOfCommandAndSubcommand) {
  auto& t = CommandTable::instance();
  const CommandSpec* xgroup = t.find("xgroup");
  ASSERT_NE(xgroup, nullptr);
  std::vector<std::string_view> line = {"XGroup", "Create", "s", "g", "$"};
  CommandLookup found = t.lookup(line);
  EXPECT_EQ(found.top, xgroup);
  ASSERT_NE(found.spec, nullptr);
  EXPECT_EQ(found.spec->full_name, "xgroup|create");
  // A container named alone keeps its own row (its arity refuses it), an unknown subcommand
  // names none.
  found = t.lookup("xgroup", std::nullopt);
  EXPECT_EQ(found.top, xgroup);
  EXPECT_EQ(found.spec, xgroup);
  found = t.lookup("xgroup", "nosuch");
  EXPECT_EQ(found.top, xgroup);
  EXPECT_EQ(found.spec, nullptr);
  // A plain command ignores what follows its name.
  found = t.lookup(std::vector<std::string>{"GET", "create"});
  EXPECT_EQ(found.spec, t.find("get"));
  EXPECT_EQ(found.top, found.spec);
  found = t.lookup("nosuch", "x");
  EXPECT_EQ(found.top, nullptr);
  EXPECT_EQ(found.spec, nullptr);
  EXPECT_EQ(t.lookup(std::vector<std::string_view>{}).top, nullptr);
  // Full names go through the same lookup; only a container has rows after the bar.
  EXPECT_EQ(t.find_full_name("XGROUP|create"), CommandTable::find_sub(*xgroup, "create"));
  EXPECT_EQ(t.find_full_name("xgroup"), xgroup);
  EXPECT_EQ(t.find_full_name("get|x"), nullptr);
  EXPECT_EQ(t.find_full_name("xgroup|"), nullptr);
  EXPECT_EQ(t.find_full_name("xgroup|create|x"), nullptr);
}

// Every row has documentation, and the stored RESP3 replays as the right number of values (a
// broken entry would corrupt every COMMAND INFO / COMMAND DOCS reply that includes it).
TEST(CommandTable, EveryRowIsDocumented) {
  for (const CommandSpec* spec : all_rows()) {
    SCOPED_TRACE(spec->full_name);
    const docs::CommandDoc* d = docs::find(spec->full_name);
    if (!d) {
      ADD_FAILURE() << spec->full_name
                    << " has no COMMAND DOCS data: run tools/gen_command_docs.py (or, for a "
                       "command redis-server 7.0.15 lacks, add it to "
                       "src/commands/docs/command_docs_extra.cc)";
      continue;
    }
    for (auto proto : {resp::Protocol::kResp2, resp::Protocol::kResp3}) {
      std::string out;
      resp::ReplyWriter w(out, proto);
      EXPECT_EQ(docs::replay(d->info_tail, w), 2) << "tips + key specs";
      EXPECT_EQ(docs::replay(d->doc_body, w), static_cast<long>(d->doc_pairs * 2)) << "doc pairs";
    }
  }
}

}  // namespace
}  // namespace streamd::cmd
