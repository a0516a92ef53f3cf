// The replication protocol through the command layer, in-process: REPLCONF bookkeeping, PSYNC's
// partial and full paths, the stream a replica's output receives, ACKs, WAIT and
// min-replicas-to-write on the manual clock. (The forked full sync itself is tested over real
// sockets: tests/integration/test_replication_master.py.)
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "commands/command_harness.h"
#include "resp/encode.h"
#include "streamd/commands/core/snapshots.h"
#include "streamd/repl/master.h"

namespace streamd::repl {
namespace {

using test::Decode;

using test_util::enc;

class ReplicationProtocolTest : public ::testing::Test {
 protected:
  static constexpr int kReplica = 1;

  ReplicationProtocolTest() : master_(h_.server()) {
    h_.config().set("appendonly", "no");
    master_.start();
    h_.session(kReplica).out = &replica_out_;
  }
  std::string info() { return Decode(h_.Run2({"INFO", "replication"})); }
  // A replica that continues the current history from `offset` (the bytes it lacks next).
  void attach_continuing(int64_t offset) {
    EXPECT_EQ(h_.RunRaw({"REPLCONF", "listening-port", "6380"}, resp::Protocol::kResp2, kReplica),
              "+OK\r\n");
    EXPECT_EQ(
        h_.RunRaw({"REPLCONF", "capa", "eof", "capa", "psync2"}, resp::Protocol::kResp2, kReplica),
        "+OK\r\n");
    std::string reply = h_.RunRaw({"PSYNC", master_.identity().replid, std::to_string(offset)},
                                  resp::Protocol::kResp2, kReplica);
    EXPECT_EQ(reply, "+CONTINUE " + master_.identity().replid + "\r\n");
  }

  // What the replica's connection writes: its output buffer, then its shared output (the
  // backlog from its cursor on), taken whole as by a socket with room for everything.
  std::string& replica_out() {
    if (cmd::SharedOutput* shared = h_.session(kReplica).shared_out) {
      for (std::string_view s = shared->peek(); !s.empty(); s = shared->peek()) {
        replica_out_.append(s);
        shared->consume(s.size());
      }
      EXPECT_EQ(shared->size(), 0u);
    }
    return replica_out_;
  }

  test::CommandHarness h_;
  ReplicationMaster master_;
  std::string replica_out_;
};

TEST_F(ReplicationProtocolTest, FullResyncRequestAttachesAWaitingReplica) {
  std::string before = master_.identity().replid;
  // No reply now: +FULLRESYNC comes with the snapshot, from the forked child.
  EXPECT_EQ(h_.RunRaw({"PSYNC", "?", "-1"}, resp::Protocol::kResp2, kReplica), "");
  EXPECT_NE(master_.backlog(), nullptr);
  EXPECT_NE(master_.identity().replid, before);  // a fresh history for the new backlog
  ASSERT_EQ(master_.replicas().size(), 1u);
  EXPECT_EQ(master_.replicas()[0].state, ReplicaState::kWaitBgsaveStart);
  EXPECT_TRUE(h_.session(kReplica).replica);
  EXPECT_NE(info().find("connected_slaves:1\r\nslave0:ip="), std::string::npos) << info();
  EXPECT_NE(info().find(",state=wait_bgsave,offset=0,lag=0"), std::string::npos) << info();
  // ROLE lists online replicas only.
  EXPECT_EQ(Decode(h_.Run2({"ROLE"})), "[\"master\", (integer) 0, []]");
  // Writes meanwhile are in the snapshot the child will take, not sent separately.
  h_.Run({"SET", "a", "b"});
  EXPECT_EQ(replica_out(), "");
  // A second SYNC on a replica link is ignored without a reply, as Redis does.
  EXPECT_EQ(h_.RunRaw({"SYNC"}, resp::Protocol::kResp2, kReplica), "");
}

TEST_F(ReplicationProtocolTest, AReplicaWithoutAnAofBuildsNoRecords) {
  master_.create_backlog();
  EXPECT_TRUE(h_.server().propagating());
  // Replicating from a master: its stream is the master's bytes, forwarded as they are.
  master_.set_replica_role(true);
  EXPECT_FALSE(h_.server().propagating());
  int64_t offset = master_.offset();
  h_.Run({"SET", "a", "1"});
  EXPECT_EQ(master_.offset(), offset);
  master_.set_replica_role(false);
  EXPECT_TRUE(h_.server().propagating());
}

TEST_F(ReplicationProtocolTest, ContinueSendsTheBacklogThenTheStream) {
  master_.create_backlog();
  h_.Run({"SET", "a", "1"});  // offsets 1..50
  attach_continuing(24);      // it has SELECT 0 (23 bytes) and lacks SET a 1
  EXPECT_EQ(replica_out(), enc({"SET", "a", "1"}));
  replica_out().clear();
  h_.Run({"SET", "b", "2"});
  EXPECT_EQ(replica_out(), enc({"SET", "b", "2"}));
  // Replies to the replica link are never sent, its ACK included.
  EXPECT_EQ(h_.RunRaw({"REPLCONF", "ACK", "77"}, resp::Protocol::kResp2, kReplica), "");
  EXPECT_EQ(h_.RunRaw({"PING"}, resp::Protocol::kResp2, kReplica), "");
  EXPECT_EQ(Decode(h_.Run2({"ROLE"})),
            "[\"master\", (integer) 77, [[\"127.0.0.1\", \"6380\", \"77\"]]]")
      << "(the harness session's address decides the ip)";
}

// A streaming replica's connection is asked to write (flush) once per wake-up it has posted:
// while one is posted (Session::wake_posted, kept by the network layer) it writes what the stream
// gained meanwhile, so each further record only lands in the backlog.
TEST_F(ReplicationProtocolTest, AStreamingReplicaIsWokenOncePerPostedWakeUp) {
  master_.create_backlog();
  h_.Run({"SET", "a", "1"});
  attach_continuing(24);
  cmd::Session& link = h_.session(kReplica);
  int flushes = 0;
  link.flush = [&] {
    ++flushes;
    link.wake_posted = true;  // what Connection::schedule_wakeup does
  };
  link.wake_posted = false;
  h_.Run({"SET", "b", "2"});
  h_.Run({"SET", "c", "3"});
  h_.Run({"SET", "d", "4"});
  EXPECT_EQ(flushes, 1);
  link.wake_posted = false;  // the wake-up ran (Connection::on_wakeup)
  h_.Run({"SET", "e", "5"});
  EXPECT_EQ(flushes, 2);
  EXPECT_EQ(replica_out(), enc({"SET", "a", "1"}) + enc({"SET", "b", "2"}) +
                               enc({"SET", "c", "3"}) + enc({"SET", "d", "4"}) +
                               enc({"SET", "e", "5"}));
}

TEST_F(ReplicationProtocolTest, PsyncOutsideTheHistoryOrTheBacklogIsAFullResync) {
  master_.create_backlog();
  h_.Run({"SET", "a", "1"});
  // An offset past the end (51 is the next byte; 52 was never written).
  EXPECT_EQ(h_.RunRaw({"PSYNC", master_.identity().replid, "52"}, resp::Protocol::kResp2, kReplica),
            "");
  EXPECT_EQ(master_.replicas()[0].state, ReplicaState::kWaitBgsaveStart);
  EXPECT_EQ(h_.RunRaw({"PSYNC", "x", "y"}, resp::Protocol::kResp2, 2),
            "-ERR value is not an integer or out of range\r\n");
}

TEST_F(ReplicationProtocolTest, ThePromotedHistoryContinuesUnderReplid2) {
  master_.create_backlog();
  h_.Run({"SET", "a", "1"});
  std::string old = master_.identity().replid;
  master_.promote();
  std::string reply =
      h_.RunRaw({"PSYNC", old, "51"}, resp::Protocol::kResp2, kReplica);  // without capa psync2
  EXPECT_EQ(reply, "+CONTINUE\r\n");
}

TEST_F(ReplicationProtocolTest, WaitCountsAcksAndBlocksUntilThem) {
  master_.create_backlog();
  attach_continuing(1);
  h_.Run({"SET", "a", "1"});
  EXPECT_EQ(h_.session().repl_offset, 50);
  h_.Run({"SET", "a", "2"}, resp::Protocol::kResp3, 3);
  int64_t target = master_.offset();
  EXPECT_EQ(h_.session(3).repl_offset, target);
  // Not acknowledged yet: WAIT blocks and asks the replicas.
  replica_out().clear();
  EXPECT_EQ(h_.RunRaw({"WAIT", "1", "1000"}), "");
  EXPECT_TRUE(h_.session().blocked != nullptr);
  EXPECT_EQ(replica_out(), enc({"REPLCONF", "GETACK", "*"}));
  // A second WAIT at the same stream position does not ask again.
  EXPECT_EQ(h_.RunRaw({"WAIT", "1", "1000"}, resp::Protocol::kResp3, 3), "");
  EXPECT_EQ(replica_out(), enc({"REPLCONF", "GETACK", "*"}));
  // The ACK wakes both with the count.
  std::string woken;
  h_.session().out = &woken;
  h_.RunRaw({"REPLCONF", "ACK", std::to_string(target)}, resp::Protocol::kResp2, kReplica);
  h_.dispatcher().after_batch();
  EXPECT_EQ(woken, ":1\r\n");
  EXPECT_EQ(h_.session().blocked, nullptr);
  EXPECT_EQ(h_.session(3).blocked, nullptr);
  // Already covered: at once. More than there are: the count at the timeout.
  EXPECT_EQ(h_.Run2({"WAIT", "1", "0"}), ":1\r\n");
  woken.clear();
  EXPECT_EQ(h_.RunRaw({"WAIT", "2", "100"}), "");
  h_.Advance(100);
  h_.dispatcher().after_batch();
  EXPECT_EQ(woken, ":1\r\n");
}

TEST_F(ReplicationProtocolTest, WaitaofCountsFsyncedAcks) {
  master_.create_backlog();
  attach_continuing(1);
  h_.Run({"SET", "a", "1"});
  std::string target = std::to_string(master_.offset());
  // appendonly no here: numlocal 1 is refused, numlocal 0 counts replicas only.
  EXPECT_EQ(h_.Run2({"WAITAOF", "1", "0", "0"}),
            "-ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.\r\n");
  EXPECT_EQ(h_.Run2({"WAITAOF", "0", "0", "0"}), "*2\r\n:0\r\n:0\r\n");
  replica_out().clear();
  EXPECT_EQ(h_.RunRaw({"WAITAOF", "0", "1", "1000"}), "");
  EXPECT_EQ(replica_out(), enc({"REPLCONF", "GETACK", "*"}));
  std::string woken;
  h_.session().out = &woken;
  // A plain ACK (a replica without an AOF sends no FACK) counts for WAIT, not for WAITAOF.
  h_.RunRaw({"REPLCONF", "ACK", target}, resp::Protocol::kResp2, kReplica);
  h_.dispatcher().after_batch();
  EXPECT_EQ(woken, "");
  EXPECT_NE(h_.session().blocked, nullptr);
  EXPECT_EQ(h_.Run2({"WAIT", "1", "0"}, 3), ":1\r\n");
  h_.RunRaw({"REPLCONF", "ACK", target, "FACK", target}, resp::Protocol::kResp2, kReplica);
  h_.dispatcher().after_batch();
  EXPECT_EQ(woken, "*2\r\n:0\r\n:1\r\n");
  EXPECT_EQ(h_.session().blocked, nullptr);
  EXPECT_EQ(std::to_string(master_.replicas()[0].aof_offset), target);
  // More replicas than there are: the counts at the timeout; inside MULTI at once.
  woken.clear();
  EXPECT_EQ(h_.RunRaw({"WAITAOF", "0", "2", "100"}), "");
  h_.Advance(100);
  h_.dispatcher().after_batch();
  EXPECT_EQ(woken, "*2\r\n:0\r\n:1\r\n");
  EXPECT_EQ(h_.Run2({"MULTI"}, 3), "+OK\r\n");
  EXPECT_EQ(h_.Run2({"WAITAOF", "0", "2", "0"}, 3), "+QUEUED\r\n");
  EXPECT_EQ(h_.Run2({"EXEC"}, 3), "*1\r\n*2\r\n:0\r\n:1\r\n");
  // A replica refuses it.
  master_.set_replica_role(true);
  EXPECT_EQ(h_.Run2({"WAITAOF", "0", "0", "0"}),
            "-ERR WAITAOF cannot be used with replica instances. Please also note that writes to "
            "replicas are just local and are not propagated.\r\n");
  master_.set_replica_role(false);
}

TEST_F(ReplicationProtocolTest, MinReplicasToWrite) {
  ASSERT_EQ(h_.config().set("min-replicas-to-write", "1"), std::nullopt);
  EXPECT_EQ(h_.Run2({"SET", "a", "1"}), "-NOREPLICAS Not enough good replicas to write.\r\n");
  EXPECT_EQ(h_.Run2({"GET", "a"}), "$-1\r\n");
  EXPECT_NE(info().find("min_slaves_good_slaves:0"), std::string::npos);
  master_.create_backlog();
  attach_continuing(1);
  EXPECT_EQ(h_.Run2({"SET", "a", "1"}), "+OK\r\n");
  // Silent for more than min-replicas-max-lag (10 s): not a good replica any more.
  h_.Advance(11000);
  EXPECT_EQ(h_.Run2({"SET", "a", "2"}), "-NOREPLICAS Not enough good replicas to write.\r\n");
  h_.RunRaw({"REPLCONF", "ACK", "1"}, resp::Protocol::kResp2, kReplica);
  EXPECT_EQ(h_.Run2({"SET", "a", "2"}), "+OK\r\n");
}

TEST_F(ReplicationProtocolTest, PingsAndTimeoutsFollowTheClock) {
  master_.create_backlog();
  attach_continuing(1);
  replica_out().clear();
  h_.Advance(10000);
  h_.Cron();
  EXPECT_EQ(replica_out(), enc({"PING"}));
  EXPECT_EQ(master_.offset(), 14);
  // repl-timeout (60 s) without an ACK: the link is closed.
  bool killed = false;
  h_.session(kReplica).kill = [&] { killed = true; };
  h_.Advance(51000);
  h_.Cron();
  EXPECT_TRUE(killed);
}

// A BGSAVE's child running (or an AOF rewrite's): what the master sees of snapshots.
class BusySnapshots final : public cmd::Snapshots {
 public:
  bool busy = true;
  bool save() override { return false; }
  BgsaveStart bgsave(bool, bool) override { return BgsaveStart::kFailed; }
  bool bgsave_in_progress() const override { return busy; }
  int64_t lastsave() const override { return 0; }
  cmd::SnapshotInfo info() const override { return {}; }
  std::string write_error() const override { return {}; }
  void cron(int64_t) override {}
  bool shutdown_save(ShutdownSave) override { return true; }
  Reload reload(bool, bool) override { return Reload::kOk; }
};

TEST_F(ReplicationProtocolTest, AFullSyncWaitsForAnotherChild) {
  BusySnapshots snap;
  h_.server().set_snapshots(&snap);
  bool killed = false;
  h_.session(kReplica).kill = [&] { killed = true; };
  EXPECT_EQ(h_.RunRaw({"PSYNC", "?", "-1"}, resp::Protocol::kResp2, kReplica), "");
  h_.Advance(10000);  // past repl-diskless-sync-delay
  h_.Cron();
  // One fork at a time: no snapshot was attempted (this harness session has no socket, so an
  // attempt would have closed the replica).
  EXPECT_FALSE(killed);
  EXPECT_FALSE(master_.sync_child_active());
  EXPECT_EQ(master_.replicas()[0].state, ReplicaState::kWaitBgsaveStart);
  snap.busy = false;
  h_.Cron();
  EXPECT_TRUE(killed);  // attempted now
  h_.server().set_snapshots(nullptr);
}

TEST_F(ReplicationProtocolTest, AHistoryRestoredFromAnRdbContinuesUnderReplid2) {
  EXPECT_FALSE(master_.rdb_save_info());  // no backlog: nothing for a file to record
  const std::string saved(40, 'b');
  master_.restore_rdb_info({2, saved, 500});
  EXPECT_EQ(master_.identity().replid2, saved);
  EXPECT_EQ(master_.identity().second_offset, 501);
  EXPECT_EQ(master_.offset(), 500);
  EXPECT_NE(master_.identity().replid, saved);
  EXPECT_NE(info().find("master_repl_offset:500\r\nsecond_repl_offset:501"), std::string::npos)
      << info();
  std::optional<cmd::ReplSaveInfo> si = master_.rdb_save_info();
  ASSERT_TRUE(si);
  EXPECT_EQ(si->replid, master_.identity().replid);
  EXPECT_EQ(si->offset, 500);
  EXPECT_EQ(si->stream_db, 0);  // nothing propagated yet: the next unit names its database
  // A replica of the saved history continues with the next byte.
  EXPECT_EQ(
      h_.RunRaw({"REPLCONF", "capa", "eof", "capa", "psync2"}, resp::Protocol::kResp2, kReplica),
      "+OK\r\n");
  EXPECT_EQ(h_.RunRaw({"PSYNC", saved, "501"}, resp::Protocol::kResp2, kReplica),
            "+CONTINUE " + master_.identity().replid + "\r\n");
  h_.Run({"SELECT", "4"});
  h_.Run({"SET", "a", "1"});
  EXPECT_EQ(master_.rdb_save_info()->stream_db, 4);
  EXPECT_EQ(replica_out(), enc({"SELECT", "4"}) + enc({"SET", "a", "1"}));
}

}  // namespace
}  // namespace streamd::repl
