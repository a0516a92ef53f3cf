// FrontEnd's turn of client I/O: the reads queued by ready clients, the commands they bring,
// the wake-ups those commands cause, and the replies, each group in one IoBatch (one
// io_uring_enter where available), the way Redis answers every ready client, serves the
// clients blocked on the keys they changed, and then writes all their replies before waiting
// again.
//
// Invariants:
// - No command runs between queueing an operation in io_batch_ and running it (the reads are
//   queued only while poller events are delivered, which runs no commands; the writes are
//   queued only inside write_pending), so no buffer or descriptor can go away in between. The
//   vectors hold the connections themselves, so a client closed by another's command (CLIENT
//   KILL) stays a valid object until its result has been handed over and ignored.
// - A client woken inside a turn (its key changed, its deadline passed) is served in that same
//   turn, and its reply leaves in the same write batch as the reply of the command that woke
//   it, and before it (unless its socket is still full of earlier output, or the AOF holds it):
//   once a producer sees its XADD acknowledged, every reader that XADD served already has its
//   entry in its socket. (Wake-ups served in a later turn of their own, after the producer's
//   reply had gone, left readers behind whenever the producer's side then paused, for the
//   whole pause: issue 16's fan-out tail.)
#include <asio/post.hpp>

#include "streamd/commands/core/server.h"
#include "streamd/net/connection.h"
#include "streamd/net/front_end.h"

namespace streamd::net {

void FrontEnd::end_turn() {
  if (turn_depth_ == 1) {
    complete_reads();
    // Writing completes nothing that wakes a client today, but a wake-up queued there must not
    // wait for the next turn: loop until both lists are empty.
    do {
      serve_wakeups();
      write_pending();
    } while (!waking_.empty());
    cmd::Stats& st = server().stats();
    ++st.eventloop_cycles;
    st.eventloop_us += static_cast<uint64_t>(engine::monotonic_us() - turn_start_us_);
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
  post_turn();
}

void FrontEnd::post_turn() {
  // Inside a turn, end_turn takes care of what was queued; outside one (a REST request, a TLS
  // client's batch) one posted turn serves every wake-up and write queued until it runs.
  if (turn_depth_ > 0 || turn_posted_) return;
  turn_posted_ = true;
  asio::post(io_, [this] {
    turn_posted_ = false;
    begin_turn();
    end_turn();
  });
}

void FrontEnd::write_pending() {
  // A write that completes may let a connection flush again (its out_ filled meanwhile by a
  // wake-up): loop until nothing is queued.
  while (!writing_.empty()) {
    write_batch_.swap(writing_);
    // Last queued, first written (as Redis's pending-write list): a woken client flushes after
    // the command that woke it did (its wake-up runs at the end of the turn), so the readers'
    // replies reach the kernel before the producer's.
    for (auto it = write_batch_.rbegin(); it != write_batch_.rend(); ++it) {
      if ((*it)->start_batched_write(io_batch_, static_cast<uint32_t>(sent_.size()))) {
        sent_.push_back(std::move(*it));
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
  post_turn();
}

void FrontEnd::serve_wakeups() {
  // A woken client's pipelined commands may wake others (an XADD behind its XREAD): they are
  // served in this turn too.
  while (!waking_.empty()) {
    wake_batch_.swap(waking_);
    for (auto& c : wake_batch_) c->on_wakeup();
    wake_batch_.clear();
  }
}

}  // namespace streamd::net
