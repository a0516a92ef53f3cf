// LATENCY: the latency monitor's events (LATEST, HISTORY, RESET, DOCTOR, GRAPH) and the
// per-command latency histograms (HISTOGRAM), with redis-server's reply shapes. The samples are
// taken by dispatch (command, fast-command), cron (expire-cycle) and the AOF (aof-write,
// aof-fsync-always, fork); see core/latency.h.
#include <malloc.h>

#include <cstdlib>
#include <string>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/context.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/help.h"
#include "streamd/commands/server/latency_report.h"
#include "streamd/commands/server/persistence_commands.h"

namespace streamd::cmd {

namespace {

int64_t now_s(Context& ctx) {
  return ctx.server.clock().now_ms() / 1000;
}

void latency_latest(Context& ctx) {
  const auto& events = ctx.server.stats().latency.events();
  ctx.reply.array(events.size());
  for (const auto& [event, series] : events) {
    const LatencySample& last = series.latest();
    ctx.reply.array(4);
    ctx.reply.bulk(event);
    ctx.reply.integer(last.time_s);
    ctx.reply.integer(last.latency_ms);
    ctx.reply.integer(series.max);
  }
}

void latency_history(Context& ctx) {
  const LatencySeries* series = ctx.server.stats().latency.find(ctx.arg(2));
  if (!series) return ctx.reply.empty_array();
  std::vector<LatencySample> samples = series->in_order();
  ctx.reply.array(samples.size());
  for (const auto& s : samples) {
    ctx.reply.array(2);
    ctx.reply.integer(s.time_s);
    ctx.reply.integer(s.latency_ms);
  }
}

void latency_reset(Context& ctx) {
  LatencyMonitor& lm = ctx.server.stats().latency;
  if (ctx.argc() == 2) return ctx.reply.integer(lm.reset_all());
  long long n = 0;
  for (std::size_t i = 2; i < ctx.argc(); ++i) n += lm.reset(ctx.arg(i));
  ctx.reply.integer(n);
}

void latency_doctor(Context& ctx) {
  auto& cfg = ctx.server.config();
  DoctorFacts f;
  f.threshold_ms = cfg.latency_monitor_threshold();
  f.slowlog_log_slower_than = cfg.slowlog_log_slower_than();
  f.slowlog_max_len = cfg.slowlog_max_len();
  f.fsync_always = cfg.appendfsync() == config::AppendFsync::kAlways;
  f.hz = cfg.hz();
  f.transparent_huge_pages = anon_huge_pages_bytes() > 0;
  // Redis's stat_fork_rate: memory in use over the time the last fork took, in GB/s.
  if (int64_t fork_us = persistence_info(ctx.server).latest_fork_usec; fork_us > 0) {
    struct mallinfo2 mi = mallinfo2();
    f.fork_rate_gb_per_s = static_cast<double>(mi.uordblks + mi.hblkhd) * 1000000.0 /
                           static_cast<double>(fork_us) / (1024.0 * 1024 * 1024);
  }
  ctx.reply.verbatim(latency_doctor_report(ctx.server.stats().latency, f, now_s(ctx)));
}

void latency_graph_cmd(Context& ctx) {
  const auto& events = ctx.server.stats().latency.events();
  auto it = events.find(ctx.arg(2));
  if (it == events.end()) return ctx.reply.error(errors::latency_no_samples(ctx.arg(2)));
  ctx.reply.verbatim(latency_graph(it->first, it->second, now_s(ctx)));
}

// {calls: n, histogram_usec: {bound: cumulative count, ...}}
void write_histogram(Context& ctx, const LatencyHistogram& h) {
  ctx.reply.map(2);
  ctx.reply.bulk("calls");
  ctx.reply.integer(static_cast<long long>(h.total()));
  ctx.reply.bulk("histogram_usec");
  auto buckets = h.log2_buckets();
  ctx.reply.map(buckets.size());
  for (const auto& [usec, count] : buckets) {
    ctx.reply.integer(usec);
    ctx.reply.integer(static_cast<long long>(count));
  }
}

// Writes the histogram of `spec` (if it has one) and of each of its subcommands; returns how
// many were written.
std::size_t write_command_histograms(Context& ctx, const CommandSpec& spec) {
  const auto& stats = ctx.server.stats().commands;
  std::size_t n = 0;
  auto one = [&](const CommandSpec& s) {
    auto it = stats.find(s.full_name);
    if (it == stats.end() || !it->second.histogram) return;
    ctx.reply.bulk(s.full_name);
    write_histogram(ctx, *it->second.histogram);
    ++n;
  };
  one(spec);
  for (const auto& sub : spec.subcommands) one(sub);
  return n;
}

void latency_histogram(Context& ctx) {
  auto d = ctx.reply.defer();
  std::size_t n = 0;
  if (ctx.argc() == 2) {
    // Every histogram, in name order (the stats map's), each once.
    for (const auto& [name, cs] : ctx.server.stats().commands) {
      if (!cs.histogram) continue;
      ctx.reply.bulk(name);
      write_histogram(ctx, *cs.histogram);
      ++n;
    }
  } else {
    // As Redis: unknown names are skipped, a name given twice is answered twice.
    for (std::size_t i = 2; i < ctx.argc(); ++i) {
      if (const CommandSpec* spec = CommandTable::instance().find_full_name(ctx.arg(i))) {
        n += write_command_histograms(ctx, *spec);
      }
    }
  }
  ctx.reply.end_map(d, n);
}

void latency_help(Context& ctx) {
  reply_help(ctx.reply, "LATENCY",
             {
                 "DOCTOR",
                 "    Return a human readable latency analysis report.",
                 "GRAPH <event>",
                 "    Return an ASCII latency graph for the <event> class.",
                 "HISTORY <event>",
                 "    Return time-latency samples for the <event> class.",
                 "LATEST",
                 "    Return the latest latency samples for all events.",
                 "RESET [<event> ...]",
                 "    Reset latency data of one or more <event> classes.",
                 "    (default: reset all data for all event classes)",
                 "HISTOGRAM [COMMAND ...]",
                 "    Return a cumulative distribution of latencies in the format of a histogram "
                 "for the specified command names.",
                 "    If no commands are specified then all histograms are replied.",
             });
}

}  // namespace

void register_latency_commands(CommandTable& t) {
  t.add({.name = "latency",
         .arity = -2,
         .flags = 0,
         .acl_categories = "slow",
         .first_key = 0,
         .last_key = 0,
         .step = 0,
         .handler = nullptr,
         .subcommands =
             {
                 {"doctor", 2, kAdminFlags, kAdminAcl, 0, 0, 0, latency_doctor},
                 {"graph", 3, kAdminFlags, kAdminAcl, 0, 0, 0, latency_graph_cmd},
                 {"help", 2, kLoading | kStale, "slow", 0, 0, 0, latency_help},
                 {"histogram", -2, kAdminFlags, kAdminAcl, 0, 0, 0, latency_histogram},
                 {"history", 3, kAdminFlags, kAdminAcl, 0, 0, 0, latency_history},
                 {"latest", 2, kAdminFlags, kAdminAcl, 0, 0, 0, latency_latest},
                 {"reset", -2, kAdminFlags, kAdminAcl, 0, 0, 0, latency_reset},
             },
         .group = "server"});
}

}  // namespace streamd::cmd
