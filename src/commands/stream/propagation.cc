#include "streamd/commands/stream/propagation.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <string>
#include <vector>

#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/server.h"
#include "streamd/resp/request_bytes.h"

namespace streamd::cmd {

namespace {

// IDs per XDEL / XACK record of a 7.0 replay: a long ACKED walk becomes several records of one
// unit rather than one command of unbounded size.
constexpr std::size_t kIdsPerRecord = 1000;

std::string num(uint64_t v) {
  return std::to_string(v);
}
std::string num(int64_t v) {
  return std::to_string(v);
}

std::string_view policy_token(engine::RefPolicy p) {
  switch (p) {
    case engine::RefPolicy::kDelRef:
      return "DELREF";
    case engine::RefPolicy::kAcked:
      return "ACKED";
    case engine::RefPolicy::kKeepRef:
      break;
  }
  return {};
}

void propagate_delivery(Context& ctx, std::string_view key, std::string_view group,
                        std::string_view consumer, const engine::GroupEntry& e, bool lastid) {
  if (!e.pending || !ctx.propagating()) return ctx.propagate_nothing();
  std::string id = e.id.to_string();
  std::string time = num(e.delivery_time_ms);
  std::string count = num(e.delivery_count);
  if (lastid) {
    ctx.propagate({"XCLAIM", key, group, consumer, "0", id, "TIME", time, "RETRYCOUNT", count,
                   "FORCE", "JUSTID", "LASTID", id});
  } else {
    ctx.propagate({"XCLAIM", key, group, consumer, "0", id, "TIME", time, "RETRYCOUNT", count,
                   "FORCE", "JUSTID"});
  }
}

void propagate_group_position(Context& ctx, std::string_view key, const engine::ConsumerGroup& g) {
  if (!ctx.propagating()) return ctx.propagate_nothing();
  std::string last = g.last_delivered_id().to_string();
  std::string read = num(g.entries_read());
  ctx.propagate({"XGROUP", "SETID", key, g.name(), last, "ENTRIESREAD", read});
}

void propagate_create_consumer(Context& ctx, std::string_view key, std::string_view group,
                               std::string_view consumer) {
  ctx.notify(events::kXgroupCreateConsumer, key);
  if (!ctx.propagating()) return ctx.propagate_nothing();
  ctx.propagate({"XGROUP", "CREATECONSUMER", key, group, consumer});
}

void propagate_pel_drop(Context& ctx, std::string_view key, std::string_view group,
                        engine::StreamId id) {
  if (!ctx.propagating()) return ctx.propagate_nothing();
  std::string text = id.to_string();
  ctx.propagate({"XACK", key, group, text});
}

// `head...` followed by `ids`, kIdsPerRecord at a time.
void propagate_with_ids(Context& ctx, std::initializer_list<std::string_view> head,
                        std::span<const engine::StreamId> ids) {
  std::vector<std::string> text;
  std::vector<std::string_view> argv;
  for (std::size_t i = 0; i < ids.size(); i += kIdsPerRecord) {
    std::size_t n = std::min(kIdsPerRecord, ids.size() - i);
    text.clear();
    for (std::size_t k = 0; k < n; ++k) text.push_back(ids[i + k].to_string());
    argv.assign(head);
    argv.insert(argv.end(), text.begin(), text.end());
    ctx.propagate(std::span<const std::string_view>(argv));
  }
}

// What a policy removed or dropped beyond an exact XTRIM, as XDEL and XACK.
void propagate_ref_effects(Context& ctx, std::string_view key, const engine::RefEffects& fx) {
  propagate_with_ids(ctx, {"XDEL", key}, fx.erased);
  for (const auto& [group, ids] : fx.dropped) propagate_with_ids(ctx, {"XACK", key, group}, ids);
}

}  // namespace

bool redis70_forms(const Context& ctx) {
  return ctx.server.config().ref<std::int64_t>("rdb-version") == 10;
}

bool refuse_without_redis70_form(Context& ctx, std::string_view what) {
  if (ctx.session.master || ctx.session.aof_loader || !redis70_forms(ctx)) return false;
  ctx.reply.error(errors::no_redis70_equivalent(what));
  return true;
}

void propagate_ref_delete_as_redis70(Context& ctx, std::string_view key, std::string_view group,
                                     std::span<const engine::StreamId> acked,
                                     std::span<const engine::StreamId> deleted,
                                     const engine::RefEffects& fx) {
  if (!ctx.propagating()) return ctx.propagate_nothing();
  if (acked.empty() && deleted.empty() && fx.dropped.empty()) return ctx.propagate_nothing();
  propagate_with_ids(ctx, {"XACK", key, group}, acked);
  propagate_with_ids(ctx, {"XDEL", key}, deleted);
  propagate_ref_effects(ctx, key, fx);
}

bool propagate_plain_xadd(Context& ctx, std::string_view id_text, std::size_t field_count) {
  if (!ctx.propagating()) {
    ctx.propagate_nothing();
    return true;
  }
  // The bytes before the ID and after it are copied (about 50 instructions fewer per XADD than
  // encoding `XADD key` again: bench/pipeline_cost.py, docs/benchmarks.md).
  if (ctx.argc() - 2 * field_count != 3 || !ctx.argv_is_request) return false;
  std::string_view all = resp::raw_args(ctx.argv, 0);
  if (all.empty()) return false;
  std::string_view sent_id = resp::arg_bytes(ctx.arg(2));
  std::size_t id_at = static_cast<std::size_t>(sent_id.data() - all.data());
  ctx.propagate(ctx.argc(), all.substr(0, id_at), std::span<const std::string_view>(&id_text, 1),
                all.substr(id_at + sent_id.size()));
  return true;
}

void propagate_encoded_xadd(Context& ctx, std::string_view key, std::string_view id_text,
                            engine::TrimStrategy strategy, const engine::TrimResult* trim,
                            std::span<const engine::FieldValue> fields, engine::RefPolicy policy,
                            const engine::RefEffects* as_redis70) {
  if (!ctx.propagating()) return ctx.propagate_nothing();
  if (as_redis70) {
    // 7.0: the plain exact trim (none after an ACKED walk, which XDEL replays), then the rest.
    policy = engine::RefPolicy::kKeepRef;
    if (as_redis70->walked) trim = nullptr;
  }
  std::size_t from = ctx.argc() - 2 * fields.size();
  std::string threshold;
  // Every other XADD a replica or the AOF receives is encoded here: the arguments before the fields
  // are at most 7, and the fields are encoded from where they are (no argument list).
  std::array<std::string_view, 7> head;
  std::size_t n = 0;
  auto push = [&](std::string_view a) { head[n++] = a; };
  push("XADD");
  push(key);
  if (trim && policy != engine::RefPolicy::kKeepRef) push(policy_token(policy));
  if (trim && policy == engine::RefPolicy::kAcked) strategy = engine::TrimStrategy::kMaxLen;
  if (trim && strategy == engine::TrimStrategy::kMaxLen) {
    threshold = num(trim->exact_maxlen);
    push("MAXLEN");
    push("=");
    push(threshold);
  } else if (trim && strategy == engine::TrimStrategy::kMinId) {
    threshold = trim->exact_minid.to_string();
    push("MINID");
    push("=");
    push(threshold);
  }
  push(id_text);
  std::span<const std::string_view> head_args(head.data(), n);
  // The fields are the end of the client's arguments: copied from its request when they can be.
  assert(!fields.empty() && fields.front().field.data() == ctx.arg(from).data());
  std::string_view raw = ctx.argv_is_request ? resp::raw_args(ctx.argv, from) : std::string_view();
  if (!raw.empty()) {
    ctx.propagate(n + 2 * fields.size(), {}, head_args, raw);
  } else {
    ctx.propagate(head_args, fields);
  }
  if (as_redis70) propagate_ref_effects(ctx, key, *as_redis70);
}

void propagate_xtrim(Context& ctx, std::string_view key, engine::TrimStrategy strategy,
                     const engine::TrimResult& trim, engine::RefPolicy policy,
                     const engine::RefEffects* as_redis70) {
  if (!ctx.propagating()) return ctx.propagate_nothing();
  if (as_redis70) {
    // 7.0: XDEL of an ACKED walk's removals, or the plain exact trim; then DELREF's XACKs.
    if (!as_redis70->walked) {
      propagate_xtrim(ctx, key, strategy, trim);
    } else if (as_redis70->erased.empty() && as_redis70->dropped.empty()) {
      ctx.propagate_nothing();
    }
    return propagate_ref_effects(ctx, key, *as_redis70);
  }
  std::string threshold;
  std::vector<std::string_view> argv = {"XTRIM", key};
  if (strategy == engine::TrimStrategy::kMaxLen || policy == engine::RefPolicy::kAcked) {
    threshold = num(trim.exact_maxlen);
    argv.insert(argv.end(), {"MAXLEN", "=", threshold});
  } else {
    threshold = trim.exact_minid.to_string();
    argv.insert(argv.end(), {"MINID", "=", threshold});
  }
  if (policy != engine::RefPolicy::kKeepRef) argv.push_back(policy_token(policy));
  ctx.propagate(std::span<const std::string_view>(argv));
}

void propagate_idmp_record(Context& ctx, std::string_view key, std::string_view pid,
                           std::string_view iid, engine::StreamId id) {
  if (!ctx.propagating()) return ctx.propagate_nothing();
  std::string text = id.to_string();
  ctx.propagate({"XIDMPRECORD", key, pid, iid, text});
}

void propagate_group_effects(Context& ctx, std::string_view key, std::string_view group,
                             std::string_view consumer, const engine::ConsumerGroup& g,
                             const engine::GroupEffects& fx) {
  if (fx.consumer_created) propagate_create_consumer(ctx, key, group, consumer);
  for (engine::StreamId id : fx.deleted) propagate_pel_drop(ctx, key, group, id);
  for (const engine::GroupEntry& e : fx.claimed) {
    propagate_delivery(ctx, key, group, consumer, e, false);
  }
  for (const engine::GroupEntry& e : fx.read) {
    propagate_delivery(ctx, key, group, consumer, e, fx.read_new);
  }
  if (fx.last_id_changed) propagate_group_position(ctx, key, g);
}

void propagate_nack(Context& ctx, std::string_view key, std::string_view group,
                    std::span<const std::pair<engine::StreamId, uint64_t>> records) {
  if (!ctx.propagating()) return ctx.propagate_nothing();
  std::size_t i = 0;
  while (i < records.size()) {
    std::size_t j = i;
    while (j < records.size() && records[j].second == records[i].second) ++j;
    std::vector<std::string> ids;
    for (std::size_t k = i; k < j; ++k) ids.push_back(records[k].first.to_string());
    std::string n = num(static_cast<uint64_t>(j - i));
    std::string count = num(records[i].second);
    std::vector<std::string_view> argv{"XNACK", key, group, "FAIL", "IDS", n};
    argv.insert(argv.end(), ids.begin(), ids.end());
    argv.insert(argv.end(), {"RETRYCOUNT", count, "FORCE"});
    ctx.propagate(std::span<const std::string_view>(argv));
    i = j;
  }
}

}  // namespace streamd::cmd
