#include "streamd/commands/pubsub/pubsub.h"

#include <algorithm>

#include "streamd/resp/reply_writer.h"

namespace streamd::cmd {

// ---- frames ------------------------------------------------------------------------------------

void encode_message(std::string& out, resp::Protocol proto, std::string_view kind,
                    std::optional<std::string_view> pattern, std::string_view channel,
                    std::string_view message) {
  resp::ReplyWriter w(out, proto);
  w.push(pattern ? 4 : 3);
  w.bulk(kind);
  if (pattern) w.bulk(*pattern);
  w.bulk(channel);
  w.bulk(message);
}

// ---- subscriptions -----------------------------------------------------------------------------

bool PubSub::subscribe(Session& s, PubSubKind kind, std::string_view name) {
  if (!s.subs) s.subs = std::make_unique<Subscriptions>();
  NameSet& mine = s.subs->of(kind);
  if (mine.contains(name)) return false;
  std::string_view key;
  if (kind == PubSubKind::kPattern) {
    auto it = patterns_.find(name);
    if (it == patterns_.end()) {
      it = patterns_.emplace(std::string(name), Pattern{text::GlobMatcher(std::string(name)), {}})
               .first;
    }
    it->second.subscribers.push_back(&s);
    key = it->first;
  } else {
    auto [it, added] = channel_map(kind).try_emplace(std::string(name));
    it->second.push_back(&s);
    key = it->first;
  }
  mine.insert(key);
  return true;
}

namespace {

void remove_from(std::vector<Session*>& v, const Session* s) {
  v.erase(std::remove(v.begin(), v.end(), s), v.end());
}

// GlobMatcher lets `*` match the empty string (KEYS's special case); Redis's pub/sub matching
// does not: PSUBSCRIBE * receives nothing published to "", PUBSUB CHANNELS * omits "".
bool pattern_matches(const text::GlobMatcher& m, std::string_view channel) {
  if (channel.empty()) return text::glob_match(m.pattern(), channel);
  return m.matches(channel);
}

}  // namespace

bool PubSub::unsubscribe(Session& s, PubSubKind kind, std::string_view name) {
  // The session's view goes first: it points at the registry key erased below.
  if (!s.subs || !s.subs->of(kind).erase(name)) return false;
  if (kind == PubSubKind::kPattern) {
    auto it = patterns_.find(name);
    if (it != patterns_.end()) {
      remove_from(it->second.subscribers, &s);
      if (it->second.subscribers.empty()) patterns_.erase(it);
    }
  } else {
    ChannelMap& m = channel_map(kind);
    auto it = m.find(std::string(name));
    if (it != m.end()) {
      remove_from(it->second, &s);
      if (it->second.empty()) m.erase(it);
    }
  }
  return true;
}

void PubSub::unsubscribe_all(Session& s) {
  if (!s.subs) return;
  for (PubSubKind k : {PubSubKind::kChannel, PubSubKind::kPattern, PubSubKind::kShard}) {
    // Copied: unsubscribe() erases from the list being walked.
    std::vector<std::string> names(s.subs->of(k).names().begin(), s.subs->of(k).names().end());
    for (const auto& n : names) unsubscribe(s, k, n);
  }
}

// ---- publishing --------------------------------------------------------------------------------

std::size_t PubSub::deliver(const std::vector<Session*>& to, std::string_view kind,
                            std::optional<std::string_view> pattern, std::string_view channel,
                            std::string_view message) {
  // One encoding per protocol, made when the first receiver of that protocol is met.
  std::string frame[2];
  for (Session* r : to) {
    int p = r->proto == resp::Protocol::kResp3 ? 1 : 0;
    if (frame[p].empty()) encode_message(frame[p], r->proto, kind, pattern, channel, message);
    r->push(frame[p]);
  }
  return to.size();
}

std::size_t PubSub::publish(std::string_view channel, std::string_view message) {
  std::size_t receivers = 0;
  if (!channels_.empty()) {
    auto it = channels_.find(std::string(channel));
    if (it != channels_.end()) {
      receivers += deliver(it->second, "message", std::nullopt, channel, message);
    }
  }
  for (auto& [name, pat] : patterns_) {
    if (!pattern_matches(pat.matcher, channel)) continue;
    receivers += deliver(pat.subscribers, "pmessage", std::string_view(name), channel, message);
  }
  return receivers;
}

std::size_t PubSub::spublish(std::string_view channel, std::string_view message) {
  if (shards_.empty()) return 0;
  auto it = shards_.find(std::string(channel));
  if (it == shards_.end()) return 0;
  return deliver(it->second, "smessage", std::nullopt, channel, message);
}

// ---- introspection -----------------------------------------------------------------------------

std::vector<std::string_view> PubSub::active(PubSubKind kind,
                                             std::optional<std::string_view> pattern) const {
  std::vector<std::string_view> out;
  std::optional<text::GlobMatcher> m;
  if (pattern) m.emplace(std::string(*pattern));
  for (const auto& [name, subs] : channel_map(kind)) {
    if (!m || pattern_matches(*m, name)) out.emplace_back(name);
  }
  return out;
}

std::size_t PubSub::subscribers(PubSubKind kind, std::string_view name) const {
  const ChannelMap& m = channel_map(kind);
  auto it = m.find(std::string(name));
  return it == m.end() ? 0 : it->second.size();
}

}  // namespace streamd::cmd
