// The ACL users of the server, the ACL log and the ACL file (Redis's acl.c model). One instance,
// owned by Server. Sessions hold a shared_ptr to their user: ACL SETUSER changes the user in
// place (its connections see the change at their next command), ACL DELUSER and ACL LOAD drop it
// from here and the caller closes its connections.
//
// Invariant: "default" always exists and is the same object for the life of the server.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/acl/acl_user.h"

namespace streamd::cmd::acl {

// Why an ACL log entry was written (ACL LOG's "reason").
enum class LogReason { kCommand, kKey, kChannel, kAuth };
// Where (ACL LOG's "context").
enum class LogContext { kToplevel, kMulti };

struct LogEntry {
  uint64_t count = 1;
  LogReason reason;
  LogContext context;
  std::string object;
  std::string username;
  int64_t ctime_ms = 0;  // last time it happened
  std::string client_info;
  uint64_t entry_id = 0;
  int64_t created_ms = 0;
};

class Acl {
 public:
  Acl();

  const std::shared_ptr<User>& default_user() const { return default_; }
  std::shared_ptr<User> find(std::string_view name) const;
  // By name, in byte order (ACL USERS, ACL LIST, the ACL file).
  const std::map<std::string, std::shared_ptr<User>, std::less<>>& users() const { return users_; }

  // acl-pubsub-default: a new user (or selector) may use every channel.
  void set_all_channels_default(bool all) { all_channels_default_ = all; }
  bool all_channels_default() const { return all_channels_default_; }

  // ACL SETUSER: the rules apply to a copy of the user (or a new one) and replace it only if all
  // are valid. Returns Redis's error text otherwise.
  std::optional<std::string> set_user(std::string_view name,
                                      std::span<const std::string_view> rules);
  // ACL DELUSER of one name (never "default"): the removed user, or null.
  std::shared_ptr<User> remove(std::string_view name);
  // requirepass: the default user's only password, or nopass when empty.
  void set_requirepass(std::string_view pass);

  // AUTH / HELLO AUTH: the user if the pair is valid and the user enabled.
  std::shared_ptr<User> authenticate(std::string_view name, std::string_view pass) const;

  // The ACL file (`filename` names it in errors): every line `user <name> <rules...>`.
  // Replaces every user but keeps the default user's object (copied into), as Redis's ACL LOAD;
  // on any error nothing changes and Redis's error text is returned. The caller moves each
  // connection to the new user of its user's name, or closes it when there is none.
  std::optional<std::string> load_text(std::string_view text, std::string_view filename);
  // The ACL file's text for the current users (ACL SAVE).
  std::string save_text() const;
  // ACL LOAD / startup with aclfile: load_text of the file, or Redis's error for a file that
  // cannot be read.
  std::optional<std::string> load_file(const std::string& path);
  // ACL SAVE: writes save_text() to a temporary file renamed over `path`. False (and logged) on
  // an I/O error.
  bool save_file(const std::string& path) const;
  // A `user` config line (the words after "user"): applied at once. Redis's error otherwise.
  std::optional<std::string> load_config_user(const std::vector<std::string>& words);

  // ---- ACL LOG ---------------------------------------------------------------------------------
  void set_log_max_len(std::size_t n);
  // Adds an entry, or bumps a similar recent one (same reason, context, object and user within
  // 60 s, among the newest 10), as Redis groups them.
  void log(LogReason reason, LogContext context, std::string object, std::string username,
           std::string client_info, int64_t now_ms);
  const std::deque<LogEntry>& log_entries() const { return log_; }
  void reset_log() { log_.clear(); }

 private:
  // Applies rules to `u`; the first error as Redis words it.
  std::optional<std::string> apply_all(User& u, std::span<const std::string_view> rules) const;

  std::map<std::string, std::shared_ptr<User>, std::less<>> users_;
  std::shared_ptr<User> default_;
  bool all_channels_default_ = false;
  std::deque<LogEntry> log_;  // newest first
  std::size_t log_max_len_ = 128;
  uint64_t next_entry_id_ = 0;
};

// Merges rules split by spaces inside parentheses ("(~a" "+get)" → "(~a +get)"), as ACL SETUSER
// and user lines take selectors. nullopt, with the index of the unclosed one, when one is open.
std::optional<std::vector<std::string>> merge_selector_args(std::span<const std::string_view> args,
                                                            std::size_t* open_at);

}  // namespace streamd::cmd::acl
