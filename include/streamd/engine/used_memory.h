// The bytes the process holds through operator new, counted as they are allocated and freed:
// Redis's zmalloc_used_memory(). maxmemory compares against it before every command, so it must
// cost a load, not a walk of the heap (mallinfo2() walks every free chunk).
//
// What it counts: every allocation made through C++'s operator new (the keyspace, client
// buffers: everything streamd itself allocates) and through counted_malloc / counted_realloc
// (stream nodes, which grow in place), at the size the allocator really gave
// (malloc_usable_size). What it does not: memory C libraries take with malloc (OpenSSL, the
// HTTP parser), as zmalloc does not count what Redis's libraries allocate on their own. Code
// of streamd's own that needs malloc's realloc uses the counted forms, never plain malloc.
#pragma once

#include <cstddef>

namespace streamd::engine {

std::size_t used_memory();

// malloc, realloc and free that keep used_memory() right. A block from counted_malloc or
// counted_realloc is released with counted_free or counted_realloc, never with free().
void* counted_malloc(std::size_t size) noexcept;
// Zeroed, as calloc: a large block is fresh pages from the kernel, not written (zeroed_array.h).
void* counted_calloc(std::size_t n, std::size_t size) noexcept;
void* counted_realloc(void* p, std::size_t size) noexcept;
void counted_free(void* p) noexcept;

}  // namespace streamd::engine
