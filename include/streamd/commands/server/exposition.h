// The Prometheus text exposition format, version 0.0.4: a metric family is a "# HELP" and a
// "# TYPE" line followed by its samples, `name{label="value",...} value`. Label values are
// escaped as the format requires (backslash, double quote and line feed); HELP text escapes
// backslash and line feed.
//
// Key names are binary in Redis but Prometheus takes only UTF-8 label values (a scrape with an
// invalid one fails as a whole), so label_text() passes valid UTF-8 through and writes any other
// key in Redis's quoting ("\xff\x00k", the way redis-cli shows it): readable, ASCII, and distinct
// from every valid key that does not itself start and end with a double quote.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace streamd::cmd {

using Label = std::pair<std::string_view, std::string_view>;

bool valid_utf8(std::string_view s);
// A key or other binary name as a label value (before escaping): itself if valid UTF-8, else
// its Redis quoting.
std::string label_text(std::string_view s);

class Exposition {
 public:
  explicit Exposition(std::string& out) : out_(out) {}

  // Starts a family: `type` is "gauge", "counter" or "histogram".
  void family(std::string_view name, std::string_view help, std::string_view type);
  // One sample of the current family. `name` is the family name, or for histograms the family
  // name with _bucket, _sum or _count.
  void sample(std::string_view name, std::initializer_list<Label> labels, double value);
  void sample(std::string_view name, std::initializer_list<Label> labels, uint64_t value);
  void sample(std::string_view name, std::initializer_list<Label> labels, int64_t value);

 private:
  void head(std::string_view name, std::initializer_list<Label> labels);
  std::string& out_;
};

}  // namespace streamd::cmd
