#include "streamd/commands/core/blocking.h"

#include <algorithm>

#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/core/session.h"
#include "streamd/resp/reply_writer.h"
#include "streamd/text/ascii.h"

namespace streamd::cmd {

std::string BlockingRegistry::key_id(int db, std::string_view key) {
  std::string id = std::to_string(db);
  id.push_back(':');
  id.append(key);
  return id;
}

void BlockingRegistry::block(Session& s, std::vector<std::pair<int, std::string>> keys,
                             int64_t deadline_ms, std::vector<std::string> argv, int64_t wake_ms) {
  auto st = std::make_unique<BlockedState>();
  st->keys = std::move(keys);
  st->deadline_ms = deadline_ms;
  st->argv = std::move(argv);
  st->seq = next_seq_++;
  st->wake_ms = wake_ms;
  for (auto& [db, key] : st->keys) waiters_[key_id(db, key)].push_back(&s);
  if (deadline_ms > 0) deadlines_.emplace(deadline_ms, &s);
  if (wake_ms > 0) wakeups_.emplace(wake_ms, &s);
  s.blocked = std::move(st);
  ++blocked_count_;
}

void BlockingRegistry::forget(Session& s) {
  if (!s.blocked) return;
  for (auto& [db, key] : s.blocked->keys) {
    auto it = waiters_.find(key_id(db, key));
    if (it == waiters_.end()) continue;
    auto& q = it->second;
    q.erase(std::remove(q.begin(), q.end(), &s), q.end());
    if (q.empty()) waiters_.erase(it);
  }
  auto remove = [&s](std::multimap<int64_t, Session*>& m, int64_t when) {
    auto range = m.equal_range(when);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second == &s) {
        m.erase(it);
        break;
      }
    }
  };
  if (s.blocked->deadline_ms > 0) remove(deadlines_, s.blocked->deadline_ms);
  if (s.blocked->wake_ms > 0) remove(wakeups_, s.blocked->wake_ms);
  s.blocked.reset();
  --blocked_count_;
}

void BlockingRegistry::signal_ready(int db, std::string_view key) {
  if (waiters_.empty()) return;
  std::string id = key_id(db, key);
  if (!waiters_.count(id)) return;
  if (std::find(ready_.begin(), ready_.end(), id) == ready_.end()) ready_.push_back(std::move(id));
}

void BlockingRegistry::serve_ready(Dispatcher& d) {
  // Serving a client may make more keys ready (a woken XREADGROUP changes nothing in the stream,
  // but a future command might); loop until quiet. Only the clients waiting when a key's turn
  // starts are served for that key, so a client that re-blocks is not re-run in the same pass.
  while (!ready_.empty()) {
    std::vector<std::string> keys;
    keys.swap(ready_);
    for (const std::string& id : keys) {
      auto it = waiters_.find(id);
      if (it == waiters_.end()) continue;
      // The whole list is taken: each client in it is served (or skipped) now, so forget() does
      // not have to search it for every one of them (that made a fan-out to N readers cost
      // N^2/2 pointer comparisons). A client that blocks on the key again starts a new list.
      std::deque<Session*> batch = std::move(it->second);
      waiters_.erase(it);
      const uint64_t turn_start = next_seq_;
      for (Session* s : batch) {
        // Served already in this pass (it waited on this key twice, or on two ready keys), or
        // blocked again during it: not re-run for this key now.
        if (!s->blocked || s->blocked->seq >= turn_start) continue;
        std::vector<std::string> argv = std::move(s->blocked->argv);
        int64_t deadline = s->blocked->deadline_ms;
        forget(*s);
        if (d.rerun_blocked(*s, argv, deadline) == DispatchResult::kDone) {
          if (s->resume) s->resume();
        }
      }
    }
  }
}

void BlockingRegistry::expire(int64_t now_ms, Dispatcher& d) {
  // Wake times first: a client whose entry became claimable as its timeout passed gets it. A
  // re-run that parks again has a wake time after now, so the loop ends.
  while (!wakeups_.empty() && wakeups_.begin()->first <= now_ms) {
    Session* s = wakeups_.begin()->second;
    std::vector<std::string> argv = s->blocked->argv;
    int64_t deadline = s->blocked->deadline_ms;
    forget(*s);
    if (d.rerun_blocked(*s, argv, deadline) == DispatchResult::kDone) {
      if (s->resume) s->resume();
    }
  }
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    Session* s = deadlines_.begin()->second;
    forget(*s);
    if (s->out) {
      resp::ReplyWriter w(*s->out, s->proto);
      w.null_array();
    }
    if (s->resume) s->resume();
  }
}

bool BlockingRegistry::unblock(Session& s, bool error, Dispatcher&) {
  if (!s.blocked) return false;
  forget(s);
  if (s.out) {
    resp::ReplyWriter w(*s.out, s.proto);
    if (error) {
      w.error(errors::kUnblocked);
    } else {
      w.null_array();
    }
  }
  if (s.resume) s.resume();
  return true;
}

std::size_t BlockingRegistry::disconnect_all(std::string_view error) {
  std::vector<Session*> all;
  for (const auto& [key, fifo] : waiters_) all.insert(all.end(), fifo.begin(), fifo.end());
  for (const auto& [when, s] : deadlines_) all.push_back(s);
  for (const auto& [when, s] : wakeups_) all.push_back(s);
  std::sort(all.begin(), all.end(),
            [](const Session* a, const Session* b) { return a->blocked->seq < b->blocked->seq; });
  all.erase(std::unique(all.begin(), all.end()), all.end());
  for (Session* s : all) {
    forget(*s);
    if (s->out) resp::ReplyWriter(*s->out, s->proto).error(error);
    s->close_after_reply = true;
    if (s->resume) s->resume();
  }
  return all.size();
}

int64_t BlockingRegistry::next_deadline() const {
  int64_t t = deadlines_.empty() ? 0 : deadlines_.begin()->first;
  if (!wakeups_.empty() && (t == 0 || wakeups_.begin()->first < t)) t = wakeups_.begin()->first;
  return t;
}

BlockingRegistry::KeyCounts BlockingRegistry::key_counts() const {
  KeyCounts n;
  for (const auto& [key, fifo] : waiters_) {
    // WAIT's and SHUTDOWN's pseudo-keys (negative databases) are no keys to Redis.
    if (!key.empty() && key[0] == '-') continue;
    ++n.keys;
    bool on_nokey = std::any_of(fifo.begin(), fifo.end(), [](const Session* s) {
      return s->blocked && !s->blocked->argv.empty() &&
             text::iequals(s->blocked->argv[0], "xreadgroup");
    });
    if (on_nokey) ++n.keys_on_nokey;
  }
  return n;
}

}  // namespace streamd::cmd
