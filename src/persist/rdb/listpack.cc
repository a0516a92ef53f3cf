#include "streamd/persist/rdb/listpack.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "streamd/persist/rdb/encoding.h"

namespace streamd::persist::rdb {

namespace {

constexpr std::size_t kHeader = 6;
constexpr uint8_t kEof = 0xFF;
constexpr uint16_t kUnknownCount = 65535;

std::size_t backlen_size(std::size_t n) {
  if (n <= 127) return 1;
  if (n < 16383) return 2;
  if (n < 2097151) return 3;
  if (n < 268435455) return 4;
  return 5;
}

uint64_t get_le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

unsigned char* put_le(unsigned char* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
  return p;
}

// Writes the backlen of an element of n bytes at p; returns the end.
unsigned char* put_backlen(unsigned char* p, std::size_t n) {
  if (n <= 127) {
    *p++ = static_cast<unsigned char>(n);
    return p;
  }
  std::size_t k = backlen_size(n);
  for (std::size_t i = 0; i < k; ++i) {
    auto b = static_cast<uint8_t>((n >> (7 * (k - 1 - i))) & 127);
    if (i != 0) b |= 128;
    *p++ = b;
  }
  return p;
}

// The largest element header (encoding byte + 4-byte length) and backlen.
constexpr std::size_t kMaxHeader = 5;
constexpr std::size_t kMaxBacklen = 5;
// An integer element: at most 1 + 8 bytes, so its backlen is one byte.
constexpr std::size_t kMaxIntElement = 9 + 1;

}  // namespace

ListpackWriter::ListpackWriter() : buf_(kInitialCapacity, '\0'), used_(kHeader) {}

void ListpackWriter::grow(std::size_t n) {
  buf_.resize(std::max(buf_.size() * 2, used_ + n));
}

void ListpackWriter::add_wide_int(int64_t v) {
  unsigned char* const start = room(kMaxIntElement);
  unsigned char* p = start;
  if (v >= 0 && v <= 127) {
    *p++ = static_cast<unsigned char>(v);
  } else if (v >= -4096 && v <= 4095) {
    auto u = static_cast<uint64_t>(v < 0 ? v + 8192 : v);
    *p++ = static_cast<unsigned char>(0xC0 | (u >> 8));
    *p++ = static_cast<unsigned char>(u & 0xff);
  } else if (v >= INT16_MIN && v <= INT16_MAX) {
    *p++ = 0xF1;
    p = put_le(p, static_cast<uint64_t>(v), 2);
  } else if (v >= -(1 << 23) && v < (1 << 23)) {
    *p++ = 0xF2;
    p = put_le(p, static_cast<uint64_t>(v), 3);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    *p++ = 0xF3;
    p = put_le(p, static_cast<uint64_t>(v), 4);
  } else {
    *p++ = 0xF4;
    p = put_le(p, static_cast<uint64_t>(v), 8);
  }
  p = put_backlen(p, static_cast<std::size_t>(p - start));
  used_ += static_cast<std::size_t>(p - start);
  ++count_;
}

void ListpackWriter::add_string(std::string_view s) {
  int64_t v;
  if (canonical_int(s, v)) return add_int(v);
  unsigned char* const start = room(kMaxHeader + s.size() + kMaxBacklen);
  unsigned char* p = start;
  if (s.size() < 64) {
    *p++ = static_cast<unsigned char>(0x80 | s.size());
  } else if (s.size() < 4096) {
    *p++ = static_cast<unsigned char>(0xE0 | (s.size() >> 8));
    *p++ = static_cast<unsigned char>(s.size() & 0xff);
  } else {
    *p++ = 0xF0;
    p = put_le(p, s.size(), 4);
  }
  std::memcpy(p, s.data(), s.size());
  p += s.size();
  p = put_backlen(p, static_cast<std::size_t>(p - start));
  used_ += static_cast<std::size_t>(p - start);
  ++count_;
}

std::string ListpackWriter::finish() {
  unsigned char* p = room(1);
  *p = kEof;
  ++used_;
  buf_.resize(used_);
  auto* h = reinterpret_cast<unsigned char*>(buf_.data());
  h = put_le(h, used_, 4);
  put_le(h, count_ < kUnknownCount ? count_ : kUnknownCount, 2);
  return std::move(buf_);
}

std::string_view LpElement::text(std::string& buf) const {
  if (!is_int) return s;
  char tmp[24];
  auto [p, ec] = std::to_chars(tmp, tmp + sizeof tmp, i);
  buf.assign(tmp, p);
  return buf;
}

bool read_listpack(std::string_view lp, std::vector<LpElement>& out) {
  out.clear();
  const auto* base = reinterpret_cast<const unsigned char*>(lp.data());
  const std::size_t n = lp.size();
  if (n < kHeader + 1 || get_le(base, 4) != n || base[n - 1] != kEof) return false;
  const uint64_t declared = get_le(base + 4, 2);
  std::size_t pos = kHeader;
  const std::size_t end = n - 1;  // the terminator
  while (pos < end) {
    const unsigned char* p = base + pos;
    const std::size_t avail = end - pos;
    LpElement e;
    std::size_t enc_len;  // encoding + data
    uint8_t b = p[0];
    auto need = [&](std::size_t k) { return avail >= k; };
    if ((b & 0x80) == 0) {
      e.is_int = true;
      e.i = b;
      enc_len = 1;
    } else if ((b & 0xC0) == 0x80) {
      std::size_t len = b & 0x3f;
      enc_len = 1 + len;
      if (!need(enc_len)) return false;
      e.s = lp.substr(pos + 1, len);
    } else if ((b & 0xE0) == 0xC0) {
      if (!need(2)) return false;
      uint64_t u = (uint64_t{b & 0x1fu} << 8) | p[1];
      e.is_int = true;
      e.i = u >= 4096 ? static_cast<int64_t>(u) - 8192 : static_cast<int64_t>(u);
      enc_len = 2;
    } else if ((b & 0xF0) == 0xE0) {
      if (!need(2)) return false;
      std::size_t len = (std::size_t{b & 0x0fu} << 8) | p[1];
      enc_len = 2 + len;
      if (!need(enc_len)) return false;
      e.s = lp.substr(pos + 2, len);
    } else if (b == 0xF0) {
      if (!need(5)) return false;
      uint64_t len = get_le(p + 1, 4);
      if (len > avail - 5) return false;
      enc_len = 5 + static_cast<std::size_t>(len);
      e.s = lp.substr(pos + 5, static_cast<std::size_t>(len));
    } else if (b >= 0xF1 && b <= 0xF4) {
      static constexpr int kBytes[] = {2, 3, 4, 8};
      int k = kBytes[b - 0xF1];
      if (!need(1 + static_cast<std::size_t>(k))) return false;
      uint64_t u = get_le(p + 1, k);
      if (k < 8) {
        uint64_t sign = uint64_t{1} << (8 * k - 1);
        e.i = (u & sign) ? static_cast<int64_t>(u) - static_cast<int64_t>(sign << 1)
                         : static_cast<int64_t>(u);
      } else {
        e.i = static_cast<int64_t>(u);
      }
      e.is_int = true;
      enc_len = 1 + static_cast<std::size_t>(k);
    } else {
      return false;  // 0xF5..0xFE are not encodings; 0xFF before the end is a stray terminator
    }
    std::size_t bl = backlen_size(enc_len);
    if (avail < enc_len + bl) return false;
    const unsigned char* q = p + enc_len;
    // The backlen, checked byte by byte against the one enc_len must have.
    for (std::size_t i = 0; i < bl; ++i) {
      auto want = static_cast<uint8_t>((enc_len >> (7 * (bl - 1 - i))) & 127);
      if (i != 0) want |= 128;
      if (q[i] != want) return false;
    }
    pos += enc_len + bl;
    out.push_back(e);
  }
  if (pos != end) return false;
  if (declared != kUnknownCount && declared != out.size()) return false;
  return true;
}

}  // namespace streamd::persist::rdb
