// What the server's memory goes to, as INFO memory, MEMORY STATS and MEMORY DOCTOR report it:
// Redis's getMemoryOverheadData, computed in one place so that the three agree.
//
// used is engine::used_memory() (what maxmemory compares against: everything streamd allocates
// itself); the allocator_* figures are glibc's own (mallinfo2, every malloc'd byte, C libraries
// included) and rss is the process's resident set (/proc/self/statm). overhead is what the
// server holds beside the keys (startup memory, client buffers, the replication buffer, the AOF
// buffer, the keyspace tables); dataset is the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace streamd::cmd {

class Context;
class Server;

struct DbMemoryOverhead {
  int db = 0;
  uint64_t main_table = 0;     // the key table: buckets and each node's link and length
  uint64_t expires_table = 0;  // the index of keys with a TTL (the expiry itself is in the node)
};

struct MemoryOverhead {
  uint64_t used = 0;
  uint64_t peak = 0;     // the highest `used` any report has seen
  uint64_t startup = 0;  // used_memory_startup (at most `used`)
  // The replication buffer (the backlog's blocks, spares included) split as Redis 7 splits its
  // shared one: up to repl-backlog-size it is the backlog's, beyond that the replicas'.
  uint64_t repl_buffers = 0;
  uint64_t repl_backlog = 0;
  uint64_t clients_replicas = 0;
  uint64_t clients_normal = 0;  // query and output buffers of every client but replica links
  uint64_t aof_buffer = 0;
  std::vector<DbMemoryOverhead> dbs;  // the databases that have keys, in order
  uint64_t rehashing_bytes = 0;       // old tables of key tables being resized (Dict)
  uint64_t rehashing_count = 0;       // key tables being resized
  uint64_t overhead = 0;              // all of the above but `used` and `peak`, at most `used`
  uint64_t dataset = 0;               // used - overhead
  uint64_t keys = 0;
  uint64_t bytes_per_key = 0;  // (used - startup) / keys
  double dataset_perc = 0;     // of used - startup
  double peak_perc = 0;        // used of peak
  uint64_t allocator_allocated = 0;
  uint64_t allocator_active = 0;
  uint64_t rss = 0;
  std::size_t normal_clients = 0;
  std::size_t replicas = 0;
};

MemoryOverhead memory_overhead(Server& server);

// total_system_memory (asked once).
uint64_t total_system_memory();

// MEMORY STATS and MEMORY DOCTOR (registered with the rest of MEMORY).
void memory_stats(Context& ctx);
void memory_doctor(Context& ctx);
// Redis's report text for an overhead: the empty-instance note, "no issue", or the issues found.
std::string memory_doctor_report(const MemoryOverhead& m);

}  // namespace streamd::cmd
