// jit-run's command line (interfaces.md §1): the option table and its parser.
#ifndef SCJIT_TOOLS_CLI_OPTIONS_H_
#define SCJIT_TOOLS_CLI_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "scjit/scjit.h"

namespace scjit {

// `NAME=VALUE` of --in / --out / --expect; NAME without its '%'.
struct Binding {
  std::string name;
  std::string value;
};

struct CliOptions {
  std::string kernel_file;
  std::optional<std::string> kernel_name;  // without '@'
  std::string target;  // "": the file's, else v7x
  std::string devices;  // CompileOptions::devices: "": the file's device mesh
  std::string jax;      // CompileOptions::jax: "": 0.10.2's messages
  std::vector<Binding> inputs, outputs, expects;
  Engine engine = Engine::kJit;  // scjit/compiler.h
  int opt_level = 2;
  std::optional<int> threads;
  bool deterministic = false;
  std::optional<uint64_t> seed;
  std::optional<DmaMode> dma;
  std::string check = "all";  // all | none | warn | a comma list of bounds,init,race,sync
  bool unchecked = false;
  std::optional<Stage> emit;
  bool time = false;
  int repeat = 1;
  std::optional<std::string> report;
  std::optional<std::string> cache_dir;
  std::optional<std::string> explain;
  std::optional<std::string> target_info;  // a chip's name, "" for every chip
  std::optional<std::string> save_inputs;  // a directory
  std::optional<double> rtol, atol;
  double time_limit = kDefaultTimeLimitSeconds;  // seconds; 0: none
  bool help = false;

  // Options as given (`--threads`, `-O2`), in order, for "not implemented yet".
  std::vector<std::string> given;
};

// Parses argv[1..]. Errors are IO-USAGE diagnostics as a Status.
absl::StatusOr<CliOptions> ParseCommandLine(const std::vector<std::string_view>& args);

// The options among `options.given` whose machinery does not exist yet.
std::vector<std::string> UnimplementedOptions(const CliOptions& options);

// The --help text.
std::string UsageText();

}  // namespace scjit

#endif  // SCJIT_TOOLS_CLI_OPTIONS_H_
