// FrontEnd's turn of client I/O: the reads queued by ready clients, the commands they bring,
// and the replies, each group in one IoBatch (one io_uring_enter where available), the way
// Redis answers every ready client and then writes all their replies before waiting again.
//
// Invariant: no command runs between queueing an operation in io_batch_ and running it (the
// reads are queued only while poller events are delivered, which runs no commands; the writes
// are queued only inside write_pending), so no buffer or descriptor can go away in between. The
// vectors hold the connections themselves, so a client closed by another's command (CLIENT
// KILL) stays a valid object until its result has been handed over and ignored.
#include <asio/post.hpp>

#include "streamd/net/connection.h"
#include "streamd/net/front_end.h"

namespace streamd::net {

void FrontEnd::end_turn() {
  if (turn_depth_ == 1) {
    complete_reads();
    write_pending();
  }
  --turn_depth_;
}

void FrontEnd::queue_read(std::shared_ptr<Connection> c, char* buf, std::size_t len) {
  io_batch_.recv(c->fd_, buf, len, static_cast<uint32_t>(reading_.size()));
  reading_.push_back(std::move(c));
}

void FrontEnd::complete_reads() {
  if (reading_.empty()) return;
  // Copied: running the clients' commands must not depend on the batch's own storage. The
  // scratch vectors keep their capacity from turn to turn (no allocation per turn).
  done_scratch_ = io_batch_.run();
  read_batch_.swap(reading_);
  for (const IoBatch::Completion& d : done_scratch_) read_batch_[d.tag]->on_read_done(d.result);
  read_batch_.clear();
}

void FrontEnd::want_write(std::shared_ptr<Connection> c) {
  writing_.push_back(std::move(c));
  if (turn_depth_ > 0 || write_posted_) return;
  write_posted_ = true;
  asio::post(io_, [this] {
    write_posted_ = false;
    begin_turn();
    end_turn();
  });
}

void FrontEnd::write_pending() {
  // A write that completes may let a connection flush again (its out_ filled meanwhile by a
  // wake-up): loop until nothing is queued.
  while (!writing_.empty()) {
    write_batch_.swap(writing_);
    for (auto& c : write_batch_) {
      if (c->start_batched_write(io_batch_, static_cast<uint32_t>(sent_.size()))) {
        sent_.push_back(std::move(c));
      }
    }
    write_batch_.clear();
    if (sent_.empty()) break;
    done_scratch_ = io_batch_.run();
    for (const IoBatch::Completion& d : done_scratch_) sent_[d.tag]->on_write_done(d.result);
    sent_.clear();
  }
  reap();
}

void FrontEnd::wake(std::shared_ptr<Connection> c) {
  waking_.push_back(std::move(c));
  if (wake_posted_) return;
  wake_posted_ = true;
  asio::post(io_, [this] { run_wakeups(); });
}

void FrontEnd::run_wakeups() {
  wake_posted_ = false;
  wake_batch_.swap(waking_);
  begin_turn();
  for (auto& c : wake_batch_) c->on_wakeup();
  wake_batch_.clear();
  end_turn();
}

}  // namespace streamd::net
