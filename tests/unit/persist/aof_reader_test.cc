#include "streamd/persist/aof_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "streamd/resp/command_encoder.h"

namespace streamd::persist {
namespace {

using Status = AofReader::Status;

std::string cmd(std::initializer_list<std::string_view> argv) {
  std::string out;
  resp::append_command(out, argv);
  return out;
}

std::vector<std::vector<std::string>> read_all(AofReader& r, Status& end) {
  std::vector<std::vector<std::string>> out;
  for (;;) {
    Status st = r.next();
    if (st != Status::kCommand) {
      end = st;
      return out;
    }
    out.emplace_back(r.argv().begin(), r.argv().end());
  }
}

TEST(CommandEncoder, EncodesBulkArray) {
  EXPECT_EQ(cmd({"SET", "k", ""}), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
  std::vector<std::string> v = {"XADD", "s", "1-1", "f", std::string(12, 'x')};
  std::string out;
  resp::append_command(out, std::span<const std::string>(v));
  EXPECT_EQ(out.size(), resp::encoded_command_size(std::span<const std::string>(v)));
}

TEST(AofReader, ReadsCommandsAndOffsets) {
  std::string a = cmd({"SELECT", "0"});
  std::string b = cmd({"XADD", "s", "1-1", "f", "v\r\nwith crlf"});
  AofReader r;
  r.open_memory(a + b);
  ASSERT_EQ(r.next(), Status::kCommand);
  EXPECT_EQ(r.command_offset(), 0u);
  ASSERT_EQ(r.argv().size(), 2u);
  EXPECT_EQ(r.argv()[0], "SELECT");
  ASSERT_EQ(r.next(), Status::kCommand);
  EXPECT_EQ(r.command_offset(), a.size());
  EXPECT_EQ(r.argv()[4], "v\r\nwith crlf");
  EXPECT_EQ(r.next(), Status::kEnd);
  EXPECT_EQ(r.valid_up_to(), a.size() + b.size());
  EXPECT_EQ(r.commands_read(), 2u);
}

TEST(AofReader, EmptyFileEndsAtOnce) {
  AofReader r;
  r.open_memory("");
  EXPECT_EQ(r.next(), Status::kEnd);
}

TEST(AofReader, SkipsAnnotations) {
  std::string data = "#TS:1700000000\r\n" + cmd({"PING"}) + "#TS:1700000001\r\n";
  AofReader r;
  r.open_memory(data);
  Status end;
  auto cmds = read_all(r, end);
  EXPECT_EQ(end, Status::kEnd);
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_EQ(cmds[0][0], "PING");
  EXPECT_EQ(r.valid_up_to(), data.size());
}

TEST(AofReader, EveryPrefixOfAFileIsTruncatedAtTheLastWholeCommand) {
  std::string a = cmd({"SET", "k", "v"});
  std::string b = cmd({"XADD", "s", "1-1", "field", "value"});
  std::string data = a + b;
  for (std::size_t cut = 1; cut < data.size(); ++cut) {
    if (cut == a.size()) continue;
    AofReader r;
    r.open_memory(data.substr(0, cut));
    Status end;
    auto cmds = read_all(r, end);
    EXPECT_EQ(end, Status::kTruncated) << "cut at " << cut;
    EXPECT_EQ(cmds.size(), cut > a.size() ? 1u : 0u);
    EXPECT_EQ(r.valid_up_to(), cut > a.size() ? a.size() : 0u) << "cut at " << cut;
  }
}

TEST(AofReader, CorruptBytesAreReportedWithTheirOffset) {
  std::string a = cmd({"SET", "k", "v"});
  struct Case {
    std::string tail;
    uint64_t offset;  // relative to the end of `a`
  } cases[] = {
      {"!3\r\n", 0},                         // bad command prefix
      {"*2\r\n!3\r\nfoo\r\n", 4},            // bad bulk prefix
      {"*x\r\n", 1},                         // bad count
      {"*2\r\n$3\r\nfooXX$1\r\na\r\n", 11},  // payload not followed by \r\n
      {"*0\r\n", 0},                         // empty command
      {"*1\r\n$-1\r\n", 4},                  // negative bulk length
  };
  for (const auto& c : cases) {
    AofReader r;
    r.open_memory(a + c.tail);
    Status end;
    auto cmds = read_all(r, end);
    EXPECT_EQ(end, Status::kCorrupt) << c.tail;
    EXPECT_EQ(cmds.size(), 1u);
    EXPECT_EQ(r.valid_up_to(), a.size());
    EXPECT_EQ(r.error_offset(), a.size() + c.offset) << c.tail << ": " << r.error();
  }
}

TEST(AofReader, AHugeDeclaredLengthIsATruncationNotAnAllocation) {
  AofReader r;
  r.open_memory("*1\r\n$999999999999\r\nabc");
  EXPECT_EQ(r.next(), Status::kTruncated);
  EXPECT_EQ(r.valid_up_to(), 0u);
}

TEST(AofReader, ReadsFilesLargerThanItsBuffer) {
  char path[] = "/tmp/streamd-aof-reader-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string big(3 << 20, 'b');  // larger than one read chunk
  std::string data;
  for (int i = 0; i < 2000; ++i) data += cmd({"SET", "k" + std::to_string(i), "v"});
  data += cmd({"SET", "big", big});
  data += cmd({"DEL", "k0"});
  {
    std::ofstream f(path, std::ios::binary);
    f << data;
  }
  AofReader r;
  std::string err;
  ASSERT_TRUE(r.open(path, &err)) << err;
  Status end;
  auto cmds = read_all(r, end);
  EXPECT_EQ(end, Status::kEnd);
  ASSERT_EQ(cmds.size(), 2002u);
  EXPECT_EQ(cmds[1999][1], "k1999");
  EXPECT_EQ(cmds[2000][2], big);
  EXPECT_EQ(cmds[2001][0], "DEL");
  std::remove(path);
}

}  // namespace
}  // namespace streamd::persist
