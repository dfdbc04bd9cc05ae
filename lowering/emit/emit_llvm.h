// LLVM IR emission: one verified, rule-checked kernel becomes one LLVM module
// holding `i32 @scjit_kernel_<name>(ptr %ctx)`, run once per subcore.
//
// What the module models (see runtime/abi.h for the contract):
// - Refs are strided views computed in registers from the arena bases in the
//   context (VMEM, SMEM, VMEM_SHARED) and the offsets of KernelInfo, or from the
//   HBM address of a parameter. Dynamic indices are bounds-checked (a failure
//   calls scjit_rt_bounds_error and the kernel returns its status) or, with
//   checks off, clamped so no access leaves its ref.
// - Values are LLVM scalars and flat LLVM vectors of the value's element count
//   (row-major); the backend splits them into native registers.
// - Masked memory ops use llvm.masked.expandload / compressstore.
// - DMAs, semaphores, barriers, fetch_and_add, debug prints and scoped allocs are
//   calls into the runtime ABI, each checked for a non-zero status.
#ifndef SCJIT_LOWERING_EMIT_EMIT_LLVM_H_
#define SCJIT_LOWERING_EMIT_EMIT_LLVM_H_

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/ir.h"
#include "lowering/analysis/kernel_info.h"

namespace llvm {
class LLVMContext;
class Module;
class StructType;
}  // namespace llvm

namespace scjit {

struct EmitOptions {
  bool bounds_checks = true;  // report out-of-bounds indices (else clamp them)
  // Test the state bytes of every VMEM/SMEM access (init and race checks,
  // emit_access_checks.cc).
  bool access_checks = false;
  // Carry each value's init state (its shadow and origin) through the ops, and
  // report an unwritten value where it decides something (emit_shadows.cc).
  // Only with access_checks.
  bool init_shadows = false;
  // The host has AVX-512CD: scan_count of a 16- or 8-lane 32-bit row is
  // vpconflictd (emit_lanes.cc).
  bool conflict_detection = false;
  // lax.sort orders signed integer keys as signed: JAX 0.12.1 flips the sign
  // bit of i32 keys around the hardware's unsigned sort (before, they order as
  // unsigned, with checked mode's RT-SORT-SIGN warning).
  bool signed_sort_keys = false;
};

struct EmittedKernel {
  EmittedKernel();
  EmittedKernel(EmittedKernel&&) noexcept;
  EmittedKernel& operator=(EmittedKernel&&) noexcept;
  ~EmittedKernel();  // out of line: the LLVM types are incomplete here

  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::string function;  // the kernel's symbol (its first part's)
  std::vector<std::string> more_functions;  // the symbols of its further parts
};

// The symbol of kernel `name`'s function.
std::string KernelSymbol(std::string_view name);

// The symbol of one part's function: KernelSymbol for the first part, with
// "__part<n>" appended for a further part n.
std::string PartSymbol(const KernelDef& part);

// Emits `kernel` (one part). `info` (from PlanKernel) gains the kernel's sites
// and entry. Ops the emitter does not handle yet are an Unimplemented error
// naming the op and line.
absl::StatusOr<EmittedKernel> EmitKernel(const KernelDef& kernel, KernelInfo& info, const EmitOptions& options);
// Emits the parts of a kernel, one function each, into one module; infos[i]
// (PlanKernel of parts[i]) gains that part's sites and entry.
absl::StatusOr<EmittedKernel> EmitKernelParts(std::span<const KernelDef* const> parts, std::span<KernelInfo* const> infos,
                                              const EmitOptions& options);

}  // namespace scjit

#endif  // SCJIT_LOWERING_EMIT_EMIT_LLVM_H_
