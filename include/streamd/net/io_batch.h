// Many socket reads or writes in one system call.
//
// Why: a client that sends one command and waits for its reply costs the server one read and
// one write per command, and on a virtual machine each system call's entry and exit is a large
// part of that cost (measured here: about 1 µs for getppid, out of about 10 µs per unpipelined
// XADD). When an event-loop turn finds many clients ready, their reads go into an io_uring
// submission queue and leave in one io_uring_enter, and so do their replies.
//
// Every operation is non-blocking (MSG_DONTWAIT): the kernel completes it inside the
// submitting call, with the bytes moved or -EAGAIN, so buffers need only stay valid until run()
// returns, and nothing is ever left in flight between turns. Where io_uring is unavailable
// (an old kernel, a seccomp filter, `io-uring no`), each operation runs at once as its own
// recv/send and run() just hands back the results: callers see the same thing either way.
//
// No liburing: the few ring operations needed are written against <linux/io_uring.h>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace streamd::net {

class IoBatch {
 public:
  struct Completion {
    uint32_t tag;    // the caller's tag for the operation
    int64_t result;  // bytes moved, or -errno (0 from a read: the peer closed)
  };

  IoBatch() = default;
  ~IoBatch();
  IoBatch(const IoBatch&) = delete;
  IoBatch& operator=(const IoBatch&) = delete;

  // Sets up the ring when `use_ring`; false (and direct system calls from then on) when the
  // system refuses it.
  bool open(bool use_ring);
  bool uses_ring() const { return ring_fd_ >= 0; }

  // Queues a non-blocking read or write. The buffer must stay valid until run() returns.
  void recv(int fd, char* buf, std::size_t len, uint32_t tag);
  void send(int fd, const char* buf, std::size_t len, uint32_t tag);

  // Performs everything queued; the completions (in no particular order) stay valid until the
  // next call.
  const std::vector<Completion>& run();

  // How many io_uring_enter calls have been made (for tests and INFO-style diagnostics).
  uint64_t submissions() const { return submissions_; }

 private:
  void queue(uint8_t opcode, int fd, uint64_t addr, std::size_t len, uint32_t tag);
  void submit_and_reap();
  void reap();
  void close_ring();

  int ring_fd_ = -1;
  unsigned sq_entries_ = 0;
  unsigned queued_ = 0;  // submitted to the queue, not yet to the kernel
  unsigned in_kernel_ = 0;

  // Ring memory (see io_uring_setup(2)).
  void* sq_map_ = nullptr;
  std::size_t sq_map_len_ = 0;
  void* cq_map_ = nullptr;  // == sq_map_ with IORING_FEAT_SINGLE_MMAP
  std::size_t cq_map_len_ = 0;
  void* sqes_ = nullptr;
  std::size_t sqes_len_ = 0;
  unsigned* sq_head_ = nullptr;
  unsigned* sq_tail_ = nullptr;
  unsigned sq_mask_ = 0;
  unsigned* sq_array_ = nullptr;
  unsigned* cq_head_ = nullptr;
  unsigned* cq_tail_ = nullptr;
  unsigned cq_mask_ = 0;
  void* cqes_ = nullptr;

  std::vector<Completion> done_;
  std::vector<Completion> results_;  // what run() returned last
  uint64_t submissions_ = 0;
};

}  // namespace streamd::net
