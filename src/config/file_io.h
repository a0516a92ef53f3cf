// Small file helpers of the config layer (internal).
#pragma once

#include <string>
#include <string_view>

namespace streamd::config {

// Reads a whole file into `out`; returns 0 or the errno of the failure.
int read_file(const std::string& path, std::string& out);

// Replaces `path` with `content` atomically: a temporary file in the same directory, fsync,
// rename. Keeps the permission bits of an existing file and writes through a symlink to its
// target. Returns 0 or an errno.
int replace_file(const std::string& path, std::string_view content);

}  // namespace streamd::config
