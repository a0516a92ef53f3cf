// The replication tests' expected stream bytes: a command line as the stream carries it.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "streamd/resp/command_encoder.h"

namespace streamd::repl::test_util {

inline std::string enc(std::initializer_list<std::string_view> argv) {
  std::string out;
  resp::append_command(out, argv);
  return out;
}

}  // namespace streamd::repl::test_util
