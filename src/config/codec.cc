// Parsing, printing and rewriting of directive values: the generic types (bool, integer, octal,
// memory, string, enum) and the special directives (bind, save, client-output-buffer-limit,
// notify-keyspace-events). Behaviour follows redis-server 7.0.15 as observed.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "messages.h"
#include "streamd/config/directive.h"
#include "streamd/config/syntax.h"
#include "streamd/text/ascii.h"

namespace streamd::config {

namespace {

constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();

// A decimal the way strtoll() reads the numbers of `save` and of the soft seconds of
// client-output-buffer-limit: an optional sign, at least one digit, saturating on overflow.
std::optional<std::int64_t> parse_loose_int(std::string_view s) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) return std::nullopt;
  std::int64_t v = 0;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    const int d = s[i] - '0';
    v = (v > (kMax - d) / 10) ? kMax : v * 10 + d;
  }
  return negative ? -v : v;
}

// Octal as Redis reads unixsocketperm: an optional '-' and octal digits; like strtoll(), no
// digits at all reads as 0.
std::optional<std::int64_t> parse_octal(std::string_view s) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && s[i] == '-') {
    negative = true;
    ++i;
  }
  std::int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '7') return std::nullopt;
    if (v > (std::numeric_limits<std::int64_t>::max() >> 3)) return std::nullopt;
    v = v * 8 + (s[i] - '0');
  }
  return negative ? -v : v;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep = " ") {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) s += sep;
    s += parts[i];
  }
  return s;
}

// An argument for a rewritten line: bare when it reads back as itself, quoted otherwise.
std::string rewrite_arg(std::string_view a) {
  const bool plain = !a.empty() && a.find_first_of(" \t\r\n\"'\\#") == std::string_view::npos &&
                     quote(a).size() == a.size() + 2;
  return plain ? std::string(a) : quote(a);
}

// ---- bind ----

Value bind_initial() {
  return std::vector<std::string>{};
}

std::optional<std::string> bind_parse(std::span<const std::string> args, Value& v, bool) {
  constexpr std::size_t kMaxBind = 16;
  if (args.size() > kMaxBind) return std::string(msg::kTooManyBind);
  v = std::vector<std::string>(args.begin(), args.end());
  return std::nullopt;
}

std::string bind_format(const Value& v) {
  return join(std::get<std::vector<std::string>>(v));
}

std::vector<std::string> bind_rewrite(const Value& v, const Value& def, bool in_file) {
  if (!in_file && v == def) return {};
  std::vector<std::string> args;
  for (const auto& a : std::get<std::vector<std::string>>(v)) args.push_back(rewrite_arg(a));
  return {join(args)};
}

// ---- save ----

Value save_initial() {
  return SavePoints{};
}

std::optional<std::string> save_parse(std::span<const std::string> args, Value& v, bool first) {
  auto& points = std::get<SavePoints>(v);
  // `save ""` (or a bare `save`) removes every point; the first save line of a load replaces
  // the default, later lines add to it.
  if (args.empty() || (args.size() == 1 && args[0].empty())) {
    points.clear();
    return std::nullopt;
  }
  if (args.size() % 2 != 0) return std::string(msg::kInvalidSave);
  SavePoints parsed;
  for (std::size_t i = 0; i < args.size(); i += 2) {
    auto seconds = parse_loose_int(args[i]);
    auto changes = parse_loose_int(args[i + 1]);
    if (!seconds || !changes || *seconds < 1 || *changes < 0) {
      return std::string(msg::kInvalidSave);
    }
    parsed.push_back({*seconds, *changes});
  }
  if (first) points.clear();
  points.insert(points.end(), parsed.begin(), parsed.end());
  return std::nullopt;
}

std::string save_format(const Value& v) {
  std::string s;
  for (const auto& p : std::get<SavePoints>(v)) {
    if (!s.empty()) s += ' ';
    s += fmt::format("{} {}", p.seconds, p.changes);
  }
  return s;
}

std::vector<std::string> save_rewrite(const Value& v, const Value& def, bool in_file) {
  if (!in_file && v == def) return {};
  const auto& points = std::get<SavePoints>(v);
  if (points.empty()) return {"\"\""};
  std::vector<std::string> lines;
  for (const auto& p : points) lines.push_back(fmt::format("{} {}", p.seconds, p.changes));
  return lines;
}

// ---- client-output-buffer-limit ----

Value cobl_initial() {
  return OutputBufferLimits{};
}

std::optional<ClientClass> parse_client_class(std::string_view name) {
  if (iequals(name, "normal")) return ClientClass::kNormal;
  if (iequals(name, "replica") || iequals(name, "slave")) return ClientClass::kReplica;
  if (iequals(name, "pubsub")) return ClientClass::kPubSub;
  return std::nullopt;
}

std::optional<std::string> cobl_parse(std::span<const std::string> args, Value& v, bool) {
  if (args.size() % 4 != 0) return std::string(msg::kBufferLimitArgCount);
  OutputBufferLimits next = std::get<OutputBufferLimits>(v);
  for (std::size_t i = 0; i < args.size(); i += 4) {
    auto cls = parse_client_class(args[i]);
    if (!cls) return std::string(msg::kBufferLimitClass);
    auto hard = parse_memory(args[i + 1]);
    auto soft = parse_memory(args[i + 2]);
    auto seconds = parse_loose_int(args[i + 3]);
    if (!hard || !soft || !seconds || *seconds < 0 || *seconds > kIntMax) {
      return std::string(msg::kBufferLimitValue);
    }
    next[*cls] = OutputBufferLimit{*hard, *soft, *seconds};
  }
  v = next;
  return std::nullopt;
}

std::string cobl_format(const Value& v) {
  // CONFIG GET names the replica class "slave", as Redis 7.0 does.
  static constexpr std::string_view kNames[kClientClasses] = {"normal", "slave", "pubsub"};
  const auto& limits = std::get<OutputBufferLimits>(v);
  std::string s;
  for (std::size_t c = 0; c < kClientClasses; ++c) {
    const auto& l = limits.by_class[c];
    if (c) s += ' ';
    s += fmt::format("{} {} {} {}", kNames[c], l.hard_bytes, l.soft_bytes, l.soft_seconds);
  }
  return s;
}

std::vector<std::string> cobl_rewrite(const Value& v, const Value& def, bool in_file) {
  static constexpr std::string_view kNames[kClientClasses] = {"normal", "replica", "pubsub"};
  const auto& limits = std::get<OutputBufferLimits>(v);
  const auto& defaults = std::get<OutputBufferLimits>(def);
  std::vector<std::string> lines;
  // A file that names the directive gets every class spelled out; otherwise only the classes
  // that differ from the default are added.
  for (std::size_t c = 0; c < kClientClasses; ++c) {
    const auto& l = limits.by_class[c];
    if (!in_file && l == defaults.by_class[c]) continue;
    lines.push_back(fmt::format("{} {} {} {}", kNames[c], format_memory(l.hard_bytes),
                                format_memory(l.soft_bytes), l.soft_seconds));
  }
  return lines;
}

// ---- notify-keyspace-events ----

struct NotifyLetter {
  char letter;
  std::uint32_t bit;
};
// In the order CONFIG GET prints them: classes, then K and E, then m.
constexpr NotifyLetter kNotifyClasses[] = {
    {'g', notify::kGeneric}, {'$', notify::kString},  {'l', notify::kList},
    {'s', notify::kSet},     {'h', notify::kHash},    {'z', notify::kZset},
    {'x', notify::kExpired}, {'e', notify::kEvicted}, {'t', notify::kStream},
    {'d', notify::kModule},  {'n', notify::kNewKey},
};

Value notify_initial() {
  return std::int64_t{0};
}

std::optional<std::string> notify_parse(std::span<const std::string> args, Value& v, bool) {
  std::uint32_t flags = 0;
  for (char c : args[0]) {
    std::uint32_t bit = 0;
    switch (c) {
      case 'A':
        bit = notify::kAll;
        break;
      case 'K':
        bit = notify::kKeyspace;
        break;
      case 'E':
        bit = notify::kKeyevent;
        break;
      case 'm':
        bit = notify::kKeyMiss;
        break;
      default:
        for (const auto& l : kNotifyClasses) {
          if (l.letter == c) bit = l.bit;
        }
    }
    if (bit == 0) return std::string(msg::kNotifyClass);
    flags |= bit;
  }
  v = static_cast<std::int64_t>(flags);
  return std::nullopt;
}

std::string notify_format(const Value& v) {
  const auto flags = static_cast<std::uint32_t>(std::get<std::int64_t>(v));
  std::string s;
  if ((flags & notify::kAll) == notify::kAll) {
    s += 'A';  // Redis prints no class letter after A, not even n
  } else {
    for (const auto& l : kNotifyClasses) {
      if (flags & l.bit) s += l.letter;
    }
  }
  if (flags & notify::kKeyspace) s += 'K';
  if (flags & notify::kKeyevent) s += 'E';
  if (flags & notify::kKeyMiss) s += 'm';
  return s;
}

std::vector<std::string> notify_rewrite(const Value& v, const Value& def, bool in_file) {
  if (!in_file && v == def) return {};
  return {quote(notify_format(v))};
}

// ---- latency-tracking-info-percentiles ----
// Kept as the text CONFIG GET shows for each number (printf "%f" without trailing zeros, as
// Redis prints them); readers parse them back (INFO latencystats, which is rare).

Value percentiles_initial() {
  return std::vector<std::string>{};
}

std::string trimmed_double(double d) {
  std::string s = fmt::format("{:f}", d);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::optional<std::string> percentiles_parse(std::span<const std::string> args, Value& v, bool) {
  std::vector<std::string> out;
  // A single empty argument means no percentiles at all.
  if (!(args.size() == 1 && args[0].empty())) {
    for (const auto& a : args) {
      // Redis's string2d: the whole argument is one strtod number, not NaN, not out of range.
      if (a.empty() || std::isspace(static_cast<unsigned char>(a[0]))) {
        return std::string(msg::kInvalidPercentiles);
      }
      char* end = nullptr;
      errno = 0;
      double d = std::strtod(a.c_str(), &end);
      if (*end != '\0' || std::isnan(d) || errno == ERANGE) {
        return std::string(msg::kInvalidPercentiles);
      }
      if (d > 100.0 || d < 0.0) return std::string(msg::kPercentilesRange);
      out.push_back(trimmed_double(d));
    }
  }
  v = std::move(out);
  return std::nullopt;
}

std::string percentiles_format(const Value& v) {
  return join(std::get<std::vector<std::string>>(v));
}

std::vector<std::string> percentiles_rewrite(const Value& v, const Value& def, bool in_file) {
  if (!in_file && v == def) return {};
  const auto& list = std::get<std::vector<std::string>>(v);
  // An empty list is written as "" so that the default does not come back on restart.
  return {list.empty() ? std::string("\"\"") : join(list)};
}

// ---- a list of glob patterns (metrics-streams): one or more words; "" for none ----

Value globs_initial() {
  return std::vector<std::string>{};
}

std::optional<std::string> globs_parse(std::span<const std::string> args, Value& v, bool) {
  std::vector<std::string> out;
  if (!(args.size() == 1 && args[0].empty())) out.assign(args.begin(), args.end());
  v = std::move(out);
  return std::nullopt;
}

std::vector<std::string> globs_rewrite(const Value& v, const Value& def, bool in_file) {
  if (!in_file && v == def) return {};
  const auto& list = std::get<std::vector<std::string>>(v);
  std::vector<std::string> args;
  for (const auto& a : list) args.push_back(rewrite_arg(a));
  return {list.empty() ? std::string("\"\"") : join(args)};
}

// ---- replicaof: "<host> <port>", or nothing (a master; "no one" in a config line) ----

std::optional<std::string> replicaof_parse(std::span<const std::string> args, Value& v, bool) {
  std::vector<std::string> out;
  if (args.size() == 2 && !(text::iequals(args[0], "no") && text::iequals(args[1], "one"))) {
    out.assign(args.begin(), args.end());
  } else if (!(args.empty() || (args.size() == 1 && args[0].empty()) || args.size() == 2)) {
    return std::string(msg::kSyntaxError);
  }
  v = std::move(out);
  return std::nullopt;
}

std::vector<std::string> replicaof_rewrite(const Value& v, const Value&, bool) {
  // Written only while this server is a replica (Redis removes the line otherwise).
  const auto& list = std::get<std::vector<std::string>>(v);
  if (list.size() != 2) return {};
  return {rewrite_arg(list[0]) + " " + rewrite_arg(list[1])};
}

// ---- oom-score-adj-values: three integers (master, replica, background child) ----

Value oom_values_initial() {
  return std::vector<std::string>{};
}

std::optional<std::string> oom_values_parse(std::span<const std::string> args, Value& v, bool) {
  if (args.size() != 3) return std::string(msg::kWrongArgCount);
  std::vector<std::string> out;
  for (const auto& a : args) {
    auto n = parse_loose_int(a);
    if (!n || *n < -2000 || *n > 2000) return std::string(msg::kOomScoreAdjValues);
    out.push_back(std::to_string(*n));
  }
  v = std::move(out);
  return std::nullopt;
}

std::vector<std::string> words_rewrite(const Value& v, const Value& def, bool in_file) {
  if (!in_file && v == def) return {};
  return {join(std::get<std::vector<std::string>>(v))};
}

// ---- shutdown-on-sigint / shutdown-on-sigterm: flags, as Redis's multi-argument enums ----

// Redis's order, which both the error text and CONFIG GET follow.
constexpr EnumName kShutdownFlags[] = {
    {"default", 0}, {"save", 1}, {"nosave", 2}, {"now", 4}, {"force", 8}};
constexpr std::string_view kShutdownFlagNames[] = {"default", "save", "nosave", "now", "force"};

Value shutdown_initial() {
  return std::int64_t{0};
}

std::optional<std::string> shutdown_parse(std::span<const std::string> args, Value& v, bool) {
  std::int64_t flags = 0;
  for (const auto& a : args) {
    auto it = std::find_if(std::begin(kShutdownFlags), std::end(kShutdownFlags),
                           [&](const EnumName& e) { return text::iequals(e.name, a); });
    if (it == std::end(kShutdownFlags)) return msg::not_one_of(kShutdownFlagNames);
    flags |= it->value;
  }
  if ((flags & 1) && (flags & 2)) return std::string(msg::kShutdownSaveNosave);
  v = flags;
  return std::nullopt;
}

std::string shutdown_format(const Value& v) {
  const std::int64_t flags = std::get<std::int64_t>(v);
  std::vector<std::string> names;
  for (const EnumName& e : kShutdownFlags) {
    if (e.value == flags) return std::string(e.name);  // "default", or a single flag
    if (e.value != 0 && (flags & e.value)) names.emplace_back(e.name);
  }
  return join(names);
}

std::vector<std::string> shutdown_rewrite(const Value& v, const Value& def, bool in_file) {
  if (!in_file && v == def) return {};
  return {shutdown_format(v)};
}

}  // namespace

const SpecialCodec kReplicaofCodec{
    globs_initial, replicaof_parse, bind_format, replicaof_rewrite, 2, 2, true};
const SpecialCodec kBindCodec{bind_initial, bind_parse, bind_format, bind_rewrite, 0,
                              kUnbounded,   true};
const SpecialCodec kSaveCodec{save_initial, save_parse, save_format, save_rewrite, 0,
                              kUnbounded,   true};
const SpecialCodec kOutputBufferLimitCodec{cobl_initial, cobl_parse, cobl_format, cobl_rewrite, 0,
                                           kUnbounded,   true};
const SpecialCodec kNotifyEventsCodec{
    notify_initial, notify_parse, notify_format, notify_rewrite, 1, 1, false};
const SpecialCodec kGlobListCodec{globs_initial, globs_parse, bind_format, globs_rewrite, 1,
                                  kUnbounded,    true};
const SpecialCodec kOomScoreAdjValuesCodec{
    oom_values_initial, oom_values_parse, bind_format, words_rewrite, 1, kUnbounded, true};
const SpecialCodec kShutdownOnSignalCodec{
    shutdown_initial, shutdown_parse, shutdown_format, shutdown_rewrite, 1, kUnbounded, true};
const SpecialCodec kPercentilesCodec{percentiles_initial,
                                     percentiles_parse,
                                     percentiles_format,
                                     percentiles_rewrite,
                                     1,
                                     kUnbounded,
                                     true};

Value initial_value(const Directive& d) {
  switch (d.type) {
    case Type::kBool:
      return false;
    case Type::kInt:
    case Type::kOctal:
    case Type::kEnum:
      return std::int64_t{0};
    case Type::kMemory:
      return std::uint64_t{0};
    case Type::kString:
      return std::string();
    case Type::kSpecial:
      return d.special->initial();
  }
  return std::string();
}

bool accepts_arg_count(const Directive& d, std::size_t n) {
  if (d.type != Type::kSpecial) return n == 1;
  return n >= d.special->min_args && n <= d.special->max_args;
}

namespace {

std::optional<std::string> parse_simple(const Directive& d, const std::string& arg, Value& v) {
  switch (d.type) {
    case Type::kBool:
      if (iequals(arg, "yes")) {
        v = true;
      } else if (iequals(arg, "no")) {
        v = false;
      } else {
        return std::string(msg::kNotYesNo);
      }
      return std::nullopt;
    case Type::kInt: {
      auto n = parse_strict_int(arg);
      if (!n) return std::string(msg::kNotInteger);
      if (*n < d.min || *n > d.max) return msg::out_of_range(d.min, d.max);
      v = *n;
      return std::nullopt;
    }
    case Type::kOctal: {
      auto n = parse_octal(arg);
      if (!n) return std::string(msg::kNotOctal);
      if (*n < d.min || *n > d.max) return msg::out_of_range_octal(d.min, d.max);
      v = *n;
      return std::nullopt;
    }
    case Type::kMemory: {
      auto n = parse_memory(arg);
      if (!n) return std::string(msg::kNotMemory);
      if (*n < d.umin || *n > d.umax) return msg::out_of_range(d.umin, d.umax);
      v = *n;
      return std::nullopt;
    }
    case Type::kString:
      v = arg;
      return std::nullopt;
    case Type::kEnum: {
      for (const auto& e : d.enum_names) {
        if (iequals(arg, e.name)) {
          v = e.value;
          return std::nullopt;
        }
      }
      std::vector<std::string_view> names;
      for (const auto& e : d.enum_names) names.push_back(e.name);
      return msg::not_one_of(names);
    }
    case Type::kSpecial:
      break;
  }
  return std::string(msg::kBadDirective);
}

}  // namespace

std::optional<std::string> parse_value(const Directive& d, std::span<const std::string> args,
                                       Value& v, bool first) {
  Value next = v;
  std::optional<std::string> err;
  if (d.type == Type::kSpecial) {
    err = d.special->parse(args, next, first);
  } else if (args.size() != 1) {
    err = std::string(msg::kWrongArgCount);
  } else {
    err = parse_simple(d, args[0], next);
  }
  if (!err && d.check) err = d.check(next);
  if (err) return err;
  v = std::move(next);
  return std::nullopt;
}

std::optional<std::string> parse_set_value(const Directive& d, std::string_view text, Value& v) {
  if (d.type == Type::kSpecial && d.special->split_set_value) {
    const std::vector<std::string> args = split_spaces(text);
    return parse_value(d, args, v, true);
  }
  const std::string arg(text);
  return parse_value(d, std::span<const std::string>(&arg, 1), v, true);
}

std::string format_value(const Directive& d, const Value& v) {
  switch (d.type) {
    case Type::kBool:
      return std::get<bool>(v) ? "yes" : "no";
    case Type::kInt:
      return std::to_string(std::get<std::int64_t>(v));
    case Type::kOctal:
      return fmt::format("{:o}", std::get<std::int64_t>(v));
    case Type::kMemory:
      return std::to_string(std::get<std::uint64_t>(v));
    case Type::kString:
      return std::get<std::string>(v);
    case Type::kEnum:
      for (const auto& e : d.enum_names) {
        if (e.value == std::get<std::int64_t>(v)) return std::string(e.name);
      }
      return std::string();
    case Type::kSpecial:
      return d.special->format(v);
  }
  return std::string();
}

std::vector<std::string> rewrite_lines(const Directive& d, const Value& v, const Value& def,
                                       bool in_file) {
  std::vector<std::string> args;
  switch (d.type) {
    case Type::kSpecial:
      args = d.special->rewrite(v, def, in_file);
      break;
    case Type::kMemory:
      if (in_file || v != def) args.push_back(format_memory(std::get<std::uint64_t>(v)));
      break;
    case Type::kString:
      if (in_file || v != def) args.push_back(quote(std::get<std::string>(v)));
      break;
    default:
      if (in_file || v != def) args.push_back(format_value(d, v));
      break;
  }
  std::vector<std::string> lines;
  for (auto& a : args) {
    lines.push_back(a.empty() ? std::string(d.name) : fmt::format("{} {}", d.name, a));
  }
  return lines;
}

}  // namespace streamd::config
