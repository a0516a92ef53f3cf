#include "streamd/commands/server/latency_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace streamd::cmd {

namespace {

// The advice DOCTOR can give, in the order it prints it.
enum Advice : unsigned {
  kBetterVm = 1u << 0,
  kSlowlogEnabled = 1u << 1,
  kSlowlogTuning = 1u << 2,
  kSlowlogInspect = 1u << 3,
  kScheduler = 1u << 4,
  kLocalDisk = 1u << 5,
  kSsd = 1u << 6,
  kDataWriteback = 1u << 7,
  kDiskContention = 1u << 8,
  kRelaxFsync = 1u << 9,
  kHz = 1u << 10,
  kLargeObjects = 1u << 11,
  kDisableThp = 1u << 12,
};

constexpr std::string_view kDisabled =
    "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You "
    "may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we "
    "weren't in a deep space mission I'd suggest to take a look at "
    "https://redis.io/topics/latency-monitor.\n";
constexpr std::string_view kIntro =
    "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, "
    "do you Dave?\n\n";
constexpr std::string_view kNothing =
    "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the "
    "slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think "
    "things over.\n";
constexpr std::string_view kNoFix =
    "\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the "
    "Redis community to get some help, providing this report in your help request.\n";

}  // namespace

uint64_t anon_huge_pages_bytes() {
  std::FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  if (!f) return 0;
  char line[256];
  uint64_t kb = 0;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long long v = 0;
    if (std::sscanf(line, "AnonHugePages: %llu kB", &v) == 1) kb += v;
  }
  std::fclose(f);
  return kb * 1024;
}

std::string latency_doctor_report(const LatencyMonitor& monitor, const DoctorFacts& facts,
                                  int64_t now_s) {
  if (monitor.events().empty() && facts.threshold_ms == 0) return std::string(kDisabled);
  std::string out;
  unsigned advice = 0;
  // Redis counts advices, some twice; only whether there is any matters.
  int advices = 0;
  int n = 0;
  for (const auto& [event, series] : monitor.events()) {
    if (++n == 1) out += kIntro;
    LatencyAnalysis a = monitor.analyze(series, now_s);
    fmt::format_to(std::back_inserter(out),
                   "{}. {}: {} latency spikes (average {}ms, mean deviation {}ms, period {:.2f} "
                   "sec). Worst all time event {}ms.",
                   n, event, a.samples, a.avg, a.mad,
                   a.samples ? static_cast<double>(a.period) / a.samples : 0.0, series.max);
    if (event == "fork") {
      std::string_view quality;
      double rate = facts.fork_rate_gb_per_s;
      if (rate < 25) {
        quality = rate < 10 ? "terrible" : "poor";
        advice |= kBetterVm;
        ++advices;
      } else {
        quality = rate < 100 ? "good" : "excellent";
      }
      fmt::format_to(std::back_inserter(out), " Fork rate is {:.2f} GB/sec ({}).", rate, quality);
    } else if (event == "command") {
      if (facts.slowlog_log_slower_than < 0 || facts.slowlog_max_len == 0) {
        advice |= kSlowlogEnabled;
        ++advices;
      } else if (facts.slowlog_log_slower_than / 1000 > facts.threshold_ms) {
        advice |= kSlowlogTuning;
        ++advices;
      }
      advice |= kSlowlogInspect | kLargeObjects;
      advices += 2;
    } else if (event == "fast-command") {
      advice |= kScheduler;
      ++advices;
    } else if (event == "aof-fsync-always") {
      advice |= kRelaxFsync;
      ++advices;
    } else if (event == "expire-cycle") {
      advice |= kHz | kLargeObjects;
      advices += 2;
    }
    out += '\n';
  }
  if (facts.transparent_huge_pages) {
    advice |= kDisableThp;
    ++advices;
  }
  if (n == 0 && advices == 0) return out + std::string(kNothing);
  if (advices == 0) return out + std::string(kNoFix);

  unsigned long long slowlog_us = static_cast<unsigned long long>(facts.threshold_ms) * 1000;
  out += "\nI have a few advices for you:\n\n";
  if (advice & kBetterVm) {
    out +=
        "- If you are using a virtual machine, consider upgrading it with a faster one using a "
        "hypervisior that provides less latency during fork() calls. Xen is known to have poor "
        "fork() performance. Even in the context of the same VM provider, certain kinds of "
        "instances can execute fork faster than others.\n";
  }
  if (advice & kSlowlogEnabled) {
    fmt::format_to(std::back_inserter(out),
                   "- There are latency issues with potentially slow commands you are using. Try "
                   "to enable the Slow Log Redis feature using the command 'CONFIG SET "
                   "slowlog-log-slower-than {}'. If the Slow log is disabled Redis is not able to "
                   "log slow commands execution for you.\n",
                   slowlog_us);
  }
  if (advice & kSlowlogTuning) {
    fmt::format_to(std::back_inserter(out),
                   "- Your current Slow Log configuration only logs events that are slower than "
                   "your configured latency monitor threshold. Please use 'CONFIG SET "
                   "slowlog-log-slower-than {}'.\n",
                   slowlog_us);
  }
  if (advice & kSlowlogInspect) {
    out +=
        "- Check your Slow Log to understand what are the commands you are running which are too "
        "slow to execute. Please check https://redis.io/commands/slowlog for more information.\n";
  }
  if (advice & kScheduler) {
    out +=
        "- The system is slow to execute Redis code paths not containing system calls. This "
        "usually means the system does not provide Redis CPU time to run for long periods. You "
        "should try to:\n"
        "  1) Lower the system load.\n"
        "  2) Use a computer / VM just for Redis if you are running other software in the same "
        "system.\n"
        "  3) Check if you have a \"noisy neighbour\" problem.\n"
        "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your "
        "system.\n"
        "  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if "
        "you are using Jemalloc. However this may create fragmentation problems.\n";
  }
  if ((advice & kRelaxFsync) && facts.fsync_always) {
    out +=
        "- Your fsync policy is set to 'always'. It is very hard to get good performances with "
        "such a setup, if possible try to relax the fsync policy to 'onesec'.\n";
  }
  if ((advice & kHz) && facts.hz < 100) {
    out +=
        "- In order to make the Redis keys expiring process more incremental, try to set the 'hz' "
        "configuration parameter to 100 using 'CONFIG SET hz 100'.\n";
  }
  if (advice & kLargeObjects) {
    out +=
        "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a "
        "blocking operation. If you have very large objects that are often deleted, expired, or "
        "evicted, try to fragment those objects into multiple smaller objects.\n";
  }
  if (advice & kDisableThp) {
    out +=
        "- I detected a non zero amount of anonymous huge pages used by your process. This creates "
        "very serious latency events in different conditions, especially when Redis is persisting "
        "on disk. To disable THP support use the command 'echo never > "
        "/sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local "
        "so that the command will be executed again after a reboot. Note that even if you have "
        "already disabled THP, you still need to restart the Redis process to get rid of the huge "
        "pages already created.\n";
  }
  return out;
}

// ---- GRAPH ------------------------------------------------------------------------------------

namespace {

constexpr int kGraphColumns = 80;
constexpr int kGraphRows = 4;
// Bars are drawn with three heights per row, filled below the top of each bar.
constexpr std::string_view kFill = "_o#";

struct Point {
  double value;
  std::string label;
};

// One block of up to kGraphColumns samples: kGraphRows rows of bars, a blank row, then the labels
// written top to bottom. Heights are scaled to [min, max] of all the samples.
void render_block(std::string& out, const std::vector<Point>& pts, std::size_t from,
                  std::size_t len, double min, double max) {
  const int steps = static_cast<int>(kFill.size()) * kGraphRows;
  double range = max - min;
  if (range == 0) range = 1;
  std::string row(len, ' ');
  for (int r = 0; r < kGraphRows; ++r) {
    row.assign(len, ' ');
    for (std::size_t j = 0; j < len; ++j) {
      // Truncate the product first, then the quotient (the heights Redis draws).
      int step = static_cast<int>(static_cast<int>((pts[from + j].value - min) * steps) / range);
      step = std::clamp(step, 0, steps - 1);
      int idx = step - (kGraphRows - r - 1) * static_cast<int>(kFill.size());
      if (idx >= static_cast<int>(kFill.size())) {
        row[j] = '|';
      } else if (idx >= 0) {
        row[j] = kFill[static_cast<std::size_t>(idx)];
      }
    }
    out += row;
    out += '\n';
  }
  // Every sample has a label, so the labels follow one blank row.
  out.append(len, ' ');
  out += '\n';
  for (std::size_t c = 0;; ++c) {
    row.assign(len, ' ');
    bool any = false;
    for (std::size_t j = 0; j < len; ++j) {
      const std::string& l = pts[from + j].label;
      if (c < l.size()) {
        row[j] = l[c];
        any = true;
      }
    }
    if (!any) break;
    out += row;
    out += '\n';
  }
}

std::string age_label(int64_t elapsed) {
  if (elapsed < 60) return fmt::format("{}s", elapsed);
  if (elapsed < 3600) return fmt::format("{}m", elapsed / 60);
  if (elapsed < 86400) return fmt::format("{}h", elapsed / 3600);
  return fmt::format("{}d", elapsed / 86400);
}

}  // namespace

std::string latency_graph(std::string_view event, const LatencySeries& series, int64_t now_s) {
  std::vector<Point> pts;
  int64_t lo = 0, hi = 0;
  double vmin = 0, vmax = 0;
  for (const LatencySample& s : series.in_order()) {
    if (pts.empty()) {
      lo = hi = s.latency_ms;
      vmin = vmax = static_cast<double>(s.latency_ms);
    }
    lo = std::min(lo, s.latency_ms);
    hi = std::max(hi, s.latency_ms);
    vmin = std::min(vmin, static_cast<double>(s.latency_ms));
    vmax = std::max(vmax, static_cast<double>(s.latency_ms));
    pts.push_back({static_cast<double>(s.latency_ms), age_label(now_s - s.time_s)});
  }
  std::string out =
      fmt::format("{} - high {} ms, low {} ms (all time high {} ms)\n", event, hi, lo, series.max);
  out.append(kGraphColumns, '-');
  out += '\n';
  for (std::size_t j = 0; j < pts.size(); j += kGraphColumns) {
    if (j != 0) out += '\n';
    render_block(out, pts, j, std::min<std::size_t>(kGraphColumns, pts.size() - j), vmin, vmax);
  }
  return out;
}

}  // namespace streamd::cmd
