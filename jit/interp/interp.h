// The interpreter engine: a plain interpreter of the verified, rule-checked
// Kernel IR over the same runtime as the JIT's code (docs/interpreter.md).
//
// The compiler plans a kernel exactly as for the JIT (KernelInfo: the memory
// plan, the LaunchLayout) and then, instead of emitting LLVM IR, builds one
// Program per part: the part's IR and what the interpreter needs beside it (the
// slot of every ref, the sites it reports at). The entry point `Run` is an
// ordinary KernelFn: the runtime gives each subcore its part's program in
// scjit_ctx::program, and the interpreter calls the same runtime functions,
// with the same arguments, as the generated code does — DMAs, semaphores,
// barriers, ticks, bounds and access faults — so that both engines give the
// same output bytes and the same findings. It is written for clarity, not
// speed: the JIT's reference, and the oracle of differential fuzzing.
#ifndef SCJIT_JIT_INTERP_INTERP_H_
#define SCJIT_JIT_INTERP_INTERP_H_

#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/analysis/kernel_info.h"
#include "lowering/ir/ir.h"
#include "runtime/launch.h"

namespace scjit::interp {

// The checks compiled into a program, as EmitOptions for the JIT.
struct Options {
  bool bounds_checks = true;   // report out-of-bounds indices (else clamp them)
  bool access_checks = false;  // test the state bytes of VMEM/SMEM accesses (RT-INIT, RT-RACE)
  bool init_shadows = false;   // carry the init state of values (RT-INIT at their uses)
  bool signed_sort_keys = false;  // lax.sort orders signed keys as signed (JAX 0.12.1 on)
};

struct Program;  // one part (program.h)

// The programs of one kernel, one per part, and the module they interpret.
// Immutable once built; shared by every launch.
class Programs {
 public:
  Programs();
  ~Programs();
  Programs(const Programs&) = delete;
  Programs& operator=(const Programs&) = delete;

  // The code of each part, for RunKernel: Run, and the part's program.
  std::vector<PartCode> Parts() const;

 private:
  friend absl::StatusOr<std::shared_ptr<const Programs>> Build(std::shared_ptr<const Module>,
                                                               std::span<const KernelDef* const>,
                                                               std::span<KernelInfo* const>, const Options&);
  std::shared_ptr<const Module> module_;
  std::vector<std::unique_ptr<Program>> parts_;
};

// Builds the programs of a kernel's parts; infos[i] (PlanKernel of parts[i])
// gains the part's sites and entry, as the emitter's would. A kernel using what
// the interpreter does not handle yet is an Unimplemented error naming the op
// and its line, worded as the emitter's ("not implemented yet: ...").
absl::StatusOr<std::shared_ptr<const Programs>> Build(std::shared_ptr<const Module> module,
                                                      std::span<const KernelDef* const> parts,
                                                      std::span<KernelInfo* const> infos, const Options& options);

// The entry point of every interpreted part: runs ctx->program on this subcore.
int32_t Run(scjit_ctx* ctx);

}  // namespace scjit::interp

#endif  // SCJIT_JIT_INTERP_INTERP_H_
