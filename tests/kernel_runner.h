// Compiling and running kernels from tests, through the public API alone.
#ifndef SCJIT_TESTS_KERNEL_RUNNER_H_
#define SCJIT_TESTS_KERNEL_RUNNER_H_

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scjit/scjit.h"

namespace scjit::testing {

// One run of a kernel: every parameter's bytes after the launch, the findings
// and the debug_print output.
struct Run {
  absl::Status status;                            // compile or launch failure
  std::string diagnostics;                        // compile diagnostics, rendered
  std::map<std::string, std::vector<uint8_t>> params;  // by name, without '%'
  std::vector<Diagnostic> findings;
  std::string log;
  LaunchStats stats;

  bool ok() const { return status.ok() && findings.empty(); }
  // Parameter `name` as a vector of T.
  template <typename T>
  std::vector<T> As(const std::string& name) const {
    const std::vector<uint8_t>& bytes = params.at(name);
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
  }
  std::string Findings() const;  // rendered
};

// Raw bytes of a vector, for inputs.
template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// Compiles `text` (kernel `kernel`, "" for the only one) and launches it once,
// with the engine the environment variable SCJIT_TEST_ENGINE names (jit, interp;
// default: the options').
// Parameters without an entry in `inputs` start as zeros (in/inout) or as the
// runtime's poison fill (out). Launches run on one thread unless `launch` asks
// for more (threads = 0 means 1 here, not the host's cores).
Run RunText(const std::string& text, const std::map<std::string, std::vector<uint8_t>>& inputs = {},
            const CompileOptions& compile = {}, LaunchOptions launch = {}, const std::string& kernel = "");
// The same for a file under the repository root (e.g. "examples/x.scir").
Run RunFile(const std::string& path, const std::map<std::string, std::vector<uint8_t>>& inputs = {},
            const CompileOptions& compile = {}, LaunchOptions launch = {}, const std::string& kernel = "");

// The front end alone (parse, verify, SC rules) on `text`, named `name`, for
// `target` (default: the module's `target`, else v7x), with the SC rules of
// JAX release `jax` (default: the catalog's, 0.11.1).
struct Checked {
  bool ok = false;
  std::string diagnostics;         // every diagnostic, rendered
  std::vector<std::string> codes;  // their codes, in report order
};
Checked Check(const std::string& text, const std::string& target = "", const std::string& name = "k.scir",
              const std::string& jax = "");

}  // namespace scjit::testing

#endif  // SCJIT_TESTS_KERNEL_RUNNER_H_
