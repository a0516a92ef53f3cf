// Every client-facing error text lives here (and in error_text.cc), verbatim as Redis sends it.
// Engine code returns engine::Err; handlers turn it into text with error_text(err).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "streamd/engine/status.h"

namespace streamd::cmd::acl {
enum class Denied : int;
}

namespace streamd::cmd::errors {

inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
// Redis's getPositiveLongFromObjectOrReply without a message of its own, for a non-number too
// (DEBUG POPULATE).
inline constexpr std::string_view kNotPositive = "ERR value is out of range, must be positive";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kNanOrInf = "ERR increment would produce NaN or Infinity";
inline constexpr std::string_view kStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
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
// A command flagged no-multi (SAVE, SHUTDOWN, SYNC, PSYNC...) sent inside MULTI.
inline constexpr std::string_view kNotAllowedInMulti =
    "ERR Command not allowed inside a transaction";
inline constexpr std::string_view kExecWithoutMulti = "ERR EXEC without MULTI";
inline constexpr std::string_view kDiscardWithoutMulti = "ERR DISCARD without MULTI";
inline constexpr std::string_view kWatchInMulti = "ERR WATCH inside MULTI is not allowed";
inline constexpr std::string_view kExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";
inline constexpr std::string_view kMaxClients = "ERR max number of clients reached";
// protected-mode: what a client from another host reads before the connection closes (newest
// Redis's wording; 7.0 had "4) Setup a an authentication password").
inline constexpr std::string_view kProtectedMode =
    "DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    "host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Set up an authentication password for the default user. NOTE: You only need to "
    "do one of the above things in order for the server to start accepting connections from the "
    "outside.";
inline constexpr std::string_view kUnblocked = "UNBLOCKED client unblocked via CLIENT UNBLOCK";
// A master became a replica (REPLICAOF host port) while clients were blocked.
inline constexpr std::string_view kUnblockedStateChanged =
    "UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
    "replica?)";
inline constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";
inline constexpr std::string_view kTimeoutOutOfRange = "ERR timeout is out of range";
inline constexpr std::string_view kClientPauseMode = "ERR CLIENT PAUSE mode must be WRITE or ALL";
inline constexpr std::string_view kTimeoutNotFloat = "ERR timeout is not a float or out of range";
inline constexpr std::string_view kTimeoutNotInteger =
    "ERR timeout is not an integer or out of range";

// ---- connection, server, introspection ---------------------------------------------------------
inline constexpr std::string_view kProtocolVersionNotInteger =
    "ERR Protocol version is not an integer or out of range";
inline constexpr std::string_view kHelloNoAuth =
    "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH "
    "<user> <pass> option can be used to authenticate the client and select the RESP protocol "
    "version at the same time";
inline constexpr std::string_view kInvalidClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";
inline constexpr std::string_view kInvalidClientId = "ERR Invalid client ID";
inline constexpr std::string_view kNoSuchClient = "ERR No such client";
inline constexpr std::string_view kClientIdNotPositive = "ERR client-id should be greater than 0";
inline constexpr std::string_view kMaxAgeNotInteger =
    "ERR maxage is not an integer or out of range";
inline constexpr std::string_view kMaxAgeNotPositive = "ERR maxage should be greater than 0";
inline constexpr std::string_view kUnblockReason =
    "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR";
inline constexpr std::string_view kInvalidCommandSpecified = "ERR Invalid command specified";
inline constexpr std::string_view kInvalidArgumentCount =
    "ERR Invalid number of arguments specified for command";
inline constexpr std::string_view kNoKeyArguments = "ERR The command has no key arguments";
inline constexpr std::string_view kModuleNotAllowed =
    "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", "
    "you can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view kModuleLoadFailed =
    "ERR Error loading the extension. Please check the server logs.";
inline constexpr std::string_view kModuleUnloadNoSuchModule =
    "ERR Error unloading module: no such module with that name";
inline constexpr std::string_view kDebugNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
// DEBUG PROTOCOL push on a RESP2 connection.
inline constexpr std::string_view kResp2NotSupported = "ERR RESP2 is not supported by this command";
inline constexpr std::string_view kDebugProtocolType =
    "ERR Wrong protocol type name. Please use one of the following: "
    "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false";
inline constexpr std::string_view kFunctionFlushMode =
    "ERR FUNCTION FLUSH only supports SYNC|ASYNC option";
// LATENCY GRAPH of an event with no series.
std::string latency_no_samples(std::string_view event);
inline constexpr std::string_view kSlowlogCount = "ERR count should be greater than or equal to -1";
inline constexpr std::string_view kMonitorDenyBlocking =
    "ERR MONITOR isn't allowed for DENY BLOCKING client";
inline constexpr std::string_view kNoShutdownInProgress = "ERR No shutdown in progress.";
inline constexpr std::string_view kShutdownFailed = "ERR Errors trying to SHUTDOWN. Check logs.";

// ---- DUMP / RESTORE / MIGRATE ----
inline constexpr std::string_view kBusyKey = "BUSYKEY Target key name already exists.";
inline constexpr std::string_view kDumpPayloadBad =
    "ERR DUMP payload version or checksum are wrong";
inline constexpr std::string_view kBadDataFormat = "ERR Bad data format";
inline constexpr std::string_view kInvalidTtl = "ERR Invalid TTL value, must be >= 0";
inline constexpr std::string_view kInvalidIdletime = "ERR Invalid IDLETIME value, must be >= 0";
inline constexpr std::string_view kInvalidFreq = "ERR Invalid FREQ value, must be >= 0 and <= 255";
inline constexpr std::string_view kMigrateKeysNeedEmptyKey =
    "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string";
inline constexpr std::string_view kMigrateConnect =
    "IOERR error or timeout connecting to the client";
// "IOERR error or timeout writing to target instance" (`what`: writing or reading)
std::string migrate_io(std::string_view what);
// "ERR Target instance replied with error: BUSYKEY ..." (the target's text without its '-')
std::string migrate_target(std::string_view error);
// streamd's own: MIGRATE parks the client while the target answers, which EXEC cannot do.
inline constexpr std::string_view kMigrateInMulti =
    "ERR MIGRATE inside MULTI is not supported by streamd";
// streamd's own: a server started without persist/'s codec (only tests build one like that).
inline constexpr std::string_view kNoValueCodec = "ERR DUMP payloads are not available";

// ---- pub/sub ----
inline constexpr std::string_view kSsubscribeDenyBlocking =
    "ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client";
// "ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are
// allowed in this context" (a RESP2 client in pub/sub mode; the same text in 7.0.15 and 8.x)
std::string pubsub_context(std::string_view full_name);

// ---- streams: XADD/XTRIM options, XREAD/XREADGROUP options --------------------------------
inline constexpr std::string_view kTrimBothStrategies =
    "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";
inline constexpr std::string_view kMaxlenNegative = "ERR The MAXLEN argument must be >= 0.";
inline constexpr std::string_view kLimitNegative = "ERR The LIMIT argument must be >= 0.";
inline constexpr std::string_view kLimitWithoutStrategy =
    "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy";
inline constexpr std::string_view kLimitWithoutApprox =
    "ERR syntax error, LIMIT cannot be used without the special ~ option";
inline constexpr std::string_view kXtrimNoStrategy =
    "ERR syntax error, XTRIM must be called with a trimming strategy";
inline constexpr std::string_view kXreadGreaterThanId =
    "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
    "<consumer> option.";
// XREAD + on a stream whose last ID is 0-0 (an empty stream made by XGROUP CREATE MKSTREAM):
// Redis 7.4+ cannot step back from 0-0 and says so.
inline constexpr std::string_view kXreadPlusOnZeroId = "ERR the stream last element ID is 0-0";
inline constexpr std::string_view kXreadUnbalanced =
    "ERR Unbalanced 'xread' list of streams: for each stream key an ID, '+', or '$' must be "
    "specified.";
inline constexpr std::string_view kXreadgroupUnbalanced =
    "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be "
    "specified.";
inline constexpr std::string_view kGroupOnlyInXreadgroup =
    "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.";
inline constexpr std::string_view kClaimOnlyInXreadgroup =
    "ERR The CLAIM option is only supported by XREADGROUP. You called XREAD instead.";
inline constexpr std::string_view kNoackOnlyInXreadgroup =
    "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.";
inline constexpr std::string_view kMinIdleNotInteger = "ERR min-idle-time is not an integer";
inline constexpr std::string_view kMinIdleNegative = "ERR min-idle-time must be a positive integer";
inline constexpr std::string_view kXreadgroupMissingGroup =
    "ERR Missing GROUP option for XREADGROUP";

// ---- streams: consumer groups (XGROUP, XREADGROUP, XCLAIM, XAUTOCLAIM, XNACK) ---------------
inline constexpr std::string_view kXgroupKeyMissing =
    "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use "
    "the MKSTREAM option to create an empty stream automatically.";
inline constexpr std::string_view kEntriesReadInvalid =
    "ERR value for ENTRIESREAD must be positive or -1";
inline constexpr std::string_view kDollarInXreadgroup =
    "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of "
    "this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would "
    "just return an empty result set.";
inline constexpr std::string_view kPlusInXreadgroup =
    "ERR The + ID is meaningless in the context of XREADGROUP: you want to read the history of "
    "this consumer by specifying a proper ID, or use the > ID to get new messages. The + ID would "
    "just return an empty result set.";
inline constexpr std::string_view kXclaimMinIdle = "ERR Invalid min-idle-time argument for XCLAIM";
inline constexpr std::string_view kXclaimIdle = "ERR Invalid IDLE option argument for XCLAIM";
inline constexpr std::string_view kXclaimTime = "ERR Invalid TIME option argument for XCLAIM";
inline constexpr std::string_view kXclaimRetryCount =
    "ERR Invalid RETRYCOUNT option argument for XCLAIM";
inline constexpr std::string_view kXautoclaimMinIdle =
    "ERR Invalid min-idle-time argument for XAUTOCLAIM";
inline constexpr std::string_view kXautoclaimCount = "ERR COUNT must be > 0";
inline constexpr std::string_view kXnackMode = "ERR mode must be SILENT, FAIL, or FATAL";
inline constexpr std::string_view kXnackNumIds = "ERR numids must be a positive integer";
inline constexpr std::string_view kXnackNumIdsMismatch = "ERR number of IDs doesn't match numids";
inline constexpr std::string_view kXnackRetryCount = "ERR Invalid RETRYCOUNT value, must be >= 0";
inline constexpr std::string_view kXnackNoIds = "ERR syntax error, expected IDS keyword";
// "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option"
std::string nogroup_xreadgroup(std::string_view key, std::string_view group);
// "NOGROUP No such key 's' or consumer group 'g'" (XPENDING, XCLAIM, XAUTOCLAIM, XNACK)
std::string nogroup_key_or_group(std::string_view key, std::string_view group);
// "NOGROUP No such consumer group 'g' for key name 's'" (XGROUP, XINFO CONSUMERS)
std::string nogroup_for_key(std::string_view key, std::string_view group);
// "ERR Unrecognized XCLAIM option 'foo'"
std::string xclaim_unrecognized_option(std::string_view option);
// "ERR Unrecognized XNACK option 'foo'"
std::string xnack_unrecognized_option(std::string_view option);

// Redis 8.2-8.10 stream options (XDELEX/XACKDEL, IDMP/XCFGSET, MAXCOUNT/MAXSIZE). Texts not
// confirmed against a Redis binary are marked (unverified) in docs/commands.md.
inline constexpr std::string_view kNumIdsNotPositive =
    "ERR Number of IDs must be a positive integer";
inline constexpr std::string_view kNumIdsMismatch =
    "ERR The `numids` parameter must match the number of arguments";
inline constexpr std::string_view kIdmpWithExplicitId =
    "ERR IDMP and IDMPAUTO can be used only with auto-generated IDs";
inline constexpr std::string_view kIdmpEmpty = "ERR IDMP pid and iid must not be empty";
inline constexpr std::string_view kIdmpDuration =
    "ERR IDMP-DURATION must be between 1 and 86400 seconds";
inline constexpr std::string_view kIdmpMaxsize = "ERR IDMP-MAXSIZE must be between 1 and 10000";
inline constexpr std::string_view kXcfgsetNoOption =
    "ERR XCFGSET requires at least one of IDMP-DURATION or IDMP-MAXSIZE";
inline constexpr std::string_view kMaxCountNotPositive = "ERR MAXCOUNT must be a positive integer";
inline constexpr std::string_view kMaxSizeNotPositive = "ERR MAXSIZE must be a positive integer";
inline constexpr std::string_view kMaxCountBelowCount =
    "ERR MAXCOUNT must be greater than or equal to COUNT";
// STREAMD.DEADLETTER (a streamd extension; worded as Redis words its range and option errors).
inline constexpr std::string_view kDeadLetterMaxDeliveries =
    "ERR MAXDELIVERIES must be a positive integer";
inline constexpr std::string_view kDeadLetterSameKey =
    "ERR the dead-letter stream must be a different key than the stream";
inline constexpr std::string_view kDeadLetterMissingOption =
    "ERR STREAMD.DEADLETTER SET requires both MAXDELIVERIES and STREAM";
// "ERR Syntax error in HELLO option 'BOGUS'"
std::string hello_syntax(std::string_view option);
// "ERR Unrecognized option 'foo'" (CLIENT SETINFO)
std::string unrecognized_option(std::string_view option);
// "ERR lib-name cannot contain spaces, newlines or special characters." (CLIENT SETINFO)
std::string invalid_client_attr(std::string_view attr);
// "ERR Unknown client type 'foo'"
std::string unknown_client_type(std::string_view type);
// "ERR No such user 'bob'"
std::string no_such_user(std::string_view user);

// ---- ACL --------------------------------------------------------------------------------------
inline constexpr std::string_view kAclUserSpaces =
    "ERR Usernames can't contain spaces or null characters";
inline constexpr std::string_view kAclDefaultUndeletable =
    "ERR The 'default' user cannot be removed";
inline constexpr std::string_view kAclNoFile =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users "
    "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
    "configuration file set) in order to store users in the Redis configuration.";
inline constexpr std::string_view kAclSaveFailed =
    "ERR There was an error trying to save the ACLs. Please check the server logs for more "
    "information";
inline constexpr std::string_view kAclGenpassBits =
    "ERR ACL GENPASS argument must be the number of bits for the output password, a positive "
    "number up to 4096";
// "NOPERM User alice has no permissions to run the 'set' command", "NOPERM No permissions to
// access a key" / "... a channel" (dispatch's refusal).
std::string noperm(acl::Denied d, std::string_view user, std::string_view full_name);
// EXEC's answer for a queued command the user may no longer run.
std::string acl_changed_in_exec(acl::Denied d);
// ACL DRYRUN's refusal (a bulk string, not an error): "User alice has no permissions to access
// the 'k' key".
std::string acl_dryrun_denied(acl::Denied d, std::string_view user, std::string_view full_name,
                              std::string_view arg);
// "ERR Unknown category 'foo'"
std::string acl_unknown_category(std::string_view name);
// "ERR User 'bob' not found", "ERR Command 'foo' not found" (ACL DRYRUN)
std::string acl_user_not_found(std::string_view user);
std::string acl_command_not_found(std::string_view name);

// "ERR unknown command 'foo', with args beginning with: 'a' 'b' "
std::string unknown_command(std::string_view name, std::span<const std::string_view> args);
// "ERR wrong number of arguments for 'xadd' command" ("'xgroup|create'" for subcommands)
std::string wrong_arity(std::string_view full_name);
// "ERR unknown subcommand 'foo'. Try CLIENT HELP."
std::string unknown_subcommand(std::string_view sub, std::string_view container);
// "ERR unknown subcommand or wrong number of arguments for 'foo'. Try XGROUP HELP." (XGROUP,
// XINFO and other containers whose subcommands Redis dispatches by hand)
std::string unknown_subcommand_or_arity(std::string_view sub, std::string_view container);
// EXEC rejected before it runs (arity, auth): the transaction is discarded with this text.
std::string exec_abort(std::string_view error);

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
inline constexpr std::string_view kLfuSelected =
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
    "switching between policies at runtime LRU and LFU data will take some time to adjust.";
// "ERR invalid expire time in 'set' command"
std::string invalid_expire_time(std::string_view full_name);
// "ERR Unsupported option BOGUS" (EXPIRE family)
std::string unsupported_option(std::string_view option);

// ---- CONFIG SET port / bind that cannot be listened on (net/listener.cc), Redis's words ----
inline constexpr std::string_view kConfigPortListen =
    "Unable to listen on this port. Check server logs.";
inline constexpr std::string_view kConfigBindFailed = "Failed to bind to specified addresses.";

// ---- persistence (AOF) ----------------------------------------------------------------------
inline constexpr std::string_view kAofRewriteInProgress =
    "ERR Background append only file rewriting already in progress";
inline constexpr std::string_view kAofRewriteFailed =
    "ERR Can't execute an AOF background rewriting. Please check the server logs for more "
    "information.";
inline constexpr std::string_view kWaitaofAppendonlyOff =
    "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.";
inline constexpr std::string_view kWaitaofReplica =
    "ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas "
    "are just local and are not propagated.";
// "MISCONF Errors writing to the AOF file: No space left on device" (writes refused)
std::string aof_write_error(std::string_view reason);

// ---- persistence (RDB) ----------------------------------------------------------------------
inline constexpr std::string_view kBgsaveInProgress = "ERR Background save already in progress";
inline constexpr std::string_view kBgsaveOtherChild =
    "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in "
    "order to schedule a BGSAVE whenever possible.";
// SAVE / BGSAVE / DEBUG RELOAD when the file could not be written: Redis's bare "-ERR".
inline constexpr std::string_view kSaveFailed = "ERR";
inline constexpr std::string_view kRdbMisconf =
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "
    "disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the "
    "RDB error.";
inline constexpr std::string_view kDebugReloadOptions =
    "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.";
inline constexpr std::string_view kDebugReloadLoadFailed = "ERR Error trying to load the RDB dump";
inline constexpr std::string_view kDebugLoadAofFailed =
    "ERR Error trying to load the AOF files, check server logs.";

// ---- replication (master side; commands/repl/) ----
inline constexpr std::string_view kSyncPendingOutput =
    "ERR SYNC and PSYNC are invalid with pending output";
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";
inline constexpr std::string_view kNoReplicas = "NOREPLICAS Not enough good replicas to write.";
inline constexpr std::string_view kReadOnlyReplica =
    "READONLY You can't write against a read only replica.";
inline constexpr std::string_view kInvalidMasterPort = "ERR Invalid master port";
inline constexpr std::string_view kReplicaofFromReplica =
    "ERR Command is not valid when client is a replica.";
inline constexpr std::string_view kMasterDown =
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
inline constexpr std::string_view kSyncWhileFailingOver =
    "NOMASTERLINK Can't SYNC while failing over";
inline constexpr std::string_view kSyncWithoutMasterLink =
    "NOMASTERLINK Can't SYNC while not connected with my master";
inline constexpr std::string_view kReplicaofWhileFailingOver =
    "ERR REPLICAOF not allowed while failing over.";
// FAILOVER (commands/repl/, repl/failover.cc) and PSYNC ... FAILOVER, as Redis words them.
inline constexpr std::string_view kNoFailoverInProgress = "ERR No failover in progress.";
inline constexpr std::string_view kFailoverTimeoutNotPositive =
    "ERR FAILOVER timeout must be greater than 0";
inline constexpr std::string_view kFailoverInProgress = "ERR FAILOVER already in progress.";
inline constexpr std::string_view kFailoverOnReplica =
    "ERR FAILOVER is not valid when server is a replica.";
inline constexpr std::string_view kFailoverNoReplicas = "ERR FAILOVER requires connected replicas.";
inline constexpr std::string_view kFailoverForceArgs =
    "ERR FAILOVER with force option requires both a timeout and target HOST and IP.";
inline constexpr std::string_view kFailoverTargetUnknown =
    "ERR FAILOVER target HOST and PORT is not a replica.";
inline constexpr std::string_view kFailoverTargetOffline =
    "ERR FAILOVER target replica is not online.";
inline constexpr std::string_view kPsyncFailoverToMaster =
    "ERR PSYNC FAILOVER can't be sent to a master.";
inline constexpr std::string_view kPsyncFailoverReplid =
    "ERR PSYNC FAILOVER replid must match my replid.";
std::string replconf_unknown_option(std::string_view option);
std::string replconf_ip_too_long(std::size_t bytes);
// streamd's own: a write Redis 7.0 has no command for, refused while rdb-version is 10 (see
// commands/stream/propagation.h): "ERR XNACK has no Redis 7.0 equivalent (rdb-version is 10)"
std::string no_redis70_equivalent(std::string_view what);

// CLIENT TRACKING / CLIENT CACHING.
inline constexpr std::string_view kTrackingOneRedirect =
    "ERR A client can only redirect to a single other client";
inline constexpr std::string_view kTrackingNoRedirectClient =
    "ERR The client ID you want redirect to does not exist";
inline constexpr std::string_view kTrackingPrefixNeedsBcast =
    "ERR PREFIX option requires BCAST mode to be enabled";
inline constexpr std::string_view kTrackingSwitchBcast =
    "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then "
    "re-enabling it with a different mode.";
inline constexpr std::string_view kTrackingOptWithBcast =
    "ERR OPTIN and OPTOUT are not compatible with BCAST";
inline constexpr std::string_view kTrackingOptinAndOptout =
    "ERR You can't specify both OPTIN mode and OPTOUT mode";
inline constexpr std::string_view kTrackingSwitchOpt =
    "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then "
    "re-enabling it with a different mode.";
inline constexpr std::string_view kCachingNotTracking =
    "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
    "OPTOUT mode enabled";
inline constexpr std::string_view kCachingYesNotOptin =
    "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.";
inline constexpr std::string_view kCachingNoNotOptout =
    "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.";
// "ERR Prefix 'a' overlaps with an existing prefix 'ab'. Prefixes for a single client must not
// overlap." (existing: one the client had) or "... with another provided prefix ..." (same call).
std::string tracking_prefix_overlap(std::string_view prefix, std::string_view other, bool existing);

}  // namespace streamd::cmd::errors
