#include "streamd/commands/acl/acl_user.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>

#include "streamd/commands/server/introspection.h"
#include "streamd/text/ascii.h"
#include "streamd/text/glob.h"
#include "streamd/text/split_args.h"

namespace streamd::cmd::acl {

namespace {

using text::iequals;

std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = text::ascii_lower(c);
  return out;
}

bool valid_hash(std::string_view h) {
  return h.size() == 64 && std::all_of(h.begin(), h.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::size_t bitmap_words() {
  return static_cast<std::size_t>(CommandTable::instance().id_count()) / 64 + 1;
}

void set_bit(Selector& s, int id, bool on) {
  auto i = static_cast<std::size_t>(id);
  if (s.allowed.size() <= i / 64) s.allowed.resize(i / 64 + 1, s.future ? ~uint64_t{0} : 0);
  if (on) {
    s.allowed[i / 64] |= uint64_t{1} << (i % 64);
  } else {
    s.allowed[i / 64] &= ~(uint64_t{1} << (i % 64));
    s.all_commands = false;
  }
}

// Redis's ACLChangeSelectorPerm: a container's rule covers its subcommands.
void change_perm(Selector& s, const CommandSpec& c, bool allow) {
  set_bit(s, c.id, allow);
  s.first_args.erase(c.id);
  for (const CommandSpec& sub : c.subcommands) set_bit(s, sub.id, allow);
}

// Keeps `rules` replayable: a rule for a command replaces earlier rules for it and for its
// subcommands ("+config" drops "-config|set"), then goes last.
void update_rules(Selector& s, std::string_view rule, bool allow) {
  std::string r = lowered(rule);
  std::string kept;
  std::string_view rest = s.rules;
  while (!rest.empty()) {
    std::size_t sp = rest.find(' ');
    std::string_view tok = rest.substr(0, sp);
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    std::string_view name = tok.substr(1);
    bool same = name == r ||
                (name.size() > r.size() && name.substr(0, r.size()) == r && name[r.size()] == '|');
    if (same) continue;
    if (!kept.empty()) kept += ' ';
    kept += tok;
  }
  if (!kept.empty()) kept += ' ';
  kept += allow ? '+' : '-';
  kept += r;
  s.rules = std::move(kept);
}

// A command by the name ACL rules use: "get", "config|get", case-insensitive. The original names,
// as Redis's ACLLookupCommand (server.orig_commands): rename-command changes what clients type,
// not what rules say. A scan, not the table's lookup (which follows renames): rules are rare.
const CommandSpec* rule_command(std::string_view name) {
  std::size_t bar = name.find('|');
  std::string_view top = name.substr(0, bar);
  for (const CommandSpec& c : CommandTable::instance().all()) {
    if (!iequals(c.name, top)) continue;
    if (bar == std::string_view::npos) return &c;
    std::string_view sub = name.substr(bar + 1);
    if (sub.find('|') != std::string_view::npos) return nullptr;
    return CommandTable::find_sub(c, sub);
  }
  return nullptr;
}

bool is_subcommand(const CommandSpec& c) {
  return c.full_name.find('|') != std::string::npos;
}

RuleError allow_command(Selector& s, std::string_view name) {
  std::size_t bar = name.rfind('|');
  if (bar == std::string_view::npos) {
    const CommandSpec* c = rule_command(name);
    if (!c) return RuleError::kUnknownCommand;
    change_perm(s, *c, true);
    update_rules(s, c->full_name, true);
    return RuleError::kNone;
  }
  std::string_view parent = name.substr(0, bar), sub = name.substr(bar + 1);
  const CommandSpec* c = rule_command(parent);
  if (!c) return RuleError::kUnknownCommand;
  if (is_subcommand(*c)) return RuleError::kFirstArgOfSub;
  if (sub.empty()) return RuleError::kSyntax;
  if (!c->subcommands.empty()) {
    const CommandSpec* sc = rule_command(name);
    if (!sc) return RuleError::kUnknownCommand;
    change_perm(s, *sc, true);
  } else {
    // A first argument of a command without subcommands (SELECT|0): Redis allows it, deprecated.
    std::vector<std::string>& args = s.first_args[c->id];
    if (std::none_of(args.begin(), args.end(),
                     [&](const std::string& a) { return iequals(a, sub); })) {
      args.emplace_back(sub);
    }
  }
  update_rules(s, name, true);
  return RuleError::kNone;
}

RuleError set_category(Selector& s, std::string_view rule, bool allow) {
  uint64_t bit = acl_category_bit(rule.substr(1));
  if (!bit) return RuleError::kUnknownCommand;
  update_rules(s, rule, allow);
  // Redis walks containers then their subcommands: a container in the category takes all of its
  // subcommands with it, whatever their own categories.
  for (const CommandSpec& c : CommandTable::instance().all()) {
    if (c.acl_bits & bit) change_perm(s, c, allow);
    for (const CommandSpec& sub : c.subcommands) {
      if (sub.acl_bits & bit) change_perm(s, sub, allow);
    }
  }
  return RuleError::kNone;
}

void all_commands(Selector& s, bool on) {
  s.allowed.assign(bitmap_words(), on ? ~uint64_t{0} : 0);
  s.all_commands = on;
  s.future = on;
  s.rules.clear();
  s.first_args.clear();
}

RuleError apply_selector(Selector& s, std::string_view op) {
  if (iequals(op, "allkeys") || op == "~*") {
    s.all_keys = true;
    s.keys.clear();
  } else if (iequals(op, "resetkeys")) {
    s.all_keys = false;
    s.keys.clear();
  } else if (iequals(op, "allchannels") || op == "&*") {
    s.all_channels = true;
    s.channels.clear();
  } else if (iequals(op, "resetchannels")) {
    s.all_channels = false;
    s.channels.clear();
  } else if (iequals(op, "allcommands") || iequals(op, "+@all")) {
    all_commands(s, true);
  } else if (iequals(op, "nocommands") || iequals(op, "-@all")) {
    all_commands(s, false);
  } else if (op[0] == '~' || op[0] == '%') {
    if (s.all_keys) return RuleError::kKeyAfterAll;
    unsigned perms = 0;
    std::size_t at = 1;
    if (op[0] == '%') {
      // As Redis: the '~' may be missing ("%R" is "%R~" with an empty pattern).
      for (; at < op.size(); ++at) {
        char c = static_cast<char>(std::toupper(static_cast<unsigned char>(op[at])));
        if (c == 'R' && !(perms & kRead)) {
          perms |= kRead;
        } else if (c == 'W' && !(perms & kWrite)) {
          perms |= kWrite;
        } else if (op[at] == '~' && perms) {
          ++at;
          break;
        } else {
          return RuleError::kSyntax;
        }
      }
      if (!perms) return RuleError::kSyntax;  // "%" alone (Redis would crash describing it)
    } else {
      perms = kReadWrite;
    }
    std::string_view pat = op.substr(at);
    if (has_spaces(pat)) return RuleError::kSyntax;
    auto it = std::find_if(s.keys.begin(), s.keys.end(),
                           [&](const KeyPattern& k) { return k.pattern == pat; });
    if (it == s.keys.end()) {
      s.keys.push_back({std::string(pat), perms});
    } else {
      it->perms |= perms;
    }
    s.all_keys = false;
  } else if (op[0] == '&') {
    if (s.all_channels) return RuleError::kChannelAfterAll;
    std::string_view pat = op.substr(1);
    if (has_spaces(pat)) return RuleError::kSyntax;
    if (std::find(s.channels.begin(), s.channels.end(), pat) == s.channels.end()) {
      s.channels.emplace_back(pat);
    }
    s.all_channels = false;
  } else if (op[0] == '+' && (op.size() < 2 || op[1] != '@')) {
    return allow_command(s, op.substr(1));
  } else if (op[0] == '-' && (op.size() < 2 || op[1] != '@')) {
    const CommandSpec* c = rule_command(op.substr(1));
    if (!c) return RuleError::kUnknownCommand;
    change_perm(s, *c, false);
    update_rules(s, c->full_name, false);
  } else if (op[0] == '+' || op[0] == '-') {
    return set_category(s, op.substr(1), op[0] == '+');
  } else {
    return RuleError::kSyntax;
  }
  return RuleError::kNone;
}

Selector new_selector(bool root, bool all_channels_default) {
  Selector s;
  s.root = root;
  s.all_channels = all_channels_default;
  s.allowed.assign(bitmap_words(), 0);
  return s;
}

void append_pattern(std::string& out, const KeyPattern& k) {
  if (k.perms == kRead) {
    out += "%R~";
  } else if (k.perms == kWrite) {
    out += "%W~";
  } else {
    out += '~';
  }
  out += k.pattern;
}

// The channels a command names, and whether they are patterns (PSUBSCRIBE). Unsubscribing and
// PUBSUB's introspection are never refused, as in Redis.
struct ChannelArgs {
  std::size_t first = 0;
  bool all = false;
  bool pattern = false;
};
ChannelArgs channel_args(const CommandSpec& spec) {
  const std::string& n = spec.full_name;
  if (n == "publish" || n == "spublish") return {1, false, false};
  if (n == "subscribe" || n == "ssubscribe") return {1, true, false};
  if (n == "psubscribe") return {1, true, true};
  return {};
}

bool channel_allowed(const Selector& s, std::string_view channel, bool is_pattern) {
  if (s.all_channels) return true;
  return std::any_of(s.channels.begin(), s.channels.end(), [&](const std::string& p) {
    return is_pattern ? p == channel : text::glob_match(p, channel);
  });
}

Check check_selector(const Selector& s, const CommandSpec& spec,
                     std::span<const std::string_view> argv) {
  if (!s.all_commands && !(spec.flags & kNoAuth) && !s.allows(spec.id)) {
    auto it = s.first_args.find(spec.id);
    if (argv.size() < 2 || it == s.first_args.end()) return {Denied::kCommand, 0};
    std::size_t at = is_subcommand(spec) ? 2 : 1;
    if (at >= argv.size()) return {Denied::kCommand, 0};
    std::string_view first = argv[at];
    if (std::none_of(it->second.begin(), it->second.end(),
                     [&](const std::string& a) { return iequals(a, first); })) {
      return {Denied::kCommand, 0};
    }
  }
  if (!s.all_keys) {
    for (const docs::KeyFlags& k : docs::keys_with_flags(spec, argv)) {
      unsigned need = 0;
      for (const std::string& f : k.flags) {
        if (f == "access") need |= kRead;
        if (f == "insert" || f == "delete" || f == "update") need |= kWrite;
      }
      std::string_view key = argv[static_cast<std::size_t>(k.pos)];
      bool ok = std::any_of(s.keys.begin(), s.keys.end(), [&](const KeyPattern& p) {
        return (p.perms & need) == need && text::glob_match(p.pattern, key);
      });
      if (!ok) return {Denied::kKey, k.pos};
    }
  }
  if (!s.all_channels) {
    ChannelArgs ca = channel_args(spec);
    if (ca.first != 0) {
      std::size_t end = ca.all ? argv.size() : std::min(argv.size(), ca.first + 1);
      for (std::size_t i = ca.first; i < end; ++i) {
        if (!channel_allowed(s, argv[i], ca.pattern)) {
          return {Denied::kChannel, static_cast<int>(i)};
        }
      }
    }
  }
  return {};
}

}  // namespace

bool has_spaces(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    return c == '\0' || std::isspace(static_cast<unsigned char>(c)) != 0;
  });
}

std::string_view rule_error_text(RuleError e) {
  switch (e) {
    case RuleError::kNone:
      return "";
    case RuleError::kSyntax:
      return "Syntax error";
    case RuleError::kUnknownCommand:
      return "Unknown command or category name in ACL";
    case RuleError::kKeyAfterAll:
      return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does "
             "not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    case RuleError::kChannelAfterAll:
      return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and "
             "does not have any effect. Try 'resetchannels' to start with an empty list of "
             "channels";
    case RuleError::kNoSuchPassword:
      return "The password you are trying to remove from the user does not exist";
    case RuleError::kBadHash:
      return "The password hash must be exactly 64 characters and contain only lowercase "
             "hexadecimal characters";
    case RuleError::kFirstArgOfSub:
      return "Allowing first-arg of a subcommand is not supported";
  }
  return "Wrong format";
}

std::string hash_password(std::string_view clear) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(clear.data(), clear.size(), md, &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

User::User(std::string n, bool all_channels_default) : name(std::move(n)) {
  selectors.push_back(new_selector(true, all_channels_default));
}

bool User::check_password(std::string_view clear) const {
  if (nopass) return true;
  std::string h = hash_password(clear);
  bool match = false;
  // Compares every byte of every hash: the time taken tells nothing of how close a guess was.
  for (const std::string& p : passwords) {
    unsigned diff = 0;
    for (std::size_t i = 0; i < p.size() && i < h.size(); ++i) {
      diff |= static_cast<unsigned>(p[i] ^ h[i]);
    }
    match |= diff == 0;
  }
  return match;
}

RuleError User::apply(std::string_view op, bool all_channels_default) {
  if (op.empty()) return RuleError::kNone;
  if (iequals(op, "on")) {
    enabled = true;
  } else if (iequals(op, "off")) {
    enabled = false;
  } else if (iequals(op, "skip-sanitize-payload")) {
    skip_sanitize = true;
  } else if (iequals(op, "sanitize-payload")) {
    skip_sanitize = false;
  } else if (iequals(op, "nopass")) {
    nopass = true;
    passwords.clear();
  } else if (iequals(op, "resetpass")) {
    nopass = false;
    passwords.clear();
  } else if (op[0] == '>' || op[0] == '#') {
    std::string h;
    if (op[0] == '>') {
      h = hash_password(op.substr(1));
    } else {
      if (!valid_hash(op.substr(1))) return RuleError::kBadHash;
      h = std::string(op.substr(1));
    }
    if (std::find(passwords.begin(), passwords.end(), h) == passwords.end()) passwords.push_back(h);
    nopass = false;
  } else if (op[0] == '<' || op[0] == '!') {
    std::string h;
    if (op[0] == '<') {
      h = hash_password(op.substr(1));
    } else {
      if (!valid_hash(op.substr(1))) return RuleError::kBadHash;
      h = std::string(op.substr(1));
    }
    auto it = std::find(passwords.begin(), passwords.end(), h);
    if (it == passwords.end()) return RuleError::kNoSuchPassword;
    passwords.erase(it);
  } else if (op.front() == '(' && op.back() == ')') {
    Selector s = new_selector(false, all_channels_default);
    auto words = text::split_args(op.substr(1, op.size() - 2));
    if (!words) return RuleError::kSyntax;
    for (const std::string& w : *words) {
      if (RuleError e = apply_selector(s, w); e != RuleError::kNone) return e;
    }
    selectors.push_back(std::move(s));
  } else if (iequals(op, "clearselectors")) {
    selectors.resize(1);
  } else if (iequals(op, "reset")) {
    nopass = false;
    passwords.clear();
    Selector& root = selectors.front();
    root.all_keys = false;
    root.keys.clear();
    root.all_channels = all_channels_default;
    root.channels.clear();
    enabled = false;
    skip_sanitize = false;
    selectors.resize(1);
    all_commands(root, false);
  } else {
    return apply_selector(selectors.front(), op);
  }
  return RuleError::kNone;
}

std::string describe_keys(const Selector& s) {
  if (s.all_keys) return "~*";
  std::string out;
  for (const KeyPattern& k : s.keys) {
    if (!out.empty()) out += ' ';
    append_pattern(out, k);
  }
  return out;
}

std::string describe_channels(const Selector& s) {
  if (s.all_channels) return "&*";
  std::string out;
  for (const std::string& c : s.channels) {
    if (!out.empty()) out += ' ';
    out += '&';
    out += c;
  }
  return out;
}

std::string describe_commands(const Selector& s) {
  std::string out = s.future ? "+@all" : "-@all";
  if (!s.rules.empty()) out += " " + s.rules;
  return out;
}

std::string describe_selector(const Selector& s) {
  std::string out;
  if (s.all_keys) {
    out += "~* ";
  } else {
    for (const KeyPattern& k : s.keys) {
      append_pattern(out, k);
      out += ' ';
    }
  }
  if (s.all_channels) {
    out += "&* ";
  } else {
    out += "resetchannels ";
    for (const std::string& c : s.channels) out += "&" + c + " ";
  }
  return out + describe_commands(s);
}

std::string User::describe() const {
  std::string out = enabled ? "on " : "off ";
  if (nopass) out += "nopass ";
  out += skip_sanitize ? "skip-sanitize-payload " : "sanitize-payload ";
  for (const std::string& p : passwords) out += "#" + p + " ";
  out += describe_selector(selectors.front());
  for (std::size_t i = 1; i < selectors.size(); ++i) {
    out += " (" + describe_selector(selectors[i]) + ")";
  }
  return out;
}

Check check_command(const User& u, const CommandSpec& spec,
                    std::span<const std::string_view> argv) {
  // No selector allows it: the refusal to report is the worst kind, then the last argument.
  Check worst{Denied::kCommand, 0};
  for (const Selector& s : u.selectors) {
    Check c = check_selector(s, spec, argv);
    if (c.denied == Denied::kNone) return c;
    if (c.denied > worst.denied || (c.denied == worst.denied && c.arg > worst.arg)) worst = c;
  }
  return worst;
}

bool may_use_channel(const User& u, std::string_view channel, bool is_pattern) {
  return std::any_of(u.selectors.begin(), u.selectors.end(),
                     [&](const Selector& s) { return channel_allowed(s, channel, is_pattern); });
}

}  // namespace streamd::cmd::acl
