#include "streamd/persist/aof_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace streamd::persist {

namespace {

constexpr std::size_t kReadChunk = 1 << 20;
// "*"/"$", up to 20 digits and a sign, "\r\n": anything longer is not a header.
constexpr std::size_t kMaxHeaderLen = 32;

std::string printable(char c) {
  char buf[8];
  if (c >= 32 && c < 127) {
    std::snprintf(buf, sizeof buf, "'%c'", c);
  } else {
    std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned char>(c));
  }
  return buf;
}

}  // namespace

AofReader::~AofReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool AofReader::open(const std::string& path, std::string* err) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (err) *err = std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    if (err) *err = std::strerror(errno);
    ::close(fd);
    return false;
  }
  fd_ = fd;
  size_ = static_cast<uint64_t>(st.st_size);
  return true;
}

void AofReader::open_memory(std::string_view data) {
  memory_ = true;
  buf_.assign(data);
  end_ = buf_.size();
  size_ = buf_.size();
}

bool AofReader::ensure(std::size_t n) {
  if (end_ - pos_ >= n) return true;
  if (base_ + pos_ + n > size_) return false;  // the file ends first
  if (memory_) return false;
  // Keep the bytes of the command being parsed (its views are built at the end).
  std::size_t keep = static_cast<std::size_t>(cmd_offset_ - base_);
  if (keep > pos_) keep = pos_;
  if (keep > 0) {
    std::memmove(buf_.data(), buf_.data() + keep, end_ - keep);
    end_ -= keep;
    pos_ -= keep;
    base_ += keep;
  }
  std::size_t want = pos_ + n;
  std::size_t target = want < end_ + kReadChunk ? end_ + kReadChunk : want;
  if (buf_.size() < target) buf_.resize(target);
  while (end_ - pos_ < n) {
    ssize_t r =
        ::pread(fd_, buf_.data() + end_, buf_.size() - end_, static_cast<off_t>(base_ + end_));
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (r == 0) {
      // The file shrank under us: treat what is there as all there is.
      size_ = base_ + end_;
      return false;
    }
    end_ += static_cast<std::size_t>(r);
  }
  return true;
}

AofReader::Status AofReader::fail(Status st, uint64_t offset, std::string msg) {
  error_offset_ = offset;
  error_ = std::move(msg);
  return st;
}

bool AofReader::read_header(char prefix, long long& value, uint64_t& lines, Status& st) {
  uint64_t at = base_ + pos_;
  if (!ensure(1)) {
    st = fail(Status::kTruncated, at, "Unexpected end of file");
    return false;
  }
  if (buf_[pos_] != prefix) {
    st = fail(Status::kCorrupt, at,
              std::string("Expected prefix '") + prefix + "', got: " + printable(buf_[pos_]));
    return false;
  }
  std::size_t i = 1;
  bool neg = false;
  unsigned long long v = 0;
  int digits = 0;
  for (;; ++i) {
    if (i > kMaxHeaderLen) {
      st = fail(Status::kCorrupt, at, "Header line too long");
      return false;
    }
    if (!ensure(i + 1)) {
      st = fail(Status::kTruncated, at, "Unexpected end of file in a header");
      return false;
    }
    char c = buf_[pos_ + i];
    if (c == '\r') break;
    if (c == '-' && i == 1) {
      neg = true;
      continue;
    }
    if (c < '0' || c > '9' || digits >= 18) {
      st = fail(Status::kCorrupt, base_ + pos_ + i,
                std::string("Invalid number in a '") + prefix + "' header, got: " + printable(c));
      return false;
    }
    v = v * 10 + static_cast<unsigned>(c - '0');
    ++digits;
  }
  if (digits == 0) {
    st = fail(Status::kCorrupt, base_ + pos_ + i,
              std::string("Missing number in a '") + prefix + "' header");
    return false;
  }
  if (!ensure(i + 2)) {
    st = fail(Status::kTruncated, at, "Unexpected end of file in a header");
    return false;
  }
  if (buf_[pos_ + i + 1] != '\n') {
    st = fail(Status::kCorrupt, base_ + pos_ + i + 1,
              "Expected \\n after \\r, got: " + printable(buf_[pos_ + i + 1]));
    return false;
  }
  value = neg ? -static_cast<long long>(v) : static_cast<long long>(v);
  pos_ += i + 2;
  ++lines;
  return true;
}

AofReader::Status AofReader::next() {
  argv_.clear();
  spans_.clear();
  for (;;) {
    cmd_offset_ = base_ + pos_;
    if (cmd_offset_ >= size_) return Status::kEnd;
    if (!ensure(1)) return Status::kEnd;
    if (buf_[pos_] != '#') break;
    // An annotation: skip to the end of the line.
    std::size_t i = 1;
    for (;; ++i) {
      if (!ensure(i + 1)) return fail(Status::kTruncated, cmd_offset_, "Unterminated annotation");
      if (buf_[pos_ + i] == '\n') break;
    }
    pos_ += i + 1;
    valid_up_to_ = base_ + pos_;
    ++valid_lines_;
  }

  Status st = Status::kCommand;
  uint64_t lines = 0;
  long long argc = 0;
  if (!read_header('*', argc, lines, st)) return st;
  if (argc < 1) {
    return fail(Status::kCorrupt, cmd_offset_,
                "Invalid argument count " + std::to_string(argc) + " in a command");
  }
  spans_.reserve(static_cast<std::size_t>(argc < 1024 ? argc : 1024));
  for (long long a = 0; a < argc; ++a) {
    long long len = 0;
    uint64_t header_at = base_ + pos_;
    if (!read_header('$', len, lines, st)) return st;
    if (len < 0) return fail(Status::kCorrupt, header_at, "Negative bulk length");
    uint64_t at = base_ + pos_;
    uint64_t need = static_cast<uint64_t>(len) + 2;
    if (at + need > size_) {
      return fail(Status::kTruncated, at,
                  "Expected to read " + std::to_string(need) + " bytes, got " +
                      std::to_string(size_ - at) + " bytes");
    }
    if (!ensure(static_cast<std::size_t>(need))) {
      return fail(Status::kTruncated, at, "Unexpected end of file in a bulk");
    }
    std::size_t ulen = static_cast<std::size_t>(len);
    if (buf_[pos_ + ulen] != '\r' || buf_[pos_ + ulen + 1] != '\n') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "%02x%02x", static_cast<unsigned char>(buf_[pos_ + ulen]),
                    static_cast<unsigned char>(buf_[pos_ + ulen + 1]));
      return fail(Status::kCorrupt, at + ulen, std::string("Expected \\r\\n, got: ") + hex);
    }
    spans_.emplace_back(static_cast<std::size_t>(base_ + pos_ - cmd_offset_), ulen);
    pos_ += ulen + 2;
    ++lines;
  }
  const char* start = buf_.data() + (cmd_offset_ - base_);
  argv_.reserve(spans_.size());
  for (auto [off, len] : spans_) argv_.emplace_back(start + off, len);
  valid_up_to_ = base_ + pos_;
  valid_lines_ += lines;
  ++commands_;
  return Status::kCommand;
}

}  // namespace streamd::persist
