// ACL and its subcommands (Redis 7.x/8.x): users, their rules, the log and the ACL file. The
// users themselves live in acl::Acl (commands/acl/acl.h); dispatch checks every command against
// them; AUTH and HELLO (connection_commands.cc) authenticate against them.
#include <openssl/rand.h>

#include <string>
#include <vector>

#include "streamd/commands/acl/acl.h"
#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"

namespace streamd::cmd {

namespace {

constexpr uint32_t kAclFlags = kNoScript | kLoading | kStale;

void acl_setuser(Context& ctx) {
  std::string_view name = ctx.arg(2);
  if (acl::has_spaces(name)) return ctx.reply.error(errors::kAclUserSpaces);
  if (auto err = ctx.server.acl().set_user(name, ctx.argv.subspan(3))) {
    return ctx.reply.error("ERR " + *err);
  }
  // Subscribers that lost a channel are closed (Redis's ACLKillPubsubClientsIfNeeded).
  ctx.server.close_subscribers_denied(*ctx.server.acl().find(name));
  ctx.reply.ok();
}

void acl_deluser(Context& ctx) {
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (ctx.arg(i) == "default") return ctx.reply.error(errors::kAclDefaultUndeletable);
  }
  long long deleted = 0;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (std::shared_ptr<acl::User> u = ctx.server.acl().remove(ctx.arg(i))) {
      ctx.server.close_sessions_of(u.get());
      ++deleted;
    }
  }
  ctx.reply.integer(deleted);
}

// commands / keys / channels of one selector (GETUSER), the number of pairs written.
void reply_selector(Context& ctx, const acl::Selector& s) {
  ctx.reply.bulk("commands");
  ctx.reply.bulk(acl::describe_commands(s));
  ctx.reply.bulk("keys");
  ctx.reply.bulk(acl::describe_keys(s));
  ctx.reply.bulk("channels");
  ctx.reply.bulk(acl::describe_channels(s));
}

void acl_getuser(Context& ctx) {
  std::shared_ptr<acl::User> u = ctx.server.acl().find(ctx.arg(2));
  if (!u) return ctx.reply.null();
  ctx.reply.map(6);
  ctx.reply.bulk("flags");
  std::vector<std::string_view> flags;
  flags.push_back(u->enabled ? "on" : "off");
  if (u->nopass) flags.push_back("nopass");
  flags.push_back(u->skip_sanitize ? "skip-sanitize-payload" : "sanitize-payload");
  ctx.reply.set(flags.size());
  for (std::string_view f : flags) ctx.reply.bulk(f);
  ctx.reply.bulk("passwords");
  ctx.reply.array(u->passwords.size());
  for (const std::string& p : u->passwords) ctx.reply.bulk(p);
  // The root selector at the top level (as Redis 6 showed the user), then the others.
  reply_selector(ctx, u->selectors.front());
  ctx.reply.bulk("selectors");
  ctx.reply.array(u->selectors.size() - 1);
  for (std::size_t i = 1; i < u->selectors.size(); ++i) {
    ctx.reply.map(3);
    reply_selector(ctx, u->selectors[i]);
  }
}

void acl_users(Context& ctx) {
  const auto& users = ctx.server.acl().users();
  ctx.reply.array(users.size());
  for (const auto& [name, u] : users) ctx.reply.bulk(name);
}

void acl_list(Context& ctx) {
  const auto& users = ctx.server.acl().users();
  ctx.reply.array(users.size());
  for (const auto& [name, u] : users) ctx.reply.bulk("user " + name + " " + u->describe());
}

void acl_whoami(Context& ctx) {
  ctx.reply.bulk(ctx.server.user_of(ctx.session).name);
}

std::string aclfile(Context& ctx) {
  return ctx.server.config().get("aclfile").value_or("");
}

void acl_load(Context& ctx) {
  std::string path = aclfile(ctx);
  if (path.empty()) return ctx.reply.error(errors::kAclNoFile);
  acl::Acl& acl = ctx.server.acl();
  if (auto err = acl.load_file(path)) return ctx.reply.error("ERR " + *err);
  // Each connection moves to the new user of its user's name, or is closed when there is none;
  // then subscribers that lost a channel are closed.
  std::vector<const acl::User*> gone;
  for (const auto& [id, s] : ctx.server.sessions()) {
    if (!s->user || s->master) continue;
    if (std::shared_ptr<acl::User> now = acl.find(s->user->name)) {
      s->user = std::move(now);
    } else {
      gone.push_back(s->user.get());
    }
  }
  for (const acl::User* u : gone) ctx.server.close_sessions_of(u);
  for (const auto& [name, u] : acl.users()) ctx.server.close_subscribers_denied(*u);
  ctx.reply.ok();
}

void acl_save(Context& ctx) {
  std::string path = aclfile(ctx);
  if (path.empty()) return ctx.reply.error(errors::kAclNoFile);
  if (!ctx.server.acl().save_file(path)) return ctx.reply.error(errors::kAclSaveFailed);
  ctx.reply.ok();
}

// Commands of a category in table order: a container in it, then its subcommands in it.
void acl_cat(Context& ctx) {
  if (ctx.argc() == 2) {
    auto names = acl_category_names();
    ctx.reply.array(names.size());
    for (std::string_view n : names) ctx.reply.bulk(n);
    return;
  }
  if (ctx.argc() > 3)
    return ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "ACL"));
  uint64_t bit = acl_category_bit(ctx.arg(2));
  if (!bit) return ctx.reply.error(errors::acl_unknown_category(ctx.arg(2)));
  std::vector<std::string_view> names;
  for (const CommandSpec& c : CommandTable::instance().all()) {
    if (c.acl_bits & bit) names.push_back(c.full_name);
    for (const CommandSpec& sub : c.subcommands) {
      if (sub.acl_bits & bit) names.push_back(sub.full_name);
    }
  }
  ctx.reply.array(names.size());
  for (std::string_view n : names) ctx.reply.bulk(n);
}

void acl_genpass(Context& ctx) {
  if (ctx.argc() > 3)
    return ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "ACL"));
  long long bits = 256;
  if (ctx.argc() == 3) {
    auto v = parse_int(ctx.arg(2));
    if (!v) return ctx.reply.error(errors::kNotInteger);
    bits = *v;
  }
  if (bits <= 0 || bits > 4096) return ctx.reply.error(errors::kAclGenpassBits);
  auto chars = static_cast<std::size_t>((bits + 3) / 4);
  std::vector<unsigned char> raw((chars + 1) / 2);
  RAND_bytes(raw.data(), static_cast<int>(raw.size()));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : raw) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  out.resize(chars);
  ctx.reply.bulk(out);
}

std::string_view reason_name(acl::LogReason r) {
  switch (r) {
    case acl::LogReason::kCommand:
      return "command";
    case acl::LogReason::kKey:
      return "key";
    case acl::LogReason::kChannel:
      return "channel";
    case acl::LogReason::kAuth:
      return "auth";
  }
  return "unknown";
}

void acl_log(Context& ctx) {
  if (ctx.argc() > 3)
    return ctx.reply.error(errors::unknown_subcommand_or_arity(ctx.arg(1), "ACL"));
  acl::Acl& acl = ctx.server.acl();
  long long count = 10;
  if (ctx.argc() == 3) {
    if (iequals(ctx.arg(2), "reset")) {
      acl.reset_log();
      return ctx.reply.ok();
    }
    auto v = parse_int(ctx.arg(2));
    if (!v) return ctx.reply.error(errors::kNotInteger);
    count = *v < 0 ? 0 : *v;
  }
  const auto& entries = acl.log_entries();
  std::size_t n = std::min(entries.size(), static_cast<std::size_t>(count));
  ctx.reply.array(n);
  for (std::size_t i = 0; i < n; ++i) {
    const acl::LogEntry& e = entries[i];
    ctx.reply.map(10);
    ctx.reply.bulk("count");
    ctx.reply.integer(static_cast<long long>(e.count));
    ctx.reply.bulk("reason");
    ctx.reply.bulk(reason_name(e.reason));
    ctx.reply.bulk("context");
    ctx.reply.bulk(e.context == acl::LogContext::kMulti ? "multi" : "toplevel");
    ctx.reply.bulk("object");
    ctx.reply.bulk(e.object);
    ctx.reply.bulk("username");
    ctx.reply.bulk(e.username);
    ctx.reply.bulk("age-seconds");
    ctx.reply.dbl(static_cast<double>(ctx.now_ms - e.ctime_ms) / 1000);
    ctx.reply.bulk("client-info");
    ctx.reply.bulk(e.client_info);
    ctx.reply.bulk("entry-id");
    ctx.reply.integer(static_cast<long long>(e.entry_id));
    ctx.reply.bulk("timestamp-created");
    ctx.reply.integer(e.created_ms);
    ctx.reply.bulk("timestamp-last-updated");
    ctx.reply.integer(e.ctime_ms);
  }
}

void acl_dryrun(Context& ctx) {
  std::shared_ptr<acl::User> u = ctx.server.acl().find(ctx.arg(2));
  if (!u) return ctx.reply.error(errors::acl_user_not_found(ctx.arg(2)));
  std::span<const std::string_view> line = ctx.argv.subspan(3);
  const CommandSpec* spec = CommandTable::instance().lookup(line).spec;
  if (!spec) return ctx.reply.error(errors::acl_command_not_found(ctx.arg(3)));
  auto argc = static_cast<long long>(line.size());
  if ((spec->arity > 0 && spec->arity != argc) || argc < -spec->arity) {
    return ctx.reply.error(errors::wrong_arity(spec->full_name));
  }
  acl::Check c = acl::check_command(*u, *spec, line);
  if (c.denied != acl::Denied::kNone) {
    return ctx.reply.bulk(errors::acl_dryrun_denied(c.denied, u->name, spec->full_name,
                                                    line[static_cast<std::size_t>(c.arg)]));
  }
  ctx.reply.ok();
}

void acl_help(Context& ctx) {
  reply_help(ctx.reply, "ACL",
             {
                 "CAT [<category>]",
                 "    List all commands that belong to <category>, or all command categories",
                 "    when no category is specified.",
                 "DELUSER <username> [<username> ...]",
                 "    Delete a list of users.",
                 "DRYRUN <username> <command> [<arg> ...]",
                 "    Returns whether the user can execute the given command without executing "
                 "the command.",
                 "GETUSER <username>",
                 "    Get the user's details.",
                 "GENPASS [<bits>]",
                 "    Generate a secure 256-bit user password. The optional `bits` argument can",
                 "    be used to specify a different size.",
                 "LIST",
                 "    Show users details in config file format.",
                 "LOAD",
                 "    Reload users from the ACL file.",
                 "LOG [<count> | RESET]",
                 "    Show the ACL log entries.",
                 "SAVE",
                 "    Save the current config to the ACL file.",
                 "SETUSER <username> <attribute> [<attribute> ...]",
                 "    Create or modify a user with the specified attributes.",
                 "USERS",
                 "    List all the registered usernames.",
                 "WHOAMI",
                 "    Return the current connection username.",
             });
}

}  // namespace

void register_acl_commands(CommandTable& t) {
  t.add({.name = "acl",
         .arity = -2,
         .flags = 0,
         .acl_categories = "slow",
         .first_key = 0,
         .last_key = 0,
         .step = 0,
         .handler = nullptr,
         .subcommands =
             {
                 {"cat", -2, kAclFlags, "slow", 0, 0, 0, acl_cat},
                 {"deluser", -3, kAdminFlags, kAdminAcl, 0, 0, 0, acl_deluser},
                 {"dryrun", -4, kAdminFlags, kAdminAcl, 0, 0, 0, acl_dryrun},
                 {"genpass", -2, kAclFlags, "slow", 0, 0, 0, acl_genpass},
                 {"getuser", 3, kAdminFlags, kAdminAcl, 0, 0, 0, acl_getuser},
                 {"help", 2, kLoading | kStale, "slow", 0, 0, 0, acl_help},
                 {"list", 2, kAdminFlags, kAdminAcl, 0, 0, 0, acl_list},
                 {"load", 2, kAdminFlags, kAdminAcl, 0, 0, 0, acl_load},
                 {"log", -2, kAdminFlags, kAdminAcl, 0, 0, 0, acl_log},
                 {"save", 2, kAdminFlags, kAdminAcl, 0, 0, 0, acl_save},
                 {"setuser", -3, kAdminFlags, kAdminAcl, 0, 0, 0, acl_setuser},
                 {"users", 2, kAdminFlags, kAdminAcl, 0, 0, 0, acl_users},
                 {"whoami", 2, kAclFlags, "slow", 0, 0, 0, acl_whoami},
             },
         .group = "server"});
}

}  // namespace streamd::cmd
