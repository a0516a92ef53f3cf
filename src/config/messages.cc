#include "messages.h"

#include <fmt/format.h>

namespace streamd::config::msg {

std::string out_of_range(std::int64_t min, std::int64_t max) {
  return fmt::format("argument must be between {} and {} inclusive", min, max);
}

std::string out_of_range(std::uint64_t min, std::uint64_t max) {
  return fmt::format("argument must be between {} and {} inclusive", min, max);
}

std::string out_of_range_octal(std::int64_t min, std::int64_t max) {
  return fmt::format("argument must be between {:o} and {:o} inclusive", min, max);
}

std::string not_one_of(std::span<const std::string_view> names) {
  std::string s = "argument(s) must be one of the following: ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) s += ", ";
    s += names[i];
  }
  return s;
}

std::string unknown_option(std::string_view name) {
  return fmt::format("ERR Unknown option or number of arguments for CONFIG SET - '{}'", name);
}

std::string set_failed(std::string_view name, std::string_view reason) {
  return fmt::format("ERR CONFIG SET failed (possibly related to argument '{}') - {}", name,
                     reason);
}

std::string rewrite_failed(std::string_view reason) {
  return fmt::format("ERR Rewriting config file: {}", reason);
}

std::string cant_open_file(std::string_view path, std::string_view reason) {
  return fmt::format("Fatal error, can't open config file '{}': {}", path, reason);
}

std::string fatal_config_error(std::string_view product, int line, std::string_view line_text,
                               std::string_view reason) {
  return fmt::format(
      "\n*** FATAL CONFIG FILE ERROR ({}) ***\n"
      "Reading the configuration file, at line {}\n"
      ">>> '{}'\n"
      "{}",
      product, line, line_text, reason);
}

}  // namespace streamd::config::msg
