#include "streamd/commands/server/stream_selection.h"

#include <algorithm>

#include "streamd/commands/core/server.h"
#include "streamd/engine/clock.h"
#include "streamd/engine/keyspace.h"
#include "streamd/engine/stream.h"
#include "streamd/text/glob.h"

namespace streamd::cmd {

bool StreamSelection::longer(const Candidate& a, const Candidate& b) {
  if (a.length != b.length) return a.length > b.length;
  if (a.db != b.db) return a.db < b.db;
  return a.key < b.key;
}

bool StreamSelection::matches(const std::vector<text::GlobMatcher>& globs, std::string_view key) {
  return std::any_of(globs.begin(), globs.end(),
                     [&](const text::GlobMatcher& g) { return g.matches(key); });
}

void StreamSelection::Best::offer(uint64_t length, int db, std::string_view key) {
  if (cap_ == 0) return;
  // The heap's front is the candidate that drops first (the "shortest" by longer()). The key
  // is copied only when the candidate gets in: a pass over n streams copies about
  // cap * ln(n / cap) keys, not n.
  if (heap_.size() == cap_) {
    const Candidate& worst = heap_.front();
    if (length < worst.length) return;
    if (length == worst.length && (db > worst.db || (db == worst.db && key >= worst.key))) return;
    std::pop_heap(heap_.begin(), heap_.end(), longer);
    heap_.back() = Candidate{length, db, std::string(key)};
  } else {
    heap_.push_back(Candidate{length, db, std::string(key)});
  }
  std::push_heap(heap_.begin(), heap_.end(), longer);
}

std::vector<StreamSelection::Candidate> StreamSelection::Best::sorted() const {
  std::vector<Candidate> out = heap_;
  std::sort(out.begin(), out.end(), longer);
  return out;
}

std::size_t StreamSelection::total_keys(Server& server) {
  auto& ks = server.keyspace();
  std::size_t n = 0;
  for (int i = 0; i < ks.databases(); ++i) n += ks.db(i).size();
  return n;
}

StreamSelection::Choice StreamSelection::walk_whole(Server& server,
                                                    const std::vector<text::GlobMatcher>& globs,
                                                    std::size_t cap) {
  Choice c;
  if (globs.empty()) return c;
  bool all = std::any_of(globs.begin(), globs.end(),
                         [](const text::GlobMatcher& g) { return g.matches_everything(); });
  Best best(cap);
  auto& ks = server.keyspace();
  for (int i = 0; i < ks.databases(); ++i) {
    const engine::Database& db = ks.db(i);
    if (db.size() == 0) continue;
    db.for_each([&](std::string_view key, const engine::Entry& en) {
      if (!en.value.is_stream() || db.is_expired(en)) return;
      if (!all && !matches(globs, key)) return;
      ++c.matching;
      best.offer(en.value.stream().length(), i, key);
    });
  }
  for (auto& cand : best.sorted()) c.picks.push_back(Pick{cand.db, std::move(cand.key)});
  return c;
}

StreamSelection::Choice StreamSelection::refresh(Server& server, std::vector<Candidate> from,
                                                 const std::vector<text::GlobMatcher>& globs,
                                                 std::size_t cap) {
  Choice c;
  auto& ks = server.keyspace();
  std::vector<Candidate> live;
  live.reserve(from.size());
  for (auto& cand : from) {
    if (cand.db >= ks.databases() || !matches(globs, cand.key)) continue;
    const engine::Database& db = ks.db(cand.db);
    const engine::Entry* en = db.peek(cand.key);
    if (!en || !en->value.is_stream() || db.is_expired(*en)) continue;
    cand.length = en->value.stream().length();
    live.push_back(std::move(cand));
  }
  std::sort(live.begin(), live.end(), longer);
  // A rehash during the pass can make SCAN visit a key twice.
  live.erase(std::unique(live.begin(), live.end(),
                         [](const Candidate& a, const Candidate& b) {
                           return a.db == b.db && a.key == b.key;
                         }),
             live.end());
  if (live.size() > cap) live.resize(cap);
  for (auto& cand : live) c.picks.push_back(Pick{cand.db, std::move(cand.key)});
  return c;
}

void StreamSelection::start_pass(const std::vector<text::GlobMatcher>& globs,
                                 const std::string& params, std::size_t cap, int64_t now_ms) {
  running_ = true;
  globs_ = globs;
  params_ = params;
  best_ = Best(cap);
  db_ = 0;
  cursor_ = 0;
  matching_ = 0;
  started_ms_ = now_ms;
}

StreamSelection::Choice StreamSelection::choose(Server& server,
                                                const std::vector<text::GlobMatcher>& globs,
                                                const std::string& params, std::size_t cap) {
  int64_t now = server.clock().now_ms();
  last_scrape_ms_ = now;
  if (globs.empty()) return {};
  if (total_keys(server) <= walk_whole_limit_) return walk_whole(server, globs, cap);

  if (!running_ || params_ != params) start_pass(globs, params, cap, now);
  Choice c;
  if (have_done_) {
    // The finished pass's choice, for the current globs and cap (a superset when only the cap
    // shrank; a subset otherwise, until the restarted pass finishes).
    c = refresh(server, done_, globs, cap);
    c.matching = done_params_ == params ? done_matching_ : c.picks.size();
    c.age_ms = now - done_started_ms_;
  } else {
    c = refresh(server, best_.sorted(), globs, cap);
    c.matching = matching_;
    c.age_ms = now - started_ms_;
  }
  return c;
}

void StreamSelection::step(Server& server, std::size_t max_keys, int64_t max_us) {
  int64_t now = server.clock().now_ms();
  if (!running_) return;
  if (last_scrape_ms_ < 0 || now - last_scrape_ms_ > kActiveMs) {
    running_ = false;  // nobody scrapes: stop until the next scrape starts a pass again
    return;
  }
  auto& ks = server.keyspace();
  const int64_t t0 = engine::monotonic_us();
  std::size_t seen = 0;
  while (seen < max_keys && db_ < ks.databases()) {
    const engine::Database& db = ks.db(db_);
    if (db.size() == 0) {
      ++db_;
      cursor_ = 0;
      continue;
    }
    // SCAN in small chunks, the clock read between them. SCAN skips expired keys without
    // counting them here, and visits a bounded number of buckets per call, so the time check
    // also ends a step spent among expired keys.
    std::size_t chunk = std::min<std::size_t>(kScanChunk, max_keys - seen);
    cursor_ = db.scan(cursor_, chunk, [&](std::string_view key, const engine::Entry& en) {
      ++seen;
      if (!en.value.is_stream() || db.is_expired(en) || !matches(globs_, key)) return;
      ++matching_;
      best_.offer(en.value.stream().length(), db_, key);
    });
    if (cursor_ == 0) ++db_;
    if (engine::monotonic_us() - t0 >= max_us) break;
  }
  if (db_ < ks.databases()) return;
  // Finished: this becomes the exported choice, and the next pass starts at once (the passes
  // run back to back while scrapes come, each a bounded slice of a timer tick).
  have_done_ = true;
  done_params_ = params_;
  done_ = best_.sorted();
  done_matching_ = matching_;
  done_started_ms_ = started_ms_;
  ++passes_finished_;
  start_pass(globs_, params_, best_.cap(), now);
}

}  // namespace streamd::cmd
