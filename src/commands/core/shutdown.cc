#include "streamd/commands/core/shutdown.h"

#include <spdlog/spdlog.h>

#include <limits>

#include "streamd/commands/core/server.h"

namespace streamd::cmd {

ShutdownSequence::Outcome ShutdownSequence::begin(uint32_t flags) {
  if (exiting_ || waiting()) return Outcome::kWaiting;
  flags_ = flags;
  spdlog::warn("User requested shutdown...");
  Replication* repl = server_.replication();
  int64_t timeout_s = server_.config().ref<std::int64_t>("shutdown-timeout");
  if (!(flags & kNow) && timeout_s != 0 && repl && !repl->replicas_in_sync()) {
    // Let the replicas catch up first, so that nothing acknowledged to a client is lost.
    deadline_ms_ = server_.clock().now_ms() + timeout_s * 1000;
    if (!server_.client_pause().active()) repl->request_acks();
    server_.pause_clients(ClientPause::Purpose::kShutdown, ClientPause::Mode::kWrite,
                          std::numeric_limits<int64_t>::max());
    spdlog::info("Waiting for replicas before shutting down.");
    return Outcome::kWaiting;
  }
  return finish();
}

void ShutdownSequence::cron(int64_t now_ms) {
  if (!waiting()) return;
  Replication* repl = server_.replication();
  if (now_ms < deadline_ms_ && repl && !repl->replicas_in_sync()) return;
  finish();
}

ShutdownSequence::Outcome ShutdownSequence::finish() {
  if (Replication* repl = server_.replication()) repl->log_replicas_at_shutdown();
  if (Snapshots* snap = server_.snapshots()) {
    auto mode = (flags_ & kSave)     ? Snapshots::ShutdownSave::kSave
                : (flags_ & kNoSave) ? Snapshots::ShutdownSave::kNoSave
                                     : Snapshots::ShutdownSave::kDefault;
    if (!snap->shutdown_save(mode)) {
      if (!(flags_ & kForce)) {
        spdlog::warn("Errors trying to shut down the server. Check the logs for more information.");
        cancel();
        return Outcome::kFailed;
      }
      spdlog::warn("Error trying to save the DB. Exit anyway.");
    }
  }
  exiting_ = true;
  deadline_ms_ = 0;
  if (server_.request_shutdown) server_.request_shutdown();
  return Outcome::kExiting;
}

bool ShutdownSequence::abort() {
  if (!waiting()) return false;
  cancel();
  spdlog::info("Shutdown manually aborted.");
  return true;
}

void ShutdownSequence::cancel() {
  flags_ = 0;
  deadline_ms_ = 0;
  // Blocked SHUTDOWN callers re-run and, finding no shutdown under way, answer the error.
  server_.blocking().signal_ready(kShutdownWaitDb, kShutdownWaitKey);
  server_.unpause_clients(ClientPause::Purpose::kShutdown);
}

}  // namespace streamd::cmd
