// BGREWRITEAOF, SAVE, BGSAVE [SCHEDULE] and LASTSAVE (WAITAOF is with WAIT, in commands/repl/).
// The RDB commands talk to cmd::Snapshots (persist/rdb_service.h).
#include "streamd/commands/server/persistence_commands.h"

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/server.h"

namespace streamd::cmd {

namespace {

void bgrewriteaof(Context& ctx) {
  Persistence* p = ctx.server.persistence();
  if (!p) {
    ctx.reply.error(errors::kAofRewriteFailed);
    return;
  }
  switch (p->start_rewrite(ctx.session.executing)) {
    case Persistence::RewriteStart::kStarted:
      ctx.reply.simple("Background append only file rewriting started");
      break;
    case Persistence::RewriteStart::kScheduled:
      ctx.reply.simple("Background append only file rewriting scheduled");
      break;
    case Persistence::RewriteStart::kAlreadyInProgress:
      ctx.reply.error(errors::kAofRewriteInProgress);
      break;
    case Persistence::RewriteStart::kFailed:
      ctx.reply.error(errors::kAofRewriteFailed);
      break;
  }
}

void save(Context& ctx) {
  Snapshots* s = ctx.server.snapshots();
  if (s && s->bgsave_in_progress()) return ctx.reply.error(errors::kBgsaveInProgress);
  if (!s || !s->save()) return ctx.reply.error(errors::kSaveFailed);
  ctx.reply.ok();
}

// BGSAVE [SCHEDULE].
void bgsave(Context& ctx) {
  ArgCursor cur(ctx.argv, 1);
  bool schedule = false;
  if (!cur.done()) {
    if (cur.remaining() != 1 || !cur.match("schedule")) return ctx.reply.error(errors::kSyntax);
    schedule = true;
  }
  Snapshots* s = ctx.server.snapshots();
  if (!s) return ctx.reply.error(errors::kSaveFailed);
  switch (s->bgsave(schedule, ctx.session.executing)) {
    case Snapshots::BgsaveStart::kStarted:
      return ctx.reply.simple("Background saving started");
    case Snapshots::BgsaveStart::kScheduled:
      return ctx.reply.simple("Background saving scheduled");
    case Snapshots::BgsaveStart::kAlreadyInProgress:
      return ctx.reply.error(errors::kBgsaveInProgress);
    case Snapshots::BgsaveStart::kOtherChild:
      return ctx.reply.error(errors::kBgsaveOtherChild);
    case Snapshots::BgsaveStart::kFailed:
      return ctx.reply.error(errors::kSaveFailed);
  }
}

void lastsave(Context& ctx) {
  Snapshots* s = ctx.server.snapshots();
  ctx.reply.integer(s ? s->lastsave() : ctx.server.start_ms() / 1000);
}

}  // namespace

SnapshotInfo snapshot_info(Server& server) {
  Snapshots* s = server.snapshots();
  if (s) return s->info();
  SnapshotInfo i;
  i.changes_since_last_save = server.dirty();
  i.last_save_time = server.start_ms() / 1000;
  return i;
}

PersistenceInfo persistence_info(Server& server) {
  Persistence* p = server.persistence();
  return p ? p->info() : PersistenceInfo{};
}

void register_persistence_commands(CommandTable& t) {
  t.add({"bgrewriteaof",
         1,
         kAdmin | kNoAsyncLoading | kNoScript,
         "admin slow dangerous",
         0,
         0,
         0,
         bgrewriteaof,
         {},
         nullptr,
         "server"});
  t.add({"save",
         1,
         kAdmin | kNoAsyncLoading | kNoScript | kNoMulti,
         "admin slow dangerous",
         0,
         0,
         0,
         save,
         {},
         nullptr,
         "server"});
  t.add({"bgsave",
         -1,
         kAdmin | kNoAsyncLoading | kNoScript,
         "admin slow dangerous",
         0,
         0,
         0,
         bgsave,
         {},
         nullptr,
         "server"});
  t.add({"lastsave",
         1,
         kLoading | kStale | kFast,
         "admin fast dangerous",
         0,
         0,
         0,
         lastsave,
         {},
         nullptr,
         "server"});
}

}  // namespace streamd::cmd
