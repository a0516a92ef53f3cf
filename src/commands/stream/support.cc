#include "streamd/commands/stream/support.h"

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/keyspace/keyspace_support.h"
#include "streamd/engine/consumer_group.h"

namespace streamd::cmd {

using engine::Stream;
using engine::StreamId;

engine::StreamLimits configured_stream_limits(Context& ctx) {
  auto& cfg = ctx.server.config();
  return engine::StreamLimits{static_cast<uint64_t>(cfg.stream_node_max_entries()),
                              static_cast<uint64_t>(cfg.stream_node_max_bytes())};
}

Stream* find_stream(Context& ctx, std::string_view key, bool& replied, StreamLookup how) {
  replied = false;
  engine::Entry* e = how == StreamLookup::kRead ? lookup_read(ctx, key) : ctx.db().find(key);
  if (!e) return nullptr;
  if (!e->value.is_stream()) {
    ctx.reply.error(errors::kWrongType);
    replied = true;
    return nullptr;
  }
  return &e->value.stream();
}

void repeat_read_lookup(Context& ctx, std::string_view key, bool found) {
  if (found) {
    ++ctx.server.stats().keyspace_hits;
  } else {
    ++ctx.server.stats().keyspace_misses;
    ctx.notify(events::kKeyMiss, key);
  }
}

Stream* existing_stream(Context& ctx, std::string_view key, StreamLookup how) {
  bool replied = false;
  Stream* s = find_stream(ctx, key, replied, how);
  if (!s && !replied) ctx.reply.error(errors::kNoSuchKey);
  return s;
}

Stream* find_or_create_stream(Context& ctx, std::string_view key, bool create, bool& replied) {
  Stream* s = find_stream(ctx, key, replied);
  if (s || replied || !create) return s;
  auto fresh = std::make_unique<Stream>(configured_stream_limits(ctx));
  engine::Entry& e = ctx.db().set(key, engine::Value(std::move(fresh)));
  return &e.value.stream();
}

void write_id(resp::ReplyWriter& w, StreamId id) {
  char buf[StreamId::kMaxTextSize];
  std::size_t n = id.format(buf);
  w.bulk(std::string_view(buf, n));
}

void write_entry(resp::ReplyWriter& w, StreamId id, std::span<const engine::FieldValue> fields) {
  w.array(2);
  write_id(w, id);
  w.array(fields.size() * 2);
  for (const auto& fv : fields) {
    w.bulk(fv.field);
    w.bulk(fv.value);
  }
}

std::size_t write_range(resp::ReplyWriter& w, const Stream& s, StreamId start, StreamId end,
                        std::size_t count, engine::Direction dir) {
  auto d = w.defer();
  std::size_t n = s.range(
      start, end, count, dir,
      [&](StreamId id, std::span<const engine::FieldValue> fields) { write_entry(w, id, fields); });
  w.end_array(d, n);
  return n;
}

bool parse_strict_id_or_reply(Context& ctx, std::string_view arg, StreamId& out,
                              uint64_t missing_seq) {
  auto r = engine::parse_strict_id(arg, missing_seq);
  if (!r) {
    ctx.reply.error(errors::text(r.err()));
    return false;
  }
  out = *r;
  return true;
}

bool next_strict_id(ArgCursor& cur, StreamId& out, uint64_t missing_seq) {
  return take_parsed(cur, engine::parse_strict_id(cur.next(), missing_seq), out);
}

std::optional<engine::RefPolicy> match_ref_policy(ArgCursor& cur) {
  if (cur.match("keepref")) return engine::RefPolicy::kKeepRef;
  if (cur.match("delref")) return engine::RefPolicy::kDelRef;
  if (cur.match("acked")) return engine::RefPolicy::kAcked;
  return std::nullopt;
}

uint64_t total_pending(const engine::Stream& s) {
  uint64_t n = 0;
  s.groups().for_each([&](const engine::ConsumerGroup& g) { n += g.pending_count(); });
  return n;
}

bool next_block_timeout(const Context& ctx, ArgCursor& cur, int64_t& deadline_ms) {
  long long v = 0;
  if (!cur.next_int(v, errors::kTimeoutNotInteger) ||
      !cur.require(v >= 0, errors::kTimeoutNegative)) {
    return false;
  }
  if (ctx.rerun_deadline_ms >= 0) {
    deadline_ms = ctx.rerun_deadline_ms;  // a wake-up keeps the deadline it blocked with
  } else {
    deadline_ms = v == 0 ? 0 : ctx.now_ms + v;
  }
  return true;
}

}  // namespace streamd::cmd
