// A connected pair of non-blocking unix stream sockets for the network layer's unit tests,
// closed when the pair goes out of scope (a test may close one end early and set it to -1).
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

namespace streamd::net::testing {

struct SocketPair {
  int fd[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fd), 0); }
  ~SocketPair() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;
};

}  // namespace streamd::net::testing
