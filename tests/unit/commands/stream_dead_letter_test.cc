// STREAMD.DEADLETTER and dead-lettering through the handlers, in process with a manual clock, in
// both protocols: the command's replies and errors, XCLAIM / XAUTOCLAIM / XREADGROUP CLAIM /
// XNACK FATAL moving an entry at its maximum to the dead-letter stream instead of handing it
// out, what that propagates (the plain XADD and XACK), keyspace events, XINFO, INFO, COMMAND.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "capture_sink.h"
#include "command_harness.h"
#include "recording_persistence.h"
#include "streamd/commands/core/notify.h"
#include "streamd/commands/core/persistence.h"
#include "streamd/commands/server/metrics.h"

namespace streamd::cmd {
namespace {

using test::CommandHarness;
using test::Decode;
using test::kProtos;
using test::ProtoName;

using test::RecordingPersistence;

// Stream "jobs" with 1-0 (job a), 2-0 (job b); group "g" read by "w1" (each delivered once);
// policy: at most 2 deliveries into "dlq". The clock then moves 10 s on.
struct DeadLetterCommands : ::testing::Test {
  std::unique_ptr<CommandHarness> harness = std::make_unique<CommandHarness>();
  CommandHarness& H() { return *harness; }
  void Reset() { harness = std::make_unique<CommandHarness>(); }
  RecordingPersistence aof;
  resp::Protocol p = resp::Protocol::kResp3;

  void Setup(resp::Protocol proto) {
    p = proto;
    H().Run({"XADD", "jobs", "1-0", "job", "a"}, p);
    H().Run({"XADD", "jobs", "2-0", "job", "b"}, p);
    H().Run({"XGROUP", "CREATE", "jobs", "g", "0"}, p);
    EXPECT_EQ(
        H().Run({"STREAMD.DEADLETTER", "SET", "jobs", "g", "MAXDELIVERIES", "2", "STREAM", "dlq"},
                p),
        "+OK\r\n");
    H().Run({"XREADGROUP", "GROUP", "g", "w1", "STREAMS", "jobs", ">"}, p);
    H().Advance(10000);
  }
  std::string Run(const std::vector<std::string>& argv) { return H().Run(argv, p); }
  // The dead-letter stream's entries, decoded (RESP2 shape whatever p is).
  std::string Dlq() { return Decode(H().Run2({"XRANGE", "dlq", "-", "+"})); }
  std::string Letter(const std::string& id, int deliveries, const std::string& consumer,
                     const std::string& reason, const std::string& job) {
    return "[\"" + id +
           "\", [\"streamd-dl-stream\", \"jobs\", \"streamd-dl-group\", \"g\", "
           "\"streamd-dl-id\", \"" +
           (job == "a" ? "1-0" : "2-0") + "\", \"streamd-dl-deliveries\", \"" +
           std::to_string(deliveries) + "\", \"streamd-dl-consumer\", \"" + consumer +
           "\", \"streamd-dl-reason\", \"" + reason + "\", \"job\", \"" + job + "\"]]";
  }
  std::string Ts(int64_t plus = 0) { return std::to_string(H().clock().now_ms() + plus) + "-0"; }
};

TEST_F(DeadLetterCommands, XclaimHandsOutUpToTheMaximumThenDeadLetters) {
  for (resp::Protocol proto : kProtos) {
    SCOPED_TRACE(ProtoName(proto));
    Reset();
    Setup(proto);
    // Delivery 2 of 1-0 is allowed (2 does not exceed 2).
    EXPECT_EQ(Decode(Run({"XCLAIM", "jobs", "g", "w2", "0", "1-0", "JUSTID"})), "[\"1-0\"]");
    // JUSTID did not count: one more counted claim is the 2nd delivery.
    EXPECT_EQ(Decode(Run({"XCLAIM", "jobs", "g", "w2", "0", "1-0"})),
              "[[\"1-0\", [\"job\", \"a\"]]]");
    // The 3rd would exceed it: left out of the reply, moved, acknowledged.
    std::string dl_id = Ts();
    EXPECT_EQ(Decode(Run({"XCLAIM", "jobs", "g", "w3", "0", "1-0", "2-0"})),
              "[[\"2-0\", [\"job\", \"b\"]]]");
    EXPECT_EQ(Dlq(), "[" + Letter(dl_id, 2, "w2", "max-deliveries", "a") + "]");
    EXPECT_EQ(Decode(H().Run2({"XPENDING", "jobs", "g"})),
              "[(integer) 1, \"2-0\", \"2-0\", [[\"w3\", \"1\"]]]");
    EXPECT_EQ(Decode(H().Run2({"XLEN", "jobs"})), "(integer) 2");  // the source keeps it
    EXPECT_EQ(Decode(Run({"STREAMD.DEADLETTER", "GET", "jobs", "g"})),
              proto == resp::Protocol::kResp2
                  ? "[\"max-deliveries\", (integer) 2, \"stream\", \"dlq\", \"dead-lettered\", "
                    "(integer) 1]"
                  : "{\"max-deliveries\": (integer) 2, \"stream\": \"dlq\", \"dead-lettered\": "
                    "(integer) 1}");
  }
}

TEST_F(DeadLetterCommands, DeadLetteringPropagatesThePlainXaddAndXack) {
  H().server().set_persistence(&aof);
  Setup(resp::Protocol::kResp3);
  Run({"XCLAIM", "jobs", "g", "w2", "0", "1-0"});
  aof.records.clear();
  std::string dl_id = Ts();
  Run({"XCLAIM", "jobs", "g", "w3", "0", "1-0"});
  EXPECT_EQ(aof.records, (std::vector<std::string>{
                             "XGROUP CREATECONSUMER jobs g w3",
                             "XADD dlq " + dl_id +
                                 " streamd-dl-stream jobs streamd-dl-group g streamd-dl-id 1-0 "
                                 "streamd-dl-deliveries 2 streamd-dl-consumer w2 streamd-dl-reason "
                                 "max-deliveries job a",
                             "XACK jobs g 1-0",
                         }));
  // The configuration command propagates as given.
  aof.records.clear();
  Run({"STREAMD.DEADLETTER", "SET", "jobs", "g", "STREAM", "dlq2", "MAXDELIVERIES", "5"});
  Run({"STREAMD.DEADLETTER", "REMOVE", "jobs", "g"});
  Run({"STREAMD.DEADLETTER", "REMOVE", "jobs", "g"});  // nothing to remove: nothing logged
  Run({"STREAMD.DEADLETTER", "GET", "jobs", "g"});
  EXPECT_EQ(aof.records, (std::vector<std::string>{
                             "STREAMD.DEADLETTER SET jobs g STREAM dlq2 MAXDELIVERIES 5",
                             "STREAMD.DEADLETTER REMOVE jobs g",
                         }));
  H().server().set_persistence(nullptr);
}

TEST_F(DeadLetterCommands, XautoclaimLeavesThemOutOfBothLists) {
  for (resp::Protocol proto : kProtos) {
    SCOPED_TRACE(ProtoName(proto));
    Reset();
    Setup(proto);
    Run({"XCLAIM", "jobs", "g", "w1", "0", "1-0", "2-0"});  // both at 2 deliveries
    H().Advance(5000);
    std::string dl_id = std::to_string(H().clock().now_ms());
    EXPECT_EQ(Decode(Run({"XAUTOCLAIM", "jobs", "g", "j", "1000", "0", "COUNT", "1"})),
              "[\"2-0\", [], []]");  // 1-0 counted against COUNT 1
    EXPECT_EQ(Decode(Run({"XAUTOCLAIM", "jobs", "g", "j", "1000", "2-0"})), "[\"0-0\", [], []]");
    EXPECT_EQ(Dlq(), "[" + Letter(dl_id + "-0", 2, "w1", "max-deliveries", "a") + ", " +
                         Letter(dl_id + "-1", 2, "w1", "max-deliveries", "b") + "]");
    EXPECT_EQ(Decode(Run({"XPENDING", "jobs", "g"})).substr(0, 13), "[(integer) 0,");
  }
}

TEST_F(DeadLetterCommands, XreadgroupClaimSkipsThemAndStillReadsNewEntries) {
  for (resp::Protocol proto : kProtos) {
    SCOPED_TRACE(ProtoName(proto));
    Reset();
    Setup(proto);
    Run({"XCLAIM", "jobs", "g", "w1", "0", "1-0", "TIME", "0"});  // 2 deliveries, idlest
    Run({"XADD", "jobs", "3-0", "job", "c"});
    std::string r = Decode(H().Run2(
        {"XREADGROUP", "GROUP", "g", "w2", "COUNT", "2", "CLAIM", "100", "STREAMS", "jobs", ">"}));
    // 2-0 is claimed (delivered once before), 3-0 is new; 1-0 was moved.
    EXPECT_EQ(r,
              "[[\"jobs\", [[\"2-0\", [\"job\", \"b\"], (integer) 10000, (integer) 1], "
              "[\"3-0\", [\"job\", \"c\"], (integer) 0, (integer) 0]]]]");
    EXPECT_EQ(Dlq().substr(0, 2), "[[");
    EXPECT_EQ(Decode(H().Run2({"XLEN", "dlq"})), "(integer) 1");
    // Only dead letters and nothing else to give: the reply is empty (null), the move happened.
    Run({"XCLAIM", "jobs", "g", "w1", "0", "2-0", "RETRYCOUNT", "2"});
    H().Advance(1000);
    EXPECT_EQ(Decode(H().Run2({"XREADGROUP", "GROUP", "g", "w2", "COUNT", "1", "CLAIM", "500",
                               "STREAMS", "jobs", ">"})),
              "[[\"jobs\", [[\"3-0\", [\"job\", \"c\"], (integer) 1000, (integer) 1]]]]");
    EXPECT_EQ(Decode(H().Run2({"XLEN", "dlq"})), "(integer) 2");
    Run({"XCLAIM", "jobs", "g", "w1", "0", "3-0", "RETRYCOUNT", "2"});
    H().Advance(1000);
    EXPECT_EQ(Decode(H().Run2(
                  {"XREADGROUP", "GROUP", "g", "w2", "CLAIM", "500", "STREAMS", "jobs", ">"})),
              "(nil-array)");
    EXPECT_EQ(Decode(H().Run2({"XLEN", "dlq"})), "(integer) 3");
  }
}

// MAXSIZE sizes the claim before it runs: an entry it will dead-letter takes no room, so the
// claim hands out exactly the entries that were sized.
TEST_F(DeadLetterCommands, XreadgroupClaimMaxsizeDoesNotSizeDeadLetters) {
  Setup(resp::Protocol::kResp2);
  Run({"XADD", "jobs", "3-0", "job", std::string(200, 'x')});
  Run({"XREADGROUP", "GROUP", "g", "w1", "STREAMS", "jobs", ">"});
  Run({"XCLAIM", "jobs", "g", "w1", "0", "1-0", "TIME", "0"});  // 2 deliveries, idlest
  H().Advance(1000);
  EXPECT_EQ(Decode(Run({"XREADGROUP", "GROUP", "g", "w2", "MAXSIZE", "100", "CLAIM", "100",
                        "STREAMS", "jobs", ">"})),
            "[[\"jobs\", [[\"2-0\", [\"job\", \"b\"], (integer) 11000, (integer) 1]]]]");
  EXPECT_EQ(Decode(Run({"XLEN", "dlq"})), "(integer) 1");
  EXPECT_EQ(Decode(Run({"XPENDING", "jobs", "g", "-", "+", "10", "w1"})),
            "[[\"3-0\", \"w1\", (integer) 1000, (integer) 1]]");
}

TEST_F(DeadLetterCommands, XnackFatalMovesAtOnceAndFailKeepsReleasing) {
  for (resp::Protocol proto : kProtos) {
    SCOPED_TRACE(ProtoName(proto));
    Reset();
    Setup(proto);
    std::string dl_id = Ts();
    EXPECT_EQ(Run({"XNACK", "jobs", "g", "FATAL", "IDS", "2", "1-0", "9-0"}), ":1\r\n");
    EXPECT_EQ(Dlq(), "[" + Letter(dl_id, 1, "w1", "fatal", "a") + "]");
    EXPECT_EQ(Run({"XNACK", "jobs", "g", "FAIL", "IDS", "1", "2-0"}), ":1\r\n");
    EXPECT_EQ(Decode(H().Run2({"XPENDING", "jobs", "g", "-", "+", "10"})),
              "[[\"2-0\", \"\", (integer) -1, (integer) 1]]");
    // A released entry keeps its counter: one more claim is allowed, the next one moves it.
    Run({"XCLAIM", "jobs", "g", "w2", "0", "2-0"});
    EXPECT_EQ(Decode(Run({"XCLAIM", "jobs", "g", "w2", "0", "2-0"})), "[]");
    EXPECT_EQ(Decode(H().Run2({"XLEN", "dlq"})), "(integer) 2");
  }
}

TEST_F(DeadLetterCommands, ErrorsAndHelp) {
  for (resp::Protocol proto : kProtos) {
    SCOPED_TRACE(ProtoName(proto));
    Reset();
    Setup(proto);
    Run({"SET", "str", "x"});
    auto set = [&](std::vector<std::string> tail) {
      std::vector<std::string> argv{"STREAMD.DEADLETTER", "SET"};
      argv.insert(argv.end(), tail.begin(), tail.end());
      return Run(argv);
    };
    EXPECT_EQ(set({"nokey", "g", "MAXDELIVERIES", "1", "STREAM", "d"}),
              "-NOGROUP No such key 'nokey' or consumer group 'g'\r\n");
    EXPECT_EQ(set({"jobs", "nogroup", "MAXDELIVERIES", "1", "STREAM", "d"}),
              "-NOGROUP No such key 'jobs' or consumer group 'nogroup'\r\n");
    EXPECT_EQ(set({"str", "g", "MAXDELIVERIES", "1", "STREAM", "d"}),
              "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    EXPECT_EQ(set({"jobs", "g", "MAXDELIVERIES", "x", "STREAM", "d"}),
              "-ERR value is not an integer or out of range\r\n");
    EXPECT_EQ(set({"jobs", "g", "MAXDELIVERIES", "0", "STREAM", "d"}),
              "-ERR MAXDELIVERIES must be a positive integer\r\n");
    EXPECT_EQ(set({"jobs", "g", "MAXDELIVERIES", "-3", "STREAM", "d"}),
              "-ERR MAXDELIVERIES must be a positive integer\r\n");
    EXPECT_EQ(set({"jobs", "g", "MAXDELIVERIES", "1", "BOGUS", "d"}), "-ERR syntax error\r\n");
    EXPECT_EQ(set({"jobs", "g", "MAXDELIVERIES", "1", "STREAM", "d", "extra"}),
              "-ERR syntax error\r\n");
    EXPECT_EQ(set({"jobs", "g", "MAXDELIVERIES", "1", "MAXDELIVERIES", "2"}),
              "-ERR STREAMD.DEADLETTER SET requires both MAXDELIVERIES and STREAM\r\n");
    EXPECT_EQ(set({"jobs", "g", "MAXDELIVERIES", "1", "STREAM", "jobs"}),
              "-ERR the dead-letter stream must be a different key than the stream\r\n");
    EXPECT_EQ(Run({"STREAMD.DEADLETTER", "SET", "jobs", "g"}),
              "-ERR wrong number of arguments for 'streamd.deadletter|set' command\r\n");
    EXPECT_EQ(Run({"STREAMD.DEADLETTER", "GET", "str", "g"}),
              "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    EXPECT_EQ(Run({"STREAMD.DEADLETTER", "REMOVE", "nokey", "g"}),
              "-NOGROUP No such key 'nokey' or consumer group 'g'\r\n");
    EXPECT_EQ(Run({"STREAMD.DEADLETTER", "BOGUS"}),
              "-ERR unknown subcommand 'BOGUS'. Try STREAMD.DEADLETTER HELP.\r\n");
    std::string help = Decode(Run({"STREAMD.DEADLETTER", "HELP"}));
    EXPECT_NE(help.find("STREAMD.DEADLETTER <subcommand> [<arg> [value] [opt] ...]. Subcommands "
                        "are:"),
              std::string::npos)
        << help;
    EXPECT_NE(help.find("REMOVE <key> <groupname>"), std::string::npos) << help;
    // A policy that is absent reads as null; REMOVE says whether there was one.
    EXPECT_EQ(Run({"STREAMD.DEADLETTER", "REMOVE", "jobs", "g"}), ":1\r\n");
    EXPECT_EQ(Run({"STREAMD.DEADLETTER", "REMOVE", "jobs", "g"}), ":0\r\n");
    EXPECT_EQ(Run({"STREAMD.DEADLETTER", "GET", "jobs", "g"}),
              proto == resp::Protocol::kResp2 ? "$-1\r\n" : "_\r\n");
  }
}

TEST_F(DeadLetterCommands, AWrongTypeDeadLetterKeyRefusesTheClaimAndChangesNothing) {
  Setup(resp::Protocol::kResp2);
  Run({"XCLAIM", "jobs", "g", "w1", "0", "1-0"});  // 2 deliveries: the next claim moves it
  Run({"SET", "dlq", "not a stream"});
  std::string before = Decode(Run({"XPENDING", "jobs", "g", "-", "+", "10"}));
  const std::string wrongtype =
      "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
  EXPECT_EQ(Run({"XCLAIM", "jobs", "g", "w2", "0", "1-0"}), wrongtype);
  EXPECT_EQ(Run({"XAUTOCLAIM", "jobs", "g", "w2", "0", "0"}), wrongtype);
  EXPECT_EQ(Run({"XREADGROUP", "GROUP", "g", "w2", "CLAIM", "0", "STREAMS", "jobs", ">"}),
            wrongtype);
  EXPECT_EQ(Run({"XNACK", "jobs", "g", "FATAL", "IDS", "1", "1-0"}), wrongtype);
  EXPECT_EQ(Decode(Run({"XPENDING", "jobs", "g", "-", "+", "10"})), before);
  // Plain reads and FAIL releases do not dead-letter, so they do not look at the key.
  EXPECT_EQ(Run({"XNACK", "jobs", "g", "FAIL", "IDS", "1", "1-0"}), ":1\r\n");
  EXPECT_EQ(Decode(Run({"XREADGROUP", "GROUP", "g", "w2", "STREAMS", "jobs", ">"})), "(nil-array)");
  // Once the key is a stream again, the claim moves the entry.
  Run({"DEL", "dlq"});
  EXPECT_EQ(Decode(Run({"XCLAIM", "jobs", "g", "w2", "0", "1-0"})), "[]");
  EXPECT_EQ(Decode(Run({"XLEN", "dlq"})), "(integer) 1");
}

TEST_F(DeadLetterCommands, XinfoShowsThePolicyOnlyForGroupsThatHaveOne) {
  for (resp::Protocol proto : kProtos) {
    SCOPED_TRACE(ProtoName(proto));
    Reset();
    Setup(proto);
    Run({"XGROUP", "CREATE", "jobs", "plain", "$"});
    std::string groups = Decode(H().Run2({"XINFO", "GROUPS", "jobs"}));
    EXPECT_EQ(groups,
              "[[\"name\", \"g\", \"consumers\", (integer) 1, \"pending\", (integer) 2, "
              "\"last-delivered-id\", \"2-0\", \"entries-read\", (integer) 2, \"lag\", (integer) "
              "0, \"max-deliveries\", (integer) 2, \"dead-letter-stream\", \"dlq\"], [\"name\", "
              "\"plain\", \"consumers\", (integer) 0, \"pending\", (integer) 0, "
              "\"last-delivered-id\", \"2-0\", \"entries-read\", (nil), \"lag\", (integer) 0]]");
    // RESP3 maps: the counts in the map headers match what follows (the harness checks one
    // complete reply).
    EXPECT_NE(Decode(H().Run({"XINFO", "GROUPS", "jobs"})).find("\"dead-letter-stream\": \"dlq\""),
              std::string::npos);
    std::string full = Decode(Run({"XINFO", "STREAM", "jobs", "FULL"}));
    std::size_t nacked = full.find("nacked-count");
    ASSERT_NE(nacked, std::string::npos);
    EXPECT_NE(full.find("max-deliveries", nacked), std::string::npos) << full;
    EXPECT_EQ(full.find("max-deliveries", full.find("\"plain\"")), std::string::npos) << full;
  }
}

using test::CaptureSink;

TEST_F(DeadLetterCommands, KeyspaceEventsAreXaddsOnTheDeadLetterKey) {
  Setup(resp::Protocol::kResp3);
  CaptureSink sink;
  H().server().notifier().set_sink(&sink);
  Run({"CONFIG", "SET", "notify-keyspace-events", "KEAn"});
  Run({"XCLAIM", "jobs", "g", "w1", "0", "1-0"});
  sink.got.clear();
  Run({"XCLAIM", "jobs", "g", "w2", "0", "1-0"});
  // The consumer XCLAIM created, then what XADD to a new key publishes; XACK publishes nothing.
  EXPECT_EQ(sink.got, (std::vector<std::string>{
                          "__keyspace@0__:jobs xgroup-createconsumer",
                          "__keyevent@0__:xgroup-createconsumer jobs",
                          "__keyspace@0__:dlq new",
                          "__keyevent@0__:new dlq",
                          "__keyspace@0__:dlq xadd",
                          "__keyevent@0__:xadd dlq",
                      }));
  H().server().notifier().set_sink(nullptr);
}

TEST_F(DeadLetterCommands, InfoAndCommandDocsNameTheExtension) {
  Setup(resp::Protocol::kResp3);
  Run({"XCLAIM", "jobs", "g", "w1", "0", "1-0"});
  Run({"XCLAIM", "jobs", "g", "w1", "0", "1-0"});
  EXPECT_NE(Decode(Run({"INFO", "stats"})).find("streamd_dead_lettered_entries:1"),
            std::string::npos);
  Run({"XGROUP", "CREATE", "jobs", "plain", "0"});
  std::string metrics = metrics_text(H().server());
  EXPECT_NE(
      metrics.find("# TYPE streamd_dead_letters_total counter\nstreamd_dead_letters_total 1\n"),
      std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("streamd_stream_group_dead_letters_total{db=\"db0\",stream=\"jobs\","
                         "group=\"g\"} 1\n"),
            std::string::npos)
      << metrics;
  // Only groups with a policy have the series ("plain" has none).
  std::size_t family = metrics.find("# TYPE streamd_stream_group_dead_letters_total");
  ASSERT_NE(family, std::string::npos);
  std::string lines = metrics.substr(family, metrics.find("# HELP", family) - family);
  EXPECT_EQ(lines.find("plain"), std::string::npos) << lines;
  EXPECT_NE(metrics.find("group=\"plain\""), std::string::npos);  // it has the others
  std::string docs = Decode(Run({"COMMAND", "DOCS", "streamd.deadletter"}));
  EXPECT_NE(docs.find("\"module\": \"streamd\""), std::string::npos) << docs;
  EXPECT_NE(docs.find("streamd.deadletter|set"), std::string::npos) << docs;
  EXPECT_NE(Decode(Run({"COMMAND", "INFO", "streamd.deadletter"})).find("streamd.deadletter|get"),
            std::string::npos);
}

}  // namespace
}  // namespace streamd::cmd
