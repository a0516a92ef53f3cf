#include "streamd/persist/aof_loader.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "streamd/persist/aof_reader.h"
#include "streamd/persist/file_util.h"
#include "streamd/text/ascii.h"

namespace streamd::persist {

namespace {

using text::iequals;

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Redis 7 tells an RDB base from a RESP one by its first five bytes.
bool starts_with_rdb_magic(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[5];
  bool rdb = ::read(fd, magic, sizeof magic) == static_cast<ssize_t>(sizeof magic) &&
             std::string_view(magic, sizeof magic) == "REDIS";
  ::close(fd);
  return rdb;
}

std::string fix_hint(const std::string& dir) {
  return "make a backup of your AOF directory, then use `streamd --check-aof --fix " +
         join_path(dir, "<appendfilename>.manifest") + "`";
}

struct FileLoad {
  const std::string& dir;
  AofCommandRunner& runner;
  const LoadOptions& opts;
  LoadResult& result;
  uint64_t done_before = 0;  // bytes of earlier files
  uint64_t total = 0;

  bool fail(std::string msg) {
    spdlog::warn("{}", msg);
    result.ok = false;
    result.error = std::move(msg);
    return false;
  }

  bool cut(const std::string& path, const std::string& name, uint64_t at, const char* why) {
    spdlog::warn("!!! Warning: {} while loading the AOF file {}!!!", why, name);
    if (!opts.load_truncated) {
      return fail("AOF file " + name + " ends with an incomplete command at offset " +
                  std::to_string(at) +
                  ": set aof-load-truncated yes to load it anyway (the incomplete tail is "
                  "dropped), or " +
                  fix_hint(dir));
    }
    spdlog::warn("!!! Truncating the AOF {} at offset {} !!!", name, at);
    if (::truncate(path.c_str(), static_cast<off_t>(at)) != 0) {
      return fail("Error truncating the AOF file " + name + ": " + std::strerror(errno));
    }
    spdlog::warn("AOF {} loaded anyway because aof-load-truncated is enabled", name);
    result.truncated = true;
    return true;
  }

  bool load(const AofFileInfo& f, bool last, const char* kind) {
    std::string path = join_path(dir, f.name);
    auto t0 = std::chrono::steady_clock::now();
    if (f.type == AofFileType::kBase && starts_with_rdb_magic(path)) {
      if (!opts.load_rdb) return fail("The AOF base file " + f.name + " is an RDB");
      std::string why;
      if (!opts.load_rdb(path, &why)) {
        return fail("Bad RDB base file " + f.name + " of the AOF: " + why);
      }
      done_before += file_size(path).value_or(0);
      spdlog::info("DB loaded from {} file {}: {:.3f} seconds", kind, f.name, since(t0));
      return true;
    }
    AofReader r;
    std::string err;
    if (!r.open(path, &err)) {
      return fail("Can't open the append-only file " + f.name + " (" + kind + "): " + err);
    }
    if (r.file_size() == 0) {
      spdlog::info("DB loaded from {} file {}: it is empty", kind, f.name);
      return true;
    }
    bool in_multi = false;
    uint64_t multi_at = 0;
    uint64_t next_progress = 0;
    for (;;) {
      AofReader::Status st = r.next();
      if (st == AofReader::Status::kCommand) {
        std::span<const std::string_view> argv = r.argv();
        if (iequals(argv[0], "multi")) {
          in_multi = true;
          multi_at = r.command_offset();
        } else if (iequals(argv[0], "exec")) {
          in_multi = false;
        }
        if (!runner.known(argv)) {
          return fail("Unknown command '" + std::string(argv[0]) +
                      "' reading the append only file " + f.name + " at offset " +
                      std::to_string(r.command_offset()));
        }
        runner.run(argv);
        ++result.commands;
        if (opts.progress && r.valid_up_to() >= next_progress) {
          opts.progress(done_before + r.valid_up_to(), total);
          next_progress = r.valid_up_to() + (1u << 20);
        }
        continue;
      }
      if (st == AofReader::Status::kEnd) break;
      if (st == AofReader::Status::kCorrupt) {
        return fail("Bad file format reading the append only file " + f.name + " at offset " +
                    std::to_string(r.error_offset()) + " (" + r.error() + "): " + fix_hint(dir));
      }
      // Truncated: only the last file can legitimately end in the middle of a command.
      if (!last) {
        return fail("Unexpected end of file reading the append only file " + f.name +
                    " at offset " + std::to_string(r.error_offset()) + " (" + r.error() +
                    "), which is not the last one: " + fix_hint(dir));
      }
      if (!cut(path, f.name, in_multi ? multi_at : r.valid_up_to(), "short read")) return false;
      if (in_multi) runner.discard_transaction();
      in_multi = false;
      break;
    }
    if (in_multi) {
      if (!last) {
        return fail("The append only file " + f.name + " ends inside a MULTI block and is not " +
                    "the last one: " + fix_hint(dir));
      }
      spdlog::warn("Revert incomplete MULTI/EXEC transaction in AOF file {}", f.name);
      if (!cut(path, f.name, multi_at, "unterminated MULTI")) return false;
      runner.discard_transaction();
    }
    done_before += r.file_size();
    spdlog::info("DB loaded from {} file {}: {:.3f} seconds", kind, f.name, since(t0));
    return true;
  }
};

}  // namespace

LoadResult load_aof(const std::string& dir, const Manifest& m, AofCommandRunner& runner,
                    const LoadOptions& opts) {
  LoadResult result;
  auto t0 = std::chrono::steady_clock::now();
  FileLoad fl{dir, runner, opts, result};
  std::vector<const AofFileInfo*> files;
  if (m.base) files.push_back(&*m.base);
  for (const auto& f : m.incrs) files.push_back(&f);
  for (const auto* f : files) fl.total += file_size(join_path(dir, f->name)).value_or(0);
  result.bytes = fl.total;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const AofFileInfo& f = *files[i];
    bool last = i + 1 == files.size();
    const char* kind = f.type == AofFileType::kBase ? "base" : "incr";
    if (!fl.load(f, last, kind)) break;
  }
  result.seconds = since(t0);
  return result;
}

}  // namespace streamd::persist
