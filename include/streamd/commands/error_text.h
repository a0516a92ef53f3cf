// Every client-facing error text lives here (and in error_text.cc), verbatim as Redis sends it.
// Engine code returns engine::Err; handlers turn it into text with error_text(err).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "streamd/engine/status.h"

namespace streamd::cmd::errors {

inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kNanOrInf = "ERR increment would produce NaN or Infinity";
inline constexpr std::string_view kStringTooLong = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kSameObject = "ERR source and destination objects are the same";
inline constexpr std::string_view kDbOutOfRange = "ERR DB index is out of range";
inline constexpr std::string_view kInvalidDbIndex = "ERR invalid DB index";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kAuthNoPassword =
    "ERR AUTH <password> called without any password configured for the default user. Are you "
    "sure your configuration is correct?";
inline constexpr std::string_view kNoProto = "NOPROTO unsupported protocol version";
inline constexpr std::string_view kMultiNested = "ERR MULTI calls can not be nested";
inline constexpr std::string_view kExecWithoutMulti = "ERR EXEC without MULTI";
inline constexpr std::string_view kDiscardWithoutMulti = "ERR DISCARD without MULTI";
inline constexpr std::string_view kWatchInMulti = "ERR WATCH inside MULTI is not allowed";
inline constexpr std::string_view kExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";
inline constexpr std::string_view kMaxClients = "ERR max number of clients reached";
inline constexpr std::string_view kUnblocked = "UNBLOCKED client unblocked via CLIENT UNBLOCK";
inline constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";
inline constexpr std::string_view kTimeoutNotFloat = "ERR timeout is not a float or out of range";
inline constexpr std::string_view kTimeoutNotInteger =
    "ERR timeout is not an integer or out of range";

// "ERR unknown command 'foo', with args beginning with: 'a' 'b' "
std::string unknown_command(std::string_view name, std::span<const std::string_view> args);
// "ERR wrong number of arguments for 'xadd' command" ("'xgroup|create'" for subcommands)
std::string wrong_arity(std::string_view full_name);
// "ERR unknown subcommand 'foo'. Try CLIENT HELP."
std::string unknown_subcommand(std::string_view sub, std::string_view container);
// "ERR unknown subcommand or wrong number of arguments for 'foo'. Try XGROUP HELP." (XGROUP,
// XINFO and other containers whose subcommands Redis dispatches by hand)
std::string unknown_subcommand_or_arity(std::string_view sub, std::string_view container);
// "ERR Command not allowed inside a transaction" style texts for MULTI.
std::string not_allowed_in_multi(std::string_view name);

// The text for an engine error (for errors whose wording does not depend on the command).
std::string_view text(engine::Err err);

// ---- keyspace, strings, transactions -------------------------------------------------------
inline constexpr std::string_view kDecrementOverflow = "ERR decrement would overflow";
inline constexpr std::string_view kInvalidCursor = "ERR invalid cursor";
inline constexpr std::string_view kInvalidFirstDb = "ERR invalid first DB index";
inline constexpr std::string_view kInvalidSecondDb = "ERR invalid second DB index";
inline constexpr std::string_view kExpireNxIncompatible =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
inline constexpr std::string_view kExpireGtLtIncompatible =
    "ERR GT and LT options at the same time are not compatible";
inline constexpr std::string_view kLfuNotSelected =
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that "
    "when switching between policies at runtime LRU and LFU data will take some time to adjust.";
// "ERR invalid expire time in 'set' command"
std::string invalid_expire_time(std::string_view full_name);
// "ERR Unsupported option BOGUS" (EXPIRE family)
std::string unsupported_option(std::string_view option);

}  // namespace streamd::cmd::errors
