#include "lowering/emit/runtime_abi.h"

#include <array>
#include <cstddef>
#include <type_traits>

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/LLVMContext.h"
#include "runtime/abi.h"

namespace scjit {
namespace {

// --- The tables against abi.h, at compile time ---------------------------------------

// Every signature of abi.def is its function's prototype.
#define SCJIT_ABI(Fn, name, signature)                                  \
  static_assert(std::is_same_v<decltype(name), signature>, #name        \
                " in runtime/abi.def does not match its prototype in runtime/abi.h");
#include "runtime/abi.def"

struct Member {
  size_t offset, size, align;
};

// True when `members` (offset, size, alignment) are every member of a struct of
// `size` bytes aligned to `align`, in order: each at the first suitably aligned
// offset after the one before, and nothing after the last but tail padding.
template <size_t N>
constexpr bool AllMembersInOrder(const std::array<Member, N>& members, size_t size, size_t align) {
  size_t end = 0;
  for (const Member& m : members) {
    size_t at = (end + m.align - 1) / m.align * m.align;
    if (m.offset != at) return false;
    end = at + m.size;
  }
  return (end + align - 1) / align * align == size;
}

#define SCJIT_MEMBER(S, member) Member{offsetof(S, member), sizeof(S::member), alignof(decltype(S::member))},
constexpr std::array kCtxMembers = {
#define SCJIT_CTX_FIELD(Field, member) SCJIT_MEMBER(scjit_ctx, member)
#include "runtime/abi_fields.def"
};
constexpr std::array kRefMembers = {
#define SCJIT_REF_FIELD(Field, member) SCJIT_MEMBER(scjit_ref, member)
#include "runtime/abi_fields.def"
};
constexpr std::array kDmaMembers = {
#define SCJIT_DMA_FIELD(Field, member) SCJIT_MEMBER(scjit_dma, member)
#include "runtime/abi_fields.def"
};
#undef SCJIT_MEMBER
static_assert(AllMembersInOrder(kCtxMembers, sizeof(scjit_ctx), alignof(scjit_ctx)),
              "runtime/abi_fields.def does not list scjit_ctx's members in order");
static_assert(AllMembersInOrder(kRefMembers, sizeof(scjit_ref), alignof(scjit_ref)),
              "runtime/abi_fields.def does not list scjit_ref's members in order");
static_assert(AllMembersInOrder(kDmaMembers, sizeof(scjit_dma), alignof(scjit_dma)),
              "runtime/abi_fields.def does not list scjit_dma's members in order");

// --- C types as LLVM types -------------------------------------------------------------

template <typename T>
llvm::Type* LlvmType(llvm::LLVMContext& ctx) {
  if constexpr (std::is_pointer_v<T>) {
    return llvm::PointerType::get(ctx, 0);
  } else if constexpr (std::is_array_v<T>) {
    return llvm::ArrayType::get(LlvmType<std::remove_extent_t<T>>(ctx), std::extent_v<T>);
  } else if constexpr (std::is_same_v<T, scjit_ref>) {
    return RefType(ctx);
  } else {
    static_assert(std::is_integral_v<T>, "an ABI type scjit cannot mirror");
    return llvm::IntegerType::get(ctx, sizeof(T) * 8);
  }
}

template <typename F>
struct FunctionOf;
template <typename R, typename... A>
struct FunctionOf<R(A...)> {
  static llvm::FunctionType* Get(llvm::LLVMContext& ctx) {
    return llvm::FunctionType::get(LlvmType<R>(ctx), {LlvmType<A>(ctx)...}, /*isVarArg=*/false);
  }
};

struct FnRow {
  std::string_view name;
  llvm::FunctionType* (*type)(llvm::LLVMContext&);
};
constexpr FnRow kFns[] = {
#define SCJIT_ABI(Fn, name, signature) {#name, &FunctionOf<signature>::Get},
#include "runtime/abi.def"
};

}  // namespace

std::string_view RuntimeFnName(RuntimeFn fn) { return kFns[static_cast<int>(fn)].name; }

llvm::FunctionType* RuntimeFnType(llvm::LLVMContext& ctx, RuntimeFn fn) {
  return kFns[static_cast<int>(fn)].type(ctx);
}

// Each struct type is made once per context, from the member types of its rows.
llvm::StructType* CtxType(llvm::LLVMContext& ctx) {
  if (llvm::StructType* t = llvm::StructType::getTypeByName(ctx, "scjit_ctx")) return t;
  return llvm::StructType::create(ctx,
                                  {
#define SCJIT_CTX_FIELD(Field, member) LlvmType<decltype(scjit_ctx::member)>(ctx),
#include "runtime/abi_fields.def"
                                  },
                                  "scjit_ctx");
}

llvm::StructType* RefType(llvm::LLVMContext& ctx) {
  if (llvm::StructType* t = llvm::StructType::getTypeByName(ctx, "scjit_ref")) return t;
  return llvm::StructType::create(ctx,
                                  {
#define SCJIT_REF_FIELD(Field, member) LlvmType<decltype(scjit_ref::member)>(ctx),
#include "runtime/abi_fields.def"
                                  },
                                  "scjit_ref");
}

llvm::StructType* DmaType(llvm::LLVMContext& ctx) {
  if (llvm::StructType* t = llvm::StructType::getTypeByName(ctx, "scjit_dma")) return t;
  return llvm::StructType::create(ctx,
                                  {
#define SCJIT_DMA_FIELD(Field, member) LlvmType<decltype(scjit_dma::member)>(ctx),
#include "runtime/abi_fields.def"
                                  },
                                  "scjit_dma");
}

}  // namespace scjit
