#include "streamd/net/poller.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

namespace streamd::net {

namespace {

// Events taken per epoll_wait; a fuller set is served over several io_context turns, so timers
// and posted work (group commit, wake-ups) run in between.
constexpr int kMaxEvents = 512;

uint32_t epoll_events(uint32_t interest) {
  uint32_t ev = 0;
  if (interest & Poller::kRead) ev |= EPOLLIN;
  if (interest & Poller::kWrite) ev |= EPOLLOUT;
  return ev;
}

Poller::Token make_token(uint32_t index, uint32_t generation) {
  return (static_cast<uint64_t>(generation) << 32) | index;
}

}  // namespace

Poller::Poller(asio::io_context& io) : descriptor_(io) {}

Poller::~Poller() {
  stop();
  asio::error_code ec;
  descriptor_.close(ec);  // closes epfd_
}

bool Poller::open() {
  epfd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) return false;
  asio::error_code ec;
  descriptor_.assign(epfd_, ec);
  if (ec) {
    ::close(epfd_);
    epfd_ = -1;
    errno = ec.value();
    return false;
  }
  return true;
}

void Poller::start() {
  if (running_ || epfd_ < 0) return;
  running_ = true;
  arm();
}

void Poller::stop() {
  running_ = false;
  asio::error_code ec;
  descriptor_.cancel(ec);
}

void Poller::arm() {
  descriptor_.async_wait(asio::posix::stream_descriptor::wait_read,
                         [this](const asio::error_code& ec) {
                           if (ec || !running_) return;
                           poll();
                           if (running_) arm();
                         });
}

void Poller::poll() {
  epoll_event events[kMaxEvents];
  int n = ::epoll_wait(epfd_, events, kMaxEvents, 0);
  if (n < 0) {
    if (errno != EINTR) spdlog::warn("epoll_wait on the client set: {}", std::strerror(errno));
    return;
  }
  if (n == 0) return;
  if (begin_turn_) begin_turn_();
  for (int i = 0; i < n; ++i) {
    Slot* slot = find(events[i].data.u64);
    if (!slot) continue;  // removed by an earlier handler of this batch
    uint32_t ev = events[i].events;
    bool failed = (ev & (EPOLLERR | EPOLLHUP)) != 0;
    bool readable = (ev & EPOLLIN) || (failed && (slot->interest & kRead));
    bool writable = (ev & EPOLLOUT) || (failed && (slot->interest & kWrite));
    slot->handler->on_ready(readable, writable, failed);
  }
  if (end_turn_) end_turn_();
}

Poller::Token Poller::add(int fd, uint32_t interest, Handler* handler) {
  uint32_t index;
  if (!free_slots_.empty()) {
    index = free_slots_.back();
    free_slots_.pop_back();
  } else {
    index = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& slot = slots_[index];
  slot.handler = handler;
  slot.fd = fd;
  slot.interest = interest;
  Token token = make_token(index, slot.generation);
  epoll_event ev{};
  ev.events = epoll_events(interest);
  ev.data.u64 = token;
  if (::epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    spdlog::warn("Registering a client socket for events: {}", std::strerror(errno));
  }
  return token;
}

void Poller::set_interest(Token token, uint32_t interest) {
  Slot* slot = find(token);
  if (!slot || slot->interest == interest) return;
  slot->interest = interest;
  epoll_event ev{};
  ev.events = epoll_events(interest);
  ev.data.u64 = token;
  ::epoll_ctl(epfd_, EPOLL_CTL_MOD, slot->fd, &ev);
}

void Poller::remove(Token token) {
  Slot* slot = find(token);
  if (!slot) return;
  ::epoll_ctl(epfd_, EPOLL_CTL_DEL, slot->fd, nullptr);
  slot->handler = nullptr;
  slot->fd = -1;
  slot->interest = kNone;
  ++slot->generation;  // events still in a collected batch no longer match
  free_slots_.push_back(static_cast<uint32_t>(token & 0xffffffffu));
}

Poller::Slot* Poller::find(Token token) {
  uint32_t index = static_cast<uint32_t>(token & 0xffffffffu);
  uint32_t generation = static_cast<uint32_t>(token >> 32);
  if (index >= slots_.size()) return nullptr;
  Slot& slot = slots_[index];
  if (!slot.handler || slot.generation != generation) return nullptr;
  return &slot;
}

}  // namespace streamd::net
