// The fixture of the in-process stream handler tests (stream_*_commands_test.cc): a command
// harness on a manual clock (no sleeps: time moves only by Advance) and helpers to run a command
// in both protocols and to read a stream's state back.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "command_harness.h"

namespace streamd::cmd {

class StreamHandlerTest : public ::testing::Test {
 protected:
  static constexpr const char* kSyntax = "-ERR syntax error\r\n";
  static constexpr const char* kNotInteger = "-ERR value is not an integer or out of range\r\n";
  static constexpr const char* kInvalidId =
      "-ERR Invalid stream ID specified as stream command argument\r\n";
  static constexpr const char* kWrongType =
      "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
  static constexpr const char* kNoSuchKey = "-ERR no such key\r\n";

  // Runs `argv` in RESP2 and then in RESP3 and expects the same bytes (errors, integers, bulk
  // strings and arrays of them are the same in both). For commands whose second run sees the
  // first one's effects, use Run2/Run directly.
  std::string Both(const std::vector<std::string>& argv) {
    std::string r2 = h.Run2(argv);
    std::string r3 = h.Run(argv);
    EXPECT_EQ(r2, r3) << Line(argv);
    return r3;
  }
  // Runs an error-returning command in both protocols and checks that it changed nothing the
  // stream's XINFO STREAM shows (length, IDs, counters, first and last entries).
  std::string Refused(const std::vector<std::string>& argv, const std::string& key) {
    std::string before = State(key);
    std::string r = Both(argv);
    EXPECT_EQ(r.substr(0, 1), "-") << Line(argv);
    EXPECT_EQ(State(key), before) << Line(argv);
    return r;
  }
  // The XINFO STREAM reply (or the error for a missing key), decoded.
  std::string State(const std::string& key) {
    return test::Decode(h.Run2({"XINFO", "STREAM", key}));
  }
  std::string Info(const std::string& key, const std::string& field) {
    return test::Field(h.Run({"XINFO", "STREAM", key}), field);
  }
  // The IDs of XRANGE key - +, comma-separated.
  std::string Ids(const std::string& key) {
    std::string out;
    for (const std::string& e : test::Elements(h.Run2({"XRANGE", key, "-", "+"}))) {
      // "[\"1-1\", [...]]": the ID is the first bulk
      std::size_t a = e.find('"'), b = e.find('"', a + 1);
      out += (out.empty() ? "" : ",") + e.substr(a + 1, b - a - 1);
    }
    return out;
  }
  static std::string Bulk(const std::string& s) {
    return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
  }
  static std::string Int(long long v) { return ":" + std::to_string(v) + "\r\n"; }
  static std::string Line(const std::vector<std::string>& argv) {
    std::string l;
    for (const auto& a : argv) l += (l.empty() ? "" : " ") + a;
    return l;
  }

  test::CommandHarness h;
};

}  // namespace streamd::cmd
