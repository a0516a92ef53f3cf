// DEBUG DIGEST / DIGEST-VALUE's digests with plain calls, against values redis-server 7.0.15
// printed for the same datasets (the differential script debug_digest.txt compares many more).
#include "streamd/commands/server/dataset_digest.h"

#include <gtest/gtest.h>

#include <string>

#include "command_harness.h"

namespace streamd::test {
namespace {

TEST(DatasetDigest, MatchesRedisForStringsStreamsTtlsAndDatabases) {
  CommandHarness h;
  engine::Keyspace& ks = h.server().keyspace();
  EXPECT_EQ(cmd::dataset_digest(ks), std::string(40, '0'));
  h.Run({"SET", "a", "1"});
  EXPECT_EQ(cmd::dataset_digest(ks), "943d800368fb9c0e951138f1bc0e313ac769d91f");
  h.Run({"SELECT", "3"});
  h.Run({"SET", "x", "y"});
  EXPECT_EQ(cmd::dataset_digest(ks), "1c86b2892b4092f70cd2104c67707c08b944ec1f");

  h.Run({"SELECT", "0"});
  h.Run({"SET", "b", "hello", "EX", "100"});
  h.Run({"XADD", "s", "1-1", "f", "v", "g", "w"});
  h.Run({"XADD", "s", "2-5", "f", ""});
  h.Run({"XGROUP", "CREATE", "s", "g", "0"});  // groups are not part of the digest
  const engine::Database& db = ks.db(0);
  EXPECT_EQ(cmd::value_digest(*db.peek_stored("a")), "b4fc66738120fba0b5aa500ab5c2bf89cea1c5da");
  EXPECT_EQ(cmd::value_digest(*db.peek_stored("b")), "d037c4eb8a8b36b602fbced4000daeab0714c1e3");
  EXPECT_EQ(cmd::value_digest(*db.peek_stored("s")), "fd7f7eb1d2a433f6e14b61114095e2ac44518755");
}

TEST(DatasetDigest, AnExpiredKeyStillStoredCounts) {
  // Redis digests its whole dict: a key past its TTL that nothing deleted yet is in it.
  CommandHarness h;
  engine::Keyspace& ks = h.server().keyspace();
  h.Run({"SET", "a", "1"});
  h.Run({"PEXPIRE", "a", "10"});
  std::string before = cmd::dataset_digest(ks);
  h.Advance(100);
  EXPECT_EQ(cmd::dataset_digest(ks), before);
  EXPECT_NE(before, std::string(40, '0'));
}

}  // namespace
}  // namespace streamd::test
