#include "streamd/persist/manifest.h"

#include <gtest/gtest.h>

namespace streamd::persist {
namespace {

TEST(Manifest, SerializesLikeRedis) {
  Manifest m;
  m.base = AofFileInfo{"appendonly.aof.1.base.aof", 1, AofFileType::kBase};
  m.incrs.push_back({"appendonly.aof.1.incr.aof", 1, AofFileType::kIncr});
  // Byte for byte what redis-server 7.0.15 writes for a fresh directory.
  EXPECT_EQ(m.serialize(),
            "file appendonly.aof.1.base.aof seq 1 type b\n"
            "file appendonly.aof.1.incr.aof seq 1 type i\n");
}

TEST(Manifest, RoundTrips) {
  Manifest m;
  m.base = AofFileInfo{"a.2.base.aof", 2, AofFileType::kBase};
  m.history.push_back({"a.1.base.aof", 1, AofFileType::kHistory});
  m.incrs.push_back({"a.1.incr.aof", 1, AofFileType::kIncr});
  m.incrs.push_back({"a.2.incr.aof", 2, AofFileType::kIncr});
  Manifest back;
  std::string err;
  ASSERT_TRUE(parse_manifest(m.serialize(), back, &err)) << err;
  EXPECT_EQ(back, m);
}

TEST(Manifest, QuotesNamesThatNeedIt) {
  Manifest m;
  m.base = AofFileInfo{"my file\x01.aof", 1, AofFileType::kBase};
  std::string text = m.serialize();
  EXPECT_EQ(text, "file \"my file\\x01.aof\" seq 1 type b\n");
  Manifest back;
  ASSERT_TRUE(parse_manifest(text, back, nullptr));
  EXPECT_EQ(back.base->name, "my file\x01.aof");
}

TEST(Manifest, AcceptsCommentsBlankLinesAndUnknownKeysInAnyOrder) {
  Manifest m;
  std::string err;
  ASSERT_TRUE(
      parse_manifest("# comment\n\ntype b seq 3 file x.3.base.aof future 1\n"
                     "file x.3.incr.aof seq 3 type i\r\n",
                     m, &err))
      << err;
  EXPECT_EQ(m.base->seq, 3);
  ASSERT_EQ(m.incrs.size(), 1u);
  EXPECT_EQ(m.incrs[0].name, "x.3.incr.aof");
}

TEST(Manifest, RejectsMalformedManifests) {
  const char* bad[] = {
      "",                                            // no files
      "file a seq 1\n",                              // no type
      "file a seq 1 type b extra\n",                 // odd number of fields
      "file a seq 0 type b\n",                       // seq must be positive
      "file a seq x type b\n",                       // seq not a number
      "file a seq 1 type z\n",                       // unknown type
      "file ../a seq 1 type b\n",                    // a path, not a name
      "file a seq 1 type b\nfile b seq 2 type b\n",  // two bases
      "file a seq 2 type i\nfile b seq 1 type i\n",  // incr out of order
      "file \"a seq 1 type b\n",                     // unbalanced quote
  };
  for (const char* text : bad) {
    Manifest m;
    std::string err;
    EXPECT_FALSE(parse_manifest(text, m, &err)) << text;
    EXPECT_FALSE(err.empty());
  }
}

// Found by tests/fuzz/aof_loader_fuzz.cc: a quoted name may hold a NUL byte, and the file
// functions take C strings, so "a.aof\0x" would open (and, when truncated, cut) "a.aof", and a
// name starting with NUL the directory itself.
TEST(Manifest, RejectsNamesWithNulBytes) {
  for (std::string text : {std::string("file \"a.aof\\x00x\" seq 1 type b\n"),
                           std::string("file 'a.aof\0x' seq 1 type b\n", 28),
                           std::string("file '\0' seq 1 type i\n", 22)}) {
    Manifest m;
    std::string err;
    EXPECT_FALSE(parse_manifest(text, m, &err)) << text;
    EXPECT_NE(err.find("invalid file name"), std::string::npos) << err;
  }
}

TEST(Manifest, FileNames) {
  EXPECT_EQ(manifest_name("appendonly.aof"), "appendonly.aof.manifest");
  EXPECT_EQ(base_file_name("appendonly.aof", 3), "appendonly.aof.3.base.aof");
  EXPECT_EQ(incr_file_name("appendonly.aof", 12), "appendonly.aof.12.incr.aof");
  EXPECT_EQ(temp_manifest_name("appendonly.aof"), "temp-appendonly.aof.manifest");
}

}  // namespace
}  // namespace streamd::persist
