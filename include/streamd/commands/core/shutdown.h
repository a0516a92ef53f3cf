// The shutdown sequence of SHUTDOWN and of SIGTERM / SIGINT, as Redis 7.0's: unless NOW is asked
// (or shutdown-timeout is 0), a master whose replicas have not acknowledged its whole stream
// first waits for them, at most shutdown-timeout seconds: writes pause (a pause purpose of its
// own), the replicas are asked for their offsets (REPLCONF GETACK), INFO shows
// shutdown_in_milliseconds, and the SHUTDOWN caller stays blocked. Each cron checks: once every
// replica caught up, or at the deadline, the sequence finishes: it logs the replicas still
// lagging and how many are in sync, saves the final snapshot (the save rules, or SAVE/NOSAVE),
// and asks the network layer to exit (Server::request_shutdown). A failed save without FORCE
// cancels it: the server keeps running, blocked SHUTDOWN callers get "Errors trying to SHUTDOWN",
// writes resume. SHUTDOWN ABORT cancels a waiting sequence the same way.
//
// Invariant: waiting() iff deadline_ms_ != 0; while waiting, the kShutdown pause is in force.
#pragma once

#include <cstdint>
#include <string_view>

namespace streamd::cmd {

class Server;

// SHUTDOWN callers wait on this (db, key), which no real key can be (see kWaitAckDb); the end of
// a wait that did not exit signals it, and their SHUTDOWN re-runs to answer.
constexpr int kShutdownWaitDb = -2;
constexpr std::string_view kShutdownWaitKey = "shutdown";

class ShutdownSequence {
 public:
  // Redis's SHUTDOWN_* flags; shutdown-on-sigterm / shutdown-on-sigint store the same values.
  static constexpr uint32_t kSave = 1;
  static constexpr uint32_t kNoSave = 2;
  static constexpr uint32_t kNow = 4;
  static constexpr uint32_t kForce = 8;

  enum class Outcome {
    kExiting,  // finished: the server exits
    kWaiting,  // waiting for replicas (or already shutting down): nothing more to do now
    kFailed,   // the final save failed and FORCE was not given: the server keeps running
  };

  explicit ShutdownSequence(Server& server) : server_(server) {}

  Outcome begin(uint32_t flags);
  // SHUTDOWN ABORT: false when no shutdown is waiting.
  bool abort();
  bool waiting() const { return deadline_ms_ != 0; }
  int64_t deadline_ms() const { return deadline_ms_; }
  // From the server's cron: finishes a waiting shutdown once its replicas caught up or at the
  // deadline.
  void cron(int64_t now_ms);

 private:
  Outcome finish();
  void cancel();

  Server& server_;
  uint32_t flags_ = 0;
  int64_t deadline_ms_ = 0;
  bool exiting_ = false;
};

}  // namespace streamd::cmd
