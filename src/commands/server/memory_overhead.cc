// INFO memory's, MEMORY STATS' and MEMORY DOCTOR's figures (memory_overhead.h), and the two
// MEMORY subcommands that report them.
#include "streamd/commands/server/memory_overhead.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "streamd/commands/core/context.h"
#include "streamd/commands/core/persistence.h"
#include "streamd/commands/core/replication.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/server/info.h"
#include "streamd/config/config.h"
#include "streamd/engine/keyspace.h"
#include "streamd/engine/used_memory.h"

namespace streamd::cmd {
namespace {

// Memory at startup, and the highest used_memory a report has seen.
uint64_t g_startup_memory = 0;
uint64_t g_peak_memory = 0;

// The second field of /proc/self/statm (resident pages). The file stays open (it names this
// process from the open on; the kernel renders it afresh on every read from offset 0): opening
// it was most of what INFO spent in the kernel.
uint64_t rss_bytes() {
  static const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[256];
  ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return 0;
  buf[n] = '\0';
  char* end = nullptr;
  std::strtoull(buf, &end, 10);  // size
  if (end == buf) return 0;
  const char* field = end;
  unsigned long long resident = std::strtoull(field, &end, 10);
  if (end == field) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Redis computes its ratios in single precision; replies show the float's exact value
// (99.645263671875, not 99.64526...).
double single_precision_ratio(uint64_t a, uint64_t b) {
  return b ? static_cast<double>(static_cast<float>(a) / static_cast<float>(b)) : 0.0;
}

}  // namespace

uint64_t used_memory_bytes() {
  return engine::used_memory();
}

void record_startup_memory() {
  if (g_startup_memory == 0) g_startup_memory = engine::used_memory();
}

uint64_t total_system_memory() {
  static const uint64_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)
                                 : uint64_t{0};
  }();
  return bytes;
}

MemoryOverhead memory_overhead(Server& server) {
  MemoryOverhead m;
  m.used = engine::used_memory();
  g_peak_memory = std::max(g_peak_memory, m.used);
  m.peak = g_peak_memory;
  m.startup = std::min(g_startup_memory, m.used);
  // Both allocator figures from one mallinfo2() (it walks every arena).
  struct mallinfo2 mi = mallinfo2();
  m.allocator_allocated = mi.uordblks + mi.hblkhd;
  m.allocator_active = mi.arena + mi.hblkhd;
  m.rss = rss_bytes();
  // A replica link's output is the replication buffer, not a client's: Redis's
  // mem_clients_normal leaves replicas out.
  for (const auto& [id, sess] : server.sessions()) {
    m.clients_normal += sess->query_buffer + sess->query_buffer_free;
    if (sess->replica) {
      ++m.replicas;
    } else {
      m.clients_normal += sess->output_buffer;
      ++m.normal_clients;
    }
  }
  const Replication* repl = server.replication_role();
  m.repl_buffers = repl ? repl->buffer_bytes() : 0;
  const uint64_t backlog_size = server.config().ref<std::uint64_t>("repl-backlog-size");
  if (repl && repl->replica_count() > 0 && m.repl_buffers > backlog_size) {
    m.repl_backlog = backlog_size;
    m.clients_replicas = m.repl_buffers - backlog_size;
  } else {
    m.repl_backlog = m.repl_buffers;
  }
  const Persistence* aof = server.persistence();
  m.aof_buffer = aof ? aof->buffer_allocation() : 0;
  uint64_t overhead =
      m.startup + m.clients_normal + m.repl_backlog + m.clients_replicas + m.aof_buffer;
  engine::Keyspace& ks = server.keyspace();
  for (int d = 0; d < ks.databases(); ++d) {
    const engine::Database& db = ks.db(d);
    if (db.size() == 0) continue;
    m.keys += db.size();
    DbMemoryOverhead o{d, db.table_overhead(), db.expires_overhead()};
    overhead += o.main_table + o.expires_table;
    m.dbs.push_back(o);
    m.rehashing_bytes += db.rehashing_bytes();
    m.rehashing_count += db.rehashing() ? 1 : 0;
  }
  m.overhead = std::min(m.used, overhead);
  m.dataset = m.used - m.overhead;
  const uint64_t net = m.used > m.startup ? m.used - m.startup : 0;
  m.bytes_per_key = m.keys ? net / m.keys : 0;
  m.dataset_perc = net ? static_cast<double>(static_cast<float>(m.dataset) * 100 / net) : 0;
  m.peak_perc = m.peak ? static_cast<double>(static_cast<float>(m.used) * 100 / m.peak) : 0;
  return m;
}

void memory_stats(Context& ctx) {
  const MemoryOverhead m = memory_overhead(ctx.server);
  resp::ReplyWriter& r = ctx.reply;
  auto num = [&](std::string_view name, uint64_t v) {
    r.bulk(name);
    r.integer(static_cast<long long>(v));
  };
  auto signed_num = [&](std::string_view name, int64_t v) {
    r.bulk(name);
    r.integer(v);
  };
  auto real = [&](std::string_view name, double v) {
    r.bulk(name);
    r.dbl(v);
  };
  auto minus = [](uint64_t a, uint64_t b) {
    return static_cast<int64_t>(a) - static_cast<int64_t>(b);
  };
  // Redis main's fields in its order. No scripting and no cluster: their caches and links are
  // 0; glibc has no muzzy pages; the allocator's resident set is the process's (/proc), so the
  // RSS overhead beyond it is nil.
  r.map(31 + m.dbs.size());
  num("peak.allocated", m.peak);
  num("total.allocated", m.used);
  num("startup.allocated", m.startup);
  num("replication.backlog", m.repl_backlog);
  num("clients.slaves", m.clients_replicas);
  num("clients.normal", m.clients_normal);
  num("cluster.links", 0);
  num("aof.buffer", m.aof_buffer);
  num("lua.caches", 0);
  num("functions.caches", 0);
  for (const DbMemoryOverhead& d : m.dbs) {
    r.bulk("db." + std::to_string(d.db));
    r.map(2);
    num("overhead.hashtable.main", d.main_table);
    num("overhead.hashtable.expires", d.expires_table);
  }
  num("overhead.db.hashtable.lut", 0);  // one table per database, no slot lookup table
  num("overhead.db.hashtable.rehashing", m.rehashing_bytes);
  num("overhead.total", m.overhead);
  num("db.dict.rehashing.count", m.rehashing_count);
  num("keys.count", m.keys);
  num("keys.bytes-per-key", m.bytes_per_key);
  num("dataset.bytes", m.dataset);
  real("dataset.percentage", m.dataset_perc);
  real("peak.percentage", m.peak_perc);
  num("allocator.allocated", m.allocator_allocated);
  num("allocator.active", m.allocator_active);
  num("allocator.resident", m.rss);
  num("allocator.muzzy", 0);
  real("allocator-fragmentation.ratio",
       single_precision_ratio(m.allocator_active, m.allocator_allocated));
  signed_num("allocator-fragmentation.bytes", minus(m.allocator_active, m.allocator_allocated));
  real("allocator-rss.ratio", single_precision_ratio(m.rss, m.allocator_active));
  signed_num("allocator-rss.bytes", minus(m.rss, m.allocator_active));
  real("rss-overhead.ratio", single_precision_ratio(m.rss, m.rss));
  signed_num("rss-overhead.bytes", 0);
  // The total RSS overhead, fragmentation included (Redis keeps the name for compatibility).
  real("fragmentation", single_precision_ratio(m.rss, m.used));
  signed_num("fragmentation.bytes", minus(m.rss, m.used));
}

std::string memory_doctor_report(const MemoryOverhead& m) {
  constexpr uint64_t kMiB = 1024 * 1024;
  // Redis's thresholds: under 5 MiB there is too little to judge; otherwise a ratio is an issue
  // only past 10 MiB of difference.
  if (m.used < 5 * kMiB) {
    return "Hi Sam, this instance is empty or is using very little memory, my issues detector "
           "can't be used in these conditions. Please, leave for your mission on Earth and fill "
           "it with some data. The new Sam and I will be back to our programming as soon as I "
           "finished rebooting.\n";
  }
  auto over = [](uint64_t a, uint64_t b, double r) {
    return b && static_cast<double>(a) / static_cast<double>(b) > r && a > b && a - b > 10 * kMiB;
  };
  const bool big_peak = static_cast<double>(m.peak) / static_cast<double>(m.used) > 1.5;
  const bool high_frag = over(m.rss, m.used, 1.4);
  const bool high_alloc_frag = over(m.allocator_active, m.allocator_allocated, 1.1);
  const bool high_alloc_rss = over(m.rss, m.allocator_active, 1.1);
  // (rss is the allocator's resident set here, so the process has no RSS beyond it.)
  const bool big_client_buf = m.normal_clients && m.clients_normal / m.normal_clients > 200 * 1024;
  const bool big_replica_buf = m.replicas && m.clients_replicas > 10 * kMiB;
  if (!big_peak && !high_frag && !high_alloc_frag && !high_alloc_rss && !big_client_buf &&
      !big_replica_buf) {
    return "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
           "occurs on this base.\n";
  }
  std::string s = "Sam, I detected a few issues in this Redis instance memory implants:\n\n";
  if (big_peak) {
    s += " * Peak memory: In the past this instance used more than 150% the memory that is "
         "currently using. The allocator is normally not able to release memory after a peak, so "
         "you can expect to see a big fragmentation ratio, however this is actually harmless and "
         "is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is "
         "currently bigger than expected, the memory will be used as soon as you fill the Redis "
         "instance with more data. If the memory peak was only occasional and you want to try to "
         "reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is "
         "to shutdown and restart the instance.\n\n";
  }
  if (high_frag) {
    s += " * High total RSS: This instance has a memory fragmentation and RSS overhead greater "
         "than 1.4 (this means that the Resident Set Size of the Redis process is much larger "
         "than the sum of the logical allocations Redis performed). This problem is usually due "
         "either to a large peak memory (check if there is a peak memory entry above in the "
         "report) or may result from a workload that causes the allocator to fragment memory a "
         "lot. If the problem is a large peak memory, then there is no issue. Otherwise, make "
         "sure you are using the Jemalloc allocator and not the default libc malloc. Note: The "
         "currently used allocator is \"libc\".\n\n";
  }
  if (high_alloc_frag) {
    s += " * High allocator fragmentation: This instance has an allocator external "
         "fragmentation greater than 1.1. This problem is usually due either to a large peak "
         "memory (check if there is a peak memory entry above in the report) or may result from "
         "a workload that causes the allocator to fragment memory a lot. You can try enabling "
         "'activedefrag' config option.\n\n";
  }
  if (high_alloc_rss) {
    s += " * High allocator RSS overhead: This instance has an RSS memory overhead is greater "
         "than 1.1 (this means that the Resident Set Size of the allocator is much larger than "
         "the sum what the allocator actually holds). This problem is usually due to a large "
         "peak memory (check if there is a peak memory entry above in the report), you can try "
         "the MEMORY PURGE command to reclaim it.\n\n";
  }
  if (big_replica_buf) {
    s += " * Big replica buffers: The replica output buffers in this instance are greater than "
         "10MB for each replica (on average). This likely means that there is some replica "
         "instance that is struggling receiving data, either because it is too slow or because "
         "of networking issues. As a result, data piles on the master output buffers. Please try "
         "to identify what replica is not receiving data correctly and why. You can use the INFO "
         "output in order to check the replicas delays and the CLIENT LIST command to check the "
         "output buffers of each replica.\n\n";
  }
  if (big_client_buf) {
    s += " * Big client buffers: The clients output buffers in this instance are greater than "
         "200K per client (on average). This may result from different causes, like Pub/Sub "
         "clients subscribed to channels bot not receiving data fast enough, so that data piles "
         "on the Redis instance output buffer, or clients sending commands with large replies or "
         "very large sequences of commands in the same pipeline. Please use the CLIENT LIST "
         "command in order to investigate the issue if it causes problems in your instance, or "
         "to understand better why certain clients are using a big amount of memory.\n\n";
  }
  s += "I'm here to keep you safe, Sam. I want to help you.\n";
  return s;
}

void memory_doctor(Context& ctx) {
  ctx.reply.verbatim(memory_doctor_report(memory_overhead(ctx.server)));
}

}  // namespace streamd::cmd
