// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH.
//
// Dispatch does the queueing: inside MULTI every command except EXEC, DISCARD, MULTI, WATCH,
// QUIT and RESET is answered +QUEUED, and a command rejected while queueing (unknown, wrong
// arity...) sets Session::multi_error so EXEC answers EXECABORT. WATCH bookkeeping lives in the
// Server: any write signalled through Server::signal_modified (by any client, by expiry, by
// FLUSHDB/FLUSHALL/SWAPDB) sets Session::dirty_cas of the sessions watching that key.
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/error_text.h"

namespace streamd::cmd {

namespace {

// A WATCHed key that has expired since it was watched counts as modified, even if nothing has
// deleted it yet: looking it up now runs the lazy expiry, whose notification marks the session
// dirty.
void expire_watched_keys(Context& ctx) {
  auto watched = ctx.session.watched;  // the lookups may notify; iterate over a copy
  for (const auto& [db, key] : watched) {
    ctx.server.keyspace().db(db).find(key, false);
  }
}

void multi_command(Context& ctx) {
  if (ctx.session.in_multi) {
    ctx.reply.error(errors::kMultiNested);
    return;
  }
  ctx.session.in_multi = true;
  ctx.reply.ok();
}

void exec_command(Context& ctx) {
  Session& s = ctx.session;
  if (!s.in_multi) {
    ctx.reply.error(errors::kExecWithoutMulti);
    return;
  }
  expire_watched_keys(ctx);
  if (s.multi_error || s.dirty_cas) {
    if (s.multi_error) {
      ctx.reply.error(errors::kExecAbort);
    } else {
      ctx.reply.null_array();
    }
    s.reset_transaction(ctx.server);
    return;
  }
  std::vector<std::vector<std::string>> queued = std::move(s.queued);
  s.reset_transaction(ctx.server);  // unwatch first: our own writes must not matter

  ctx.reply.array(queued.size());
  std::string& out = ctx.reply.buffer();
  s.executing = true;
  std::vector<std::string_view> argv;
  for (const auto& line : queued) {
    argv.assign(line.begin(), line.end());
    ctx.dispatcher.execute_queued(s, argv, out);
  }
  s.executing = false;
}

void discard_command(Context& ctx) {
  if (!ctx.session.in_multi) {
    ctx.reply.error(errors::kDiscardWithoutMulti);
    return;
  }
  ctx.session.reset_transaction(ctx.server);
  ctx.reply.ok();
}

void watch_command(Context& ctx) {
  if (ctx.session.in_multi) {
    ctx.reply.error(errors::kWatchInMulti);
    return;
  }
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    // Expire the key first: a key that is already logically gone is watched as missing, so its
    // eventual deletion does not break the transaction (Redis remembers it as expired).
    ctx.db().find(ctx.arg(i), false);
    ctx.server.watch(ctx.session, ctx.session.db, ctx.arg(i));
  }
  ctx.reply.ok();
}

void unwatch_command(Context& ctx) {
  ctx.server.unwatch_all(ctx.session);
  ctx.reply.ok();
}

}  // namespace

void register_transaction_commands(CommandTable& t) {
  constexpr uint32_t kTxFlags = kNoScript | kLoading | kStale;
  GroupRows rows(t, "transactions");
  rows.add("multi", 1, kTxFlags | kFast | kAllowBusy, "fast transaction", kNoKeys, multi_command);
  rows.add("exec", 1, kTxFlags | kSkipSlowlog, "slow transaction", kNoKeys, exec_command);
  rows.add("discard", 1, kTxFlags | kFast | kAllowBusy, "fast transaction", kNoKeys,
           discard_command);
  rows.add("watch", -2, kTxFlags | kFast | kAllowBusy, "fast transaction", {1, -1, 1},
           watch_command);
  rows.add("unwatch", 1, kTxFlags | kFast | kAllowBusy, "fast transaction", kNoKeys,
           unwatch_command);
}

}  // namespace streamd::cmd
