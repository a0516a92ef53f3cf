#include "streamd/net/io_batch.h"

#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

namespace streamd::net {

namespace {

// Submission queue size: the most operations one io_uring_enter carries; a bigger batch is
// split. The completion queue is twice this (the kernel's default), and is emptied after every
// enter, so it cannot overflow.
constexpr unsigned kEntries = 512;

// Every operation must finish inside the submitting call (see the header).
constexpr int kFlags = MSG_DONTWAIT | MSG_NOSIGNAL;

// A single operation moves at most this much; the caller sees a short read or write.
constexpr std::size_t kMaxLen = 1u << 30;

int ring_setup(unsigned entries, io_uring_params* p) {
  return static_cast<int>(::syscall(__NR_io_uring_setup, entries, p));
}

int ring_enter(int fd, unsigned to_submit, unsigned min_complete, unsigned flags) {
  return static_cast<int>(
      ::syscall(__NR_io_uring_enter, fd, to_submit, min_complete, flags, nullptr, 0));
}

void* map_ring(int fd, std::size_t len, off_t offset) {
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, offset);
  return p == MAP_FAILED ? nullptr : p;
}

template <typename T>
T* at(void* base, std::size_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}

int64_t direct(uint8_t opcode, int fd, uint64_t addr, std::size_t len) {
  ssize_t r = opcode == IORING_OP_RECV
                  ? ::recv(fd, reinterpret_cast<char*>(addr), len, kFlags)
                  : ::send(fd, reinterpret_cast<const char*>(addr), len, kFlags);
  return r < 0 ? -static_cast<int64_t>(errno) : static_cast<int64_t>(r);
}

}  // namespace

IoBatch::~IoBatch() {
  close_ring();
}

bool IoBatch::open(bool use_ring) {
  close_ring();
  if (!use_ring) return false;
  io_uring_params p{};
  // The server has one thread, which both creates and submits; the ring never wakes it
  // (everything completes inline), so task work may wait for the next system call.
  p.flags = IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER;
  int fd = ring_setup(kEntries, &p);
  if (fd < 0 && errno == EINVAL) {  // a kernel older than these flags (6.0)
    p = io_uring_params{};
    fd = ring_setup(kEntries, &p);
  }
  if (fd < 0) {
    spdlog::info("io_uring unavailable ({}): one system call per client read and write",
                 std::strerror(errno));
    return false;
  }
  ring_fd_ = fd;
  sq_entries_ = p.sq_entries;
  sq_map_len_ = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  cq_map_len_ = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
  bool single = (p.features & IORING_FEAT_SINGLE_MMAP) != 0;
  if (single) sq_map_len_ = cq_map_len_ = std::max(sq_map_len_, cq_map_len_);
  sq_map_ = map_ring(fd, sq_map_len_, IORING_OFF_SQ_RING);
  cq_map_ = single ? sq_map_ : map_ring(fd, cq_map_len_, IORING_OFF_CQ_RING);
  sqes_len_ = p.sq_entries * sizeof(io_uring_sqe);
  sqes_ = map_ring(fd, sqes_len_, IORING_OFF_SQES);
  if (!sq_map_ || !cq_map_ || !sqes_) {
    spdlog::info("io_uring unavailable (mmap: {}): one system call per client read and write",
                 std::strerror(errno));
    close_ring();
    return false;
  }
  sq_head_ = at<unsigned>(sq_map_, p.sq_off.head);
  sq_tail_ = at<unsigned>(sq_map_, p.sq_off.tail);
  sq_mask_ = *at<unsigned>(sq_map_, p.sq_off.ring_mask);
  sq_array_ = at<unsigned>(sq_map_, p.sq_off.array);
  cq_head_ = at<unsigned>(cq_map_, p.cq_off.head);
  cq_tail_ = at<unsigned>(cq_map_, p.cq_off.tail);
  cq_mask_ = *at<unsigned>(cq_map_, p.cq_off.ring_mask);
  cqes_ = at<void>(cq_map_, p.cq_off.cqes);
  spdlog::debug("io_uring ready: {} entries", sq_entries_);
  return true;
}

void IoBatch::close_ring() {
  if (sqes_) ::munmap(sqes_, sqes_len_);
  if (cq_map_ && cq_map_ != sq_map_) ::munmap(cq_map_, cq_map_len_);
  if (sq_map_) ::munmap(sq_map_, sq_map_len_);
  sqes_ = sq_map_ = cq_map_ = nullptr;
  if (ring_fd_ >= 0) ::close(ring_fd_);
  ring_fd_ = -1;
  queued_ = in_kernel_ = 0;
}

void IoBatch::recv(int fd, char* buf, std::size_t len, uint32_t tag) {
  queue(IORING_OP_RECV, fd, reinterpret_cast<uint64_t>(buf), len, tag);
}

void IoBatch::send(int fd, const char* buf, std::size_t len, uint32_t tag) {
  queue(IORING_OP_SEND, fd, reinterpret_cast<uint64_t>(buf), len, tag);
}

void IoBatch::queue(uint8_t opcode, int fd, uint64_t addr, std::size_t len, uint32_t tag) {
  len = std::min(len, kMaxLen);
  if (!uses_ring()) {
    done_.push_back({tag, direct(opcode, fd, addr, len)});
    return;
  }
  if (queued_ == sq_entries_) submit_and_reap();
  if (!uses_ring()) {  // the ring failed just now
    done_.push_back({tag, direct(opcode, fd, addr, len)});
    return;
  }
  unsigned tail = *sq_tail_;  // only this thread writes the tail
  unsigned index = tail & sq_mask_;
  io_uring_sqe* sqe = static_cast<io_uring_sqe*>(sqes_) + index;
  std::memset(sqe, 0, sizeof *sqe);
  sqe->opcode = opcode;
  sqe->fd = fd;
  sqe->addr = addr;
  sqe->len = static_cast<uint32_t>(len);
  sqe->msg_flags = kFlags;
  sqe->user_data = tag;
  sq_array_[index] = index;
  __atomic_store_n(sq_tail_, tail + 1, __ATOMIC_RELEASE);
  ++queued_;
}

const std::vector<IoBatch::Completion>& IoBatch::run() {
  if (queued_ > 0) submit_and_reap();
  results_.swap(done_);
  done_.clear();
  return results_;
}

void IoBatch::submit_and_reap() {
  while (queued_ > 0) {
    int r = ring_enter(ring_fd_, queued_, 0, 0);
    ++submissions_;
    if (r > 0) {
      queued_ -= static_cast<unsigned>(r);
      in_kernel_ += static_cast<unsigned>(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && (errno == EAGAIN || errno == EBUSY) && in_kernel_ > 0) {
      reap();  // the kernel wants its completion queue emptied first
      continue;
    }
    // The kernel refuses the ring: do the queued operations directly (it has not consumed
    // them: the head did not move past them) and stop using it.
    spdlog::warn("io_uring_enter failed ({}): one system call per client read and write from now",
                 std::strerror(errno));
    unsigned tail = *sq_tail_;
    for (unsigned i = tail - queued_; i != tail; ++i) {
      const io_uring_sqe* sqe = static_cast<io_uring_sqe*>(sqes_) + sq_array_[i & sq_mask_];
      done_.push_back({static_cast<uint32_t>(sqe->user_data),
                       direct(sqe->opcode, sqe->fd, sqe->addr, sqe->len)});
    }
    reap();
    close_ring();
    return;
  }
  reap();
  if (in_kernel_ == 0) return;
  // Something did not complete inline, which MSG_DONTWAIT should make impossible. No buffer may
  // outlive run(): cancel whatever is left, wait for it, and stop using the ring.
  spdlog::warn("io_uring left {} operations pending; cancelling them and using direct calls",
               in_kernel_);
  unsigned tail = *sq_tail_;
  io_uring_sqe* sqe = static_cast<io_uring_sqe*>(sqes_) + (tail & sq_mask_);
  std::memset(sqe, 0, sizeof *sqe);
  sqe->opcode = IORING_OP_ASYNC_CANCEL;
  sqe->fd = -1;
  sqe->cancel_flags = IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_ANY;
  sqe->user_data = UINT64_MAX;
  sq_array_[tail & sq_mask_] = tail & sq_mask_;
  __atomic_store_n(sq_tail_, tail + 1, __ATOMIC_RELEASE);
  ++in_kernel_;
  while (in_kernel_ > 0) {
    if (ring_enter(ring_fd_, 1, in_kernel_, IORING_ENTER_GETEVENTS) < 0 && errno != EINTR) break;
    reap();
  }
  done_.erase(std::remove_if(done_.begin(), done_.end(),
                             [](const Completion& c) { return c.tag == UINT32_MAX; }),
              done_.end());
  close_ring();
}

void IoBatch::reap() {
  unsigned head = *cq_head_;
  unsigned tail = __atomic_load_n(cq_tail_, __ATOMIC_ACQUIRE);
  const io_uring_cqe* cqes = static_cast<const io_uring_cqe*>(cqes_);
  for (; head != tail; ++head) {
    const io_uring_cqe& cqe = cqes[head & cq_mask_];
    done_.push_back({static_cast<uint32_t>(cqe.user_data), static_cast<int64_t>(cqe.res)});
    if (in_kernel_ > 0) --in_kernel_;
  }
  __atomic_store_n(cq_head_, head, __ATOMIC_RELEASE);
}

}  // namespace streamd::net
