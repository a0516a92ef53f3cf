// COMMAND and its subcommands: COUNT, INFO, DOCS, LIST, GETKEYS, GETKEYSANDFLAGS, HELP.
//
// Arity, flags, key positions and ACL categories come from the command table; tips, key specs and
// documentation come from Redis's own replies (streamd/commands/introspection.h). Commands and
// subcommands are listed sorted by name.
#include <algorithm>
#include <string>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"
#include "streamd/commands/server/introspection.h"
#include "streamd/text/glob.h"

namespace streamd::cmd {

namespace {

// Rows sorted by name. (redis-server lists commands in the order of a hash table with a random
// per-process seed, so clients cannot rely on any order; sorting keeps replies stable.)
std::vector<const CommandSpec*> ordered(const std::vector<CommandSpec>& rows) {
  std::vector<const CommandSpec*> out;
  for (const auto& r : rows) out.push_back(&r);
  std::sort(out.begin(), out.end(),
            [](const CommandSpec* a, const CommandSpec* b) { return a->name < b->name; });
  return out;
}

void write_info(resp::ReplyWriter& w, const CommandSpec& spec) {
  w.array(10);
  w.bulk(spec.full_name);
  w.integer(spec.arity);
  auto flags = docs::flag_names(spec.flags);
  w.set(flags.size());
  for (auto f : flags) w.simple(f);
  w.integer(spec.first_key);
  w.integer(spec.last_key);
  w.integer(spec.step);
  auto cats = docs::acl_categories(spec);
  w.set(cats.size());
  for (const auto& c : cats) w.simple(c);
  const docs::CommandDoc* d = docs::find(spec.full_name);
  if (d) {
    docs::replay(d->info_tail, w);
  } else {
    w.set(0);  // tips
    w.set(0);  // key specs
  }
  // Redis 7.0 sends an empty set for "no subcommands" and an array otherwise.
  if (spec.subcommands.empty()) {
    w.set(0);
  } else {
    w.array(spec.subcommands.size());
    for (const CommandSpec* sub : ordered(spec.subcommands)) write_info(w, *sub);
  }
}

void write_docs(resp::ReplyWriter& w, const CommandSpec& spec) {
  const docs::CommandDoc* d = docs::find(spec.full_name);
  std::size_t pairs = d ? d->doc_pairs : 0;
  bool subs = !spec.subcommands.empty();
  w.map(pairs + (subs ? 1 : 0));
  if (d) docs::replay(d->doc_body, w);
  if (subs) {
    w.bulk("subcommands");
    w.map(spec.subcommands.size());
    for (const CommandSpec* sub : ordered(spec.subcommands)) {
      w.bulk(sub->full_name);
      write_docs(w, *sub);
    }
  }
}

void write_all_info(resp::ReplyWriter& w) {
  auto rows = ordered(CommandTable::instance().all());
  w.array(rows.size());
  for (const CommandSpec* r : rows) write_info(w, *r);
}

void write_all_docs(resp::ReplyWriter& w) {
  auto rows = ordered(CommandTable::instance().all());
  w.map(rows.size());
  for (const CommandSpec* r : rows) {
    w.bulk(r->full_name);
    write_docs(w, *r);
  }
}

// COMMAND and COMMAND DOCS of the whole table: the same bytes every time for a protocol while
// the table has the same rows (rows are only ever appended, by CommandTable::add, and renames do
// not change what these list), so each is rendered once per protocol and row count and then
// copied: rendering replays ~250 documents token by token (about 200 us each), which clients
// asking at connect time and the command fuzzer (twice per input) paid on every call.
class TableReply {
 public:
  explicit TableReply(void (*render)(resp::ReplyWriter&)) : render_(render) {}
  void write(resp::ReplyWriter& w) {
    std::size_t rows = CommandTable::instance().all().size();
    Cached& c = w.protocol() == resp::Protocol::kResp2 ? resp2_ : resp3_;
    if (c.rows != rows || c.bytes.empty()) {
      c.bytes.clear();
      resp::ReplyWriter fresh(c.bytes, w.protocol());
      render_(fresh);
      c.rows = rows;
    }
    w.buffer().append(c.bytes);
  }

 private:
  struct Cached {
    std::size_t rows = 0;
    std::string bytes;
  };
  void (*render_)(resp::ReplyWriter&);
  Cached resp2_, resp3_;
};

void command_all(Context& ctx) {
  static TableReply reply(write_all_info);
  reply.write(ctx.reply);
}

void command_count(Context& ctx) {
  ctx.reply.integer(static_cast<long long>(CommandTable::instance().all().size()));
}

void command_info(Context& ctx) {
  if (ctx.argc() == 2) return command_all(ctx);
  ctx.reply.array(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const CommandSpec* spec = CommandTable::instance().find_full_name(ctx.arg(i));
    if (spec) {
      write_info(ctx.reply, *spec);
    } else {
      ctx.reply.null();
    }
  }
}

void command_docs(Context& ctx) {
  if (ctx.argc() == 2) {
    static TableReply reply(write_all_docs);
    reply.write(ctx.reply);
    return;
  }
  std::vector<const CommandSpec*> found;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (const CommandSpec* spec = CommandTable::instance().find_full_name(ctx.arg(i)))
      found.push_back(spec);
  }
  ctx.reply.map(found.size());
  for (const CommandSpec* spec : found) {
    ctx.reply.bulk(spec->full_name);
    write_docs(ctx.reply, *spec);
  }
}

bool has_acl_category(const CommandSpec& spec, std::string_view cat) {
  for (const auto& c : docs::acl_categories(spec)) {
    if (iequals(std::string_view(c).substr(1), cat)) return true;
  }
  return false;
}

void command_list(Context& ctx) {
  enum class Filter { kNone, kModule, kAclCat, kPattern } filter = Filter::kNone;
  std::string_view value;
  if (ctx.argc() == 5 && iequals(ctx.arg(2), "filterby")) {
    value = ctx.arg(4);
    if (iequals(ctx.arg(3), "module")) {
      filter = Filter::kModule;
    } else if (iequals(ctx.arg(3), "aclcat")) {
      filter = Filter::kAclCat;
    } else if (iequals(ctx.arg(3), "pattern")) {
      filter = Filter::kPattern;
    } else {
      return ctx.reply.error(errors::kSyntax);
    }
  } else if (ctx.argc() != 2) {
    return ctx.reply.error(errors::kSyntax);
  }
  auto matches = [&](const CommandSpec& spec) {
    switch (filter) {
      case Filter::kNone:
        return true;
      case Filter::kModule:
        return false;  // streamd has no modules
      case Filter::kAclCat:
        return has_acl_category(spec, value);
      case Filter::kPattern:
        return text::glob_match(value, spec.full_name, true);
    }
    return false;
  };
  std::vector<std::string_view> names;
  for (const CommandSpec* top : ordered(CommandTable::instance().all())) {
    if (matches(*top)) names.push_back(top->full_name);
    for (const CommandSpec* sub : ordered(top->subcommands)) {
      if (matches(*sub)) names.push_back(sub->full_name);
    }
  }
  ctx.reply.array(names.size());
  for (auto n : names) ctx.reply.bulk(n);
}

// The row a command line (argv[2...] of COMMAND GETKEYS) runs, after Redis's checks.
const CommandSpec* getkeys_target(Context& ctx, std::span<const std::string_view> line) {
  const CommandSpec* spec = CommandTable::instance().lookup(line).spec;
  if (!spec || !spec->subcommands.empty()) {  // a container alone names no command line
    ctx.reply.error(errors::kInvalidCommandSpecified);
    return nullptr;
  }
  auto n = static_cast<long long>(line.size());
  if (spec->arity > 0 ? n != spec->arity : n < -spec->arity) {
    ctx.reply.error(errors::kInvalidArgumentCount);
    return nullptr;
  }
  return spec;
}

void command_getkeys(Context& ctx) {
  auto line = ctx.argv.subspan(2);
  const CommandSpec* spec = getkeys_target(ctx, line);
  if (!spec) return;
  std::vector<int> keys = CommandTable::key_positions(*spec, line);
  if (keys.empty()) return ctx.reply.error(errors::kNoKeyArguments);
  ctx.reply.array(keys.size());
  for (int k : keys) ctx.reply.bulk(line[static_cast<std::size_t>(k)]);
}

void command_getkeysandflags(Context& ctx) {
  auto line = ctx.argv.subspan(2);
  const CommandSpec* spec = getkeys_target(ctx, line);
  if (!spec) return;
  std::vector<docs::KeyFlags> keys = docs::keys_with_flags(*spec, line);
  if (keys.empty()) return ctx.reply.error(errors::kNoKeyArguments);
  ctx.reply.array(keys.size());
  for (const docs::KeyFlags& k : keys) {
    ctx.reply.array(2);
    ctx.reply.bulk(line[static_cast<std::size_t>(k.pos)]);
    ctx.reply.set(k.flags.size());
    for (const auto& f : k.flags) ctx.reply.simple(f);
  }
}

void command_help(Context& ctx) {
  reply_help(ctx.reply, "COMMAND",
             {
                 "(no subcommand)",
                 "    Return details about all Redis commands.",
                 "COUNT",
                 "    Return the total number of commands in this Redis server.",
                 "LIST",
                 "    Return a list of all commands in this Redis server.",
                 "INFO [<command-name> ...]",
                 "    Return details about multiple Redis commands.",
                 "    If no command names are given, documentation details for all",
                 "    commands are returned.",
                 "DOCS [<command-name> ...]",
                 "    Return documentation details about multiple Redis commands.",
                 "    If no command names are given, documentation details for all",
                 "    commands are returned.",
                 "GETKEYS <full-command>",
                 "    Return the keys from a full Redis command.",
                 "GETKEYSANDFLAGS <full-command>",
                 "    Return the keys and the access flags from a full Redis command.",
             });
}

constexpr uint32_t kCmdFlags = kLoading | kStale;
constexpr std::string_view kCmdAcl = "slow connection";

}  // namespace

void register_introspection_commands(CommandTable& t) {
  t.add({.name = "command",
         .arity = -1,
         .flags = kCmdFlags,
         .acl_categories = kCmdAcl,
         .first_key = 0,
         .last_key = 0,
         .step = 0,
         .handler = command_all,
         .subcommands =
             {
                 {"count", 2, kCmdFlags, kCmdAcl, 0, 0, 0, command_count},
                 {"docs", -2, kCmdFlags, kCmdAcl, 0, 0, 0, command_docs},
                 {"getkeys", -4, kCmdFlags, kCmdAcl, 0, 0, 0, command_getkeys},
                 {"getkeysandflags", -4, kCmdFlags, kCmdAcl, 0, 0, 0, command_getkeysandflags},
                 {"help", 2, kCmdFlags, kCmdAcl, 0, 0, 0, command_help},
                 {"info", -2, kCmdFlags, kCmdAcl, 0, 0, 0, command_info},
                 {"list", -2, kCmdFlags, kCmdAcl, 0, 0, 0, command_list},
             },
         .group = "server"});
}

}  // namespace streamd::cmd
