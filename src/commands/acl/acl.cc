#include "streamd/commands/acl/acl.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "streamd/text/ascii.h"

namespace streamd::cmd::acl {

namespace {

std::string_view trim_chars(std::string_view s, std::string_view chars) {
  std::size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return {};
  std::size_t e = s.find_last_not_of(chars);
  return s.substr(b, e - b + 1);
}

// Words split by single spaces, empty ones kept (sdssplitlen(" ")), as Redis reads ACL files.
std::vector<std::string_view> split_spaces(std::string_view s) {
  std::vector<std::string_view> out;
  while (true) {
    std::size_t sp = s.find(' ');
    out.push_back(s.substr(0, sp));
    if (sp == std::string_view::npos) break;
    s.remove_prefix(sp + 1);
  }
  return out;
}

// Redis groups an event with a logged one this close in time.
constexpr int64_t kLogGroupingMs = 60000;

User default_user_rules(bool all_channels_default) {
  User u("default", all_channels_default);
  for (std::string_view r : {"+@all", "~*", "&*", "on", "nopass"}) u.apply(r, all_channels_default);
  return u;
}

}  // namespace

std::optional<std::vector<std::string>> merge_selector_args(std::span<const std::string_view> args,
                                                            std::size_t* open_at) {
  std::vector<std::string> out;
  std::optional<std::size_t> open;
  std::string selector;
  for (std::size_t j = 0; j < args.size(); ++j) {
    std::string_view op = args[j];
    if (!open && !op.empty() && op.front() == '(' && op.back() != ')') {
      selector = std::string(op);
      open = j;
      continue;
    }
    if (open) {
      selector += ' ';
      selector += op;
      if (!op.empty() && op.back() == ')') {
        open.reset();
        out.push_back(std::move(selector));
      }
      continue;
    }
    out.emplace_back(op);
  }
  if (open) {
    if (open_at) *open_at = *open;
    return std::nullopt;
  }
  return out;
}

Acl::Acl() : default_(std::make_shared<User>(default_user_rules(false))) {
  users_.emplace("default", default_);
}

std::shared_ptr<User> Acl::find(std::string_view name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second;
}

std::optional<std::string> Acl::apply_all(User& u, std::span<const std::string_view> rules) const {
  std::size_t open_at = 0;
  auto merged = merge_selector_args(rules, &open_at);
  if (!merged) {
    return fmt::format("Unmatched parenthesis in acl selector starting at '{}'.", rules[open_at]);
  }
  for (const std::string& r : *merged) {
    if (RuleError e = u.apply(r, all_channels_default_); e != RuleError::kNone) {
      return fmt::format("Error in ACL SETUSER modifier '{}': {}", r, rule_error_text(e));
    }
  }
  return std::nullopt;
}

std::optional<std::string> Acl::set_user(std::string_view name,
                                         std::span<const std::string_view> rules) {
  std::shared_ptr<User> existing = find(name);
  User staged = existing ? *existing : User(std::string(name), all_channels_default_);
  if (auto err = apply_all(staged, rules)) return err;
  if (existing) {
    *existing = std::move(staged);
  } else {
    users_.emplace(std::string(name), std::make_shared<User>(std::move(staged)));
  }
  return std::nullopt;
}

std::shared_ptr<User> Acl::remove(std::string_view name) {
  auto it = users_.find(name);
  if (it == users_.end() || it->second == default_) return nullptr;
  std::shared_ptr<User> u = std::move(it->second);
  users_.erase(it);
  return u;
}

void Acl::set_requirepass(std::string_view pass) {
  default_->apply("resetpass", all_channels_default_);
  if (pass.empty()) {
    default_->apply("nopass", all_channels_default_);
  } else {
    default_->apply(">" + std::string(pass), all_channels_default_);
  }
}

std::shared_ptr<User> Acl::authenticate(std::string_view name, std::string_view pass) const {
  std::shared_ptr<User> u = find(name);
  if (!u || !u->enabled || !u->check_password(pass)) return nullptr;
  return u;
}

std::optional<std::string> Acl::load_text(std::string_view text, std::string_view filename) {
  std::map<std::string, std::shared_ptr<User>, std::less<>> loaded;
  std::string errors;
  int linenum = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim_chars(text.substr(start, end - start), " \t\r\n");
    start = end + 1;
    ++linenum;
    if (line.empty()) continue;
    std::vector<std::string_view> argv = split_spaces(line);
    if (argv[0] != "user" || argv.size() < 2) {
      errors += fmt::format("{}:{} should start with user keyword followed by the username. ",
                            filename, linenum);
      continue;
    }
    if (has_spaces(argv[1])) {
      errors += fmt::format("'{}:{}: username '{}' contains invalid characters. ", filename,
                            linenum, argv[1]);
      continue;
    }
    if (loaded.count(argv[1])) {
      errors += fmt::format("WARNING: Duplicate user '{}' found on line {}. ", argv[1], linenum);
      continue;
    }
    auto u = std::make_shared<User>(std::string(argv[1]), all_channels_default_);
    loaded.emplace(std::string(argv[1]), u);
    auto merged = merge_selector_args(std::span(argv).subspan(2), nullptr);
    if (!merged) {
      errors +=
          fmt::format("{}:{}: Unmatched parenthesis in selector definition.", filename, linenum);
      continue;
    }
    bool syntax_error = false;
    for (const std::string& r : *merged) {
      std::string_view rule = trim_chars(r, "\t\r\n");
      RuleError e = u->apply(rule, all_channels_default_);
      if (e == RuleError::kUnknownCommand) {
        errors += fmt::format("{}:{}: Error in applying operation '{}': {}. ", filename, linenum,
                              rule, rule_error_text(e));
      } else if (e != RuleError::kNone && !syntax_error) {
        errors += fmt::format("{}:{}: {}. ", filename, linenum, rule_error_text(e));
        syntax_error = true;
      }
    }
  }
  if (!errors.empty()) return errors;
  // The default user keeps its object (sessions point at it); a file without it restores the
  // built-in default user.
  auto d = loaded.find("default");
  *default_ = d != loaded.end() ? *d->second : default_user_rules(all_channels_default_);
  loaded["default"] = default_;
  users_ = std::move(loaded);
  return std::nullopt;
}

std::string Acl::save_text() const {
  std::string out;
  for (const auto& [name, u] : users_) out += "user " + name + " " + u->describe() + "\n";
  return out;
}

std::optional<std::string> Acl::load_config_user(const std::vector<std::string>& words) {
  // words[0] is the name (the loader requires one).
  const std::string& name = words[0];
  if (has_spaces(name)) return fmt::format("Error in user declaration '{}': Syntax error", name);
  if (name != "default" && find(name)) {
    return fmt::format(
        "Error in user declaration '{}': Duplicate user found. A user can only be defined once "
        "in config files",
        name);
  }
  std::vector<std::string_view> rules(words.begin() + 1, words.end());
  std::size_t open_at = 0;
  auto merged = merge_selector_args(rules, &open_at);
  if (!merged) return fmt::format("Error in user declaration '{}': Syntax error", rules[open_at]);
  // A new user, or the default user reset (as Redis's ACLLoadConfiguredUsers): a `user default`
  // line says the whole of it.
  User staged(name, all_channels_default_);
  for (const std::string& r : *merged) {
    if (RuleError e = staged.apply(r, all_channels_default_); e != RuleError::kNone) {
      return fmt::format("Error in user declaration '{}': {}", r, rule_error_text(e));
    }
  }
  if (!staged.enabled) {
    spdlog::info(
        "The user '{}' is disabled (there is no 'on' modifier in the user description). Make "
        "sure this is not a configuration error.",
        name);
  }
  if (name == "default") {
    *default_ = std::move(staged);
  } else {
    users_.emplace(name, std::make_shared<User>(std::move(staged)));
  }
  return std::nullopt;
}

std::optional<std::string> Acl::load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return fmt::format("Error loading ACLs, opening file '{}': {}", path, std::strerror(errno));
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return load_text(text, path);
}

bool Acl::save_file(const std::string& path) const {
  std::string tmp = fmt::format("{}.tmp-{}", path, static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << save_text();
    out.flush();
    if (!out) {
      spdlog::warn("Opening temp ACL file for ACL SAVE: {}", std::strerror(errno));
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    spdlog::warn("Renaming ACL file for ACL SAVE: {}", std::strerror(errno));
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

void Acl::set_log_max_len(std::size_t n) {
  log_max_len_ = n;
  while (log_.size() > log_max_len_) log_.pop_back();
}

void Acl::log(LogReason reason, LogContext context, std::string object, std::string username,
              std::string client_info, int64_t now_ms) {
  if (log_max_len_ == 0) {
    log_.clear();
    return;
  }
  std::size_t scan = std::min<std::size_t>(10, log_.size());
  for (std::size_t i = 0; i < scan; ++i) {
    LogEntry& e = log_[i];
    int64_t delta = e.ctime_ms - now_ms;
    if (delta < 0) delta = -delta;
    if (e.reason == reason && e.context == context && delta <= kLogGroupingMs &&
        e.object == object && e.username == username) {
      LogEntry bumped = std::move(e);
      log_.erase(log_.begin() + static_cast<std::ptrdiff_t>(i));
      bumped.client_info = std::move(client_info);
      bumped.ctime_ms = now_ms;
      ++bumped.count;
      log_.push_front(std::move(bumped));
      return;
    }
  }
  LogEntry e;
  e.reason = reason;
  e.context = context;
  e.object = std::move(object);
  e.username = std::move(username);
  e.ctime_ms = now_ms;
  e.created_ms = now_ms;
  e.client_info = std::move(client_info);
  e.entry_id = next_entry_id_++;
  log_.push_front(std::move(e));
  while (log_.size() > log_max_len_) log_.pop_back();
}

}  // namespace streamd::cmd::acl
