#include "streamd/persist/rdb/value_codec.h"

#include "streamd/engine/consumer_group.h"
#include "streamd/engine/group_lag.h"
#include "streamd/persist/rdb/stream_codec.h"

namespace streamd::persist::rdb {

namespace {

// Every type Redis has written (rdb.h), by what skipping its body takes.
enum class Shape {
  kNone,         // not a value type
  kStrings,      // count, then that many strings (list, set, quicklist of ziplists)
  kPairs,        // count, then that many string pairs (hash)
  kZsetText,     // count × (string, score as a length-prefixed text)
  kZsetBinary,   // count × (string, 8-byte double)
  kBlob,         // one string (ziplists, listpacks, intsets, zipmaps)
  kQuicklist2,   // count × (container length, string)
  kModule2,      // module id, then opcodes until EOF
  kHashMeta,     // [8-byte min expiry] count × (ttl length, field, value)
  kHashLpEx,     // [8-byte min expiry] listpack string
  kUnskippable,  // pre-GA modules
  kStream,
  kString,
};

Shape shape_of(uint8_t t) {
  switch (t) {
    case 0:
      return Shape::kString;
    case 1:
    case 2:
    case 14:
      return Shape::kStrings;
    case 3:
      return Shape::kZsetText;
    case 4:
      return Shape::kPairs;
    case 5:
      return Shape::kZsetBinary;
    case 6:
      return Shape::kUnskippable;
    case 7:
      return Shape::kModule2;
    case 9:
    case 10:
    case 11:
    case 12:
    case 13:
    case 16:
    case 17:
    case 20:
      return Shape::kBlob;
    case 15:
    case 19:
    case 21:
      return Shape::kStream;
    case 18:
      return Shape::kQuicklist2;
    case 22:
    case 24:
      return Shape::kHashMeta;
    case 23:
    case 25:
      return Shape::kHashLpEx;
    default:
      return Shape::kNone;
  }
}

// Skips a body of a type streamd does not hold; false if it is malformed.
bool skip_value(Reader& r, uint8_t type) {
  switch (shape_of(type)) {
    case Shape::kStrings: {
      uint64_t n = r.count();
      for (uint64_t i = 0; i < n && r.ok(); ++i) r.skip_string();
      break;
    }
    case Shape::kPairs: {
      uint64_t n = r.count(2);
      for (uint64_t i = 0; i < n && r.ok(); ++i) {
        r.skip_string();
        r.skip_string();
      }
      break;
    }
    case Shape::kZsetText: {
      uint64_t n = r.count(2);
      for (uint64_t i = 0; i < n && r.ok(); ++i) {
        r.skip_string();
        uint8_t l = r.byte();
        if (l < 253) r.raw(l);  // 253..255: NaN, +inf, -inf
      }
      break;
    }
    case Shape::kZsetBinary: {
      uint64_t n = r.count(9);
      for (uint64_t i = 0; i < n && r.ok(); ++i) {
        r.skip_string();
        r.raw(8);
      }
      break;
    }
    case Shape::kBlob:
      r.skip_string();
      break;
    case Shape::kQuicklist2: {
      uint64_t n = r.count(2);
      for (uint64_t i = 0; i < n && r.ok(); ++i) {
        r.len();
        r.skip_string();
      }
      break;
    }
    case Shape::kModule2: {
      r.len();  // module id
      for (;;) {
        uint64_t op = r.len();
        if (!r.ok() || op == 0) break;
        if (op == 1 || op == 2) {
          r.len();
        } else if (op == 3) {
          r.raw(4);
        } else if (op == 4) {
          r.raw(8);
        } else if (op == 5) {
          r.skip_string();
        } else {
          return false;
        }
      }
      break;
    }
    case Shape::kHashMeta: {
      if (type == 24) r.raw(8);
      uint64_t n = r.count(3);
      for (uint64_t i = 0; i < n && r.ok(); ++i) {
        r.len();
        r.skip_string();
        r.skip_string();
      }
      break;
    }
    case Shape::kHashLpEx:
      if (type == 25) r.raw(8);
      r.skip_string();
      break;
    default:
      return false;
  }
  return r.ok();
}

}  // namespace

uint8_t stream_type_for(int version) {
  return version >= 11 ? kTypeStreamListpacks3 : kTypeStreamListpacks2;
}

bool is_value_type(uint8_t type) {
  return shape_of(type) != Shape::kNone;
}

std::string_view type_name(uint8_t type) {
  switch (type) {
    case 0:
      return "string";
    case 1:
    case 10:
    case 14:
    case 18:
      return "list";
    case 2:
    case 11:
    case 20:
      return "set";
    case 3:
    case 5:
    case 12:
    case 17:
      return "zset";
    case 4:
    case 9:
    case 13:
    case 16:
    case 22:
    case 23:
    case 24:
    case 25:
      return "hash";
    case 6:
    case 7:
      return "module";
    case 15:
    case 19:
    case 21:
      return "stream";
    default:
      return "unknown";
  }
}

void write_value(Writer& w, const engine::Value& v, int version) {
  w.byte(v.is_string() ? kTypeString : stream_type_for(version));
  write_value_body(w, v, version);
}

void write_value_body(Writer& w, const engine::Value& v, int version) {
  if (v.is_string()) {
    w.string(v.str());
  } else {
    write_stream_body(w, v.stream(), stream_type_for(version));
  }
}

ReadStatus read_value(Reader& r, uint8_t type, const engine::StreamLimits& limits, bool skip,
                      ReadValue& out, std::string* why) {
  Shape sh = shape_of(type);
  if (sh == Shape::kString) {
    std::string scratch;
    std::string_view s = r.string(scratch);
    if (!r.ok()) {
      if (why) *why = "String value loading failed";
      return ReadStatus::kBadData;
    }
    out.is_stream = false;
    out.str.assign(s);
    return ReadStatus::kOk;
  }
  if (sh == Shape::kStream) {
    out.is_stream = true;
    out.builder = std::make_unique<engine::StreamBuilder>(limits);
    return read_stream_body(r, type, out, why);
  }
  if (sh == Shape::kNone) {
    if (why) *why = "Unknown RDB value type " + std::to_string(type);
    return ReadStatus::kBadData;
  }
  if (!skip) return ReadStatus::kUnsupported;
  if (!skip_value(r, type)) {
    if (why) {
      *why = sh == Shape::kUnskippable ? "Module value of a pre-GA module type cannot be skipped"
                                       : "Malformed value of type " + std::string(type_name(type));
    }
    return ReadStatus::kBadData;
  }
  return ReadStatus::kSkipped;
}

engine::Result<engine::Value> finish_value(ReadValue& v) {
  if (!v.is_stream) return engine::Value(std::move(v.str));
  engine::Result<std::unique_ptr<engine::Stream>> s = v.builder->finish();
  v.builder.reset();
  if (!s) return s.err();
  if (v.estimate_entries_read) {
    engine::Stream& st = **s;
    st.groups().for_each([&](engine::ConsumerGroup& g) {
      g.set_last_delivered_id(g.last_delivered_id(),
                              engine::estimate_entries_read(st, g.last_delivered_id()));
    });
  }
  return engine::Value(std::move(*s));
}

}  // namespace streamd::persist::rdb
