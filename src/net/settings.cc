#include "streamd/net/settings.h"

#include "streamd/config/config.h"

namespace streamd::net {

Settings settings_from(const config::Config& cfg) {
  Settings s;
  s.port = static_cast<int>(cfg.port());
  s.bind = cfg.bind();
  s.tls_port = static_cast<int>(cfg.ref<std::int64_t>("tls-port"));
  s.rest_tls = cfg.ref<bool>("rest-tls") && cfg.ref<std::int64_t>("rest-port") != 0;
  s.tcp_backlog = static_cast<int>(cfg.tcp_backlog());
  s.unixsocket = cfg.unixsocket();
  s.unixsocketperm = static_cast<unsigned>(cfg.unixsocketperm());
  s.io_uring = cfg.ref<bool>("io-uring");
  s.maxclients = static_cast<std::size_t>(cfg.maxclients());
  s.timeout_s = cfg.timeout();
  s.tcp_keepalive_s = static_cast<int>(cfg.tcp_keepalive());
  s.proto_max_bulk_len = cfg.proto_max_bulk_len();
  s.client_query_buffer_limit = cfg.client_query_buffer_limit();
  const config::OutputBufferLimit& normal =
      cfg.client_output_buffer_limit()[config::ClientClass::kNormal];
  s.normal_output_limit = {normal.hard_bytes, normal.soft_bytes, normal.soft_seconds};
  const config::OutputBufferLimit& pubsub =
      cfg.client_output_buffer_limit()[config::ClientClass::kPubSub];
  s.pubsub_output_limit = {pubsub.hard_bytes, pubsub.soft_bytes, pubsub.soft_seconds};
  const config::OutputBufferLimit& replica =
      cfg.client_output_buffer_limit()[config::ClientClass::kReplica];
  s.replica_output_limit = {replica.hard_bytes, replica.soft_bytes, replica.soft_seconds};
  s.hz = static_cast<int>(cfg.hz());
  s.loglevel = std::string(config::to_string(cfg.loglevel()));
  return s;
}

}  // namespace streamd::net
