// Whole RDB files: the header, AUX fields, databases (SELECTDB, RESIZEDB), keys with their
// expiry, EOF and the CRC64 trailer. Opcodes as rdb.h numbers them.
#include <cstdio>
#include <string>

#include "streamd/commands/core/redis_version.h"
#include "streamd/engine/stream.h"
#include "streamd/persist/rdb/crc64.h"
#include "streamd/persist/rdb/encoding.h"
#include "streamd/persist/rdb/rdb.h"
#include "streamd/persist/rdb/value_codec.h"
#include "streamd/text/repr.h"

namespace streamd::persist::rdb {

namespace {

constexpr uint8_t kOpSlotInfo = 244;
constexpr uint8_t kOpFunction2 = 245;
constexpr uint8_t kOpFunctionPreGa = 246;
constexpr uint8_t kOpModuleAux = 247;
constexpr uint8_t kOpIdle = 248;
constexpr uint8_t kOpFreq = 249;
constexpr uint8_t kOpAux = 250;
constexpr uint8_t kOpResizeDb = 251;
constexpr uint8_t kOpExpireMs = 252;
constexpr uint8_t kOpExpireSec = 253;
constexpr uint8_t kOpSelectDb = 254;
constexpr uint8_t kOpEof = 255;

constexpr std::size_t kChunk = 64 * 1024;
// The AUX field that carries a stream's streamd-only state (value_codec.h); it follows its key.
constexpr std::string_view kStreamExtAux = "streamd-stream-ext";

void aux(Writer& w, std::string_view k, std::string_view v) {
  w.byte(kOpAux);
  w.string(k);
  w.string(v);
}

}  // namespace

bool save(engine::Keyspace& ks, int64_t now_ms, const SaveOptions& opts,
          const std::function<bool(std::string_view)>& out, SaveStats* stats) {
  SaveStats local;
  SaveStats& st = stats ? *stats : local;
  std::string buf;
  Writer w(buf, opts.compression);
  uint64_t crc = 0;
  bool ok = true;
  auto push = [&]() {
    if (!ok) buf.clear();  // the save has failed: nothing more is kept
    if (!ok || buf.empty()) return;
    if (opts.checksum) crc = crc64(crc, buf);
    st.bytes += buf.size();
    ok = out(buf);
    buf.clear();
  };
  // Also inside a big stream (after a failed write the rest is produced and dropped: the
  // stream's walk has no way out, and the save fails at its end either way).
  w.set_spill(push, kChunk);
  char magic[16];
  std::snprintf(magic, sizeof magic, "REDIS%04d", opts.version);
  w.raw(magic);
  aux(w, "redis-ver", cmd::kRedisVersion);
  aux(w, "redis-bits", "64");
  aux(w, "ctime", std::to_string(now_ms / 1000));
  aux(w, "used-mem", "0");
  for (const auto& [k, v] : opts.aux) aux(w, k, v);
  aux(w, "aof-base", "0");
  for (int i = 0; i < ks.databases() && ok; ++i) {
    engine::Database& db = ks.db(i);
    if (db.size() == 0) continue;
    w.byte(kOpSelectDb);
    w.len(static_cast<uint64_t>(i));
    w.byte(kOpResizeDb);
    w.len(db.size());
    w.len(db.expires());
    db.for_each([&](std::string_view key, const engine::Entry& e) {
      if (!ok) return;
      if (e.expire_ms >= 0 && e.expire_ms <= now_ms) return;
      if (e.expire_ms >= 0) {
        w.byte(kOpExpireMs);
        w.ms_time(e.expire_ms);
      }
      if (e.value.is_string()) {
        w.byte(kTypeString);
        w.string(key);
        w.string(e.value.str());
      } else {
        uint8_t type = stream_type_for(opts.version);
        w.byte(type);
        w.string(key);
        write_value_body(w, e.value, opts.version);
        std::string ext = stream_ext(e.value.stream());
        if (!ext.empty()) aux(w, kStreamExtAux, ext);
      }
      ++st.keys;
      if (buf.size() >= kChunk) push();
    });
  }
  w.byte(kOpEof);
  if (opts.checksum) crc = crc64(crc, buf);
  uint64_t trailer = opts.checksum ? crc : 0;
  std::string tail;
  Writer tw(tail);
  tw.u64_le(trailer);
  st.bytes += buf.size() + tail.size();
  if (ok) ok = out(buf);
  if (ok) ok = out(tail);
  return ok;
}

namespace {

class Loader {
 public:
  Loader(std::string_view bytes, engine::Keyspace& ks, const LoadOptions& opts, LoadStats& st,
         std::string& err)
      : bytes_(bytes), r_(bytes), ks_(ks), opts_(opts), st_(st), err_(err) {}

  bool run() {
    if (!header()) return false;
    int db = 0;
    int64_t expire = -1;
    for (;;) {
      uint8_t op = r_.byte();
      if (!r_.ok()) return fail("Unexpected EOF reading RDB file");
      switch (op) {
        case kOpEof:
          return trailer();
        case kOpSelectDb: {
          uint64_t n = r_.len();
          if (!r_.ok()) return fail("Unexpected EOF reading RDB file");
          if (n >= static_cast<uint64_t>(ks_.databases())) {
            return fail(
                "FATAL: Data file was created with a Redis server configured to handle "
                "more than " +
                std::to_string(ks_.databases()) + " databases.");
          }
          db = static_cast<int>(n);
          continue;
        }
        case kOpResizeDb:
          r_.len();
          r_.len();
          if (!r_.ok()) return fail("Unexpected EOF reading RDB file");
          continue;
        case kOpExpireMs:
          expire = r_.ms_time();
          if (!r_.ok()) return fail("Unexpected EOF reading RDB file");
          continue;
        case kOpExpireSec:
          expire = int64_t{static_cast<int32_t>(r_.u32_le())} * 1000;
          if (!r_.ok()) return fail("Unexpected EOF reading RDB file");
          continue;
        case kOpIdle:
          r_.len();
          if (!r_.ok()) return fail("Unexpected EOF reading RDB file");
          continue;
        case kOpFreq:
          r_.byte();
          if (!r_.ok()) return fail("Unexpected EOF reading RDB file");
          continue;
        case kOpSlotInfo:
          r_.len();
          r_.len();
          r_.len();
          if (!r_.ok()) return fail("Unexpected EOF reading RDB file");
          continue;
        case kOpAux: {
          std::string k = r_.string(), v = r_.string();
          if (!r_.ok()) return fail("Unexpected EOF reading RDB file");
          if (k == kStreamExtAux) return fail("A streamd-stream-ext AUX field follows no stream");
          st_.aux.emplace_back(std::move(k), std::move(v));
          continue;
        }
        case kOpModuleAux:
          return fail(
              "The RDB file holds module auxiliary data (opcode 247), which streamd "
              "cannot load: it has no modules");
        case kOpFunction2:
        case kOpFunctionPreGa:
          return fail("The RDB file holds function libraries (opcode " + std::to_string(op) +
                      "), which streamd does not support");
        default:
          if (!key(op, db, expire)) return false;
          expire = -1;
          continue;
      }
    }
  }

 private:
  bool fail(std::string why) {
    err_ = std::move(why);
    return false;
  }

  bool header() {
    std::string_view m = r_.raw(9);
    if (!r_.ok() || m.substr(0, 5) != "REDIS")
      return fail("Wrong signature trying to load DB from file");
    int v = 0;
    for (char c : m.substr(5)) {
      if (c < '0' || c > '9') return fail("Wrong signature trying to load DB from file");
      v = v * 10 + (c - '0');
    }
    if (v < kMinReadVersion || v > kMaxReadVersion) {
      return fail("Can't handle RDB format version " + std::to_string(v));
    }
    st_.version = v;
    return true;
  }

  bool trailer() {
    std::size_t body = r_.pos();
    uint64_t stored = r_.u64_le();
    if (!r_.ok()) return fail("Unexpected EOF reading RDB file (no checksum)");
    if (stored != 0 && stored != crc64(0, bytes_.substr(0, body))) {
      return fail("Wrong RDB checksum. Aborting now.");
    }
    return true;
  }

  bool key(uint8_t type, int db, int64_t expire) {
    if (!is_value_type(type)) return fail("Unknown RDB encoding type " + std::to_string(type));
    std::string key = r_.string();
    if (!r_.ok()) return fail("Unexpected EOF reading RDB file");
    ReadValue v;
    std::string why;
    ReadStatus rs =
        read_value(r_, type, opts_.stream_limits, opts_.skip_unsupported_types, v, &why);
    auto where = [&]() { return "key " + text::repr(key) + " in database " + std::to_string(db); };
    if (rs == ReadStatus::kUnsupported) {
      return fail("Unsupported type " + std::string(type_name(type)) + " (RDB type " +
                  std::to_string(type) + ") of " + where() +
                  ": streamd holds strings and streams only (rdb-skip-unsupported-types yes "
                  "skips such keys)");
    }
    if (rs == ReadStatus::kSkipped) {
      ++st_.unsupported_skipped;
      if (opts_.log) {
        opts_.log("Skipped " + where() + " of unsupported type " + std::string(type_name(type)));
      }
      return true;
    }
    if (rs == ReadStatus::kBadData) {
      return fail("Bad value of " + where() + ": " + (why.empty() ? "malformed" : why));
    }
    if (v.is_stream && r_.peek() == kOpAux) {
      // The extension blob of this stream, if that is what the AUX field is.
      std::size_t at = r_.pos();
      r_.byte();
      std::string k = r_.string();
      if (k == kStreamExtAux) {
        std::string blob = r_.string();
        if (!r_.ok() || !apply_stream_ext(blob, *v.builder, static_cast<uint64_t>(opts_.now_ms))) {
          return fail("Bad streamd extension of " + where());
        }
      } else {
        r_ = Reader(bytes_);
        r_.raw(at);
      }
    }
    engine::Result<engine::Value> val = finish_value(v);
    if (!val) return fail("Inconsistent stream in " + where());
    if (expire >= 0 && expire <= opts_.now_ms && !opts_.keep_expired) {
      ++st_.expired_skipped;
      return true;
    }
    engine::Database& d = ks_.db(db);
    if (d.peek(key)) return fail("Duplicate key " + text::repr(key) + " found in RDB file");
    d.set_with_expiry(key, std::move(*val), expire);
    ++st_.keys;
    return true;
  }

  std::string_view bytes_;
  Reader r_;
  engine::Keyspace& ks_;
  const LoadOptions& opts_;
  LoadStats& st_;
  std::string& err_;
};

}  // namespace

bool load(std::string_view bytes, engine::Keyspace& ks, const LoadOptions& opts, LoadStats* stats,
          std::string* error) {
  LoadStats local;
  LoadStats& st = stats ? *stats : local;
  std::string err;
  Loader l(bytes, ks, opts, st, err);
  if (l.run()) return true;
  ks.flush_all();
  if (error) *error = err.empty() ? "Malformed RDB file" : err;
  return false;
}

}  // namespace streamd::persist::rdb
