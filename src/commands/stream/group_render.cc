#include "streamd/commands/stream/group_render.h"

#include "streamd/commands/core/error_text.h"
#include "streamd/commands/stream/dead_letters.h"
#include "streamd/commands/stream/support.h"

namespace streamd::cmd {

using engine::StreamId;

void write_delivery(resp::ReplyWriter& w, const engine::DeliveryBatch& batch, bool justid) {
  w.array(batch.size());
  for (const auto& e : batch) {
    if (justid) {
      write_id(w, e.id);
    } else if (e.deleted) {
      w.array(2);
      write_id(w, e.id);
      w.null_array();
    } else {
      write_entry(w, e.id, e.fields);
    }
  }
}

void write_claim_delivery(resp::ReplyWriter& w, const engine::DeliveryBatch& claimed,
                          const engine::DeliveryBatch& fresh) {
  w.array(claimed.size() + fresh.size());
  for (const engine::DeliveryBatch* b : {&claimed, &fresh}) {
    for (const auto& e : *b) {
      w.array(4);
      write_id(w, e.id);
      w.array(2 * e.fields.size());
      for (const auto& fv : e.fields) {
        w.bulk(fv.field);
        w.bulk(fv.value);
      }
      w.integer(e.idle_ms);
      w.integer(static_cast<long long>(e.previous_count));
    }
  }
}

namespace {

void write_nullable(resp::ReplyWriter& w, const std::optional<int64_t>& v) {
  if (v) {
    w.integer(*v);
  } else {
    w.null();
  }
}

}  // namespace

void write_groups_summary(Context& ctx, const engine::Stream& s) {
  resp::ReplyWriter& w = ctx.reply;
  w.array(s.groups().size());
  s.groups().for_each([&](const engine::ConsumerGroup& g) {
    engine::GroupInfo gi = g.info(s);
    w.map(6 + dead_letter_info_pairs(g));
    w.bulk("name");
    w.bulk(gi.name);
    w.bulk("consumers");
    w.integer(static_cast<long long>(gi.consumers));
    w.bulk("pending");
    w.integer(static_cast<long long>(gi.pending));
    w.bulk("last-delivered-id");
    write_id(w, gi.last_delivered_id);
    w.bulk("entries-read");
    write_nullable(w, gi.entries_read);
    w.bulk("lag");
    write_nullable(w, gi.lag);
    write_dead_letter_info(w, g);  // streamd's dead-letter policy, only for groups with one
  });
}

void write_consumers(Context& ctx, const engine::Stream& s, std::string_view group) {
  const engine::ConsumerGroup* g = s.groups().find(group);
  if (!g) {
    ctx.reply.error(errors::nogroup_for_key(ctx.arg(2), group));
    return;
  }
  resp::ReplyWriter& w = ctx.reply;
  std::vector<engine::ConsumerInfo> infos = g->consumers_info();
  w.array(infos.size());
  for (const auto& ci : infos) {
    // Redis 7.2+: idle counts from the last attempted interaction, inactive from the last
    // successful one (-1 if the consumer never got anything).
    int64_t idle = ctx.now_ms - ci.seen_time_ms;
    int64_t inactive = ci.active_time_ms < 0 ? -1 : ctx.now_ms - ci.active_time_ms;
    w.map(4);
    w.bulk("name");
    w.bulk(ci.name);
    w.bulk("pending");
    w.integer(static_cast<long long>(ci.pending));
    w.bulk("idle");
    w.integer(idle < 0 ? 0 : idle);
    w.bulk("inactive");
    w.integer(inactive);
  }
}

void write_groups_full(Context& ctx, const engine::Stream& s, std::size_t count) {
  resp::ReplyWriter& w = ctx.reply;
  w.array(s.groups().size());
  s.groups().for_each([&](const engine::ConsumerGroup& g) {
    engine::GroupFullInfo fi = g.full_info(s, count);
    w.map(8 + dead_letter_info_pairs(g));
    w.bulk("name");
    w.bulk(fi.info.name);
    w.bulk("last-delivered-id");
    write_id(w, fi.info.last_delivered_id);
    w.bulk("entries-read");
    write_nullable(w, fi.info.entries_read);
    w.bulk("lag");
    write_nullable(w, fi.info.lag);
    w.bulk("pel-count");
    w.integer(static_cast<long long>(fi.info.pending));
    w.bulk("pending");
    w.array(fi.pending.size());
    for (const auto& p : fi.pending) {
      w.array(4);
      write_id(w, p.id);
      w.bulk(p.consumer);
      w.integer(p.delivery_time_ms);
      w.integer(static_cast<long long>(p.delivery_count));
    }
    w.bulk("consumers");
    w.array(fi.consumers.size());
    for (const auto& c : fi.consumers) {
      w.map(5);
      w.bulk("name");
      w.bulk(c.info.name);
      w.bulk("seen-time");
      w.integer(c.info.seen_time_ms);
      w.bulk("active-time");
      w.integer(c.info.active_time_ms);
      w.bulk("pel-count");
      w.integer(static_cast<long long>(c.info.pending));
      w.bulk("pending");
      w.array(c.pending.size());
      for (const auto& p : c.pending) {
        w.array(3);
        write_id(w, p.id);
        w.integer(p.delivery_time_ms);
        w.integer(static_cast<long long>(p.delivery_count));
      }
    }
    // Redis 8.8: entries released by XNACK (listed after the consumers, where the XINFO STREAM
    // page adds it).
    w.bulk("nacked-count");
    w.integer(static_cast<long long>(fi.nacked));
    write_dead_letter_info(w, g);
  });
}

}  // namespace streamd::cmd
