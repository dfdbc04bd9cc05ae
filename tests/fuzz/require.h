// What the fuzzers check besides the sanitizers: a broken promise of the code
// under test aborts with a message, which libFuzzer reports as a crash and
// saves the input of.
#ifndef SCJIT_TESTS_FUZZ_REQUIRE_H_
#define SCJIT_TESTS_FUZZ_REQUIRE_H_

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace scjit {

// Aborts with `what` and `detail` on stderr unless `ok`.
inline void Require(bool ok, std::string_view what, std::string_view detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace scjit

#endif  // SCJIT_TESTS_FUZZ_REQUIRE_H_
