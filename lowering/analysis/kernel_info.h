// KernelInfo: everything the runtime needs to launch a compiled kernel besides
// its code — the mesh, where each parameter and scratch ref lives, how large
// each subcore's arenas are, and the site table that names ops in messages.
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
#include "lowering/ir/ir.h"
#include "lowering/base/target.h"

namespace scjit {

// Byte alignment of every arena slot (a cache line; also AVX-512 vector width).
inline constexpr int64_t kSlotAlign = 64;

// Where a ref's bytes live for one subcore.
struct Slot {
  MemorySpace space = MemorySpace::kVmem;  // kHbm: a parameter, read from ctx->hbm
  int64_t offset = 0;                      // in its arena (VMEM, SMEM, VMEM_SHARED)
  int param = -1;                          // HBM parameters: their position (ctx->hbm index)
  int semaphore = -1;                      // semaphore refs: index of the first one
};

struct ParamInfo {
  std::string name;  // without '%'
  ParamDirection direction = ParamDirection::kIn;
  Type type;
  Slot slot;
  bool staged() const { return slot.space != MemorySpace::kHbm || slot.param < 0; }
  int64_t bytes() const { return type.is_ref() ? type.NumElements() * ByteWidth(type.element()) : 0; }
};

// A region of an arena filled with the poison pattern when a launch starts.
struct PoisonRange {
  MemorySpace space = MemorySpace::kVmem;
  int64_t offset = 0;
  int64_t count = 0;  // elements
  ElementType element = ElementType::kI32;
};

// An op that calls into the runtime, for messages ("barrier at k.scir:12:3").
struct Site {
  OpKind op = OpKind::kBarrier;
  Location loc;      // the op, or the operand the site is about
  std::string text;  // the operand(s) as written, or debug_print's format
};

struct KernelInfo {
  std::string name;
  TargetId target = kDefaultTarget;
  MeshKind mesh = MeshKind::kVector;
  int cores = 1;
  int subcores = 1;  // per core; 1 on a scalar mesh
  int lanes = 16;

  std::vector<ParamInfo> params;
  int64_t vmem_bytes = 0;         // per subcore
  int64_t smem_bytes = 0;         // per subcore
  int64_t vmem_shared_bytes = 0;  // per core
  int semaphores = 0;             // per subcore
  std::vector<std::string> semaphore_names;  // "%sems[1, 2]", by index
  std::vector<PoisonRange> poison;
  std::vector<Site> sites;
  std::shared_ptr<const SourceFile> source;
  // The kernel function's stack frame (its allocas, large values included), set
  // by the emitter: the runtime sizes subcore stacks from it.
  int64_t frame_bytes = 0;

  // Where every parameter, scratch ref and alloc lives.
  absl::flat_hash_map<const Value*, Slot> slots;

  int subcores_total() const { return cores * subcores; }
  int AddSite(const Op& op, std::string text = "", Location loc = {});
  // "barrier at k.scir:12:3".
  std::string Describe(int site) const;
};

// Lays out `kernel` for `target`: mesh sizes (the target's where not written),
// staged parameters and scratch in per-subcore arenas, scoped allocs in a stack
// discipline (sibling scopes share space), semaphore numbering.
KernelInfo PlanKernel(const Module& module, const Kernel& kernel, TargetId target);

}  // namespace scjit

#endif  // SCJIT_LOWERING_ANALYSIS_KERNEL_INFO_H_
