// Indirect DMAs (kernel-ir.md §4.2 `idx(...)`, sc-semantics.md §4.4): the index
// list of a gather or scatter, and the descriptor fields that carry it to the
// runtime (runtime/abi.h scjit_dma), which moves the rows.
#include "lowering/emit/emitter.h"
#include "lowering/analysis/indirect_views.h"
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

namespace {

// `r` without its first physical dimension: a row of it.
RefVal RowOf(const RefVal& r) {
  RefVal row = r;
  row.indices.reset();
  row.sizes.erase(row.sizes.begin());
  row.strides.erase(row.strides.begin());
  if (!row.spans.empty()) row.spans.erase(row.spans.begin());
  return row;
}

}  // namespace

std::optional<std::pair<llvm::Value*, llvm::Value*>> Emitter::OneDimension(const RefVal& r, int first, int count) {
  llvm::Value* size = r.sizes[first];
  for (int j = first + 1; j < first + count; ++j) {
    int64_t inner = StaticInt(r.sizes[j]), stride = StaticInt(r.strides[j]), outer = StaticInt(r.strides[j - 1]);
    if (inner < 0 || stride < 0 || outer != inner * stride) return std::nullopt;
    size = b_.CreateMul(size, r.sizes[j]);
  }
  return std::pair{size, r.strides[first + count - 1]};
}

absl::Status Emitter::CheckIndirectViews(const Op& op) {
  bool indirect = false;
  for (int k = 0; k < 2; ++k) {
    for (const IndexEntry& e : op.operands[k].index) indirect |= e.kind == IndexEntry::Kind::kIndirect;
  }
  for (int k = 0; k < 2 && indirect; ++k) {
    std::optional<std::string> limit = IndirectViewLimit(op.operands[k].value);
    if (limit) return Unsupported(kernel_, op, *limit);
  }
  return absl::OkStatus();
}

absl::Status Emitter::IndirectInUnits(const Op& op, RefVal* a, RefVal* b, int site) {
  if (!a->reinterpreted() && !b->reinterpreted() && a->spans.empty() && b->spans.empty()) return absl::OkStatus();
  if (a->chain != nullptr || b->chain != nullptr || a->rank() == 0 || b->rank() == 0) {
    return Unsupported(kernel_, op, "an indirect DMA through a view that strides do not describe");
  }
  // The first dimension, the list's (and the plain side's rows), as one
  // physical dimension (the indexed side's is already, View).
  for (RefVal* r : {a, b}) {
    int parts = r->span(0);
    if (parts == 1) continue;
    std::optional<std::pair<llvm::Value*, llvm::Value*>> one = OneDimension(*r, 0, parts);
    if (!one) return Unsupported(kernel_, op, "an indirect DMA whose rows are not evenly spaced in the view");
    std::tie(r->sizes[0], r->strides[0]) = *one;
    r->sizes.erase(r->sizes.begin() + 1, r->sizes.begin() + parts);
    r->strides.erase(r->strides.begin() + 1, r->strides.begin() + parts);
    r->spans[0] = 1;
  }
  // A row of each side matched with the other's as plain DMAs' dimensions
  // are (MatchDims): in units of the narrower element when a view_bitcast
  // widened one (its elements are units a row apart); the first dimension's
  // stride then counts units too.
  int unit_a = UnitBits(*a), unit_b = UnitBits(*b);
  RefVal ra = RowOf(*a), rb = RowOf(*b);
  bool runs = false;
  if (absl::Status s = MatchDims(op, &ra, &rb, site, &runs); !s.ok()) return s;
  if (runs || ra.rank() + 1 > SCJIT_MAX_RANK || rb.rank() + 1 > SCJIT_MAX_RANK) {
    return Unsupported(kernel_, op, "an indirect DMA whose rows the two views lay out in ways strides do not pair");
  }
  for (auto [r, row, unit] : {std::tuple{a, &ra, unit_a}, std::tuple{b, &rb, unit_b}}) {
    llvm::Value* stride = r->strides[0];
    if (row->element != r->element) stride = b_.CreateMul(stride, I64(unit / BitWidth(row->element)));
    r->sizes.resize(1);
    r->strides.assign(1, stride);
    r->sizes.insert(r->sizes.end(), row->sizes.begin(), row->sizes.end());
    r->strides.insert(r->strides.end(), row->strides.begin(), row->strides.end());
    r->spans.clear();
    r->pieces = 0;
    r->element = row->element;
  }
  return absl::OkStatus();
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
  // An add into a view that a view_bitcast widened moves units: each element
  // of the destination's type is that many of them (scjit_dma::add_pieces).
  bool adds = op.dma_add && list && op.kind != OpKind::kPipeline;
  ElementType whole = adds ? op.operands[1].value->type.element() : dst.element;
  int pieces = ByteWidth(whole) / ByteWidth(dst.element);
  bool in_pieces = adds && pieces > 1;
  field(DmaField::kAddPieces, I32(in_pieces ? pieces : 0));
  if (in_pieces) field(DmaField::kDtype, I32(static_cast<int>(whole)));
  return absl::OkStatus();
}

}  // namespace scjit::emit
