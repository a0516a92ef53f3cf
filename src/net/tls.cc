#include "streamd/net/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <sstream>

#include "streamd/config/config.h"

namespace streamd::net {

namespace {

// The last OpenSSL error as text ("error:8000000D:system library::Permission denied"), or
// `fallback` when OpenSSL queued none.
std::string openssl_error(const char* fallback) {
  unsigned long e = ERR_peek_last_error();
  ERR_clear_error();
  if (e == 0) return fallback;
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

// tls-protocols: the OpenSSL options that disable every version not listed.
bool protocol_options(const std::string& spec, long& options, std::string& error) {
  bool v10 = false, v11 = false, v12 = false, v13 = false;
  if (spec.empty()) {
    v12 = v13 = true;
  } else {
    std::istringstream words(spec);
    std::string w;
    while (words >> w) {
      for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (w == "tlsv1") {
        v10 = true;
      } else if (w == "tlsv1.1") {
        v11 = true;
      } else if (w == "tlsv1.2") {
        v12 = true;
      } else if (w == "tlsv1.3") {
        v13 = true;
      } else {
        error =
            "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', "
            "'TLSv1.2' and 'TLSv1.3'.";
        return false;
      }
    }
  }
  options = 0;
  if (!v10) options |= SSL_OP_NO_TLSv1;
  if (!v11) options |= SSL_OP_NO_TLSv1_1;
  if (!v12) options |= SSL_OP_NO_TLSv1_2;
  if (!v13) options |= SSL_OP_NO_TLSv1_3;
  return true;
}

}  // namespace

TlsSettings tls_settings_from(const config::Config& cfg) {
  TlsSettings s;
  s.cert_file = cfg.ref<std::string>("tls-cert-file");
  s.key_file = cfg.ref<std::string>("tls-key-file");
  s.key_file_pass = cfg.ref<std::string>("tls-key-file-pass");
  s.client_cert_file = cfg.ref<std::string>("tls-client-cert-file");
  s.client_key_file = cfg.ref<std::string>("tls-client-key-file");
  s.client_key_file_pass = cfg.ref<std::string>("tls-client-key-file-pass");
  s.ca_cert_file = cfg.ref<std::string>("tls-ca-cert-file");
  s.ca_cert_dir = cfg.ref<std::string>("tls-ca-cert-dir");
  switch (static_cast<config::TlsAuthClients>(cfg.ref<std::int64_t>("tls-auth-clients"))) {
    case config::TlsAuthClients::kNo:
      s.auth_clients = TlsSettings::AuthClients::kNo;
      break;
    case config::TlsAuthClients::kYes:
      s.auth_clients = TlsSettings::AuthClients::kYes;
      break;
    case config::TlsAuthClients::kOptional:
      s.auth_clients = TlsSettings::AuthClients::kOptional;
      break;
  }
  s.protocols = cfg.ref<std::string>("tls-protocols");
  s.ciphers = cfg.ref<std::string>("tls-ciphers");
  s.ciphersuites = cfg.ref<std::string>("tls-ciphersuites");
  s.prefer_server_ciphers = cfg.ref<bool>("tls-prefer-server-ciphers");
  s.session_caching = cfg.ref<bool>("tls-session-caching");
  s.session_cache_size = cfg.ref<std::int64_t>("tls-session-cache-size");
  s.session_cache_timeout_s = cfg.ref<std::int64_t>("tls-session-cache-timeout");
  return s;
}

namespace {

// What the server and the client context share: protocol versions, the key's passphrase, the
// certificate and key (`need_cert`: both required), the CAs, the ciphers. False with `error`.
bool configure_common(asio::ssl::context& ctx, const TlsSettings& s, bool need_cert,
                      std::string& error) {
  long proto_opts = 0;
  if (!protocol_options(s.protocols, proto_opts, error)) return false;
  SSL_CTX* h = ctx.native_handle();
  long opts = SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
              proto_opts;
  if (s.prefer_server_ciphers) opts |= SSL_OP_CIPHER_SERVER_PREFERENCE;
  SSL_CTX_set_options(h, opts);

  if (!s.key_file_pass.empty()) {
    std::string pass = s.key_file_pass;
    ctx.set_password_callback(
        [pass](std::size_t, asio::ssl::context::password_purpose) { return pass; });
  }
  if (need_cert || !s.cert_file.empty() || !s.key_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(h, s.cert_file.c_str()) <= 0) {
      error = "Failed to load certificate: " + s.cert_file + ": " + openssl_error("unknown error");
      return false;
    }
    if (SSL_CTX_use_PrivateKey_file(h, s.key_file.c_str(), SSL_FILETYPE_PEM) <= 0) {
      error = "Failed to load private key: " + s.key_file + ": " + openssl_error("unknown error");
      return false;
    }
    if (SSL_CTX_check_private_key(h) != 1) {
      error = "The private key does not match the certificate: " + openssl_error("mismatch");
      return false;
    }
  }
  if (!s.ca_cert_file.empty() || !s.ca_cert_dir.empty()) {
    const char* file = s.ca_cert_file.empty() ? nullptr : s.ca_cert_file.c_str();
    const char* dir = s.ca_cert_dir.empty() ? nullptr : s.ca_cert_dir.c_str();
    if (SSL_CTX_load_verify_locations(h, file, dir) <= 0) {
      error =
          "Failed to configure CA certificate(s) file/directory: " + openssl_error("unknown error");
      return false;
    }
  }
  if (!s.ciphers.empty() && SSL_CTX_set_cipher_list(h, s.ciphers.c_str()) != 1) {
    error = "Failed to configure ciphers: " + s.ciphers;
    ERR_clear_error();
    return false;
  }
  if (!s.ciphersuites.empty() && SSL_CTX_set_ciphersuites(h, s.ciphersuites.c_str()) != 1) {
    error = "Failed to configure ciphersuites: " + s.ciphersuites;
    ERR_clear_error();
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<asio::ssl::context> make_tls_context(const TlsSettings& s, std::string& error) {
  if (s.cert_file.empty() || s.key_file.empty()) {
    error = "tls-cert-file and tls-key-file must be set when TLS is enabled";
    return nullptr;
  }
  if (s.auth_clients != TlsSettings::AuthClients::kNo && s.ca_cert_file.empty() &&
      s.ca_cert_dir.empty()) {
    error =
        "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-auth-clients "
        "is enabled!";
    return nullptr;
  }
  auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  if (!configure_common(*ctx, s, true, error)) return nullptr;
  SSL_CTX* h = ctx->native_handle();

  switch (s.auth_clients) {
    case TlsSettings::AuthClients::kNo:
      SSL_CTX_set_verify(h, SSL_VERIFY_NONE, nullptr);
      break;
    case TlsSettings::AuthClients::kOptional:
      SSL_CTX_set_verify(h, SSL_VERIFY_PEER, nullptr);
      break;
    case TlsSettings::AuthClients::kYes:
      SSL_CTX_set_verify(h, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
  }

  if (s.session_caching) {
    // A session id context is required for resumption when client certificates are verified.
    static const unsigned char kSidContext[] = "streamd";
    SSL_CTX_set_session_id_context(h, kSidContext, sizeof kSidContext - 1);
    SSL_CTX_set_session_cache_mode(h, SSL_SESS_CACHE_SERVER);
    SSL_CTX_sess_set_cache_size(h, s.session_cache_size);
    SSL_CTX_set_timeout(h, static_cast<long>(s.session_cache_timeout_s));
  } else {
    SSL_CTX_set_session_cache_mode(h, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(h, SSL_OP_NO_TICKET);
  }
  return ctx;
}

std::unique_ptr<asio::ssl::context> make_tls_client_context(const TlsSettings& s,
                                                            std::string& error) {
  auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
  TlsSettings as_client = s;
  if (!s.client_cert_file.empty()) {
    as_client.cert_file = s.client_cert_file;
    as_client.key_file = s.client_key_file;
    as_client.key_file_pass = s.client_key_file_pass;
  }
  if (!configure_common(*ctx, as_client, false, error)) return nullptr;
  SSL_CTX* h = ctx->native_handle();
  // The master's certificate must verify (Redis checks the chain, not the host name).
  if (s.ca_cert_file.empty() && s.ca_cert_dir.empty()) SSL_CTX_set_default_verify_paths(h);
  SSL_CTX_set_verify(h, SSL_VERIFY_PEER, nullptr);
  return ctx;
}

}  // namespace streamd::net
