// The replication stream as the command layer feeds it: offsets and bytes as redis-server 7.0.15
// counts them (measured: after a replica attached, SET a b took master_repl_offset from 0 to 50:
// SELECT 0 (23 bytes) + SET a b (27 bytes); its PING 14 more), INFO replication and ROLE.
#include "streamd/repl/master.h"

#include <gtest/gtest.h>

#include <string>

#include "commands/command_harness.h"
#include "commands/recording_persistence.h"
#include "resp/encode.h"

namespace streamd::repl {
namespace {

using test::Decode;

using test_util::enc;

class ReplicationMasterTest : public ::testing::Test {
 protected:
  ReplicationMasterTest() : master_(h_.server()) {
    h_.config().set("appendonly", "no");
    master_.start();
  }
  // Everything the backlog holds.
  std::string stream() const {
    std::string out;
    if (master_.backlog())
      master_.backlog()->copy_from(master_.backlog()->first_byte_offset(), out);
    return out;
  }
  std::string info() { return Decode(h_.Run2({"INFO", "replication"})); }

  test::CommandHarness h_;
  ReplicationMaster master_;
};

TEST_F(ReplicationMasterTest, NoBacklogNoStreamNoOffset) {
  EXPECT_FALSE(h_.server().propagating());
  h_.Run({"SET", "a", "b"});
  EXPECT_EQ(master_.offset(), 0);
  EXPECT_EQ(master_.backlog(), nullptr);
}

TEST_F(ReplicationMasterTest, CreatingTheBacklogStartsAFreshHistory) {
  std::string before = master_.identity().replid;
  master_.create_backlog();
  EXPECT_NE(master_.identity().replid, before);
  EXPECT_EQ(master_.identity().replid.size(), 40u);
  EXPECT_EQ(master_.identity().replid2, std::string(40, '0'));
  EXPECT_EQ(master_.backlog()->first_byte_offset(), 1);
  EXPECT_TRUE(h_.server().propagating());
}

TEST_F(ReplicationMasterTest, UnitsAreCountedAsRedisCountsThem) {
  master_.create_backlog();
  h_.Run({"SET", "a", "b"});
  EXPECT_EQ(master_.offset(), 50);  // as redis-server 7.0.15
  EXPECT_EQ(stream(), enc({"SELECT", "0"}) + enc({"SET", "a", "b"}));
  // Same database: no SELECT; another database: SELECT first.
  h_.Run({"SET", "c", "d"});
  EXPECT_EQ(master_.offset(), 77);
  h_.Run({"SELECT", "3"});
  h_.Run({"SET", "e", "f"});
  std::string expected = enc({"SELECT", "0"}) + enc({"SET", "a", "b"}) + enc({"SET", "c", "d"}) +
                         enc({"SELECT", "3"}) + enc({"SET", "e", "f"});
  EXPECT_EQ(stream(), expected);
  EXPECT_EQ(master_.offset(), static_cast<int64_t>(expected.size()));
  // The client's offset after its write is what WAIT waits for.
  EXPECT_EQ(h_.session().repl_offset, master_.offset());
  // Commands that change nothing propagate nothing.
  h_.Run({"GET", "a"});
  h_.Run({"DEL", "missing"});
  EXPECT_EQ(master_.offset(), static_cast<int64_t>(expected.size()));
}

TEST_F(ReplicationMasterTest, TransactionsAreWrappedAndGeneratedIdsPropagated) {
  master_.create_backlog();
  h_.Run({"MULTI"});
  h_.Run({"SET", "a", "1"});
  h_.Run({"SET", "b", "2"});
  h_.Run({"EXEC"});
  // Redis 7.2+'s order: MULTI carries no database, the SELECT goes inside.
  EXPECT_EQ(stream(), enc({"MULTI"}) + enc({"SELECT", "0"}) + enc({"SET", "a", "1"}) +
                          enc({"SET", "b", "2"}) + enc({"EXEC"}));
  std::string before = stream();
  std::string id = Decode(h_.Run({"XADD", "s", "*", "f", "v"}));
  ASSERT_GE(id.size(), 3u);
  id = id.substr(1, id.size() - 2);  // "\"1700000000000-0\""
  EXPECT_EQ(stream(), before + enc({"XADD", "s", id, "f", "v"}));
}

// Inside a network-layer batch (cmd::Server::BatchScope) units of one record in the stream's
// database are fed together when it ends: the same bytes, and the client's offset counts them
// at once (what WAIT waits for).
TEST_F(ReplicationMasterTest, ABatchsRecordsAreFedTogetherWhenItEnds) {
  master_.create_backlog();
  h_.Run({"SET", "a", "b"});
  std::string expected = enc({"SELECT", "0"}) + enc({"SET", "a", "b"});
  {
    cmd::Server::BatchScope batch(h_.server());
    h_.Run({"SET", "c", "d"});
    h_.Run({"XADD", "s", "5-1", "f", "v"});
    h_.Run({"GET", "a"});
    EXPECT_EQ(stream(), expected);  // not fed yet
    EXPECT_EQ(master_.offset(), 50);
    expected += enc({"SET", "c", "d"}) + enc({"XADD", "s", "5-1", "f", "v"});
    EXPECT_EQ(h_.session().repl_offset, static_cast<int64_t>(expected.size()));
  }
  EXPECT_EQ(stream(), expected);
  EXPECT_EQ(master_.offset(), static_cast<int64_t>(expected.size()));
  EXPECT_EQ(h_.session().repl_offset, master_.offset());
}

// What cannot be deferred (a unit that selects another database, a transaction) follows what
// was, in order; whatever asks for the replication state (ROLE, INFO) sees the stream whole.
TEST_F(ReplicationMasterTest, WhatABatchDeferredComesFirst) {
  master_.create_backlog();
  h_.Run({"SET", "a", "b"});
  cmd::Server::BatchScope batch(h_.server());
  h_.Run({"SET", "c", "d"});
  EXPECT_EQ(Decode(h_.Run2({"ROLE"})), "[\"master\", (integer) 77, []]");
  EXPECT_EQ(master_.offset(), 77);
  h_.Run({"SET", "e", "f"});
  EXPECT_NE(info().find("master_repl_offset:104\r\n"), std::string::npos);
  h_.Run({"SET", "g", "h"});
  h_.Run({"SELECT", "3"});
  h_.Run({"SET", "i", "j"});
  h_.Run({"SET", "k", "l"});
  h_.Run({"MULTI"});
  h_.Run({"SET", "m", "1"});
  h_.Run({"SET", "n", "2"});
  h_.Run({"EXEC"});
  std::string expected = enc({"SELECT", "0"}) + enc({"SET", "a", "b"}) + enc({"SET", "c", "d"}) +
                         enc({"SET", "e", "f"}) + enc({"SET", "g", "h"}) + enc({"SELECT", "3"}) +
                         enc({"SET", "i", "j"}) + enc({"SET", "k", "l"});
  EXPECT_EQ(stream(), expected + enc({"MULTI"}) + enc({"SET", "m", "1"}) + enc({"SET", "n", "2"}) +
                          enc({"EXEC"}));
  EXPECT_EQ(h_.session().repl_offset, master_.offset());
}

// A long pipeline still streams: the batch feeds what it deferred once it holds 64 KiB.
TEST_F(ReplicationMasterTest, ABatchFeedsWhatItDeferredPast64KiB) {
  master_.create_backlog();
  h_.Run({"SET", "a", "b"});
  cmd::Server::BatchScope batch(h_.server());
  std::string value(40000, 'v');
  h_.Run({"SET", "k1", value});
  h_.Run({"SET", "k2", value});
  EXPECT_EQ(master_.offset(), 50);
  h_.Run({"SET", "k3", value});  // 80,000 bytes deferred: they go, then this one
  std::string expected = enc({"SELECT", "0"}) + enc({"SET", "a", "b"}) + enc({"SET", "k1", value}) +
                         enc({"SET", "k2", value}) + enc({"SET", "k3", value});
  EXPECT_EQ(stream(), expected);
}

// SCAN and RANDOMKEY may expire keys they were not asked about: run directly, their DELs go out
// one by one (Redis's CMD_TOUCHES_ARBITRARY_KEYS; expire.tcl "SCAN: Lazy-expire should not be
// wrapped in MULTI/EXEC"); inside a transaction they are part of it.
TEST_F(ReplicationMasterTest, LazyExpiriesOfScanAndRandomkeyAreNotWrapped) {
  master_.create_backlog();
  for (const char* verb : {"SCAN", "RANDOMKEY"}) {
    SCOPED_TRACE(verb);
    h_.Run({"SELECT", "9"});
    h_.Run({"SET", "foo1", "bar", "PX", "1"});
    h_.Run({"SET", "foo2", "bar", "PX", "1"});
    h_.Advance(2);
    std::string before = stream();
    if (std::string(verb) == "SCAN") {
      EXPECT_EQ(Decode(h_.Run({"SCAN", "0"})), "[\"0\", []]");
    } else {
      EXPECT_EQ(Decode(h_.Run({"RANDOMKEY"})), "(nil)");
    }
    std::string tail = stream().substr(before.size());
    // The two DELs in either order, no MULTI.
    EXPECT_TRUE(tail == enc({"DEL", "foo1"}) + enc({"DEL", "foo2"}) ||
                tail == enc({"DEL", "foo2"}) + enc({"DEL", "foo1"}))
        << tail;
    EXPECT_EQ(Decode(h_.Run({"DBSIZE"})), "(integer) 0");
  }
  h_.Run({"SET", "foo1", "bar", "PX", "1"});
  h_.Run({"SET", "foo2", "bar", "PX", "1"});
  h_.Advance(2);
  std::string before = stream();
  h_.Run({"MULTI"});
  h_.Run({"SCAN", "0"});
  h_.Run({"EXEC"});
  std::string tail = stream().substr(before.size());
  EXPECT_EQ(tail.rfind(enc({"MULTI"}), 0), 0u) << tail;
  EXPECT_EQ(tail.size(),
            (enc({"MULTI"}) + enc({"DEL", "foo1"}) + enc({"DEL", "foo2"}) + enc({"EXEC"})).size());
}

// SCAN expires the keys it would have returned, and only those: a key its MATCH or TYPE filters
// out stays stored until something else looks at it (Redis's scanGenericCommand filters first).
TEST_F(ReplicationMasterTest, ScanExpiresOnlyTheKeysItWouldReturn) {
  master_.create_backlog();
  h_.Run({"SET", "a", "1", "PX", "1"});
  h_.Run({"SET", "b", "1", "PX", "1"});
  h_.Run({"XADD", "s", "1-1", "f", "v"});
  h_.Run({"PEXPIRE", "s", "1"});
  h_.Advance(2);
  std::string before = stream();
  EXPECT_EQ(Decode(h_.Run({"SCAN", "0", "MATCH", "a", "TYPE", "string"})), "[\"0\", []]");
  EXPECT_EQ(stream().substr(before.size()), enc({"DEL", "a"}));
  before = stream();
  EXPECT_EQ(Decode(h_.Run({"SCAN", "0", "TYPE", "stream"})), "[\"0\", []]");
  EXPECT_EQ(stream().substr(before.size()), enc({"DEL", "s"}));
  EXPECT_EQ(Decode(h_.Run({"DBSIZE"})), "(integer) 1");  // b: expired, not yet deleted
}

// PUBLISH and SPUBLISH reach the replicas (as the client named them, in its database) and never
// the AOF; with a write in one EXEC both get MULTI ... EXEC, the AOF without the publish.
TEST_F(ReplicationMasterTest, PublishGoesToTheReplicasOnly) {
  test::RecordingPersistence aof;
  h_.server().set_persistence(&aof);
  master_.create_backlog();
  h_.Run({"SELECT", "2"});
  EXPECT_EQ(Decode(h_.Run({"publish", "ch", "hello"})), "(integer) 0");
  EXPECT_EQ(stream(), enc({"SELECT", "2"}) + enc({"publish", "ch", "hello"}));
  EXPECT_TRUE(aof.records.empty());
  std::string before = stream();
  h_.Run({"MULTI"});
  h_.Run({"SET", "k", "v"});
  h_.Run({"SPUBLISH", "sh", "m"});
  h_.Run({"EXEC"});
  EXPECT_EQ(stream().substr(before.size()),
            enc({"MULTI"}) + enc({"SET", "k", "v"}) + enc({"SPUBLISH", "sh", "m"}) + enc({"EXEC"}));
  EXPECT_EQ(aof.records, std::vector<std::string>{"SET k v"});
  h_.server().set_persistence(nullptr);
}

TEST_F(ReplicationMasterTest, TheAofEncodingLeavesOutReplicasOnlyRecords) {
  cmd::PropagationBatch unit;
  unit.add(4, {"SET", "k", "v"});
  unit.add(4, {"PUBLISH", "c", "m"});
  unit.mark_last_replicas_only();
  EXPECT_TRUE(unit.has_aof_records());
  std::string aof, repl;
  int db_aof = -1, db_repl = -1;
  cmd::encode_unit(unit, &db_aof, aof, cmd::PropagationTarget::kAof);
  cmd::encode_unit(unit, &db_repl, repl);
  EXPECT_EQ(aof, enc({"MULTI"}) + enc({"SELECT", "4"}) + enc({"SET", "k", "v"}) + enc({"EXEC"}));
  EXPECT_EQ(repl, enc({"MULTI"}) + enc({"SELECT", "4"}) + enc({"SET", "k", "v"}) +
                      enc({"PUBLISH", "c", "m"}) + enc({"EXEC"}));
  unit.clear();
  unit.add(1, {"PUBLISH", "c", "m"});
  unit.mark_last_replicas_only();
  EXPECT_FALSE(unit.has_aof_records());
  unit.clear();
  unit.add(1, {"SET", "k", "v"});
  EXPECT_FALSE(unit.replicas_only(0));  // clear() forgot the mark
}

TEST_F(ReplicationMasterTest, TheStreamIsTheAofsBytes) {
  // The AOF writer and the stream share cmd::encode_unit, each with its own SELECT state: a unit
  // encoded for both gives the same bytes when both start unselected.
  cmd::PropagationBatch unit;
  unit.add(2, {"SET", "k", "v"});
  unit.add(5, {"DEL", "k2"});
  std::string a, b;
  int db_a = -1, db_b = -1;
  cmd::encode_unit(unit, &db_a, a);
  cmd::encode_unit(unit, &db_b, b);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, enc({"MULTI"}) + enc({"SELECT", "2"}) + enc({"SET", "k", "v"}) +
                   enc({"SELECT", "5"}) + enc({"DEL", "k2"}) + enc({"EXEC"}));
  EXPECT_EQ(db_a, 5);
}

TEST_F(ReplicationMasterTest, BacklogIsFreedAfterTheTtlWithoutReplicas) {
  h_.config().set("repl-backlog-ttl", "10");
  master_.create_backlog();
  std::string replid = master_.identity().replid;
  h_.Advance(9000);
  h_.Cron();
  EXPECT_NE(master_.backlog(), nullptr);
  h_.Advance(2000);
  h_.Cron();
  EXPECT_EQ(master_.backlog(), nullptr);
  EXPECT_NE(master_.identity().replid, replid);
  // Without a backlog the stream is not fed: the offset stays where it was, as in Redis.
  h_.Run({"SET", "a", "b"});
  EXPECT_EQ(master_.offset(), 0);
  EXPECT_FALSE(h_.server().propagating());
}

TEST_F(ReplicationMasterTest, TheFirstPingWaitsAPeriodAfterStart) {
  // A replica that reconnects before the restarted master's first cron must not get a PING at
  // once: Redis pings on a schedule (found by Redis's psync2-master-restart.tcl, which expects
  // the offset to stay 0 with repl-ping-replica-period 3600).
  h_.config().set("repl-diskless-sync-delay", "3600");  // no snapshot child in a unit test
  h_.config().set("repl-ping-replica-period", "10");
  ASSERT_EQ(master_.sync(h_.session(1), true, "?", -1).kind, cmd::SyncStart::Kind::kFull);
  h_.Cron();
  EXPECT_EQ(master_.offset(), 0);
  h_.Advance(9000);
  h_.Cron();
  EXPECT_EQ(master_.offset(), 0);
  h_.Advance(1000);
  h_.Cron();
  EXPECT_EQ(master_.offset(), 14);  // PING
  EXPECT_EQ(stream(), enc({"PING"}));
}

TEST_F(ReplicationMasterTest, AReplicaDoesNotPingItsOwnReplicas) {
  // Its stream is its master's bytes (PINGs included): a PING of its own would put its offset
  // ahead of its master's, and its next PSYNC there would ask for bytes the master never had
  // (a full sync instead of a partial one: Redis's psync2-pingoff.tcl, chained replicas).
  h_.config().set("repl-diskless-sync-delay", "3600");
  h_.config().set("repl-ping-replica-period", "1");
  ASSERT_EQ(master_.sync(h_.session(1), true, "?", -1).kind, cmd::SyncStart::Kind::kFull);
  master_.set_replica_role(true);
  int64_t offset = master_.offset();
  h_.Advance(5000);
  h_.Cron();
  EXPECT_EQ(master_.offset(), offset);
}

TEST_F(ReplicationMasterTest, BacklogSizeFollowsConfigSet) {
  master_.create_backlog();
  h_.Run({"SET", "a", std::string(100, 'x')});
  ASSERT_EQ(h_.config().set("repl-backlog-size", "32"), std::nullopt);
  EXPECT_EQ(master_.backlog()->capacity(), 32u);
  EXPECT_EQ(master_.backlog()->histlen(), 32);
  EXPECT_NE(info().find("repl_backlog_size:32"), std::string::npos);
}

TEST_F(ReplicationMasterTest, PromotionKeepsTheOldHistoryAsReplid2) {
  master_.create_backlog();
  h_.Run({"SET", "a", "b"});
  std::string old = master_.identity().replid;
  master_.promote();
  const ReplIdentity& id = master_.identity();
  EXPECT_EQ(id.replid2, old);
  EXPECT_EQ(id.second_offset, 51);
  EXPECT_NE(id.replid, old);
  EXPECT_TRUE(id.continues(old, 51));
  EXPECT_FALSE(id.continues(old, 52));
  EXPECT_TRUE(id.continues(id.replid, 1));
  EXPECT_FALSE(id.continues(std::string(40, '0'), 0));
  EXPECT_FALSE(id.continues("?", -1));
}

TEST_F(ReplicationMasterTest, InfoAndRoleOfAMasterWithoutReplicas) {
  master_.create_backlog();
  h_.Run({"SET", "a", "b"});
  std::string text = info();
  std::string expected =
      "# Replication\r\nrole:master\r\nconnected_slaves:0\r\n"
      "master_failover_state:no-failover\r\nmaster_replid:" +
      master_.identity().replid +
      "\r\nmaster_replid2:0000000000000000000000000000000000000000\r\n"
      "master_repl_offset:50\r\nsecond_repl_offset:-1\r\n"
      "repl_backlog_active:1\r\nrepl_backlog_size:1048576\r\n"
      "repl_backlog_first_byte_offset:1\r\nrepl_backlog_histlen:50\r\n";
  EXPECT_EQ(text, "\"" + expected + "\"") << text;
  EXPECT_EQ(Decode(h_.Run2({"ROLE"})), "[\"master\", (integer) 50, []]");
}

}  // namespace
}  // namespace streamd::repl
