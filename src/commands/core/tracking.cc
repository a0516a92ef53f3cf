#include "streamd/commands/core/tracking.h"

#include <algorithm>
#include <iterator>

#include "streamd/commands/pubsub/pubsub.h"
#include "streamd/resp/reply_writer.h"

namespace streamd::cmd {

namespace {

std::string one_key_array(std::string_view key) {
  std::string out;
  resp::ReplyWriter w(out, resp::Protocol::kResp2);
  w.array(1);
  w.bulk(key);
  return out;
}

// The null Redis sends for a flush, in the protocol of the tracking client (not of its redirect
// client: Redis picks it so).
std::string_view null_for(const Session& s) {
  return s.proto == resp::Protocol::kResp3 ? "_\r\n" : "*-1\r\n";
}

}  // namespace

bool ClientTracking::overlap(std::string_view a, std::string_view b) {
  std::size_t n = std::min(a.size(), b.size());
  return a.substr(0, n) == b.substr(0, n);
}

void ClientTracking::enable(Session& s, const Options& o) {
  TrackingState& t = s.tracking;
  clients_[s.id] = &s;
  used_ = true;
  t.on = true;
  t.broken_redirect = false;
  t.redirect = o.redirect;
  t.bcast = o.bcast;
  t.optin = o.optin;
  t.optout = o.optout;
  t.noloop = o.noloop;
  if (!o.bcast) return;
  auto add = [&](const std::string& p) {
    if (!prefixes_[p].clients.insert(&s).second) return;
    t.prefixes.insert(std::lower_bound(t.prefixes.begin(), t.prefixes.end(), p), p);
  };
  if (o.prefixes.empty()) add("");
  for (const std::string& p : o.prefixes) add(p);
}

void ClientTracking::disable(Session& s) {
  TrackingState& t = s.tracking;
  for (const std::string& p : t.prefixes) {
    auto it = prefixes_.find(p);
    if (it == prefixes_.end()) continue;
    it->second.clients.erase(&s);
    if (it->second.clients.empty()) prefixes_.erase(it);
  }
  clients_.erase(s.id);
  // Keys this client read stay in the table until they change (then it is skipped), as Redis.
  t = TrackingState{};
}

void ClientTracking::remember(Session& s, std::span<const std::string_view> argv,
                              std::span<const int> key_positions) {
  const TrackingState& t = s.tracking;
  if ((t.optin && !t.caching) || (t.optout && t.caching)) return;
  for (int i : key_positions) {
    std::string_view key = argv[static_cast<std::size_t>(i)];
    auto it = table_.find(std::string(key));
    if (it == table_.end()) it = table_.emplace(std::string(key), std::vector<uint64_t>()).first;
    std::vector<uint64_t>& ids = it->second;
    auto at = std::lower_bound(ids.begin(), ids.end(), s.id);
    if (at != ids.end() && *at == s.id) continue;
    ids.insert(at, s.id);
    ++items_;
  }
}

void ClientTracking::send(Session& s, std::string_view keys) {
  Session* to = &s;
  bool redirected = false;
  if (s.tracking.redirect != 0) {
    to = find_(s.tracking.redirect);
    if (!to) {
      s.tracking.broken_redirect = true;
      if (s.proto == resp::Protocol::kResp3) {
        std::string frame;
        resp::ReplyWriter w(frame, resp::Protocol::kResp3);
        w.push(2);
        w.bulk("tracking-redir-broken");
        w.integer(static_cast<long long>(s.tracking.redirect));
        s.push(frame);
      }
      return;
    }
    redirected = true;
  }
  std::string frame;
  if (to->proto == resp::Protocol::kResp3) {
    resp::ReplyWriter w(frame, resp::Protocol::kResp3);
    w.push(2);
    w.bulk("invalidate");
  } else if (redirected && subscribed(*to)) {
    // RESP2 has no pushes: a redirect client in pub/sub mode gets a pub/sub message instead.
    resp::ReplyWriter w(frame, resp::Protocol::kResp2);
    w.push(3);
    w.bulk("message");
    w.bulk("__redis__:invalidate");
  } else {
    return;  // a RESP2 client without a redirect cannot be told anything
  }
  frame += keys;
  to->push(frame);
}

void ClientTracking::drop_key(std::unordered_map<std::string, std::vector<uint64_t>>::iterator it,
                              const Session* running) {
  std::string frame;
  for (uint64_t id : it->second) {
    Session* target = find_(id);
    // A client that left, turned tracking off, or switched to BCAST since it read the key.
    if (!target || !target->tracking.on || target->tracking.bcast) continue;
    if (target->tracking.noloop && target == running) continue;
    if (frame.empty()) frame = one_key_array(it->first);
    send(*target, frame);
  }
  items_ -= it->second.size();
  table_.erase(it);
}

void ClientTracking::invalidate(std::string_view key, const Session* by, const Session* running) {
  if (!used_) return;
  // BCAST: remember the key for each prefix it starts with (sent by broadcast()).
  for (auto& [prefix, state] : prefixes_) {
    if (key.substr(0, prefix.size()) != prefix) continue;
    auto [it, added] = state.changed.try_emplace(std::string(key), by);
    if (!added) it->second = by;
  }
  if (table_.empty()) return;
  auto it = table_.find(std::string(key));
  if (it != table_.end()) drop_key(it, running);
}

void ClientTracking::invalidate_all() {
  if (!used_) return;
  // Every tracking client, BCAST ones included, in id order (Redis walks its client list).
  for (auto& [id, s] : clients_) send(*s, null_for(*s));
  table_.clear();
  items_ = 0;
}

void ClientTracking::broadcast() {
  for (auto& [prefix, state] : prefixes_) {
    if (state.changed.empty()) continue;
    std::string all;
    {
      resp::ReplyWriter w(all, resp::Protocol::kResp2);
      w.array(state.changed.size());
      for (const auto& [key, by] : state.changed) w.bulk(key);
    }
    for (Session* s : state.clients) {
      if (!s->tracking.noloop) {
        send(*s, all);
        continue;
      }
      // NOLOOP: the keys this client did not change last, if any.
      std::size_t n = 0;
      for (const auto& [key, by] : state.changed) n += by != s;
      if (n == 0) continue;
      std::string mine;
      resp::ReplyWriter w(mine, resp::Protocol::kResp2);
      w.array(n);
      for (const auto& [key, by] : state.changed) {
        if (by != s) w.bulk(key);
      }
      send(*s, mine);
    }
    state.changed.clear();
  }
}

void ClientTracking::limit(std::size_t max_keys) {
  if (max_keys == 0 || table_.size() <= max_keys) {
    limit_rounds_ = 0;
    return;
  }
  // Redis walks its table at random; the hash order is as arbitrary and costs nothing.
  int effort = 100 * static_cast<int>(limit_rounds_ + 1);
  while (effort-- > 0 && !table_.empty()) {
    drop_key(table_.begin(), nullptr);
    if (table_.size() <= max_keys) {
      limit_rounds_ = 0;
      return;
    }
  }
  ++limit_rounds_;
}

}  // namespace streamd::cmd
