// Launching a compiled kernel on the emulated SparseCore (runtime.md §1-§6).
#ifndef SCJIT_RUNTIME_LAUNCH_H_
#define SCJIT_RUNTIME_LAUNCH_H_

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/base/diagnostic.h"
#include "lowering/analysis/kernel_info.h"
#include "runtime/abi.h"
#include "runtime/fiber.h"

namespace scjit {

using KernelFn = int32_t (*)(scjit_ctx*);

// When a DMA moves its bytes (runtime.md §4).
enum class DmaMode : uint8_t {
  kEager,   // at dma_start
  kOnWait,  // when its semaphore is waited on or read (exposes missing waits)
};

struct LaunchOptions {
  int threads = 1;                // host threads running subcores
  std::optional<uint64_t> seed;   // randomize the order of cross-subcore effects
  DmaMode dma = DmaMode::kOnWait;
  bool checks = true;             // run-time checks (bounds are compiled in; see CompileOptions)
  bool warn = false;              // findings are warnings; the launch goes on
  std::ostream* log = nullptr;    // debug_print output (null: discarded)
  // Where subcores' fiber stacks come from; launches that share a pool reuse
  // stacks (much faster for small kernels). Null: a pool for this launch only.
  StackPool* stacks = nullptr;
  // Stops a launch that runs longer (RT-TIMEOUT), checked when loops tick;
  // 0: no limit. A kernel that never ends would otherwise hang the host.
  double time_limit_seconds = 0;
};

// One parameter's host memory, in KernelInfo::params order: HBM parameters are
// used in place; staged (vmem/smem) ones are copied in before the kernel and
// `out`/`inout` ones copied back after it. `bytes` must equal the parameter's.
struct ParamBuffer {
  uint8_t* data = nullptr;
  int64_t bytes = 0;
};

struct LaunchStats {
  double wall_ms = 0;
  int64_t dma_bytes = 0;
  std::map<std::string, int64_t> ops;  // runtime ops executed, by op name
  std::vector<int64_t> dma_bytes_by_subcore;
  int subcores = 0;
  int threads = 0;
  int64_t epochs = 0;
};

struct LaunchResult {
  LaunchStats stats;
  std::vector<Diagnostic> findings;  // RT-* errors (and warnings with LaunchOptions::warn)
  bool failed() const;
};

// Runs `kernel` once on every subcore of its mesh. An error status is an
// infrastructure failure (no memory for the arenas); what the kernel did wrong
// is in the result's findings.
absl::StatusOr<LaunchResult> RunKernel(const KernelInfo& info, KernelFn kernel, std::span<const ParamBuffer> params,
                                       const LaunchOptions& options);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_LAUNCH_H_
