#include "streamd/persist/rdb/lzf.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace streamd::persist::rdb {

namespace {

constexpr std::size_t kMaxLiteral = 32;
constexpr std::size_t kMaxOffset = 8191;
constexpr std::size_t kMaxMatch = 7 + 255 + 2;  // L up to 264
constexpr int kHashBits = 14;

uint32_t load3(const unsigned char* p) {
  return (uint32_t{p[0]} << 16) | (uint32_t{p[1]} << 8) | p[2];
}

uint32_t hash3(uint32_t v) {
  return (v * 2654435761u) >> (32 - kHashBits);
}

// The match finder's table: the last position seen for each hash of 3 bytes, stored as
// `base + position`. Each call takes a fresh range of values above every earlier call's, so a
// slot below `base` is stale and reads as empty: the table is never cleared between calls (a
// RDB save compresses one listpack per stream node, and clearing 64 KiB per node cost a tenth of
// the save), and the output is the same as with a cleared table.
struct MatchTable {
  uint32_t slot[std::size_t{1} << kHashBits];
  uint32_t base = UINT32_MAX;  // forces the first call to clear
};

thread_local MatchTable t_table;

// Length of the common prefix of a and b, from `from` up to `limit`. Byte by byte: a stream
// node's matches are mostly 10 to 20 bytes long, where comparing eight bytes at a time cost a
// fifth more (its exits are the harder branch to predict; measured on node-shaped listpacks).
std::size_t match_length(const unsigned char* a, const unsigned char* b, std::size_t from,
                         std::size_t limit) {
  std::size_t len = from;
  while (len < limit && a[len] == b[len]) ++len;
  return len;
}

}  // namespace

std::optional<std::string> lzf_compress(std::string_view in, std::size_t max_out) {
  std::string out;
  if (!lzf_compress(in, max_out, out)) return std::nullopt;
  return out;
}

bool lzf_compress(std::string_view in, std::size_t max_out, std::string& out) {
  const auto* src = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t n = in.size();
  MatchTable& t = t_table;
  if (n >= UINT32_MAX / 2) return false;  // positions must fit the table's values
  // Fewer than 4 bytes cannot shrink (and the rolling hash below starts from two bytes).
  if (n < 4 || max_out < 2) return false;
  if (t.base > UINT32_MAX - n - 1) {
    std::memset(t.slot, 0, sizeof t.slot);
    t.base = 1;
  }
  const uint32_t base = t.base;
  t.base += static_cast<uint32_t>(n) + 1;
  uint32_t* const slot = t.slot;

  out.resize(max_out);  // every byte up to op is written below (capacity kept between calls)
  auto* const out_begin = reinterpret_cast<unsigned char*>(out.data());
  unsigned char* op = out_begin + 1;  // after the first literal run's control byte
  unsigned char* ctl = out_begin;     // the pending literal run's control byte
  unsigned char* const op_end = out_begin + max_out;
  std::size_t lit = 0;  // bytes in the pending literal run
  // Invariant: op - ctl == lit + 1, and a literal run holds at most kMaxLiteral bytes.
  std::size_t i = 0;
  uint32_t v = (uint32_t{src[0]} << 8) | src[1];  // the rolling 3 bytes at i, minus the last
  while (i + 2 < n) {
    v = ((v << 8) | src[i + 2]) & 0xffffff;
    const uint32_t h = (v * 2654435761u) >> (32 - kHashBits);
    const uint32_t cand = slot[h];
    slot[h] = base + static_cast<uint32_t>(i);
    const std::size_t c = cand - base;  // < i when cand >= base
    if (cand >= base && i - c - 1 <= kMaxOffset && src[c] == src[i] && src[c + 1] == src[i + 1] &&
        src[c + 2] == src[i + 2]) {
      const std::size_t len = match_length(src + c, src + i, 3, std::min(kMaxMatch, n - i));
      // The back reference (3 bytes at most) and the next run's control byte must fit.
      if (op_end - op < 4) return false;
      if (lit == 0) {
        --op;  // no literal run before this match: reuse its control byte's place
      } else {
        *ctl = static_cast<unsigned char>(lit - 1);
      }
      const std::size_t off = i - c - 1;
      const std::size_t l = len - 2;
      if (l < 7) {
        *op++ = static_cast<unsigned char>((l << 5) | (off >> 8));
      } else {
        *op++ = static_cast<unsigned char>((7 << 5) | (off >> 8));
        *op++ = static_cast<unsigned char>(l - 7);
      }
      *op++ = static_cast<unsigned char>(off & 0xff);
      ctl = op++;
      lit = 0;
      // The last two positions of the match go into the table, so the next repeat (a stream
      // node's entries repeat with small differences) finds them.
      const std::size_t end = i + len;
      for (std::size_t k = end - 2; k < end && k + 2 < n; ++k) {
        slot[hash3(load3(src + k))] = base + static_cast<uint32_t>(k);
      }
      i = end;
      if (i + 2 < n) v = (uint32_t{src[i]} << 8) | src[i + 1];
      continue;
    }
    if (op == op_end) return false;
    *op++ = src[i++];
    if (++lit == kMaxLiteral) {
      *ctl = static_cast<unsigned char>(kMaxLiteral - 1);
      if (op == op_end) return false;
      ctl = op++;
      lit = 0;
    }
  }
  // The last bytes (fewer than 3 are left) as literals.
  while (i < n) {
    if (op == op_end) return false;
    *op++ = src[i++];
    if (++lit == kMaxLiteral && i < n) {
      *ctl = static_cast<unsigned char>(kMaxLiteral - 1);
      if (op == op_end) return false;
      ctl = op++;
      lit = 0;
    }
  }
  if (lit == 0) {
    --op;  // the placeholder of a run that never started
  } else {
    *ctl = static_cast<unsigned char>(lit - 1);
  }
  out.resize(static_cast<std::size_t>(op - out_begin));
  return true;
}

bool lzf_decompress(std::string_view in, std::size_t out_len, std::string& out) {
  // kSlack bytes of room past out_len let literal runs and back references be copied in whole
  // 8- or 32-byte blocks (what lies past the end is overwritten or cut off below).
  constexpr std::size_t kSlack = 40;
  out.resize(out_len + kSlack);
  auto* const begin = reinterpret_cast<unsigned char*>(out.data());
  unsigned char* op = begin;
  unsigned char* const op_end = begin + out_len;
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const auto* end = p + in.size();
  auto fail = [&] {
    out.clear();
    return false;
  };
  while (p < end) {
    unsigned c = *p++;
    if (c < 32) {
      std::size_t len = c + 1;
      if (static_cast<std::size_t>(end - p) < len || static_cast<std::size_t>(op_end - op) < len) {
        return fail();
      }
      if (static_cast<std::size_t>(end - p) >= kMaxLiteral) {
        std::memcpy(op, p, kMaxLiteral);  // a fixed size: one inlined copy
      } else {
        std::memcpy(op, p, len);
      }
      op += len;
      p += len;
      continue;
    }
    std::size_t len = c >> 5;
    if (len == 7) {
      if (p == end) return fail();
      len += *p++;
    }
    if (p == end) return fail();
    std::size_t back = ((std::size_t{c} & 31) << 8) + *p++ + 1;
    len += 2;
    if (back > static_cast<std::size_t>(op - begin) ||
        static_cast<std::size_t>(op_end - op) < len) {
      return fail();
    }
    const unsigned char* from = op - back;
    if (back >= 8) {
      // 8 bytes at a time: each block reads only bytes already written, even when the copy
      // overlaps itself, and the last block may run up to 7 bytes into the slack.
      for (std::size_t k = 0; k < len; k += 8) std::memcpy(op + k, from + k, 8);
    } else {
      for (std::size_t k = 0; k < len; ++k) op[k] = from[k];  // a short period: byte by byte
    }
    op += len;
  }
  if (op != op_end) return fail();
  out.resize(out_len);
  return true;
}

}  // namespace streamd::persist::rdb
