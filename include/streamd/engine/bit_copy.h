// Moving a run of bits between byte-array bitmaps (bit i in byte i / 8, least significant bit
// first), a word at a time. The radix tree keeps a bitmap of which child slots hold values
// inline; every insert and erase moves the bits after the changed slot, and for a node with 256
// children doing that one bit at a time was 9% of a consume cycle's time.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace streamd::engine {

// ORs bits [from_bit, from_bit + count) of `from` (from_bytes long) into `to` (to_bytes long)
// starting at to_bit, up to 56 bits per step. Reads and writes stay inside the two arrays; the
// destination bits are expected to be zero (a freshly cleared bitmap).
inline void or_bits(const uint8_t* from, std::size_t from_bytes, int from_bit, uint8_t* to,
                    std::size_t to_bytes, int to_bit, int count) {
  static_assert(std::endian::native == std::endian::little);
  for (int done = 0; done < count;) {
    int k = std::min(56, count - done);
    std::size_t src = static_cast<std::size_t>(from_bit + done);
    std::size_t src_byte = src >> 3;
    uint64_t w = 0;
    std::memcpy(&w, from + src_byte, std::min<std::size_t>(8, from_bytes - src_byte));
    w = (w >> (src & 7)) & ((uint64_t{1} << k) - 1);
    std::size_t dst = static_cast<std::size_t>(to_bit + done);
    std::size_t dst_byte = dst >> 3;
    std::size_t n = std::min<std::size_t>(8, to_bytes - dst_byte);
    uint64_t cur = 0;
    std::memcpy(&cur, to + dst_byte, n);
    cur |= w << (dst & 7);
    std::memcpy(to + dst_byte, &cur, n);
    done += k;
  }
}

}  // namespace streamd::engine
