#include "streamd/commands/core/propagation_rewrite.h"

#include <string>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/server.h"

namespace streamd::cmd {

namespace {

bool has_expiry_option(std::span<const std::string_view> argv, std::size_t from) {
  for (std::size_t i = from; i < argv.size(); ++i) {
    std::string_view a = argv[i];
    if (iequals(a, "ex") || iequals(a, "px") || iequals(a, "exat") || iequals(a, "pxat")) {
      return true;
    }
  }
  return false;
}

bool has_option(std::span<const std::string_view> argv, std::size_t from, std::string_view opt) {
  for (std::size_t i = from; i < argv.size(); ++i) {
    if (iequals(argv[i], opt)) return true;
  }
  return false;
}

void propagate_del(Server& server, int db, std::string_view key) {
  std::string_view argv[] = {"DEL", key};
  server.propagate(db, std::span<const std::string_view>(argv));
}

// The key's value with its absolute expiry, or DEL if the command left no key.
void propagate_set_pxat(Server& server, int db, std::string_view key) {
  const engine::Entry* e = server.keyspace().db(db).peek(key);
  if (!e || !e->value.is_string()) return propagate_del(server, db, key);
  if (e->expire_ms < 0) {
    std::string_view argv[] = {"SET", key, e->value.str()};
    server.propagate(db, std::span<const std::string_view>(argv));
    return;
  }
  std::string at = std::to_string(e->expire_ms);
  std::string_view argv[] = {"SET", key, e->value.str(), "PXAT", at};
  server.propagate(db, std::span<const std::string_view>(argv));
}

// The key's absolute expiry, PERSIST if it has none, or DEL if the command left no key.
void propagate_pexpireat(Server& server, int db, std::string_view key) {
  const engine::Entry* e = server.keyspace().db(db).peek(key);
  if (!e) return propagate_del(server, db, key);
  if (e->expire_ms < 0) {
    std::string_view argv[] = {"PERSIST", key};
    server.propagate(db, std::span<const std::string_view>(argv));
    return;
  }
  std::string at = std::to_string(e->expire_ms);
  std::string_view argv[] = {"PEXPIREAT", key, at};
  server.propagate(db, std::span<const std::string_view>(argv));
}

}  // namespace

bool propagate_rewritten(Server& server, int db, const CommandSpec& spec,
                         std::span<const std::string_view> argv) {
  std::string_view name = spec.full_name;
  if (argv.size() < 2) return false;
  std::string_view key = argv[1];
  if (name == "set") {
    if (!has_expiry_option(argv, 3)) return false;
    propagate_set_pxat(server, db, key);
    return true;
  }
  if (name == "setex" || name == "psetex") {
    propagate_set_pxat(server, db, key);
    return true;
  }
  if (name == "expire" || name == "pexpire" || name == "expireat" || name == "pexpireat") {
    propagate_pexpireat(server, db, key);
    return true;
  }
  if (name == "getex") {
    if (has_expiry_option(argv, 2) || has_option(argv, 2, "persist")) {
      propagate_pexpireat(server, db, key);
      return true;
    }
    return false;
  }
  if (name == "incrbyfloat") {
    const engine::Entry* e = server.keyspace().db(db).peek(key);
    if (!e || !e->value.is_string()) return false;
    std::string_view out[] = {"SET", key, e->value.str(), "KEEPTTL"};
    server.propagate(db, std::span<const std::string_view>(out));
    return true;
  }
  if (name == "getdel") {
    propagate_del(server, db, key);
    return true;
  }
  return false;
}

}  // namespace streamd::cmd
