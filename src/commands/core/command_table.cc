#include "streamd/commands/core/command_table.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "streamd/commands/core/args.h"
#include "streamd/commands/server/persistence_commands.h"
#include "streamd/text/ascii.h"

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

void GroupRows::add(std::string_view name, int arity, uint32_t flags, std::string_view acl,
                    KeySpan keys, Handler h) const {
  table_.add(CommandSpec{.name = name,
                         .arity = arity,
                         .flags = flags,
                         .acl_categories = acl,
                         .first_key = keys.first,
                         .last_key = keys.last,
                         .step = keys.step,
                         .handler = h,
                         .group = group_});
}

void CommandTable::index() {
  by_name_.clear();
  longest_name_ = 0;
  for (std::size_t i = 0; i < commands_.size(); ++i) {
    by_name_.emplace_back(std::string(commands_[i].name), i);
    longest_name_ = std::max(longest_name_, commands_[i].name.size());
  }
  std::sort(by_name_.begin(), by_name_.end());
  index_slots();
}

namespace {

constexpr std::size_t kShortName = 32;  // lowered on the stack; only a renamed name is longer

// ASCII upper case to lower case in the 8 bytes of `w` at once (bytes >= 0x80 are kept): for
// each byte, adding 0x80 - 'A' to its low 7 bits sets the top bit iff it is >= 'A', adding
// 0x80 - 'Z' - 1 iff it is > 'Z'; the difference, for bytes without their own top bit, marks
// 'A'..'Z', and 0x80 >> 2 is the 0x20 that lowers one.
uint64_t lower8(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  uint64_t low7 = w & ~kHigh;
  uint64_t ge_a = low7 + (0x80 - 'A') * kOnes;
  uint64_t gt_z = low7 + (0x80 - 'Z' - 1) * kOnes;
  uint64_t upper = ge_a & ~gt_z & ~w & kHigh;
  return w | (upper >> 2);
}

// Lowers name[0..n) into out (room for n rounded up to 8) and hashes it 8 bytes at a time (the
// tail zero-padded). The index hashes its (already lower-case) names the same way.
uint64_t lower_and_hash(std::string_view name, char* out) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ name.size();
  std::size_t i = 0;
  for (; i < name.size(); i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, name.data() + i, std::min<std::size_t>(8, name.size() - i));
    w = lower8(w);
    std::memcpy(out + i, &w, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  return h;
}

}  // namespace

void CommandTable::index_slots() {
  std::size_t n = 16;
  while (n < 4 * by_name_.size()) n *= 2;
  slots_.assign(n, 0);
  for (std::size_t i = 0; i < by_name_.size(); ++i) {
    std::string scratch(by_name_[i].first.size() + 8, '\0');
    uint64_t h = lower_and_hash(by_name_[i].first, scratch.data());
    std::size_t at = static_cast<std::size_t>(h) & (n - 1);
    while (slots_[at] != 0) at = (at + 1) & (n - 1);
    slots_[at] = static_cast<uint32_t>(i + 1);
  }
}

const CommandSpec* CommandTable::find(std::string_view name) const {
  if (name.size() > longest_name_ || slots_.empty()) return nullptr;
  char buf[kShortName + 8];
  std::string long_name;
  char* out = buf;
  if (name.size() > kShortName) {
    long_name.resize(name.size() + 8);
    out = long_name.data();
  }
  uint64_t h = lower_and_hash(name, out);
  std::string_view key(out, name.size());
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t at = static_cast<std::size_t>(h) & mask; slots_[at] != 0; at = (at + 1) & mask) {
    const auto& [n, row] = by_name_[slots_[at] - 1];
    if (n == key) return &commands_[row];
  }
  return nullptr;
}

CommandTable::RenameResult CommandTable::rename(std::string_view from, std::string_view to) {
  auto lowered = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = text::ascii_lower(c);
    return out;
  };
  auto at = [this](const std::string& key) {
    return std::lower_bound(by_name_.begin(), by_name_.end(), key,
                            [](const auto& p, const std::string& k) { return p.first < k; });
  };
  const std::string old_key = lowered(from);
  auto it = at(old_key);
  if (it == by_name_.end() || it->first != old_key) return RenameResult::kNoSuchCommand;
  const std::size_t row = it->second;
  by_name_.erase(it);
  index_slots();
  if (to.empty()) return RenameResult::kOk;
  // As in Redis the old name is gone even when the new one is taken (startup stops then).
  std::string new_key = lowered(to);
  auto pos = at(new_key);
  if (pos != by_name_.end() && pos->first == new_key) return RenameResult::kTargetExists;
  longest_name_ = std::max(longest_name_, new_key.size());
  by_name_.insert(pos, {std::move(new_key), row});
  index_slots();
  return RenameResult::kOk;
}

const CommandSpec* CommandTable::find_sub(const CommandSpec& parent, std::string_view name) {
  for (const auto& sub : parent.subcommands) {
    if (iequals(sub.name, name)) return &sub;
  }
  return nullptr;
}

CommandLookup CommandTable::lookup(std::string_view name,
                                   std::optional<std::string_view> sub) const {
  CommandLookup found;
  found.top = find(name);
  found.spec = found.top;
  if (found.top && !found.top->subcommands.empty() && sub) found.spec = find_sub(*found.top, *sub);
  return found;
}

const CommandSpec* CommandTable::find_full_name(std::string_view name) const {
  std::size_t bar = name.find('|');
  if (bar == std::string_view::npos) return find(name);
  std::string_view sub = name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return nullptr;
  // "get|x" names nothing: only a container has rows after the bar.
  CommandLookup found = lookup(name.substr(0, bar), sub);
  return found.spec != found.top ? found.spec : nullptr;
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
  register_replication_commands(t);
}

}  // namespace streamd::cmd
