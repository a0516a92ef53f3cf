// Replaces the global operator new / delete so that used_memory() is a counter (see the header).
// Every form (sized, aligned, nothrow, array) is replaced: a form left to the C++ runtime would
// allocate without counting and be freed here with counting, and the counter would drift.
//
// Invariant: the counter is the sum of malloc_usable_size() of every block allocated here and
// not yet freed. A block's usable size does not change while it lives, so the size added at
// allocation is the size taken away at release.
#include "streamd/engine/used_memory.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace streamd::engine {
namespace {

// Atomic because other threads (logging) allocate too; relaxed: a statistic, not a fence.
std::atomic<std::size_t> g_used{0};

void* counted_aligned_alloc(std::size_t size, std::align_val_t align) noexcept {
  std::size_t a = static_cast<std::size_t>(align);
  if (a < sizeof(void*)) a = sizeof(void*);
  void* p = nullptr;
  if (posix_memalign(&p, a, size == 0 ? 1 : size) != 0) return nullptr;
  g_used.fetch_add(malloc_usable_size(p), std::memory_order_relaxed);
  return p;
}

// operator new's contract: retry through the new-handler, then throw.
void* alloc_or_throw(std::size_t size) {
  for (;;) {
    if (void* p = counted_malloc(size)) return p;
    std::new_handler h = std::get_new_handler();
    if (!h) throw std::bad_alloc();
    h();
  }
}

void* aligned_alloc_or_throw(std::size_t size, std::align_val_t align) {
  for (;;) {
    if (void* p = counted_aligned_alloc(size, align)) return p;
    std::new_handler h = std::get_new_handler();
    if (!h) throw std::bad_alloc();
    h();
  }
}

}  // namespace

std::size_t used_memory() {
  return g_used.load(std::memory_order_relaxed);
}

void* counted_malloc(std::size_t size) noexcept {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p) g_used.fetch_add(malloc_usable_size(p), std::memory_order_relaxed);
  return p;
}

void* counted_calloc(std::size_t n, std::size_t size) noexcept {
  void* p = std::calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);
  if (p) g_used.fetch_add(malloc_usable_size(p), std::memory_order_relaxed);
  return p;
}

void* counted_realloc(void* p, std::size_t size) noexcept {
  std::size_t before = p ? malloc_usable_size(p) : 0;
  void* np = std::realloc(p, size == 0 ? 1 : size);
  if (!np) return nullptr;  // `p` is untouched and still counted
  g_used.fetch_add(malloc_usable_size(np), std::memory_order_relaxed);
  g_used.fetch_sub(before, std::memory_order_relaxed);
  return np;
}

void counted_free(void* p) noexcept {
  if (!p) return;
  g_used.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
  std::free(p);
}

}  // namespace streamd::engine

using streamd::engine::aligned_alloc_or_throw;
using streamd::engine::alloc_or_throw;
using streamd::engine::counted_aligned_alloc;
using streamd::engine::counted_free;
using streamd::engine::counted_malloc;

void* operator new(std::size_t n) {
  return alloc_or_throw(n);
}
void* operator new[](std::size_t n) {
  return alloc_or_throw(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return counted_malloc(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return counted_malloc(n);
}
void* operator new(std::size_t n, std::align_val_t a) {
  return aligned_alloc_or_throw(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return aligned_alloc_or_throw(n, a);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_aligned_alloc(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_aligned_alloc(n, a);
}

void operator delete(void* p) noexcept {
  counted_free(p);
}
void operator delete[](void* p) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  counted_free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  counted_free(p);
}
