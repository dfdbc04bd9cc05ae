// Indirect DMAs (kernel-ir.md §4.2 `idx(...)`, sc-semantics.md §4.4): the index
// list of a gather or scatter, and the descriptor fields that carry it to the
// runtime (runtime/abi.h scjit_dma), which moves the rows.
#include "lowering/emit/emitter.h"
#include "llvm/IR/Constants.h"
#include "runtime/abi.h"

namespace scjit::emit {

absl::StatusOr<RefVal::Indices> Emitter::IndexList(const Op& op, const IndexEntry& e) {
  RefVal::Indices out;
  if (e.ignore) out.ignore = b_.CreateSExtOrTrunc(ValueOf(*e.ignore), b_.getInt32Ty());
  const Operand& list = e.start;
  const Type& t = list.value->type;
  if (t.is_memory()) {
    // A VMEM ref (DMA-21), read by the runtime at dma_start.
    const RefVal& r = *BaseRef(list.value);
    if (r.semaphore || r.indices || ByteWidth(r.element) != 4 || !IsInteger(r.element)) {
      return Unsupported(kernel_, op, Cat("an idx(...) list of type ", t.ToString(), " (index refs hold i32)"));
    }
    // One dimension, or several that are contiguous (a view_reshape of a 2-D list).
    if (r.rank() == 1) {
      out.count = r.sizes[0];
      out.stride = r.strides[0];
    } else if (Contiguous(r)) {
      out.count = I64(1);
      for (llvm::Value* size : r.sizes) out.count = b_.CreateMul(out.count, size);
      out.stride = I64(1);
    } else {
      return Unsupported(kernel_, op, "an idx(...) list that is a strided view of several dimensions");
    }
    out.list = r.ptr;
    out.in_vmem = true;
    return out;
  }
  if (!t.is_vector() || !IsInteger(t.element()) || IsBool(t.element())) {
    return Unsupported(kernel_, op, Cat("an idx(...) list of type ", t.ToString()));
  }
  // A vector value: its i32 copy in this frame, which the runtime reads at
  // dma_start (so the slot may be reused as soon as the call returns).
  int64_t n = t.NumElements();
  llvm::Value* buffer = NewBuffer(Type::Vector(ElementType::kI32, {n}));
  if (Large(t)) {
    absl::Status s = ForChunks(n, [&](llvm::Value* first, int64_t width) {
      StoreChunk(buffer, ElementType::kI32, first, Convert(ChunkOf(list, first, width), t.element(), ElementType::kI32));
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
  } else {
    b_.CreateAlignedStore(Convert(ValueOf(list), t.element(), ElementType::kI32), buffer, llvm::Align(4));
  }
  out.list = buffer;
  out.count = I64(n);
  out.stride = I64(1);
  return out;
}

absl::Status Emitter::FillIndirect(const Op& op, Descriptor& dma, const RefVal& src, const RefVal& dst,
                                   const Type* sem) {
  auto field = [&](DmaField f, llvm::Value* v) { dma.Set({static_cast<unsigned>(f)}, v); };
  // A regular semaphore counts completed DMAs, a DMA semaphore bytes (sc-semantics.md §4.6).
  bool regular = sem != nullptr && sem->is_semaphore() && sem->semaphore_kind() != SemaphoreKind::kDma;
  field(DmaField::kSemUnit, I32(regular ? SCJIT_SEM_ONE : SCJIT_SEM_BYTES));
  if (src.indices && dst.indices) return Unsupported(kernel_, op, "a DMA with idx(...) lists on both sides");
  const std::optional<RefVal::Indices>& list = src.indices ? src.indices : dst.indices;
  field(DmaField::kIndexed, I32(!list ? SCJIT_DMA_PLAIN : src.indices ? SCJIT_DMA_GATHER : SCJIT_DMA_SCATTER));
  field(DmaField::kIndices, list ? list->list : static_cast<llvm::Value*>(llvm::ConstantPointerNull::get(b_.getPtrTy())));
  field(DmaField::kIndexCount, list ? list->count : I64(0));
  field(DmaField::kIndexStride, list ? list->stride : I64(0));
  field(DmaField::kListInVmem, I32(list && list->in_vmem ? 1 : 0));
  field(DmaField::kHasIgnore, I32(list && list->ignore != nullptr ? 1 : 0));
  field(DmaField::kIgnore, list && list->ignore != nullptr ? list->ignore : I32(0));
  field(DmaField::kReserved, I32(0));
  return absl::OkStatus();
}

}  // namespace scjit::emit
