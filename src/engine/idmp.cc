#include "streamd/engine/idmp.h"

namespace streamd::engine {

std::unique_ptr<IdmpTable> IdmpTable::clone() const {
  auto t = std::make_unique<IdmpTable>();
  t->duration_sec_ = duration_sec_;
  t->maxsize_ = maxsize_;
  t->configured_ = configured_;
  for (const auto& [pid, p] : producers_) {
    Producer& q = t->producers_[pid];
    for (auto it : p.order) q.order.push_back(q.by_iid.emplace(it->first, it->second).first);
  }
  t->iids_ = iids_;
  t->added_ = added_;
  t->duplicates_ = duplicates_;
  return t;
}

bool IdmpTable::configure(std::optional<uint32_t> duration_sec, std::optional<uint32_t> maxsize) {
  configured_ = true;
  bool changed =
      (duration_sec && *duration_sec != duration_sec_) || (maxsize && *maxsize != maxsize_);
  if (duration_sec) duration_sec_ = *duration_sec;
  if (maxsize) maxsize_ = *maxsize;
  if (changed) {
    producers_.clear();
    iids_ = 0;
  }
  return changed;
}

void IdmpTable::pop_oldest(Producer& p) {
  p.by_iid.erase(p.order.front());
  p.order.pop_front();
  --iids_;
}

void IdmpTable::expire(Producer& p, uint64_t now_ms) {
  // The FIFO is in insertion order and IDs only grow, so the expired iids are a prefix.
  while (!p.order.empty() && expired(p.order.front()->second, now_ms)) pop_oldest(p);
}

std::optional<StreamId> IdmpTable::find(std::string_view pid, std::string_view iid,
                                        uint64_t now_ms) {
  auto pit = producers_.find(pid);
  if (pit == producers_.end()) return std::nullopt;
  Producer& p = pit->second;
  expire(p, now_ms);
  if (p.order.empty()) {
    producers_.erase(pit);
    return std::nullopt;
  }
  auto it = p.by_iid.find(std::string(iid));
  if (it == p.by_iid.end()) return std::nullopt;
  return it->second;
}

void IdmpTable::record(std::string_view pid, std::string_view iid, StreamId id, uint64_t now_ms) {
  ++added_;
  if (expired(id, now_ms)) return;  // a replayed record that is already too old
  auto pit = producers_.find(pid);
  if (pit == producers_.end()) pit = producers_.emplace(std::string(pid), Producer{}).first;
  Producer& p = pit->second;
  expire(p, now_ms);
  auto [it, inserted] = p.by_iid.emplace(std::string(iid), id);
  if (!inserted) return;
  p.order.push_back(it);
  ++iids_;
  while (p.order.size() > maxsize_) pop_oldest(p);
}

void IdmpTable::expire_all(uint64_t now_ms) {
  for (auto it = producers_.begin(); it != producers_.end();) {
    expire(it->second, now_ms);
    it = it->second.order.empty() ? producers_.erase(it) : std::next(it);
  }
}

std::size_t IdmpTable::memory_usage() const {
  // Estimates with malloc rounding: a hash node of string + ID + cached hash + next pointer is
  // 64 bytes (80 allocated); a bucket slot and a FIFO slot 8 bytes each.
  constexpr std::size_t kPerIid = 80 + 8 + 8;
  constexpr std::size_t kPerProducer = 48 /* std::map node */ + sizeof(Producer) + 512 /* deque */;
  std::size_t bytes = sizeof(IdmpTable);
  for (const auto& [pid, p] : producers_) {
    bytes += kPerProducer + (pid.size() > 15 ? pid.capacity() + 1 : 0);
    bytes += p.by_iid.bucket_count() * sizeof(void*);
    for (const auto& [iid, id] : p.by_iid) {
      bytes += kPerIid + (iid.size() > 15 ? iid.capacity() + 1 : 0);
    }
  }
  return bytes;
}

namespace {

// FNV-1a over 64 bits, then a splitmix64 finaliser so every input bit reaches every output bit.
struct Digest64 {
  uint64_t h;
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 0x100000001b3ULL;
    }
  }
  uint64_t finish() const {
    uint64_t z = h + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

}  // namespace

std::string IdmpTable::auto_iid(std::span<const FieldValue> fields) {
  // Two independent 64-bit digests of the length-prefixed pairs (so "ab","c" and "a","bc"
  // differ), 120 bits kept. Little-endian lengths make the digest the same on every host.
  Digest64 a{0xcbf29ce484222325ULL}, b{0x84222325cbf29ce4ULL};
  auto add = [&](std::string_view s) {
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(uint64_t{s.size()} >> (8 * i));
    a.add(len, 8);
    a.add(s.data(), s.size());
    b.add(s.data(), s.size());
    b.add(len, 8);
  };
  for (const FieldValue& fv : fields) {
    add(fv.field);
    add(fv.value);
  }
  uint64_t x = a.finish(), y = b.finish();
  std::string out(kAutoIidSize, '\0');
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<char>(x >> (8 * i));
  for (std::size_t i = 0; i < 7; ++i) out[8 + i] = static_cast<char>(y >> (8 * i));
  return out;
}

}  // namespace streamd::engine
