// internal::CompiledKernel: what a public Kernel handle shares — the compiled
// code (its entry point, the JIT session that holds it, its launch layout) and
// what this compilation of it said (times, default checks, warnings).
#ifndef SCJIT_JIT_COMPILED_KERNEL_H_
#define SCJIT_JIT_COMPILED_KERNEL_H_

#include <memory>
#include <vector>

#include "jit/interp/interp.h"
#include "jit/jit_session.h"
#include "lowering/base/launch_layout.h"
#include "runtime/fiber.h"
#include "runtime/launch.h"
#include "scjit/kernel.h"

namespace scjit {

// Code compiled once and shared by every Kernel made from it (a cache entry).
// Immutable but for its pools, which are thread-safe.
struct CompiledCode {
  std::shared_ptr<JitSession> session;  // keeps the JIT's code mapped
  // The interpreter's programs, and the IR they interpret (engine interp).
  std::shared_ptr<const interp::Programs> programs;
  std::vector<PartCode> entries;  // one per part of the kernel (layout.Parts())
  LaunchLayout layout;
  std::vector<ParamInfo> params;  // the public view of layout.params
  // Fiber stacks reused by the kernel's launches (mutable: a thread-safe pool).
  std::unique_ptr<StackPool> stacks;
  // Arena memory reused by the kernel's launches (thread-safe).
  std::unique_ptr<MemoryPool> memory = std::make_unique<MemoryPool>();
  // Host threads reused by the kernel's launches (thread-safe).
  std::unique_ptr<WorkerPool> workers = std::make_unique<WorkerPool>();
};

namespace internal {

struct CompiledKernel {
  std::shared_ptr<const CompiledCode> code;
  CompileTimes times;
  Checks checks;  // the launches' default
  std::vector<Diagnostic> warnings;
};

}  // namespace internal

// The public description of each parameter of `layout`.
std::vector<ParamInfo> PublicParams(const LaunchLayout& layout);

}  // namespace scjit

#endif  // SCJIT_JIT_COMPILED_KERNEL_H_
