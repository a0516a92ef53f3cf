// Small POSIX file helpers for the AOF: whole writes, fsync of files and directories, atomic
// replacement of a small file (the manifest). Errors come back as errno values; no exceptions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace streamd::persist {

std::string join_path(std::string_view dir, std::string_view name);

// Writes all of `data` to `fd` (retrying EINTR and short writes). Returns the number of bytes
// written; on a failure it is less than data.size() and *err holds errno (ENOSPC for a short
// write that reported no error).
std::size_t write_fully(int fd, std::string_view data, int* err);

// fdatasync; retries EINTR. Returns 0 or errno.
int sync_file(int fd);
// Makes a directory's entries (created, renamed, removed files) durable. Returns 0 or errno.
int sync_dir(const std::string& dir);

// Replaces dir/name with `content` atomically: dir/temp_name is written, fsynced and renamed
// over dir/name, then the directory is fsynced. Returns 0 or errno.
int replace_file(const std::string& dir, const std::string& name, const std::string& temp_name,
                 std::string_view content);

// Reads a whole (small) file. nullopt with *err = errno on failure.
std::optional<std::string> read_file(const std::string& path, int* err);

// Size of a file, or nullopt if it cannot be stat'ed.
std::optional<uint64_t> file_size(const std::string& path);

// Whether a path exists (any type).
bool path_exists(const std::string& path);

// Creates a directory if missing (one level). Returns 0 or errno.
int make_dir(const std::string& path);

}  // namespace streamd::persist
