// `streamd --check-aof [--fix] <file.manifest|file.aof>`: checks an append-only file the way
// redis-check-aof does, and with --fix cuts it back to its last complete command (or to before
// an unterminated MULTI). For a manifest, every file it lists is checked; only the last one can
// be fixed (an earlier file that is damaged cannot be repaired by truncation).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace streamd::persist {

struct CheckResult {
  bool valid = true;
  uint64_t size = 0;
  uint64_t ok_up_to = 0;
  uint64_t ok_up_to_line = 0;
  std::string error;  // what is wrong, if not valid
  uint64_t error_offset = 0;
};

// Checks one file in RESP command form.
CheckResult check_aof_file(const std::string& path);

// The command-line tool. args are the arguments after "--check-aof". Prints to `out`; returns
// the process exit code (0 valid or fixed, 1 otherwise).
int check_aof_main(int argc, char** argv, std::FILE* out);

}  // namespace streamd::persist
