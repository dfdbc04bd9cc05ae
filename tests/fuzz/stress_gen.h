// Generators of kernels that stress scjit's bounds in time and memory (issue
// #34; tests/fuzz/stress.cc, docs/fuzzing.md "Stress"). Each is deterministic
// per seed, like GenerateKernel (kernel_gen.h), and says what a launch of its
// kernel must end in, so that the driver can tell a bounded outcome from a
// runaway one:
//   piles   DMAs started in rounds on 1..16 subcores, partly waited in each
//           round, the rest at the end; the pile in flight peaks above 1024
//           (the RT-SYNC in-flight finding) or not (the kernel runs)
//   loops   a loop of copies of up to 16 MiB under a time limit of a second
//           or less: it runs to its end or stops with RT-TIMEOUT
//   lines   100..2000 get / op / store triples in one straight line
//   chips   2..8 chips exchanging blocks many times, in pairs or on a ring,
//           every copy waited
#ifndef SCJIT_TESTS_FUZZ_STRESS_GEN_H_
#define SCJIT_TESTS_FUZZ_STRESS_GEN_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scjit::fuzz {

enum class StressFamily { kPiles, kLoops, kLines, kChips };

struct StressFamilyInfo {
  StressFamily family;
  const char* name;
};
std::span<const StressFamilyInfo> StressFamilies();

// How a checked launch of the kernel must end (unchecked launches keep no
// DMAs in flight: they always run, or time out).
enum class Expect {
  kRuns,              // to its end, without a finding
  kInFlight,          // RT-SYNC: "would be DMA 1025 of this subcore in flight"
  kRunsOrTimesOut,    // to its end, or RT-TIMEOUT
};

// Upper bounds of the sizes drawn (the ctest smoke run lowers them under the
// sanitizers).
struct StressOptions {
  int max_dmas = 3000;                 // piles: DMAs started per subcore
  int max_lines = 2000;                // lines: get/op/store triples
  int64_t max_copy_bytes = 16 << 20;   // loops: bytes of one copy
  int max_rounds = 3000;               // chips: exchanges
};

struct StressKernel {
  std::string text;
  std::string target;
  Expect expect = Expect::kRuns;
  double time_limit_seconds = 60;
  // chips: chip d's %y holds chip source[d]'s %x; loops: %o holds %x when
  // the loop ran to its end.
  std::vector<int> source;
  std::string what;  // the drawn sizes, one line
};

StressKernel GenerateStress(StressFamily family, uint64_t seed, const StressOptions& options = {});

}  // namespace scjit::fuzz

#endif  // SCJIT_TESTS_FUZZ_STRESS_GEN_H_
