// Accepting connections until the listener closes: shared by the RESP listeners (net) and the
// REST listener (rest), which differ only in what they do with an accepted socket.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>

#include <spdlog/spdlog.h>

namespace streamd::net {

// Accepts on `acceptor` and hands each socket to on_socket(socket&&), until the acceptor is
// closed or stopped() turns true. An accept error other than cancellation (out of descriptors
// or memory) is logged with `what` (a string literal) and retried after 100 ms: the pending
// connection stays ready, so retrying at once would spin.
template <typename Acceptor, typename Stopped, typename OnSocket>
asio::awaitable<void> accept_until_closed(Acceptor& acceptor, const char* what, Stopped stopped,
                                          OnSocket on_socket) {
  constexpr auto await = asio::experimental::as_tuple(asio::use_awaitable);
  asio::steady_timer backoff(acceptor.get_executor());
  while (true) {
    auto [ec, socket] = co_await acceptor.async_accept(await);
    if (stopped() || !acceptor.is_open()) co_return;
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      spdlog::warn("Accepting {}: {}", what, ec.message());
      backoff.expires_after(std::chrono::milliseconds(100));
      co_await backoff.async_wait(await);
      continue;
    }
    on_socket(std::move(socket));
  }
}

}  // namespace streamd::net
