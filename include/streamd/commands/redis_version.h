// The Redis version whose command surface and replies streamd implements: HELLO's "version",
// INFO's redis_version. Raise it only together with the behaviour it promises.
#pragma once

#include <string_view>

namespace streamd::cmd {

inline constexpr std::string_view kRedisVersion = "7.0.15";

}  // namespace streamd::cmd
