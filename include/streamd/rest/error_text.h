// Every text the REST API and the metrics listener answer with that is not a command's own reply
// (those come from commands/core/error_text.h): the JSON "error" values (Upstash's texts where
// Upstash has one) and the plain-text bodies of the metrics endpoint. rest/ is their only user,
// so they live here rather than among the command layer's texts.
#pragma once

#include <string>
#include <string_view>

namespace streamd::rest::errors {

inline constexpr std::string_view kUnauthorized = "Unauthorized";
inline constexpr std::string_view kNoCommand = "ERR empty command";
inline constexpr std::string_view kBadJson =
    "ERR failed to parse the request body: a JSON array of strings is expected";
inline constexpr std::string_view kBadPipeline =
    "ERR failed to parse the request body: a JSON array of commands is expected";
inline constexpr std::string_view kBadHttp = "ERR malformed HTTP request";
inline constexpr std::string_view kBodyTooLarge = "ERR request body too large";
inline constexpr std::string_view kHeadersTooLarge = "ERR request headers too large";
inline constexpr std::string_view kMethodNotAllowed =
    "ERR method not allowed: use HEAD, GET, POST or PUT";
// "NOPERM this user has no permissions to run the 'xadd' command" (read-only token)
std::string readonly(std::string_view full_name);
// "ERR 'multi' is not supported over REST" (commands that need a long-lived connection)
std::string unsupported(std::string_view full_name);

// Plain-text bodies of the metrics endpoint (Prometheus scrapers show them as they are).
inline constexpr std::string_view kMetricsNotFound = "Not Found\n";
inline constexpr std::string_view kMetricsMethodNotAllowed = "Method Not Allowed\n";
inline constexpr std::string_view kMetricsUnauthorized = "Unauthorized\n";

}  // namespace streamd::rest::errors
