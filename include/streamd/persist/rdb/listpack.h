// Listpacks, the packed lists Redis stores stream nodes in (and, inside RDB files, small
// hashes, sets and sorted sets, which streamd only skips). Layout:
//   total bytes (u32 LE) | element count (u16 LE, 65535 = unknown) | elements | 0xFF
// and each element is an encoding + data followed by its "backlen", the size of encoding +
// data written in 1..5 bytes, 7 bits per byte, most significant first, every byte but the first
// with bit 7 set (so it can be read backwards from its last byte). Encodings:
//   0xxxxxxx 7-bit uint | 10xxxxxx 6-bit string length | 110xxxxx +1 13-bit int |
//   1110xxxx +1 12-bit string length | 11110000 +4 32-bit string length |
//   11110001 int16 | 11110010 int24 | 11110011 int32 | 11110100 int64 (all little-endian).
// ListpackWriter stores a canonical integer string as an integer, as Redis's lpAppend does.
// ListpackReader validates the whole listpack up front (header size, every element's encoding
// and bounds, every backlen, the count, the terminator) before handing out elements.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::persist::rdb {

class ListpackWriter {
 public:
  ListpackWriter();
  void add_int(int64_t v) {
    // The common case inline: a 7-bit uint is one byte, and its backlen says 1.
    if (v >= 0 && v <= 127) {
      unsigned char* p = room(2);
      p[0] = static_cast<unsigned char>(v);
      p[1] = 1;
      used_ += 2;
      ++count_;
      return;
    }
    add_wide_int(v);
  }
  void add_string(std::string_view s);  // an integer if canonical_int(s)
  // Finishes the header and terminator; the writer is then spent.
  std::string finish();

 private:
  void add_wide_int(int64_t v);
  static constexpr std::size_t kInitialCapacity = 4096;  // a default node's listpack fits
  // Makes room for n more bytes after used_ and returns where they go.
  unsigned char* room(std::size_t n) {
    if (buf_.size() - used_ < n) grow(n);
    return reinterpret_cast<unsigned char*>(buf_.data()) + used_;
  }
  void grow(std::size_t n);
  std::string buf_;   // bytes [0, used_) are written; the rest is room
  std::size_t used_;  // starts after the header, which finish() fills in
  uint32_t count_ = 0;
};

// One element: an integer or a string (a view into the listpack).
struct LpElement {
  bool is_int = false;
  int64_t i = 0;
  std::string_view s;
  // The element as text (integers in decimal, written into *buf).
  std::string_view text(std::string& buf) const;
};

// Parses and validates; false (and no elements) if the listpack is malformed.
bool read_listpack(std::string_view lp, std::vector<LpElement>& out);

}  // namespace streamd::persist::rdb
