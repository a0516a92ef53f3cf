#include "streamd/persist/rdb/encoding.h"

#include <charconv>

#include "streamd/persist/rdb/lzf.h"

namespace streamd::persist::rdb {

namespace {

constexpr uint8_t kLen6 = 0, kLen14 = 1, kLen32 = 0x80, kLen64 = 0x81, kEncoded = 3;
constexpr uint8_t kEncInt8 = 0, kEncInt16 = 1, kEncInt32 = 2, kEncLzf = 3;

// Strings longer than this are never integer-encoded (Redis's limit: 11 characters).
constexpr std::size_t kMaxIntText = 11;
// Redis compresses strings longer than this.
constexpr std::size_t kMinCompress = 20;

}  // namespace

bool canonical_int(std::string_view s, int64_t& v) {
  if (s.empty() || s.size() > 20) return false;
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  if (s[i] == '0' && (s.size() != 1)) return false;  // leading zero, or "-0"
  for (std::size_t k = i; k < s.size(); ++k) {
    if (s[k] < '0' || s[k] > '9') return false;
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

void Writer::len(uint64_t v) {
  // Built on the stack and appended once: a byte() per byte is an out-of-line call each.
  char b[9];
  out_.append(b, encode_len(v, b));
}

std::size_t encode_len(uint64_t v, char* b) {
  std::size_t n = 0;
  if (v < (1u << 6)) {
    b[n++] = static_cast<char>((kLen6 << 6) | v);
  } else if (v < (1u << 14)) {
    b[n++] = static_cast<char>((kLen14 << 6) | (v >> 8));
    b[n++] = static_cast<char>(v & 0xff);
  } else if (v <= UINT32_MAX) {
    b[n++] = static_cast<char>(kLen32);
    for (int i = 3; i >= 0; --i) b[n++] = static_cast<char>(v >> (8 * i));
  } else {
    b[n++] = static_cast<char>(kLen64);
    for (int i = 7; i >= 0; --i) b[n++] = static_cast<char>(v >> (8 * i));
  }
  return n;
}

void Writer::string(std::string_view s) {
  int64_t v;
  if (s.size() <= kMaxIntText && canonical_int(s, v) && v >= INT32_MIN && v <= INT32_MAX) {
    if (v >= INT8_MIN && v <= INT8_MAX) {
      byte(0xC0 | kEncInt8);
      byte(static_cast<uint8_t>(v));
    } else if (v >= INT16_MIN && v <= INT16_MAX) {
      byte(0xC0 | kEncInt16);
      byte(static_cast<uint8_t>(v));
      byte(static_cast<uint8_t>(v >> 8));
    } else {
      byte(0xC0 | kEncInt32);
      for (int i = 0; i < 4; ++i) byte(static_cast<uint8_t>(static_cast<uint32_t>(v) >> (8 * i)));
    }
    return;
  }
  if (compression_ && s.size() > kMinCompress) {
    if (lzf_compress(s, s.size() - 4, lzf_buf_)) {
      byte(0xC0 | kEncLzf);
      len(lzf_buf_.size());
      len(s.size());
      raw(lzf_buf_);
      return;
    }
  }
  plain_string(s);
}

void Writer::ms_time(int64_t t) {
  u64_le(static_cast<uint64_t>(t));
}

void Writer::u64_le(uint64_t v) {
  char b[8];
  encode_u64_le(v, b);
  out_.append(b, 8);
}

uint8_t Reader::byte() {
  if (!ok_ || pos_ >= in_.size()) {
    ok_ = false;
    return 0;
  }
  return static_cast<uint8_t>(in_[pos_++]);
}

std::string_view Reader::raw(std::size_t n) {
  if (!ok_ || in_.size() - pos_ < n) {
    ok_ = false;
    return {};
  }
  std::string_view v = in_.substr(pos_, n);
  pos_ += n;
  return v;
}

uint64_t Reader::len() {
  uint8_t b = byte();
  uint8_t kind = b >> 6;
  if (kind == kLen6) return b & 0x3f;
  if (kind == kLen14) return (uint64_t{b & 0x3fu} << 8) | byte();
  if (b == kLen32 || b == kLen64) {
    std::string_view v = raw(b == kLen32 ? 4 : 8);  // big-endian
    uint64_t r = 0;
    for (char c : v) r = (r << 8) | static_cast<uint8_t>(c);
    return r;
  }
  ok_ = false;  // an encoded-string marker (or 0x82..0xBF) where a length belongs
  return 0;
}

uint64_t Reader::count(std::size_t min_bytes) {
  uint64_t n = len();
  if (ok_ && min_bytes != 0 && n > remaining() / min_bytes) ok_ = false;
  return ok_ ? n : 0;
}

std::string_view Reader::string(std::string& scratch) {
  int b = peek();
  if (b < 0) {
    ok_ = false;
    return {};
  }
  if ((b >> 6) != kEncoded) {
    uint64_t n = len();
    if (!ok_ || n > remaining()) {
      ok_ = false;
      return {};
    }
    return raw(static_cast<std::size_t>(n));
  }
  ++pos_;
  uint8_t enc = b & 0x3f;
  int64_t v;
  switch (enc) {
    case kEncInt8:
      v = static_cast<int8_t>(byte());
      break;
    case kEncInt16: {
      std::string_view r = raw(2);
      if (!ok_) return {};
      v = static_cast<int16_t>(static_cast<uint8_t>(r[0]) | (static_cast<uint8_t>(r[1]) << 8));
      break;
    }
    case kEncInt32: {
      uint32_t u = u32_le();
      v = static_cast<int32_t>(u);
      break;
    }
    case kEncLzf: {
      uint64_t clen = len(), olen = len();
      if (!ok_ || clen > remaining() || olen == 0) {
        ok_ = false;
        return {};
      }
      // LZF's best ratio is a 3-byte reference copying 264 bytes: an original length beyond 88
      // times the compressed one is a lie that would make us allocate for nothing.
      if (olen / 88 > clen) {
        ok_ = false;
        return {};
      }
      std::string_view c = raw(static_cast<std::size_t>(clen));
      if (!ok_ || !lzf_decompress(c, static_cast<std::size_t>(olen), scratch)) {
        ok_ = false;
        return {};
      }
      return scratch;
    }
    default:
      ok_ = false;
      return {};
  }
  if (!ok_) return {};
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  scratch.assign(buf, p);
  return scratch;
}

void Reader::skip_string() {
  std::string scratch;
  int b = peek();
  if (b >= 0 && (b >> 6) == kEncoded && (b & 0x3f) == kEncLzf) {
    ++pos_;
    uint64_t clen = len();
    len();
    if (!ok_ || clen > remaining()) {
      ok_ = false;
      return;
    }
    raw(static_cast<std::size_t>(clen));
    return;
  }
  string(scratch);
}

int64_t Reader::ms_time() {
  return static_cast<int64_t>(u64_le());
}

uint64_t Reader::u64_le() {
  std::string_view r = raw(8);
  if (!ok_) return 0;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(r[static_cast<std::size_t>(i)]);
  return v;
}

uint32_t Reader::u32_le() {
  std::string_view r = raw(4);
  if (!ok_) return 0;
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(r[static_cast<std::size_t>(i)]);
  return v;
}

}  // namespace streamd::persist::rdb
