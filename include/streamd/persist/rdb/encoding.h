// The RDB primitive encodings (what every value, opcode and the DUMP payload are made of):
// - a length: 00xxxxxx (6 bits), 01xxxxxx xxxxxxxx (14 bits, big-endian), 0x80 + 4 bytes
//   big-endian, 0x81 + 8 bytes big-endian; 11xxxxxx marks a specially encoded string instead:
// - a string: a length then the bytes, or 0xC0 int8, 0xC1 int16, 0xC2 int32 (little-endian; the
//   string is the integer's decimal form), or 0xC3 LZF: compressed length, original length,
//   the compressed bytes;
// - a millisecond time: 8 bytes little-endian (RDB 9+); a second time: 4 bytes little-endian.
// Writer appends to a string. Reader walks a byte range and never reads past it: every failure
// (short input, a bad encoding, a length beyond what is left) sets a sticky error, after which
// every read returns a zero value, so callers may check ok() once per record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace streamd::persist::rdb {

// Writes v in RDB's length encoding at `out` (room for 9 bytes); returns the bytes written.
std::size_t encode_len(uint64_t v, char* out);
// Writes v as 8 little-endian bytes at `out` (RDB's millisecond times).
inline void encode_u64_le(uint64_t v, char* out) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (8 * i));
}

class Writer {
 public:
  explicit Writer(std::string& out, bool compression = false)
      : out_(out), compression_(compression) {}

  std::string& out() { return out_; }
  // A writer that streams (an RDB file): at each spill point with at least `bytes` buffered,
  // `spill` takes what was written so far and empties the buffer. Spill points sit between a
  // stream's nodes and within its PELs, so one big stream is never held whole in memory (nor in
  // a BGSAVE child's).
  void set_spill(std::function<void()> spill, std::size_t bytes) {
    spill_ = std::move(spill);
    spill_bytes_ = bytes;
  }
  void spill_point() {
    if (spill_ && out_.size() >= spill_bytes_) spill_();
  }
  void byte(uint8_t b) { out_.push_back(static_cast<char>(b)); }
  void raw(std::string_view s) { out_.append(s); }
  void len(uint64_t v);
  // A string as rdbSaveRawString stores it: an integer encoding when the text is a canonical
  // integer of up to 11 characters that fits in 32 bits, else LZF when compression is on, the
  // string is longer than 20 bytes and compresses to at most len - 4 bytes, else plain.
  void string(std::string_view s);
  // The same without the integer and LZF attempts (what Redis's rdbSaveRawString does for the
  // 16-byte stream node keys: too long for an integer, too short to compress).
  void plain_string(std::string_view s) {
    len(s.size());
    raw(s);
  }
  void ms_time(int64_t t);
  void u64_le(uint64_t v);

  // Many small pieces (a PEL's records) gathered on the stack and appended to the Writer a few
  // kilobytes at a time: one append per record cost a call and a capacity check each.
  class Batch {
   public:
    explicit Batch(Writer& w) : w_(w) {}
    ~Batch() { flush(); }
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;
    // Room for n <= kRoom bytes; commit() says how many were written.
    char* room(std::size_t n) {
      if (kRoom - used_ < n) flush();
      return buf_ + used_;
    }
    void commit(std::size_t n) { used_ += n; }
    void flush() {
      w_.out_.append(buf_, used_);
      used_ = 0;
      w_.spill_point();
    }
    static constexpr std::size_t kRoom = 4096;

   private:
    Writer& w_;
    std::size_t used_ = 0;
    char buf_[kRoom];
  };

 private:
  std::string& out_;
  bool compression_;
  std::string lzf_buf_;  // string()'s compressed form, kept between calls (no allocation each)
  std::function<void()> spill_;
  std::size_t spill_bytes_ = 0;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool ok() const { return ok_; }
  void fail() { ok_ = false; }
  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return ok_ ? in_.size() - pos_ : 0; }
  bool at_end() const { return pos_ == in_.size(); }

  uint8_t byte();
  // Peeks the next byte without consuming it; -1 at the end.
  int peek() const { return ok_ && pos_ < in_.size() ? static_cast<uint8_t>(in_[pos_]) : -1; }
  std::string_view raw(std::size_t n);
  uint64_t len();
  // A length that counts things each taking at least `min_bytes` of the remaining input: fails
  // when the input cannot hold that many, so no loop or reservation can be driven beyond it.
  uint64_t count(std::size_t min_bytes = 1);
  // Any string encoding; LZF strings are decompressed into `scratch` (the view may point there).
  std::string_view string(std::string& scratch);
  std::string string() {
    std::string s;
    std::string_view v = string(s);
    return std::string(v);
  }
  // Skips a string of any encoding without decoding it.
  void skip_string();
  int64_t ms_time();
  uint64_t u64_le();
  uint32_t u32_le();

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

// Redis's canonical integer test (string2ll): optional '-', no leading zeros, no "-0", fits in
// int64. Both the string encodings and listpacks store such strings as integers.
bool canonical_int(std::string_view s, int64_t& v);

}  // namespace streamd::persist::rdb
