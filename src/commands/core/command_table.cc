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

namespace {

uint64_t category_bits(std::string_view cats) {
  uint64_t bits = 0;
  while (!cats.empty()) {
    std::size_t sp = cats.find_first_of(" ,");
    std::string_view w = cats.substr(0, sp);
    if (!w.empty() && w.front() == '@') w.remove_prefix(1);
    bits |= acl_category_bit(w);
    if (sp == std::string_view::npos) break;
    cats.remove_prefix(sp + 1);
  }
  return bits;
}

}  // namespace

std::span<const std::string_view> acl_category_names() {
  static constexpr std::string_view kCategories[] = {
      "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
      "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
      "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting",
  };
  return kCategories;
}

uint64_t acl_category_bit(std::string_view name) {
  auto names = acl_category_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (iequals(names[i], name)) return uint64_t{1} << i;
  }
  return 0;
}

void CommandTable::add(CommandSpec spec) {
  spec.full_name = std::string(spec.name);
  spec.id = next_id_++;
  spec.acl_bits = category_bits(spec.acl_categories);
  for (auto& sub : spec.subcommands) {
    sub.full_name = spec.full_name + "|" + std::string(sub.name);
    sub.id = next_id_++;
    sub.acl_bits = category_bits(sub.acl_categories);
  }
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

// Bytes [0, n) of p (n < 8) as a little-endian word, without reading past them: two
// overlapping 4-byte loads for 4..7 bytes, the first, middle and last byte for 1..3.
uint64_t load_short(const char* p, std::size_t n) {
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return lo | (uint64_t{hi} << (8 * (n - 4)));
  }
  if (n == 0) return 0;
  auto byte = [&](std::size_t i) { return uint64_t{static_cast<unsigned char>(p[i])} << (8 * i); };
  return byte(0) | byte(n / 2) | byte(n - 1);
}

uint64_t load_word(std::string_view s, std::size_t at) {
  if (at >= s.size()) return 0;
  if (s.size() - at >= 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + at, 8);
    return w;
  }
  return load_short(s.data() + at, s.size() - at);
}

uint64_t hash_words(uint64_t w0, uint64_t w1, std::size_t len) {
  uint64_t h = (w0 * 0x9E3779B97F4A7C15ull) ^ (w1 * 0xC2B2AE3D27D4EB4Full) ^ len;
  return h ^ (h >> 29);
}

}  // namespace

void CommandTable::index_slots() {
  std::size_t n = 16;
  while (n < 4 * by_name_.size()) n *= 2;
  slots_.assign(n, 0);
  words_.clear();
  for (std::size_t i = 0; i < by_name_.size(); ++i) {
    const std::string& name = by_name_[i].first;  // lower case already
    words_.push_back({load_word(name, 0), load_word(name, 8)});
    uint64_t h = hash_words(words_.back().w0, words_.back().w1, name.size());
    std::size_t at = static_cast<std::size_t>(h) & (n - 1);
    while (slots_[at] != 0) at = (at + 1) & (n - 1);
    slots_[at] = static_cast<uint32_t>(i + 1);
  }
}

const CommandSpec* CommandTable::find(std::string_view name) const {
  if (name.size() > longest_name_ || slots_.empty()) return nullptr;
  const uint64_t w0 = lower8(load_word(name, 0));
  const uint64_t w1 = lower8(load_word(name, 8));
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t at = static_cast<std::size_t>(hash_words(w0, w1, name.size())) & mask;
       slots_[at] != 0; at = (at + 1) & mask) {
    const std::size_t i = slots_[at] - 1;
    const auto& [n, row] = by_name_[i];
    if (words_[i].w0 != w0 || words_[i].w1 != w1 || n.size() != name.size()) continue;
    if (name.size() <= 16 || text::iequals(n, name)) return &commands_[row];
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
  register_acl_commands(t);
}

}  // namespace streamd::cmd
