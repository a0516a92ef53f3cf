#include "streamd/commands/stream/propagation.h"

#include <string>
#include <vector>

namespace streamd::cmd {

namespace {

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

}  // namespace

void propagate_xadd(Context& ctx, std::string_view key, engine::StreamId id,
                    engine::TrimStrategy strategy, const engine::TrimResult* trim,
                    std::span<const engine::FieldValue> fields, engine::RefPolicy policy) {
  if (!ctx.propagating()) return ctx.propagate_nothing();
  std::string id_text = id.to_string();
  std::string threshold;
  std::vector<std::string_view> argv;
  argv.reserve(7 + 2 * fields.size());
  argv.push_back("XADD");
  argv.push_back(key);
  if (trim && policy != engine::RefPolicy::kKeepRef) argv.push_back(policy_token(policy));
  if (trim && policy == engine::RefPolicy::kAcked) strategy = engine::TrimStrategy::kMaxLen;
  if (trim && strategy == engine::TrimStrategy::kMaxLen) {
    threshold = num(trim->exact_maxlen);
    argv.insert(argv.end(), {"MAXLEN", "=", threshold});
  } else if (trim && strategy == engine::TrimStrategy::kMinId) {
    threshold = trim->exact_minid.to_string();
    argv.insert(argv.end(), {"MINID", "=", threshold});
  }
  argv.push_back(id_text);
  for (const auto& fv : fields) {
    argv.push_back(fv.field);
    argv.push_back(fv.value);
  }
  ctx.propagate(std::span<const std::string_view>(argv));
}

void propagate_xtrim(Context& ctx, std::string_view key, engine::TrimStrategy strategy,
                     const engine::TrimResult& trim, engine::RefPolicy policy) {
  if (!ctx.propagating()) return ctx.propagate_nothing();
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
