// Reading raw RESP2/RESP3 reply bytes without a client library, for the command harness's
// checks and failure messages and for the command fuzz target (tests/fuzz/commands_fuzz.cc),
// which is why it needs nothing but the standard library.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::test {

// The length of the complete RESP2/RESP3 value at the start of `raw`, or 0 if it is incomplete or
// malformed (a simple string or error holding a CR or LF is malformed).
std::size_t ReplyLength(std::string_view raw);

// ReplyLength, and whether the value uses a type only RESP3 has (what a RESP2 client must never
// receive).
struct ReplyScan {
  std::size_t length = 0;
  bool resp3_types = false;
};
ReplyScan ScanReply(std::string_view raw);

// The bulk strings of an array reply, sorted, for replies whose order is unspecified (KEYS; for
// a SCAN reply the leading cursor is left out).
std::vector<std::string> SortedBulks(std::string_view raw);

// The top-level elements of an array, set, push or map reply, each rendered as Decode renders
// it (a map's keys and values alternate, as in its RESP2 form). Empty for any other reply.
std::vector<std::string> Elements(std::string_view raw);

// The value after the element `"name"` in a reply of field/value pairs (a RESP3 map or its RESP2
// flat array, e.g. XINFO STREAM), as Decode renders it; "<missing>" if there is no such field.
std::string Field(std::string_view raw, std::string_view name);

// A readable one-line rendering: "+OK", "(integer) 5", "\"bulk\"", "(nil)", "(error) ERR x",
// "[1, 2]" for arrays/sets/pushes, "{k: v}" for maps, "(double) 1.5", "(bool) true",
// "(nil-array)" for a RESP2 null array. Malformed input renders as "<malformed>".
std::string Decode(std::string_view raw);

}  // namespace streamd::test
