#include "streamd/persist/rdb/crc64.h"

#include <array>
#include <bit>
#include <cstring>

namespace streamd::persist::rdb {

namespace {

constexpr uint64_t kPoly = 0xad93d23594c935a9ULL;

constexpr uint64_t reflect64(uint64_t v) {
  uint64_t r = 0;
  for (int i = 0; i < 64; ++i) r |= ((v >> i) & 1) << (63 - i);
  return r;
}

// The byte-at-a-time table of the reflected algorithm: entry b is the CRC of byte b alone.
// Slicing by 8 keeps a multi-megabyte snapshot's checksum well under its write time.
struct Tables {
  std::array<std::array<uint64_t, 256>, 8> t{};
  constexpr Tables() {
    constexpr uint64_t rpoly = reflect64(kPoly);
    for (uint64_t b = 0; b < 256; ++b) {
      uint64_t c = b;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ rpoly : c >> 1;
      t[0][b] = c;
    }
    for (int s = 1; s < 8; ++s) {
      for (int b = 0; b < 256; ++b) t[s][b] = (t[s - 1][b] >> 8) ^ t[0][t[s - 1][b] & 0xff];
    }
  }
};

constexpr Tables kTables;

}  // namespace

uint64_t crc64(uint64_t crc, std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  const auto& t = kTables.t;
  while (n >= 8) {
    // One 8-byte load, as a little-endian number (a byte-by-byte loop here was not merged into
    // one load by the compiler and made the checksum a seventh of a SAVE).
    uint64_t word;
    std::memcpy(&word, p, 8);
    if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
    uint64_t v = crc ^ word;
    crc = t[7][v & 0xff] ^ t[6][(v >> 8) & 0xff] ^ t[5][(v >> 16) & 0xff] ^ t[4][(v >> 24) & 0xff] ^
          t[3][(v >> 32) & 0xff] ^ t[2][(v >> 40) & 0xff] ^ t[1][(v >> 48) & 0xff] ^ t[0][v >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace streamd::persist::rdb
