// The order in which the stream commands check their arguments and look their key up, and the
// error replies that result, compared with the newest Redis (src/t_stream.c of the main branch,
// October 2024; replies recorded from a server built from it). Issue 11, items 1, 2, 3, 5, 6, 9
// and the XREAD "+" edge cases.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "command_harness.h"

namespace streamd::cmd {
namespace {

using test::CommandHarness;

constexpr const char* kNotInteger = "-ERR value is not an integer or out of range\r\n";
constexpr const char* kWrongTypeError =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

class StreamValidationTest : public ::testing::Test {
 protected:
  // Both protocols must give the same bytes (errors, integers, simple strings).
  std::string Both(const std::vector<std::string>& argv) {
    std::string r2 = h.Run2(argv);
    std::string r3 = h.Run(argv);
    EXPECT_EQ(r2, r3) << argv[0];
    return r3;
  }
  CommandHarness h;
};

// Item 1: Redis parses every XTRIM option before it looks the key up.
TEST_F(StreamValidationTest, XtrimChecksOptionsBeforeTheKey) {
  h.Run({"SET", "str", "x"});
  EXPECT_EQ(Both({"XTRIM", "nokey", "MAXLEN", "99999999999999999999"}), kNotInteger);
  EXPECT_EQ(Both({"XTRIM", "nokey", "MAXLEN", "=", "1", "LIMIT", "5"}),
            "-ERR syntax error, LIMIT cannot be used without the special ~ option\r\n");
  EXPECT_EQ(Both({"XTRIM", "nokey", "MAXLEN", "1", "MINID", "1"}),
            "-ERR syntax error, MAXLEN and MINID options at the same time are not compatible\r\n");
  EXPECT_EQ(Both({"XTRIM", "nokey", "MAXLEN", "-1"}), "-ERR The MAXLEN argument must be >= 0.\r\n");
  EXPECT_EQ(Both({"XTRIM", "nokey", "LIMIT", "5"}),
            "-ERR syntax error, LIMIT cannot be used without specifying a trimming strategy\r\n");
  EXPECT_EQ(Both({"XTRIM", "nokey", "MINID", "abc"}),
            "-ERR Invalid stream ID specified as stream command argument\r\n");
  EXPECT_EQ(Both({"XTRIM", "nokey", "MAXLEN", "1", "FOO"}), "-ERR syntax error\r\n");
  // The option errors come before the type check too.
  EXPECT_EQ(Both({"XTRIM", "str", "MAXLEN", "x"}), kNotInteger);
  EXPECT_EQ(Both({"XTRIM", "str", "FOO", "BAR"}), "-ERR syntax error\r\n");
  // Valid options: a missing key trims nothing, another type is a type error.
  EXPECT_EQ(Both({"XTRIM", "nokey", "MINID", "~", "5", "LIMIT", "10"}), ":0\r\n");
  EXPECT_EQ(Both({"XTRIM", "str", "MAXLEN", "1"}), kWrongTypeError);
}

// Item 2: XACK answers 0 for a missing key or group before it parses any ID.
TEST_F(StreamValidationTest, XackMissingKeyOrGroupBeforeIds) {
  EXPECT_EQ(Both({"XACK", "nokey", "g", "("}), ":0\r\n");
  EXPECT_EQ(Both({"XACK", "nokey", "g", "1-1", "bad"}), ":0\r\n");
  h.Run({"XADD", "s", "1-1", "a", "1"});
  EXPECT_EQ(Both({"XACK", "s", "nogroup", "bad"}), ":0\r\n");
  h.Run({"XGROUP", "CREATE", "s", "g", "0"});
  EXPECT_EQ(Both({"XACK", "s", "g", "1-1", "bad"}),
            "-ERR Invalid stream ID specified as stream command argument\r\n");
  h.Run({"SET", "str", "x"});
  EXPECT_EQ(Both({"XACK", "str", "g", "bad"}), kWrongTypeError);
}

// Item 3: XINFO STREAM looks the key up first, then rejects bad options with the
// subcommand-syntax error naming the subcommand as it was sent.
TEST_F(StreamValidationTest, XinfoStreamKeyFirstThenSubcommandSyntaxError) {
  EXPECT_EQ(Both({"XINFO", "STREAM", "s", "FOO"}), "-ERR no such key\r\n");
  EXPECT_EQ(Both({"XINFO", "STREAM", "s", "FULL", "COUNT"}), "-ERR no such key\r\n");
  h.Run({"SET", "str", "x"});
  EXPECT_EQ(Both({"XINFO", "STREAM", "str", "FULL", "COUNT"}), kWrongTypeError);
  h.Run({"XADD", "s", "1-1", "a", "1"});
  const std::string upper =
      "-ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.\r\n";
  EXPECT_EQ(Both({"XINFO", "STREAM", "s", "FOO"}), upper);
  EXPECT_EQ(Both({"XINFO", "STREAM", "s", "FULL", "COUNT"}), upper);
  EXPECT_EQ(Both({"XINFO", "STREAM", "s", "FULL", "COUNT", "1", "2"}), upper);
  EXPECT_EQ(Both({"XINFO", "STREAM", "s", "FULL", "FOO", "1"}), upper);
  EXPECT_EQ(Both({"xinfo", "stream", "s", "full", "count"}),
            "-ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO "
            "HELP.\r\n");
  EXPECT_EQ(Both({"XINFO", "STREAM", "s", "FULL", "COUNT", "x"}), kNotInteger);
  // 15 fields: the 8.6 IDMP fields are on every stream.
  EXPECT_EQ(h.Run2({"XINFO", "STREAM", "s", "full", "count", "1"}).substr(0, 5), "*30\r\n");
}

// Item 5 (Redis 7.2+): XSETID may not go below the stream's max_deleted_entry_id.
TEST_F(StreamValidationTest, XsetidBelowMaxDeletedEntryId) {
  h.Run({"XADD", "s1", "11-5", "x", "1"});
  h.Run({"XDEL", "s1", "11-5"});
  const std::string err =
      "-ERR The ID specified in XSETID is smaller than current max_deleted_entry_id\r\n";
  EXPECT_EQ(Both({"XSETID", "s1", "0-0"}), err);
  EXPECT_EQ(Both({"XSETID", "s1", "11-4"}), err);
  // The provided MAXDELETEDID is checked first, at parse time.
  EXPECT_EQ(Both({"XSETID", "s1", "11-4", "MAXDELETEDID", "11-6"}),
            "-ERR The ID specified in XSETID is smaller than the provided "
            "max_deleted_entry_id\r\n");
  EXPECT_EQ(Both({"XSETID", "s1", "11-5"}), "+OK\r\n");
  EXPECT_EQ(Both({"XSETID", "s1", "12-0", "MAXDELETEDID", "1-0"}), "+OK\r\n");
  // Lowered by the provided value, the bound moves down with it.
  EXPECT_EQ(Both({"XSETID", "s1", "2-0"}), "+OK\r\n");
}

// Item 9 (Redis 7.2+): ms-* after ms-MAX is "equal or smaller", not "too large".
TEST_F(StreamValidationTest, XaddPartialIdAtTheMaximalSequence) {
  EXPECT_EQ(h.Run({"XADD", "s", "1-18446744073709551615", "a", "1"}),
            "$22\r\n1-18446744073709551615\r\n");
  EXPECT_EQ(Both({"XADD", "s", "1-*", "a", "1"}),
            "-ERR The ID specified in XADD is equal or smaller than the target stream top "
            "item\r\n");
  EXPECT_EQ(h.Run({"XADD", "s", "2-*", "a", "1"}), "$3\r\n2-0\r\n");
}

// Item 6 (Redis 7.2+): every HELP reply ends with "Print this help."
TEST_F(StreamValidationTest, EveryHelpEndsWithPrintThisHelp) {
  for (std::string c :
       {"XINFO", "XGROUP", "CLIENT", "CONFIG", "COMMAND", "SLOWLOG", "OBJECT", "MEMORY"}) {
    std::string r = Both({c, "HELP"});
    EXPECT_EQ(r.find("+" + c + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"),
              r.find("\r\n") + 2)
        << c;
    const std::string tail = "+HELP\r\n+    Print this help.\r\n";
    ASSERT_GE(r.size(), tail.size()) << c;
    EXPECT_EQ(r.substr(r.size() - tail.size()), tail) << c;
  }
  // The newest Redis's CLIENT HELP lists KILL ID and MAXAGE, SETINFO and NO-TOUCH.
  std::string client = h.Run({"CLIENT", "HELP"});
  EXPECT_EQ(client.substr(0, 5), "*58\r\n");
  for (const char* l : {"+    * MAXAGE <maxage>\r\n", "+SETINFO <option> <value>\r\n",
                        "+NO-TOUCH (ON|OFF)\r\n", "+    * ID <client-id>\r\n"}) {
    EXPECT_NE(client.find(l), std::string::npos) << l;
  }
}

// CLIENT KILL MAXAGE (Redis 7.4), which the HELP text now names.
TEST_F(StreamValidationTest, ClientKillMaxAge) {
  h.Run({"PING"}, resp::Protocol::kResp3, 1);  // client 1 exists from now on
  h.clock().advance(10000);
  h.Run({"PING"}, resp::Protocol::kResp3, 2);  // client 2 is 0 s old
  EXPECT_EQ(Both({"CLIENT", "KILL", "MAXAGE", "x"}),
            "-ERR maxage is not an integer or out of range\r\n");
  EXPECT_EQ(Both({"CLIENT", "KILL", "MAXAGE", "0"}), "-ERR maxage should be greater than 0\r\n");
  EXPECT_EQ(Both({"CLIENT", "KILL", "MAXAGE", "11"}), ":0\r\n");
  // Client 0 (the caller) is skipped; client 1 is 10 s old, client 2 too young.
  EXPECT_EQ(Both({"CLIENT", "KILL", "MAXAGE", "10"}), ":1\r\n");
}

// XREAD "+" (Redis 7.4+) stands for the ID below the stream's last ID.
TEST_F(StreamValidationTest, XreadPlusEdges) {
  h.Run({"XADD", "s", "1-1", "a", "1"});
  h.Run({"XADD", "s", "2-1", "a", "2"});
  h.Run({"XDEL", "s", "2-1"});
  // The last entry was deleted: nothing is served (1-1 is below the last ID's predecessor).
  EXPECT_EQ(h.Run2({"XREAD", "STREAMS", "s", "+"}), "*-1\r\n");
  EXPECT_EQ(h.Run({"XREAD", "STREAMS", "s", "+"}), "_\r\n");
  // A stream whose last ID is 0-0 has no ID below it.
  h.Run({"XGROUP", "CREATE", "e", "g", "$", "MKSTREAM"});
  EXPECT_EQ(Both({"XREAD", "STREAMS", "e", "+"}), "-ERR the stream last element ID is 0-0\r\n");
  EXPECT_EQ(Both({"XREAD", "STREAMS", "s", "e", "+", "+"}),
            "-ERR the stream last element ID is 0-0\r\n");
}

// A blocked XREAD + keeps "+" and serves the stream's last entry when woken, like Redis's
// re-run of the command: two entries added in one transaction wake it with the second only.
TEST_F(StreamValidationTest, BlockedXreadPlusServesTheLastEntryWhenWoken) {
  std::string out;
  h.session(0).out = &out;
  EXPECT_EQ(h.RunRaw({"XREAD", "BLOCK", "0", "STREAMS", "s", "+"}, resp::Protocol::kResp2), "");
  h.Run({"MULTI"}, resp::Protocol::kResp3, 1);
  h.Run({"XADD", "s", "1-1", "a", "1"}, resp::Protocol::kResp3, 1);
  h.Run({"XADD", "s", "2-1", "b", "2"}, resp::Protocol::kResp3, 1);
  h.Run({"EXEC"}, resp::Protocol::kResp3, 1);
  h.dispatcher().after_batch();
  EXPECT_EQ(out, "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n2-1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n");
}

}  // namespace
}  // namespace streamd::cmd
