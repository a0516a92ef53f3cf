#include "streamd/engine/stream_id.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

namespace streamd::engine {

namespace {

constexpr std::size_t kMaxIdArgSize = 127;  // Redis copies the argument into a 128-byte buffer

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
// isspace() in the C locale.
bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

// A canonical signed 64-bit decimal: "0", or an optional '-' then digits without leading zeros.
// Decimal digits that always fit in 64 bits (10^19 - 1 < 2^64 - 1).
constexpr std::size_t kNeverOverflows = 19;

bool parse_canonical_i64(std::string_view s, int64_t& out) {
  if (s == "0") {
    out = 0;
    return true;
  }
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  if (s.empty() || s[0] < '1' || s[0] > '9') return false;
  uint64_t v = 0;
  // Every ID of every stream command is read here: the overflow check (a division per digit,
  // most of the work for a 13-digit time) is needed only past 19 digits, which never overflow.
  bool checked = s.size() > kNeverOverflows;
  for (char c : s) {
    if (!is_digit(c)) return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (checked && v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (v > limit) return false;
  out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

// One number of an ID, read the way redis-server does: a canonical decimal must not be
// negative; anything else must be accepted whole by strtoull(s, 10), which skips leading white
// space, takes a '+' or '-' sign (the latter negating modulo 2^64) and fails on overflow.
bool parse_id_number(std::string_view s, uint64_t& out) {
  int64_t canonical;
  if (parse_canonical_i64(s, canonical)) {
    if (canonical < 0) return false;
    out = static_cast<uint64_t>(canonical);
    return true;
  }
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == s.size() || !is_digit(s[i])) return false;
  uint64_t v = 0;
  bool checked = s.size() - i > kNeverOverflows;
  for (; i < s.size(); ++i) {
    if (!is_digit(s[i])) return false;
    uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (checked && v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;  // ERANGE
    v = v * 10 + d;
  }
  out = neg ? 0 - v : v;
  return true;
}

}  // namespace

std::size_t StreamId::format(char (&buf)[kMaxTextSize]) const {
  // IDs formatted one after another mostly share their milliseconds (an XADD reply, the entries
  // of one read): the last one's digits are kept per thread and copied instead of converted
  // again, which is most of the work for a 13-digit time.
  struct MsText {
    uint64_t ms = 0;
    uint8_t len = 1;
    char digits[20] = {'0'};
  };
  thread_local MsText last;
  char* end = buf + kMaxTextSize;
  if (ms != last.ms) {
    last.len =
        static_cast<uint8_t>(std::to_chars(last.digits, last.digits + 20, ms).ptr - last.digits);
    last.ms = ms;
  }
  std::memcpy(buf, last.digits, last.len);
  char* p = buf + last.len;
  *p++ = '-';
  if (seq < 10) {
    *p++ = static_cast<char>('0' + seq);
  } else {
    p = std::to_chars(p, end, seq).ptr;
  }
  return static_cast<std::size_t>(p - buf);
}

std::string StreamId::to_string() const {
  char buf[kMaxTextSize];
  return std::string(buf, format(buf));
}

void StreamId::encode(uint8_t* out) const {
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(ms >> (56 - 8 * i));
    out[8 + i] = static_cast<uint8_t>(seq >> (56 - 8 * i));
  }
}

StreamId StreamId::decode(const uint8_t* in) {
  StreamId id;
  for (int i = 0; i < 8; ++i) {
    id.ms = (id.ms << 8) | in[i];
    id.seq = (id.seq << 8) | in[8 + i];
  }
  return id;
}

Result<ParsedId> parse_stream_id(std::string_view arg, const IdParseOptions& opts) {
  ParsedId out;
  bool strict = opts.strict;
  if (opts.allow_exclusive && arg.size() > 1 && arg[0] == '(') {
    out.exclusive = true;
    strict = true;  // Redis reads the rest of an exclusive bound strictly
    arg.remove_prefix(1);
  }
  if (arg.size() > kMaxIdArgSize) return Err::kInvalidStreamId;
  // Redis handles the argument as a C string from here on.
  arg = arg.substr(0, arg.find('\0'));
  if (arg == "-" || arg == "+") {
    if (strict) return Err::kInvalidStreamId;
    out.id = arg == "-" ? StreamId::min() : StreamId::max();
    return out;
  }
  std::size_t dash = arg.find('-');
  if (dash == std::string_view::npos) {
    if (!parse_id_number(arg, out.id.ms)) return Err::kInvalidStreamId;
    out.id.seq = opts.missing_seq;
    return out;
  }
  if (!parse_id_number(arg.substr(0, dash), out.id.ms)) return Err::kInvalidStreamId;
  std::string_view seq = arg.substr(dash + 1);
  if (opts.allow_seq_auto && seq == "*") {
    out.seq_auto = true;
    return out;
  }
  if (!parse_id_number(seq, out.id.seq)) return Err::kInvalidStreamId;
  return out;
}

Result<StreamId> parse_strict_id(std::string_view arg, uint64_t missing_seq) {
  IdParseOptions opts;
  opts.strict = true;
  opts.missing_seq = missing_seq;
  Result<ParsedId> r = parse_stream_id(arg, opts);
  if (!r) return r.err();
  return r->id;
}

Result<StreamId> parse_range_start(std::string_view arg, bool allow_exclusive) {
  IdParseOptions opts;
  opts.missing_seq = 0;
  opts.allow_exclusive = allow_exclusive;
  Result<ParsedId> r = parse_stream_id(arg, opts);
  if (!r) return r.err();
  if (!r->exclusive) return r->id;
  std::optional<StreamId> next = r->id.next();
  if (!next) return Err::kInvalidStartId;
  return *next;
}

Result<StreamId> parse_range_end(std::string_view arg, bool allow_exclusive) {
  IdParseOptions opts;
  opts.missing_seq = UINT64_MAX;
  opts.allow_exclusive = allow_exclusive;
  Result<ParsedId> r = parse_stream_id(arg, opts);
  if (!r) return r.err();
  if (!r->exclusive) return r->id;
  std::optional<StreamId> prev = r->id.prev();
  if (!prev) return Err::kInvalidEndId;
  return *prev;
}

Result<IdSpec> parse_xadd_id(std::string_view arg) {
  // Redis tests the first two bytes of the C string for "*".
  if (!arg.empty() && arg[0] == '*' && (arg.size() == 1 || arg[1] == '\0')) {
    return IdSpec::automatic();
  }
  IdParseOptions opts;
  opts.strict = true;
  opts.allow_seq_auto = true;
  Result<ParsedId> r = parse_stream_id(arg, opts);
  if (!r) return r.err();
  if (r->seq_auto) return IdSpec::seq_auto(r->id.ms);
  return IdSpec::explicit_id(r->id);
}

Result<StreamId> next_stream_id(const IdSpec& spec, StreamId last, uint64_t now_ms) {
  if (spec.kind == IdSpec::Kind::kExplicit && spec.id.is_zero()) return Err::kIdZero;
  if (last.is_max()) return Err::kIdExhausted;
  switch (spec.kind) {
    case IdSpec::Kind::kAuto: {
      uint64_t ms = std::max(now_ms, last.ms);
      if (ms == last.ms) return *last.next();  // last is not MAX-MAX, so next() exists
      return StreamId{ms, 0};
    }
    case IdSpec::Kind::kSeqAuto: {
      uint64_t ms = spec.id.ms;
      if (ms > last.ms) return StreamId{ms, 0};
      if (ms < last.ms) return Err::kIdTooSmall;
      // No sequence is left after ms-MAX: the top item is as large as the ID can get (Redis
      // 7.2+; 7.0 answered "Elements are too large to be stored").
      if (last.seq == UINT64_MAX) return Err::kIdTooSmall;
      return StreamId{ms, last.seq + 1};
    }
    case IdSpec::Kind::kExplicit:
      if (spec.id <= last) return Err::kIdTooSmall;
      return spec.id;
  }
  return Err::kInvalidStreamId;  // unreachable
}

}  // namespace streamd::engine
