// Bytes per pending entry with 1,000,000 pending entries (issue 16 item 1: at most 40). Bytes
// are deterministic (they do not depend on timing), so this asserts them: the engine's own
// estimate (Pel::memory_usage, what MEMORY USAGE and INFO count) and what glibc malloc really
// holds for the PEL (mallinfo2 before and after the reads).
// Cases: 1, 4 and 100 consumers reading in turns of COUNT 10 / 1000 (workers that each take a
// batch, so consecutive IDs alternate between owners), and IDs made at ordinary rates (one per
// millisecond), in bursts (3, 16 or 40 per millisecond), and all in one millisecond; and IDs
// whose seq starts at 1 (explicit `N-1` IDs: before the PelKey head of 2026-12-04 each of those
// needed a radix leaf node of its own, 65.3 bytes per entry with one per ms).
// History (engine estimate, 4 consumers COUNT 10, 16 / 1 entries per ms):
//   24-byte records (32-byte malloc chunks) + group tree + one tree per consumer:  57.8 / 50.9
//   + time index threaded through 56-byte records in a slot pool:                  81.8 / 74.9
//   records inline in one tree, owner and time indexes as runs (pel.h):            see below
// redis-server 7.0.15 on the 4-consumer workloads (same IDs, measured on the development
// machine): 93.4 / 148.2 bytes of used_memory and 91.9 / 149.2 bytes of RSS per pending entry.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sanitized_build.h"
#include "streamd/engine/consumer_group.h"

namespace streamd::engine {
namespace {

struct Measured {
  double estimate_per_entry;
  double malloc_per_entry;
};

// `per_ms` entries share each millisecond (XADD * under load puts many entries in one ms; 1 is
// the sparse case for a radix tree). `consumers` read in turns of `batch`.
// `first_seq` is the seq of each millisecond's first entry (explicit IDs `N-1`, as bench/run.py's
// pending rows use, start at 1).
Measured measure(uint64_t n, uint64_t per_ms, int consumers, std::size_t batch,
                 uint64_t first_seq) {
  Stream s;
  FieldValue fv{"field", "value"};
  const uint64_t base = 1700000000000;
  for (uint64_t i = 0; i < n; ++i) {
    EXPECT_TRUE(
        s.append(StreamId{base + i / per_ms, first_seq + i % per_ms}, std::span(&fv, 1)).ok());
  }
  ConsumerGroup* g = s.groups().create("g", {0, 0}, kEntriesReadUnknown).value();
  std::vector<Consumer*> cs;
  for (int i = 0; i < consumers; ++i)
    cs.push_back(g->create_consumer("worker-" + std::to_string(i), 0).first);

  malloc_trim(0);
  std::size_t before = mallinfo2().uordblks;
  std::size_t pel_before = g->pel_memory_usage();
  for (int turn = 0; g->has_new_entries(s); ++turn) {
    g->read_new(s, *cs[static_cast<std::size_t>(turn) % cs.size()], batch, false,
                static_cast<int64_t>(base) + turn);
  }
  std::size_t after = mallinfo2().uordblks;
  EXPECT_EQ(g->pending_count(), n);
  std::string why;
  EXPECT_TRUE(g->check_invariants(&why)) << why;
  return {static_cast<double>(g->pel_memory_usage() - pel_before) / static_cast<double>(n),
          static_cast<double>(after - before) / static_cast<double>(n)};
}

TEST(PelMemory, BytesPerPendingEntry) {
  // Sanitizer builds replace malloc (mallinfo2 reports nothing there) and pad every block.
  if (test::sanitized_build()) GTEST_SKIP() << "sanitizer build: memory is not representative";
  constexpr uint64_t kEntries = 1000000;
  struct Case {
    uint64_t per_ms;
    int consumers;
    std::size_t batch;
    uint64_t first_seq = 0;
  };
  for (Case c :
       {Case{1, 1, 1000}, Case{kEntries, 1, 1000}, Case{16, 4, 10}, Case{1, 4, 10},
        Case{1, 100, 1000}, Case{kEntries, 100, 1000}, Case{1, 100, 10}, Case{1, 1, 1000, 1},
        Case{1, 100, 1000, 1}, Case{3, 4, 10, 1}, Case{40, 4, 10, 0}}) {
    Measured m = measure(kEntries, c.per_ms, c.consumers, c.batch, c.first_seq);
    std::printf(
        "[ PelMemory ] %llu pending, %llu entries/ms from seq %llu, %d consumers, COUNT %zu: "
        "%.1f bytes/entry estimated, %.1f bytes/entry held by malloc\n",
        static_cast<unsigned long long>(kEntries), static_cast<unsigned long long>(c.per_ms),
        static_cast<unsigned long long>(c.first_seq), c.consumers, c.batch, m.estimate_per_entry,
        m.malloc_per_entry);
    EXPECT_LE(m.estimate_per_entry, 40.0) << c.per_ms << " per ms, " << c.consumers;
    EXPECT_LE(m.malloc_per_entry, 40.0) << c.per_ms << " per ms, " << c.consumers;
  }
}

}  // namespace
}  // namespace streamd::engine
