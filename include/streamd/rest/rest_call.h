// What a REST request asks for, in Upstash's conventions, decoded from an HttpRequest without any
// I/O: the command lines to run, the token that authorises them, and the reply encoding.
//
//   GET|POST /xadd/s/*/f/v          path segments, URL-decoded, are the command line
//   POST /set/k  (body: raw value)  the body is appended as the last path argument
//   ...?EX=100                      query parameters (except _token) follow as arguments
//   POST /  ["XADD","s","*","f","v"]           the command as a JSON array
//   POST /pipeline  [["SET","a","1"],["GET","a"]]   several commands, one result each
//   POST /multi-exec [[...],[...]]                  the same, run atomically (MULTI/EXEC)
//   Authorization: Bearer TOKEN  or  ?_token=TOKEN
//   Upstash-Encoding: base64     strings in results are base64 (what the SDKs ask for)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "streamd/rest/http_request.h"

namespace streamd::rest {

enum class CallKind { kSingle, kPipeline, kMultiExec };

struct RestCall {
  CallKind kind = CallKind::kSingle;
  std::vector<std::vector<std::string>> commands;
  std::string token;  // empty when none was given
  bool base64 = false;
};

// Decodes the request; on failure returns false with `error` set (answered with 400).
bool decode_call(const HttpRequest& req, RestCall& call, std::string& error);

// %XX decoding of one path segment or query component ('+' is kept: RFC 3986 paths have no
// form encoding, and tokens may contain '+'). False for a malformed escape.
bool url_decode(std::string_view in, std::string& out);

}  // namespace streamd::rest
