// The LLVM struct and function types the emitter derives from the ABI tables
// (runtime/abi.def, runtime/abi_fields.def) match the C declarations of
// runtime/abi.h under the host's data layout. (runtime_abi.cc checks the tables
// against abi.h at compile time too; this checks what LLVM makes of them.)
#include <cstddef>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/emit/runtime_abi.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/LLVMContext.h"
#include "runtime/abi.h"

namespace scjit {
namespace {

// The x86-64 System V data layout (the only host scjit targets).
const llvm::DataLayout kLayout("e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128");

struct Expected {
  std::string member;
  size_t offset;
};

void ExpectLayout(llvm::StructType* type, size_t size, const std::vector<Expected>& members) {
  const llvm::StructLayout* l = kLayout.getStructLayout(type);
  EXPECT_EQ(l->getSizeInBytes(), size) << type->getName().str();
  ASSERT_EQ(type->getNumElements(), members.size()) << type->getName().str();
  for (unsigned i = 0; i < members.size(); ++i) {
    EXPECT_EQ(l->getElementOffset(i), members[i].offset) << type->getName().str() << "." << members[i].member;
  }
}

TEST(AbiTest, StructLayouts) {
  llvm::LLVMContext ctx;
  ExpectLayout(CtxType(ctx), sizeof(scjit_ctx), {
#define SCJIT_CTX_FIELD(Field, member) {#member, offsetof(scjit_ctx, member)},
#include "runtime/abi_fields.def"
                                                 });
  ExpectLayout(RefType(ctx), sizeof(scjit_ref), {
#define SCJIT_REF_FIELD(Field, member) {#member, offsetof(scjit_ref, member)},
#include "runtime/abi_fields.def"
                                                 });
  ExpectLayout(DmaType(ctx), sizeof(scjit_dma), {
#define SCJIT_DMA_FIELD(Field, member) {#member, offsetof(scjit_dma, member)},
#include "runtime/abi_fields.def"
                                                 });
}

TEST(AbiTest, FieldsAreNamedByTheirMembers) {
  llvm::LLVMContext ctx;
  const llvm::StructLayout* dma = kLayout.getStructLayout(DmaType(ctx));
  EXPECT_EQ(dma->getElementOffset(static_cast<unsigned>(DmaField::kIndices)), offsetof(scjit_dma, indices));
  const llvm::StructLayout* c = kLayout.getStructLayout(CtxType(ctx));
  EXPECT_EQ(c->getElementOffset(static_cast<unsigned>(CtxField::kTick)), offsetof(scjit_ctx, tick));
}

TEST(AbiTest, FunctionTypes) {
  llvm::LLVMContext ctx;
  EXPECT_EQ(RuntimeFnName(RuntimeFn::kDmaStart), "scjit_rt_dma_start");
  llvm::FunctionType* f = RuntimeFnType(ctx, RuntimeFn::kFetchAndAdd);
  ASSERT_EQ(f->getNumParams(), 6u);
  EXPECT_TRUE(f->getReturnType()->isIntegerTy(32));
  EXPECT_TRUE(f->getParamType(0)->isPointerTy());
  EXPECT_TRUE(f->getParamType(1)->isIntegerTy(64));
  EXPECT_TRUE(f->getParamType(5)->isPointerTy());
}

}  // namespace
}  // namespace scjit
