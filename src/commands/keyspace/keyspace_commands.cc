// Generic keyspace commands that work on any value type: DEL, UNLINK, EXISTS, TYPE, TOUCH, KEYS,
// SCAN, RANDOMKEY, DBSIZE, FLUSHDB, FLUSHALL, RENAME, RENAMENX, COPY, MOVE, SWAPDB. The expire
// family lives in expire_commands.cc, OBJECT and MEMORY in object_commands.cc.
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/snapshots.h"
#include "streamd/commands/keyspace/keyspace_support.h"
#include "streamd/text/glob.h"

namespace streamd::cmd {

namespace {

// ---- DEL / UNLINK / EXISTS / TYPE / TOUCH ---------------------------------------------------

void del_command(Context& ctx) {
  long long removed = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    std::string_view key = ctx.arg(i);
    if (ctx.db().remove(key)) {
      ++removed;
      ctx.modified(key, events::kDel);
    }
  }
  ctx.reply.integer(removed);
}

void exists_command(Context& ctx) {
  long long found = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    if (lookup_read(ctx, ctx.arg(i), Touch::kNo)) ++found;
  }
  ctx.reply.integer(found);
}

void touch_command(Context& ctx) {
  long long found = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    if (lookup_read(ctx, ctx.arg(i), Touch::kAlways)) ++found;
  }
  ctx.reply.integer(found);
}

void type_command(Context& ctx) {
  engine::Entry* e = lookup_read(ctx, ctx.arg(1), Touch::kNo);
  ctx.reply.simple(e ? type_name(e->value) : "none");
}

// ---- KEYS / SCAN / RANDOMKEY / DBSIZE -------------------------------------------------------

void keys_command(Context& ctx) {
  text::GlobMatcher pattern{std::string(ctx.arg(1))};
  auto d = ctx.reply.defer();
  std::size_t n = 0;
  ctx.db().for_each([&](std::string_view key, const engine::Entry&) {
    if (pattern.matches(key)) {
      ctx.reply.bulk(key);
      ++n;
    }
  });
  ctx.reply.end_array(d, n);
}

// The cursor as Redis reads it (strtoul): an optional sign is allowed, leading spaces and
// trailing bytes are not, and the text stops at a NUL byte like a C string.
std::optional<uint64_t> parse_cursor(std::string_view arg) {
  std::string text(arg.substr(0, arg.find('\0')));
  if (!text.empty() && std::isspace(static_cast<unsigned char>(text[0]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return std::nullopt;
  return v;
}

struct ScanArgs {
  long long count = 10;
  std::optional<text::GlobMatcher> pattern;
  std::optional<std::string_view> type;
};

// SCAN's options after the cursor; false with the error in the cursor.
bool parse_scan(ArgCursor& cur, ScanArgs& a) {
  while (!cur.done()) {
    if (cur.match("count", 1)) {
      if (!cur.next_int(a.count) || !cur.require(a.count >= 1, errors::kSyntax)) return false;
    } else if (cur.match("match", 1)) {
      a.pattern.emplace(std::string(cur.next()));
    } else if (cur.match("type", 1)) {
      a.type = cur.next();
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  return true;
}

void scan_command(Context& ctx) {
  auto cursor = parse_cursor(ctx.arg(1));
  if (!cursor) {
    ctx.reply.error(errors::kInvalidCursor);
    return;
  }
  ScanArgs a;
  ArgCursor cur(ctx.argv, 2);
  if (!parse_scan(cur, a)) return ctx.reply.error(cur.error());

  // A key that passed the filters but has expired is expired now (deleted, propagated as DEL, the
  // "expired" event; only hidden on a replica), as Redis's SCAN does after filtering: keys not
  // matching are left alone. Deleting frees only those keys' nodes, so the views of the others
  // stay valid.
  std::vector<std::string_view> keys;
  std::vector<std::string> expired;
  uint64_t next = ctx.db().scan(
      *cursor, static_cast<std::size_t>(a.count),
      [&](std::string_view key, const engine::Entry& e) {
        if (a.pattern && !a.pattern->matches(key)) return;
        if (a.type && !iequals(*a.type, type_name(e.value))) return;
        if (ctx.db().is_expired(e)) {
          expired.emplace_back(key);
        } else {
          keys.push_back(key);
        }
      },
      engine::Database::ScanExpired::kVisit);
  for (const std::string& key : expired) ctx.db().find(key, /*touch=*/false);
  ctx.reply.array(2);
  ctx.reply.bulk(std::to_string(next));
  ctx.reply.array(keys.size());
  for (std::string_view k : keys) ctx.reply.bulk(k);
}

void randomkey_command(Context& ctx) {
  std::string key;
  if (ctx.db().random_key(key)) {
    ctx.reply.bulk(key);
  } else {
    ctx.reply.null();
  }
}

void dbsize_command(Context& ctx) {
  ctx.reply.integer(static_cast<long long>(ctx.db().size()));
}

// ---- FLUSHDB / FLUSHALL ---------------------------------------------------------------------

// [ASYNC|SYNC]: both empty the database at once (there is no background freeing to hand off to).
bool flush_args_ok(Context& ctx) {
  if (ctx.argc() == 1) return true;
  if (ctx.argc() == 2 && (iequals(ctx.arg(1), "sync") || iequals(ctx.arg(1), "async"))) {
    return true;
  }
  ctx.reply.error(errors::kSyntax);
  return false;
}

// The +OK of a flush. Since Redis 8.0 a synchronous flush (SYNC, or no argument with
// lazyfree-lazy-user-flush no) outside MULTI frees the data in a background thread while its
// client waits (db.c flushCommandCommon, "blocking ASYNC"): the messages its own flush caused
// (a tracking client's null) are sent when the command returns, before that +OK. An ASYNC flush,
// or one inside EXEC, replies at once and its messages follow the reply, as for any command.
void reply_flushed(Context& ctx) {
  bool sync = ctx.argc() == 2 ? iequals(ctx.arg(1), "sync")
                              : !ctx.server.config().ref<bool>("lazyfree-lazy-user-flush");
  Session& s = ctx.session;
  if (sync && !s.executing && !s.deferred_pushes.empty()) {
    ctx.reply.buffer().append(s.deferred_pushes);
    s.deferred_pushes.clear();
  }
  ctx.reply.ok();
}

// Redis counts one change per key a flush removes (INFO rdb_changes_since_last_save).
void flushdb_command(Context& ctx) {
  if (!flush_args_ok(ctx)) return;
  ctx.mark_dirty(ctx.db().size());
  ctx.server.keyspace().flush_db(ctx.session.db);
  reply_flushed(ctx);
}

void flushall_command(Context& ctx) {
  if (!flush_args_ok(ctx)) return;
  engine::Keyspace& ks = ctx.server.keyspace();
  for (int i = 0; i < ks.databases(); ++i) ctx.mark_dirty(ks.db(i).size());
  ks.flush_all();
  // With save rules set Redis then saves the empty dataset, which leaves no change to count.
  if (Snapshots* snap = ctx.server.snapshots(); snap && snap->flushed_all()) ctx.dirty = 0;
  reply_flushed(ctx);
}

// ---- RENAME / RENAMENX / COPY / MOVE / SWAPDB -----------------------------------------------

void rename_generic(Context& ctx, bool nx) {
  std::string_view src = ctx.arg(1), dst = ctx.arg(2);
  engine::Entry* e = lookup_write(ctx, src);
  if (!e) {
    ctx.reply.error(errors::kNoSuchKey);
    return;
  }
  if (src == dst) {
    if (nx) {
      ctx.reply.integer(0);
    } else {
      ctx.reply.ok();
    }
    return;
  }
  if (nx && lookup_write(ctx, dst)) {
    ctx.reply.integer(0);
    return;
  }
  engine::Entry moved{engine::Value(std::string()), -1, 0};
  // put() reports "new" for dst (Redis deletes an overwritten dst and adds it afresh), then the
  // pair of events, source first.
  ctx.db().take(src, moved);
  ctx.db().put(dst, std::move(moved));
  ctx.modified(src, events::kRenameFrom);
  ctx.modified(dst, events::kRenameTo, 0);  // Redis counts a rename as one change
  if (nx) {
    ctx.reply.integer(1);
  } else {
    ctx.reply.ok();
  }
}

void rename_command(Context& ctx) {
  rename_generic(ctx, false);
}
void renamenx_command(Context& ctx) {
  rename_generic(ctx, true);
}

// MOVE's database index argument: an int, then a valid index.
std::optional<int> db_index_or_reply(Context& ctx, std::string_view arg) {
  auto v = parse_int(arg);
  if (!v || *v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max()) {
    ctx.reply.error(errors::kNotInteger);
    return std::nullopt;
  }
  if (*v < 0 || *v >= ctx.server.keyspace().databases()) {
    ctx.reply.error(errors::kDbOutOfRange);
    return std::nullopt;
  }
  return static_cast<int>(*v);
}

struct CopyArgs {
  bool replace = false;
  std::optional<int> db;  // none: the client's database
};

// COPY's options after the two keys; false with the error in the cursor. DB's index is checked
// as soon as it is read, before the options after it (Redis 7.0.15: COPY a b DB 99 BOGUS is
// "DB index is out of range", not a syntax error).
bool parse_copy(ArgCursor& cur, int databases, CopyArgs& a) {
  while (!cur.done()) {
    if (cur.match("replace")) {
      a.replace = true;
    } else if (cur.match("db", 1)) {
      long long db = 0;
      if (!cur.next_int(db) || !cur.require(db >= 0 && db < databases, errors::kDbOutOfRange)) {
        return false;
      }
      a.db = static_cast<int>(db);
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  return true;
}

void copy_command(Context& ctx) {
  CopyArgs a;
  ArgCursor cur(ctx.argv, 3);
  if (!parse_copy(cur, ctx.server.keyspace().databases(), a)) return ctx.reply.error(cur.error());
  const bool replace = a.replace;
  const int dst_db = a.db.value_or(ctx.session.db);
  std::string_view src = ctx.arg(1), dst = ctx.arg(2);
  if (dst_db == ctx.session.db && src == dst) {
    ctx.reply.error(errors::kSameObject);
    return;
  }
  engine::Entry* e = lookup_read(ctx, src);
  if (!e) {
    ctx.reply.integer(0);
    return;
  }
  engine::Database& target = ctx.server.keyspace().db(dst_db);
  if (target.find(dst, !ctx.session.no_touch) && !replace) {
    ctx.reply.integer(0);
    return;
  }
  engine::Entry copy{e->value.clone(), e->expire_ms, ctx.now_ms};
  target.put(dst, std::move(copy));
  ctx.server.signal_modified(dst_db, dst);
  ctx.server.notify(events::kCopyTo, dst, dst_db);
  ctx.reply.integer(1);
}

void move_command(Context& ctx) {
  auto d = db_index_or_reply(ctx, ctx.arg(2));
  if (!d) return;
  int dst_db = *d;
  if (dst_db == ctx.session.db) {
    ctx.reply.error(errors::kSameObject);
    return;
  }
  std::string_view key = ctx.arg(1);
  if (!lookup_write(ctx, key)) {
    ctx.reply.integer(0);
    return;
  }
  engine::Database& target = ctx.server.keyspace().db(dst_db);
  if (target.find(key, !ctx.session.no_touch)) {
    ctx.reply.integer(0);
    return;
  }
  engine::Entry moved{engine::Value(std::string()), -1, 0};
  ctx.db().take(key, moved);
  target.put(key, std::move(moved));
  ctx.modified(key, events::kMoveFrom);
  ctx.server.signal_modified(dst_db, key);
  ctx.server.notify(events::kMoveTo, key, dst_db);
  ctx.reply.integer(1);
}

void swapdb_command(Context& ctx) {
  auto a = parse_int(ctx.arg(1));
  if (!a || *a < std::numeric_limits<int>::min() || *a > std::numeric_limits<int>::max()) {
    ctx.reply.error(errors::kInvalidFirstDb);
    return;
  }
  auto b = parse_int(ctx.arg(2));
  if (!b || *b < std::numeric_limits<int>::min() || *b > std::numeric_limits<int>::max()) {
    ctx.reply.error(errors::kInvalidSecondDb);
    return;
  }
  int n = ctx.server.keyspace().databases();
  if (*a < 0 || *a >= n || *b < 0 || *b >= n) {
    ctx.reply.error(errors::kDbOutOfRange);
    return;
  }
  if (*a != *b) {
    // A key WATCHed in either database breaks if it exists on either side of the swap, and
    // clients blocked on either database must re-check their keys: tell the server about both
    // databases before the swap (keys that go away) and after it (keys that appear).
    int x = static_cast<int>(*a), y = static_cast<int>(*b);
    ctx.server.on_db_flushed(x);
    ctx.server.on_db_flushed(y);
    ctx.server.keyspace().swap_db(x, y);
    ctx.server.on_db_flushed(x);
    ctx.server.on_db_flushed(y);
  }
  ctx.reply.ok();
}

}  // namespace

void register_keyspace_commands(CommandTable& t) {
  GroupRows rows(t, "generic");
  rows.add("del", -2, kWrite, "keyspace write slow", {1, -1, 1}, del_command);
  rows.add("unlink", -2, kWrite | kFast, "keyspace write fast", {1, -1, 1}, del_command);
  rows.add("exists", -2, kReadonly | kFast, "keyspace read fast", {1, -1, 1}, exists_command);
  rows.add_single_key("type", 2, kReadonly | kFast, "keyspace read fast", type_command);
  rows.add("touch", -2, kReadonly | kFast, "keyspace read fast", {1, -1, 1}, touch_command);
  rows.add("keys", 2, kReadonly, "keyspace read slow dangerous", kNoKeys, keys_command);
  rows.add("scan", -2, kReadonly | kTouchesArbitraryKeys, "keyspace read slow", kNoKeys,
           scan_command);
  rows.add("randomkey", 1, kReadonly | kTouchesArbitraryKeys, "keyspace read slow", kNoKeys,
           randomkey_command);
  rows.add("dbsize", 1, kReadonly | kFast, "keyspace read fast", kNoKeys, dbsize_command);
  rows.add("flushdb", -1, kWrite, "keyspace write slow dangerous", kNoKeys, flushdb_command);
  rows.add("flushall", -1, kWrite, "keyspace write slow dangerous", kNoKeys, flushall_command);
  rows.add("rename", 3, kWrite, "keyspace write slow", {1, 2, 1}, rename_command);
  rows.add("renamenx", 3, kWrite | kFast, "keyspace write fast", {1, 2, 1}, renamenx_command);
  rows.add("copy", -3, kWrite | kDenyOom, "keyspace write slow", {1, 2, 1}, copy_command);
  rows.add_single_key("move", 3, kWrite | kFast, "keyspace write fast", move_command);
  rows.add("swapdb", 3, kWrite | kFast, "keyspace write fast dangerous", kNoKeys, swapdb_command);
  register_expire_commands(t);
  register_object_commands(t);
  register_dump_commands(t);
  register_migrate_command(t);
}

}  // namespace streamd::cmd
