// MAXCOUNT and MAXSIZE of XREAD / XREADGROUP (Redis 8.10): caps on the whole reply, across all
// the streams of one command, where COUNT caps each stream.
//   - MAXCOUNT n: at most n entries in total;
//   - MAXSIZE n: a soft cap on the reply's size in bytes, counted as the RESP bytes of the
//     entries ([id, [f1, v1, ...]], the same in RESP2 and RESP3). An entry is served only if it
//     fits in what is left, except the first entry of the reply, which is always served: a
//     reader must make progress even when one entry is larger than its cap.
// Streams are served in the order the command names them; once an entry does not fit, the
// reply ends there (later streams are not served, and are not listed).
// XREADGROUP hands the budget to the group's walks (engine::Admission), which offer it each
// entry before they deliver it (deliveries change the PEL and the group position), so the group
// read takes exactly the entries the reply will hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "streamd/engine/consumer_group.h"
#include "streamd/engine/stream.h"
#include "streamd/engine/stream_id.h"

namespace streamd::cmd {

class ReadBudget final : public engine::Admission {
 public:
  ReadBudget(uint64_t maxcount, uint64_t maxsize) : maxcount_(maxcount), maxsize_(maxsize) {}
  ReadBudget(const ReadBudget&) = delete;
  ReadBudget& operator=(const ReadBudget&) = delete;

  bool limited() const { return maxcount_ != 0 || maxsize_ != 0; }
  // Whether one more entry of `bytes` may be served.
  bool admits(std::size_t bytes) const {
    if (maxcount_ != 0 && entries_ >= maxcount_) return false;
    return maxsize_ == 0 || entries_ == 0 || bytes_ + bytes <= maxsize_;
  }
  void take(std::size_t bytes) {
    ++entries_;
    bytes_ += bytes;
  }
  // Set once an entry was refused: the reply ends.
  bool stopped() const { return stopped_; }
  void stop() { stopped_ = true; }
  // An entry of `bytes`: takes it if it fits, else stops.
  bool offer(std::size_t bytes) {
    if (!admits(bytes)) {
      stop();
      return false;
    }
    take(bytes);
    return true;
  }
  // A group walk's entry, sized as XREADGROUP renders it: [id, nil] for a pending entry gone
  // from the stream, [id, fields, idle, count] for a claimed one (the new entries of a CLAIM
  // read count as plain entries).
  bool admit(const engine::GroupEntry& e) override;

 private:
  uint64_t maxcount_, maxsize_;
  uint64_t entries_ = 0, bytes_ = 0;
  bool stopped_ = false;
};

// The RESP size of one entry as XREAD/XREADGROUP render it.
std::size_t entry_reply_size(engine::StreamId id, std::span<const engine::FieldValue> fields);

// XREAD: how many of the entries of `s` from `start` on (at most `count`, 0 = no limit) the
// budget admits; takes them from it, and stops it when an entry is refused.
std::size_t read_fit(const engine::Stream& s, engine::StreamId start, std::size_t count,
                     ReadBudget& budget);

}  // namespace streamd::cmd
