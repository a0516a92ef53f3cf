// streamd-loadgen: a small closed-loop load generator for RESP servers, used by bench/run.py to
// compare streamd with redis-server. It is deliberately independent of streamd's own code (it
// must not share bugs with the server it measures).
//
// Modes:
//   load   N connections, each sending `pipeline` commands and waiting for all their replies,
//          until `requests` commands were answered. Reports ops/s and per-batch latency.
//   fanout R readers blocked in XREAD [COUNT --read-count] BLOCK 0 on one stream, each re-issuing
//          from the last ID it got, and one producer XADDing entries that carry their send time
//          (--rate per second, or 0: one XADD always in flight); reports deliveries/s and
//          XADD-to-delivery latency (p50, p99, p99.9, max). --slice-ms S produces for S ms, then
//          reads nothing for --pause-ms (as a harness alternating between servers does): a
//          delivery the server had not sent when the last XADD of a slice was acknowledged
//          waits out the pause. --report-late-us N prints every delivery later than N µs.
//          Per XADD (a round), the medians over rounds of: its acknowledgement (ack_us), its
//          first and last delivery (first_us, last_us), and the load generator's epoll_wait
//          calls that returned something, per round (waits_per_round): where a round's time
//          goes, the server's start or the spread over the readers. sock_p50_us etc. are the
//          same latencies taken when each reply reached the reader's socket (the kernel's
//          receive timestamp, SO_TIMESTAMPNS) instead of when this one thread got round to
//          reading it: the server's delivery time without the load generator's own sequential
//          work for the readers ahead (about 10 µs each here).
//   consume N consumers of group `--group` on `--key`, each looping XREADGROUP COUNT `--count`
//          then XACK of exactly the IDs it got, `requests` cycles in all; reports cycles/s
//          (ops_per_sec), entries/s and per-cycle latency. With --pipeline P each consumer sends
//          P reads at once, then their P XACKs at once (latency is then per batch of P).
//   pubsub R subscribers (`--readers`) over `--channels` channels (subscriber i on channel
//          i % channels), N publishers (`--clients`) each looping PUBLISH of a 64-byte payload
//          carrying its send time to the next channel, `--pipeline` in flight, for `--seconds`;
//          reports deliveries/s (messages received by subscribers), publishes/s and
//          PUBLISH-to-delivery latency.
//
// Command templates: `__rand__` is replaced by a random integer in [1, keyspace], `__seq__` by
// a counter that increases by one per command sent (1, 2, 3...), `__client__` by the
// connection's index, and `__cursor__` by the first element of that connection's previous reply
// ("0-0" at first and whenever the reply's cursor is "0-0"): it walks XAUTOCLAIM/SCAN cursors
// (needs --pipeline 1).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

struct Options {
  std::string host = "127.0.0.1";
  int port = 6379;
  int clients = 50;
  int pipeline = 1;
  long long requests = 100000;
  long long keyspace = 1000000;
  std::string mode = "load";
  int readers = 200;
  double seconds = 5;
  long long rate = 2000;  // producer XADDs per second in fanout mode
  std::string key = "bench:stream";
  std::string group = "g";
  int count = 10;                // XREADGROUP COUNT in consume mode
  int read_count = 0;            // fanout mode: XREAD COUNT (0: no COUNT)
  int slice_ms = 0;              // fanout mode: produce for this long, then pause (0: never pause)
  int pause_ms = 250;            // fanout mode: how long a pause lasts
  long long report_late_us = 0;  // fanout mode: print each delivery later than this (0: none)
  int channels = 1;              // pubsub mode
  std::vector<std::string> command;
};

int64_t now_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

int connect_to(const Options& o) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(o.port));
  inet_pton(AF_INET, o.host.c_str(), &a.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    perror("connect");
    std::exit(1);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// A connection whose readability epoll set `ep` reports with data `tag`.
int connect_watched(const Options& o, int ep, uint64_t tag) {
  int fd = connect_to(o);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = tag;
  epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  return fd;
}

void append_command(std::string& out, const std::vector<std::string>& argv) {
  out += "*" + std::to_string(argv.size()) + "\r\n";
  for (auto& a : argv) {
    out += "$" + std::to_string(a.size()) + "\r\n";
    out += a;
    out += "\r\n";
  }
}

// The leading (optionally negative) decimal integer of `s`, as atoll reads it, without the
// std::string atoll needs: the reply parsers call this for every header they pass, and with
// 1,000 subscribers the load generator's allocations capped what it could read.
long long to_ll(std::string_view s) {
  std::size_t i = 0;
  bool neg = i < s.size() && s[i] == '-';
  if (neg) ++i;
  long long v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) v = v * 10 + (s[i] - '0');
  return neg ? -v : v;
}

// Returns the length of one complete RESP reply at the front of `s`, or 0 if incomplete.
// `first_error` is set when the top-level reply is an error.
std::size_t reply_length(std::string_view s, std::size_t pos = 0) {
  if (pos >= s.size()) return 0;
  std::size_t eol = s.find("\r\n", pos);
  if (eol == std::string_view::npos) return 0;
  char t = s[pos];
  long long n = to_ll(s.substr(pos + 1, eol - pos - 1));
  std::size_t next = eol + 2;
  switch (t) {
    case '$':
    case '=':
    case '!':
      if (n < 0) return next - pos;
      if (s.size() < next + static_cast<std::size_t>(n) + 2) return 0;
      return next + static_cast<std::size_t>(n) + 2 - pos;
    case '*':
    case '~':
    case '>':
    case '%': {
      if (n < 0) return next - pos;
      long long elems = t == '%' ? n * 2 : n;
      std::size_t p = next;
      for (long long i = 0; i < elems; ++i) {
        std::size_t len = reply_length(s, p);
        if (!len) return 0;
        p += len;
      }
      return p - pos;
    }
    default:
      return next - pos;
  }
}

long long g_seq = 0;  // __seq__: 1, 2, 3... across all commands sent

void replace_all(std::string& s, std::string_view what, std::string_view with) {
  for (std::size_t at = 0; (at = s.find(what, at)) != std::string::npos; at += with.size()) {
    s.replace(at, what.size(), with);
  }
}

// Per-connection placeholders first (they may not be expanded into a shared batch).
std::string expand(const std::string& tmpl, std::mt19937_64& rng, long long keyspace,
                   std::size_t client, const std::string& cursor) {
  std::string out = tmpl;
  replace_all(out, "__client__", std::to_string(client));
  replace_all(out, "__cursor__", cursor);
  std::size_t at;
  while ((at = out.find("__rand__")) != std::string::npos) {
    out.replace(
        at, 8, std::to_string(1 + static_cast<long long>(rng() % static_cast<uint64_t>(keyspace))));
  }
  if ((at = out.find("__seq__")) != std::string::npos) out.replace(at, 7, std::to_string(++g_seq));
  return out;
}

bool has_placeholder(const std::vector<std::string>& argv) {
  for (auto& a : argv) {
    for (const char* p : {"__rand__", "__seq__", "__client__", "__cursor__"}) {
      if (a.find(p) != std::string::npos) return true;
    }
  }
  return false;
}

struct Conn {
  int fd = -1;
  std::string out;
  std::size_t out_pos = 0;
  std::string in;
  int pending = 0;
  int64_t sent_at = 0;
  std::string last_id = "$";
  std::string cursor = "0-0";
  std::size_t index = 0;
  bool acking = false;  // consume mode: waiting for the XACKs of the previous reads
  int acks_queued = 0;  // consume mode: XACKs built from the replies of this batch of reads
  int cycles = 0;       // consume mode: reads in this batch
};

// The bulk string that starts at `pos` (its "$len" header): {value, position after it}.
std::pair<std::string_view, std::size_t> bulk_at(std::string_view s, std::size_t pos) {
  std::size_t eol = s.find("\r\n", pos);
  long long n = to_ll(s.substr(pos + 1, eol - pos - 1));
  if (s[pos] != '$' || n < 0) return {{}, eol + 2};
  return {s.substr(eol + 2, static_cast<std::size_t>(n)),
          eol + 2 + static_cast<std::size_t>(n) + 2};
}

// The first element of an array reply when it is a bulk string (XAUTOCLAIM's next cursor).
std::string first_bulk(std::string_view r) {
  if (r.empty() || r[0] != '*') return "0-0";
  std::size_t eol = r.find("\r\n");
  auto [v, next] = bulk_at(r, eol + 2);
  (void)next;
  return v.empty() ? "0-0" : std::string(v);
}

// The entry IDs of an XREADGROUP reply of one stream (RESP2): *1 [*2 [key, *N [*2 [id, *f]]]].
std::vector<std::string> entry_ids(std::string_view r) {
  std::vector<std::string> ids;
  if (r.size() < 4 || r[0] != '*' || r[1] == '-') return ids;
  std::size_t p = r.find("\r\n") + 2;  // at *2 of the stream
  p = r.find("\r\n", p) + 2;           // at the key
  p = bulk_at(r, p).second;            // at *N
  std::size_t eol = r.find("\r\n", p);
  long long n = to_ll(r.substr(p + 1, eol - p - 1));
  p = eol + 2;
  for (long long i = 0; i < n; ++i) {
    p = r.find("\r\n", p) + 2;  // past the entry's *2
    auto [id, next] = bulk_at(r, p);
    ids.emplace_back(id);
    p = next + reply_length(r, next);  // past the field array (or a null for a deleted entry)
  }
  return ids;
}

void write_all(Conn& c) {
  while (c.out_pos < c.out.size()) {
    ssize_t n = write(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos);
    if (n <= 0) return;
    c.out_pos += static_cast<std::size_t>(n);
  }
  c.out.clear();
  c.out_pos = 0;
}

double percentile(std::vector<int64_t>& v, double p) {
  if (v.empty()) return 0;
  std::size_t i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(i), v.end());
  return static_cast<double>(v[i]);
}

// Connects every connection, calls start(c) on each, then feeds what each one reads into
// on_data(c) until finished() holds. Returns 0, or 1 on a timeout or a closed connection.
template <typename Start, typename OnData, typename Finished>
int drive(const Options& o, std::vector<Conn>& conns, Start start, OnData on_data,
          Finished finished) {
  int ep = epoll_create1(0);
  for (std::size_t i = 0; i < conns.size(); ++i) {
    conns[i].fd = connect_to(o);
    conns[i].index = i;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
  }
  for (auto& c : conns) start(c);
  std::vector<epoll_event> events(conns.size());
  char buf[1 << 16];
  while (!finished()) {
    int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), 5000);
    if (n <= 0) {
      std::fprintf(stderr, "timeout waiting for replies\n");
      return 1;
    }
    for (int i = 0; i < n; ++i) {
      Conn& c = conns[events[i].data.u64];
      ssize_t r = read(c.fd, buf, sizeof buf);
      if (r <= 0) {
        std::fprintf(stderr, "connection closed\n");
        return 1;
      }
      c.in.append(buf, static_cast<std::size_t>(r));
      on_data(c);
    }
  }
  return 0;
}

int run_load(const Options& o) {
  std::mt19937_64 rng(42);
  bool templ = has_placeholder(o.command);
  std::string fixed;
  if (!templ) {
    for (int i = 0; i < o.pipeline; ++i) append_command(fixed, o.command);
  }
  std::vector<Conn> conns(static_cast<std::size_t>(o.clients));
  long long issued = 0, done = 0, errors = 0;
  std::vector<int64_t> lat;
  lat.reserve(static_cast<std::size_t>(o.requests / o.pipeline + 16));
  auto send_batch = [&](Conn& c) {
    int n = static_cast<int>(std::min<long long>(o.pipeline, o.requests - issued));
    if (n <= 0) return;
    if (!templ && n == o.pipeline) {
      c.out += fixed;
    } else {
      for (int i = 0; i < n; ++i) {
        std::vector<std::string> argv;
        for (auto& a : o.command) argv.push_back(expand(a, rng, o.keyspace, c.index, c.cursor));
        append_command(c.out, argv);
      }
    }
    issued += n;
    c.pending = n;
    c.sent_at = now_us();
    write_all(c);
  };
  bool walks_cursor = false;
  for (auto& a : o.command) walks_cursor |= a.find("__cursor__") != std::string::npos;
  int64_t t0 = now_us();
  auto on_data = [&](Conn& c) {
    std::size_t pos = 0;
    while (c.pending > 0) {
      std::size_t len = reply_length(c.in, pos);
      if (!len) break;
      if (c.in[pos] == '-') ++errors;
      if (walks_cursor) c.cursor = first_bulk(std::string_view(c.in).substr(pos, len));
      pos += len;
      --c.pending;
      ++done;
    }
    c.in.erase(0, pos);
    if (c.pending == 0) {
      lat.push_back(now_us() - c.sent_at);
      send_batch(c);
    }
  };
  if (drive(o, conns, send_batch, on_data, [&] { return done >= o.requests; }) != 0) return 1;
  double secs = static_cast<double>(now_us() - t0) / 1e6;
  std::printf(
      "{\"mode\":\"load\",\"ops_per_sec\":%.1f,\"requests\":%lld,\"errors\":%lld,"
      "\"p50_us\":%.0f,\"p99_us\":%.0f,\"seconds\":%.3f}\n",
      static_cast<double>(done) / secs, done, errors, percentile(lat, 0.5), percentile(lat, 0.99),
      secs);
  return errors ? 2 : 0;
}

int run_consume(const Options& o) {
  std::vector<Conn> conns(static_cast<std::size_t>(o.clients));
  long long issued = 0, done = 0, entries = 0, errors = 0;
  std::vector<int64_t> lat;
  // A cycle is one XREADGROUP and the XACK of what it got. With --pipeline P a connection sends
  // P reads at once, then the P XACKs (of the reads that got entries) at once.
  auto read_next = [&](Conn& c) {
    long long n = std::min<long long>(o.pipeline, o.requests - issued);
    if (n <= 0) return;
    issued += n;
    c.acking = false;
    c.pending = static_cast<int>(n);
    c.cycles = static_cast<int>(n);
    c.sent_at = now_us();
    for (long long i = 0; i < n; ++i) {
      append_command(c.out, {"XREADGROUP", "GROUP", o.group, "c" + std::to_string(c.index), "COUNT",
                             std::to_string(o.count), "STREAMS", o.key, ">"});
    }
    write_all(c);
  };
  int64_t t0 = now_us();
  auto on_data = [&](Conn& c) {
    std::size_t pos = 0;
    while (c.pending > 0) {
      std::size_t len = reply_length(c.in, pos);
      if (!len) break;
      std::string_view reply = std::string_view(c.in).substr(pos, len);
      if (reply[0] == '-') ++errors;
      if (!c.acking) {
        std::vector<std::string> ids = entry_ids(reply);
        if (!ids.empty()) {
          std::vector<std::string> ack = {"XACK", o.key, o.group};
          ack.insert(ack.end(), ids.begin(), ids.end());
          entries += static_cast<long long>(ids.size());
          append_command(c.out, ack);
          ++c.acks_queued;
        }
      }
      pos += len;
      --c.pending;
    }
    c.in.erase(0, pos);
    if (c.pending > 0) return;
    if (!c.acking && c.acks_queued > 0) {
      c.acking = true;
      c.pending = c.acks_queued;
      c.acks_queued = 0;
      write_all(c);
      return;
    }
    // The XACKs were answered, or the stream ran dry: the cycles end.
    done += c.cycles;
    lat.push_back(now_us() - c.sent_at);
    read_next(c);
  };
  if (drive(o, conns, read_next, on_data, [&] { return done >= o.requests; }) != 0) return 1;
  double secs = static_cast<double>(now_us() - t0) / 1e6;
  std::printf(
      "{\"mode\":\"consume\",\"ops_per_sec\":%.1f,\"entries_per_sec\":%.1f,\"cycles\":%lld,"
      "\"errors\":%lld,\"p50_us\":%.0f,\"p99_us\":%.0f,\"seconds\":%.3f}\n",
      static_cast<double>(done) / secs, static_cast<double>(entries) / secs, done, errors,
      percentile(lat, 0.5), percentile(lat, 0.99), secs);
  return errors ? 2 : 0;
}

int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// read() that also returns, in `stamp_us` (CLOCK_REALTIME µs), when the last bytes read reached
// the socket, if the socket has SO_TIMESTAMPNS on (else -1).
ssize_t read_stamped(int fd, char* buf, std::size_t len, int64_t& stamp_us) {
  iovec iov{buf, len};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t r = recvmsg(fd, &msg, 0);
  stamp_us = -1;
  for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); r > 0 && cm; cm = CMSG_NXTHDR(&msg, cm)) {
    if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
      timespec ts{};
      std::memcpy(&ts, CMSG_DATA(cm), sizeof ts);
      stamp_us = static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
    }
  }
  return r;
}

// Extracts the last "ms-seq" id and every "ts" value from an XREAD reply.
void scan_xread_reply(std::string_view r, std::string& last_id, std::vector<int64_t>& ts) {
  std::size_t p = 0;
  bool next_is_ts = false;
  while ((p = r.find('$', p)) != std::string_view::npos) {
    std::size_t eol = r.find("\r\n", p);
    if (eol == std::string_view::npos) break;
    long long n = to_ll(r.substr(p + 1, eol - p - 1));
    if (n < 0) {
      p = eol + 2;
      continue;
    }
    std::string_view v = r.substr(eol + 2, static_cast<std::size_t>(n));
    p = eol + 2 + static_cast<std::size_t>(n) + 2;
    if (next_is_ts) {
      ts.push_back(to_ll(v));
      next_is_ts = false;
    } else if (v == "ts") {
      next_is_ts = true;
    } else if (!v.empty() && v.find('-') != std::string_view::npos &&
               std::isdigit(static_cast<unsigned char>(v[0]))) {
      last_id = std::string(v);
    }
  }
}

int run_fanout(const Options& o) {
  int ep = epoll_create1(0);
  std::vector<Conn> readers(static_cast<std::size_t>(o.readers));
  auto arm = [&](Conn& c) {
    std::vector<std::string> cmd = {"XREAD"};
    if (o.read_count > 0) cmd.insert(cmd.end(), {"COUNT", std::to_string(o.read_count)});
    cmd.insert(cmd.end(), {"BLOCK", "0", "STREAMS", o.key, c.last_id});
    append_command(c.out, cmd);
    write_all(c);
  };
  for (std::size_t i = 0; i < readers.size(); ++i) {
    readers[i].fd = connect_watched(o, ep, i);
    int one = 1;
    setsockopt(readers[i].fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
    arm(readers[i]);
  }
  usleep(200000);  // let every reader block
  Conn prod;
  prod.fd = connect_to(o);
  epoll_event pev{};
  pev.events = EPOLLIN;
  pev.data.u64 = readers.size();
  epoll_ctl(ep, EPOLL_CTL_ADD, prod.fd, &pev);

  std::vector<int64_t> lat, sock_lat;
  long long deliveries = 0, produced = 0, waits = 0;
  // Per XADD, keyed by the send time it carries: when it was acknowledged, first and last seen.
  struct Round {
    int64_t ack = -1, first = -1, last = -1;
  };
  std::unordered_map<int64_t, Round> rounds;
  int64_t in_flight_ts = 0;
  int64_t t0 = now_us();
  int64_t end = t0 + static_cast<int64_t>(o.seconds * 1e6);
  int64_t interval = o.rate > 0 ? 1000000 / o.rate : 0;
  int64_t next_send = t0;
  bool prod_waiting = false;
  std::vector<epoll_event> events(readers.size() + 1);
  char buf[1 << 16];
  int64_t slice_end = o.slice_ms > 0 ? t0 + o.slice_ms * 1000LL : end;
  while (now_us() < end) {
    int64_t now = now_us();
    if (now >= slice_end && !prod_waiting) {
      // The end of a slice (as when a harness alternates servers): take what is ready now, then
      // read nothing for the pause. Deliveries the server had not sent by the time the last
      // XADD was acknowledged wait for the next slice.
      int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), 0);
      if (n <= 0) {
        usleep(static_cast<useconds_t>(o.pause_ms) * 1000);
        now = now_us();
        slice_end = now + o.slice_ms * 1000LL;
        next_send = now;
      }
    }
    if (!prod_waiting && now >= next_send && now < slice_end) {
      in_flight_ts = now_us();
      rounds.emplace(in_flight_ts, Round{});
      append_command(prod.out, {"XADD", o.key, "*", "ts", std::to_string(in_flight_ts)});
      write_all(prod);
      prod_waiting = true;
      ++produced;
      next_send += interval;
    }
    int timeout_ms =
        prod_waiting ? 10 : static_cast<int>(std::max<int64_t>(0, (next_send - now) / 1000));
    int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), timeout_ms);
    if (n > 0) ++waits;
    // Receive timestamps are CLOCK_REALTIME; the entries carry steady-clock microseconds.
    int64_t realtime_ahead_ns = realtime_ns() - now_us() * 1000;
    for (int i = 0; i < n; ++i) {
      std::size_t idx = events[i].data.u64;
      Conn& c = idx == readers.size() ? prod : readers[idx];
      int64_t arrived_us = -1;
      ssize_t r = read_stamped(c.fd, buf, sizeof buf, arrived_us);
      if (arrived_us >= 0) arrived_us -= realtime_ahead_ns / 1000;
      if (r <= 0) {
        std::fprintf(stderr, "connection closed\n");
        return 1;
      }
      c.in.append(buf, static_cast<std::size_t>(r));
      std::size_t len;
      while ((len = reply_length(c.in)) != 0) {
        if (&c == &prod) {
          prod_waiting = false;
          rounds[in_flight_ts].ack = now_us() - in_flight_ts;
        } else {
          std::vector<int64_t> ts;
          scan_xread_reply(std::string_view(c.in).substr(0, len), c.last_id, ts);
          int64_t t = now_us();
          for (int64_t s : ts) {
            lat.push_back(t - s);
            if (arrived_us >= 0) sock_lat.push_back(arrived_us - s);
            Round& rd = rounds[s];
            if (rd.first < 0) rd.first = t - s;
            rd.last = t - s;
            if (o.report_late_us > 0 && t - s > o.report_late_us) {
              std::fprintf(stderr, "late reader=%zu lat_us=%lld at_ms=%lld entries=%zu\n", idx,
                           static_cast<long long>(t - s), static_cast<long long>((t - t0) / 1000),
                           ts.size());
            }
          }
          deliveries += static_cast<long long>(ts.size());
          arm(c);
        }
        c.in.erase(0, len);
      }
    }
  }
  double secs = static_cast<double>(now_us() - t0) / 1e6;
  std::vector<int64_t> acks, firsts, lasts;
  for (const auto& [ts, rd] : rounds) {
    if (rd.ack >= 0) acks.push_back(rd.ack);
    if (rd.first >= 0) firsts.push_back(rd.first);
    if (rd.last >= 0) lasts.push_back(rd.last);
  }
  std::printf(
      "{\"mode\":\"fanout\",\"readers\":%d,\"produced\":%lld,\"deliveries_per_sec\":%.1f,"
      "\"p50_us\":%.0f,\"p99_us\":%.0f,\"p999_us\":%.0f,\"max_us\":%.0f,\"ack_us\":%.0f,"
      "\"first_us\":%.0f,\"last_us\":%.0f,\"waits_per_round\":%.1f,\"sock_p50_us\":%.0f,"
      "\"sock_p99_us\":%.0f,\"sock_p999_us\":%.0f,\"seconds\":%.3f}\n",
      o.readers, produced, static_cast<double>(deliveries) / secs, percentile(lat, 0.5),
      percentile(lat, 0.99), percentile(lat, 0.999), percentile(lat, 1.0), percentile(acks, 0.5),
      percentile(firsts, 0.5), percentile(lasts, 0.5),
      produced ? static_cast<double>(waits) / static_cast<double>(produced) : 0.0,
      percentile(sock_lat, 0.5), percentile(sock_lat, 0.99), percentile(sock_lat, 0.999), secs);
  return 0;
}

// The payload of every "message" frame at the front of `in` (RESP2: *3 message channel payload),
// consumed; the payloads start with the publish time in microseconds.
void take_messages(std::string& in, std::vector<int64_t>& sent_us) {
  std::size_t pos = 0, len;
  while ((len = reply_length(in, pos)) != 0) {
    std::size_t p = in.find("\r\n", pos) + 2;
    auto [kind, after_kind] = bulk_at(in, p);
    if (kind == "message") {
      auto [channel, after_channel] = bulk_at(in, after_kind);
      (void)channel;
      auto [payload, end] = bulk_at(in, after_channel);
      (void)end;
      sent_us.push_back(to_ll(payload.substr(0, 20)));
    }
    pos += len;
  }
  in.erase(0, pos);
}

int run_pubsub(const Options& o) {
  int ep = epoll_create1(0);
  std::size_t nsub = static_cast<std::size_t>(o.readers);
  std::size_t npub = static_cast<std::size_t>(o.clients);
  std::vector<Conn> conns(nsub + npub);
  auto channel = [&](std::size_t i) { return "bench:ch:" + std::to_string(i % o.channels); };
  for (std::size_t i = 0; i < conns.size(); ++i) conns[i].fd = connect_watched(o, ep, i);
  // Subscribe everyone and wait for every confirmation before publishing.
  char buf[1 << 16];
  for (std::size_t i = 0; i < nsub; ++i) {
    append_command(conns[i].out, {"SUBSCRIBE", channel(i)});
    write_all(conns[i]);
    while (reply_length(conns[i].in) == 0) {
      ssize_t r = read(conns[i].fd, buf, sizeof buf);
      if (r <= 0) return 1;
      conns[i].in.append(buf, static_cast<std::size_t>(r));
    }
    conns[i].in.erase(0, reply_length(conns[i].in));
  }
  long long published = 0, deliveries = 0;
  std::vector<int64_t> lat, sent;
  auto publish = [&](Conn& c) {
    std::string payload = std::to_string(now_us());
    payload.resize(64, 'x');
    append_command(c.out, {"PUBLISH", channel(c.index++), payload});
    ++c.pending;
  };
  for (std::size_t j = 0; j < npub; ++j) {
    Conn& c = conns[nsub + j];
    c.index = j;
    for (int k = 0; k < o.pipeline; ++k) publish(c);
    write_all(c);
  }
  int64_t t0 = now_us();
  int64_t end = t0 + static_cast<int64_t>(o.seconds * 1e6);
  std::vector<epoll_event> events(conns.size());
  while (now_us() < end) {
    int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), 100);
    for (int i = 0; i < n; ++i) {
      std::size_t idx = events[i].data.u64;
      Conn& c = conns[idx];
      ssize_t r = read(c.fd, buf, sizeof buf);
      if (r <= 0) {
        std::fprintf(stderr, "connection closed\n");
        return 1;
      }
      c.in.append(buf, static_cast<std::size_t>(r));
      if (idx < nsub) {
        sent.clear();
        take_messages(c.in, sent);
        int64_t t = now_us();
        deliveries += static_cast<long long>(sent.size());
        // Every 16th delivery's latency is kept: enough samples, little memory.
        for (std::size_t k = 0; k < sent.size(); k += 16) lat.push_back(t - sent[k]);
        continue;
      }
      std::size_t len;
      int answered = 0;
      while ((len = reply_length(c.in)) != 0) {
        c.in.erase(0, len);
        ++answered;
      }
      published += answered;
      c.pending -= answered;
      if (now_us() < end) {
        for (int k = 0; k < answered; ++k) publish(c);
        write_all(c);
      }
    }
  }
  double secs = static_cast<double>(now_us() - t0) / 1e6;
  std::printf(
      "{\"mode\":\"pubsub\",\"subscribers\":%zu,\"publishers\":%zu,\"channels\":%d,"
      "\"publishes_per_sec\":%.1f,\"deliveries_per_sec\":%.1f,\"p50_us\":%.0f,"
      "\"p99_us\":%.0f,\"seconds\":%.3f}\n",
      nsub, npub, o.channels, static_cast<double>(published) / secs,
      static_cast<double>(deliveries) / secs, percentile(lat, 0.5), percentile(lat, 0.99), secs);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value for %s\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--") {
      ++i;
      break;
    } else if (a == "--host") {
      o.host = next();
    } else if (a == "--port") {
      o.port = std::atoi(next().c_str());
    } else if (a == "--clients") {
      o.clients = std::atoi(next().c_str());
    } else if (a == "--pipeline") {
      o.pipeline = std::atoi(next().c_str());
    } else if (a == "--requests") {
      o.requests = std::atoll(next().c_str());
    } else if (a == "--keyspace") {
      o.keyspace = std::atoll(next().c_str());
    } else if (a == "--mode") {
      o.mode = next();
    } else if (a == "--readers") {
      o.readers = std::atoi(next().c_str());
    } else if (a == "--seconds") {
      o.seconds = std::atof(next().c_str());
    } else if (a == "--rate") {
      o.rate = std::atoll(next().c_str());
    } else if (a == "--key") {
      o.key = next();
    } else if (a == "--group") {
      o.group = next();
    } else if (a == "--count") {
      o.count = std::atoi(next().c_str());
    } else if (a == "--report-late-us") {
      o.report_late_us = std::atoll(next().c_str());
    } else if (a == "--slice-ms") {
      o.slice_ms = std::atoi(next().c_str());
    } else if (a == "--pause-ms") {
      o.pause_ms = std::atoi(next().c_str());
    } else if (a == "--read-count") {
      o.read_count = std::atoi(next().c_str());
    } else if (a == "--channels") {
      o.channels = std::max(1, std::atoi(next().c_str()));
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  for (; i < argc; ++i) o.command.emplace_back(argv[i]);
  if (o.mode == "fanout") return run_fanout(o);
  if (o.mode == "consume") return run_consume(o);
  if (o.mode == "pubsub") return run_pubsub(o);
  if (o.command.empty()) {
    std::fprintf(stderr, "usage: streamd-loadgen [options] -- COMMAND ARGS...\n");
    return 2;
  }
  return run_load(o);
}
