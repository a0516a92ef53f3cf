// An ACL user and its selectors, as Redis's acl.c models them (read for behaviour, written anew):
// the rules ACL SETUSER and `user` config lines take, the description ACL LIST / GETUSER show, and
// the permission check dispatch runs before every command of a user that is not unrestricted.
//
// Invariants: a User has at least one selector, the first being its root (rules outside
// parentheses); a selector's `allowed` bitmap has a bit per CommandSpec::id, and `rules` is the
// ordered list of command rules ("+@read -xadd +config|get") that rebuilds that bitmap from
// "+@all" (when `future` is set) or "-@all": describe() prints it, never the bitmap.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/command_table.h"

namespace streamd::cmd::acl {

// Why a command is refused, ordered as Redis orders ACL_DENIED_* (the larger wins when no
// selector allows a command: a channel over a key over the command).
enum class Denied : int { kNone = 0, kCommand = 1, kKey = 2, kChannel = 4 };

// Key pattern permissions (%R~, %W~; ~ is both).
inline constexpr unsigned kRead = 1, kWrite = 2, kReadWrite = kRead | kWrite;

struct KeyPattern {
  std::string pattern;
  unsigned perms = kReadWrite;
};

struct Selector {
  bool root = false;
  bool all_keys = false;
  bool all_channels = false;
  bool all_commands = false;      // every bit set and none cleared since "+@all"
  bool future = false;            // "+@all" was the base ("+@all" in the description)
  std::vector<uint64_t> allowed;  // bit per CommandSpec::id
  // +cmd|arg for a command without subcommands (Redis's deprecated first-arg rules).
  std::map<int, std::vector<std::string>> first_args;
  std::vector<KeyPattern> keys;
  std::vector<std::string> channels;
  std::string rules;

  bool allows(int id) const {
    auto i = static_cast<std::size_t>(id);
    return i / 64 < allowed.size() && (allowed[i / 64] >> (i % 64) & 1) != 0;
  }
};

// What a rule error means (Redis's ACLSetUserStringError texts, in error_text).
enum class RuleError {
  kNone,
  kSyntax,           // EINVAL
  kUnknownCommand,   // ENOENT
  kKeyAfterAll,      // EEXIST
  kChannelAfterAll,  // EISDIR
  kNoSuchPassword,   // ENODEV
  kBadHash,          // EBADMSG
  kFirstArgOfSub,    // ECHILD
};
std::string_view rule_error_text(RuleError e);

struct User {
  std::string name;
  bool enabled = false;  // on / off
  bool nopass = false;
  bool skip_sanitize = false;          // skip-sanitize-payload / sanitize-payload
  std::vector<std::string> passwords;  // SHA-256, lowercase hex, in the order added
  std::vector<Selector> selectors;     // [0] is the root

  // A new user as ACL SETUSER creates it: off, no passwords, no keys, no commands; channels as
  // acl-pubsub-default says.
  User(std::string name, bool all_channels_default);

  // Applies one rule (an argument of ACL SETUSER, a word of a `user` line; "(...)" adds a
  // selector). Rules are applied to a copy first by the callers: a failed rule leaves `*this`
  // partly changed.
  RuleError apply(std::string_view rule, bool all_channels_default);
  // "on nopass sanitize-payload ~* &* +@all", ACL LIST's text after the name.
  std::string describe() const;

  // Unrestricted: the root selector allows every command, key and channel (dispatch skips the
  // check; the default user is so unless changed).
  bool unrestricted() const {
    const Selector& r = selectors.front();
    return r.all_commands && r.all_keys && r.all_channels;
  }
  bool check_password(std::string_view clear) const;
};

// Whether a user name or pattern has a space or NUL (Redis refuses those).
bool has_spaces(std::string_view s);

// The SHA-256 of a password, lowercase hex.
std::string hash_password(std::string_view clear);

// A refusal and the argument index it is about (0 for the command itself).
struct Check {
  Denied denied = Denied::kNone;
  int arg = 0;
};
// Whether `u` may run `argv` (a line of `spec`). Keys are checked with their key specs' access
// flags (read for access, write for insert/update/delete), channels of PUBLISH/SUBSCRIBE forms.
Check check_command(const User& u, const CommandSpec& spec, std::span<const std::string_view> argv);
// Whether `u` may be subscribed to a channel (pattern: compared literally, as Redis).
bool may_use_channel(const User& u, std::string_view channel, bool is_pattern);

// Selector rules alone (keys, channels, commands), "~* &* +@all".
std::string describe_selector(const Selector& s);
// GETUSER's "commands" text of a selector.
std::string describe_commands(const Selector& s);
// GETUSER's "keys" / "channels" texts.
std::string describe_keys(const Selector& s);
std::string describe_channels(const Selector& s);

}  // namespace streamd::cmd::acl
