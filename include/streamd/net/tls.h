// TLS for the RESP listeners (tls-port) and the REST listener (rest-tls): one OpenSSL server
// context built from Redis's tls-* directives at startup, shared by every TLS connection.
//
// What each directive does here is what it does in Redis: tls-cert-file/tls-key-file (and
// tls-key-file-pass for an encrypted key) are the server's identity; tls-ca-cert-file and
// tls-ca-cert-dir the CAs client certificates are checked against; tls-auth-clients yes refuses a
// client without a valid certificate, optional checks one only if it is presented, no never asks;
// tls-protocols lists the enabled versions ("TLSv1.2 TLSv1.3" when empty); tls-ciphers (TLS 1.2
// and below) and tls-ciphersuites (TLS 1.3) restrict the ciphers; tls-prefer-server-ciphers picks
// the server's order; tls-session-caching with tls-session-cache-size/-timeout governs resumption.
#pragma once

#include <asio/ssl/context.hpp>
#include <cstdint>
#include <memory>
#include <string>

namespace streamd::config {
class Config;
}

namespace streamd::net {

struct TlsSettings {
  std::string cert_file, key_file, key_file_pass;
  // The client context's own identity (tls-client-*); when client_cert_file is empty the client
  // presents cert_file / key_file / key_file_pass, as Redis does.
  std::string client_cert_file, client_key_file, client_key_file_pass;
  std::string ca_cert_file, ca_cert_dir;
  enum class AuthClients { kNo, kYes, kOptional } auth_clients = AuthClients::kYes;
  std::string protocols;  // "TLSv1.2 TLSv1.3"; empty = those two
  std::string ciphers, ciphersuites;
  bool prefer_server_ciphers = false;
  bool session_caching = true;
  int64_t session_cache_size = 20480;
  int64_t session_cache_timeout_s = 300;
};

TlsSettings tls_settings_from(const config::Config& cfg);

// Builds the server context; on failure returns null and sets `error` to the reason (logged by
// the caller, which then refuses to start, as redis-server does).
std::unique_ptr<asio::ssl::context> make_tls_context(const TlsSettings& s, std::string& error);

// The client context of a replica's link to its master (tls-replication yes), as Redis builds
// it: tls-client-cert-file/-key-file/-key-file-pass, or when tls-client-cert-file is empty
// tls-cert-file/-key-file/-key-file-pass (if set), are the client certificate, the master's
// certificate is verified against tls-ca-cert-file/-dir (the system's CAs when neither is set), not
// its host name; tls-protocols, tls-ciphers and tls-ciphersuites apply. Null and `error` on
// failure.
std::unique_ptr<asio::ssl::context> make_tls_client_context(const TlsSettings& s,
                                                            std::string& error);

// How long a TLS client may take to complete its handshake before it is dropped, so a client
// that connects and sends nothing (or too little) cannot hold a slot forever.
inline constexpr int64_t kTlsHandshakeTimeoutMs = 10'000;

}  // namespace streamd::net
