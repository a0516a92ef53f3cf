#include "streamd/commands/server/client_info.h"

#include <fmt/format.h>

#include "streamd/commands/core/context.h"
#include "streamd/commands/pubsub/pubsub.h"

namespace streamd::cmd {

ClientType client_type(const Session& s) {
  // MONITOR clients count as normal (as in Redis); a subscribed client is pubsub in either
  // protocol; a replica link (after SYNC/PSYNC) is replica.
  if (s.replica) return ClientType::kReplica;
  if (s.master) return ClientType::kMaster;
  return subscribed(s) ? ClientType::kPubsub : ClientType::kNormal;
}

std::string client_flags(const Session& s) {
  std::string f;
  if (s.replica) f += 'S';  // a replica link (after SYNC/PSYNC), first as in Redis
  if (s.master) f += 'M';   // the link to this replica's master
  if (s.monitor) f += 'O';
  if (subscribed(s)) f += 'P';
  if (s.in_multi) f += 'x';
  if (s.blocked || s.postponed) f += 'b';
  if (s.tracking.on) f += 't';
  if (s.tracking.broken_redirect) f += 'R';
  if (s.tracking.bcast) f += 'B';
  if (s.dirty_cas) f += 'd';
  if (s.close_after_reply) f += 'c';
  if (s.unix_socket) f += 'U';
  if (s.no_evict) f += 'e';
  if (s.no_touch) f += 'T';
  // push_back, not = "N": GCC 12 warns falsely (-Wrestrict) on assigning a literal here.
  if (f.empty()) f.push_back('N');
  return f;
}

namespace {

std::size_t argv_bytes(std::span<const std::string_view> argv) {
  std::size_t n = 0;
  for (auto a : argv) n += a.size();
  return n;
}

}  // namespace

std::string client_info_line(Server& server, const Session& s, const Context* running) {
  int64_t now = server.clock().now_ms();
  int64_t age = (now - s.created_ms) / 1000;
  int64_t idle = running ? 0 : (now - s.last_interaction_ms) / 1000;
  std::string_view cmd = running ? std::string_view(running->spec.full_name)
                                 : (s.last_command.empty() ? std::string_view("NULL")
                                                           : std::string_view(s.last_command));
  std::size_t argv_mem = running ? argv_bytes(running->argv) : 0;
  std::size_t multi_mem = s.queued_bytes;
  long long multi = s.in_multi ? static_cast<long long>(s.queued.size()) : -1;
  // streamd writes replies from one growing buffer per connection: report it as the reply buffer
  // (rbs/rbp) and as the output buffer (obl/omem), with no reply list (oll).
  std::size_t tot_mem = s.query_buffer + s.query_buffer_free + argv_mem + multi_mem +
                        s.output_buffer + sizeof(Session);
  // Redis 8.0's fields in its order: watch (7.4), lib-name and lib-ver (7.2, what CLIENT SETINFO
  // set), io-thread (8.0; streamd serves every client on the main thread, Redis's 0).
  return fmt::format(
      "id={} addr={} laddr={} fd={} name={} age={} idle={} flags={} db={} sub={} psub={} ssub={} "
      "multi={} watch={} qbuf={} qbuf-free={} argv-mem={} multi-mem={} rbs={} rbp={} obl={} "
      "oll=0 omem={} tot-mem={} events={} cmd={} user={} redir={} resp={} lib-name={} "
      "lib-ver={} io-thread=0",
      s.id, s.addr, s.laddr, s.fd, s.name, age, idle, client_flags(s), s.db,
      s.subs ? s.subs->channels.size() : 0, s.subs ? s.subs->patterns.size() : 0,
      s.subs ? s.subs->shard_channels.size() : 0, multi, s.watched.size(), s.query_buffer,
      s.query_buffer_free, argv_mem, multi_mem, s.output_buffer, s.output_buffer, s.output_buffer,
      s.output_buffer, tot_mem, s.output_buffer > 0 ? "rw" : "r", cmd, server.user_of(s).name,
      s.tracking.on ? static_cast<long long>(s.tracking.redirect) : -1, static_cast<int>(s.proto),
      s.lib_name, s.lib_ver);
}

}  // namespace streamd::cmd
