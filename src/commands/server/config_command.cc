#include "streamd/commands/server/config_command.h"

#include <string>
#include <vector>

#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"
#include "streamd/config/config.h"

namespace streamd::cmd {

namespace {

// CONFIG GET pattern [pattern ...]: a map of directive name to value.
void config_get(Context& ctx) {
  auto pairs = ctx.server.config().get_matching(ctx.argv.subspan(2));
  ctx.reply.map(pairs.size());
  for (const auto& [name, value] : pairs) {
    ctx.reply.bulk(name);
    ctx.reply.bulk(value);
  }
}

// CONFIG SET name value [name value ...]: all or nothing; the config layer words the errors.
void config_set(Context& ctx) {
  config::Config& cfg = ctx.server.config();
  if (auto err = cfg.set(ctx.argv.subspan(2), permitted(ctx, cfg.enable_protected_configs()))) {
    return ctx.reply.error(*err);
  }
  ctx.reply.ok();
}

void config_rewrite(Context& ctx) {
  if (auto err = ctx.server.config().rewrite()) return ctx.reply.error(*err);
  ctx.reply.ok();
}

void config_resetstat(Context& ctx) {
  ctx.server.stats().reset();
  ctx.reply.ok();
}

void config_help(Context& ctx) {
  reply_help(ctx.reply, "CONFIG",
             {
                 "GET <pattern>",
                 "    Return parameters matching the glob-like <pattern> and their values.",
                 "SET <directive> <value>",
                 "    Set the configuration <directive> to <value>.",
                 "RESETSTAT",
                 "    Reset statistics reported by the INFO command.",
                 "REWRITE",
                 "    Rewrite the configuration file.",
             });
}

}  // namespace

bool permitted(Context& ctx, config::LocalPermission p) {
  switch (p) {
    case config::LocalPermission::kYes:
      return true;
    case config::LocalPermission::kNo:
      return false;
    case config::LocalPermission::kLocal:
      break;
  }
  return ctx.session.local();
}

bool debug_allowed(Context& ctx) {
  return permitted(ctx, ctx.server.config().enable_debug_command());
}

void register_config_command(CommandTable& t) {
  t.add({.name = "config",
         .arity = -2,
         .flags = 0,
         .acl_categories = "slow",
         .first_key = 0,
         .last_key = 0,
         .step = 0,
         .handler = nullptr,
         .subcommands =
             {
                 {"get", -3, kAdminFlags, kAdminAcl, 0, 0, 0, config_get},
                 {"help", 2, kLoading | kStale, "slow", 0, 0, 0, config_help},
                 {"resetstat", 2, kAdminFlags, kAdminAcl, 0, 0, 0, config_resetstat},
                 {"rewrite", 2, kAdminFlags, kAdminAcl, 0, 0, 0, config_rewrite},
                 {"set", -4, kAdminFlags, kAdminAcl, 0, 0, 0, config_set},
             },
         .group = "server"});
}

}  // namespace streamd::cmd
