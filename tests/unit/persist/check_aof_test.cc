#include "streamd/persist/check_aof.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "resp/encode.h"
#include "streamd/persist/file_util.h"
#include "streamd/resp/command_encoder.h"

namespace streamd::persist {
namespace {

using test_util::enc;

class CheckAofTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/streamd-check-aof-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const char* f : {"a.aof", "a.1.base.aof", "a.1.incr.aof", "a.manifest"}) {
      ::unlink(join_path(dir_, f).c_str());
    }
    ::rmdir(dir_.c_str());
  }
  std::string write(const std::string& name, const std::string& data) {
    std::string p = join_path(dir_, name);
    std::ofstream(p, std::ios::binary) << data;
    return p;
  }
  int run(std::initializer_list<const char*> args, std::string* out = nullptr) {
    std::vector<char*> argv;
    for (const char* a : args) argv.push_back(const_cast<char*>(a));
    char* buf = nullptr;
    std::size_t len = 0;
    std::FILE* f = ::open_memstream(&buf, &len);
    int rc = check_aof_main(static_cast<int>(argv.size()), argv.data(), f);
    std::fclose(f);
    if (out) *out = std::string(buf, len);
    std::free(buf);
    return rc;
  }
  std::string dir_;
};

TEST_F(CheckAofTest, ValidTruncatedAndUnterminatedMulti) {
  std::string good = enc({"SET", "a", "1"}) + enc({"MULTI"}) + enc({"DEL", "a"}) + enc({"EXEC"});
  CheckResult r = check_aof_file(write("a.aof", good));
  EXPECT_TRUE(r.valid);
  EXPECT_EQ(r.ok_up_to, good.size());

  r = check_aof_file(write("a.aof", good + enc({"SET", "b", "2"}).substr(0, 9)));
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.ok_up_to, good.size());

  std::string open_multi = enc({"MULTI"}) + enc({"SET", "c", "3"});
  r = check_aof_file(write("a.aof", good + open_multi));
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.error, "Reached EOF before reading EXEC for MULTI");
  EXPECT_EQ(r.ok_up_to, good.size());
}

TEST_F(CheckAofTest, FixTruncatesTheFile) {
  std::string good = enc({"SET", "a", "1"});
  std::string path = write("a.aof", good + "*2\r\n$3\r\nDEL\r\n$1\r\n");
  std::string out;
  EXPECT_EQ(run({path.c_str()}, &out), 1);
  EXPECT_NE(out.find("is not valid. Use the --fix option"), std::string::npos) << out;
  EXPECT_EQ(run({"--fix", path.c_str()}, &out), 0);
  EXPECT_NE(out.find("Successfully truncated AOF"), std::string::npos) << out;
  EXPECT_EQ(file_size(path).value_or(0), good.size());
  EXPECT_EQ(run({path.c_str()}, &out), 0);
}

TEST_F(CheckAofTest, ChecksEveryFileOfAManifestAndFixesOnlyTheLast) {
  write("a.1.base.aof", enc({"SET", "a", "1"}));
  std::string incr = enc({"SET", "b", "2"});
  write("a.1.incr.aof", incr + "*1\r\n$4\r\nPI");
  std::string manifest =
      write("a.manifest", "file a.1.base.aof seq 1 type b\nfile a.1.incr.aof seq 1 type i\n");
  std::string out;
  EXPECT_EQ(run({manifest.c_str()}, &out), 1);
  EXPECT_NE(out.find("BASE AOF a.1.base.aof is valid"), std::string::npos) << out;
  EXPECT_EQ(run({"--fix", manifest.c_str()}, &out), 0) << out;
  EXPECT_EQ(file_size(join_path(dir_, "a.1.incr.aof")).value_or(0), incr.size());
  EXPECT_NE(out.find("All AOF files and manifest are valid"), std::string::npos) << out;

  // A damaged base (not the last file) cannot be fixed by truncation.
  write("a.1.base.aof", "*1\r\n$4\r\nPI");
  EXPECT_EQ(run({"--fix", manifest.c_str()}, &out), 1) << out;
}

}  // namespace
}  // namespace streamd::persist
