// AofWriter: appends propagated units to the current incremental AOF file, with Redis's fsync
// policies and group commit.
//
// Flow: append() encodes a unit into an in-memory buffer (SELECT when the database changes,
// MULTI ... EXEC around a unit of several records) and returns the unit's sequence number. The
// event loop calls sync() once per round, before any reply of that round leaves: the buffer is
// written with one write(2) and, under appendfsync always, fsynced with one fdatasync, so all
// the clients of a round share one fsync (group commit). Under everysec a background thread
// fsyncs once a second; under no, the kernel decides.
//
// Sequence numbers: appended_seq() counts units; written_seq() / synced_seq() say how far the
// file / the disk have got. must_hold(ticket) tells the network layer whether a client's output
// has to wait: while the file is healthy, any unwritten (always: unsynced) unit holds every
// reply of the round, so no client can see data that is not yet durable; after a write error
// only the clients whose own units are not durable are held (always), or none (everysec, no).
//
// Write errors (ENOSPC, EIO): the file is truncated back to its last good size so no partial
// record is left behind, the buffer is kept, write_ok() turns false (the server answers MISCONF
// to writes) and every later sync()/retry() tries again; the first successful write clears the
// error. An fsync error under always is fatal, as in Redis: the process exits rather than
// acknowledge data the disk may not hold.
//
// Threads: only the everysec fsync thread runs beside the event loop. It touches the file only
// through a dup() of the descriptor taken under mu_, so the main thread may switch or close
// files at any time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "streamd/commands/core/propagation.h"

namespace streamd::persist {

enum class FsyncPolicy { kAlways, kEverysec, kNo };

class AofWriter {
 public:
  AofWriter();
  ~AofWriter();
  AofWriter(const AofWriter&) = delete;
  AofWriter& operator=(const AofWriter&) = delete;

  void set_policy(FsyncPolicy p);
  FsyncPolicy policy() const { return policy_; }

  // Starts appending to `fd` (opened O_WRONLY | O_APPEND), which holds `size` bytes. The writer
  // owns the descriptor. The next unit starts with a SELECT.
  void open_file(int fd, std::string path, uint64_t size);
  // Writes what is buffered, fsyncs and closes the current file. Returns 0 or errno (the file
  // is closed either way; unwritten units stay buffered for the next file).
  int close_file();
  bool has_file() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  // The current file was renamed (the descriptor stays valid): log under its new name.
  void set_path(std::string path) { path_ = std::move(path); }

  // Adds a unit to the buffer; returns its sequence number.
  uint64_t append(const cmd::PropagationBatch& unit);
  // Raw bytes that must go to the file as they are (tests, the loader's fixes).
  void append_raw(std::string_view bytes);

  // How long sync() spent in write(2) and in fsync (appendfsync always), in microseconds; -1 for
  // a step it did not take. The latency monitor's aof-write and aof-fsync-always events.
  struct SyncTimes {
    int64_t write_us = -1;
    int64_t fsync_us = -1;
  };
  // Writes the buffer and fsyncs per policy.
  SyncTimes sync();
  // WAITAOF: fsyncs now if `ticket` is written but not yet synced. True if it is synced.
  bool fsync_through(uint64_t ticket);
  bool must_hold(uint64_t ticket) const;

  bool write_ok() const { return write_errno_ == 0 && fsync_errno_.load() == 0; }
  // The errno of the last failure (write or background fsync), 0 if healthy.
  int last_errno() const { return write_errno_ ? write_errno_ : fsync_errno_.load(); }
  uint64_t file_size() const { return file_size_; }
  uint64_t buffered() const { return buf_.size(); }
  uint64_t buffer_allocation() const { return buf_.capacity(); }
  uint64_t appended_seq() const { return appended_seq_; }
  uint64_t written_seq() const { return written_seq_.load(); }
  uint64_t synced_seq() const { return synced_seq_.load(); }

 private:
  void write_buffer();
  void raise_synced(uint64_t to);
  void start_thread();
  void stop_thread();
  void fsync_loop();

  FsyncPolicy policy_ = FsyncPolicy::kEverysec;
  std::string buf_;
  int selected_db_ = -1;
  int fd_ = -1;  // guarded by mu_ for the fsync thread
  std::string path_;
  uint64_t file_size_ = 0;  // bytes known to be good in the current file
  int write_errno_ = 0;
  int64_t last_error_log_ms_ = 0;

  uint64_t appended_seq_ = 0;
  std::atomic<uint64_t> written_seq_{0};
  std::atomic<uint64_t> synced_seq_{0};
  std::atomic<int> fsync_errno_{0};

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace streamd::persist
