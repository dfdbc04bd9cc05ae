// The soft-float helpers LLVM's x86-64 backend calls for 16-bit floats when the
// host lacks the instructions (F16C for f16, AVX512-BF16 for bf16), under the
// names libgcc and compiler-rt give them (__truncsfhf2, __truncsfbf2, ...).
//
// The emitter converts both formats itself with integer code
// (lowering/emit/emit_narrow.cc), so scjit's generated code calls none of these; they
// are here so that any f16/bf16 operation LLVM legalizes with a call still links
// on any host. The JIT resolves every name below to these functions, ahead of
// the process (jit/jit_session.cc): Debian 12's libgcc (GCC 12) has the f16
// helpers but none of the bf16 ones.
//
// Rounding is to nearest even and exact, as runtime/half.h does it. Arguments
// and results travel as the psABI passes _Float16 and __bf16: in the low 16 bits
// of an XMM register. GCC 12 has _Float16 but no __bf16, so bf16 bit patterns
// travel in a _Float16 (the same register).
#ifndef SCJIT_RUNTIME_SOFTFLOAT_H_
#define SCJIT_RUNTIME_SOFTFLOAT_H_

#include <span>
#include <string_view>

namespace scjit {

struct SoftFloatSymbol {
  std::string_view name;  // as LLVM calls it
  const void* address;
};

// Every helper, by the name LLVM calls it.
std::span<const SoftFloatSymbol> SoftFloatSymbols();

}  // namespace scjit

#endif  // SCJIT_RUNTIME_SOFTFLOAT_H_
