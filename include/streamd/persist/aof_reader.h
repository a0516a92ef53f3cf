// AofReader: reads an append-only file in RESP command form (`*<argc>\r\n$<len>\r\n<arg>\r\n...`)
// one command at a time, the way both the loader and `streamd --check-aof` walk a file.
//
// It tells three endings apart, because they are handled differently:
// - kEnd: the file ends exactly after a command (or an annotation line);
// - kTruncated: the file ends inside a command (a crash during a write, a full disk): the loader
//   may drop that tail (aof-load-truncated), and valid_up_to() is where to cut;
// - kCorrupt: a byte that cannot be there (a bad prefix, a bad number, a missing \r\n): startup
//   stops, naming the file and error_offset().
// Lines starting with '#' between commands are annotations (Redis writes `#TS:...` with
// aof-timestamp-enabled) and are skipped. A declared length that reaches past the end of the
// file is a truncation, not a reason to buffer: lengths are checked against the file size first.
//
// Views returned by argv() stay valid until the next call to next().
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::persist {

class AofReader {
 public:
  enum class Status { kCommand, kEnd, kTruncated, kCorrupt };

  AofReader() = default;
  ~AofReader();
  AofReader(const AofReader&) = delete;
  AofReader& operator=(const AofReader&) = delete;

  // Opens a file. On failure returns false with a strerror-style message in *err.
  bool open(const std::string& path, std::string* err);
  // Reads from memory instead (tests); the data must outlive the reader.
  void open_memory(std::string_view data);

  Status next();

  // The command just read (kCommand).
  std::span<const std::string_view> argv() const { return argv_; }
  // Where the command just read starts.
  uint64_t command_offset() const { return cmd_offset_; }
  // The end of the last complete command or annotation: everything before it is valid.
  uint64_t valid_up_to() const { return valid_up_to_; }
  // Lines (as a text editor counts them) before valid_up_to(), for check-aof's report.
  uint64_t valid_lines() const { return valid_lines_; }
  // kTruncated / kCorrupt: the offset of the offending byte and a description.
  uint64_t error_offset() const { return error_offset_; }
  const std::string& error() const { return error_; }
  uint64_t file_size() const { return size_; }
  uint64_t commands_read() const { return commands_; }

 private:
  // Makes `n` bytes from pos_ available in buf_ (may move the buffered bytes); false if the
  // file ends first.
  bool ensure(std::size_t n);
  // Reads a header line ("*12\r\n", "$3\r\n") at pos_: returns false with the status set.
  bool read_header(char prefix, long long& value, uint64_t& lines, Status& st);
  Status fail(Status st, uint64_t offset, std::string msg);

  int fd_ = -1;
  bool memory_ = false;
  std::string_view mem_;
  std::string buf_;  // buffered file bytes; buf_[0] is at file offset base_
  uint64_t base_ = 0;
  std::size_t pos_ = 0;  // parse position in buf_
  std::size_t end_ = 0;  // bytes of buf_ that hold data
  uint64_t size_ = 0;

  std::vector<std::string_view> argv_;
  std::vector<std::pair<std::size_t, std::size_t>> spans_;  // (offset from command start, len)
  uint64_t cmd_offset_ = 0;
  uint64_t valid_up_to_ = 0;
  uint64_t valid_lines_ = 0;
  uint64_t error_offset_ = 0;
  std::string error_;
  uint64_t commands_ = 0;
};

}  // namespace streamd::persist
