// The REST layer's view of a reply: the RESP bytes the reply writer produced for a REST session,
// converted to the JSON Upstash answers with. The command layer stays ignorant of HTTP: a REST
// request runs through the same dispatcher into a plain output string, and this reads it back.
//
//   simple and bulk strings → strings (base64 in base64 mode, except the simple string "OK",
//                             which the SDKs expect as is)
//   integers → numbers; null bulk/array → null; arrays (and RESP3 maps/sets/pushes, flattened as
//   RESP2 shows them) → arrays; an error at the top → {"error"}, a nested one → its text
//
// Strings that are not valid UTF-8 are replaced character by character when serialised (use
// base64 mode for binary values, as the SDKs do by default).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace streamd::rest {

struct JsonReply {
  bool is_error = false;
  std::string error;      // the error line without its '-'
  nlohmann::json result;  // when !is_error
  // {"result": ...} or {"error": "..."}
  nlohmann::json envelope() const;
};

// Reads one complete RESP value at `pos` and advances `pos` past it; nullopt if the bytes are
// not one complete value (cannot happen for writer output, but the converter does not trust it).
std::optional<JsonReply> resp_to_json(std::string_view resp, std::size_t& pos, bool base64);

// Reads an array header ("*3\r\n") at `pos`: its length, -1 for a null array; nullopt if the
// value there is not an array (EXEC's reply is split into per-command results this way).
std::optional<long long> resp_array_header(std::string_view resp, std::size_t& pos);

// Serialises for the response body; invalid UTF-8 is replaced rather than throwing.
std::string json_text(const nlohmann::json& j);

std::string base64_encode(std::string_view in);

}  // namespace streamd::rest
