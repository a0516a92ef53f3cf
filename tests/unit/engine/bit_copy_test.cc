// or_bits against a bit-by-bit reference, for every offset and length that a 256-slot radix
// node can produce, including runs that start and end in the middle of bytes.
#include "streamd/engine/bit_copy.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace streamd::engine {
namespace {

bool bit(const std::vector<uint8_t>& v, int i) {
  return (v[i >> 3] >> (i & 7)) & 1;
}

TEST(BitCopy, MatchesBitByBitCopyForAllOffsets) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    int from_bits = 1 + static_cast<int>(rng() % 257);
    int to_bits = 1 + static_cast<int>(rng() % 257);
    std::vector<uint8_t> from((from_bits + 7) / 8), to((to_bits + 7) / 8, 0);
    for (auto& b : from) b = static_cast<uint8_t>(rng());
    int from_bit = static_cast<int>(rng() % from_bits);
    int to_bit = static_cast<int>(rng() % to_bits);
    int count = static_cast<int>(rng() % (std::min(from_bits - from_bit, to_bits - to_bit) + 1));
    or_bits(from.data(), from.size(), from_bit, to.data(), to.size(), to_bit, count);
    for (int i = 0; i < to_bits; ++i) {
      bool want = i >= to_bit && i < to_bit + count && bit(from, from_bit + (i - to_bit));
      ASSERT_EQ(bit(to, i), want) << "trial " << trial << " bit " << i;
    }
    // Nothing past the bitmap's last bit was set either (the tail of the last byte).
    for (int i = to_bits; i < static_cast<int>(to.size() * 8); ++i) ASSERT_FALSE(bit(to, i));
  }
}

}  // namespace
}  // namespace streamd::engine
