// KernelInfo: the memory plan of one kernel — its LaunchLayout (what the runtime
// needs, as plain data: lowering/base/launch_layout.h) and, for the emitter, the
// slot of every parameter, scratch ref and alloc.
//
// PlanKernel computes it from a verified kernel (no LLVM involved); the emitter
// then addresses memory by the offsets it holds and appends sites.
#ifndef SCJIT_LOWERING_ANALYSIS_KERNEL_INFO_H_
#define SCJIT_LOWERING_ANALYSIS_KERNEL_INFO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lowering/base/launch_layout.h"
#include "lowering/base/target.h"
#include "lowering/ir/ir.h"

namespace scjit {

// Where a ref's bytes live for one subcore.
struct Slot {
  MemorySpace space = MemorySpace::kVmem;  // kHbm: a parameter, read from ctx->hbm
  int64_t offset = 0;                      // in its arena (VMEM, SMEM, VMEM_SHARED)
  int param = -1;                          // HBM parameters: their position (ctx->hbm index)
  int semaphore = -1;                      // semaphore refs: index of the first one
};

struct KernelInfo {
  LaunchLayout layout;
  std::shared_ptr<const SourceFile> source;
  // The module's origins (`loc(...)`), for the lines of sites in users' files;
  // valid while the module is.
  const OriginMap* origins = nullptr;
  // Where every parameter, scratch ref and alloc lives.
  absl::flat_hash_map<const Value*, Slot> slots;

  // Appends a site for `op` (located at `loc`, else at the op) to the layout.
  int AddSite(const Op& op, std::string text = "", Location loc = {});
};

// Lays out `kernel` for `target`: mesh sizes (the target's where not written),
// staged parameters and scratch in per-subcore arenas, scoped allocs in a stack
// discipline (sibling scopes share space), semaphore numbering.
KernelInfo PlanKernel(const Module& module, const KernelDef& kernel, TargetId target);

}  // namespace scjit

#endif  // SCJIT_LOWERING_ANALYSIS_KERNEL_INFO_H_
