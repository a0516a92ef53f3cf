// XRANGE, XREVRANGE and XREAD (immediate, and BLOCK through the dispatcher's blocking registry
// on the manual clock) run in-process in both protocols. Expected replies were checked against
// redis-server 7.0.15.
#include "stream_handler_fixture.h"

namespace streamd::cmd {
namespace {

using resp::Protocol;

class StreamReadTest : public StreamHandlerTest {
 protected:
  void SetUp() override {
    for (int i = 1; i <= 4; ++i) {
      h.Run({"XADD", "s", std::to_string(i) + "-1", "f", std::to_string(i)});
    }
  }
  // [id, [f, v]] as XRANGE, XREAD and XINFO render one entry of this fixture's stream.
  static std::string Entry(int i) {
    std::string id = std::to_string(i) + "-1";
    return "*2\r\n" + Bulk(id) + "*2\r\n$1\r\nf\r\n" + Bulk(std::to_string(i));
  }
  static std::string Entries(std::initializer_list<int> ids) {
    std::string out = "*" + std::to_string(ids.size()) + "\r\n";
    for (int i : ids) out += Entry(i);
    return out;
  }
};

TEST_F(StreamReadTest, RangesInBothDirections) {
  EXPECT_EQ(Both({"XRANGE", "s", "-", "+"}), Entries({1, 2, 3, 4}));
  EXPECT_EQ(Both({"XREVRANGE", "s", "+", "-"}), Entries({4, 3, 2, 1}));
  // A bare ms is ms-0 as a start and ms-max as an end.
  EXPECT_EQ(Both({"XRANGE", "s", "2", "3"}), Entries({2, 3}));
  EXPECT_EQ(Both({"XREVRANGE", "s", "3", "2"}), Entries({3, 2}));
  EXPECT_EQ(Both({"XRANGE", "s", "3", "2"}), "*0\r\n");
  EXPECT_EQ(Both({"XRANGE", "s", "+", "-"}), "*0\r\n");
  EXPECT_EQ(Both({"XRANGE", "nokey", "-", "+"}), "*0\r\n");
}

TEST_F(StreamReadTest, ExclusiveRanges) {
  EXPECT_EQ(Both({"XRANGE", "s", "(1-1", "(4-1"}), Entries({2, 3}));
  EXPECT_EQ(Both({"XREVRANGE", "s", "(4-1", "(1-1"}), Entries({3, 2}));
  // "(1" excludes 1-0 (so 1-1 is in), "(4" excludes 4-max (so 4-1 is in).
  EXPECT_EQ(Both({"XRANGE", "s", "(1", "(4"}), Entries({1, 2, 3, 4}));
  EXPECT_EQ(Both({"XRANGE", "s", "-", "(0"}), "*0\r\n");
  // Nothing is above the maximal ID or below 0-0; "(-" is not an ID at all.
  EXPECT_EQ(Both({"XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"}),
            "-ERR invalid start ID for the interval\r\n");
  EXPECT_EQ(Both({"XRANGE", "s", "-", "(0-0"}), "-ERR invalid end ID for the interval\r\n");
  EXPECT_EQ(Both({"XRANGE", "s", "(-", "+"}), kInvalidId);
  // The start is checked first, wherever the command writes it.
  EXPECT_EQ(Both({"XREVRANGE", "s", "(0-0", "(18446744073709551615-18446744073709551615"}),
            "-ERR invalid start ID for the interval\r\n");
}

TEST_F(StreamReadTest, Count) {
  EXPECT_EQ(Both({"XRANGE", "s", "-", "+", "COUNT", "2"}), Entries({1, 2}));
  EXPECT_EQ(Both({"XREVRANGE", "s", "+", "-", "count", "2"}), Entries({4, 3}));
  // The last COUNT wins; COUNT 0 or below is a null array.
  EXPECT_EQ(Both({"XRANGE", "s", "-", "+", "COUNT", "1", "COUNT", "2"}), Entries({1, 2}));
  EXPECT_EQ(h.Run2({"XRANGE", "s", "-", "+", "COUNT", "0"}), "*-1\r\n");
  EXPECT_EQ(h.Run({"XRANGE", "s", "-", "+", "COUNT", "-5"}), "_\r\n");
  // ... but a missing key is an empty array whatever the COUNT.
  EXPECT_EQ(Both({"XRANGE", "nokey", "-", "+", "COUNT", "0"}), "*0\r\n");
}

TEST_F(StreamReadTest, RangeErrorsInRedisOrder) {
  EXPECT_EQ(Both({"XRANGE", "s", "-", "+", "COUNT"}), kSyntax);
  EXPECT_EQ(Both({"XRANGE", "s", "-", "+", "LIMIT", "1"}), kSyntax);
  EXPECT_EQ(Both({"XRANGE", "s", "-", "+", "COUNT", "1", "FOO"}), kSyntax);
  EXPECT_EQ(Both({"XRANGE", "s", "-", "+", "COUNT", "x"}), kNotInteger);
  EXPECT_EQ(Both({"XRANGE", "s", "-", "+", "COUNT", "99999999999999999999"}), kNotInteger);
  EXPECT_EQ(Both({"XRANGE", "s", "x", "+"}), kInvalidId);
  EXPECT_EQ(Both({"XRANGE", "s", "-", "x"}), kInvalidId);
  // The IDs before COUNT, and everything before the type check.
  EXPECT_EQ(Both({"XRANGE", "s", "x", "+", "COUNT", "x"}), kInvalidId);
  h.Run({"SET", "str", "x"});
  EXPECT_EQ(Both({"XRANGE", "str", "x", "+"}), kInvalidId);
  EXPECT_EQ(Both({"XRANGE", "str", "-", "+"}), kWrongType);
}

TEST_F(StreamReadTest, XreadImmediate) {
  // Streams with nothing after their ID (or missing) are left out of the reply.
  EXPECT_EQ(h.Run2({"XREAD", "COUNT", "1", "STREAMS", "s", "nokey", "2-1", "0"}),
            "*1\r\n*2\r\n$1\r\ns\r\n" + Entries({3}));
  EXPECT_EQ(h.Run({"XREAD", "COUNT", "1", "STREAMS", "s", "nokey", "2-1", "0"}),
            "%1\r\n$1\r\ns\r\n" + Entries({3}));
  h.Run({"XADD", "t", "9-1", "g", "h"});
  // A bare ms is ms-0: "3" reads from 3-1 on.
  EXPECT_EQ(h.Run({"XREAD", "STREAMS", "s", "t", "3-1", "0-0"}),
            "%2\r\n$1\r\ns\r\n" + Entries({4}) + "$1\r\nt\r\n*1\r\n*2\r\n" + Bulk("9-1") +
                "*2\r\n$1\r\ng\r\n$1\r\nh\r\n");
  // `$` is the stream's last ID: nothing to read without BLOCK.
  EXPECT_EQ(h.Run2({"XREAD", "STREAMS", "s", "$"}), "*-1\r\n");
  EXPECT_EQ(h.Run({"XREAD", "STREAMS", "s", "$"}), "_\r\n");
  // COUNT 0 is no limit.
  EXPECT_EQ(h.Run({"XREAD", "COUNT", "0", "STREAMS", "s", "3"}),
            "%1\r\n$1\r\ns\r\n" + Entries({3, 4}));
}

TEST_F(StreamReadTest, XreadErrors) {
  EXPECT_EQ(Both({"XREAD", "STREAMS", "s"}),
            "-ERR wrong number of arguments for 'xread' command\r\n");
  EXPECT_EQ(Both({"XREAD", "STREAMS", "s", "t", "0"}),
            "-ERR Unbalanced 'xread' list of streams: for each stream key an ID, '+', or '$' must "
            "be specified.\r\n");
  EXPECT_EQ(Both({"XREAD", "COUNT", "x", "STREAMS", "s", "0"}), kNotInteger);
  EXPECT_EQ(Both({"XREAD", "BLOCK", "-1", "STREAMS", "s", "0"}), "-ERR timeout is negative\r\n");
  EXPECT_EQ(Both({"XREAD", "BLOCK", "x", "STREAMS", "s", "0"}),
            "-ERR timeout is not an integer or out of range\r\n");
  EXPECT_EQ(Both({"XREAD", "NOACK", "STREAMS", "s", "0"}),
            "-ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.\r\n");
  EXPECT_EQ(Both({"XREAD", "GROUP", "g", "c", "STREAMS", "s", "0"}),
            "-ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.\r\n");
  EXPECT_EQ(Both({"XREAD", "STREAMS", "s", ">"}),
            "-ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
            "<consumer> option.\r\n");
  EXPECT_EQ(Both({"XREAD", "COUNT", "1", "FOO", "STREAMS", "s", "0"}), kSyntax);
  EXPECT_EQ(Both({"XREAD", "COUNT", "1", "s", "0"}), kSyntax);  // no STREAMS
  EXPECT_EQ(Both({"XREAD", "STREAMS", "s", "bad"}), kInvalidId);
  // A bad ID fails the command even when an earlier stream has entries.
  EXPECT_EQ(Both({"XREAD", "STREAMS", "s", "s", "0", "bad"}), kInvalidId);
}

TEST_F(StreamReadTest, XreadBlockTimesOutOnTheClock) {
  std::string out;
  h.session(0).out = &out;
  EXPECT_EQ(h.RunRaw({"XREAD", "BLOCK", "100", "STREAMS", "s", "$"}, Protocol::kResp2), "");
  EXPECT_NE(h.session(0).blocked, nullptr);
  h.Advance(99);
  h.dispatcher().after_batch();
  EXPECT_EQ(out, "");
  h.Advance(1);
  h.dispatcher().after_batch();
  EXPECT_EQ(out, "*-1\r\n");
  EXPECT_EQ(h.session(0).blocked, nullptr);
  // RESP3's timeout is a null.
  out.clear();
  EXPECT_EQ(h.RunRaw({"XREAD", "BLOCK", "5", "STREAMS", "nokey", "0"}), "");
  h.Advance(5);
  h.dispatcher().after_batch();
  EXPECT_EQ(out, "_\r\n");
}

TEST_F(StreamReadTest, XreadBlockWokenByAnAdd) {
  std::string out;
  h.session(0).out = &out;
  // `$` stands for 4-1, the last ID when the read blocked: only later entries are served, and
  // COUNT still applies when the woken read runs again.
  EXPECT_EQ(h.RunRaw({"XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", "nokey", "s", "$", "$"}), "");
  h.Advance(1000000);  // BLOCK 0 waits forever
  h.dispatcher().after_batch();
  EXPECT_EQ(out, "");
  h.Run({"MULTI"}, Protocol::kResp3, 1);
  h.Run({"XADD", "s", "5-1", "f", "5"}, Protocol::kResp3, 1);
  h.Run({"XADD", "s", "6-1", "f", "6"}, Protocol::kResp3, 1);
  h.Run({"EXEC"}, Protocol::kResp3, 1);
  h.dispatcher().after_batch();
  EXPECT_EQ(out, "%1\r\n$1\r\ns\r\n" + Entries({5}));
  EXPECT_EQ(h.session(0).blocked, nullptr);
  // A key that did not exist when the read blocked wakes it too (its `$` was 0-0).
  out.clear();
  EXPECT_EQ(h.RunRaw({"XREAD", "BLOCK", "0", "STREAMS", "nokey", "$"}, Protocol::kResp2), "");
  h.Run({"XADD", "nokey", "1-1", "a", "b"}, Protocol::kResp3, 1);
  h.dispatcher().after_batch();
  EXPECT_EQ(out, "*1\r\n*2\r\n$5\r\nnokey\r\n*1\r\n*2\r\n" + Bulk("1-1") +
                     "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
}

TEST_F(StreamReadTest, AWokenKeyServesEachWaitingClientOnceInBlockingOrder) {
  // serve_ready takes the key's whole wait list at once: a client listed twice (the same key
  // named twice) is re-run once, a client that blocks again during the pass is not re-run
  // again for that key, and the others are answered in the order they blocked.
  std::string twice, first, last;
  h.session(2).out = &twice;
  h.session(3).out = &first;
  h.session(4).out = &last;
  EXPECT_EQ(h.RunRaw({"XREAD", "BLOCK", "0", "STREAMS", "s", "s", "$", "$"}, Protocol::kResp2, 2),
            "");
  EXPECT_EQ(h.RunRaw({"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}, Protocol::kResp2, 3), "");
  EXPECT_EQ(h.RunRaw({"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}, Protocol::kResp2, 4), "");
  // An entry added and deleted in one transaction: every re-run finds nothing and blocks again.
  h.Run({"MULTI"}, Protocol::kResp3, 1);
  h.Run({"XADD", "s", "5-1", "f", "5"}, Protocol::kResp3, 1);
  h.Run({"XDEL", "s", "5-1"}, Protocol::kResp3, 1);
  h.Run({"EXEC"}, Protocol::kResp3, 1);
  h.dispatcher().after_batch();
  EXPECT_EQ(twice + first + last, "");
  EXPECT_EQ(h.server().blocking().blocked_clients(), 3u);
  uint64_t seq2 = h.session(2).blocked->seq;
  EXPECT_LT(seq2, h.session(3).blocked->seq);  // blocked again in their old order
  EXPECT_LT(h.session(3).blocked->seq, h.session(4).blocked->seq);
  // A real entry: each is answered exactly once.
  h.Run({"XADD", "s", "6-1", "f", "6"}, Protocol::kResp3, 1);
  h.dispatcher().after_batch();
  std::string stream = "*2\r\n$1\r\ns\r\n" + Entries({6});
  std::string want = "*1\r\n" + stream;
  EXPECT_EQ(twice, "*2\r\n" + stream + stream);  // one reply, the key named twice in it
  EXPECT_EQ(first, want);
  EXPECT_EQ(last, want);
  EXPECT_EQ(h.server().blocking().blocked_clients(), 0u);
  EXPECT_EQ(h.server().blocking().keys_with_waiters(), 0u);
}

TEST_F(StreamReadTest, XreadBlockAnswersAtOnceWhenItCannotBlock) {
  // Entries already there: no blocking at all.
  EXPECT_EQ(h.Run({"XREAD", "BLOCK", "0", "STREAMS", "s", "3-1"}),
            "%1\r\n$1\r\ns\r\n" + Entries({4}));
  // Inside MULTI a read that would block answers null at once.
  h.Run({"MULTI"});
  h.Run({"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  EXPECT_EQ(h.Run2({"EXEC"}), "*1\r\n*-1\r\n");
  EXPECT_EQ(h.session(0).blocked, nullptr);
}

}  // namespace
}  // namespace streamd::cmd
