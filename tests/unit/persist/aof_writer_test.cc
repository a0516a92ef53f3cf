#include "streamd/persist/aof_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "resp/encode.h"
#include "streamd/persist/file_util.h"

namespace streamd::persist {
namespace {

using test_util::enc;

class AofWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/streamd-aof-writer-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = join_path(dir_, "a.1.incr.aof");
  }
  void TearDown() override {
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  int open_append() {
    return ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  }
  std::string contents() {
    int err = 0;
    return read_file(path_, &err).value_or("<unreadable>");
  }

  std::string dir_, path_;
};

TEST_F(AofWriterTest, SelectsTheDatabaseAndWrapsMultiRecordUnits) {
  AofWriter w;
  w.set_policy(FsyncPolicy::kAlways);
  w.open_file(open_append(), path_, 0);

  cmd::PropagationBatch one;
  one.add(0, {"SET", "a", "1"});
  uint64_t t1 = w.append(one);

  cmd::PropagationBatch two;
  two.add(0, {"XADD", "s", "1-1", "f", "v"});
  two.add(3, {"DEL", "b"});
  uint64_t t2 = w.append(two);
  EXPECT_LT(t1, t2);
  EXPECT_TRUE(w.must_hold(t1));
  EXPECT_EQ(contents(), "");  // nothing leaves before sync()

  w.sync();
  EXPECT_FALSE(w.must_hold(t2));
  EXPECT_EQ(w.synced_seq(), t2);
  EXPECT_EQ(contents(), enc({"SELECT", "0"}) + enc({"SET", "a", "1"}) + enc({"MULTI"}) +
                            enc({"XADD", "s", "1-1", "f", "v"}) + enc({"SELECT", "3"}) +
                            enc({"DEL", "b"}) + enc({"EXEC"}));
  EXPECT_EQ(w.file_size(), contents().size());

  // A new file starts with a SELECT again.
  ASSERT_EQ(w.close_file(), 0);
  ::unlink(path_.c_str());
  w.open_file(open_append(), path_, 0);
  cmd::PropagationBatch three;
  three.add(3, {"DEL", "c"});
  w.append(three);
  w.sync();
  EXPECT_EQ(contents(), enc({"SELECT", "3"}) + enc({"DEL", "c"}));
}

TEST_F(AofWriterTest, EverysecHoldsRepliesOnlyUntilWritten) {
  AofWriter w;
  w.set_policy(FsyncPolicy::kEverysec);
  w.open_file(open_append(), path_, 0);
  cmd::PropagationBatch u;
  u.add(0, {"SET", "a", "1"});
  uint64_t t = w.append(u);
  EXPECT_TRUE(w.must_hold(t));
  w.sync();
  EXPECT_FALSE(w.must_hold(t));
  EXPECT_EQ(w.written_seq(), t);
  // WAITAOF: fsyncs at once.
  EXPECT_TRUE(w.fsync_through(t));
  EXPECT_EQ(w.synced_seq(), t);
  // The background thread catches up on its own too.
  uint64_t t2 = w.append(u);
  w.sync();
  for (int i = 0; i < 30 && w.synced_seq() < t2; ++i) ::usleep(100 * 1000);
  EXPECT_EQ(w.synced_seq(), t2);
}

TEST_F(AofWriterTest, AWriteErrorKeepsTheBufferAndClearsWhenWritingWorksAgain) {
  int full = ::open("/dev/full", O_WRONLY | O_APPEND | O_CLOEXEC);
  if (full < 0) GTEST_SKIP() << "/dev/full not available";
  AofWriter w;
  w.set_policy(FsyncPolicy::kAlways);
  w.open_file(full, "/dev/full", 0);
  cmd::PropagationBatch u;
  u.add(0, {"SET", "a", "1"});
  uint64_t t = w.append(u);
  w.sync();
  EXPECT_FALSE(w.write_ok());
  EXPECT_EQ(w.last_errno(), ENOSPC);
  EXPECT_GT(w.buffered(), 0u);
  // Only the clients whose own records are not on disk wait; others are served.
  EXPECT_TRUE(w.must_hold(t));
  EXPECT_FALSE(w.must_hold(0));

  // Space comes back (here: another file): the retry writes everything and clears the error.
  w.open_file(open_append(), path_, 0);
  w.sync();
  EXPECT_TRUE(w.write_ok());
  EXPECT_FALSE(w.must_hold(t));
  EXPECT_EQ(contents(), enc({"SELECT", "0"}) + enc({"SET", "a", "1"}));
}

TEST_F(AofWriterTest, NoPolicyWritesWithoutFsync) {
  AofWriter w;
  w.set_policy(FsyncPolicy::kNo);
  w.open_file(open_append(), path_, 0);
  cmd::PropagationBatch u;
  u.add(1, {"DEL", "x"});
  uint64_t t = w.append(u);
  w.sync();
  EXPECT_FALSE(w.must_hold(t));
  EXPECT_EQ(w.synced_seq(), 0u);
  EXPECT_EQ(contents(), enc({"SELECT", "1"}) + enc({"DEL", "x"}));
}

}  // namespace
}  // namespace streamd::persist
