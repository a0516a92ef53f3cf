#include "streamd/persist/check_aof.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "streamd/persist/aof_reader.h"
#include "streamd/persist/file_util.h"
#include "streamd/persist/manifest.h"
#include "streamd/text/ascii.h"

namespace streamd::persist {

namespace {

using text::iequals;

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

void report(std::FILE* out, const std::string& name, const CheckResult& r) {
  if (!r.valid)
    std::fprintf(out, "0x%16llx: %s\n", (unsigned long long)r.error_offset, r.error.c_str());
  std::fprintf(out,
               "AOF analyzed: filename=%s, size=%llu, ok_up_to=%llu, ok_up_to_line=%llu, "
               "diff=%llu\n",
               name.c_str(), (unsigned long long)r.size, (unsigned long long)r.ok_up_to,
               (unsigned long long)r.ok_up_to_line, (unsigned long long)(r.size - r.ok_up_to));
}

// Checks, reports and (with fix) truncates one file. Returns true if it is valid afterwards.
bool check_one(std::FILE* out, const std::string& path, const std::string& label, bool fix,
               bool fixable) {
  CheckResult r = check_aof_file(path);
  if (r.valid && r.size == 0) {
    std::fprintf(out, "%s is empty\n", label.c_str());
    return true;
  }
  report(out, path, r);
  if (r.valid) {
    std::fprintf(out, "%s is valid\n", label.c_str());
    return true;
  }
  if (!fix) {
    std::fprintf(out, "%s is not valid. Use the --fix option to try fixing it.\n", label.c_str());
    return false;
  }
  if (!fixable) {
    std::fprintf(out,
                 "%s is not valid and is not the last file: it cannot be fixed by "
                 "truncation.\n",
                 label.c_str());
    return false;
  }
  std::fprintf(out, "This will shrink the AOF %s from %llu bytes, with %llu bytes, to %llu bytes\n",
               path.c_str(), (unsigned long long)r.size, (unsigned long long)(r.size - r.ok_up_to),
               (unsigned long long)r.ok_up_to);
  if (::truncate(path.c_str(), static_cast<off_t>(r.ok_up_to)) != 0) {
    std::fprintf(out, "Failed to truncate AOF %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  std::fprintf(out, "Successfully truncated AOF %s\n", path.c_str());
  return true;
}

}  // namespace

CheckResult check_aof_file(const std::string& path) {
  CheckResult r;
  AofReader reader;
  std::string err;
  if (!reader.open(path, &err)) {
    r.valid = false;
    r.error = "Cannot open file: " + err;
    return r;
  }
  r.size = reader.file_size();
  bool in_multi = false;
  uint64_t multi_at = 0, multi_line = 0;
  for (;;) {
    AofReader::Status st = reader.next();
    if (st == AofReader::Status::kCommand) {
      std::string_view name = reader.argv()[0];
      if (iequals(name, "multi")) {
        if (in_multi) {
          r.valid = false;
          r.error = "Unexpected MULTI";
          r.error_offset = reader.command_offset();
          r.ok_up_to = multi_at;
          r.ok_up_to_line = multi_line;
          return r;
        }
        in_multi = true;
        multi_at = reader.command_offset();
        multi_line = reader.valid_lines() - 1 - 2;  // lines before the MULTI command
      } else if (iequals(name, "exec")) {
        if (!in_multi) {
          r.valid = false;
          r.error = "Unexpected EXEC";
          r.error_offset = reader.command_offset();
          r.ok_up_to = reader.command_offset();
          r.ok_up_to_line = reader.valid_lines() - 3;
          return r;
        }
        in_multi = false;
      }
      continue;
    }
    if (st == AofReader::Status::kEnd) break;
    r.valid = false;
    r.error = reader.error();
    r.error_offset = reader.error_offset();
    r.ok_up_to = in_multi ? multi_at : reader.valid_up_to();
    r.ok_up_to_line = in_multi ? multi_line : reader.valid_lines();
    return r;
  }
  if (in_multi) {
    r.valid = false;
    r.error = "Reached EOF before reading EXEC for MULTI";
    r.error_offset = r.size;
    r.ok_up_to = multi_at;
    r.ok_up_to_line = multi_line;
    return r;
  }
  r.ok_up_to = reader.valid_up_to();
  r.ok_up_to_line = reader.valid_lines();
  return r;
}

int check_aof_main(int argc, char** argv, std::FILE* out) {
  bool fix = false;
  std::string path;
  for (int i = 0; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--fix") {
      fix = true;
    } else if (path.empty()) {
      path = std::string(a);
    } else {
      path.clear();
      break;
    }
  }
  if (path.empty()) {
    std::fprintf(out, "Usage: streamd --check-aof [--fix] <file.manifest|file.aof>\n");
    return 1;
  }
  if (!path_exists(path)) {
    std::fprintf(out, "Cannot open file %s: %s\n", path.c_str(), std::strerror(ENOENT));
    return 1;
  }
  bool is_manifest = path.size() >= 9 && path.compare(path.size() - 9, 9, ".manifest") == 0;
  if (!is_manifest) {
    std::fprintf(out, "Start checking Old-Style AOF\n");
    return check_one(out, path, "AOF " + path, fix, true) ? 0 : 1;
  }

  std::fprintf(out, "Start checking Multi Part AOF\n");
  int err = 0;
  auto text = read_file(path, &err);
  if (!text) {
    std::fprintf(out, "Cannot open the manifest %s: %s\n", path.c_str(), std::strerror(err));
    return 1;
  }
  Manifest m;
  std::string why;
  if (!parse_manifest(*text, m, &why)) {
    std::fprintf(out, "Invalid AOF manifest file format (%s)\n", why.c_str());
    return 1;
  }
  std::string dir = dir_of(path);
  bool ok = true;
  if (m.base) {
    std::fprintf(out, "Start to check BASE AOF (RESP format).\n");
    std::string file = join_path(dir, m.base->name);
    if (!path_exists(file)) {
      std::fprintf(out, "BASE AOF %s does not exist\n", m.base->name.c_str());
      return 1;
    }
    ok = check_one(out, file, "BASE AOF " + m.base->name, fix, m.incrs.empty());
  }
  if (ok && !m.incrs.empty()) {
    std::fprintf(out, "Start to check INCR files.\n");
    for (std::size_t i = 0; i < m.incrs.size() && ok; ++i) {
      std::string file = join_path(dir, m.incrs[i].name);
      if (!path_exists(file)) {
        std::fprintf(out, "INCR AOF %s does not exist\n", m.incrs[i].name.c_str());
        return 1;
      }
      ok = check_one(out, file, "INCR AOF " + m.incrs[i].name, fix, i + 1 == m.incrs.size());
    }
  }
  if (!ok) return 1;
  std::fprintf(out, "All AOF files and manifest are valid\n");
  return 0;
}

}  // namespace streamd::persist
