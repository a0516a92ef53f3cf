// libFuzzer target for loading an AOF at startup: random bytes as a manifest and the files it
// lists, loaded through persist::load_aof with the server's own LoadingRunner (every command
// through cmd::Dispatcher), with a manual clock (build and run:
// tests/fuzz/build_and_run.sh aof_loader).
//
// Input: byte 0 holds the options (bit 0: aof-load-truncated yes), then sections separated by
// the line "@@@@": the manifest text first, then the content of each file it lists, in load
// order (base, then incremental files). A listed file with no section is missing.
//
// Checked:
// - a manifest that parses serializes to text that parses back to the same manifest, and names
//   no path (the loader reads, and may truncate, only files of its directory);
// - loading either succeeds or says why;
// - a load that cut a truncated last file (aof-load-truncated yes) loads again from the cut files
//   completely, with nothing left to cut, to the same keyspace (a cut MULTI block had no effect);
// - the keyspace a successful load built, written as a rewrite's base file (write_dataset) and
//   loaded into a fresh server, is written back the same, key by key (what BGREWRITEAOF
//   promises for any state commands can build).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/server.h"
#include "streamd/config/config.h"
#include "streamd/engine/clock.h"
#include "streamd/persist/aof_loader.h"
#include "streamd/persist/dataset_writer.h"
#include "streamd/persist/file_util.h"
#include "streamd/persist/loading_runner.h"
#include "streamd/persist/manifest.h"
#include "streamd/resp/request_parser.h"

namespace {

using namespace streamd;

constexpr int64_t kNowMs = 1700000000000;
constexpr std::string_view kSeparator = "\n@@@@\n";

std::string g_dir;  // this process's scratch directory

void check(bool ok) {
  if (!ok) std::abort();
}

// A server that loads files, as startup does before it serves anyone.
struct Loaded {
  engine::ManualClock clock{kNowMs};
  config::Config cfg;
  cmd::Server server{cfg, clock};
  cmd::Dispatcher dispatcher{server};

  persist::LoadResult load(const persist::Manifest& m, bool truncated_ok) {
    persist::LoadingRunner runner(dispatcher);
    persist::LoadOptions opts;
    opts.load_truncated = truncated_ok;
    return persist::load_aof(g_dir, m, runner, opts);
  }

  std::string dataset() {
    std::string out;
    persist::write_dataset(server.keyspace(), clock.now_ms(), [&out](std::string_view chunk) {
      out.append(chunk);
      return true;
    });
    return out;
  }
};

// A dataset's commands, each prefixed with its database, sorted: the order keys come out of the
// keyspace depends on its hash tables' history, which two servers holding the same data need not
// share; each key's own commands keep their order among themselves.
std::vector<std::string> canonical(std::string_view dataset) {
  resp::RequestParser parser(resp::ParserLimits{});
  std::vector<std::string_view> args;
  std::vector<std::string> out;
  std::string db = "0";
  std::string_view key;
  while (!dataset.empty()) {
    std::size_t consumed = 0;
    check(parser.parse(dataset, consumed, args) == resp::RequestParser::Status::kComplete);
    if (args.size() == 2 && args[0] == "SELECT") {
      db = std::string(args[1]);
      key = {};
    } else {
      std::string cmd = db;
      for (auto a : args) cmd += " " + std::to_string(a.size()) + ":" + std::string(a);
      // Consecutive commands on one key form one element.
      std::string_view k = args.size() > 1 ? args[1] : std::string_view{};
      if (!out.empty() && k == key) {
        out.back() += "\n" + cmd;
      } else {
        out.push_back(cmd);
      }
      key = k;
    }
    dataset.remove_prefix(consumed);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Writes a listed file; false when the file system refuses its name. A manifest may list a name
// longer than NAME_MAX (the manifest has no length rule, nor has Redis's): such a file cannot
// exist, and loading must then fail saying why, as Redis stops on "Unable to obtain the AOF file
// ... length. stat: File name too long".
bool write_file(const std::string& name, std::string_view content) {
  std::string path = persist::join_path(g_dir, name);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    check(errno == ENAMETOOLONG);
    return false;
  }
  check(std::fwrite(content.data(), 1, content.size(), f) == content.size());
  check(std::fclose(f) == 0);
  return true;
}

void clear_dir(const std::vector<std::string>& names) {
  for (const auto& n : names) ::unlink(persist::join_path(g_dir, n).c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  cmd::CommandTable::instance();
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/streamd-aof-fuzz-XXXXXX";
  check(::mkdtemp(templ.data()) != nullptr);
  g_dir = templ;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  bool truncated_ok = data[0] & 1;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string_view> sections;
  for (;;) {
    std::size_t at = rest.find(kSeparator);
    sections.push_back(rest.substr(0, at));
    if (at == std::string_view::npos) break;
    rest.remove_prefix(at + kSeparator.size());
  }

  persist::Manifest m;
  std::string err;
  if (!persist::parse_manifest(sections[0], m, &err)) {
    check(!err.empty());
    return 0;
  }
  persist::Manifest again;
  check(persist::parse_manifest(m.serialize(), again, &err));
  check(again == m);

  std::vector<std::string> names;
  if (m.base) names.push_back(m.base->name);
  for (const auto& f : m.incrs) names.push_back(f.name);
  for (const auto& n : names) check(!n.empty() && n.find('/') == std::string::npos);
  clear_dir(names);
  bool unnamable = false;  // a listed file the file system cannot hold
  for (std::size_t i = 0; i < names.size() && i + 1 < sections.size(); ++i) {
    if (!write_file(names[i], sections[i + 1])) unnamable = true;
  }

  std::string dataset;
  {
    Loaded first;
    persist::LoadResult r = first.load(m, truncated_ok);
    check(!r.ok || !unnamable);
    if (!r.ok) {
      check(!r.error.empty());
      clear_dir(names);
      return 0;
    }
    check(!r.truncated || truncated_ok);
    dataset = first.dataset();
    bool distinct = std::set<std::string>(names.begin(), names.end()).size() == names.size();
    if (r.truncated && distinct) {
      Loaded second;
      persist::LoadResult r2 = second.load(m, false);
      check(r2.ok && !r2.truncated && r2.commands <= r.commands);
      check(canonical(second.dataset()) == canonical(dataset));
    }
  }

  // The rewrite round trip: the dataset as a base file loads back to the same dataset.
  persist::Manifest base_only;
  base_only.base = persist::AofFileInfo{"fuzz.base.aof", 1, persist::AofFileType::kBase};
  write_file(base_only.base->name, dataset);
  {
    Loaded rebuilt;
    persist::LoadResult r = rebuilt.load(base_only, false);
    check(r.ok);
    check(canonical(rebuilt.dataset()) == canonical(dataset));
  }
  clear_dir(names);
  clear_dir({base_only.base->name});
  return 0;
}
