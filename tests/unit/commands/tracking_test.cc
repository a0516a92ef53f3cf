// Client-side caching through dispatch: what CLIENT TRACKING remembers, which client gets which
// invalidation and in which protocol, REDIRECT (RESP3 push or RESP2 pub/sub message, broken
// redirects), BCAST batching, OPTIN/OPTOUT, FLUSHALL, expiry, the table limit and the counters.
// Frames are those redis-server 7.0.15 sends (tests/differential/scripts/tracking*.txt compare
// the single-connection cases with it; REDIRECT needs ids, so it is checked here and in
// tests/integration/test_tracking.py).
#include <gtest/gtest.h>

#include <string>

#include "command_harness.h"

namespace streamd::test {
namespace {

using resp::Protocol;

const std::string kInvalidateA = ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\na\r\n";

class TrackingTest : public ::testing::Test {
 protected:
  // Gives client `c` an output buffer for what others' commands send it.
  std::string& Inbox(int c) {
    h.session(c).out = &inbox[c];
    return inbox[c];
  }
  std::string Raw(const std::vector<std::string>& argv, Protocol p, int c = 0) {
    return h.RunRaw(argv, p, c);
  }
  std::string Id(int c) { return std::to_string(h.session(c).id); }
  CommandHarness h;
  std::string inbox[4];
};

TEST_F(TrackingTest, ReadKeysAreInvalidatedOnceByOthersWrites) {
  std::string& in = Inbox(0);
  EXPECT_EQ(Raw({"CLIENT", "TRACKING", "on"}, Protocol::kResp3), "+OK\r\n");
  Raw({"GET", "a"}, Protocol::kResp3);
  Raw({"MGET", "b", "c"}, Protocol::kResp3);
  EXPECT_EQ(h.server().tracking().keys(), 3u);
  EXPECT_EQ(h.server().tracking().items(), 3u);
  Raw({"SET", "a", "1"}, Protocol::kResp3, 1);
  EXPECT_EQ(in, kInvalidateA);
  in.clear();
  Raw({"SET", "a", "2"}, Protocol::kResp3, 1);  // forgotten until read again
  EXPECT_EQ(in, "");
  // A command that reads a key twice, or two clients reading it, count once per client.
  Raw({"MGET", "a", "a"}, Protocol::kResp3);
  Raw({"CLIENT", "TRACKING", "on"}, Protocol::kResp3, 2);
  Raw({"GET", "a"}, Protocol::kResp3, 2);
  EXPECT_EQ(h.server().tracking().items(), 4u);  // a twice, b, c
  std::string& in2 = Inbox(2);
  Raw({"DEL", "a"}, Protocol::kResp3, 1);
  EXPECT_EQ(in, kInvalidateA);
  EXPECT_EQ(in2, kInvalidateA);
  // A write command's keys are not remembered; a missing key deleted sends nothing.
  in.clear();
  Raw({"DEL", "zz"}, Protocol::kResp3);
  Raw({"SET", "zz", "1"}, Protocol::kResp3, 1);
  EXPECT_EQ(in, "");
}

TEST_F(TrackingTest, OwnWriteIsToldAfterItsReplyUnlessNoloop) {
  Raw({"CLIENT", "TRACKING", "on"}, Protocol::kResp3);
  Raw({"GET", "a"}, Protocol::kResp3);
  EXPECT_EQ(Raw({"SET", "a", "1"}, Protocol::kResp3), "+OK\r\n" + kInvalidateA);
  // In a transaction: after EXEC's whole reply.
  Raw({"GET", "a"}, Protocol::kResp3);
  Raw({"MULTI"}, Protocol::kResp3);
  Raw({"SET", "a", "2"}, Protocol::kResp3);
  Raw({"GET", "a"}, Protocol::kResp3);
  EXPECT_EQ(Raw({"EXEC"}, Protocol::kResp3), "*2\r\n+OK\r\n$1\r\n2\r\n" + kInvalidateA);
  EXPECT_EQ(Raw({"CLIENT", "TRACKING", "on", "noloop"}, Protocol::kResp3), "+OK\r\n");
  Raw({"GET", "a"}, Protocol::kResp3);
  EXPECT_EQ(Raw({"SET", "a", "3"}, Protocol::kResp3), "+OK\r\n");
  std::string& in = Inbox(0);
  Raw({"GET", "a"}, Protocol::kResp3);
  in.clear();
  Raw({"SET", "a", "4"}, Protocol::kResp3, 1);
  EXPECT_EQ(in, kInvalidateA);
}

TEST_F(TrackingTest, Resp2WithoutRedirectGetsNothing) {
  std::string& in = Inbox(0);
  EXPECT_EQ(Raw({"CLIENT", "TRACKING", "on"}, Protocol::kResp2), "+OK\r\n");
  Raw({"GET", "a"}, Protocol::kResp2);
  Raw({"SET", "a", "1"}, Protocol::kResp2, 1);
  Raw({"FLUSHALL"}, Protocol::kResp2, 1);
  EXPECT_EQ(in, "");
  EXPECT_EQ(h.server().tracking().keys(), 0u);
}

TEST_F(TrackingTest, RedirectToResp3AndToResp2Subscriber) {
  // Client 1 is a RESP2 subscriber (any channel puts it in pub/sub mode), client 2 a RESP3 one.
  Raw({"SUBSCRIBE", "__redis__:invalidate"}, Protocol::kResp2, 1);
  Raw({"PING"}, Protocol::kResp3, 2);
  std::string& in1 = Inbox(1);
  std::string& in2 = Inbox(2);
  std::string& in0 = Inbox(0);
  EXPECT_EQ(Raw({"CLIENT", "TRACKING", "on", "redirect", Id(1)}, Protocol::kResp2), "+OK\r\n");
  EXPECT_EQ(Raw({"CLIENT", "GETREDIR"}, Protocol::kResp2), ":" + Id(1) + "\r\n");
  Raw({"GET", "a"}, Protocol::kResp2);
  Raw({"SET", "a", "1"}, Protocol::kResp2, 3);
  EXPECT_EQ(in1, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\na\r\n");
  // FLUSHALL's null is in the tracking client's protocol (RESP2: *-1), as Redis picks it.
  in1.clear();
  Raw({"FLUSHALL"}, Protocol::kResp2, 3);
  EXPECT_EQ(in1, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*-1\r\n");
  // The tracking client's own write: the redirect client is told at once.
  EXPECT_EQ(Raw({"CLIENT", "TRACKING", "on", "redirect", Id(2)}, Protocol::kResp2), "+OK\r\n");
  Raw({"GET", "a"}, Protocol::kResp2);
  EXPECT_EQ(Raw({"SET", "a", "2"}, Protocol::kResp2), "+OK\r\n");
  EXPECT_EQ(in2, kInvalidateA);
  EXPECT_EQ(in0, "");
}

TEST_F(TrackingTest, BrokenRedirectIsReportedAndFlagged) {
  Raw({"PING"}, Protocol::kResp3, 1);
  std::string id1 = Id(1);
  std::string& in = Inbox(0);
  Raw({"CLIENT", "TRACKING", "on", "redirect", id1}, Protocol::kResp3);
  Raw({"GET", "a"}, Protocol::kResp3);
  h.server().remove_session(h.session(1).id);
  Raw({"SET", "a", "1"}, Protocol::kResp3, 2);
  EXPECT_EQ(in, ">2\r\n$21\r\ntracking-redir-broken\r\n:" + id1 + "\r\n");
  std::string info = Raw({"CLIENT", "TRACKINGINFO"}, Protocol::kResp3);
  EXPECT_EQ(info,
            "%3\r\n$5\r\nflags\r\n~2\r\n$2\r\non\r\n$15\r\nbroken_redirect\r\n$8\r\nredirect\r\n:" +
                id1 + "\r\n$8\r\nprefixes\r\n*0\r\n");
  std::string line = Raw({"CLIENT", "INFO"}, Protocol::kResp2);
  EXPECT_NE(line.find(" flags=tR "), std::string::npos) << line;
  EXPECT_NE(line.find(" redir=" + id1 + " "), std::string::npos) << line;
  EXPECT_EQ(Raw({"CLIENT", "TRACKING", "on", "redirect", "999"}, Protocol::kResp3),
            "-ERR The client ID you want redirect to does not exist\r\n");
}

TEST_F(TrackingTest, OptinOptoutAndCachingScope) {
  std::string& in = Inbox(0);
  Raw({"CLIENT", "TRACKING", "on", "optin"}, Protocol::kResp3);
  Raw({"GET", "x"}, Protocol::kResp3);
  EXPECT_EQ(h.server().tracking().keys(), 0u);
  Raw({"CLIENT", "CACHING", "yes"}, Protocol::kResp3);
  Raw({"CLIENT", "GETREDIR"}, Protocol::kResp3);  // a CLIENT subcommand keeps CACHING
  Raw({"GET", "x"}, Protocol::kResp3);
  Raw({"GET", "y"}, Protocol::kResp3);  // CACHING covered one command only
  EXPECT_EQ(h.server().tracking().keys(), 1u);
  Raw({"SET", "x", "1"}, Protocol::kResp3, 1);
  EXPECT_EQ(in, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nx\r\n");
  EXPECT_TRUE(h.session(0).tracking.caching == false);
  Raw({"CLIENT", "TRACKING", "off"}, Protocol::kResp3);
  Raw({"CLIENT", "TRACKING", "on", "optout"}, Protocol::kResp3);
  EXPECT_EQ(Raw({"CLIENT", "CACHING", "no"}, Protocol::kResp3), "+OK\r\n");
  Raw({"GET", "z"}, Protocol::kResp3);
  EXPECT_EQ(h.server().tracking().keys(), 0u);
  Raw({"GET", "z"}, Protocol::kResp3);
  EXPECT_EQ(h.server().tracking().keys(), 1u);
}

TEST_F(TrackingTest, BroadcastSendsEachPrefixsKeysOncePerBatch) {
  Raw({"PING"}, Protocol::kResp3, 1);
  std::string& in = Inbox(0);
  std::string& in1 = Inbox(1);
  Raw({"CLIENT", "TRACKING", "on", "bcast", "prefix", "user:", "prefix", "job:"}, Protocol::kResp3);
  Raw({"CLIENT", "TRACKING", "on", "bcast", "noloop"}, Protocol::kResp3, 1);
  EXPECT_EQ(h.server().tracking().prefixes(), 3u);
  Raw({"MSET", "user:2", "a", "user:1", "b", "other", "c"}, Protocol::kResp3, 1);
  Raw({"SET", "user:2", "d"}, Protocol::kResp3, 2);
  EXPECT_EQ(in, "");  // collected until the batch ends
  h.dispatcher().after_batch();
  EXPECT_EQ(in, ">2\r\n$10\r\ninvalidate\r\n*2\r\n$6\r\nuser:1\r\n$6\r\nuser:2\r\n");
  // NOLOOP: client 1 hears of user:2 (client 2 changed it last) but not of its own keys.
  EXPECT_EQ(in1, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$6\r\nuser:2\r\n");
  in.clear();
  h.dispatcher().after_batch();
  EXPECT_EQ(in, "");
  // Nothing is remembered per key in BCAST mode.
  Raw({"GET", "user:1"}, Protocol::kResp3);
  EXPECT_EQ(h.server().tracking().keys(), 0u);
  Raw({"CLIENT", "TRACKING", "off"}, Protocol::kResp3, 1);
  EXPECT_EQ(h.server().tracking().prefixes(), 2u);
  std::string line = Raw({"CLIENT", "INFO"}, Protocol::kResp2);
  EXPECT_NE(line.find(" flags=tB "), std::string::npos) << line;
  EXPECT_NE(line.find(" redir=0 "), std::string::npos) << line;
}

TEST_F(TrackingTest, ExpiryEvictionAndFlushInvalidate) {
  std::string& in = Inbox(0);
  Raw({"CLIENT", "TRACKING", "on"}, Protocol::kResp3);
  Raw({"SET", "e", "v", "PX", "100"}, Protocol::kResp3, 1);
  Raw({"GET", "e"}, Protocol::kResp3);
  h.Advance(200);
  Raw({"GET", "e"}, Protocol::kResp3, 1);  // lazy expiry by another client's read
  EXPECT_EQ(in, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\ne\r\n");
  in.clear();
  // Active expiry (cron).
  Raw({"SET", "f", "v", "PX", "100"}, Protocol::kResp3, 1);
  Raw({"GET", "f"}, Protocol::kResp3);
  h.Advance(200);
  h.Cron();
  EXPECT_EQ(in, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nf\r\n");
  in.clear();
  // FLUSHDB of another database still flushes every tracked key (tracking is by name only).
  Raw({"GET", "g"}, Protocol::kResp3);
  Raw({"SELECT", "3"}, Protocol::kResp3, 1);
  Raw({"FLUSHDB"}, Protocol::kResp3, 1);
  EXPECT_EQ(in, ">2\r\n$10\r\ninvalidate\r\n_\r\n");
  EXPECT_EQ(h.server().tracking().keys(), 0u);
  in.clear();
  Raw({"FLUSHALL"}, Protocol::kResp3, 1);  // one null, not one per database
  EXPECT_EQ(in, ">2\r\n$10\r\ninvalidate\r\n_\r\n");
}

TEST_F(TrackingTest, TableLimitForgetsKeysAndTellsReaders) {
  std::string& in = Inbox(0);
  Raw({"CONFIG", "SET", "tracking-table-max-keys", "2"}, Protocol::kResp3, 1);
  Raw({"CLIENT", "TRACKING", "on"}, Protocol::kResp3);
  Raw({"MGET", "k1", "k2", "k3", "k4", "k5"}, Protocol::kResp3);
  EXPECT_EQ(h.server().tracking().keys(), 5u);
  h.Cron();
  EXPECT_EQ(h.server().tracking().keys(), 2u);
  // Three single-key invalidations, keys in the table's order.
  std::size_t pushes = 0;
  for (std::size_t at = 0;
       (at = in.find(">2\r\n$10\r\ninvalidate\r\n*1\r\n", at)) != std::string::npos; ++at) {
    ++pushes;
  }
  EXPECT_EQ(pushes, 3u) << in;
  std::string info = Raw({"INFO", "stats"}, Protocol::kResp2);
  EXPECT_NE(info.find("tracking_total_keys:2\r\n"), std::string::npos);
  EXPECT_NE(info.find("tracking_total_items:2\r\n"), std::string::npos);
  EXPECT_NE(Raw({"INFO", "clients"}, Protocol::kResp2).find("tracking_clients:1\r\n"),
            std::string::npos);
}

TEST_F(TrackingTest, ResetAndDisconnectTurnTrackingOff) {
  Raw({"CLIENT", "TRACKING", "on", "bcast", "prefix", "p"}, Protocol::kResp3);
  Raw({"CLIENT", "TRACKING", "on", "optin"}, Protocol::kResp3, 1);
  EXPECT_EQ(h.server().tracking().clients(), 2u);
  EXPECT_EQ(Raw({"RESET"}, Protocol::kResp3), "+RESET\r\n");
  EXPECT_EQ(h.server().tracking().clients(), 1u);
  EXPECT_EQ(h.server().tracking().prefixes(), 0u);
  EXPECT_EQ(Raw({"CLIENT", "GETREDIR"}, Protocol::kResp2), ":-1\r\n");
  h.server().remove_session(h.session(1).id);
  EXPECT_EQ(h.server().tracking().clients(), 0u);
}

}  // namespace
}  // namespace streamd::test
