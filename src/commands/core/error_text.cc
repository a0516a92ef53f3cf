#include "streamd/commands/core/error_text.h"

#include <fmt/format.h>

#include "streamd/commands/acl/acl_user.h"

namespace streamd::cmd::errors {

std::string migrate_io(std::string_view what) {
  return "IOERR error or timeout " + std::string(what) + " to target instance";
}

std::string migrate_target(std::string_view error) {
  return "ERR Target instance replied with error: " + std::string(error);
}

std::string unknown_command(std::string_view name, std::span<const std::string_view> args) {
  // Redis formats with C strings: an argument ends at its first NUL byte. The echoed arguments
  // stop once they reach 128 bytes, and each is cut to what is left of those 128.
  auto cstr = [](std::string_view s) { return s.substr(0, s.find('\0')); };
  std::string echoed;
  for (std::size_t i = 0; i < args.size() && echoed.size() < 128; ++i) {
    echoed += fmt::format("'{}' ", cstr(args[i]).substr(0, 128 - echoed.size()));
  }
  return fmt::format("ERR unknown command '{}', with args beginning with: {}",
                     cstr(name).substr(0, 128), echoed);
}

std::string wrong_arity(std::string_view full_name) {
  return fmt::format("ERR wrong number of arguments for '{}' command", full_name);
}

std::string unknown_subcommand(std::string_view sub, std::string_view container) {
  return fmt::format("ERR unknown subcommand '{}'. Try {} HELP.", sub.substr(0, 128), container);
}

std::string unknown_subcommand_or_arity(std::string_view sub, std::string_view container) {
  return fmt::format("ERR unknown subcommand or wrong number of arguments for '{}'. Try {} HELP.",
                     sub.substr(0, 128), container);
}

std::string exec_abort(std::string_view error) {
  if (error.substr(0, 4) == "ERR ") error.remove_prefix(4);
  return fmt::format("EXECABORT Transaction discarded because of: {}", error);
}

std::string pubsub_context(std::string_view full_name) {
  return fmt::format(
      "ERR Can't execute '{}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
      "allowed in this context",
      full_name);
}

std::string nogroup_xreadgroup(std::string_view key, std::string_view group) {
  return fmt::format(
      "NOGROUP No such key '{}' or consumer group '{}' in XREADGROUP with GROUP option", key,
      group);
}

std::string nogroup_key_or_group(std::string_view key, std::string_view group) {
  return fmt::format("NOGROUP No such key '{}' or consumer group '{}'", key, group);
}

std::string nogroup_for_key(std::string_view key, std::string_view group) {
  return fmt::format("NOGROUP No such consumer group '{}' for key name '{}'", group, key);
}

std::string xclaim_unrecognized_option(std::string_view option) {
  return fmt::format("ERR Unrecognized XCLAIM option '{}'", option);
}

std::string xnack_unrecognized_option(std::string_view option) {
  return fmt::format("ERR Unrecognized XNACK option '{}'", option);
}

std::string hello_syntax(std::string_view option) {
  return fmt::format("ERR Syntax error in HELLO option '{}'", option);
}

std::string unrecognized_option(std::string_view option) {
  return fmt::format("ERR Unrecognized option '{}'", option);
}

std::string invalid_client_attr(std::string_view attr) {
  return fmt::format("ERR {} cannot contain spaces, newlines or special characters.", attr);
}

std::string unknown_client_type(std::string_view type) {
  return fmt::format("ERR Unknown client type '{}'", type);
}

std::string no_such_user(std::string_view user) {
  return fmt::format("ERR No such user '{}'", user);
}

std::string noperm(acl::Denied d, std::string_view user, std::string_view full_name) {
  switch (d) {
    case acl::Denied::kKey:
      return "NOPERM No permissions to access a key";
    case acl::Denied::kChannel:
      return "NOPERM No permissions to access a channel";
    default:
      return fmt::format("NOPERM User {} has no permissions to run the '{}' command", user,
                         full_name);
  }
}

std::string acl_changed_in_exec(acl::Denied d) {
  std::string_view reason = "no permission";
  switch (d) {
    case acl::Denied::kCommand:
      reason = "no permission to execute the command or subcommand";
      break;
    case acl::Denied::kKey:
      reason = "no permission to touch the specified keys";
      break;
    case acl::Denied::kChannel:
      reason = "no permission to access one of the channels used as arguments";
      break;
    default:
      break;
  }
  return fmt::format(
      "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC "
      "call. This command is no longer allowed for the following reason: {}",
      reason);
}

std::string acl_dryrun_denied(acl::Denied d, std::string_view user, std::string_view full_name,
                              std::string_view arg) {
  switch (d) {
    case acl::Denied::kKey:
      return fmt::format("User {} has no permissions to access the '{}' key", user, arg);
    case acl::Denied::kChannel:
      return fmt::format("User {} has no permissions to access the '{}' channel", user, arg);
    default:
      return fmt::format("User {} has no permissions to run the '{}' command", user, full_name);
  }
}

std::string acl_unknown_category(std::string_view name) {
  return fmt::format("ERR Unknown category '{}'", name.substr(0, 128));
}

std::string acl_user_not_found(std::string_view user) {
  return fmt::format("ERR User '{}' not found", user);
}

std::string acl_command_not_found(std::string_view name) {
  return fmt::format("ERR Command '{}' not found", name);
}

std::string_view text(engine::Err err) {
  using engine::Err;
  switch (err) {
    case Err::kOk:
      return "";
    case Err::kWrongType:
      return kWrongType;
    case Err::kNoSuchKey:
      return kNoSuchKey;
    case Err::kSyntax:
      return kSyntax;
    case Err::kNotInteger:
      return kNotInteger;
    case Err::kNotFloat:
      return kNotFloat;
    case Err::kOverflow:
      return kOverflow;
    case Err::kNanOrInfinity:
      return kNanOrInf;
    case Err::kStringTooLong:
      return kStringTooLong;
    case Err::kSameObject:
      return kSameObject;
    case Err::kInvalidExpireTime:
      return "ERR invalid expire time";
    case Err::kOutOfRangeDb:
      return kDbOutOfRange;
    case Err::kInvalidStreamId:
      return "ERR Invalid stream ID specified as stream command argument";
    case Err::kInvalidStartId:
      return "ERR invalid start ID for the interval";
    case Err::kInvalidEndId:
      return "ERR invalid end ID for the interval";
    case Err::kIdTooSmall:
      return "ERR The ID specified in XADD is equal or smaller than the target stream top item";
    case Err::kIdZero:
      return "ERR The ID specified in XADD must be greater than 0-0";
    case Err::kIdExhausted:
      return "ERR The stream has exhausted the last possible ID, unable to add more items";
    case Err::kElementsTooLarge:
      return "ERR Elements are too large to be stored";
    case Err::kSetIdSmallerThanTop:
      return "ERR The ID specified in XSETID is smaller than the target stream top item";
    case Err::kSetIdSmallerThanMaxDeleted:
      return "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id";
    case Err::kSetIdSmallerThanProvidedMaxDeleted:
      return "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id";
    case Err::kEntriesAddedSmallerThanLength:
      return "ERR The entries_added specified in XSETID is smaller than the target stream length";
    case Err::kEntriesAddedNotPositive:
      return "ERR entries_added must be positive";
    case Err::kNoGroup:
      return "NOGROUP No such consumer group";
    case Err::kBusyGroup:
      return "BUSYGROUP Consumer Group name already exists";
    case Err::kBadData:
      return "ERR Bad data format";
  }
  return "ERR internal error";
}

std::string invalid_expire_time(std::string_view full_name) {
  return fmt::format("ERR invalid expire time in '{}' command", full_name);
}

std::string unsupported_option(std::string_view option) {
  return fmt::format("ERR Unsupported option {}", option);
}

std::string latency_no_samples(std::string_view event) {
  return fmt::format("ERR No samples available for event '{}'", event);
}

std::string aof_write_error(std::string_view reason) {
  return fmt::format("MISCONF Errors writing to the AOF file: {}", reason);
}

std::string replconf_unknown_option(std::string_view option) {
  return fmt::format("ERR Unrecognized REPLCONF option: {}", option);
}

std::string no_redis70_equivalent(std::string_view what) {
  return fmt::format("ERR {} has no Redis 7.0 equivalent (rdb-version is 10)", what);
}

std::string replconf_ip_too_long(std::size_t bytes) {
  return fmt::format("ERR REPLCONF ip-address provided by replica instance is too long: {} bytes",
                     bytes);
}

std::string tracking_prefix_overlap(std::string_view prefix, std::string_view other,
                                    bool existing) {
  return fmt::format(
      "ERR Prefix '{}' overlaps with {} prefix '{}'. Prefixes for a single client must not "
      "overlap.",
      prefix, existing ? "an existing" : "another provided", other);
}

}  // namespace streamd::cmd::errors
