// The slot pool behind PendingEntry's operator new/delete (see pel.h). The server runs its
// engine on one thread (the Redis model), so the pool is a plain free list with no locking; a
// fork (AOF rewrite child) only reads records.
#include <cstddef>
#include <new>
#include <vector>

#include "streamd/engine/pel.h"

#if defined(__SANITIZE_ADDRESS__)
#define STREAMD_PEL_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STREAMD_PEL_POOL 0
#endif
#endif
#ifndef STREAMD_PEL_POOL
#define STREAMD_PEL_POOL 1
#endif

namespace streamd::engine {

namespace {

constexpr std::size_t kSlot = sizeof(PendingEntry);
constexpr std::size_t kSlotsPerBlock = 1024;  // 56 KiB blocks
static_assert(kSlot % alignof(PendingEntry) == 0);

struct FreeSlot {
  FreeSlot* next;
};

struct Pool {
  FreeSlot* free = nullptr;
  char* bump = nullptr;
  std::size_t left = 0;
  std::vector<void*> blocks;  // kept reachable: the pool lives as long as the process
  std::size_t live = 0;       // slots holding records
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: records may outlive static destructors
  return *p;
}

}  // namespace

void* PendingEntry::operator new(std::size_t size) {
  if (!STREAMD_PEL_POOL) return ::operator new(size);
  (void)size;  // always kSlot: nothing derives from PendingEntry
  Pool& p = pool();
  ++p.live;
  if (p.free) {
    FreeSlot* s = p.free;
    p.free = s->next;
    return s;
  }
  if (p.left == 0) {
    p.bump = static_cast<char*>(::operator new(kSlot* kSlotsPerBlock));
    p.blocks.push_back(p.bump);
    p.left = kSlotsPerBlock;
  }
  void* out = p.bump;
  p.bump += kSlot;
  --p.left;
  return out;
}

void PendingEntry::operator delete(void* ptr) noexcept {
  if (!ptr) return;
  if (!STREAMD_PEL_POOL) {
    ::operator delete(ptr);
    return;
  }
  Pool& p = pool();
  --p.live;
  auto* s = static_cast<FreeSlot*>(ptr);
  s->next = p.free;
  p.free = s;
}

std::size_t PendingEntry::record_bytes() {
  return STREAMD_PEL_POOL ? kSlot : malloc_size_estimate(kSlot);
}

bool PendingEntry::pooled() {
  return STREAMD_PEL_POOL;
}

std::size_t PendingEntry::pool_reserved_bytes() {
  return pool().blocks.size() * kSlot * kSlotsPerBlock;
}

std::size_t PendingEntry::pool_used_bytes() {
  return pool().live * kSlot;
}

}  // namespace streamd::engine
