#include "streamd/commands/server/dataset_digest.h"

#include <openssl/sha.h>

#include <fmt/format.h>

#include "streamd/engine/keyspace.h"
#include "streamd/engine/stream.h"

namespace streamd::cmd {

namespace {

void xor_digest(Digest& d, std::string_view bytes) {
  Digest h;
  SHA1(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), h.data());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] ^= h[i];
}

void mix_digest(Digest& d, std::string_view bytes) {
  xor_digest(d, bytes);
  Digest next;
  SHA1(d.data(), d.size(), next.data());
  d = next;
}

// A 32-bit number as Redis hashes it: htonl, then its 4 bytes.
void mix_u32(Digest& d, uint32_t v) {
  const char be[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                      static_cast<char>(v >> 8), static_cast<char>(v)};
  mix_digest(d, std::string_view(be, 4));
}

// Redis's object type numbers (OBJ_STRING, OBJ_STREAM).
constexpr uint32_t kRedisTypeString = 0;
constexpr uint32_t kRedisTypeStream = 6;

void add_value(Digest& d, const engine::Entry& e) {
  const engine::Value& v = e.value;
  if (v.is_string()) {
    mix_u32(d, kRedisTypeString);
    mix_digest(d, v.str());
  } else {
    mix_u32(d, kRedisTypeStream);
    const engine::Stream& s = v.stream();
    std::string id;
    for (auto it = s.scan(engine::StreamId::min(), engine::StreamId::max()); it.next();) {
      id.clear();
      fmt::format_to(std::back_inserter(id), "{}.{}", it.id().ms, it.id().seq);
      mix_digest(d, id);
      for (const engine::FieldValue& fv : it.fields()) {
        mix_digest(d, fv.field);
        mix_digest(d, fv.value);
      }
    }
  }
  if (e.expire_ms >= 0) xor_digest(d, "!!expire!!");
}

std::string hex(const Digest& d) {
  std::string out;
  out.reserve(40);
  for (unsigned char c : d) fmt::format_to(std::back_inserter(out), "{:02x}", c);
  return out;
}

}  // namespace

std::string dataset_digest(const engine::Keyspace& ks) {
  Digest final{};
  for (int i = 0; i < ks.databases(); ++i) {
    const engine::Database& db = ks.db(i);
    if (db.size() == 0) continue;
    mix_u32(final, static_cast<uint32_t>(i));
    db.for_each_stored([&](std::string_view key, const engine::Entry& e) {
      Digest kd{};
      mix_digest(kd, key);
      add_value(kd, e);
      xor_digest(final, std::string_view(reinterpret_cast<const char*>(kd.data()), kd.size()));
    });
  }
  return hex(final);
}

std::string value_digest(const engine::Entry& e) {
  Digest d{};
  add_value(d, e);
  return hex(d);
}

}  // namespace streamd::cmd
