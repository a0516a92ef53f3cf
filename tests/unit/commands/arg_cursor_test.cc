// ArgCursor (commands/core/args.h): the walk handlers make over their arguments, and the stream
// argument readers built on it (commands/stream/support.h).
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <list>
#include <string_view>
#include <vector>

#include "streamd/commands/core/args.h"
#include "streamd/commands/core/error_text.h"
#include "streamd/commands/stream/support.h"

namespace streamd::cmd {
namespace {

using engine::StreamId;

class ArgCursorTest : public ::testing::Test {
 protected:
  // A cursor over `args` at `pos`; the argument vector lives as long as the test.
  ArgCursor At(std::vector<std::string_view> args, std::size_t pos = 0) {
    return ArgCursor(argvs_.emplace_back(std::move(args)), pos);
  }
  std::list<std::vector<std::string_view>> argvs_;
};

TEST_F(ArgCursorTest, NextPeekRemainingAndRest) {
  ArgCursor c = At({"XADD", "k", "a", "b", "c"}, 2);
  EXPECT_EQ(c.pos(), 2u);
  EXPECT_EQ(c.remaining(), 3u);
  EXPECT_EQ(c.peek(), "a");
  EXPECT_EQ(c.peek(2), "c");
  EXPECT_EQ(c.peek(3), "");  // past the end: empty, nothing consumed
  EXPECT_EQ(c.remaining(), 3u);
  EXPECT_EQ(c.next(), "a");
  ASSERT_EQ(c.rest().size(), 2u);
  EXPECT_EQ(c.rest()[0], "b");
  c.skip(5);  // clamped to the end
  EXPECT_TRUE(c.done());
  EXPECT_EQ(c.pos(), 5u);
  EXPECT_EQ(c.next(), "");  // never reads past the end
  EXPECT_EQ(c.pos(), 5u);
  EXPECT_TRUE(c.rest().empty());
  EXPECT_FALSE(c.failed());
  // A start past the end is the end.
  EXPECT_TRUE(At({"XLEN"}, 3).done());
}

TEST_F(ArgCursorTest, MatchIsCaseInsensitiveAndNeedsItsArguments) {
  ArgCursor c = At({"cOuNt", "5", "NOACK"});
  EXPECT_FALSE(c.match("count", 3));  // only two arguments follow
  EXPECT_EQ(c.pos(), 0u);             // a failed match consumes nothing
  EXPECT_FALSE(c.match("counts"));
  EXPECT_TRUE(c.match("COUNT", 2));
  EXPECT_EQ(c.next(), "5");
  EXPECT_FALSE(c.match("noack", 1));  // the last argument: nothing follows it
  EXPECT_TRUE(c.match("noack"));
  EXPECT_TRUE(c.done());
  EXPECT_FALSE(c.match("noack"));
  // Case folding is ASCII only, as Redis's strcasecmp.
  EXPECT_FALSE(At({"\xC3\x89"}).match("\xC3\xA9"));
}

TEST_F(ArgCursorTest, IntegersWithRedisTexts) {
  long long v = 0;
  ArgCursor c = At({"12", "-0", "+1", "9223372036854775807"});
  EXPECT_TRUE(c.next_int(v));
  EXPECT_EQ(v, 12);
  EXPECT_FALSE(c.next_int(v));  // Redis's string2ll refuses "-0"
  EXPECT_EQ(c.error(), errors::kNotInteger);
  EXPECT_EQ(v, 12);  // unchanged on failure
  EXPECT_TRUE(c.failed());
  // Later failures keep the first error (Redis replies the first failed check).
  EXPECT_FALSE(c.next_int(v, errors::kTimeoutNotInteger));  // "+1"
  EXPECT_EQ(c.error(), errors::kNotInteger);
  EXPECT_TRUE(c.next_int(v));
  EXPECT_EQ(v, LLONG_MAX);
  for (std::string_view bad : {" 1", "1 ", "01", "9223372036854775808", "0x10", ""}) {
    EXPECT_FALSE(At({bad}).next_int(v)) << bad;
  }
  // A command's own text for a malformed number.
  ArgCursor d = At({"9223372036854775808"});
  EXPECT_FALSE(d.next_int(v, errors::kMinIdleNotInteger));
  EXPECT_EQ(d.error(), errors::kMinIdleNotInteger);
  // Nothing left to read is a malformed number, not a crash.
  ArgCursor e = At({});
  EXPECT_FALSE(e.next_int(v));
  EXPECT_EQ(e.error(), errors::kNotInteger);
}

TEST_F(ArgCursorTest, IntegerRangesAndRequire) {
  long long v = 0;
  ArgCursor c = At({"0", "x"});
  EXPECT_FALSE(c.next_int_in(v, 1, 86400, errors::kIdmpDuration));
  EXPECT_EQ(c.error(), errors::kIdmpDuration);
  EXPECT_EQ(c.pos(), 1u);  // the number was consumed
  ArgCursor d = At({"x"});
  EXPECT_FALSE(d.next_int_in(v, 1, 86400, errors::kIdmpDuration));
  EXPECT_EQ(d.error(), errors::kNotInteger);
  ArgCursor e = At({"86401"});
  EXPECT_FALSE(e.next_int_in(v, 1, 86400, errors::kIdmpDuration));
  EXPECT_EQ(e.error(), errors::kIdmpDuration);
  ArgCursor f = At({"86400"});
  EXPECT_TRUE(f.next_int_in(v, 1, 86400, errors::kIdmpDuration));
  EXPECT_EQ(v, 86400);
  EXPECT_TRUE(f.require(true, errors::kSyntax));
  EXPECT_FALSE(f.failed());
  EXPECT_FALSE(f.require(false, errors::kSyntax));
  EXPECT_EQ(f.error(), errors::kSyntax);
  EXPECT_FALSE(f.fail("ERR other"));
  EXPECT_EQ(f.error(), errors::kSyntax);
}

TEST_F(ArgCursorTest, Doubles) {
  double d = 0;
  ArgCursor c = At({"1.5", "inf", "nan"});
  EXPECT_TRUE(c.next_double(d));
  EXPECT_EQ(d, 1.5);
  EXPECT_TRUE(c.next_double(d));
  EXPECT_TRUE(std::isinf(d));
  EXPECT_FALSE(c.next_double(d));
  EXPECT_EQ(c.error(), errors::kNotFloat);
  ArgCursor e = At({"1e999"});
  EXPECT_FALSE(e.next_double(d, errors::kTimeoutNotFloat));
  EXPECT_EQ(e.error(), errors::kTimeoutNotFloat);
  EXPECT_FALSE(At({"1.5x"}).next_double(d));
}

TEST_F(ArgCursorTest, StreamIdsAndRefPolicies) {
  StreamId id;
  ArgCursor c = At({"5", "5-3", "5-x"});
  EXPECT_TRUE(next_strict_id(c, id, 7));
  EXPECT_EQ(id, (StreamId{5, 7}));  // a bare ms gets the given sequence
  EXPECT_TRUE(next_strict_id(c, id));
  EXPECT_EQ(id, (StreamId{5, 3}));
  EXPECT_FALSE(next_strict_id(c, id));
  EXPECT_EQ(c.error(), errors::text(engine::Err::kInvalidStreamId));
  ArgCursor p = At({"DelRef", "acked", "keep"});
  EXPECT_EQ(match_ref_policy(p), engine::RefPolicy::kDelRef);
  EXPECT_EQ(match_ref_policy(p), engine::RefPolicy::kAcked);
  EXPECT_EQ(match_ref_policy(p), std::nullopt);
  EXPECT_EQ(p.pos(), 2u);  // "keep" is not a policy and stays
  // An engine parser's error becomes the cursor's.
  StreamId start;
  ArgCursor r = At({"(-"});
  EXPECT_FALSE(take_parsed(r, engine::parse_range_start(r.next()), start));
  EXPECT_EQ(r.error(), errors::text(engine::parse_range_start("(-").err()));
}

}  // namespace
}  // namespace streamd::cmd
