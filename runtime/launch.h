// Launching compiled code on the emulated SparseCore (runtime.md §1-§6): the
// entry point and launch layout the compiler made, the parameters' host memory,
// and the launch options once resolved (the public ones are scjit/launch.h).
#ifndef SCJIT_RUNTIME_LAUNCH_H_
#define SCJIT_RUNTIME_LAUNCH_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "lowering/base/launch_layout.h"
#include "runtime/abi.h"
#include "runtime/fiber.h"
#include "runtime/memory_pool.h"
#include "runtime/worker_pool.h"
#include "scjit/chip_link.h"
#include "scjit/launch.h"

namespace scjit {

using KernelFn = int32_t (*)(scjit_ctx*);

// The code of one part of a kernel: its entry point, and what the runtime puts
// in each of its subcores' scjit_ctx::program (the interpreter's program for the
// part; null for JIT code). The runtime never looks inside `program`.
struct PartCode {
  KernelFn fn = nullptr;
  const void* program = nullptr;
};

// One parameter's host memory, in LaunchLayout::params order: HBM parameters are
// used in place; staged (vmem/smem) ones are copied in before the kernel and
// `out`/`inout` ones copied back after it. `bytes` must equal the parameter's
// (0 for semaphores).
struct ParamBuffer {
  uint8_t* data = nullptr;
  int64_t bytes = 0;
};

// LaunchOptions with every default decided.
struct RunOptions {
  int threads = 1;               // host threads running subcores
  std::optional<uint64_t> seed;  // randomize the order of cross-subcore effects
  DmaMode dma = DmaMode::kOnWait;
  Checks checks;                 // bounds checks in generated code are fixed at compile time
  double time_limit_seconds = 0;
  std::optional<std::chrono::steady_clock::time_point> time_limit_start;  // default: the launch's start
  std::function<void(std::string_view)> log;  // debug_print output (null: discarded)
  ChipLink* link = nullptr;  // the processes holding the other chips (null: every chip here)
  const std::atomic<bool>* interrupt = nullptr;  // LaunchOptions::interrupt
  // Where subcores' fiber stacks come from; launches that share a pool reuse
  // stacks (much faster for small kernels). Null, or too small for the kernel's
  // frame: a pool for this launch only.
  StackPool* stacks = nullptr;
  // Where the threads beside the caller's come from (null: threads started
  // for this launch only).
  WorkerPool* workers = nullptr;
  // Where the arenas and their state bytes come from (null: fresh memory).
  MemoryPool* memory = nullptr;
};

// The fiber stack each subcore of `layout` needs: its kernel's frame (large
// values live there) and the runtime calls it makes.
size_t StackBytesFor(const LaunchLayout& layout);

// Runs `kernel` once on every subcore of its mesh. An error status is a launch
// that could not start (wrong buffers, no memory for the arenas); what the
// kernel did wrong is in the result's findings.
absl::StatusOr<LaunchResult> RunKernel(const LaunchLayout& layout, KernelFn kernel,
                                       std::span<const ParamBuffer> params, const RunOptions& options);
// Runs a kernel of several parts: parts[i] on every subcore of part i's mesh
// (layout.Parts()), all in one launch.
absl::StatusOr<LaunchResult> RunKernel(const LaunchLayout& layout, std::span<const PartCode> parts,
                                       std::span<const ParamBuffer> params, const RunOptions& options);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_LAUNCH_H_
