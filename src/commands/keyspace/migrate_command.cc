// MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw | AUTH2 user pw] [KEYS k...]:
// the keys' DUMP payloads sent as RESTORE commands (after AUTH and SELECT) to another server,
// and, for each one it acknowledged, the local key deleted (unless COPY) and propagated as DEL.
// Redis does the exchange with blocking socket calls, stalling every client for up to the
// timeout; here the exchange runs on the event loop through cmd::Outbound (net/) while only the
// calling client is parked, and the callback finishes the command: replies, deletions,
// propagation, events, in redis-server 7.0.15's order and texts.
//
// Known differences: a key written by another client while the exchange is in flight is still
// deleted when the target acknowledges it (Redis runs the whole command atomically); inside
// MULTI (where no client can be parked) MIGRATE is refused; a parked MIGRATE shows as a blocked
// client waiting on one key in INFO.
#include <algorithm>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/outbound.h"
#include "streamd/commands/keyspace/keyspace_support.h"
#include "streamd/commands/keyspace/migrate.h"
#include "streamd/resp/reply_writer.h"

namespace streamd::cmd {

namespace {

// The connector of each server (tests run several servers in one process), as MONITOR keeps
// its registry: only MIGRATE needs it.
std::map<const Server*, Outbound*>& connectors() {
  static std::map<const Server*, Outbound*> m;
  return m;
}

uint64_t g_next_exchange = 0;

// Redis's migrateGetKeys: the key argument, or with KEYS (searched from the options on) every
// argument after it.
std::vector<int> migrate_keys(std::span<const std::string_view> argv) {
  for (std::size_t i = 6; i < argv.size(); ++i) {
    if (!iequals(argv[i], "keys")) continue;
    if (!argv[3].empty()) return {};
    std::vector<int> keys;
    for (std::size_t k = i + 1; k < argv.size(); ++k) keys.push_back(static_cast<int>(k));
    return keys;
  }
  if (argv.size() < 6) return {};
  return {3};
}

struct MigrateArgs {
  bool copy = false;
  bool replace = false;
  std::string_view user, password;
  bool auth = false;
  bool auth2 = false;  // AUTH user password
  std::size_t first_key = 3;
  std::size_t num_keys = 1;
  long long db = 0;
  long long timeout_ms = 0;
};

bool parse_migrate(Context& ctx, ArgCursor& cur, MigrateArgs& a) {
  while (!cur.done()) {
    if (cur.match("copy")) {
      a.copy = true;
    } else if (cur.match("replace")) {
      a.replace = true;
    } else if (cur.match("auth")) {
      if (cur.done()) return cur.fail(errors::kSyntax);
      a.password = cur.next();
      a.auth = true;
      a.auth2 = false;
    } else if (cur.match("auth2")) {
      if (cur.remaining() < 2) return cur.fail(errors::kSyntax);
      a.user = cur.next();
      a.password = cur.next();
      a.auth = a.auth2 = true;
    } else if (cur.match("keys")) {
      if (!ctx.arg(3).empty()) return cur.fail(errors::kMigrateKeysNeedEmptyKey);
      a.first_key = cur.pos();
      a.num_keys = cur.remaining();
      break;
    } else {
      return cur.fail(errors::kSyntax);
    }
  }
  // Redis reads the timeout before the database.
  ArgCursor nums(ctx.argv, 5);
  if (!nums.next_int(a.timeout_ms)) return cur.fail(nums.error());
  ArgCursor dbc(ctx.argv, 4);
  if (!dbc.next_int(a.db)) return cur.fail(dbc.error());
  if (a.timeout_ms <= 0) a.timeout_ms = 1000;
  return true;
}

void append_bulk(std::string& out, std::string_view s) {
  out += '$';
  out += std::to_string(s.size());
  out += "\r\n";
  out.append(s);
  out += "\r\n";
}
void append_header(std::string& out, std::size_t n) {
  out += '*';
  out += std::to_string(n);
  out += "\r\n";
}

// What the callback needs to finish the command.
struct Pending {
  Server* server;
  uint64_t session_id;
  int db;
  std::pair<int, std::string> token;  // the key the client is parked on
  bool copy;
  bool auth;
  std::vector<std::string> keys;  // in the order their RESTOREs were sent
};

void finish(const Pending& p, OutboundResult r) {
  Session* s = p.server->session(p.session_id);
  // Gone, or no longer parked here (CLIENT UNBLOCK answered it): nothing to answer. The target
  // has the keys either way; the local ones stay.
  if (!s || !s->blocked || s->blocked->keys.size() != 1 || s->blocked->keys[0] != p.token) return;
  p.server->blocking().forget(*s);
  std::string reply;
  resp::ReplyWriter w(reply, s->proto);

  if (r.failure == OutboundResult::Failure::kConnect) {
    w.error(errors::kMigrateConnect);
  } else if (r.failure == OutboundResult::Failure::kWrite) {
    w.error(errors::migrate_io("writing"));
  } else {
    // The AUTH and SELECT replies come first; a failure to read them is a read error.
    std::size_t head = (p.auth ? 1 : 0) + 1;
    auto is_error = [](std::string_view l) { return !l.empty() && l[0] == '-'; };
    std::string_view auth_line =
        p.auth && !r.lines.empty() ? std::string_view(r.lines[0]) : std::string_view("+OK");
    std::string_view select_line =
        r.lines.size() >= head ? std::string_view(r.lines[head - 1]) : std::string_view("+OK");
    bool socket_error = r.lines.size() < head + p.keys.size();
    bool target_error = false;
    std::string first_error;
    std::vector<std::string_view> del = {"DEL"};
    engine::Database& db = p.server->keyspace().db(p.db);
    for (std::size_t j = 0; j < p.keys.size() && head + j < r.lines.size(); ++j) {
      std::string_view line = r.lines[head + j];
      if (is_error(auth_line) || is_error(select_line) || is_error(line)) {
        if (!target_error) {
          target_error = true;
          std::string_view e = is_error(auth_line)     ? auth_line
                               : is_error(select_line) ? select_line
                                                       : line;
          first_error = errors::migrate_target(e.substr(1));
        }
      } else if (!p.copy) {
        const std::string& key = p.keys[j];
        if (db.erase(key)) {
          p.server->signal_modified(p.db, key);
          p.server->notify(events::kDel, key, p.db);
          p.server->add_dirty(1);
          del.push_back(key);
        }
      }
    }
    if (del.size() > 1) {
      p.server->begin_unit();
      p.server->propagate(p.db, std::span<const std::string_view>(del));
      p.server->end_unit(s);
    }
    if (target_error) {
      w.error(first_error);
    } else if (socket_error) {
      w.error(errors::migrate_io("reading"));
    } else {
      w.ok();
    }
  }
  if (s->out) s->out->append(reply);
  if (s->resume) s->resume();
}

void migrate_command(Context& ctx) {
  MigrateArgs a;
  ArgCursor cur(ctx.argv, 6);
  if (!parse_migrate(ctx, cur, a)) {
    ctx.reply.error(cur.error());
    return;
  }
  // The keys that exist (a missing one is skipped; none at all is +NOKEY, not an error: it has
  // usually just expired).
  std::vector<std::string_view> keys;
  for (std::size_t j = 0; j < a.num_keys; ++j) {
    std::string_view k = ctx.arg(a.first_key + j);
    if (lookup_read(ctx, k)) keys.push_back(k);
  }
  if (keys.empty()) {
    ctx.reply.simple("NOKEY");
    return;
  }
  auto it = connectors().find(&ctx.server);
  const ValueCodec* codec = ctx.server.value_codec();
  if (it == connectors().end() || !codec) {
    ctx.reply.error(errors::kMigrateConnect);
    return;
  }
  if (!ctx.may_block()) {
    ctx.reply.error(errors::kMigrateInMulti);
    return;
  }

  OutboundRequest req;
  req.host = std::string(ctx.arg(1));
  // Redis reads the port with atoi: digits up to the first other character, 0 when none.
  std::string_view port = ctx.arg(2);
  long long pn = 0;
  for (char c : port) {
    if (c < '0' || c > '9' || pn > 65535) break;
    pn = pn * 10 + (c - '0');
  }
  req.port = static_cast<int>(pn > 65535 ? 0 : pn);
  req.timeout_ms = a.timeout_ms;
  if (a.auth) {
    append_header(req.bytes, a.auth2 ? 3 : 2);
    append_bulk(req.bytes, "AUTH");
    if (a.auth2) append_bulk(req.bytes, a.user);
    append_bulk(req.bytes, a.password);
  }
  append_header(req.bytes, 2);
  append_bulk(req.bytes, "SELECT");
  append_bulk(req.bytes, std::to_string(a.db));

  const config::Config& cfg = ctx.server.config();
  int version = static_cast<int>(cfg.ref<std::int64_t>("rdb-version"));
  bool compression = cfg.ref<bool>("rdbcompression");
  Pending p{&ctx.server, ctx.session.id, ctx.session.db, {}, a.copy, a.auth, {}};
  for (std::string_view k : keys) {
    const engine::Entry* e = ctx.db().peek(k);
    long long ttl = 0;
    if (e->expire_ms >= 0) ttl = std::max<long long>(1, e->expire_ms - ctx.now_ms);
    append_header(req.bytes, a.replace ? 5 : 4);
    append_bulk(req.bytes, "RESTORE");
    append_bulk(req.bytes, k);
    append_bulk(req.bytes, std::to_string(ttl));
    append_bulk(req.bytes, codec->dump(e->value, version, compression));
    if (a.replace) append_bulk(req.bytes, "REPLACE");
    p.keys.emplace_back(k);
  }
  req.replies = (a.auth ? 1 : 0) + 1 + p.keys.size();

  p.token = {-1, "migrate:" + std::to_string(++g_next_exchange)};
  ctx.block({p.token}, 0, {});
  ctx.propagate_nothing();  // what changes is propagated when the target answered
  it->second->exchange(std::move(req),
                       [p = std::move(p)](OutboundResult r) { finish(p, std::move(r)); });
}

}  // namespace

void set_migrate_connector(Server& server, Outbound* o) {
  if (o) {
    connectors()[&server] = o;
  } else {
    connectors().erase(&server);
  }
}

void register_migrate_command(CommandTable& t) {
  t.add(CommandSpec{.name = "migrate",
                    .arity = -6,
                    .flags = kWrite | kMovableKeys,
                    .acl_categories = "keyspace write slow dangerous",
                    .first_key = 3,
                    .last_key = 3,
                    .step = 1,
                    .handler = migrate_command,
                    .key_finder = migrate_keys,
                    .group = "generic"});
}

}  // namespace streamd::cmd
