#include "streamd/commands/core/command_table.h"

#include <algorithm>
#include <string>

#include "streamd/commands/core/args.h"
#include "streamd/commands/server/persistence_commands.h"

namespace streamd::cmd {

CommandTable& CommandTable::instance() {
  static CommandTable* table = [] {
    auto* t = new CommandTable();
    register_all_commands(*t);
    return t;
  }();
  return *table;
}

void CommandTable::add(CommandSpec spec) {
  spec.full_name = std::string(spec.name);
  for (auto& sub : spec.subcommands) sub.full_name = spec.full_name + "|" + std::string(sub.name);
  commands_.push_back(std::move(spec));
  index();
}

void CommandTable::index() {
  by_name_.clear();
  for (std::size_t i = 0; i < commands_.size(); ++i) {
    by_name_.emplace_back(std::string(commands_[i].name), i);
  }
  std::sort(by_name_.begin(), by_name_.end());
}

const CommandSpec* CommandTable::find(std::string_view name) const {
  if (name.size() > 32) return nullptr;
  char buf[32];
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    buf[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  }
  std::string_view key(buf, name.size());
  auto it = std::lower_bound(by_name_.begin(), by_name_.end(), key,
                             [](const auto& p, std::string_view k) { return p.first < k; });
  if (it == by_name_.end() || it->first != key) return nullptr;
  return &commands_[it->second];
}

const CommandSpec* CommandTable::find_sub(const CommandSpec& parent, std::string_view name) {
  for (const auto& sub : parent.subcommands) {
    if (iequals(sub.name, name)) return &sub;
  }
  return nullptr;
}

const CommandSpec* CommandTable::find_full_name(std::string_view name) const {
  std::size_t bar = name.find('|');
  const CommandSpec* top = find(name.substr(0, bar));
  if (!top || bar == std::string_view::npos) return top;
  std::string_view sub = name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return nullptr;
  return find_sub(*top, sub);
}

std::vector<int> CommandTable::key_positions(const CommandSpec& spec,
                                             std::span<const std::string_view> argv) {
  if (spec.key_finder) return spec.key_finder(argv);
  std::vector<int> keys;
  if (spec.first_key <= 0) return keys;
  int argc = static_cast<int>(argv.size());
  int last = spec.last_key < 0 ? argc + spec.last_key : spec.last_key;
  for (int i = spec.first_key; i <= last && i < argc; i += std::max(spec.step, 1)) {
    keys.push_back(i);
  }
  return keys;
}

void register_all_commands(CommandTable& t) {
  register_connection_commands(t);
  register_keyspace_commands(t);
  register_string_commands(t);
  register_transaction_commands(t);
  register_server_commands(t);
  register_persistence_commands(t);
  register_introspection_commands(t);
  register_latency_commands(t);
  register_stream_commands(t);
  register_pubsub_commands(t);
}

}  // namespace streamd::cmd
