// Engine results: every engine operation that can fail returns an Err code (or a Result<T>
// carrying one). The engine never produces client-facing text; commands/error_text.cc maps each
// code to Redis's exact wording in one place.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

namespace streamd::engine {

enum class Err {
  kOk = 0,
  // Generic keyspace and value errors.
  kWrongType,
  kNoSuchKey,
  kSyntax,
  kNotInteger,
  kNotFloat,
  kOverflow,           // increment or decrement would overflow
  kNanOrInfinity,      // INCRBYFLOAT result
  kStringTooLong,      // string exceeds proto-max-bulk-len (512mb)
  kSameObject,         // RENAME/COPY source and destination are the same key
  kInvalidExpireTime,  // ERR invalid expire time in '<cmd>' command
  kOutOfRangeDb,       // DB index is out of range
  // Stream IDs.
  kInvalidStreamId,  // ERR Invalid stream ID specified as stream command argument
  kInvalidStartId,   // ERR invalid start ID for the interval
  kInvalidEndId,     // ERR invalid end ID for the interval
  // XADD / XSETID / XTRIM.
  kIdTooSmall,   // The ID specified in XADD is equal or smaller than the target stream top item
  kIdZero,       // The ID specified in XADD must be greater than 0-0
  kIdExhausted,  // The stream has exhausted the last possible ID, unable to add more items
  kElementsTooLarge,     // Elements are too large to be stored
  kSetIdSmallerThanTop,  // The ID specified in XSETID is smaller than the target stream top item
  kSetIdSmallerThanMaxDeleted,          // ... smaller than current max_deleted_entry_id
  kSetIdSmallerThanProvidedMaxDeleted,  // ... smaller than the provided max_deleted_entry_id
  kEntriesAddedSmallerThanLength,       // The entries_added specified in XSETID is smaller ...
  kEntriesAddedNotPositive,             // entries_added must be positive
  // Consumer groups.
  kNoGroup,    // NOGROUP (the command picks the wording)
  kBusyGroup,  // BUSYGROUP Consumer Group name already exists
  // Snapshots (RDB, DUMP payloads).
  kBadData,  // the input is malformed or describes an inconsistent value
};

// A value or an error code. Small on purpose: std::expected is C++23.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Err e) : v_(e) { assert(e != Err::kOk); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  Err err() const { return ok() ? Err::kOk : std::get<Err>(v_); }
  T& value() { return std::get<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Err> v_;
};

}  // namespace streamd::engine
