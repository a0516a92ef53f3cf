// A command line as RESP bytes (what the replication stream and the AOF carry): the expected
// bytes of the replication and persistence tests.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "streamd/resp/command_encoder.h"

namespace streamd::test_util {

inline std::string enc(std::initializer_list<std::string_view> argv) {
  std::string out;
  resp::append_command(out, argv);
  return out;
}

}  // namespace streamd::test_util
