// Introspection of single keys: OBJECT ENCODING / REFCOUNT / IDLETIME / FREQ / HELP, and the
// MEMORY command: USAGE and HELP here, PURGE (malloc_trim) and MALLOC-STATS (what Redis built
// with libc answers); STATS and DOCTOR report the server's figures (server/memory_overhead.h).
// Encodings are the ones redis-server 7.0 would report for the same command history
// (engine::StrEncoding).
#include <malloc.h>

#include <limits>
#include <string_view>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"
#include "streamd/commands/keyspace/keyspace_support.h"
#include "streamd/commands/server/memory_overhead.h"

namespace streamd::cmd {

namespace {

// OBJECT <sub> key: a lookup that neither touches the key nor, when absent, answers anything but
// null (nor publishes "keymiss").
engine::Entry* object_lookup(Context& ctx) {
  engine::Entry* e = lookup_read(ctx, ctx.arg(2), Touch::kNo, false);
  if (!e) ctx.reply.null();
  return e;
}

void object_encoding(Context& ctx) {
  if (engine::Entry* e = object_lookup(ctx)) ctx.reply.bulk(encoding_name(e->value));
}

// OBJECT REFCOUNT (named apart from keyspace_support.h's object_refcount, which it calls).
void object_refcount_command(Context& ctx) {
  if (engine::Entry* e = object_lookup(ctx)) ctx.reply.integer(cmd::object_refcount(e->value));
}

// Under an LFU maxmemory policy Redis keeps an access frequency instead of the access time.
bool lfu_policy(Context& ctx) {
  return ctx.db().access_tracking() == engine::AccessTracking::kLfu;
}

void object_idletime(Context& ctx) {
  engine::Entry* e = object_lookup(ctx);
  if (!e) return;
  if (lfu_policy(ctx)) {
    ctx.reply.error(errors::kLfuSelected);
    return;
  }
  // Redis compares access times on a clock with one-second resolution.
  int64_t idle_s = ctx.now_ms / 1000 - e->access_ms / 1000;
  ctx.reply.integer(idle_s > 0 ? idle_s : 0);
}

void object_freq(Context& ctx) {
  engine::Entry* e = object_lookup(ctx);
  if (!e) return;
  if (!lfu_policy(ctx)) {
    ctx.reply.error(errors::kLfuNotSelected);
    return;
  }
  // The counter as decayed to now; reading it is no access.
  ctx.reply.integer(engine::lfu_counter(e->access_ms, ctx.now_ms, ctx.db().lfu_params()));
}

void object_help(Context& ctx) {
  reply_help(ctx.reply, "OBJECT",
             {
                 "ENCODING <key>",
                 "    Return the kind of internal representation used in order to store the value",
                 "    associated with a <key>.",
                 "FREQ <key>",
                 "    Return the access frequency index of the <key>. The returned integer is",
                 "    proportional to the logarithm of the recent access frequency of the key.",
                 "IDLETIME <key>",
                 "    Return the idle time of the <key>, that is the approximated number of",
                 "    seconds elapsed since the last access to the key.",
                 "REFCOUNT <key>",
                 "    Return the number of references of the value associated with the specified",
                 "    <key>.",
             });
}

// MEMORY USAGE key [SAMPLES n]. Sampling does not apply: the estimate of every value is exact
// in its own terms (streams keep running totals), so SAMPLES is validated and ignored.
void memory_usage(Context& ctx) {
  ArgCursor cur(ctx.argv, 3);
  while (!cur.done()) {
    long long samples = 0;
    if (!cur.match("samples", 1)) {
      cur.fail(errors::kSyntax);
    } else if (cur.next_int(samples)) {
      cur.require(samples >= 0, errors::kSyntax);
    }
    if (cur.failed()) return ctx.reply.error(cur.error());
  }
  std::string_view key = ctx.arg(2);
  const engine::Entry* e = ctx.db().peek(key);
  if (!e) {
    ctx.reply.null();
    return;
  }
  ctx.reply.integer(static_cast<long long>(key_memory_usage(key, e->value)));
}

void memory_purge(Context& ctx) {
  // Redis purges jemalloc's dirty pages; with glibc's malloc the same is malloc_trim: free pages
  // at the top of the heap and inside the arenas go back to the system.
  malloc_trim(0);
  ctx.reply.ok();
}

void memory_malloc_stats(Context& ctx) {
  // What redis-server answers when it is not built with jemalloc (streamd uses the libc malloc).
  ctx.reply.bulk("Stats not supported for the current allocator");
}

void memory_help(Context& ctx) {
  reply_help(ctx.reply, "MEMORY",
             {
                 "DOCTOR",
                 "    Return memory problems reports.",
                 "MALLOC-STATS",
                 "    Return internal statistics report from the memory allocator.",
                 "PURGE",
                 "    Attempt to purge dirty pages for reclamation by the allocator.",
                 "STATS",
                 "    Return information about the memory usage of the server.",
                 "USAGE <key> [SAMPLES <count>]",
                 "    Return memory in bytes used by <key> and its value. Nested values are",
                 "    sampled up to <count> times (default: 5, 0 means sample all).",
             });
}

CommandSpec sub(std::string_view group, std::string_view name, int arity, uint32_t flags,
                std::string_view acl, int key, Handler h) {
  return CommandSpec{.name = name,
                     .arity = arity,
                     .flags = flags,
                     .acl_categories = acl,
                     .first_key = key,
                     .last_key = key,
                     .step = key ? 1 : 0,
                     .handler = h,
                     .group = group};
}

}  // namespace

void register_object_commands(CommandTable& t) {
  constexpr std::string_view kKeyRead = "keyspace read slow";
  t.add(CommandSpec{
      .name = "object",
      .arity = -2,
      .flags = 0,
      .acl_categories = "slow",
      .first_key = 0,
      .last_key = 0,
      .step = 0,
      .handler = nullptr,
      .subcommands = {sub("generic", "encoding", 3, kReadonly, kKeyRead, 2, object_encoding),
                      sub("generic", "freq", 3, kReadonly, kKeyRead, 2, object_freq),
                      sub("generic", "help", 2, kLoading | kStale, "keyspace slow", 0, object_help),
                      sub("generic", "idletime", 3, kReadonly, kKeyRead, 2, object_idletime),
                      sub("generic", "refcount", 3, kReadonly, kKeyRead, 2,
                          object_refcount_command)},
      .group = "generic"});
  t.add(CommandSpec{
      .name = "memory",
      .arity = -2,
      .flags = 0,
      .acl_categories = "slow",
      .first_key = 0,
      .last_key = 0,
      .step = 0,
      .handler = nullptr,
      .subcommands = {sub("server", "doctor", 2, 0, "slow", 0, memory_doctor),
                      sub("server", "help", 2, kLoading | kStale, "slow", 0, memory_help),
                      sub("server", "malloc-stats", 2, 0, "slow", 0, memory_malloc_stats),
                      sub("server", "purge", 2, 0, "slow", 0, memory_purge),
                      sub("server", "stats", 2, 0, "slow", 0, memory_stats),
                      sub("server", "usage", -3, kReadonly, "read slow", 2, memory_usage)},
      .group = "server"});
}

}  // namespace streamd::cmd
