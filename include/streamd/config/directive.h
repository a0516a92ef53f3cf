// The directives table: one row per configuration directive, holding everything the config layer
// needs to parse it (from the config file, a --flag or CONFIG SET), show it (CONFIG GET), write it
// back (CONFIG REWRITE) and decide whether it may change at runtime.
//
// Adding a directive is one row in src/config/directives.cc, for example
//   int_row("tls-port", "0", 0, 65535).immutable(),
//   string_row("tls-cert-file", "").immutable(),
// and code that reads it on a hot path takes a reference once: cfg.ref<std::int64_t>("tls-port").
//
// Defaults are written as CONFIG SET would take them ("512mb", "yes", "127.0.0.1 -::1") and are
// parsed by the row's own parser when a Config is built, so a bad default fails every test.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamd/config/values.h"

namespace streamd::config {

enum class Type : std::uint8_t {
  kBool,     // yes | no                                        -> bool
  kInt,      // strict decimal within [min, max]                -> std::int64_t
  kOctal,    // octal within [min, max] (unixsocketperm)        -> std::int64_t
  kMemory,   // digits + unit (4k, 512mb, 1gb) in [umin, umax]  -> std::uint64_t
  kString,   // any one argument                                -> std::string
  kEnum,     // one of enum_names, case-insensitive             -> std::int64_t (its value)
  kSpecial,  // own parser and printer (save, bind, ...)        -> see SpecialCodec::initial
};

enum class Mutability : std::uint8_t {
  kMutable,    // CONFIG SET may change it
  kImmutable,  // startup only: "can't set immutable config"
  kProtected,  // CONFIG SET only where enable-protected-configs allows it (yes, or local for a
               // local client); else "can't set protected config"
};

struct EnumName {
  std::string_view name;
  std::int64_t value;
};

// Parsing and printing for a kSpecial directive.
struct SpecialCodec {
  // The empty value the default is parsed onto (it fixes the Value alternative).
  Value (*initial)();
  // Parses `args` (a config line's arguments after the name, or a CONFIG SET value split on
  // spaces) into `v`, which holds the current value. `first` is true for CONFIG SET and for the
  // first occurrence while loading; directives that accumulate over several lines (save) start
  // afresh then. Returns the reason on error.
  std::optional<std::string> (*parse)(std::span<const std::string> args, Value& v, bool first);
  // The CONFIG GET text.
  std::string (*format)(const Value& v);
  // The argument text of each line CONFIG REWRITE writes (without the directive name). `in_file`
  // says whether the file already names the directive (then something is always written).
  std::vector<std::string> (*rewrite)(const Value& v, const Value& def, bool in_file);
  // How many arguments a config-file line may have.
  std::size_t min_args = 1;
  std::size_t max_args = 1;
  // Whether the directive takes several words (save, bind, client-output-buffer-limit): CONFIG
  // SET then splits its value on single spaces, and a config line giving exactly one argument
  // has it split again with the config-line rules. When false, the whole value is one argument.
  bool split_set_value = false;
};

// An extra validation or normalisation run after a successful parse (appendfilename must not be
// a path, hz is clamped to 1..500). Returns the reason on error.
using CheckFn = std::optional<std::string> (*)(Value& v);

struct Directive {
  std::string_view name;
  Type type = Type::kString;
  std::string_view default_value;
  Mutability mutability = Mutability::kMutable;
  std::int64_t min = 0;    // kInt, kOctal
  std::int64_t max = 0;    // kInt, kOctal
  std::uint64_t umin = 0;  // kMemory
  std::uint64_t umax = 0;  // kMemory
  std::span<const EnumName> enum_names{};
  std::span<const std::string_view> aliases{};
  const SpecialCodec* special = nullptr;
  CheckFn check = nullptr;
  // A redis.conf directive streamd accepts, validates, shows and rewrites as Redis does, but
  // does not act on (the lazyfree-*, hash-* and cluster-* families...): a stock redis.conf must
  // load. Set to anything but its default, startup logs a warning naming it.
  bool without_effect = false;
  // A secret (a password): CONFIG SET shows its value as "(redacted)" in SLOWLOG, as Redis's
  // SENSITIVE_CONFIG does.
  bool secret = false;

  constexpr Directive immutable() const {
    Directive d = *this;
    d.mutability = Mutability::kImmutable;
    return d;
  }
  constexpr Directive protected_config() const {
    Directive d = *this;
    d.mutability = Mutability::kProtected;
    return d;
  }
  constexpr Directive with_aliases(std::span<const std::string_view> a) const {
    Directive d = *this;
    d.aliases = a;
    return d;
  }
  constexpr Directive sensitive() const {
    Directive d = *this;
    d.secret = true;
    return d;
  }
  constexpr Directive no_effect() const {
    Directive d = *this;
    d.without_effect = true;
    return d;
  }
  constexpr Directive with_check(CheckFn fn) const {
    Directive d = *this;
    d.check = fn;
    return d;
  }
};

// Row builders.
constexpr Directive bool_row(std::string_view name, std::string_view def) {
  return Directive{.name = name, .type = Type::kBool, .default_value = def};
}
constexpr Directive int_row(std::string_view name, std::string_view def, std::int64_t min,
                            std::int64_t max) {
  return Directive{.name = name, .type = Type::kInt, .default_value = def, .min = min, .max = max};
}
constexpr Directive octal_row(std::string_view name, std::string_view def, std::int64_t min,
                              std::int64_t max) {
  return Directive{
      .name = name, .type = Type::kOctal, .default_value = def, .min = min, .max = max};
}
constexpr Directive memory_row(std::string_view name, std::string_view def, std::uint64_t umin,
                               std::uint64_t umax) {
  return Directive{
      .name = name, .type = Type::kMemory, .default_value = def, .umin = umin, .umax = umax};
}
constexpr Directive string_row(std::string_view name, std::string_view def) {
  return Directive{.name = name, .type = Type::kString, .default_value = def};
}
constexpr Directive enum_row(std::string_view name, std::string_view def,
                             std::span<const EnumName> names) {
  return Directive{.name = name, .type = Type::kEnum, .default_value = def, .enum_names = names};
}
constexpr Directive special_row(std::string_view name, std::string_view def,
                                const SpecialCodec& codec) {
  return Directive{.name = name, .type = Type::kSpecial, .default_value = def, .special = &codec};
}

inline constexpr std::int64_t kIntMax = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int64_t kUintMax = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::int64_t kLongMax = std::numeric_limits<std::int64_t>::max();
inline constexpr std::uint64_t kULongMax = std::numeric_limits<std::uint64_t>::max();

// streamd's directives (src/config/directives.cc).
std::span<const Directive> builtin_directives();

// The special codecs the built-in table uses, for tables built in tests.
extern const SpecialCodec kBindCodec;
extern const SpecialCodec kSaveCodec;
extern const SpecialCodec kOutputBufferLimitCodec;
extern const SpecialCodec kNotifyEventsCodec;
extern const SpecialCodec kPercentilesCodec;
extern const SpecialCodec kGlobListCodec;
extern const SpecialCodec kReplicaofCodec;
// Redis's directives streamd accepts without acting on them (their rows are no_effect()).
extern const SpecialCodec kOomScoreAdjValuesCodec;
extern const SpecialCodec kShutdownOnSignalCodec;

// ---- per-row operations (src/config/codec.cc) ----

// The empty value of the row's type.
Value initial_value(const Directive& d);
// Whether a config-file line may give the row `n` arguments.
bool accepts_arg_count(const Directive& d, std::size_t n);
// Parses arguments into `v` (see SpecialCodec::parse for `first`) and runs the row's check.
std::optional<std::string> parse_value(const Directive& d, std::span<const std::string> args,
                                       Value& v, bool first);
// Parses a CONFIG SET value: one argument, or the value split on spaces for kSpecial rows.
std::optional<std::string> parse_set_value(const Directive& d, std::string_view text, Value& v);
// The CONFIG GET text (memory as plain bytes, bools as yes/no, octal without a leading 0).
std::string format_value(const Directive& d, const Value& v);
// The lines CONFIG REWRITE writes for the row, name included ("maxmemory 100mb").
std::vector<std::string> rewrite_lines(const Directive& d, const Value& v, const Value& def,
                                       bool in_file);

}  // namespace streamd::config
