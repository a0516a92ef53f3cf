#include "streamd/persist/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace streamd::persist {

std::string join_path(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  std::string out(dir);
  if (out.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

std::size_t write_fully(int fd, std::string_view data, int* err) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (err) *err = errno;
      return done;
    }
    if (n == 0) {
      if (err) *err = ENOSPC;
      return done;
    }
    done += static_cast<std::size_t>(n);
  }
  return done;
}

int sync_file(int fd) {
  for (;;) {
    if (::fdatasync(fd) == 0) return 0;
    if (errno != EINTR) return errno;
  }
}

int sync_dir(const std::string& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  int rc = 0;
  for (;;) {
    if (::fsync(fd) == 0) break;
    if (errno != EINTR) {
      rc = errno;
      break;
    }
  }
  ::close(fd);
  return rc;
}

int replace_file(const std::string& dir, const std::string& name, const std::string& temp_name,
                 std::string_view content) {
  std::string tmp = join_path(dir, temp_name);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  int err = 0;
  if (write_fully(fd, content, &err) != content.size()) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return err;
  }
  if ((err = sync_file(fd)) != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return err;
  }
  ::close(fd);
  std::string dst = join_path(dir, name);
  if (::rename(tmp.c_str(), dst.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    return err;
  }
  return sync_dir(dir);
}

std::optional<std::string> read_file(const std::string& path, int* err) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (err) *err = errno;
    return std::nullopt;
  }
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (err) *err = errno;
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

std::optional<uint64_t> file_size(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.st_size);
}

bool path_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

int make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) == 0) return 0;
  if (errno == EEXIST) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return 0;
    return ENOTDIR;
  }
  return errno;
}

}  // namespace streamd::persist
