// Checks on how the tests themselves were built. The sanitizer build is the one CI runs with the
// engine's asserts and ConsumerGroup::debug_check_id alive; CMakeLists.txt adds -UNDEBUG to it,
// after the build type's flags. If that ever stops working (a flag order change, a script that
// passes -DNDEBUG where it cannot be undone), the asserts would silently vanish again: this test
// is compiled with the same global options as the engine and fails instead.
#include <gtest/gtest.h>

#include <cassert>

#if defined(__SANITIZE_ADDRESS__)
#define STREAMD_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STREAMD_TEST_ASAN 1
#endif
#endif

namespace {

TEST(BuildChecks, SanitizerBuildKeepsAsserts) {
#ifdef STREAMD_TEST_ASAN
#ifdef NDEBUG
  FAIL() << "the ASan+UBSan build defines NDEBUG: asserts and debug_check_id are compiled out";
#else
  EXPECT_DEATH(assert(false && "asserts are alive"), "asserts are alive");
#endif
#else
  GTEST_SKIP() << "not a sanitizer build";
#endif
}

}  // namespace
