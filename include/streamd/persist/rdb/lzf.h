// LZF, the compression RDB files use for long strings (rdbcompression yes). The format: a
// sequence of runs, each starting with a control byte c:
//   c < 32         a literal run: the next c + 1 bytes are copied as they are;
//   c >= 32        a back reference: length L = c >> 5 (7 means 7 + the next byte), offset
//                  O = ((c & 31) << 8) + the next byte; copies L + 2 bytes starting O + 1 bytes
//                  before the current end of the output (the copy may overlap itself).
// Written from that description; the compressor is a greedy matcher over a hash of 3 bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace streamd::persist::rdb {

// Compresses `in` into at most `max_out` bytes; nullopt if the result would not fit (the
// caller then stores the string plainly).
std::optional<std::string> lzf_compress(std::string_view in, std::size_t max_out);
// The same into `out` (replacing its contents, keeping its capacity); false if it does not fit
// (`out` then holds nothing useful).
bool lzf_compress(std::string_view in, std::size_t max_out, std::string& out);

// Decompresses into exactly `out_len` bytes; false if the input is malformed, refers before the
// start of the output, or does not produce exactly out_len bytes.
bool lzf_decompress(std::string_view in, std::size_t out_len, std::string& out);

}  // namespace streamd::persist::rdb
