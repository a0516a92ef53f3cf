// The value types configuration directives hold, and the enumerations and structures the rest of
// the server reads from them. Every directive stores one `Value`; the alternative is fixed by the
// directive's type and never changes, so a reference to it stays valid for the Config's life.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace streamd::config {

// loglevel. The numbers are what the directive stores (Config::ref<std::int64_t>).
enum class LogLevel : std::int64_t { kDebug = 0, kVerbose = 1, kNotice = 2, kWarning = 3 };

// appendfsync.
enum class AppendFsync : std::int64_t { kAlways = 0, kEverySec = 1, kNo = 2 };

// maxmemory-policy.
enum class MaxmemoryPolicy : std::int64_t {
  kVolatileLru = 0,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
  kAllkeysLru,
  kAllkeysLfu,
  kAllkeysRandom,
  kNoEviction,
};

// enable-debug-command, enable-protected-configs, enable-module-command: whether a client may
// use what they guard ("local": a unix socket client or one connected from a loopback address).
enum class LocalPermission : std::int64_t { kNo = 0, kYes = 1, kLocal = 2 };

// tls-auth-clients.
enum class TlsAuthClients : std::int64_t { kNo = 0, kYes = 1, kOptional = 2 };

std::string_view to_string(LogLevel v);
std::string_view to_string(TlsAuthClients v);
std::string_view to_string(AppendFsync v);
std::string_view to_string(MaxmemoryPolicy v);
std::string_view to_string(LocalPermission v);

// One `save <seconds> <changes>` point.
struct SavePoint {
  std::int64_t seconds = 0;
  std::int64_t changes = 0;
  friend bool operator==(const SavePoint&, const SavePoint&) = default;
};
using SavePoints = std::vector<SavePoint>;

// client-output-buffer-limit, per client class. 0 means "no limit".
enum class ClientClass { kNormal = 0, kReplica = 1, kPubSub = 2 };
inline constexpr std::size_t kClientClasses = 3;

struct OutputBufferLimit {
  std::uint64_t hard_bytes = 0;
  std::uint64_t soft_bytes = 0;
  std::int64_t soft_seconds = 0;
  friend bool operator==(const OutputBufferLimit&, const OutputBufferLimit&) = default;
};

struct OutputBufferLimits {
  std::array<OutputBufferLimit, kClientClasses> by_class{};
  const OutputBufferLimit& operator[](ClientClass c) const {
    return by_class[static_cast<std::size_t>(c)];
  }
  OutputBufferLimit& operator[](ClientClass c) { return by_class[static_cast<std::size_t>(c)]; }
  friend bool operator==(const OutputBufferLimits&, const OutputBufferLimits&) = default;
};

// notify-keyspace-events bits (one per class letter of the directive).
namespace notify {
inline constexpr std::uint32_t kKeyspace = 1u << 0;  // K
inline constexpr std::uint32_t kKeyevent = 1u << 1;  // E
inline constexpr std::uint32_t kGeneric = 1u << 2;   // g
inline constexpr std::uint32_t kString = 1u << 3;    // $
inline constexpr std::uint32_t kList = 1u << 4;      // l
inline constexpr std::uint32_t kSet = 1u << 5;       // s
inline constexpr std::uint32_t kHash = 1u << 6;      // h
inline constexpr std::uint32_t kZset = 1u << 7;      // z
inline constexpr std::uint32_t kExpired = 1u << 8;   // x
inline constexpr std::uint32_t kEvicted = 1u << 9;   // e
inline constexpr std::uint32_t kStream = 1u << 10;   // t
inline constexpr std::uint32_t kKeyMiss = 1u << 11;  // m (not part of A)
inline constexpr std::uint32_t kModule = 1u << 12;   // d
inline constexpr std::uint32_t kNewKey = 1u << 13;   // n (not part of A)
// What `A` stands for.
inline constexpr std::uint32_t kAll =
    kGeneric | kString | kList | kSet | kHash | kZset | kExpired | kEvicted | kStream | kModule;
}  // namespace notify

// The storage of one directive. bool: kBool; std::int64_t: kInt, kOctal, kEnum and
// notify-keyspace-events (a notify:: bit set); std::uint64_t: kMemory; std::string: kString;
// std::vector<std::string>: bind; SavePoints: save; OutputBufferLimits: client-output-buffer-limit.
using Value = std::variant<bool, std::int64_t, std::uint64_t, std::string, std::vector<std::string>,
                           SavePoints, OutputBufferLimits>;

}  // namespace streamd::config
