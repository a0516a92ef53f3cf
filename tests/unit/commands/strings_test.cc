// String commands through dispatch, exact reply bytes as redis-server 7.0.15 sends them.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "command_harness.h"
#include "streamd/engine/stream.h"

namespace streamd::test {
namespace {

using resp::Protocol;

const std::string kOk = "+OK\r\n";
const std::string kNull3 = "_\r\n";
const std::string kNull2 = "$-1\r\n";
const std::string kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
const std::string kNotInt = "-ERR value is not an integer or out of range\r\n";
const std::string kNotFloat = "-ERR value is not a valid float\r\n";
const std::string kSyntax = "-ERR syntax error\r\n";

class StringsTest : public ::testing::Test {
 protected:
  std::string Run(const std::vector<std::string>& argv) { return h.Run(argv); }
  std::string Run2(const std::vector<std::string>& argv) { return h.Run2(argv); }
  void MakeStream(const std::string& key) {
    h.server().keyspace().db(0).set(key, engine::Value(std::make_unique<engine::Stream>()));
  }

  CommandHarness h;
};

TEST_F(StringsTest, GetAndSetBinarySafe) {
  EXPECT_EQ(Run({"GET", "missing"}), kNull3);
  EXPECT_EQ(Run2({"GET", "missing"}), kNull2);
  EXPECT_EQ(Run({"SET", "k", std::string("bin\0\xff", 5)}), kOk);
  EXPECT_EQ(Run({"GET", "k"}), std::string("$5\r\nbin\0\xff\r\n", 11));
  EXPECT_EQ(Run({"SET", "k", ""}), kOk);
  EXPECT_EQ(Run({"GET", "k"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"GET"}), "-ERR wrong number of arguments for 'get' command\r\n");
}

TEST_F(StringsTest, SetNxXxGet) {
  EXPECT_EQ(Run({"SET", "nx", "v1", "NX"}), kOk);
  EXPECT_EQ(Run({"SET", "nx", "v2", "nx"}), kNull3);
  EXPECT_EQ(Run2({"SET", "nx", "v2", "NX"}), kNull2);
  EXPECT_EQ(Run({"SET", "xx", "v1", "XX"}), kNull3);
  EXPECT_EQ(Run({"GET", "xx"}), kNull3);
  EXPECT_EQ(Run({"SET", "nx", "v3", "xX"}), kOk);
  EXPECT_EQ(Run({"SET", "g", "v1", "GET"}), kNull3);
  EXPECT_EQ(Run({"SET", "g", "v2", "GET"}), "$2\r\nv1\r\n");
  // With GET the old value is the reply even when NX stops the write.
  EXPECT_EQ(Run({"SET", "g", "v3", "NX", "GET"}), "$2\r\nv2\r\n");
  EXPECT_EQ(Run({"SET", "g", "v4", "XX", "GET"}), "$2\r\nv2\r\n");
  EXPECT_EQ(Run({"GET", "g"}), "$2\r\nv4\r\n");
  EXPECT_EQ(Run({"SET", "g2", "v1", "XX", "GET"}), kNull3);
  EXPECT_EQ(Run({"EXISTS", "g2"}), ":0\r\n");
}

TEST_F(StringsTest, SetExpirations) {
  EXPECT_EQ(Run({"SET", "e", "v", "EX", "100"}), kOk);
  EXPECT_EQ(Run({"PTTL", "e"}), ":100000\r\n");
  EXPECT_EQ(Run({"SET", "e", "v", "PX", "1500"}), kOk);
  EXPECT_EQ(Run({"TTL", "e"}), ":2\r\n");
  EXPECT_EQ(Run({"SET", "e", "v", "EXAT", "4000000000"}), kOk);
  EXPECT_EQ(Run({"PEXPIRETIME", "e"}), ":4000000000000\r\n");
  EXPECT_EQ(Run({"SET", "e", "v", "PXAT", "4000000000123"}), kOk);
  EXPECT_EQ(Run({"SET", "e", "v2", "KEEPTTL"}), kOk);
  EXPECT_EQ(Run({"PEXPIRETIME", "e"}), ":4000000000123\r\n");
  EXPECT_EQ(Run({"SET", "e", "v3", "KEEPTTL", "GET"}), "$2\r\nv2\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "e"}), ":4000000000123\r\n");
  EXPECT_EQ(Run({"SET", "e", "v4"}), kOk);
  EXPECT_EQ(Run({"TTL", "e"}), ":-1\r\n");
  // A past absolute time stores the key already expired: it is gone at the next lookup.
  EXPECT_EQ(Run({"SET", "past", "v", "EXAT", "1"}), kOk);
  EXPECT_EQ(Run({"EXISTS", "past"}), ":0\r\n");
  // The same option twice is accepted; the last value wins.
  EXPECT_EQ(Run({"SET", "e", "v", "EX", "10", "EX", "20"}), kOk);
  EXPECT_EQ(Run({"TTL", "e"}), ":20\r\n");
}

TEST_F(StringsTest, SetErrors) {
  const std::string kInvalid = "-ERR invalid expire time in 'set' command\r\n";
  EXPECT_EQ(Run({"SET", "e", "v", "EX", "0"}), kInvalid);
  EXPECT_EQ(Run({"SET", "e", "v", "PXAT", "-5"}), kInvalid);
  EXPECT_EQ(Run({"SET", "e", "v", "EX", "9223372036854775807"}), kInvalid);
  EXPECT_EQ(Run({"SET", "e", "v", "PX", "9223372036854775807"}), kInvalid);
  EXPECT_EQ(Run({"SET", "e", "v", "EX", "1.5"}), kNotInt);
  EXPECT_EQ(Run({"SET", "e", "v", "EX", "-0"}), kNotInt);
  EXPECT_EQ(Run({"SET", "e", "v", "EX"}), kSyntax);
  EXPECT_EQ(Run({"SET", "k", "v", "NX", "XX"}), kSyntax);
  EXPECT_EQ(Run({"SET", "k", "v", "EX", "10", "PX", "100"}), kSyntax);
  EXPECT_EQ(Run({"SET", "k", "v", "EX", "10", "KEEPTTL"}), kSyntax);
  EXPECT_EQ(Run({"SET", "k", "v", "KEEPTTL", "PX", "10"}), kSyntax);
  EXPECT_EQ(Run({"SET", "k", "v", "PERSIST"}), kSyntax);
  EXPECT_EQ(Run({"SET", "k", "v", ""}), kSyntax);
  // Syntax is checked before the expire value, the expire value before the key.
  EXPECT_EQ(Run({"SET", "k", "v", "EX", "abc", "BOGUS"}), kSyntax);
  MakeStream("s");
  EXPECT_EQ(Run({"SET", "s", "v", "EX", "0", "GET"}), kInvalid);
  EXPECT_EQ(Run({"SET", "s", "v", "GET"}), kWrongType);
  EXPECT_EQ(Run({"SET", "s", "v"}), kOk);  // a plain SET replaces any type
  EXPECT_EQ(Run({"TYPE", "s"}), "+string\r\n");
}

TEST_F(StringsTest, SetnxSetexPsetex) {
  EXPECT_EQ(Run({"SETNX", "a", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"SETNX", "a", "2"}), ":0\r\n");
  EXPECT_EQ(Run({"SETEX", "b", "100", "v"}), kOk);
  EXPECT_EQ(Run({"TTL", "b"}), ":100\r\n");
  EXPECT_EQ(Run({"SETEX", "b", "0", "v"}), "-ERR invalid expire time in 'setex' command\r\n");
  EXPECT_EQ(Run({"SETEX", "b", "abc", "v"}), kNotInt);
  EXPECT_EQ(Run({"PSETEX", "c", "100000", "v"}), kOk);
  EXPECT_EQ(Run({"PTTL", "c"}), ":100000\r\n");
  EXPECT_EQ(Run({"PSETEX", "c", "-1", "v"}), "-ERR invalid expire time in 'psetex' command\r\n");
  MakeStream("s");
  EXPECT_EQ(Run({"SETNX", "s", "v"}), ":0\r\n");
  EXPECT_EQ(Run({"SETEX", "s", "10", "v"}), kOk);
}

TEST_F(StringsTest, GetsetGetdel) {
  Run({"SETEX", "b", "100", "v"});
  EXPECT_EQ(Run({"GETSET", "b", "new"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"TTL", "b"}), ":-1\r\n");
  EXPECT_EQ(Run({"GETSET", "fresh", "v"}), kNull3);
  EXPECT_EQ(Run({"GETDEL", "fresh"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"GETDEL", "fresh"}), kNull3);
  EXPECT_EQ(Run({"EXISTS", "fresh"}), ":0\r\n");
  MakeStream("s");
  EXPECT_EQ(Run({"GETSET", "s", "v"}), kWrongType);
  EXPECT_EQ(Run({"GETDEL", "s"}), kWrongType);
  EXPECT_EQ(Run({"TYPE", "s"}), "+stream\r\n");
}

TEST_F(StringsTest, Getex) {
  Run({"SET", "x", "v"});
  EXPECT_EQ(Run({"GETEX", "x"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"TTL", "x"}), ":-1\r\n");
  EXPECT_EQ(Run({"GETEX", "x", "EX", "100"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"TTL", "x"}), ":100\r\n");
  EXPECT_EQ(Run({"GETEX", "x", "PXAT", "4000000001000"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "x"}), ":4000000001\r\n");
  EXPECT_EQ(Run({"GETEX", "x", "PERSIST", "PERSIST"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"TTL", "x"}), ":-1\r\n");
  // A missing key answers null before the expire time is looked at.
  EXPECT_EQ(Run({"GETEX", "missing", "EX", "0"}), kNull3);
  EXPECT_EQ(Run({"GETEX", "missing", "BOGUS"}), kSyntax);
  EXPECT_EQ(Run({"GETEX", "x", "EX", "0"}), "-ERR invalid expire time in 'getex' command\r\n");
  EXPECT_EQ(Run({"GETEX", "x", "PX", "abc"}), kNotInt);
  EXPECT_EQ(Run({"GETEX", "x", "EX", "10", "PERSIST"}), kSyntax);
  EXPECT_EQ(Run({"GETEX", "x", "KEEPTTL"}), kSyntax);
  EXPECT_EQ(Run({"GETEX", "x", "NX"}), kSyntax);
  // An absolute time in the past deletes the key after answering.
  EXPECT_EQ(Run({"GETEX", "x", "EXAT", "1"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  MakeStream("s");
  EXPECT_EQ(Run({"GETEX", "s"}), kWrongType);
}

TEST_F(StringsTest, MsetMgetMsetnx) {
  EXPECT_EQ(Run({"MSET", "m1", "a", "m2", "b"}), kOk);
  MakeStream("s");
  EXPECT_EQ(Run({"MGET", "m1", "m2", "nosuch", "s"}), "*4\r\n$1\r\na\r\n$1\r\nb\r\n_\r\n_\r\n");
  EXPECT_EQ(Run2({"MGET", "m1", "nosuch"}), "*2\r\n$1\r\na\r\n$-1\r\n");
  EXPECT_EQ(Run({"MSET", "m1", "x", "m1", "y"}), kOk);
  EXPECT_EQ(Run({"GET", "m1"}), "$1\r\ny\r\n");
  EXPECT_EQ(Run({"MSETNX", "m1", "z", "new1", "z"}), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "new1"}), ":0\r\n");
  EXPECT_EQ(Run({"MSETNX", "new1", "1", "new2", "2"}), ":1\r\n");
  EXPECT_EQ(Run({"MSETNX", "s", "v"}), ":0\r\n");
  EXPECT_EQ(Run({"MSET", "a", "b", "c"}), "-ERR wrong number of arguments for 'mset' command\r\n");
  EXPECT_EQ(Run({"MSETNX", "a"}), "-ERR wrong number of arguments for 'msetnx' command\r\n");
}

TEST_F(StringsTest, AppendAndStrlen) {
  EXPECT_EQ(Run({"APPEND", "ap", "hello"}), ":5\r\n");
  EXPECT_EQ(Run({"APPEND", "ap", " world"}), ":11\r\n");
  EXPECT_EQ(Run({"GET", "ap"}), "$11\r\nhello world\r\n");
  EXPECT_EQ(Run({"STRLEN", "ap"}), ":11\r\n");
  EXPECT_EQ(Run({"STRLEN", "nosuch"}), ":0\r\n");
  Run({"SET", "num", "10", "EX", "100"});
  EXPECT_EQ(Run({"APPEND", "num", "5"}), ":3\r\n");
  EXPECT_EQ(Run({"GET", "num"}), "$3\r\n105\r\n");
  EXPECT_EQ(Run({"TTL", "num"}), ":100\r\n");  // APPEND keeps the TTL
  MakeStream("s");
  EXPECT_EQ(Run({"APPEND", "s", "x"}), kWrongType);
  EXPECT_EQ(Run({"STRLEN", "s"}), kWrongType);
}

TEST_F(StringsTest, CountersAndTheirErrors) {
  EXPECT_EQ(Run({"INCR", "n"}), ":1\r\n");
  EXPECT_EQ(Run({"DECR", "n"}), ":0\r\n");
  EXPECT_EQ(Run({"DECR", "n"}), ":-1\r\n");
  EXPECT_EQ(Run({"INCRBY", "n", "100"}), ":99\r\n");
  EXPECT_EQ(Run({"DECRBY", "n", "-7"}), ":106\r\n");
  EXPECT_EQ(Run({"GET", "n"}), "$3\r\n106\r\n");
  for (std::string bad : {"abc", "1.5", "", " 1", "+1", "0x10", "-0", "99999999999999999999"}) {
    EXPECT_EQ(Run({"INCRBY", "n", bad}), kNotInt) << bad;
  }
  EXPECT_EQ(Run({"DECRBY", "n", "-9223372036854775808"}), "-ERR decrement would overflow\r\n");
  Run({"SET", "max", "9223372036854775807"});
  EXPECT_EQ(Run({"INCR", "max"}), "-ERR increment or decrement would overflow\r\n");
  Run({"SET", "min", "-9223372036854775808"});
  EXPECT_EQ(Run({"DECR", "min"}), "-ERR increment or decrement would overflow\r\n");
  EXPECT_EQ(Run({"INCRBY", "min", "9223372036854775807"}), ":-1\r\n");
  for (std::string stored : {"abc", "1 ", " 1", "1.0", "007", "-0", ""}) {
    Run({"SET", "s", stored});
    EXPECT_EQ(Run({"INCR", "s"}), kNotInt) << stored;
  }
  Run({"SET", "w", "1", "EX", "100"});
  EXPECT_EQ(Run({"INCR", "w"}), ":2\r\n");
  EXPECT_EQ(Run({"TTL", "w"}), ":100\r\n");  // counters keep the TTL
  MakeStream("st");
  EXPECT_EQ(Run({"INCR", "st"}), kWrongType);
  EXPECT_EQ(Run({"INCRBY", "st", "x"}), kNotInt);  // the argument is parsed first
}

TEST_F(StringsTest, Incrbyfloat) {
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "1.5"}), "$3\r\n1.5\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "0.1"}), "$3\r\n1.6\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "-1.6"}), "$1\r\n0\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "1e3"}), "$4\r\n1000\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "2.5e-2"}), "$22\r\n1000.02500000000000002\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "0x10"}), "$22\r\n1016.02500000000000002\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "g", "10000000000000000000000"}),
            "$23\r\n10000000000000000000000\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "h", "1"}), "$1\r\n1\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "h", "-1.0000000000000001"}), "$19\r\n-0.0000000000000001\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "z", "-0.0"}), "$1\r\n0\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "abc"}), kNotFloat);
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "nan"}), kNotFloat);
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "1e5000"}), kNotFloat);   // overflow
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "1e-5000"}), kNotFloat);  // underflow to zero
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "inf"}), "-ERR increment would produce NaN or Infinity\r\n");
  Run({"SET", "i", " 1"});
  EXPECT_EQ(Run({"INCRBYFLOAT", "i", "1"}), kNotFloat);
  Run({"SET", "i", "5.0e3"});
  EXPECT_EQ(Run({"INCRBYFLOAT", "i", "1"}), "$4\r\n5001\r\n");
  // Long double range: a double's maximum doubled is still finite.
  Run({"SET", "j", "1.7976931348623157e308"});
  std::string big = Run({"INCRBYFLOAT", "j", "1.7976931348623157e308"});
  EXPECT_EQ(big.substr(0, 12), "$309\r\n359538");
  MakeStream("st");
  EXPECT_EQ(Run({"INCRBYFLOAT", "st", "1"}), kWrongType);
}

TEST_F(StringsTest, AppendRespectsProtoMaxBulkLen) {
  // The limit is proto-max-bulk-len; lower it so the test does not need 512 MB.
  ASSERT_EQ(h.config().set("proto-max-bulk-len", "1048576"), std::nullopt);
  Run({"SET", "big", std::string(1048570, 'x')});
  EXPECT_EQ(Run({"APPEND", "big", "123456"}), ":1048576\r\n");
  EXPECT_EQ(Run({"APPEND", "big", "7"}),
            "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n");
  EXPECT_EQ(Run({"STRLEN", "big"}), ":1048576\r\n");
}

}  // namespace
}  // namespace streamd::test
