// XADD, XTRIM, XDEL, XSETID and XLEN run in-process through the dispatcher, in both protocols, on
// a manual clock. Expected replies were checked against redis-server 7.0.15 (and the newest
// Redis where it differs, see stream_validation_test.cc); every refused command must leave the
// stream as it was.
#include "stream_handler_fixture.h"

namespace streamd::cmd {
namespace {

using test::CommandHarness;

class StreamWriteTest : public StreamHandlerTest {};

TEST_F(StreamWriteTest, XaddIdForms) {
  // `*` takes the clock's millisecond and counts up within it.
  EXPECT_EQ(h.Run2({"XADD", "s", "*", "f", "v"}), Bulk("1700000000000-0"));
  EXPECT_EQ(h.Run({"XADD", "s", "*", "f", "v"}), Bulk("1700000000000-1"));
  h.Advance(5);
  EXPECT_EQ(h.Run({"XADD", "s", "*", "f", "v"}), Bulk("1700000000005-0"));
  // An explicit ID ahead of the clock: `*` then continues from it, not from the clock.
  EXPECT_EQ(h.Run({"XADD", "t", "1800000000000-7", "f", "v"}), Bulk("1800000000000-7"));
  EXPECT_EQ(h.Run({"XADD", "t", "*", "f", "v"}), Bulk("1800000000000-8"));
  // ms-*: the next sequence in that millisecond, or 0 in a later one; a bare ms is ms-0.
  EXPECT_EQ(h.Run({"XADD", "t", "1800000000000-*", "f", "v"}), Bulk("1800000000000-9"));
  EXPECT_EQ(h.Run({"XADD", "t", "1900000000000-*", "f", "v"}), Bulk("1900000000000-0"));
  EXPECT_EQ(h.Run({"XADD", "t", "1900000000001", "f", "v"}), Bulk("1900000000001-0"));
  EXPECT_EQ(Ids("t"),
            "1800000000000-7,1800000000000-8,1800000000000-9,1900000000000-0,1900000000001-0");
  // 0-* on a new stream starts at 0-1 (0-0 is never an entry).
  EXPECT_EQ(h.Run({"XADD", "z", "0-*", "a", "1"}), Bulk("0-1"));
  EXPECT_EQ(h.Run({"XADD", "z", "0-*", "a", "1"}), Bulk("0-2"));
}

TEST_F(StreamWriteTest, XaddRefusedIdsChangeNothing) {
  h.Run({"XADD", "s", "5-5", "f", "v"});
  const std::string too_small =
      "-ERR The ID specified in XADD is equal or smaller than the target stream top item\r\n";
  EXPECT_EQ(Refused({"XADD", "s", "5-5", "f", "v"}, "s"), too_small);
  EXPECT_EQ(Refused({"XADD", "s", "5", "f", "v"}, "s"), too_small);
  EXPECT_EQ(Refused({"XADD", "s", "4-*", "f", "v"}, "s"), too_small);
  for (std::string bad : {"abc", "1-x", "-1", "1-", "1--1", "18446744073709551616"}) {
    EXPECT_EQ(Refused({"XADD", "s", bad, "f", "v"}, "s"), kInvalidId) << bad;
  }
  EXPECT_EQ(Refused({"XADD", "s", "*", "f"}, "s"),
            "-ERR wrong number of arguments for 'xadd' command\r\n");
  EXPECT_EQ(Refused({"XADD", "s", "*", "f", "v", "g"}, "s"),
            "-ERR wrong number of arguments for 'xadd' command\r\n");
  // 0-0 is refused before the key is looked up: no key is created.
  EXPECT_EQ(Both({"XADD", "new", "0-0", "f", "v"}),
            "-ERR The ID specified in XADD must be greater than 0-0\r\n");
  EXPECT_EQ(Both({"EXISTS", "new"}), Int(0));
  // The last possible ID: nothing can follow it, whatever form the next ID takes.
  h.Run({"XADD", "m", "18446744073709551615-18446744073709551615", "a", "1"});
  const std::string exhausted =
      "-ERR The stream has exhausted the last possible ID, unable to add more items\r\n";
  EXPECT_EQ(Refused({"XADD", "m", "*", "a", "1"}, "m"), exhausted);
  EXPECT_EQ(Refused({"XADD", "m", "5-*", "a", "1"}, "m"), exhausted);
  h.Run({"SET", "str", "x"});
  EXPECT_EQ(Both({"XADD", "str", "*", "f", "v"}), kWrongType);
  EXPECT_EQ(h.Run({"GET", "str"}), Bulk("x"));
}

TEST_F(StreamWriteTest, XaddNomkstream) {
  // A missing key stays missing and the reply is a null bulk (RESP3 null).
  EXPECT_EQ(h.Run2({"XADD", "s", "NOMKSTREAM", "*", "f", "v"}), "$-1\r\n");
  EXPECT_EQ(h.Run({"XADD", "s", "nomkstream", "MAXLEN", "1", "*", "f", "v"}), "_\r\n");
  EXPECT_EQ(Both({"EXISTS", "s"}), Int(0));
  h.Run({"XADD", "s", "1-1", "f", "v"});
  EXPECT_EQ(h.Run2({"XADD", "s", "NOMKSTREAM", "2-1", "f", "v"}).substr(0, 4), "$3\r\n");
  EXPECT_EQ(Ids("s"), "1-1,2-1");
  // NOMKSTREAM is XADD's only: for XTRIM it is an unknown option.
  EXPECT_EQ(Refused({"XTRIM", "s", "NOMKSTREAM", "MAXLEN", "1"}, "s"), kSyntax);
}

TEST_F(StreamWriteTest, XaddTrimsAfterAdding) {
  h.Run({"CONFIG", "SET", "stream-node-max-entries", "2"});
  for (int i = 1; i <= 5; ++i) h.Run({"XADD", "s", std::to_string(i) + "-0", "f", "v"});
  // "~" removes whole nodes only, keeping at least MAXLEN entries: [1 2] [3 4] go, [5 6] stays.
  EXPECT_EQ(h.Run2({"XADD", "s", "MAXLEN", "~", "2", "6-0", "f", "v"}), Bulk("6-0"));
  EXPECT_EQ(Ids("s"), "5-0,6-0");
  // "=" (or nothing) is exact; the new entry counts.
  EXPECT_EQ(h.Run2({"XADD", "s", "maxlen", "=", "2", "7-0", "f", "v"}), Bulk("7-0"));
  EXPECT_EQ(Ids("s"), "6-0,7-0");
  EXPECT_EQ(h.Run2({"XADD", "s", "MAXLEN", "1", "8-0", "f", "v"}), Bulk("8-0"));
  EXPECT_EQ(Ids("s"), "8-0");
  // MINID keeps the entries at or above the threshold.
  h.Run({"XADD", "s", "9-0", "f", "v"});
  EXPECT_EQ(h.Run2({"XADD", "s", "MINID", "9", "10-0", "f", "v"}), Bulk("10-0"));
  EXPECT_EQ(Ids("s"), "9-0,10-0");
  EXPECT_EQ(Info("s", "entries-added"), "(integer) 10");
  // Trimming is not deleting: max-deleted-entry-id stays (Redis moves it on XDEL only).
  EXPECT_EQ(Info("s", "max-deleted-entry-id"), "\"0-0\"");
  // MAXLEN 0 leaves the stream empty, but it exists, with its last ID.
  EXPECT_EQ(h.Run2({"XADD", "s", "MAXLEN", "0", "11-0", "f", "v"}), Bulk("11-0"));
  EXPECT_EQ(Both({"XLEN", "s"}), Int(0));
  EXPECT_EQ(Info("s", "last-generated-id"), "\"11-0\"");
}

TEST_F(StreamWriteTest, XaddRefusedTrimOptionsChangeNothing) {
  h.Run({"XADD", "s", "1-0", "f", "v"});
  EXPECT_EQ(Refused({"XADD", "s", "MAXLEN", "-1", "*", "f", "v"}, "s"),
            "-ERR The MAXLEN argument must be >= 0.\r\n");
  EXPECT_EQ(Refused({"XADD", "s", "MAXLEN", "x", "*", "f", "v"}, "s"), kNotInteger);
  EXPECT_EQ(Refused({"XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "f", "v"}, "s"),
            "-ERR syntax error, MAXLEN and MINID options at the same time are not compatible\r\n");
  EXPECT_EQ(Refused({"XADD", "s", "MAXLEN", "1", "LIMIT", "5", "*", "f", "v"}, "s"),
            "-ERR syntax error, LIMIT cannot be used without the special ~ option\r\n");
  EXPECT_EQ(Refused({"XADD", "s", "LIMIT", "5", "*", "f", "v"}, "s"),
            "-ERR syntax error, LIMIT cannot be used without specifying a trimming strategy\r\n");
  EXPECT_EQ(Refused({"XADD", "s", "MAXLEN", "~", "1", "LIMIT", "-1", "*", "f", "v"}, "s"),
            "-ERR The LIMIT argument must be >= 0.\r\n");
  EXPECT_EQ(Refused({"XADD", "s", "MINID", "x", "*", "f", "v"}, "s"), kInvalidId);
  // Refused before the key is looked up: a missing key is not created.
  EXPECT_EQ(Both({"XADD", "new", "MAXLEN", "-1", "*", "f", "v"}),
            "-ERR The MAXLEN argument must be >= 0.\r\n");
  EXPECT_EQ(Both({"EXISTS", "new"}), Int(0));
  // A keyword without its argument is taken for the ID.
  EXPECT_EQ(Refused({"XADD", "s", "MAXLEN"}, "s"),
            "-ERR wrong number of arguments for 'xadd' command\r\n");
  EXPECT_EQ(Refused({"XADD", "s", "LIMIT", "f", "v"}, "s"), kNotInteger);
  EXPECT_EQ(Refused({"XADD", "s", "NOMKSTREAM", "NOMKSTREAM", "LIMIT"}, "s"), kInvalidId);
}

TEST_F(StreamWriteTest, XtrimStrategies) {
  h.Run({"CONFIG", "SET", "stream-node-max-entries", "2"});
  for (int i = 1; i <= 6; ++i) h.Run({"XADD", "s", std::to_string(i) + "-0", "f", "v"});
  // LIMIT bounds the entries a "~" trim may remove: a whole node (2) or nothing.
  EXPECT_EQ(Both({"XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "1"}), Int(0));
  EXPECT_EQ(h.Run2({"XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "2"}), Int(2));
  EXPECT_EQ(Ids("s"), "3-0,4-0,5-0,6-0");
  EXPECT_EQ(h.Run2({"XTRIM", "s", "MAXLEN", "3"}), Int(1));
  EXPECT_EQ(h.Run({"XTRIM", "s", "MINID", "=", "6"}), Int(2));
  EXPECT_EQ(Ids("s"), "6-0");
  EXPECT_EQ(Both({"XTRIM", "s", "MINID", "6"}), Int(0));
  EXPECT_EQ(Both({"XTRIM", "nokey", "MAXLEN", "0"}), Int(0));
  EXPECT_EQ(Info("s", "max-deleted-entry-id"), "\"0-0\"");
  EXPECT_EQ(Info("s", "entries-added"), "(integer) 6");
}

TEST_F(StreamWriteTest, XtrimRefusedOptionsChangeNothing) {
  h.Run({"XADD", "s", "1-0", "f", "v"});
  h.Run({"XADD", "s", "2-0", "f", "v"});
  EXPECT_EQ(Refused({"XTRIM", "s", "LIMIT", "1"}, "s"),
            "-ERR syntax error, LIMIT cannot be used without specifying a trimming strategy\r\n");
  EXPECT_EQ(Refused({"XTRIM", "s", "DELREF", "ACKED"}, "s"),
            "-ERR syntax error, XTRIM must be called with a trimming strategy\r\n");
  EXPECT_EQ(Refused({"XTRIM", "s", "MAXLEN", "1", "FOO"}, "s"), kSyntax);
  EXPECT_EQ(Refused({"XTRIM", "s", "MAXLEN", "~"}, "s"), kNotInteger);
  EXPECT_EQ(Refused({"XTRIM", "s", "MAXLEN", "0", "MAXLEN", "0"}, "s"),
            "-ERR syntax error, MAXLEN and MINID options at the same time are not compatible\r\n");
  EXPECT_EQ(Refused({"XTRIM", "s", "MINID", "(1"}, "s"), kInvalidId);
  EXPECT_EQ(Ids("s"), "1-0,2-0");
}

TEST_F(StreamWriteTest, Xdel) {
  h.Run({"XADD", "s", "1-1", "a", "1"});
  h.Run({"XADD", "s", "2-1", "a", "1"});
  h.Run({"XADD", "s", "3-1", "a", "1"});
  // Counts what was there; an ID given twice counts once.
  EXPECT_EQ(h.Run2({"XDEL", "s", "2-1", "9-9", "2-1"}), Int(1));
  EXPECT_EQ(Both({"XDEL", "s", "2-1"}), Int(0));
  // A bad ID anywhere deletes nothing.
  EXPECT_EQ(Refused({"XDEL", "s", "1-1", "bad"}, "s"), kInvalidId);
  EXPECT_EQ(Ids("s"), "1-1,3-1");
  EXPECT_EQ(Info("s", "max-deleted-entry-id"), "\"2-1\"");
  EXPECT_EQ(Info("s", "entries-added"), "(integer) 3");
  // Deleting the last entry keeps the last ID: the next `*`-less ID must still be above it.
  EXPECT_EQ(h.Run({"XDEL", "s", "3-1"}), Int(1));
  EXPECT_EQ(Info("s", "last-generated-id"), "\"3-1\"");
  EXPECT_EQ(Both({"XADD", "s", "3-1", "a", "1"}).substr(0, 1), "-");
  EXPECT_EQ(Both({"XDEL", "nokey", "1-1"}), Int(0));
  h.Run({"SET", "str", "x"});
  EXPECT_EQ(Both({"XDEL", "str", "1-1"}), kWrongType);
}

TEST_F(StreamWriteTest, Xsetid) {
  h.Run({"XADD", "t", "1-1", "a", "1"});
  h.Run({"XADD", "t", "2-1", "a", "1"});
  h.Run({"XADD", "t", "3-1", "a", "1"});
  h.Run({"XDEL", "t", "2-1"});
  EXPECT_EQ(Refused({"XSETID", "t", "3-0"}, "t"),
            "-ERR The ID specified in XSETID is smaller than the target stream top item\r\n");
  EXPECT_EQ(Refused({"XSETID", "t", "4-0", "ENTRIESADDED", "1"}, "t"),
            "-ERR The entries_added specified in XSETID is smaller than the target stream "
            "length\r\n");
  EXPECT_EQ(Refused({"XSETID", "t", "4-0", "ENTRIESADDED", "-1"}, "t"),
            "-ERR entries_added must be positive\r\n");
  EXPECT_EQ(Refused({"XSETID", "t", "4-0", "ENTRIESADDED", "x"}, "t"), kNotInteger);
  EXPECT_EQ(
      Refused({"XSETID", "t", "4-0", "MAXDELETEDID", "5-0"}, "t"),
      "-ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id\r\n");
  EXPECT_EQ(Refused({"XSETID", "t", "4-0", "FOO", "1"}, "t"), kSyntax);
  EXPECT_EQ(Refused({"XSETID", "t", "4-0", "ENTRIESADDED"}, "t"), kSyntax);
  EXPECT_EQ(Refused({"XSETID", "t", "x"}, "t"), kInvalidId);
  EXPECT_EQ(Both({"XSETID", "t", "4-0", "entriesadded", "10", "maxdeletedid", "3-5"}), "+OK\r\n");
  EXPECT_EQ(Info("t", "last-generated-id"), "\"4-0\"");
  EXPECT_EQ(Info("t", "max-deleted-entry-id"), "\"3-5\"");
  EXPECT_EQ(Info("t", "entries-added"), "(integer) 10");
  // The new last ID bounds the next XADD.
  EXPECT_EQ(h.Run({"XADD", "t", "4-*", "a", "1"}), Bulk("4-1"));
  EXPECT_EQ(Both({"XSETID", "nokey", "1-1"}), kNoSuchKey);
  EXPECT_EQ(Both({"EXISTS", "nokey"}), Int(0));
  // Options are checked before the key.
  EXPECT_EQ(Both({"XSETID", "nokey", "1-1", "FOO", "1"}), kSyntax);
}

TEST_F(StreamWriteTest, Xlen) {
  EXPECT_EQ(Both({"XLEN", "s"}), Int(0));
  h.Run({"XADD", "s", "*", "a", "1"});
  h.Run({"XADD", "s", "*", "a", "1", "b", "2"});
  EXPECT_EQ(Both({"XLEN", "s"}), Int(2));
  h.Run({"SET", "str", "x"});
  EXPECT_EQ(Both({"XLEN", "str"}), kWrongType);
}

}  // namespace
}  // namespace streamd::cmd
