// MULTI / EXEC / DISCARD / WATCH / UNWATCH through dispatch, with several clients and a manual
// clock for watched keys that expire.
#include <gtest/gtest.h>

#include <string>

#include "command_harness.h"

namespace streamd::test {
namespace {

using resp::Protocol;

const std::string kOkReply = "+OK\r\n";
const std::string kQueued = "+QUEUED\r\n";
const std::string kPong1 = "*1\r\n+PONG\r\n";

class TransactionsTest : public ::testing::Test {
 protected:
  std::string Run(const std::vector<std::string>& argv, int client = 0) {
    return h.Run(argv, Protocol::kResp3, client);
  }
  std::string Run2(const std::vector<std::string>& argv, int client = 0) {
    return h.Run(argv, Protocol::kResp2, client);
  }
  // MULTI, one queued command that does not touch keys, EXEC: returns EXEC's reply.
  std::string TryExec(Protocol proto = Protocol::kResp3) {
    EXPECT_EQ(h.Run({"MULTI"}, proto), kOkReply);
    EXPECT_EQ(h.Run({"DBSIZE"}, proto), kQueued);
    return h.Run({"EXEC"}, proto);
  }

  CommandHarness h;
};

TEST_F(TransactionsTest, QueuedCommandsRunInOrder) {
  EXPECT_EQ(Run({"MULTI"}), kOkReply);
  EXPECT_EQ(Run({"SET", "a", "1"}), kQueued);
  EXPECT_EQ(Run({"INCR", "a"}), kQueued);
  EXPECT_EQ(Run({"GET", "nosuch"}), kQueued);
  EXPECT_EQ(Run({"MGET", "a", "nosuch"}), kQueued);
  // Another client sees nothing until EXEC.
  EXPECT_EQ(Run({"GET", "a"}, 2), "_\r\n");
  EXPECT_EQ(Run({"EXEC"}), "*4\r\n+OK\r\n:2\r\n_\r\n*2\r\n$1\r\n2\r\n_\r\n");
  EXPECT_EQ(Run({"GET", "a"}, 2), "$1\r\n2\r\n");
  EXPECT_EQ(Run2({"MULTI"}), kOkReply);
  EXPECT_EQ(Run2({"GET", "nosuch"}), kQueued);
  EXPECT_EQ(Run2({"EXEC"}), "*1\r\n$-1\r\n");
}

TEST_F(TransactionsTest, EmptyDiscardAndMisuse) {
  EXPECT_EQ(Run({"MULTI"}), kOkReply);
  EXPECT_EQ(Run({"EXEC"}), "*0\r\n");
  EXPECT_EQ(Run({"MULTI"}), kOkReply);
  EXPECT_EQ(Run({"SET", "d", "1"}), kQueued);
  EXPECT_EQ(Run({"DISCARD"}), kOkReply);
  EXPECT_EQ(Run({"EXISTS", "d"}), ":0\r\n");
  EXPECT_EQ(Run({"DISCARD"}), "-ERR DISCARD without MULTI\r\n");
  EXPECT_EQ(Run({"EXEC"}), "-ERR EXEC without MULTI\r\n");
  // A nested MULTI is an error that does not abort the transaction.
  EXPECT_EQ(Run({"MULTI"}), kOkReply);
  EXPECT_EQ(Run({"MULTI"}), "-ERR MULTI calls can not be nested\r\n");
  EXPECT_EQ(Run({"WATCH", "x"}), "-ERR WATCH inside MULTI is not allowed\r\n");
  EXPECT_EQ(Run({"SET", "n", "2"}), kQueued);
  EXPECT_EQ(Run({"EXEC"}), "*1\r\n+OK\r\n");
  EXPECT_EQ(Run({"MULTI", "x"}), "-ERR wrong number of arguments for 'multi' command\r\n");
}

TEST_F(TransactionsTest, QueueTimeErrorsAbort) {
  EXPECT_EQ(Run({"MULTI"}), kOkReply);
  EXPECT_EQ(Run({"SET", "q", "1"}), kQueued);
  EXPECT_EQ(Run({"GET"}), "-ERR wrong number of arguments for 'get' command\r\n");
  EXPECT_EQ(Run({"NOSUCHCMD", "x"}),
            "-ERR unknown command 'NOSUCHCMD', with args beginning with: 'x' \r\n");
  EXPECT_EQ(Run({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.\r\n");
  EXPECT_EQ(Run({"EXISTS", "q"}), ":0\r\n");
  // The transaction is over.
  EXPECT_EQ(Run({"EXEC"}), "-ERR EXEC without MULTI\r\n");
}

// Commands flagged no-multi are refused when queued (redis-server 7.0.15's text) and abort the
// transaction, as SAVE, SHUTDOWN, SYNC and PSYNC do there; BGSAVE may be queued.
TEST_F(TransactionsTest, NoMultiCommandsAreRefusedWhenQueued) {
  const std::string refused = "-ERR Command not allowed inside a transaction\r\n";
  for (const char* cmd : {"SAVE", "SHUTDOWN", "SYNC"}) {
    EXPECT_EQ(Run({"MULTI"}), kOkReply);
    EXPECT_EQ(Run({"SET", "q", "1"}), kQueued);
    EXPECT_EQ(Run({cmd}), refused) << cmd;
    EXPECT_EQ(Run({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.\r\n");
    EXPECT_EQ(Run({"EXISTS", "q"}), ":0\r\n");
  }
  EXPECT_EQ(Run({"MULTI"}), kOkReply);
  EXPECT_EQ(Run({"PSYNC", "?", "-1"}), refused);
  EXPECT_EQ(Run({"BGSAVE"}), kQueued);
  EXPECT_EQ(Run({"DISCARD"}), kOkReply);
}

TEST_F(TransactionsTest, RunTimeErrorsDoNotAbort) {
  Run({"SET", "str", "notanumber"});
  EXPECT_EQ(Run({"MULTI"}), kOkReply);
  EXPECT_EQ(Run({"INCR", "str"}), kQueued);
  EXPECT_EQ(Run({"SET", "ok", "1"}), kQueued);
  EXPECT_EQ(Run({"INCRBY", "ok", "abc"}), kQueued);
  EXPECT_EQ(Run({"EXEC"}),
            "*3\r\n-ERR value is not an integer or out of range\r\n+OK\r\n"
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"GET", "ok"}), "$1\r\n1\r\n");
  // Each queued command is accounted for on its own.
  EXPECT_EQ(h.server().stats().commands["incr"].failed_calls, 1u);
  EXPECT_EQ(h.server().stats().commands["exec"].failed_calls, 0u);
}

TEST_F(TransactionsTest, WatchBrokenByAnotherClient) {
  Run({"SET", "k", "1"});
  EXPECT_EQ(Run({"WATCH", "k"}), kOkReply);
  Run({"SET", "k", "2"}, 2);
  EXPECT_EQ(Run({"MULTI"}), kOkReply);
  EXPECT_EQ(Run({"SET", "k", "3"}), kQueued);
  EXPECT_EQ(Run({"EXEC"}), "_\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\n2\r\n");
  // RESP2 spells the aborted EXEC as a null array.
  Run({"WATCH", "k"});
  Run({"SET", "k", "4"});  // our own write breaks it too
  EXPECT_EQ(TryExec(Protocol::kResp2), "*-1\r\n");
}

TEST_F(TransactionsTest, UntouchedWatchRunsAndExecUnwatches) {
  Run({"SET", "k", "1"});
  Run({"WATCH", "k", "missing"});
  EXPECT_EQ(TryExec(), "*1\r\n:1\r\n");
  // EXEC cleared the watched keys: a later write does not matter.
  Run({"SET", "k", "10"}, 2);
  EXPECT_EQ(TryExec(), "*1\r\n:1\r\n");
  // UNWATCH and DISCARD also clear them.
  Run({"WATCH", "k"});
  Run({"SET", "k", "20"}, 2);
  EXPECT_EQ(Run({"UNWATCH"}), kOkReply);
  EXPECT_EQ(TryExec(), "*1\r\n:1\r\n");
  Run({"WATCH", "k"});
  Run({"MULTI"});
  Run({"DISCARD"});
  Run({"SET", "k", "30"}, 2);
  EXPECT_EQ(TryExec(), "*1\r\n:1\r\n");
}

TEST_F(TransactionsTest, WatchOfMissingKeyAndFailedWrites) {
  Run({"WATCH", "missing"});
  Run({"DEL", "missing"}, 2);  // deleting nothing is not a write
  Run({"EXPIRE", "missing", "10"}, 2);
  EXPECT_EQ(TryExec(), "*1\r\n:0\r\n");
  Run({"SET", "s", "notanumber"});
  Run({"WATCH", "s"});
  EXPECT_EQ(Run({"INCR", "s"}, 2), "-ERR value is not an integer or out of range\r\n");
  Run({"SET", "s", "v", "NX"}, 2);
  EXPECT_EQ(TryExec(), "*1\r\n:1\r\n");
  Run({"WATCH", "missing"});
  Run({"SET", "missing", "now"}, 2);
  EXPECT_EQ(TryExec(), "_\r\n");
}

TEST_F(TransactionsTest, WatchBrokenByLazyExpiry) {
  Run({"SET", "exp", "v", "PX", "50"});
  Run({"WATCH", "exp"});
  h.Advance(100);
  // Nothing has looked at the key since it expired; EXEC still notices.
  EXPECT_EQ(TryExec(), "_\r\n");
}

TEST_F(TransactionsTest, WatchBrokenByActiveExpiry) {
  Run({"SET", "exp", "v", "PX", "50"});
  Run({"WATCH", "exp"});
  h.Advance(100);
  for (int i = 0; i < 20 && h.server().keyspace().db(0).size() > 0; ++i) h.Cron();
  ASSERT_EQ(h.server().keyspace().db(0).size(), 0u);
  EXPECT_EQ(TryExec(), "_\r\n");
}

TEST_F(TransactionsTest, KeyAlreadyExpiredWhenWatchedDoesNotBreak) {
  Run({"SET", "exp", "v", "PX", "50"});
  h.Advance(100);
  Run({"WATCH", "exp"});
  EXPECT_EQ(TryExec(), "*1\r\n:0\r\n");
}

TEST_F(TransactionsTest, WatchBrokenByFlushes) {
  Run({"SET", "f", "v"});
  Run({"WATCH", "f"});
  Run({"FLUSHALL"}, 2);
  EXPECT_EQ(TryExec(), "_\r\n");
  Run({"SET", "f", "v"});
  Run({"WATCH", "f"});
  Run({"FLUSHDB"}, 2);
  EXPECT_EQ(TryExec(), "_\r\n");
  // A key that did not exist is not touched by a flush.
  Run({"WATCH", "emptykey"});
  Run({"FLUSHDB"}, 2);
  EXPECT_EQ(TryExec(), "*1\r\n:0\r\n");
}

TEST_F(TransactionsTest, WatchIsPerDatabase) {
  Run({"SET", "dbk", "v"});
  Run({"WATCH", "dbk"});
  h.session(2).db = 5;
  Run({"SET", "dbk", "other"}, 2);
  EXPECT_EQ(TryExec(), "*1\r\n:1\r\n");
}

TEST_F(TransactionsTest, WatchBrokenBySwapdb) {
  Run({"SET", "sw", "v"});
  Run({"WATCH", "sw"});
  Run({"SWAPDB", "0", "1"}, 2);
  EXPECT_EQ(TryExec(), "_\r\n");
  // A watched key that appears through the swap also breaks the transaction.
  Run({"SWAPDB", "0", "1"}, 2);  // "sw" back in db 0, db 1 empty
  Run({"MOVE", "sw", "1"});
  Run({"WATCH", "sw"});
  Run({"SWAPDB", "0", "1"}, 2);
  EXPECT_EQ(TryExec(), "_\r\n");
}

TEST_F(TransactionsTest, WatchBrokenByKeyspaceWrites) {
  for (const auto& write : std::vector<std::vector<std::string>>{{"EXPIRE", "e", "100"},
                                                                 {"DEL", "e"},
                                                                 {"RENAME", "e", "e2"},
                                                                 {"APPEND", "e", "x"},
                                                                 {"GETDEL", "e"},
                                                                 {"GETEX", "e", "EX", "5"},
                                                                 {"COPY", "src", "e", "REPLACE"},
                                                                 {"INCRBYFLOAT", "e", "1"}}) {
    Run({"SET", "e", "1"});
    Run({"SET", "src", "1"});
    Run({"WATCH", "e"});
    Run(write, 2);
    EXPECT_EQ(TryExec(), "_\r\n") << write[0];
  }
  // PERSIST only counts when there was a TTL to remove.
  Run({"FLUSHALL"});
  Run({"SET", "e", "1"});
  Run({"WATCH", "e"});
  EXPECT_EQ(Run({"PERSIST", "e"}, 2), ":0\r\n");
  EXPECT_EQ(TryExec(), "*1\r\n:1\r\n");
}

TEST_F(TransactionsTest, ExecClearsStateAfterAbort) {
  Run({"SET", "k", "1"});
  Run({"WATCH", "k"});
  Run({"SET", "k", "2"}, 2);
  EXPECT_EQ(TryExec(), "_\r\n");
  EXPECT_TRUE(h.session().watched.empty());
  EXPECT_FALSE(h.session().dirty_cas);
  EXPECT_EQ(TryExec(), "*1\r\n:1\r\n");
}

TEST_F(TransactionsTest, BlockingCommandInsideExecDoesNotBlock) {
  EXPECT_EQ(Run({"MULTI"}), kOkReply);
  EXPECT_EQ(Run({"XREAD", "BLOCK", "0", "STREAMS", "nosuch", "$"}), kQueued);
  EXPECT_EQ(Run({"SET", "after", "1"}), kQueued);
  // XREAD answers at once (null) instead of parking the client inside the transaction.
  EXPECT_EQ(Run({"EXEC"}), "*2\r\n_\r\n+OK\r\n");
  EXPECT_FALSE(h.session().executing);
  EXPECT_EQ(h.session().blocked, nullptr);
}

// Every way a transaction ends goes through Session::reset_transaction: queue, MULTI flags and
// the server's index of watched keys are all gone afterwards.
TEST_F(TransactionsTest, EveryEndOfATransactionDropsQueueFlagsAndWatches) {
  struct Ending {
    const char* name;
    std::vector<std::string> argv;  // empty: the connection closes
  };
  const Ending endings[] = {{"EXEC", {"EXEC"}},
                            {"DISCARD", {"DISCARD"}},
                            {"RESET", {"RESET"}},
                            {"rejected EXEC", {"EXEC", "extra"}},
                            {"closed connection", {}}};
  int client = 10;
  for (const Ending& e : endings) {
    SCOPED_TRACE(e.name);
    ++client;
    EXPECT_EQ(Run({"WATCH", "k", "j"}, client), kOkReply);
    EXPECT_EQ(Run({"MULTI"}, client), kOkReply);
    EXPECT_EQ(Run({"NOSUCHCOMMAND"}, client).substr(0, 5), "-ERR ");  // sets multi_error
    EXPECT_EQ(Run({"SET", "k", "1"}, client), kQueued);
    ASSERT_EQ(h.server().watched_keys(), 2u);
    cmd::Session& s = h.session(client);
    if (e.argv.empty()) {
      h.server().remove_session(s.id);
      EXPECT_EQ(h.server().watched_keys(), 0u);
      continue;
    }
    h.RunRaw(e.argv, Protocol::kResp3, client);
    EXPECT_FALSE(s.in_multi);
    EXPECT_FALSE(s.multi_error);
    EXPECT_TRUE(s.queued.empty());
    EXPECT_TRUE(s.watched.empty());
    EXPECT_EQ(h.server().watched_keys(), 0u);
  }
}

}  // namespace
}  // namespace streamd::test
