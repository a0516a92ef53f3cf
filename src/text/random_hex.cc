#include "streamd/text/random_hex.h"

#include <random>

namespace streamd::text {

std::string random_hex(std::size_t n) {
  static std::mt19937_64 gen = [] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd()};
    return std::mt19937_64(seq);
  }();
  std::string out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out += "0123456789abcdef"[gen() & 15];
  return out;
}

}  // namespace streamd::text
