// The runtime's C ABI as the emitter sees it: the functions generated code calls
// (RuntimeFn, runtime/abi.def) and the structs it fills (CtxField, RefField,
// DmaField, runtime/abi_fields.def), their LLVM types derived from the C types of
// runtime/abi.h. runtime_abi.cc checks at compile time that the tables match the
// C prototypes and struct layouts, so neither can drift from abi.h.
#ifndef SCJIT_LOWERING_EMIT_RUNTIME_ABI_H_
#define SCJIT_LOWERING_EMIT_RUNTIME_ABI_H_

#include <string_view>

namespace llvm {
class FunctionType;
class LLVMContext;
class StructType;
}  // namespace llvm

namespace scjit {

enum class RuntimeFn : int {
#define SCJIT_ABI(Fn, name, signature) Fn,
#include "runtime/abi.def"
};

enum class CtxField : unsigned {
#define SCJIT_CTX_FIELD(Field, member) Field,
#include "runtime/abi_fields.def"
};
enum class RefField : unsigned {
#define SCJIT_REF_FIELD(Field, member) Field,
#include "runtime/abi_fields.def"
};
enum class DmaField : unsigned {
#define SCJIT_DMA_FIELD(Field, member) Field,
#include "runtime/abi_fields.def"
};

// The C name of `fn` ("scjit_rt_dma_start") and its LLVM function type.
std::string_view RuntimeFnName(RuntimeFn fn);
llvm::FunctionType* RuntimeFnType(llvm::LLVMContext& ctx, RuntimeFn fn);

// The LLVM struct types mirroring scjit_ctx, scjit_ref and scjit_dma
// (tests/abi_test.cc also checks their layouts against LLVM's DataLayout).
llvm::StructType* CtxType(llvm::LLVMContext& ctx);
llvm::StructType* RefType(llvm::LLVMContext& ctx);
llvm::StructType* DmaType(llvm::LLVMContext& ctx);

}  // namespace scjit

#endif  // SCJIT_LOWERING_EMIT_RUNTIME_ABI_H_
