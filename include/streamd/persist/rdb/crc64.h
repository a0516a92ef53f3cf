// CRC-64 as Redis computes it for RDB files and DUMP payloads: the Jones polynomial
// 0xad93d23594c935a9, reflected input and output, initial value 0, no final xor
// (crc64("123456789") = 0xe9c6d914c4b8d9ca, the check value Redis's crc64.c documents).
#pragma once

#include <cstdint>
#include <string_view>

namespace streamd::persist::rdb {

// Continues `crc` over `data` (start with 0). On x86-64 with PCLMULQDQ, inputs of 64 bytes and
// more are folded 16 bytes at a time with carry-less multiplication.
uint64_t crc64(uint64_t crc, std::string_view data);
// The same with the slice-by-8 lookup tables alone: the portable path, and the reference the
// unit tests hold the folding path to.
uint64_t crc64_tables(uint64_t crc, std::string_view data);

}  // namespace streamd::persist::rdb
