// libFuzzer target for RESTORE payloads (persist::rdb::restore_payload, what RESTORE, and so
// every client, hands hostile bytes to; build and run: tests/fuzz/build_and_run.sh
// restore_payload).
//
// Input: byte 0 holds the options, the rest is the payload body (type byte and value):
// - bit 0 set: the body is the whole payload as a client would send it (footer included, so a
//   random one almost always fails its CRC: that path must be cheap and safe too);
// - otherwise the target appends a valid footer (RDB version 9 + bits 1-2, little-endian, then
//   the CRC64), so the mutations reach the value readers;
// - bits 3-4 pick the stream node limits the restored stream gets (they must not matter).
//
// Checked (any failure aborts, as do ASan/UBSan reports; libFuzzer's -rss_limit_mb and -timeout
// catch allocations without bound and loops):
// - a payload that restores dumps again (RDB 10 and 12: writing walks every node, group, PEL
//   record and consumer) to a payload that restores, and that second value dumps to exactly the
//   same bytes (what DUMP then RESTORE promises); the engine's asserts stay on in this build.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "streamd/engine/keyspace.h"
#include "streamd/engine/stream.h"
#include "streamd/persist/rdb/crc64.h"
#include "streamd/persist/rdb/dump.h"

namespace {

using namespace streamd;
using persist::rdb::RestoreStatus;

constexpr uint64_t kNowMs = 1700000000000;

void check(bool ok) {
  if (!ok) std::abort();
}

std::string with_footer(std::string_view body, int version) {
  std::string p(body);
  p.push_back(static_cast<char>(version & 0xff));
  p.push_back(static_cast<char>(version >> 8));
  uint64_t crc = persist::rdb::crc64(0, p);
  for (int i = 0; i < 8; ++i) p.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  uint8_t opts = data[0];
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string payload = (opts & 1) ? std::string(body) : with_footer(body, 9 + ((opts >> 1) & 3));
  constexpr engine::StreamLimits kLimits[] = {{100, 4096}, {1, 0}, {4, 64}, {0, 0}};
  const engine::StreamLimits& limits = kLimits[(opts >> 3) & 3];

  engine::Value v{std::string()};
  if (persist::rdb::restore_payload(payload, limits, kNowMs, &v) != RestoreStatus::kOk) return 0;
  for (int version : {10, 12}) {
    std::string again = persist::rdb::dump_payload(v, version);
    engine::Value w{std::string()};
    check(persist::rdb::restore_payload(again, limits, kNowMs, &w) == RestoreStatus::kOk);
    check(persist::rdb::dump_payload(w, version) == again);
    check(v.is_stream() == w.is_stream());
    if (!v.is_stream()) check(v.str() == w.str());
  }
  return 0;
}
