// cmd::Outbound over Asio (MIGRATE's connection to its target): resolve, connect, write, then
// read reply lines, each step under the command's timeout, on the server's event loop. A fresh
// connection per exchange (Redis caches them for 10 s; the only visible difference is that
// streamd always sends SELECT, which Redis does on a new connection too).
#pragma once

#include <asio/io_context.hpp>

#include "streamd/commands/core/outbound.h"

namespace streamd::net {

class FrontEnd;

class OutboundClient final : public cmd::Outbound {
 public:
  OutboundClient(asio::io_context& io, FrontEnd& fe) : io_(io), fe_(fe) {}
  void exchange(cmd::OutboundRequest req, std::function<void(cmd::OutboundResult)> done) override;

 private:
  asio::io_context& io_;
  FrontEnd& fe_;
};

}  // namespace streamd::net
