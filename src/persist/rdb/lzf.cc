#include "streamd/persist/rdb/lzf.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace streamd::persist::rdb {

namespace {

constexpr std::size_t kMaxLiteral = 32;
constexpr std::size_t kMaxOffset = 8191;
constexpr std::size_t kMaxMatch = 7 + 255 + 2;  // L up to 264
constexpr int kHashBits = 14;

uint32_t hash3(const unsigned char* p) {
  uint32_t v = (uint32_t{p[0]} << 16) | (uint32_t{p[1]} << 8) | p[2];
  return (v * 2654435761u) >> (32 - kHashBits);
}

}  // namespace

std::optional<std::string> lzf_compress(std::string_view in, std::size_t max_out) {
  const auto* src = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t n = in.size();
  std::string out;
  out.reserve(max_out);
  std::vector<uint32_t> table(std::size_t{1} << kHashBits, UINT32_MAX);
  std::size_t lit_start = 0;  // first byte of the pending literal run
  // Emits in[lit_start, end) as literal runs of at most 32 bytes.
  auto flush_literals = [&](std::size_t end) {
    while (lit_start < end) {
      std::size_t len = std::min(kMaxLiteral, end - lit_start);
      out.push_back(static_cast<char>(len - 1));
      out.append(in.data() + lit_start, len);
      lit_start += len;
    }
  };
  std::size_t i = 0;
  while (i + 2 < n) {
    uint32_t h = hash3(src + i);
    uint32_t cand = table[h];
    table[h] = static_cast<uint32_t>(i);
    if (cand != UINT32_MAX && i - cand - 1 <= kMaxOffset &&
        std::memcmp(src + cand, src + i, 3) == 0) {
      std::size_t len = 3;
      std::size_t limit = std::min(kMaxMatch, n - i);
      while (len < limit && src[cand + len] == src[i + len]) ++len;
      flush_literals(i);
      std::size_t off = i - cand - 1;
      std::size_t l = len - 2;
      if (l < 7) {
        out.push_back(static_cast<char>((l << 5) | (off >> 8)));
      } else {
        out.push_back(static_cast<char>((7 << 5) | (off >> 8)));
        out.push_back(static_cast<char>(l - 7));
      }
      out.push_back(static_cast<char>(off & 0xff));
      // Index the positions inside the match too, so later repeats find them.
      for (std::size_t k = i + 1; k < i + len && k + 2 < n; ++k) {
        table[hash3(src + k)] = static_cast<uint32_t>(k);
      }
      i += len;
      lit_start = i;
    } else {
      ++i;
    }
    if (out.size() > max_out) return std::nullopt;
  }
  flush_literals(n);
  if (out.size() > max_out) return std::nullopt;
  return out;
}

bool lzf_decompress(std::string_view in, std::size_t out_len, std::string& out) {
  out.clear();
  out.reserve(out_len);
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const auto* end = p + in.size();
  while (p < end) {
    unsigned c = *p++;
    if (c < 32) {
      std::size_t len = c + 1;
      if (static_cast<std::size_t>(end - p) < len || out.size() + len > out_len) return false;
      out.append(reinterpret_cast<const char*>(p), len);
      p += len;
      continue;
    }
    std::size_t len = c >> 5;
    if (len == 7) {
      if (p == end) return false;
      len += *p++;
    }
    if (p == end) return false;
    std::size_t back = ((std::size_t{c} & 31) << 8) + *p++ + 1;
    len += 2;
    if (back > out.size() || out.size() + len > out_len) return false;
    std::size_t from = out.size() - back;
    for (std::size_t k = 0; k < len; ++k) out.push_back(out[from + k]);  // may overlap
  }
  return out.size() == out_len;
}

}  // namespace streamd::persist::rdb
