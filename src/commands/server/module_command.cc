// MODULE: streamd loads no Redis modules (their API is Redis's process internals), and says so the
// way Redis does when a module is absent or fails to load: MODULE LIST is empty (clients and
// tools such as RedisInsight ask it to learn which modules a server has), MODULE LOAD / LOADEX
// answer Redis's load failure (with the reason in the log), MODULE UNLOAD finds no module. LOAD,
// LOADEX and UNLOAD are protected by enable-module-command, as in Redis.
#include <spdlog/spdlog.h>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"
#include "streamd/commands/server/config_command.h"
#include "streamd/config/config.h"

namespace streamd::cmd {

namespace {

void module_help(Context& ctx) {
  reply_help(ctx.reply, "MODULE",
             {
                 "LIST",
                 "    Return a list of loaded modules.",
                 "LOAD <path> [<arg> ...]",
                 "    Load a module library from <path>, passing to it any optional arguments.",
                 "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
                 "    Load a module library from <path>, while passing it module configurations "
                 "and optional arguments.",
                 "UNLOAD <name>",
                 "    Unload a module.",
             });
}

void module_list(Context& ctx) {
  ctx.reply.array(0);
}

bool module_allowed(Context& ctx) {
  auto p = static_cast<config::LocalPermission>(
      ctx.server.config().ref<std::int64_t>("enable-module-command"));
  if (permitted(ctx, p)) {
    return true;
  }
  ctx.reply.error(errors::kModuleNotAllowed);
  return false;
}

void module_load(Context& ctx) {
  if (!module_allowed(ctx)) return;
  spdlog::warn("Module {} failed to load: streamd does not load Redis modules", ctx.arg(2));
  ctx.reply.error(errors::kModuleLoadFailed);
}

void module_unload(Context& ctx) {
  if (!module_allowed(ctx)) return;
  ctx.reply.error(errors::kModuleUnloadNoSuchModule);
}

constexpr uint32_t kModuleFlags = kAdmin | kNoScript | kNoAsyncLoading;
constexpr std::string_view kModuleAcl = "admin slow dangerous";

}  // namespace

void register_module_command(CommandTable& t) {
  t.add({.name = "module",
         .arity = -2,
         .flags = 0,
         .acl_categories = "slow",
         .first_key = 0,
         .last_key = 0,
         .step = 0,
         .handler = nullptr,
         .subcommands = {{"help", 2, kLoading | kStale, "slow", 0, 0, 0, module_help},
                         {"list", 2, kAdmin | kNoScript, kModuleAcl, 0, 0, 0, module_list},
                         {"load", -3, kModuleFlags, kModuleAcl, 0, 0, 0, module_load},
                         {"loadex", -3, kModuleFlags, kModuleAcl, 0, 0, 0, module_load},
                         {"unload", 3, kModuleFlags, kModuleAcl, 0, 0, 0, module_unload}},
         .group = "server"});
}

}  // namespace streamd::cmd
