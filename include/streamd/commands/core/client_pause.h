// CLIENT PAUSE timeout [WRITE|ALL] and CLIENT UNPAUSE, as Redis: while a pause is in force, a
// client's command that it covers is postponed: the network layer leaves the command unread in
// the connection's input (Session::postponed) and stops reading that client's pipeline; when the
// pause ends (CLIENT UNPAUSE, or its end time passes) the postponed clients resume in the order
// they were postponed and their commands go through dispatch as if they had just arrived (a
// command postponed before MULTI queued it is then queued, as Redis re-processes it).
//
// What a pause covers (Redis's processCommand): ALL, every command; WRITE, commands flagged write
// or may_replicate, and EXEC of a transaction holding one. Replica links are never paused. While
// paused, keys do not expire: lazily they are hidden (reads see them gone), actively nothing is
// deleted, so nothing is written to the AOF or the replicas (Server::pause_clients).
//
// A replica's stream from its master is held too, in either mode (Redis pauses replica traffic
// with both): repl::Replica leaves it unread while paused and applies it once the pause ends.
//
// Pauses have purposes, as Redis's pauseActions: CLIENT PAUSE's, a coordinated FAILOVER's (which
// holds writes until the failover ends) and a shutdown's (while it waits for replicas). Each has
// its own mode and end; what is in force is the strongest mode of those active. Ending one
// purpose's pause (CLIENT UNPAUSE does not end a failover's) resumes every postponed client: what
// is still covered is postponed again.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace streamd::cmd {

struct Session;

class ClientPause {
 public:
  // Ordered: a stronger mode covers more.
  enum class Mode : uint8_t { kNone, kWrite, kAll };
  enum class Purpose : uint8_t { kClientCommand, kFailover, kShutdown };
  static constexpr Purpose kPurposes[] = {Purpose::kClientCommand, Purpose::kFailover,
                                          Purpose::kShutdown};

  // `purpose`'s mode becomes `mode`; its end is the later of the one in force and `end_ms`
  // (Redis keeps the latest end and the last mode asked for).
  void pause(Purpose purpose, Mode mode, int64_t end_ms);
  bool active() const { return mode_ != Mode::kNone; }
  bool active(Purpose purpose) const { return slot(purpose).mode != Mode::kNone; }
  // The mode in force (the strongest of the purposes').
  Mode mode() const { return mode_; }
  int64_t end_ms(Purpose purpose) const { return slot(purpose).end_ms; }
  // Whether a command with these flags (for EXEC: with the flags of what it queued, or-ed in)
  // from `s` must wait. Cheap when no pause is in force.
  bool covers(const Session& s, uint32_t command_flags) const;

  // Marks `s` postponed and remembers it, in order.
  void postpone(Session& s);
  std::size_t postponed() const { return postponed_.size(); }
  // A postponed session went away (disconnect): it is not counted nor resumed.
  void forget(uint64_t session_id);

  // Ends `purpose`'s pause; returns the ids of the sessions to resume, in the order they were
  // postponed (all of them: the caller re-runs their commands, which may be postponed again).
  std::vector<uint64_t> end(Purpose purpose);

 private:
  struct Slot {
    Mode mode = Mode::kNone;
    int64_t end_ms = 0;
  };
  const Slot& slot(Purpose p) const { return slots_[static_cast<std::size_t>(p)]; }
  Slot& slot(Purpose p) { return slots_[static_cast<std::size_t>(p)]; }
  void update_mode();

  std::array<Slot, std::size(kPurposes)> slots_{};
  Mode mode_ = Mode::kNone;  // invariant: the strongest of slots_' modes
  std::vector<uint64_t> postponed_;
};

}  // namespace streamd::cmd
