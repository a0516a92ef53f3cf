// CLIENT LIST / CLIENT INFO lines in Redis 7.0's format, and the client types CLIENT LIST TYPE /
// CLIENT KILL TYPE filter on.
#pragma once

#include <string>

#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"

namespace streamd::cmd {

class Context;

enum class ClientType { kNormal, kReplica, kPubsub, kMaster };

// A replica link is "replica"; a client is "pubsub" while subscribed to anything, else (monitors
// too, as in Redis) "normal".
ClientType client_type(const Session& s);

// One line, without the trailing newline:
//   id=.. addr=.. laddr=.. fd=.. name=.. age=.. idle=.. flags=N db=0 sub=0 psub=0 ssub=0 multi=-1
//   qbuf=.. qbuf-free=.. argv-mem=.. multi-mem=.. rbs=.. rbp=.. obl=.. oll=.. omem=.. tot-mem=..
//   events=r cmd=client|list user=default redir=-1 resp=2
// `running` is the context of the command being executed when `s` is the caller: its "cmd" and
// "argv-mem" describe that command (Redis sets them before running it).
std::string client_info_line(Server& server, const Session& s, const Context* running);

// The flags field ("N" when none applies), in Redis's order.
std::string client_flags(const Session& s);

}  // namespace streamd::cmd
