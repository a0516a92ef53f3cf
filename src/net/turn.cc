// FrontEnd's turn of client I/O: the reads queued by ready clients, the commands they bring,
// the wake-ups those commands cause, and the replies, each group in one IoBatch (one
// io_uring_enter where available), the way Redis answers every ready client, serves the
// clients blocked on the keys they changed, and then writes all their replies before waiting
// again.
//
// Invariants:
// - No command runs between queueing an operation in io_batch_ and running it (the reads are
//   queued only while poller events are delivered, which runs no commands; the writes are
//   queued only inside write_pending and write_woken, which run them at once), so no buffer or
//   descriptor can go away in between. The vectors hold the connections themselves, so a
//   client closed by another's command (CLIENT KILL) stays a valid object until its result has
//   been handed over and ignored.
// - A client woken inside a turn (its key changed, its deadline passed) is served in that same
//   turn, and its reply leaves before the reply of the command that woke it (unless its socket
//   is still full of earlier output, or the AOF holds it): once a producer sees its XADD
//   acknowledged, every reader that XADD served already has its entry in its socket.
//   (Wake-ups served in a later turn of their own, after the producer's reply had gone, left
//   readers behind whenever the producer's side then paused, for the whole pause: issue 16's
//   fan-out tail.)
// - A plain client's reply leaves while the others woken with it are still being re-run
//   (send_woken: batches of 1, 2, 4 ... kMaxWokenBatch), not after all of them: the first of
//   200 readers woken by one XADD waited for all 200 re-runs (issue 16's fan-out p50).
#include <algorithm>

#include <asio/post.hpp>

#include "streamd/commands/core/server.h"
#include "streamd/net/connection.h"
#include "streamd/net/front_end.h"

namespace streamd::net {

namespace {

// The most woken replies send_woken puts in one io_uring_enter. At 200 readers and 100 XADD/s
// (bench/run.py fanout100, --rt 5, medians of 4-5 runs) caps of 8, 16 and 32 gave p50s within
// each other's noise (1,320-1,360 µs; 1,330-1,480 for 32), one write per enter 1,544 µs.
constexpr std::size_t kMaxWokenBatch = 16;

}  // namespace

void FrontEnd::end_turn() {
  if (turn_depth_ == 1) {
    complete_reads();
    // Writing completes nothing that wakes a client today, but a wake-up queued there must not
    // wait for the next turn: loop until both lists are empty.
    do {
      write_woken();  // the replies of the last clients woken, before their pipelined commands
      serve_wakeups();
      write_woken();  // io_batch_ must be empty for write_pending's tags
      write_pending();
    } while (!waking_.empty());
    woken_batch_ = 1;
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
  run_batch(reading_, read_batch_, done_scratch_, &Connection::on_read_done);
}

void FrontEnd::run_batch(std::vector<std::shared_ptr<Connection>>& queued,
                         std::vector<std::shared_ptr<Connection>>& running,
                         std::vector<IoBatch::Completion>& done,
                         void (Connection::*on_done)(int64_t)) {
  done = io_batch_.run();
  running.swap(queued);  // what the callbacks queue starts a new list
  for (const IoBatch::Completion& d : done) (running[d.tag].get()->*on_done)(d.result);
  running.clear();
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

void FrontEnd::send_woken(std::shared_ptr<Connection> c) {
  // Outside a turn the posted turn writes it. While reads are queued (poller events are being
  // delivered) no command runs, so nothing is woken; the check keeps io_batch_ for them.
  if (turn_depth_ == 0 || !reading_.empty()) return;
  woken_.push_back(std::move(c));
  if (woken_.size() < woken_batch_) return;
  write_woken();
  woken_batch_ = std::min(woken_batch_ * 2, kMaxWokenBatch);
}

void FrontEnd::write_woken() {
  if (woken_.empty()) return;
  // The writes are queued only now, and run at once: commands ran since these clients were
  // woken (one may have closed another), none runs between queueing and running.
  woken_batch_scratch_.swap(woken_);
  for (auto& c : woken_batch_scratch_) {
    if (c->start_batched_write(io_batch_, static_cast<uint32_t>(woken_sending_.size()))) {
      woken_sending_.push_back(std::move(c));
    }
  }
  woken_batch_scratch_.clear();
  if (woken_sending_.empty()) return;
  // A failed write closes its connection, which only unregisters it (blocking().forget, the
  // retired list): safe while the blocking registry is serving the other woken clients.
  run_batch(woken_sending_, woken_sent_, woken_done_, &Connection::on_write_done);
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
