// GET /metrics: the server's state in the Prometheus text exposition format (0.0.4), with
// redis_exporter's metric and label names wherever it has them (so existing dashboards, alerts
// and KEDA triggers work unchanged) and streamd_* names for what it lacks. See docs/metrics.md.
//
// Streams: those whose key matches one of metrics-streams' globs, at most metrics-max-streams
// of them, the longest first, so a server with a million streams exports a bounded number of
// series. Which ones: stream_selection.h (a scrape walks a small keyspace whole, and a large one
// never: a background pass chooses).
#pragma once

#include <string>
#include <string_view>

namespace streamd::cmd {

class Server;
class StreamSelection;

// The whole exposition text. Runs on the event loop; reads only the dataset. Without a
// `selection`, the streams are chosen by walking the whole keyspace.
std::string metrics_text(Server& server, StreamSelection* selection = nullptr);

// The Content-Type of the text.
inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace streamd::cmd
