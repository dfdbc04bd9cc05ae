// Running one kernel under several configurations and comparing what each
// gave (tests/fuzz/differential.cc): the configurations, deterministic inputs,
// one run through the public API, and the comparison of two runs.
#ifndef SCJIT_TESTS_FUZZ_DIFF_RUN_H_
#define SCJIT_TESTS_FUZZ_DIFF_RUN_H_

#include <cstdint>
#include <set>
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
  std::vector<std::string> findings;          // each rendered whole (location, source line, notes, help)
  std::set<std::string> error_codes, warning_codes;  // the findings' codes, by severity
  bool failed = false;                        // a finding is an error: the launch stopped
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
// What two outcomes of one kernel are compared on, each with its own
// reference (differential.cc: the first configuration whose outcome it may be
// compared with):
//   kStatus    whether it compiled and launched, and the errors if not: always.
//   kFindings  every finding, rendered (code, severity, location, message,
//              notes): between launches that ran the same checks.
//   kOutputs   the bytes of every out and inout parameter and the debug_print
//              log: between launches that both ran to their end, or both
//              stopped at an error finding (a launch stops at the end of the
//              epoch of its first error; one that went on computes more).
enum class Compared { kStatus, kFindings, kOutputs };
bool Comparable(const Outcome& a, const Outcome& b, Compared what);
// What differs between two outcomes of one kernel in `what`; empty when they
// agree or are not comparable.
std::vector<Difference> Compare(const Outcome& a, const Outcome& b, Compared what);

}  // namespace scjit::fuzz

#endif  // SCJIT_TESTS_FUZZ_DIFF_RUN_H_
