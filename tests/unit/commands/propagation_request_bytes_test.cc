// A command run from a client's request propagates records that copy the client's own argument
// bytes (resp::raw_args) where they are canonical: the records must be byte for byte what
// encoding argv would give, whatever lenient bytes the parser accepted, for the default
// propagation (a write's whole argv) and for XADD's fields.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "command_harness.h"
#include "recording_persistence.h"
#include "streamd/resp/command_encoder.h"
#include "streamd/resp/request_parser.h"

namespace streamd::cmd {
namespace {

using namespace std::literals;

// Keeps each record's bytes as well as its decoded words.
class RawRecording : public test::RecordingPersistence {
 public:
  std::vector<std::string> raw;
  uint64_t append(const PropagationBatch& unit) override {
    for (std::size_t i = 0; i < unit.size(); ++i) raw.emplace_back(unit.record(i));
    return RecordingPersistence::append(unit);
  }
};

std::string Encode(std::vector<std::string_view> argv) {
  std::string out;
  resp::append_command(out, std::span<const std::string_view>(argv));
  return out;
}

struct RequestBytesPropagation : ::testing::Test {
  test::CommandHarness h;
  RawRecording aof;
  void SetUp() override { h.server().set_persistence(&aof); }
  void TearDown() override { h.server().set_persistence(nullptr); }

  // Runs `request` (one whole multibulk command) as the connection does: parsed ahead, then
  // executed with its bytes.
  std::string Send(std::string_view request) {
    resp::RequestParser parser;
    std::vector<std::string_view> args;
    std::size_t used = 0;
    EXPECT_TRUE(parser.parse_ready(request, used, args)) << request;
    EXPECT_EQ(used, request.size());
    std::string out;
    h.dispatcher().execute(h.session(), args, out, /*argv_is_request=*/true);
    return out;
  }
};

TEST_F(RequestBytesPropagation, CanonicalRequestIsRecordedAsSent) {
  std::string request = Encode({"SET", "k", "v\r\n\0x"sv});
  EXPECT_EQ(Send(request), "+OK\r\n");
  ASSERT_EQ(aof.raw.size(), 1u);
  EXPECT_EQ(aof.raw[0], request);
}

TEST_F(RequestBytesPropagation, LenientBytesAreRecordedCanonically) {
  // '_' where the parser skips the '\n' of a header, and "XY" where it skips a terminator.
  EXPECT_EQ(Send("*3\r\n$3\r\nSET\r\n$1\r_k\r\n$1\r\nvXY"), "+OK\r\n");
  ASSERT_EQ(aof.raw.size(), 1u);
  EXPECT_EQ(aof.raw[0], Encode({"SET", "k", "v"}));
  EXPECT_EQ(h.Run({"GET", "k"}), "$1\r\nv\r\n");
}

TEST_F(RequestBytesPropagation, XaddRecordsTheGeneratedIdAndTheSentFields) {
  std::string value(3000, 'v');
  EXPECT_EQ(Send(Encode({"XADD", "s", "MAXLEN", "1", "5-1", "f", ""})), "$3\r\n5-1\r\n");
  // Lenient bytes inside the fields: the record is still canonical.
  EXPECT_EQ(Send("*5\r\n$4\r\nXADD\r\n$1\r\ns\r\n$3\r\n6-1\r\n$1\r_f\r\n$1\r\nvXY"),
            "$3\r\n6-1\r\n");
  EXPECT_EQ(Send(Encode({"XADD", "s", "*", "f1", "a", "f2", value}))[0], '$');
  ASSERT_EQ(aof.records.size(), 3u);
  EXPECT_EQ(aof.raw[0], Encode({"XADD", "s", "MAXLEN", "=", "1", "5-1", "f", ""}));
  EXPECT_EQ(aof.raw[1], Encode({"XADD", "s", "6-1", "f", "v"}));
  std::string id = aof.records[2].substr(7, aof.records[2].find(' ', 7) - 7);
  EXPECT_NE(id, "*");
  EXPECT_EQ(aof.raw[2], Encode({"XADD", "s", id, "f1", "a", "f2", value}));
}

// An XADD with no option is recorded as its request with the ID replaced: the rest, the command's
// name included, is the client's own bytes (Redis too rewrites only the ID argument). With an
// option, or lenient bytes anywhere, the record is encoded, as before.
TEST_F(RequestBytesPropagation, XaddWithoutOptionsIsTheRequestWithItsId) {
  std::string value(200, 'v');
  EXPECT_EQ(Send(Encode({"xadd", "s", "7-*", "f", value})), "$3\r\n7-0\r\n");
  EXPECT_EQ(Send(Encode({"XADD", "s", "8-5", "f", "v"})), "$3\r\n8-5\r\n");
  EXPECT_EQ(Send(Encode({"XAdd", "s", "NOMKSTREAM", "9-*", "f", "v"})), "$3\r\n9-0\r\n");
  EXPECT_EQ(Send("*5\r\n$4\r\nxadd\r\n$1\r_s\r\n$4\r\n10-*\r\n$1\r\nf\r\n$1\r\nv\r\n"),
            "$4\r\n10-0\r\n");
  ASSERT_EQ(aof.raw.size(), 4u);
  EXPECT_EQ(aof.raw[0], Encode({"xadd", "s", "7-0", "f", value}));
  EXPECT_EQ(aof.raw[1], Encode({"XADD", "s", "8-5", "f", "v"}));
  EXPECT_EQ(aof.raw[2], Encode({"XADD", "s", "9-0", "f", "v"}));
  EXPECT_EQ(aof.raw[3], Encode({"XADD", "s", "10-0", "f", "v"}));
  EXPECT_EQ(h.Run({"XLEN", "s"}), ":4\r\n");
}

// Without the request's bytes (a queued command, the REST API, a script) the records are the
// same.
TEST_F(RequestBytesPropagation, QueuedCommandsRecordTheSame) {
  h.Run({"MULTI"});
  EXPECT_EQ(Send(Encode({"XADD", "s", "1-1", "f", "v"})), "+QUEUED\r\n");
  EXPECT_EQ(Send(Encode({"SET", "k", "v"})), "+QUEUED\r\n");
  h.Run({"EXEC"});
  ASSERT_GE(aof.raw.size(), 2u);
  std::vector<std::string> decoded(aof.records.end() - 2, aof.records.end());
  EXPECT_EQ(decoded, (std::vector<std::string>{"XADD s 1-1 f v", "SET k v"}));
  EXPECT_EQ(aof.raw[aof.raw.size() - 2], Encode({"XADD", "s", "1-1", "f", "v"}));
}

}  // namespace
}  // namespace streamd::cmd
