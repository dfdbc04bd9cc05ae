// The LLVM struct types the emitter builds match the C structs of runtime/abi.h.
#include <cstddef>

#include "gtest/gtest.h"
#include "lowering/emit/emit_llvm.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/LLVMContext.h"
#include "runtime/abi.h"

namespace scjit {
namespace {

// The x86-64 System V data layout (the only host scjit targets).
const llvm::DataLayout kLayout("e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128");

TEST(AbiTest, ContextLayout) {
  llvm::LLVMContext ctx;
  const llvm::StructLayout* l = kLayout.getStructLayout(CtxType(ctx));
  EXPECT_EQ(l->getSizeInBytes(), sizeof(scjit_ctx));
  const size_t offsets[] = {offsetof(scjit_ctx, vmem),     offsetof(scjit_ctx, smem),        offsetof(scjit_ctx, vmem_shared),
                            offsetof(scjit_ctx, hbm),      offsetof(scjit_ctx, core),        offsetof(scjit_ctx, subcore),
                            offsetof(scjit_ctx, num_cores), offsetof(scjit_ctx, num_subcores), offsetof(scjit_ctx, tick),
                            offsetof(scjit_ctx, checks),   offsetof(scjit_ctx, runtime)};
  for (unsigned i = 0; i < std::size(offsets); ++i) EXPECT_EQ(l->getElementOffset(i), offsets[i]) << "field " << i;
}

TEST(AbiTest, RefAndDmaLayout) {
  llvm::LLVMContext ctx;
  const llvm::StructLayout* ref = kLayout.getStructLayout(RefType(ctx));
  EXPECT_EQ(ref->getSizeInBytes(), sizeof(scjit_ref));
  EXPECT_EQ(ref->getElementOffset(0), offsetof(scjit_ref, base));
  EXPECT_EQ(ref->getElementOffset(1), offsetof(scjit_ref, sizes));
  EXPECT_EQ(ref->getElementOffset(2), offsetof(scjit_ref, strides));
  EXPECT_EQ(ref->getElementOffset(3), offsetof(scjit_ref, rank));
  EXPECT_EQ(ref->getElementOffset(4), offsetof(scjit_ref, space));
  const llvm::StructLayout* dma = kLayout.getStructLayout(DmaType(ctx));
  EXPECT_EQ(dma->getSizeInBytes(), sizeof(scjit_dma));
  EXPECT_EQ(dma->getElementOffset(0), offsetof(scjit_dma, src));
  EXPECT_EQ(dma->getElementOffset(1), offsetof(scjit_dma, dst));
  EXPECT_EQ(dma->getElementOffset(2), offsetof(scjit_dma, elem_bytes));
  EXPECT_EQ(dma->getElementOffset(3), offsetof(scjit_dma, dtype));
  EXPECT_EQ(dma->getElementOffset(4), offsetof(scjit_dma, sem));
  EXPECT_EQ(dma->getElementOffset(5), offsetof(scjit_dma, add));
  EXPECT_EQ(dma->getElementOffset(6), offsetof(scjit_dma, sem_unit));
  EXPECT_EQ(dma->getElementOffset(7), offsetof(scjit_dma, indexed));
  EXPECT_EQ(dma->getElementOffset(8), offsetof(scjit_dma, indices));
  EXPECT_EQ(dma->getElementOffset(9), offsetof(scjit_dma, index_count));
  EXPECT_EQ(dma->getElementOffset(10), offsetof(scjit_dma, index_stride));
  EXPECT_EQ(dma->getElementOffset(11), offsetof(scjit_dma, list_in_vmem));
  EXPECT_EQ(dma->getElementOffset(12), offsetof(scjit_dma, has_ignore));
  EXPECT_EQ(dma->getElementOffset(13), offsetof(scjit_dma, ignore));
  EXPECT_EQ(dma->getElementOffset(14), offsetof(scjit_dma, reserved));
}

}  // namespace
}  // namespace scjit
