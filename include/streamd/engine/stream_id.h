// StreamId: the 128-bit stream entry ID `ms-seq`, plus the Redis rules for reading IDs from
// command arguments and for generating the next ID.
//
// Invariants and conventions:
// - IDs order by (ms, seq). The 16-byte big-endian encoding (encode/decode) preserves that
//   order bytewise, so IDs can key a RadixTree directly.
// - 0-0 is never a valid entry ID; MAX-MAX (max()) is the last possible one, after which a
//   stream is "exhausted".
// - Parsing follows redis-server 7.0.15 byte for byte (checked against the real server), with
//   its quirks: each number is read the way Redis's string2ull reads it (a plain decimal, or
//   else anything strtoull accepts whole: leading white space, a '+' sign, and even a '-' sign
//   that wraps around), the argument is cut at the first NUL byte, and arguments longer than
//   127 bytes are invalid. The command layer decides which options each argument allows.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "streamd/engine/status.h"

namespace streamd::engine {

struct StreamId {
  uint64_t ms = 0;
  uint64_t seq = 0;

  static constexpr std::size_t kEncodedSize = 16;
  // Longest text form: two 20-digit numbers and the dash.
  static constexpr std::size_t kMaxTextSize = 41;

  static constexpr StreamId min() { return {0, 0}; }
  static constexpr StreamId max() { return {UINT64_MAX, UINT64_MAX}; }

  friend constexpr auto operator<=>(const StreamId&, const StreamId&) = default;
  friend constexpr bool operator==(const StreamId&, const StreamId&) = default;

  constexpr bool is_zero() const { return ms == 0 && seq == 0; }
  constexpr bool is_max() const { return ms == UINT64_MAX && seq == UINT64_MAX; }

  // The smallest ID greater than this one; nullopt for max().
  constexpr std::optional<StreamId> next() const {
    if (seq != UINT64_MAX) return StreamId{ms, seq + 1};
    if (ms != UINT64_MAX) return StreamId{ms + 1, 0};
    return std::nullopt;
  }
  // The greatest ID smaller than this one; nullopt for 0-0.
  constexpr std::optional<StreamId> prev() const {
    if (seq != 0) return StreamId{ms, seq - 1};
    if (ms != 0) return StreamId{ms - 1, UINT64_MAX};
    return std::nullopt;
  }

  // "ms-seq".
  std::string to_string() const;
  // Writes "ms-seq" into buf (no terminator) and returns its length.
  std::size_t format(char (&buf)[kMaxTextSize]) const;

  // Big-endian: ms then seq.
  void encode(uint8_t* out) const;
  std::array<uint8_t, kEncodedSize> encode() const {
    std::array<uint8_t, kEncodedSize> a;
    encode(a.data());
    return a;
  }
  static StreamId decode(const uint8_t* in);
};

// How an argument may be written; see parse_stream_id.
struct IdParseOptions {
  bool strict = false;           // reject "-" and "+" (XADD, XDEL, XACK, XCLAIM, XSETID, groups)
  uint64_t missing_seq = 0;      // seq for a bare "ms": 0 at a range start, UINT64_MAX at an end
  bool allow_seq_auto = false;   // accept "ms-*" (XADD only)
  bool allow_exclusive = false;  // accept "(id" (XRANGE/XREVRANGE/XPENDING start, XAUTOCLAIM)
};

struct ParsedId {
  StreamId id;
  bool seq_auto = false;   // "ms-*": id.seq is meaningless, the stream picks it
  bool exclusive = false;  // "(id": the caller must step past id (see parse_range_start/end)
};

// Parses one ID argument. Errors: kInvalidStreamId.
// - "-" is 0-0 and "+" is MAX-MAX unless strict.
// - "(id" (only with allow_exclusive, and only if more follows the parenthesis) is always read
//   strictly, so "(-" and "(+" are invalid, as in Redis.
Result<ParsedId> parse_stream_id(std::string_view arg, const IdParseOptions& opts);

// Strict parse of a plain ID (no "-"/"+", no "*", no "(").
Result<StreamId> parse_strict_id(std::string_view arg, uint64_t missing_seq = 0);

// Range bounds as XRANGE/XREVRANGE read them: "-", "+", a bare ms (seq 0 for a start,
// UINT64_MAX for an end) and, if allow_exclusive, "(id", resolved here to the next ID
// (kInvalidStartId when there is none) or the previous one (kInvalidEndId). Redis parses and
// steps the start before it even reads the end, so call these in that order.
Result<StreamId> parse_range_start(std::string_view arg, bool allow_exclusive = true);
Result<StreamId> parse_range_end(std::string_view arg, bool allow_exclusive = true);

// What XADD asked for: "*", "ms-*" or an explicit ID.
struct IdSpec {
  enum class Kind : uint8_t { kAuto, kSeqAuto, kExplicit };
  Kind kind = Kind::kAuto;
  StreamId id;  // kSeqAuto: only id.ms counts; kExplicit: the full ID

  static constexpr IdSpec automatic() { return {}; }
  static constexpr IdSpec seq_auto(uint64_t ms) { return {Kind::kSeqAuto, {ms, 0}}; }
  static constexpr IdSpec explicit_id(StreamId id) { return {Kind::kExplicit, id}; }
};

// Parses XADD's ID argument ("*", "ms-*", "ms", "ms-seq"). Errors: kInvalidStreamId.
Result<IdSpec> parse_xadd_id(std::string_view arg);

// The ID XADD would give a new entry, after `last` (the stream's last_id), at time now_ms:
// - kAuto: ms = max(now_ms, last.ms); if that equals last.ms the sequence continues from last
//   (so IDs never go backwards when the clock does); exhausted after MAX-MAX.
// - kSeqAuto: ms-0 if ms > last.ms, last.ms-(last.seq+1) if equal, else kIdTooSmall.
// - kExplicit: must be greater than last (kIdTooSmall) and than 0-0 (kIdZero).
// Errors in Redis's order: kIdZero, kIdExhausted (last is MAX-MAX), then kIdTooSmall.
// A kSeqAuto whose sequence would overflow (last is ms-MAX) gives kIdTooSmall, as Redis 7.2+
// answers (7.0 said "Elements are too large to be stored").
Result<StreamId> next_stream_id(const IdSpec& spec, StreamId last, uint64_t now_ms);

}  // namespace streamd::engine
