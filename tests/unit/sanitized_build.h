// Whether the tests were built with AddressSanitizer (STREAMD_SANITIZE). ASan replaces malloc
// (mallinfo2 reports nothing) and pads every block, and the sanitizer build runs unoptimised, ten
// to thirty times slower: memory figures mean nothing there, and tests of scale run smaller.
#pragma once

namespace streamd::test {

constexpr bool sanitized_build() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

}  // namespace streamd::test
