// Running one kernel under several configurations and comparing what each
// gave (tests/fuzz/differential.cc): the configurations, deterministic inputs,
// one run through the public API, and the comparison of two runs.
#ifndef SCJIT_TESTS_FUZZ_DIFF_RUN_H_
#define SCJIT_TESTS_FUZZ_DIFF_RUN_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scjit/scjit.h"

namespace scjit::fuzz {

// One way of compiling and launching a kernel. Every configuration must give
// the bytes the first one gives.
struct Config {
  const char* name;
  const char* what;
  void (*apply)(CompileOptions& compile, LaunchOptions& launch);
};
std::span<const Config> Configs();
const Config* FindConfig(std::string_view name);

// The bytes of every parameter, in order: random bits from `seed` for inputs
// (floats with NaNs of several payloads, infinities, signed zeros and
// subnormals mixed in), empty for `out` parameters.
std::vector<std::vector<uint8_t>> MakeInputs(const std::vector<ParamInfo>& params, uint64_t seed);

struct Outcome {
  bool rejected = false;   // the compile failed (the front end, the verifier or the SC rules)
  std::string error;       // the failed compile's or launch's status
  std::vector<ParamInfo> params;
  std::vector<std::vector<uint8_t>> outputs;  // per parameter: out and inout ones' bytes
  std::vector<std::string> findings;          // "RT-SYNC error: message"
  bool failed = false;                        // a finding is an error
  std::string log;                            // debug_print output
  std::string checks;                         // the checks the launch ran
};

// Compiles `source` through `compiler` (whose memory cache configurations that
// compile alike share) and launches it with inputs made from `input_seed`.
Outcome Run(Compiler& compiler, const Source& source, const Config& config, uint64_t input_seed);

// One thing that differs between two outcomes of a kernel. `nan_only`: an
// output whose differing elements are NaN on both sides (another payload or
// sign), which --nan-payloads any accepts.
struct Difference {
  std::string text;
  bool nan_only = false;
};
// What differs between two outcomes of one kernel; empty when they agree.
// Findings are compared when both launches ran the same checks.
std::vector<Difference> Compare(const Outcome& a, const Outcome& b);

}  // namespace scjit::fuzz

#endif  // SCJIT_TESTS_FUZZ_DIFF_RUN_H_
