// IoBatch: the same results through io_uring and through direct system calls, every operation
// finished when run() returns (nothing left in flight), tags handed back, batches bigger than
// the submission queue.
#include "streamd/net/io_batch.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>
#include "socket_pair.h"

#include <cerrno>
#include <map>
#include <string>
#include <vector>

namespace streamd::net {
namespace {

using Pair = testing::SocketPair;

std::map<uint32_t, int64_t> by_tag(const std::vector<IoBatch::Completion>& done) {
  std::map<uint32_t, int64_t> m;
  for (const auto& c : done) EXPECT_TRUE(m.emplace(c.tag, c.result).second) << "tag twice";
  return m;
}

class IoBatchTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    bool ring = batch.open(GetParam());
    if (GetParam() && !ring) GTEST_SKIP() << "io_uring not available here";
    EXPECT_EQ(batch.uses_ring(), GetParam());
  }
  IoBatch batch;
};

TEST_P(IoBatchTest, SendsAndReceivesWithTags) {
  Pair a, b;
  batch.send(a.fd[0], "hello", 5, 7);
  batch.send(b.fd[0], "world!", 6, 9);
  auto sent = by_tag(batch.run());
  EXPECT_EQ(sent, (std::map<uint32_t, int64_t>{{7, 5}, {9, 6}}));

  char ba[16], bb[16];
  batch.recv(a.fd[1], ba, sizeof ba, 1);
  batch.recv(b.fd[1], bb, sizeof bb, 2);
  auto got = by_tag(batch.run());
  ASSERT_EQ(got, (std::map<uint32_t, int64_t>{{1, 5}, {2, 6}}));
  EXPECT_EQ(std::string(ba, 5), "hello");
  EXPECT_EQ(std::string(bb, 6), "world!");
}

TEST_P(IoBatchTest, NothingToReadCompletesWithEagainInsteadOfWaiting) {
  Pair p;
  char buf[8];
  batch.recv(p.fd[1], buf, sizeof buf, 3);
  auto got = by_tag(batch.run());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[3], -EAGAIN);
  // Data written afterwards is not consumed by a read left behind in the kernel.
  ASSERT_EQ(::write(p.fd[0], "z", 1), 1);
  EXPECT_EQ(::read(p.fd[1], buf, sizeof buf), 1);
}

TEST_P(IoBatchTest, ClosedPeerReadsZeroAndFullSocketWritesShort) {
  Pair p;
  std::string big(8 << 20, 'x');  // far more than a socket buffer holds
  batch.send(p.fd[0], big.data(), big.size(), 1);
  auto sent = by_tag(batch.run());
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_GT(sent[1], 0);
  EXPECT_LT(sent[1], static_cast<int64_t>(big.size()));
  batch.send(p.fd[0], big.data(), big.size(), 2);
  EXPECT_EQ(by_tag(batch.run())[2], -EAGAIN);

  Pair q;
  ::close(q.fd[0]);
  q.fd[0] = -1;
  char buf[4];
  batch.recv(q.fd[1], buf, sizeof buf, 5);
  EXPECT_EQ(by_tag(batch.run())[5], 0);
}

TEST_P(IoBatchTest, MoreOperationsThanTheQueueHolds) {
  constexpr int kOps = 700;  // more than the 512-entry submission queue
  // Spread over a few sockets: each tiny write costs a whole buffer entry in the kernel.
  std::vector<Pair> pairs(10);
  for (int i = 0; i < kOps; ++i) batch.send(pairs[i % 10].fd[0], "ab", 2, static_cast<uint32_t>(i));
  auto sent = by_tag(batch.run());
  ASSERT_EQ(sent.size(), static_cast<std::size_t>(kOps));
  for (const auto& [tag, r] : sent) EXPECT_EQ(r, 2) << tag;
  EXPECT_TRUE(batch.run().empty());
  ssize_t total = 0;
  for (Pair& p : pairs) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(p.fd[1], buf, sizeof buf)) > 0) total += n;
  }
  EXPECT_EQ(total, 2 * kOps);
}

TEST_P(IoBatchTest, BadDescriptorIsReportedNotFatal) {
  char buf[4];
  batch.recv(-1, buf, sizeof buf, 4);
  auto got = by_tag(batch.run());
  EXPECT_EQ(got[4], -EBADF);
}

INSTANTIATE_TEST_SUITE_P(RingAndDirect, IoBatchTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return std::string(i.param ? "Ring" : "Direct");
                         });

}  // namespace
}  // namespace streamd::net
