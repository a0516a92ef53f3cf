// The Redis version whose command surface and replies streamd implements: HELLO's "version",
// INFO's redis_version. Raise it only together with the behaviour it promises. 8.10.0: the
// stream features of Redis 8.2-8.10 (XDELEX, XACKDEL, KEEPREF/DELREF/ACKED, XREADGROUP CLAIM,
// IDMP/XCFGSET, XNACK, MAXCOUNT/MAXSIZE) are implemented, so client libraries that check the
// version enable their commands. Replies of older commands remain redis-server 7.0.15's.
#pragma once

#include <string_view>

namespace streamd::cmd {

inline constexpr std::string_view kRedisVersion = "8.10.0";

}  // namespace streamd::cmd
