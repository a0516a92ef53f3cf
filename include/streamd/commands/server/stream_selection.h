// Which streams GET /metrics exports: those whose key matches one of metrics-streams' globs, at
// most metrics-max-streams of them, the longest first (ties: lower db, then key).
//
// Finding them means looking at every key. A keyspace of up to `walk_whole_limit` keys (20,000
// by default: a few milliseconds) is walked whole at each scrape. A larger one is never walked on a
// scrape: a background pass (step(), from a 20 ms timer, at most 1 ms of the loop per call)
// SCANs it and keeps the best candidates; a scrape exports the last finished pass's choice, each
// key looked up again (gone, expired or no longer a stream: dropped; lengths read fresh, order
// redone), so a scrape costs O(metrics-max-streams) lookups however many keys exist. While no
// pass has finished yet, the running pass's best so far are exported. The price: a stream
// created after the pass went by waits for the next pass (seconds to a minute for a million keys),
// which the `streamd_stream_selection_age_seconds` gauge shows.
//
// Passes run only while someone scrapes (a scrape in the last kActiveMs), so an unscraped server
// spends nothing here. A change of metrics-streams or metrics-max-streams restarts the pass; until
// it finishes, the old choice filtered by the new globs and cap is exported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "streamd/text/glob.h"

namespace streamd::cmd {

class Server;

class StreamSelection {
 public:
  static constexpr std::size_t kWalkWholeKeys = 20000;
  // A step() stops after this long (the event loop's cost per timer tick)...
  static constexpr int64_t kStepMicros = 1000;
  // ... checked between SCAN calls of this many keys.
  static constexpr std::size_t kScanChunk = 256;
  // The timer's period while a pass runs (so at most ~5% of the loop's time).
  static constexpr int kStepPeriodMs = 20;
  // Passes stop this long after the last scrape.
  static constexpr int64_t kActiveMs = 10 * 60 * 1000;

  explicit StreamSelection(std::size_t walk_whole_limit = kWalkWholeKeys)
      : walk_whole_limit_(walk_whole_limit) {}

  struct Pick {
    int db = 0;
    std::string key;
  };
  struct Choice {
    std::vector<Pick> picks;  // longest first
    uint64_t matching = 0;    // streams whose key matched, as the pass counted them
    int64_t age_ms = 0;       // since the pass that chose them started (0: walked now)
  };

  // The streams to export now, for these globs and cap (`params` names them, to notice a
  // change). Records the scrape (it keeps the background passes running).
  Choice choose(Server& server, const std::vector<text::GlobMatcher>& globs,
                const std::string& params, std::size_t cap);

  // Advances the background pass by up to `max_keys` keys or `max_us` microseconds, whichever
  // comes first, when one is wanted (a large keyspace and a recent scrape); a no-op otherwise.
  void step(Server& server, std::size_t max_keys = std::numeric_limits<std::size_t>::max(),
            int64_t max_us = kStepMicros);

  // The whole walk, without any state: what a keyspace of any size gets without a selection.
  static Choice walk_whole(Server& server, const std::vector<text::GlobMatcher>& globs,
                           std::size_t cap);

  bool pass_running() const { return running_; }
  uint64_t passes_finished() const { return passes_finished_; }

 private:
  struct Candidate {
    uint64_t length;
    int db;
    std::string key;
  };
  // The best `cap` candidates offered so far (a min-heap on "longer").
  class Best {
   public:
    explicit Best(std::size_t cap = 0) : cap_(cap) {}
    void offer(uint64_t length, int db, std::string_view key);
    std::vector<Candidate> sorted() const;
    std::size_t cap() const { return cap_; }

   private:
    std::size_t cap_;
    std::vector<Candidate> heap_;
  };
  static bool longer(const Candidate& a, const Candidate& b);
  static bool matches(const std::vector<text::GlobMatcher>& globs, std::string_view key);
  static std::size_t total_keys(Server& server);
  void start_pass(const std::vector<text::GlobMatcher>& globs, const std::string& params,
                  std::size_t cap, int64_t now_ms);
  // Exports `from` (a finished or running pass's candidates) as they are now.
  static Choice refresh(Server& server, std::vector<Candidate> from,
                        const std::vector<text::GlobMatcher>& globs, std::size_t cap);

  std::size_t walk_whole_limit_;
  int64_t last_scrape_ms_ = -1;

  // The running pass.
  bool running_ = false;
  std::vector<text::GlobMatcher> globs_;
  std::string params_;
  Best best_;
  int db_ = 0;
  uint64_t cursor_ = 0;
  uint64_t matching_ = 0;
  int64_t started_ms_ = 0;

  // The last finished pass.
  bool have_done_ = false;
  std::string done_params_;
  std::vector<Candidate> done_;
  uint64_t done_matching_ = 0;
  int64_t done_started_ms_ = 0;
  uint64_t passes_finished_ = 0;
};

}  // namespace streamd::cmd
