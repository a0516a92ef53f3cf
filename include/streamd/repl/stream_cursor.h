// StreamCursor: an online replica link's place in the command stream. The link's output is the
// backlog's bytes from this position on (cmd::SharedOutput, which the network layer writes from
// where they lie), so feeding a replica copies nothing per replica.
//
// Invariants: while the cursor is attached to its session (Session::shared_out), the backlog
// retains its position (ReplicationMaster keeps the blocks from the oldest cursor on); a cursor
// whose backlog was replaced under it (a demoted master's replicas are being disconnected)
// offers nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "streamd/commands/core/session.h"

namespace streamd::repl {

class ReplicationMaster;

class StreamCursor final : public cmd::SharedOutput {
 public:
  StreamCursor(ReplicationMaster& master, int64_t pos) : master_(master), pos_(pos) {}

  std::string_view peek() const override;
  void consume(std::size_t n) override;
  std::size_t size() const override;

  // The offset of the next byte this replica is sent.
  int64_t position() const { return pos_; }

 private:
  ReplicationMaster& master_;
  int64_t pos_;
};

}  // namespace streamd::repl
