#include "streamd/engine/stream_node.h"
#include "streamd/engine/used_memory.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace streamd::engine {

struct StreamNode::Header {
  uint32_t used;       // bytes in use, header included
  uint32_t capacity;   // bytes allocated
  uint32_t live;       // entries not deleted
  uint32_t deleted;    // tombstones
  uint32_t first_off;  // first entry (right after the master field list)
  uint32_t last_off;   // last entry
  uint32_t lp_rest;    // Redis-equivalent listpack size without its header, end and counters
  uint32_t unused;
  uint64_t master_ms;
  uint64_t master_seq;
};

namespace {

constexpr uint8_t kDeleted = 1;
constexpr uint8_t kSameFields = 2;

// ---- varints ---------------------------------------------------------------------------------

std::size_t varint_size(uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

uint8_t* put_varint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

const uint8_t* get_varint(const uint8_t* p, uint64_t& v) {
  v = 0;
  for (int shift = 0;; shift += 7) {
    uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return p;
  }
}

// The entry tag: flags in bits 0-1, the low 5 bits of ms_delta in bits 2-6, bit 7 = more
// (the rest of ms_delta follows as a varint). Bit 0 stays in the first byte so that a
// tombstone is a one-bit change in place.
std::size_t tag_size(uint64_t ms_delta) {
  uint64_t rest = ms_delta >> 5;
  return rest ? 1 + varint_size(rest) : 1;
}

uint8_t* put_tag(uint8_t* p, uint8_t flags, uint64_t ms_delta) {
  uint64_t rest = ms_delta >> 5;
  uint8_t b0 = static_cast<uint8_t>(flags | ((ms_delta & 0x1f) << 2));
  if (!rest) {
    *p++ = b0;
    return p;
  }
  *p++ = b0 | 0x80;
  return put_varint(p, rest);
}

const uint8_t* get_tag(const uint8_t* p, uint8_t& flags, uint64_t& ms_delta) {
  uint8_t b0 = *p++;
  flags = b0 & 3;
  ms_delta = (b0 >> 2) & 0x1f;
  if (b0 & 0x80) {
    uint64_t rest;
    p = get_varint(p, rest);
    ms_delta |= rest << 5;
  }
  return p;
}

std::size_t string_size(std::string_view s) {
  return varint_size(s.size()) + s.size();
}

uint8_t* put_string(uint8_t* p, std::string_view s) {
  p = put_varint(p, s.size());
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

const uint8_t* get_string(const uint8_t* p, std::string_view& s) {
  uint64_t len;
  p = get_varint(p, len);
  s = std::string_view(reinterpret_cast<const char*>(p), len);
  return p + len;
}

const uint8_t* skip_string(const uint8_t* p) {
  uint64_t len;
  p = get_varint(p, len);
  return p + len;
}

// ---- Redis listpack sizes (from the public listpack format), for node-rollover parity -------

// Bytes of the back-length trailer for an element of l bytes.
std::size_t lp_backlen(std::size_t l) {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

std::size_t lp_int(int64_t v) {
  std::size_t enc;
  if (v >= 0 && v <= 127) {
    enc = 1;
  } else if (v >= -4096 && v <= 4095) {
    enc = 2;
  } else if (v >= INT16_MIN && v <= INT16_MAX) {
    enc = 3;
  } else if (v >= -(1 << 23) && v <= (1 << 23) - 1) {
    enc = 4;
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    enc = 5;
  } else {
    enc = 9;
  }
  return enc + 1;  // integer encodings are short enough for a 1-byte back-length
}

// Listpacks store strings that are canonical 64-bit decimals as integers.
bool lp_as_int(std::string_view s, int64_t& v) {
  if (s.empty() || s.size() > 20) return false;
  if (s == "0") {
    v = 0;
    return true;
  }
  bool neg = s[0] == '-';
  std::string_view d = neg ? s.substr(1) : s;
  if (d.empty() || d[0] < '1' || d[0] > '9') return false;
  uint64_t u = 0;
  for (char c : d) {
    if (c < '0' || c > '9') return false;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (u > (UINT64_MAX - digit) / 10) return false;
    u = u * 10 + digit;
  }
  if (u > (neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1)) return false;
  v = neg ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
  return true;
}

std::size_t lp_str(std::string_view s) {
  int64_t v;
  if (lp_as_int(s, v)) return lp_int(v);
  std::size_t l = s.size();
  std::size_t enc = (l < 64 ? 1 : l < 4096 ? 2 : 5) + l;
  return enc + lp_backlen(enc);
}

// A Redis stream entry: flags, ms-diff, seq-diff, [num-fields], fields/values, lp-count.
std::size_t lp_entry(StreamId id, StreamId master, std::span<const FieldValue> fields, bool same) {
  std::size_t n = fields.size();
  std::size_t total = lp_int(same ? kSameFields : 0) +
                      lp_int(static_cast<int64_t>(id.ms - master.ms)) +
                      lp_int(static_cast<int64_t>(id.seq - master.seq));
  if (!same) total += lp_int(static_cast<int64_t>(n));
  for (const FieldValue& fv : fields) total += (same ? 0 : lp_str(fv.field)) + lp_str(fv.value);
  total += lp_int(static_cast<int64_t>(same ? n + 3 : 2 * n + 4));
  return total;
}

std::size_t entry_size(StreamId id, StreamId master, std::span<const FieldValue> fields,
                       bool same) {
  uint64_t ms_delta = id.ms - master.ms;
  std::size_t size = tag_size(ms_delta) + varint_size(ms_delta ? id.seq : id.seq - master.seq);
  if (!same) size += varint_size(fields.size());
  for (const FieldValue& fv : fields) {
    if (!same) size += string_size(fv.field);
    size += string_size(fv.value);
  }
  return size;
}

uint8_t* put_entry(uint8_t* p, StreamId id, StreamId master, std::span<const FieldValue> fields,
                   bool same) {
  uint64_t ms_delta = id.ms - master.ms;
  p = put_tag(p, same ? kSameFields : 0, ms_delta);
  p = put_varint(p, ms_delta ? id.seq : id.seq - master.seq);
  if (!same) p = put_varint(p, fields.size());
  for (const FieldValue& fv : fields) {
    if (!same) p = put_string(p, fv.field);
    p = put_string(p, fv.value);
  }
  return p;
}

}  // namespace

// ---- lifetime --------------------------------------------------------------------------------

StreamNode::StreamNode(StreamId first, std::span<const FieldValue> fields) {
  std::size_t master_size = varint_size(fields.size());
  for (const FieldValue& fv : fields) master_size += string_size(fv.field);
  std::size_t first_off = sizeof(Header) + master_size;
  std::size_t size = first_off + entry_size(first, first, fields, true);
  buf_ = static_cast<uint8_t*>(counted_malloc(size));
  if (!buf_) throw std::bad_alloc();
  Header* h = header();
  h->used = static_cast<uint32_t>(size);
  h->capacity = static_cast<uint32_t>(size);
  h->live = 1;
  h->deleted = 0;
  h->first_off = static_cast<uint32_t>(first_off);
  h->last_off = static_cast<uint32_t>(first_off);
  h->unused = 0;
  h->master_ms = first.ms;
  h->master_seq = first.seq;
  uint8_t* p = put_varint(buf_ + sizeof(Header), fields.size());
  std::size_t lp = lp_int(static_cast<int64_t>(fields.size())) + lp_int(0);
  for (const FieldValue& fv : fields) {
    p = put_string(p, fv.field);
    lp += lp_str(fv.field);
  }
  put_entry(p, first, first, fields, true);
  h->lp_rest = static_cast<uint32_t>(lp + lp_entry(first, first, fields, true));
}

StreamNode::~StreamNode() {
  counted_free(buf_);
}

StreamNode& StreamNode::operator=(StreamNode&& o) noexcept {
  if (this != &o) {
    counted_free(buf_);
    buf_ = o.buf_;
    o.buf_ = nullptr;
  }
  return *this;
}

StreamNode::StreamNode(const StreamNode& o) {
  if (!o.buf_) return;
  std::size_t used = o.bytes();
  buf_ = static_cast<uint8_t*>(counted_malloc(used));
  if (!buf_) throw std::bad_alloc();
  std::memcpy(buf_, o.buf_, used);
  header()->capacity = static_cast<uint32_t>(used);
}

StreamNode& StreamNode::operator=(const StreamNode& o) {
  if (this != &o) *this = StreamNode(o);
  return *this;
}

StreamNode::Header* StreamNode::header() const {
  return reinterpret_cast<Header*>(buf_);
}

void StreamNode::reserve(std::size_t needed) {
  Header* h = header();
  if (needed <= h->capacity) return;
  std::size_t cap = h->capacity + h->capacity / 2;
  if (cap < needed) cap = needed;
  auto* nb = static_cast<uint8_t*>(counted_realloc(buf_, cap));
  if (!nb) throw std::bad_alloc();
  buf_ = nb;
  header()->capacity = static_cast<uint32_t>(cap);
}

void StreamNode::shrink_to_fit() {
  Header* h = header();
  if (h->used == h->capacity) return;
  auto* nb = static_cast<uint8_t*>(counted_realloc(buf_, h->used));
  if (!nb) return;  // keeping the larger block is fine
  buf_ = nb;
  header()->capacity = header()->used;
}

// ---- accessors -------------------------------------------------------------------------------

StreamId StreamNode::master_id() const {
  return {header()->master_ms, header()->master_seq};
}
StreamId StreamNode::last_id() const {
  return last_entry().id;
}
StreamNode::Entry StreamNode::last_entry() const {
  return entry(header()->last_off);
}
uint32_t StreamNode::live() const {
  return header()->live;
}
uint32_t StreamNode::deleted() const {
  return header()->deleted;
}
std::size_t StreamNode::bytes() const {
  return header()->used;
}
std::size_t StreamNode::capacity() const {
  return header()->capacity;
}
uint32_t StreamNode::first_offset() const {
  return header()->first_off;
}
uint32_t StreamNode::end_offset() const {
  return header()->used;
}

std::size_t StreamNode::master_field_count() const {
  uint64_t n;
  get_varint(buf_ + sizeof(Header), n);
  return n;
}

std::size_t StreamNode::listpack_bytes() const {
  // 6-byte header + end byte + the two counters of the master entry + everything else.
  const Header* h = header();
  return 7 + lp_int(h->live) + lp_int(h->deleted) + h->lp_rest;
}

std::size_t StreamNode::elements_length(std::span<const FieldValue> fields) {
  std::size_t total = 0;
  for (const FieldValue& fv : fields) total += fv.field.size() + fv.value.size();
  return total;
}

// ---- appending -------------------------------------------------------------------------------

void StreamNode::append(StreamId id, std::span<const FieldValue> fields) {
  // SAMEFIELDS when the names equal the master's, in order.
  const uint8_t* p = buf_ + sizeof(Header);
  uint64_t n;
  p = get_varint(p, n);
  bool same = n == fields.size();
  for (std::size_t i = 0; same && i < n; ++i) {
    std::string_view f;
    p = get_string(p, f);
    same = f == fields[i].field;
  }
  StreamId master = master_id();
  std::size_t size = entry_size(id, master, fields, same);
  std::size_t off = header()->used;
  reserve(off + size);
  put_entry(buf_ + off, id, master, fields, same);
  Header* h = header();
  h->used = static_cast<uint32_t>(off + size);
  h->last_off = static_cast<uint32_t>(off);
  ++h->live;
  h->lp_rest += static_cast<uint32_t>(lp_entry(id, master, fields, same));
}

// ---- reading ---------------------------------------------------------------------------------

StreamNode::Entry StreamNode::entry(uint32_t off) const {
  Entry e;
  e.offset = off;
  uint8_t flags;
  uint64_t ms_delta, seq;
  const uint8_t* p = get_tag(buf_ + off, flags, ms_delta);
  p = get_varint(p, seq);
  const Header* h = header();
  e.id.ms = h->master_ms + ms_delta;
  e.id.seq = ms_delta ? seq : h->master_seq + seq;
  e.deleted = flags & kDeleted;
  uint64_t n;
  if (flags & kSameFields) {
    get_varint(buf_ + sizeof(Header), n);
  } else {
    p = get_varint(p, n);
    n *= 2;
  }
  for (uint64_t i = 0; i < n; ++i) p = skip_string(p);
  e.next = static_cast<uint32_t>(p - buf_);
  return e;
}

void StreamNode::read_fields(uint32_t off, std::vector<FieldValue>& out) const {
  bool same_fields;
  read_entry(off, out, same_fields);
}

StreamNode::Entry StreamNode::read_entry(uint32_t off, std::vector<FieldValue>& out,
                                         bool& same_fields) const {
  Entry e;
  e.offset = off;
  uint8_t flags;
  uint64_t ms_delta, seq, n;
  const uint8_t* p = get_tag(buf_ + off, flags, ms_delta);
  p = get_varint(p, seq);
  const Header* h = header();
  e.id.ms = h->master_ms + ms_delta;
  e.id.seq = ms_delta ? seq : h->master_seq + seq;
  e.deleted = flags & kDeleted;
  same_fields = flags & kSameFields;
  if (same_fields) {
    const uint8_t* m = get_varint(buf_ + sizeof(Header), n);
    out.resize(n);
    for (FieldValue& fv : out) {
      m = get_string(m, fv.field);
      p = get_string(p, fv.value);
    }
  } else {
    p = get_varint(p, n);
    out.resize(n);
    for (FieldValue& fv : out) {
      p = get_string(p, fv.field);
      p = get_string(p, fv.value);
    }
  }
  e.next = static_cast<uint32_t>(p - buf_);
  return e;
}

void StreamNode::offsets(std::vector<uint32_t>& out) const {
  out.clear();
  out.reserve(header()->live + header()->deleted);
  for (uint32_t off = first_offset(); off != end_offset(); off = entry(off).next) {
    out.push_back(off);
  }
}

std::optional<uint32_t> StreamNode::find(StreamId id) const {
  if (id < master_id()) return std::nullopt;
  for (uint32_t off = first_offset(); off != end_offset();) {
    Entry e = entry(off);
    if (e.id == id) return off;
    if (e.id > id) break;
    off = e.next;
  }
  return std::nullopt;
}

bool StreamNode::tombstone(uint32_t off) {
  if (buf_[off] & kDeleted) return false;
  buf_[off] |= kDeleted;
  Header* h = header();
  --h->live;
  ++h->deleted;
  return true;
}

}  // namespace streamd::engine
