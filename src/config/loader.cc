// Loading the configuration at startup: the command line, the config file (with include), stdin
// and the flags, the way redis-server 7.0.15 reads them.
#include <glob.h>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "file_io.h"
#include "messages.h"
#include "streamd/config/config.h"
#include "streamd/config/syntax.h"
#include "streamd/text/split_args.h"

#ifndef STREAMD_VERSION
#define STREAMD_VERSION "unknown"
#endif

namespace streamd::config {

// Values being loaded (committed only if the whole load succeeds), and which directives were
// already seen (the first `save` line replaces the default, later ones add to it).
struct Config::LoadState {
  std::vector<Value> values;
  std::vector<bool> seen;
  std::vector<CommandRename> renames = {};
  std::vector<UserLine> users = {};
  int include_depth = 0;
};

namespace {

constexpr int kMaxIncludeDepth = 16;

bool starts_with_dashes(std::string_view s) {
  return s.size() >= 2 && s[0] == '-' && s[1] == '-';
}

}  // namespace

LoadError rename_error(const CommandRename& r, RenameError e) {
  LoadError err = r.at;
  err.message = std::string(e == RenameError::kNoSuchCommand ? msg::kRenameNoSuchCommand
                                                             : msg::kRenameTargetExists);
  return err;
}

std::string LoadError::fatal_text(std::string_view product) const {
  if (line == 0) return message;
  return msg::fatal_config_error(product, line, line_text, message);
}

EarlyAction early_action(int argc, const char* const* argv) {
  if (argc < 2) return EarlyAction::kNone;
  const std::string_view a = argv[1];
  if (a == "-v" || a == "--version") return EarlyAction::kVersion;
  if (a == "-h" || a == "--help") return EarlyAction::kHelp;
  return EarlyAction::kNone;
}

CommandLine parse_command_line(int argc, const char* const* argv) {
  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_command_line(args);
}

CommandLine parse_command_line(std::span<const std::string_view> args) {
  CommandLine cl;
  const std::size_t n = args.size();
  std::size_t j = 0;
  if (n > 0 && !args[0].empty() && args[0][0] != '-') {
    cl.config_file = std::string(args[0]);
    j = 1;
  }
  bool need_value = false;  // the previous word was a flag name, so this word is its value
  for (; j < n; ++j) {
    const std::string_view a = args[j];
    if (a == "-" && (j == 0 || j == n - 1)) {
      cl.config_from_stdin = true;
      continue;
    }
    if (!need_value && starts_with_dashes(a)) {
      if (!cl.options.empty()) cl.options += '\n';
      const std::string_view name = a.substr(2);
      cl.options += name;
      need_value = true;
      // `--save` with nothing after it (or another flag) means save "".
      if (iequals(name, "save") && (j + 1 == n || starts_with_dashes(args[j + 1]))) {
        cl.options += " \"\"";
        need_value = false;
      }
      continue;
    }
    cl.options += ' ';
    cl.options += quote(a);
    need_value = false;
  }
  return cl;
}

std::optional<LoadError> Config::apply_line(std::string_view raw, int line_no,
                                            LoadState& st) const {
  const std::string_view line = trim_line(raw);
  if (line.empty() || line[0] == '#') return std::nullopt;
  auto fail = [&](std::string message) {
    return LoadError{line_no, std::string(line), std::move(message)};
  };
  auto args = text::split_args(line);
  if (!args) return fail(std::string(msg::kUnbalancedQuotes));
  if (args->empty()) return std::nullopt;
  const std::string name = ascii_lower((*args)[0]);
  const std::span<const std::string> rest = std::span<const std::string>(*args).subspan(1);

  if (name == "include" && rest.size() == 1) {
    if (st.include_depth >= kMaxIncludeDepth) return fail(std::string(msg::kIncludeTooDeep));
    const std::string& pattern = rest[0];
    if (pattern.find_first_of("*?[") == std::string::npos) return load_file_into(pattern, st);
    glob_t g{};
    const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
    std::optional<LoadError> err;
    if (rc == 0) {
      for (std::size_t i = 0; i < g.gl_pathc && !err; ++i) err = load_file_into(g.gl_pathv[i], st);
    }
    ::globfree(&g);
    return err;  // a pattern matching nothing includes nothing
  }

  // Redis takes exactly two names; any other count is an unknown directive line.
  if (name == "rename-command" && rest.size() == 2) {
    st.renames.push_back({rest[0], rest[1], LoadError{line_no, std::string(line), ""}});
    return std::nullopt;
  }

  // `user <name> <rules...>`: ACL users, applied by startup once commands exist (the config
  // layer knows no ACL rules). Redis needs at least the name.
  if (name == "user" && !rest.empty()) {
    st.users.push_back({std::vector<std::string>(rest.begin(), rest.end()),
                        LoadError{line_no, std::string(line), ""}});
    return std::nullopt;
  }

  const Directive* d = find(name);
  if (!d) return fail(std::string(msg::kBadDirective));
  if (!accepts_arg_count(*d, rest.size())) return fail(std::string(msg::kWrongArgCount));
  const std::size_t i = index_of(*d);
  // A multi-word directive given as one argument (`bind "127.0.0.1 -::1"`, `--save "900 1"`,
  // `save ""`) has that argument split again, with the config-line rules (runs of spaces count
  // as one), as redis-server does. Several arguments are taken as they are.
  std::vector<std::string> words;
  if (d->type == Type::kSpecial && d->special->split_set_value && rest.size() == 1) {
    words = text::split_args(rest[0]).value_or(std::vector<std::string>{rest[0]});
  } else {
    words.assign(rest.begin(), rest.end());
  }
  if (auto err = parse_value(*d, words, st.values[i], !st.seen[i])) return fail(std::move(*err));
  st.seen[i] = true;
  return std::nullopt;
}

std::optional<LoadError> Config::load_text_into(std::string_view text, LoadState& st) const {
  int line_no = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line_no;
    if (auto err = apply_line(text.substr(start, end - start), line_no, st)) return err;
    start = end + 1;
  }
  return std::nullopt;
}

std::optional<LoadError> Config::load_file_into(const std::string& path, LoadState& st) const {
  std::string text;
  if (int err = read_file(path, text); err != 0) {
    return LoadError{0, "", msg::cant_open_file(path, std::strerror(err))};
  }
  ++st.include_depth;
  auto err = load_text_into(text, st);
  --st.include_depth;
  return err;
}

std::optional<LoadError> Config::load(const CommandLine& cmdline) {
  LoadState st{values_, std::vector<bool>(values_.size(), false)};
  // One text, as redis-server builds it: the file, then stdin, then "\n" and the flags. Line
  // numbers in errors count through it.
  std::string text;
  if (!cmdline.config_file.empty()) {
    if (int err = read_file(cmdline.config_file, text); err != 0) {
      return LoadError{0, "", msg::cant_open_file(cmdline.config_file, std::strerror(err))};
    }
  }
  if (cmdline.config_from_stdin) {
    text.append(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  if (!cmdline.options.empty()) {
    text += '\n';
    text += cmdline.options;
  }
  if (auto err = load_text_into(text, st)) return err;
  for (std::size_t i = 0; i < values_.size(); ++i) values_[i] = std::move(st.values[i]);
  renames_ = std::move(st.renames);
  users_ = std::move(st.users);
  if (!cmdline.config_file.empty()) {
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(cmdline.config_file, ec);
    config_file_ = ec ? cmdline.config_file : abs.lexically_normal().string();
  }
  return std::nullopt;
}

std::optional<LoadError> Config::load_text(std::string_view text) {
  LoadState st{values_, std::vector<bool>(values_.size(), false)};
  if (auto err = load_text_into(text, st)) return err;
  for (std::size_t i = 0; i < values_.size(); ++i) values_[i] = std::move(st.values[i]);
  renames_ = std::move(st.renames);
  users_ = std::move(st.users);
  return std::nullopt;
}

bool load_from_command_line(Config& cfg, int argc, const char* const* argv,
                            std::string& config_file, std::string& error) {
  const CommandLine cl = parse_command_line(argc, argv);
  if (auto err = cfg.load(cl)) {
    error = err->fatal_text("streamd " STREAMD_VERSION);
    return false;
  }
  config_file = cfg.config_file();
  return true;
}

}  // namespace streamd::config
