#include "lowering/emit/emit_llvm.h"

#include <cstring>

#include "lowering/emit/emitter.h"
#include "lowering/ir/printer.h"
#include "lowering/base/strings.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "runtime/abi.h"

namespace scjit {
namespace emit {

// ------------------------------------------------------------------------------------
// Types.

llvm::Type* Emitter::ElemTy(ElementType e) {
  switch (e) {
    case ElementType::kI1:
      return b_.getInt1Ty();
    case ElementType::kI8:
    case ElementType::kU8:
    case ElementType::kI4:  // memory's form, the low nibble (WidenInt4/NarrowInt4)
    case ElementType::kU4:
      return b_.getInt8Ty();
    case ElementType::kI16:
    case ElementType::kU16:
      return b_.getInt16Ty();
    case ElementType::kI32:
    case ElementType::kU32:
      return b_.getInt32Ty();
    case ElementType::kI64:
    case ElementType::kU64:
      return b_.getInt64Ty();
    case ElementType::kBF16:
      return b_.getBFloatTy();
    case ElementType::kF16:
      return b_.getHalfTy();
    case ElementType::kF32:
      return b_.getFloatTy();
    case ElementType::kF64:
      return b_.getDoubleTy();
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ:
      return b_.getInt8Ty();  // computed in f32 (ToF32/FromF32)
  }
  return b_.getInt32Ty();
}

llvm::Type* Emitter::ValueTy(const Type& t) {
  if (t.is_vector()) return llvm::FixedVectorType::get(ElemTy(t.element()), static_cast<unsigned>(t.NumElements()));
  return ElemTy(t.element());
}

llvm::StructType* Emitter::CtxTy() { return CtxType(ctx_); }
llvm::StructType* Emitter::RefTy() { return RefType(ctx_); }
llvm::StructType* Emitter::DmaTy() { return DmaType(ctx_); }


llvm::AllocaInst* Emitter::EntryAlloca(llvm::Type* ty) {
  llvm::IRBuilder<>::InsertPointGuard guard(b_);
  b_.SetInsertPoint(entry_->getTerminator());
  return b_.CreateAlloca(ty);
}

llvm::Value* Emitter::OutSlot() {
  if (out_slot_ == nullptr) out_slot_ = EntryAlloca(b_.getInt32Ty());
  return out_slot_;
}

// ------------------------------------------------------------------------------------
// Runtime calls.

llvm::FunctionCallee Emitter::Rt(RuntimeFn fn) {
  std::string_view name = RuntimeFnName(fn);
  return module_.getOrInsertFunction(llvm::StringRef(name.data(), name.size()), RuntimeFnType(ctx_, fn));
}

void Emitter::ExitIf(llvm::Value* fail, llvm::Value* status) {
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "ok", fn_);
  llvm::BasicBlock* here = b_.GetInsertBlock();
  b_.CreateCondBr(fail, exit_, cont, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  exit_status_->addIncoming(status, here);
  b_.SetInsertPoint(cont);
}

void Emitter::CallChecked(RuntimeFn fn, std::vector<llvm::Value*> args) {
  llvm::Value* status = b_.CreateCall(Rt(fn), args);
  ExitIf(b_.CreateICmpNE(status, I32(0)), status);
}

// ------------------------------------------------------------------------------------
// Values.

llvm::Constant* Emitter::LiteralConstant(const Operand& o, ElementType e) {
  llvm::Type* ty = ElemTy(e);
  if (IsFloat(e)) {
    double v = o.kind == Operand::Kind::kFloat ? o.float_value : static_cast<double>(o.int_value);
    if (IsFloat8(e)) return llvm::ConstantInt::get(ty, FloatToFloat8(v, e));
    return llvm::ConstantFP::get(ty, v);
  }
  if (IsInt4(e)) return llvm::ConstantInt::get(ty, static_cast<uint64_t>(o.int_value) & 0x0F);  // memory's form
  return llvm::ConstantInt::get(ty, static_cast<uint64_t>(o.int_value), /*isSigned=*/true);
}

llvm::Constant* Emitter::PoisonConstant(const Type& t) {
  uint64_t bits = PoisonBits(t.element());
  llvm::Constant* c = llvm::ConstantInt::get(b_.getIntNTy(static_cast<unsigned>(BitWidth(t.element()))), bits);
  if (IsFloat(t.element())) c = llvm::ConstantExpr::getBitCast(c, ElemTy(t.element()));
  if (t.element() == ElementType::kI1) c = b_.getTrue();
  if (t.is_vector()) return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(static_cast<unsigned>(t.NumElements())), c);
  return c;
}

llvm::Value* Emitter::ValueOf(const Operand& o) {
  if (o.is_literal()) return LiteralConstant(o, o.literal_type.element());
  return vals_[o.value].value;
}


llvm::Value* Emitter::NewBuffer(const Type& t) {
  llvm::AllocaInst* a =
      EntryAlloca(llvm::ArrayType::get(BufferElemTy(t.element()), static_cast<uint64_t>(t.NumElements())));
  a->setAlignment(llvm::Align(64));
  return a;
}

llvm::Value* Emitter::LoadChunk(llvm::Value* buffer, ElementType e, llvm::Value* offset, int64_t width) {
  llvm::Type* elem = BufferElemTy(e);
  llvm::Value* v = b_.CreateAlignedLoad(llvm::FixedVectorType::get(elem, static_cast<unsigned>(width)),
                                        b_.CreateGEP(elem, buffer, offset), llvm::Align(elem->getScalarSizeInBits() / 8));
  return e == ElementType::kI1 ? b_.CreateTrunc(v, llvm::FixedVectorType::get(b_.getInt1Ty(), static_cast<unsigned>(width)))
                               : v;
}

void Emitter::StoreChunk(llvm::Value* buffer, ElementType e, llvm::Value* offset, llvm::Value* chunk) {
  llvm::Type* elem = BufferElemTy(e);
  if (e == ElementType::kI1) {
    unsigned width = llvm::cast<llvm::FixedVectorType>(chunk->getType())->getNumElements();
    chunk = b_.CreateZExt(chunk, llvm::FixedVectorType::get(elem, width));
  }
  b_.CreateAlignedStore(chunk, b_.CreateGEP(elem, buffer, offset), llvm::Align(elem->getScalarSizeInBits() / 8));
}

llvm::Value* Emitter::ChunkOf(const Operand& o, llvm::Value* offset, int64_t width) {
  Type t = o.type();
  // A small vector among large ones (a mask of 200 lanes) is staged in a buffer.
  if (t.is_vector()) return LoadChunk(AsBuffer(o), t.element(), offset, width);
  return b_.CreateVectorSplat(static_cast<unsigned>(width), ValueOf(o));
}

absl::Status Emitter::ForChunks(int64_t n, const std::function<absl::Status(llvm::Value*, int64_t)>& body) {
  int64_t full = n / kChunkElements;
  absl::Status status;
  Loop(full, [&](llvm::Value* i) { status = body(b_.CreateMul(i, I64(kChunkElements)), kChunkElements); });
  if (!status.ok()) return status;
  if (n % kChunkElements != 0) return body(I64(full * kChunkElements), n % kChunkElements);
  return absl::OkStatus();
}

void Emitter::Loop(int64_t n, const std::function<void(llvm::Value*)>& body) {
  if (n <= 0) return;
  if (n == 1) {
    body(I64(0));
    return;
  }
  Loop(I64(n), body);
}

void Emitter::Loop(llvm::Value* n, const std::function<void(llvm::Value*)>& body) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "loop", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "loop_done", fn_);
  auto* known = llvm::dyn_cast<llvm::ConstantInt>(n);
  if (known != nullptr && known->getSExtValue() > 0) {
    b_.CreateBr(loop);
  } else {
    b_.CreateCondBr(b_.CreateICmpSGT(n, I64(0)), loop, done);
  }
  b_.SetInsertPoint(loop);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2);
  i->addIncoming(I64(0), pre);
  body(i);
  llvm::Value* next = b_.CreateAdd(i, I64(1));
  i->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpULT(next, n), loop, done);
  b_.SetInsertPoint(done);
}

llvm::Value* Emitter::LoadElement(llvm::Value* buffer, ElementType e, llvm::Value* index) {
  llvm::Type* elem = BufferElemTy(e);
  llvm::Value* v = b_.CreateLoad(elem, b_.CreateGEP(elem, buffer, index));
  return e == ElementType::kI1 ? b_.CreateTrunc(v, b_.getInt1Ty()) : v;
}

void Emitter::StoreElement(llvm::Value* buffer, ElementType e, llvm::Value* index, llvm::Value* v) {
  llvm::Type* elem = BufferElemTy(e);
  if (e == ElementType::kI1) v = b_.CreateZExt(v, elem);
  b_.CreateStore(v, b_.CreateGEP(elem, buffer, index));
}

void Emitter::CopyElements(llvm::Value* dst, llvm::Value* src, ElementType e, int64_t n) {
  if (dst == src) return;
  uint64_t bytes = static_cast<uint64_t>(n) * BufferElemTy(e)->getScalarSizeInBits() / 8;
  b_.CreateMemMove(dst, llvm::MaybeAlign(1), src, llvm::MaybeAlign(1), bytes);
}

llvm::Value* Emitter::Splat(llvm::Value* scalar, const Type& t) {
  if (!t.is_vector()) return scalar;
  return b_.CreateVectorSplat(static_cast<unsigned>(t.NumElements()), scalar);
}

// ------------------------------------------------------------------------------------
// Refs.

std::shared_ptr<RefVal> Emitter::BaseRef(const Value* v) {
  if (auto it = vals_.find(v); it != vals_.end() && it->second.ref != nullptr) return it->second.ref;
  auto r = std::make_shared<RefVal>();
  const Type& t = v->type;
  const Slot& slot = info_.slots.at(v);
  r->semaphore = t.is_semaphore();
  r->element = t.is_semaphore() ? ElementType::kI32 : t.element();
  r->space = t.is_semaphore() ? MemorySpace::kSmem : t.space();
  int64_t stride = 1;
  r->sizes.resize(t.rank());
  r->strides.resize(t.rank());
  for (int d = t.rank() - 1; d >= 0; --d) {
    r->sizes[d] = I64(t.shape()[d]);
    r->strides[d] = I64(stride);
    stride *= t.shape()[d];
  }
  // Refs are materialized in the entry block so that every use dominates them.
  llvm::IRBuilder<>::InsertPointGuard guard(b_);
  b_.SetInsertPoint(entry_->getTerminator());
  if (r->semaphore) {
    r->ptr = I32(slot.semaphore);
  } else if (OffCore(slot.space) && slot.param >= 0) {
    llvm::Value* addr = b_.CreateConstGEP1_64(b_.getPtrTy(), hbm_, static_cast<uint64_t>(slot.param));
    r->ptr = b_.CreateLoad(b_.getPtrTy(), addr, Cat("%", v->name));
  } else {
    llvm::Value* base = slot.space == MemorySpace::kSmem ? smem_ : slot.space == MemorySpace::kVmemShared ? shared_ : vmem_;
    r->ptr = b_.CreateConstGEP1_64(b_.getInt8Ty(), base, static_cast<uint64_t>(slot.offset), Cat("%", v->name));
  }
  vals_[v].ref = r;
  return r;
}

void Emitter::ReportUnless(llvm::Value* ok, const std::function<std::vector<llvm::Value*>()>& args) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(ok); c != nullptr && c->isOne()) return;
  if (!options_.bounds_checks) return;
  llvm::BasicBlock* bad = llvm::BasicBlock::Create(ctx_, "out_of_bounds", fn_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "in_bounds", fn_);
  b_.CreateCondBr(ok, cont, bad, llvm::MDBuilder(ctx_).createLikelyBranchWeights());
  b_.SetInsertPoint(bad);
  std::vector<llvm::Value*> call = {ctx_arg_};
  for (llvm::Value* a : args()) call.push_back(a);
  CallChecked(RuntimeFn::kBoundsError, call);
  b_.CreateBr(cont);
  b_.SetInsertPoint(cont);
}

llvm::Value* Emitter::CheckIndex(llvm::Value* index, llvm::Value* limit, int what, int dim, int site) {
  llvm::Value* in = b_.CreateICmpULT(index, limit);
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(in); c != nullptr && c->isOne()) return index;
  ReportUnless(in, [&] { return std::vector<llvm::Value*>{I32(site), I32(what), I32(dim), index, limit}; });
  // Clamp into [0, limit) (0 when the range is empty): with checks off, or when
  // findings are warnings, no access leaves its ref.
  llvm::Value* last = b_.CreateSelect(b_.CreateICmpSGT(limit, I64(0)), b_.CreateSub(limit, I64(1)), I64(0));
  return b_.CreateSelect(in, index, last);
}

std::vector<llvm::Value*> Emitter::TouchedLengths(const RefVal& r, const Operand& o, llvm::Value* touched) {
  // The window's size in each dimension it keeps, and then, from the minor
  // one, how many of its positions each step of a dimension covers.
  std::vector<llvm::Value*> window(static_cast<size_t>(r.dims()), nullptr);
  for (int d = 0; d < r.dims(); ++d) {
    const IndexEntry* e = d < static_cast<int>(o.index.size()) ? &o.index[d] : nullptr;
    if (e == nullptr || e->kind == IndexEntry::Kind::kAll) {
      window[d] = DimSize(r, d);
    } else if (e->kind == IndexEntry::Kind::kSlice) {
      window[d] = b_.CreateSExt(ValueOf(e->size), b_.getInt64Ty());
    } else if (e->kind == IndexEntry::Kind::kRange) {
      window[d] = b_.CreateSub(e->hi ? I64(*e->hi) : DimSize(r, d), I64(e->lo.value_or(0)));
    }
  }
  // Position p of the window has coordinate (p / step_d) % window_d in
  // dimension d, so positions [0, touched) reach min(window_d, (touched - 1)
  // / step_d + 1) of its coordinates (none when touched is 0).
  std::vector<llvm::Value*> lengths(window.size(), nullptr);
  llvm::Value* step = I64(1);
  llvm::Value* last = b_.CreateSub(touched, I64(1));
  llvm::Value* none = b_.CreateICmpSLE(touched, I64(0));
  for (size_t d = window.size(); d-- > 0;) {
    if (window[d] == nullptr) continue;
    llvm::Value* reached = b_.CreateAdd(b_.CreateSDiv(last, step), I64(1));
    lengths[d] = b_.CreateSelect(none, I64(0), b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, window[d], reached));
    step = b_.CreateMul(step, window[d]);
  }
  return lengths;
}

absl::StatusOr<RefVal> Emitter::View(const Op& op, const Operand& o, int site, llvm::Value* touched) {
  RefVal r = *BaseRef(o.value);
  if (!o.indexed) return r;
  if (r.indices) return Unsupported(kernel_, op, "an indexer on a view with an idx(...) list");
  if (NeedsChain(r, o)) return ChainView(op, o, r, site);  // emit_views.cc
  RefVal out;
  out.space = r.space;
  out.semaphore = r.semaphore;
  out.element = r.element;
  llvm::Value* offset = I64(0);
  std::vector<int> spans;
  // A window the op touches in part: the bounds of each slice are those of the
  // positions touched (a window of a view_bitcast or view_reshape is checked
  // whole, as the interpreter's chains and groups are).
  std::vector<llvm::Value*> touched_lengths;
  if (touched != nullptr && r.spans.empty() && !r.reinterpreted()) touched_lengths = TouchedLengths(r, o, touched);
  for (int d = 0; d < r.dims(); ++d) {
    int p = r.first(d);
    const IndexEntry* e = d < static_cast<int>(o.index.size()) ? &o.index[d] : nullptr;
    bool list = e != nullptr && e->kind == IndexEntry::Kind::kIndirect;
    if (list && (d > 0 || r.semaphore)) {
      return Unsupported(kernel_, op, "an idx(...) list on another than a plain first dimension");
    }
    llvm::Value* size = r.sizes[p];
    llvm::Value* stride = r.strides[p];
    if (list && r.span(d) > 1) {  // rows a view_reshape regrouped: one dimension when evenly spaced
      std::optional<std::pair<llvm::Value*, llvm::Value*>> one = OneDimension(r, p, r.span(d));
      if (!one) return Unsupported(kernel_, op, "an indirect DMA whose rows are not evenly spaced in the view");
      std::tie(size, stride) = *one;
    } else if (r.span(d) > 1) {  // a packed or reshaped dimension (emit_views.cc)
      if (absl::Status s = IndexGroup(op, r, d, e, site, &out, &spans, &offset); !s.ok()) return s;
      continue;
    }
    if (e == nullptr || e->kind == IndexEntry::Kind::kAll) {
      out.sizes.push_back(size);
      out.strides.push_back(stride);
      spans.push_back(1);
      continue;
    }
    switch (e->kind) {
      case IndexEntry::Kind::kIndex: {
        llvm::Value* i = b_.CreateSExt(ValueOf(e->start), b_.getInt64Ty());
        i = CheckIndex(i, size, SCJIT_BOUNDS_INDEX, d, site);
        offset = b_.CreateAdd(offset, b_.CreateMul(i, stride));
        break;
      }
      case IndexEntry::Kind::kSlice: {
        llvm::Value* start = b_.CreateSExt(ValueOf(e->start), b_.getInt64Ty());
        llvm::Value* n = b_.CreateSExt(ValueOf(e->size), b_.getInt64Ty());
        int64_t k = e->stride ? e->stride->int_value : 1;
        if (!e->size.is_literal()) n = CheckIndex(n, b_.CreateAdd(size, I64(1)), SCJIT_BOUNDS_SLICE_SIZE, d, site);
        // The last element start + (n-1)*k must be inside: start < size - (n-1)*k
        // (of those touched, when the op touches the window in part).
        llvm::Value* reach = touched_lengths.empty() ? n : b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, n, touched_lengths[d]);
        llvm::Value* span = b_.CreateMul(b_.CreateSub(reach, I64(1)), I64(k));
        start = CheckIndex(start, b_.CreateSub(size, span), SCJIT_BOUNDS_SLICE_START, d, site);
        offset = b_.CreateAdd(offset, b_.CreateMul(start, stride));
        out.sizes.push_back(n);
        out.strides.push_back(b_.CreateMul(stride, I64(k)));
        spans.push_back(1);
        break;
      }
      case IndexEntry::Kind::kRange: {
        int64_t lo = e->lo.value_or(0);
        llvm::Value* hi = e->hi ? I64(*e->hi) : size;
        offset = b_.CreateAdd(offset, b_.CreateMul(I64(lo), stride));
        out.sizes.push_back(b_.CreateSub(hi, I64(lo)));
        out.strides.push_back(stride);
        spans.push_back(1);
        break;
      }
      case IndexEntry::Kind::kAll:
        break;
      case IndexEntry::Kind::kIndirect: {  // the rows the list picks (emit_indirect.cc)
        absl::StatusOr<RefVal::Indices> list = IndexList(op, *e);
        if (!list.ok()) return list.status();
        out.indices = *list;
        out.sizes.push_back(size);
        out.strides.push_back(stride);
        spans.push_back(1);
        break;
      }
    }
  }
  if (std::any_of(spans.begin(), spans.end(), [](int n) { return n > 1; })) out.spans = std::move(spans);
  for (int j = r.rank() - r.pieces; j < r.rank(); ++j) {  // the units of an element (emit_views.cc)
    out.sizes.push_back(r.sizes[j]);
    out.strides.push_back(r.strides[j]);
  }
  out.pieces = r.pieces;
  out.ptr = r.semaphore ? b_.CreateAdd(r.ptr, b_.CreateTrunc(offset, b_.getInt32Ty())) : Address(r, offset);
  return out;
}

llvm::Value* Emitter::Address(const RefVal& r, llvm::Value* offset) {
  // With pieces, offsets count units (emit_views.cc).
  llvm::Type* unit = r.pieces > 0 ? b_.getIntNTy(static_cast<unsigned>(UnitBits(r))) : ElemTy(r.element);
  return b_.CreateGEP(unit, r.ptr, offset);
}

bool Emitter::Contiguous(const RefVal& r) const {
  if (r.reinterpreted()) return false;
  int64_t expect = 1;
  for (int d = r.rank() - 1; d >= 0; --d) {
    auto* size = llvm::dyn_cast<llvm::ConstantInt>(r.sizes[d]);
    auto* stride = llvm::dyn_cast<llvm::ConstantInt>(r.strides[d]);
    if (size == nullptr || stride == nullptr) return false;
    if (size->getSExtValue() != 1 && stride->getSExtValue() != expect) return false;
    expect *= size->getSExtValue();
  }
  return true;
}

absl::Status ForEachRow(const RefVal& r, int64_t* row_len, const std::function<void(int64_t, int64_t)>& row) {
  std::vector<int64_t> sizes, strides;
  for (int d = 0; d < r.rank(); ++d) {
    auto* size = llvm::dyn_cast<llvm::ConstantInt>(r.sizes[d]);
    auto* stride = llvm::dyn_cast<llvm::ConstantInt>(r.strides[d]);
    if (size == nullptr || stride == nullptr) return absl::InternalError("a value view has a dynamic shape");
    sizes.push_back(size->getSExtValue());
    strides.push_back(stride->getSExtValue());
  }
  bool unit_minor = r.rank() > 0 && strides.back() == 1;
  *row_len = unit_minor ? sizes.back() : 1;
  int outer_rank = unit_minor ? r.rank() - 1 : r.rank();
  int64_t rows = 1;
  for (int d = 0; d < outer_rank; ++d) rows *= sizes[d];
  for (int64_t k = 0; k < rows; ++k) {
    int64_t rem = k, off = 0;
    for (int d = outer_rank - 1; d >= 0; --d) {
      off += (rem % sizes[d]) * strides[d];
      rem /= sizes[d];
    }
    row(off, k * *row_len);
  }
  return absl::OkStatus();
}

absl::StatusOr<llvm::Value*> Emitter::Load(const Op& op, const RefVal& view, const Type& type) {
  llvm::Type* elem = ElemTy(view.element);
  llvm::Align align(static_cast<uint64_t>(ByteWidth(view.element)));
  if (view.reinterpreted()) return LoadUnits(view, type);  // emit_view_access.cc
  if (!type.is_vector()) return b_.CreateAlignedLoad(elem, view.ptr, align);
  llvm::Type* vec = ValueTy(type);
  if (Contiguous(view)) return b_.CreateAlignedLoad(vec, view.ptr, align);
  // Rows go through a stack temporary, which LLVM turns back into registers.
  llvm::Value* tmp = EntryAlloca(vec);
  int64_t row_len = 1;
  absl::Status s = ForEachRow(view, &row_len, [&](int64_t off, int64_t first) {
    llvm::Type* row_ty = row_len == 1 ? elem : llvm::FixedVectorType::get(elem, static_cast<unsigned>(row_len));
    llvm::Value* v = b_.CreateAlignedLoad(row_ty, Address(view, I64(off)), align);
    b_.CreateAlignedStore(v, b_.CreateConstGEP1_64(elem, tmp, static_cast<uint64_t>(first)), align);
  });
  if (!s.ok()) return s;
  return b_.CreateAlignedLoad(vec, tmp, align);
}

absl::Status Emitter::Store(const Op& op, const RefVal& view, llvm::Value* v, const Type& type) {
  llvm::Type* elem = ElemTy(view.element);
  llvm::Align align(static_cast<uint64_t>(ByteWidth(view.element)));
  if (view.reinterpreted()) {
    StoreUnits(view, v, type);  // emit_view_access.cc
    return absl::OkStatus();
  }
  if (!type.is_vector() || Contiguous(view)) {
    b_.CreateAlignedStore(v, view.ptr, align);
    return absl::OkStatus();
  }
  llvm::Value* tmp = EntryAlloca(v->getType());
  b_.CreateAlignedStore(v, tmp, align);
  int64_t row_len = 1;
  return ForEachRow(view, &row_len, [&](int64_t off, int64_t first) {
    llvm::Type* row_ty = row_len == 1 ? elem : llvm::FixedVectorType::get(elem, static_cast<unsigned>(row_len));
    llvm::Value* row = b_.CreateAlignedLoad(row_ty, b_.CreateConstGEP1_64(elem, tmp, static_cast<uint64_t>(first)), align);
    b_.CreateAlignedStore(row, Address(view, I64(off)), align);
  });
}

absl::Status Emitter::CopyView(const Op& op, const RefVal& view, llvm::Value* buffer, const Type& type, bool to_buffer) {
  llvm::Type* elem = ElemTy(view.element);
  uint64_t w = static_cast<uint64_t>(ByteWidth(view.element));
  if (view.reinterpreted()) {
    CopyUnits(view, buffer, I64(type.NumElements()), to_buffer);  // emit_view_access.cc
    return absl::OkStatus();
  }
  if (Contiguous(view)) {
    uint64_t bytes = static_cast<uint64_t>(type.NumElements()) * w;
    if (to_buffer) {
      b_.CreateMemCpy(buffer, llvm::MaybeAlign(1), view.ptr, llvm::MaybeAlign(1), bytes);
    } else {
      b_.CreateMemCpy(view.ptr, llvm::MaybeAlign(1), buffer, llvm::MaybeAlign(1), bytes);
    }
    return absl::OkStatus();
  }
  // A loop over the rows of the physical dimensions (all but the minor one), one
  // memcpy each; with a strided minor dimension (a view_bitcast that packs
  // rows), one element each.
  int rank = view.rank();
  std::vector<int64_t> sizes;
  for (llvm::Value* size : view.sizes) {
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(size);
    if (c == nullptr) return absl::InternalError("a value view has a dynamic shape");
    sizes.push_back(c->getSExtValue());
  }
  auto* minor_stride = llvm::dyn_cast<llvm::ConstantInt>(view.strides[rank - 1]);
  bool unit = minor_stride != nullptr && minor_stride->getSExtValue() == 1;
  int64_t row_len = unit ? sizes.back() : 1;
  int outer = unit ? rank - 1 : rank;
  int64_t rows = type.NumElements() / std::max<int64_t>(row_len, 1);
  Loop(rows, [&](llvm::Value* r) {
    // The row's offset in the view: its multi-index over the outer dimensions.
    llvm::Value* rem = r;
    llvm::Value* offset = I64(0);
    for (int d = outer - 1; d >= 0; --d) {
      llvm::Value* size = I64(sizes[d]);
      offset = b_.CreateAdd(offset, b_.CreateMul(b_.CreateURem(rem, size), view.strides[d]));
      rem = b_.CreateUDiv(rem, size);
    }
    llvm::Value* mem = b_.CreateGEP(elem, view.ptr, offset);
    llvm::Value* buf = b_.CreateGEP(elem, buffer, b_.CreateMul(r, I64(row_len)));
    uint64_t bytes = static_cast<uint64_t>(row_len) * w;
    if (to_buffer) {
      b_.CreateMemCpy(buf, llvm::MaybeAlign(1), mem, llvm::MaybeAlign(1), bytes);
    } else {
      b_.CreateMemCpy(mem, llvm::MaybeAlign(1), buf, llvm::MaybeAlign(1), bytes);
    }
  });
  return absl::OkStatus();
}

void Emitter::FillRef(Descriptor& d, const std::vector<unsigned>& at, const RefVal& r) {
  auto field = [&](RefField f, std::initializer_list<unsigned> below, llvm::Value* v) {
    std::vector<unsigned> path = at;
    path.push_back(static_cast<unsigned>(f));
    path.insert(path.end(), below);
    d.Set(std::move(path), v);
  };
  field(RefField::kBase, {}, r.ptr);
  // Dimensions past the rank: size 1, stride 0.
  for (int dim = 0; dim < SCJIT_MAX_RANK; ++dim) {
    unsigned i = static_cast<unsigned>(dim);
    field(RefField::kSizes, {i}, dim < r.rank() ? r.sizes[dim] : I64(1));
    field(RefField::kStrides, {i}, dim < r.rank() ? r.strides[dim] : I64(0));
  }
  field(RefField::kRank, {}, I32(r.rank()));
  field(RefField::kSpace, {}, I32(static_cast<int>(r.space)));
}

Descriptor Emitter::NewDma(const RefVal& src, const RefVal& dst, llvm::Value* sem, bool add) {
  Descriptor dma(DmaTy(), sizeof(scjit_dma), alignof(scjit_dma));
  auto field = [&](DmaField f) { return std::vector<unsigned>{static_cast<unsigned>(f)}; };
  FillRef(dma, field(DmaField::kSrc), src);
  FillRef(dma, field(DmaField::kDst), dst);
  dma.Set(field(DmaField::kElemBytes), I32(ByteWidth(dst.element)));
  dma.Set(field(DmaField::kDtype), I32(static_cast<int>(dst.element)));
  dma.Set(field(DmaField::kSem), sem);
  dma.Set(field(DmaField::kAdd), I32(add ? 1 : 0));
  dma.Set(field(DmaField::kSendSem), I32(-1));  // a local copy (IssueDma sets a remote one's)
  dma.Set(field(DmaField::kDevice), I32(-1));
  return dma;
}

llvm::Value* Emitter::Materialize(const Descriptor& d) {
  llvm::AllocaInst* slot = EntryAlloca(d.type());
  // One private global per distinct constant part (LLVM uniques constants).
  llvm::Constant* constant = d.ConstantPart();
  llvm::Align align(d.align());
  llvm::GlobalVariable*& global = descriptor_globals_[constant];
  if (global == nullptr) {
    global = new llvm::GlobalVariable(module_, d.type(), /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                      constant, "descriptor");
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    global->setAlignment(align);
  }
  slot->setAlignment(align);
  {
    // The constant fields once, on entry, and only the others at the call: the
    // runtime then reads most fields from memory written long before, not
    // through the 64-byte stores of a copy just made (a load needing part of
    // one, or parts of several, waits for them to retire: about 20 ns a DMA,
    // a tenth of add-one's time unchecked).
    llvm::IRBuilder<>::InsertPointGuard guard(b_);
    b_.SetInsertPoint(entry_->getTerminator());
    b_.CreateMemCpy(slot, align, global, align, d.bytes());
  }
  d.StoreVariableFields(b_, slot);
  return slot;
}

// ------------------------------------------------------------------------------------
// The kernel function.

Emitter::~Emitter() {
  if (tag_carrier_ != nullptr) tag_carrier_->deleteValue();
}

absl::Status Emitter::Run() {
  llvm::FunctionType* fty = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy()}, false);
  fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, PartSymbol(kernel_), module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  ctx_arg_ = fn_->getArg(0);
  ctx_arg_->setName("ctx");
  entry_ = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  out_slot_ = nullptr;
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "body", fn_);
  exit_ = llvm::BasicBlock::Create(ctx_, "exit", fn_);
  b_.SetInsertPoint(exit_);
  exit_status_ = b_.CreatePHI(b_.getInt32Ty(), 4, "status");
  b_.CreateRet(exit_status_);

  b_.SetInsertPoint(entry_);
  vmem_ = Ctx(CtxField::kVmem);
  smem_ = Ctx(CtxField::kSmem);
  shared_ = Ctx(CtxField::kVmemShared);
  hbm_ = Ctx(CtxField::kHbm);
  if (options_.access_checks) shadow_delta_ = Ctx(CtxField::kShadowDelta);
  info_.layout.init_shadows = Shadows();
  b_.CreateBr(body);

  b_.SetInsertPoint(body);
  if (absl::Status s = EmitRegion(kernel_.body, nullptr); !s.ok()) return s;
  exit_status_->addIncoming(I32(0), b_.GetInsertBlock());
  b_.CreateBr(exit_);
  InstrumentAccesses();
  LowerNarrowCompressions();

  // Every alloca is in the entry block (see NewBuffer): together they bound the frame.
  const llvm::DataLayout& layout = module_.getDataLayout();
  for (const llvm::Instruction& i : *entry_) {
    if (const auto* a = llvm::dyn_cast<llvm::AllocaInst>(&i)) {
      info_.layout.frame_bytes += static_cast<int64_t>(layout.getTypeAllocSize(a->getAllocatedType()).getFixedValue()) +
                           static_cast<int64_t>(a->getAlign().value());
    }
  }
  std::string error;
  llvm::raw_string_ostream os(error);
  if (llvm::verifyFunction(*fn_, &os)) {
    return absl::InternalError(Cat("the emitted LLVM IR of @", kernel_.name, " is invalid: ", os.str()));
  }
  return absl::OkStatus();
}

absl::Status Emitter::EmitRegion(const Region& r, std::vector<llvm::Value*>* yielded) {
  for (const auto& op : r.ops) {
    if (op->info().has(kTerminator)) {
      if (yielded != nullptr) {
        for (const Operand& o : op->operands) yielded->push_back(Carried(o));
      }
      continue;
    }
    const Op* outer = current_op_;
    current_op_ = op.get();
    TagOp(current_op_);
    RequireUses(*op);  // init check: an unwritten value decides nothing
    // (A region emitted again, a pipeline's map, makes its values anew.)
    for (const Value* r : op->results) vals_[r].shadow = vals_[r].shadow_buffer = vals_[r].origin = nullptr;
    absl::Status s = EmitOp(*op);
    current_op_ = outer;
    TagOp(outer);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// Ops that take or make large values (see Large) are flagged kLarge in ops.def:
// memory ops copy them row by row, value ops run over them in chunks, control
// flow carries them in buffers.
static bool TouchesLarge(const Op& op) {
  for (const Operand& o : op.operands) {
    if (o.is_value() && Large(o.value->type)) return true;
  }
  for (const Value* r : op.results) {
    if (Large(r->type)) return true;
  }
  return false;
}

absl::Status Emitter::EmitOp(const Op& op) {
  if (TouchesLarge(op) && !op.info().has(kLarge)) {
    return Unsupported(kernel_, op, Cat(op.name(), " of values larger than ", kRegisterBytes, " bytes"));
  }
  switch (op.info().family) {
    case OpFamily::kElementwise:
      return EmitElementwise(op);
    case OpFamily::kValue:
      return EmitValueOp(op);
    case OpFamily::kReduction:
    case OpFamily::kScan:
    case OpFamily::kMaskReduction:
      return EmitLaneOp(op);
    case OpFamily::kPermute:
      return EmitPermuteOp(op);
    case OpFamily::kGrid:
      return EmitGridOp(op);
    case OpFamily::kView:
      return EmitViewOp(op);
    case OpFamily::kRefChoice:
      return EmitSelectRef(op);
    case OpFamily::kMemory:
      return EmitMemory(op);
    case OpFamily::kGatherScatter:
      return EmitGatherScatter(op);
    case OpFamily::kDma:
      return EmitDma(op);
    case OpFamily::kSemaphore:
    case OpFamily::kSync:
      return EmitSync(op);
    case OpFamily::kControl:
      return EmitControl(op);
  }
  return Unsupported(kernel_, op, op.name());
}

absl::Status Emitter::EmitGridOp(const Op& op) {
  if (op.axis == MeshAxis::kDevice && (op.kind == OpKind::kAxisIndex || op.kind == OpKind::kAxisSize)) {
    int axis = kernel_.FindDeviceAxis(op.device_axis);
    if (axis < 0) return Unsupported(kernel_, op, Cat("the unknown axis '", op.device_axis, "'"));
    Set(op.results[0], op.kind == OpKind::kAxisSize ? I32(kernel_.device_axes()[static_cast<size_t>(axis)].size)
                                                    : DeviceCoordinate(axis));
    return absl::OkStatus();
  }
  if (op.kind == OpKind::kAxisIndex || op.kind == OpKind::kAxisSize) {
    bool core = op.axis == MeshAxis::kCore;
    CtxField field = op.kind == OpKind::kAxisIndex ? (core ? CtxField::kCore : CtxField::kSubcore)
                                                   : (core ? CtxField::kNumCores : CtxField::kNumSubcores);
    Set(op.results[0], Ctx(field));
    return absl::OkStatus();
  }
  if (!grids_.empty()) return EmitGridQuery(op);  // inside a pipeline: its grid
  // Outside a pipeline the "grid" is the mesh: axis 0 is the core, axis 1 the
  // subcore (kernel-ir.md §4.1).
  bool is_id = op.kind == OpKind::kProgramId;
  int64_t axis = op.operands[0].int_value;
  CtxField field = axis == 0 ? (is_id ? CtxField::kCore : CtxField::kNumCores)
                              : (is_id ? CtxField::kSubcore : CtxField::kNumSubcores);
  if (axis > 1) return Unsupported(kernel_, op, "program_id beyond the mesh axes");
  Set(op.results[0], Ctx(field));
  return absl::OkStatus();
}

absl::Status Emitter::EmitViewOp(const Op& op) {
  if (op.kind != OpKind::kView) return EmitRefView(op);
  const Operand& ref = op.operands[0];
  int site = Site(op, Print(ref), ref.loc);
  absl::StatusOr<RefVal> v = View(op, ref, site);
  if (!v.ok()) return v.status();
  vals_[op.results[0]].ref = std::make_shared<RefVal>(*std::move(v));
  return absl::OkStatus();
}

absl::Status Emitter::EmitSelectRef(const Op& op) {
  const auto& ops = op.operands;
  llvm::Value* k = ValueOf(ops[0]);
  RefVal r = *BaseRef(ops[1].value);
  for (size_t i = 2; i < ops.size(); ++i) {
    RefVal other = *BaseRef(ops[i].value);
    if (other.spans != r.spans || other.rank() != r.rank() || other.pieces != r.pieces || r.chain || other.chain) {
      return Unsupported(kernel_, op, "select_ref between refs viewed differently (view_bitcast, view_reshape)");
    }
    llvm::Value* pick = b_.CreateICmpEQ(k, b_.getInt32(static_cast<uint32_t>(i - 1)));
    r.ptr = b_.CreateSelect(pick, other.ptr, r.ptr);
    for (int d = 0; d < r.rank(); ++d) {
      r.sizes[d] = b_.CreateSelect(pick, other.sizes[d], r.sizes[d]);
      r.strides[d] = b_.CreateSelect(pick, other.strides[d], r.strides[d]);
    }
  }
  vals_[op.results[0]].ref = std::make_shared<RefVal>(std::move(r));
  return absl::OkStatus();
}

// ------------------------------------------------------------------------------------
// Control flow (kernel-ir.md §4.5).

// Every SCJIT_TICK_PERIOD back-edges the runtime gets control (see abi.h).
void Emitter::Tick(const Op& loop) {
  llvm::Value* field = FieldPtr(CtxField::kTick);
  llvm::Value* left = b_.CreateSub(b_.CreateLoad(b_.getInt32Ty(), field), I32(1));
  b_.CreateStore(left, field);
  llvm::BasicBlock* call = llvm::BasicBlock::Create(ctx_, "tick", fn_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "tock", fn_);
  b_.CreateCondBr(b_.CreateICmpSLE(left, I32(0)), call, cont, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  b_.SetInsertPoint(call);
  CallChecked(RuntimeFn::kTick, {ctx_arg_, I32(Site(loop))});
  b_.CreateBr(cont);
  b_.SetInsertPoint(cont);
}

// Large carried values live in buffers of their own (one per carry), filled
// before the loop and at each latch; small ones are phis.
std::vector<llvm::Value*> Emitter::CarryBuffers(const std::vector<const Value*>& args,
                                                const std::vector<llvm::Value*>& init) {
  std::vector<llvm::Value*> buffers;
  for (size_t i = 0; i < args.size(); ++i) {
    const Type& t = args[i]->type;
    if (!Large(t)) {
      buffers.push_back(nullptr);
      continue;
    }
    buffers.push_back(NewBuffer(t));
    CopyElements(buffers.back(), init[i], t.element(), t.NumElements());
  }
  return buffers;
}

void Emitter::When(llvm::Value* cond, const std::function<void()>& then) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(cond)) {
    if (c->isOne()) then();
    return;
  }
  llvm::BasicBlock* yes = llvm::BasicBlock::Create(ctx_, "when", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "when_end", fn_);
  b_.CreateCondBr(cond, yes, done);
  b_.SetInsertPoint(yes);
  then();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

void Emitter::CommitCarries(const std::vector<const Value*>& args, const std::vector<llvm::Value*>& buffers,
                            std::vector<llvm::Value*> yielded) {
  // A carry yielded into another carry's place (a loop that swaps two) must be
  // read before that place is written: stage it.
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i] == nullptr || yielded[i] == buffers[i]) continue;
    if (std::find(buffers.begin(), buffers.end(), yielded[i]) == buffers.end()) continue;
    const Type& t = args[i]->type;
    llvm::Value* staged = NewBuffer(t);
    CopyElements(staged, yielded[i], t.element(), t.NumElements());
    yielded[i] = staged;
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i] != nullptr) CopyElements(buffers[i], yielded[i], args[i]->type.element(), args[i]->type.NumElements());
  }
}

absl::Status Emitter::CloseLoop(const Op& op, const Region& body, const std::vector<const Value*>& args,
                                const std::vector<llvm::Value*>& buffers, const std::vector<llvm::PHINode*>& carries,
                                llvm::BasicBlock* header, llvm::BasicBlock* done,
                                const std::function<void(llvm::BasicBlock*)>& at_latch, CarryShadows& shadows) {
  std::vector<llvm::Value*> yielded;
  if (absl::Status s = EmitRegion(body, &yielded); !s.ok()) return s;
  // (A loop without carries may end without a yield.)
  const Op* yield = !body.ops.empty() && body.ops.back()->info().has(kTerminator) ? body.ops.back().get() : nullptr;
  CommitCarries(args, buffers, yielded);
  if (yield != nullptr) CommitCarryShadows(shadows, args, *yield);
  Tick(op);
  llvm::BasicBlock* latch = b_.GetInsertBlock();
  at_latch(latch);
  for (size_t i = 0; i < carries.size(); ++i) {
    if (carries[i] != nullptr) carries[i]->addIncoming(yielded[i], latch);
  }
  if (yield != nullptr) LatchCarryShadows(shadows, *yield, latch);
  b_.CreateBr(header);
  b_.SetInsertPoint(done);
  for (size_t i = 0; i < op.results.size(); ++i) {
    if (carries[i] != nullptr) {
      Set(op.results[i], carries[i]);
    } else {
      SetBuffer(op.results[i], buffers[i]);
    }
  }
  EndCarryShadows(shadows, op.results);
  return absl::OkStatus();
}

absl::Status Emitter::EmitControl(const Op& op) {
  switch (op.kind) {
    case OpKind::kFor:
    case OpKind::kParallelFor:
      return EmitFor(op);
    case OpKind::kIf:
      return EmitIf(op);
    case OpKind::kWhile:
      return EmitWhile(op);
    case OpKind::kScoped:
      return EmitRegion(*op.regions[0], nullptr);
    case OpKind::kPipeline:
      return EmitPipeline(op);
    default:  // yield and condition end their regions (EmitRegion)
      return Unsupported(kernel_, op, op.name());
  }
}

absl::Status Emitter::EmitFor(const Op& op) {
  const Region& body = *op.regions[0];
  llvm::Value* lo = b_.CreateSExt(ValueOf(op.operands[0]), b_.getInt64Ty());
  llvm::Value* hi = b_.CreateSExt(ValueOf(op.operands[1]), b_.getInt64Ty());
  llvm::Value* step = b_.CreateSExt(ValueOf(op.operands[2]), b_.getInt64Ty());
  std::vector<const Value*> args(body.args.begin() + 1, body.args.end());
  std::vector<llvm::Value*> init;
  std::vector<const Operand*> init_ops;
  for (size_t i = 0; i < args.size(); ++i) {
    init.push_back(Carried(op.operands[3 + i]));
    init_ops.push_back(&op.operands[3 + i]);
  }
  std::vector<llvm::Value*> buffers = CarryBuffers(args, init);
  CarryShadows shadows = PrepareCarryShadows(args, init_ops);
  // A non-positive dynamic step would never end: run no iteration.
  llvm::Value* positive = b_.CreateICmpSGT(step, I64(0));
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "for", fn_);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "for_body", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "for_end", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* iv = b_.CreatePHI(b_.getInt64Ty(), 2, Cat("%", body.args[0]->name));
  iv->addIncoming(lo, pre);
  std::vector<llvm::PHINode*> carries;
  for (size_t i = 0; i < args.size(); ++i) {
    if (buffers[i] != nullptr) {
      carries.push_back(nullptr);
      SetBuffer(args[i], buffers[i]);
      continue;
    }
    llvm::PHINode* phi = b_.CreatePHI(ValueTy(args[i]->type), 2, Cat("%", args[i]->name));
    phi->addIncoming(init[i], pre);
    carries.push_back(phi);
    Set(args[i], phi);
  }
  CarryShadowPhis(shadows, pre, {args});
  b_.CreateCondBr(b_.CreateAnd(positive, b_.CreateICmpSLT(iv, hi)), loop, done);
  b_.SetInsertPoint(loop);
  Set(body.args[0], b_.CreateTrunc(iv, b_.getInt32Ty()));
  return CloseLoop(op, body, args, buffers, carries, header, done,
                   [&](llvm::BasicBlock* latch) { iv->addIncoming(b_.CreateAdd(iv, step), latch); }, shadows);
}

absl::Status Emitter::EmitIf(const Op& op) {
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "then", fn_);
  llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(ctx_, "else", fn_);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx_, "endif", fn_);
  // Large results are written by each branch into a buffer of their own.
  std::vector<llvm::Value*> buffers;
  for (const Value* r : op.results) buffers.push_back(Large(r->type) ? NewBuffer(r->type) : nullptr);
  // Init check: each result's shadow and origin from the branch taken (small
  // ones: phis; large ones: a buffer and a slot each branch fills).
  bool shadows = Shadows() && !op.results.empty();
  std::vector<llvm::Value*> shadow_buffers(op.results.size(), nullptr), origin_slots(op.results.size(), nullptr);
  for (size_t i = 0; shadows && i < op.results.size(); ++i) {
    if (buffers[i] == nullptr) continue;
    shadow_buffers[i] = NewShadowBuffer(op.results[i]->type);
    origin_slots[i] = EntryAlloca(b_.getInt32Ty());
  }
  std::vector<llvm::Value*> then_shadows, else_shadows, then_origins, else_origins;
  auto branch = [&](int region, std::vector<llvm::Value*>* values, std::vector<llvm::Value*>* shadow_values,
                    std::vector<llvm::Value*>* origins) -> absl::Status {
    bool emitted = region < static_cast<int>(op.regions.size()) && (region == 0 || op.has_else);
    if (emitted) {
      if (absl::Status s = EmitRegion(*op.regions[region], values); !s.ok()) return s;
    }
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (buffers[i] != nullptr) {
        CopyElements(buffers[i], (*values)[i], op.results[i]->type.element(), op.results[i]->type.NumElements());
      }
    }
    if (!shadows || !emitted) return absl::OkStatus();
    const Op& yield = *op.regions[region]->ops.back();
    for (size_t i = 0; i < op.results.size(); ++i) {
      const Type& t = op.results[i]->type;
      if (shadow_buffers[i] != nullptr) {
        CopyElements(shadow_buffers[i], ShadowAsBuffer(yield.operands[i]), ShadowElem(t.element()), t.NumElements());
        b_.CreateStore(OriginOf(yield.operands[i]), origin_slots[i]);
        shadow_values->push_back(nullptr);
        origins->push_back(nullptr);
      } else {
        shadow_values->push_back(ShadowOf(yield.operands[i]));
        origins->push_back(OriginOf(yield.operands[i]));
      }
    }
    return absl::OkStatus();
  };
  b_.CreateCondBr(ValueOf(op.operands[0]), then_bb, else_bb);
  std::vector<llvm::Value*> then_values, else_values;
  b_.SetInsertPoint(then_bb);
  if (absl::Status s = branch(0, &then_values, &then_shadows, &then_origins); !s.ok()) return s;
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(else_bb);
  if (absl::Status s = branch(1, &else_values, &else_shadows, &else_origins); !s.ok()) return s;
  llvm::BasicBlock* else_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  std::vector<std::pair<llvm::PHINode*, llvm::PHINode*>> shadow_phis;
  for (size_t i = 0; i < op.results.size(); ++i) {
    if (buffers[i] != nullptr) {
      SetBuffer(op.results[i], buffers[i]);
      continue;
    }
    llvm::PHINode* phi = b_.CreatePHI(ValueTy(op.results[i]->type), 2);
    phi->addIncoming(then_values[i], then_end);
    phi->addIncoming(else_values[i], else_end);
    Set(op.results[i], phi);
    if (!shadows) continue;
    llvm::PHINode* sphi = b_.CreatePHI(then_shadows[i]->getType(), 2);
    sphi->addIncoming(then_shadows[i], then_end);
    sphi->addIncoming(else_shadows[i], else_end);
    llvm::PHINode* ophi = b_.CreatePHI(b_.getInt32Ty(), 2);
    ophi->addIncoming(then_origins[i], then_end);
    ophi->addIncoming(else_origins[i], else_end);
    shadow_phis.emplace_back(sphi, ophi);
  }
  for (size_t i = 0, k = 0; shadows && i < op.results.size(); ++i) {
    if (buffers[i] != nullptr) {
      SetShadowBuffer(op.results[i], shadow_buffers[i], b_.CreateLoad(b_.getInt32Ty(), origin_slots[i]), false);
    } else {
      SetShadow(op.results[i], shadow_phis[k].first, shadow_phis[k].second, false);
      ++k;
    }
  }
  return absl::OkStatus();
}

absl::Status Emitter::EmitWhile(const Op& op) {
  const Region& cond = *op.regions[0];
  const Region& body = *op.regions[1];
  std::vector<const Value*> args(cond.args.begin(), cond.args.end());
  std::vector<llvm::Value*> init;
  std::vector<const Operand*> init_ops;
  for (size_t i = 0; i < args.size(); ++i) {
    init.push_back(Carried(op.operands[i]));
    init_ops.push_back(&op.operands[i]);
  }
  std::vector<llvm::Value*> buffers = CarryBuffers(args, init);
  CarryShadows shadows = PrepareCarryShadows(args, init_ops);
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "while", fn_);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "while_body", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "while_end", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  std::vector<llvm::PHINode*> carries;
  for (size_t i = 0; i < args.size(); ++i) {
    if (buffers[i] != nullptr) {
      carries.push_back(nullptr);
      SetBuffer(cond.args[i], buffers[i]);
      SetBuffer(body.args[i], buffers[i]);
      continue;
    }
    llvm::PHINode* phi = b_.CreatePHI(ValueTy(args[i]->type), 2);
    phi->addIncoming(init[i], pre);
    carries.push_back(phi);
    Set(cond.args[i], phi);
    Set(body.args[i], phi);
  }
  CarryShadowPhis(shadows, pre, {std::vector<const Value*>(cond.args.begin(), cond.args.end()),
                                 std::vector<const Value*>(body.args.begin(), body.args.end())});
  std::vector<llvm::Value*> condition;
  if (absl::Status s = EmitRegion(cond, &condition); !s.ok()) return s;
  // Init check: the condition decides whether the loop goes on.
  const Operand& c = cond.ops.back()->operands[0];
  if (HasShadow(c)) Require(op, c, Use::kCondition, ShadowOf(c), OriginOf(c));
  b_.CreateCondBr(condition[0], loop, done);
  b_.SetInsertPoint(loop);
  return CloseLoop(op, body, args, buffers, carries, header, done, [](llvm::BasicBlock*) {}, shadows);
}

}  // namespace emit

EmittedKernel::EmittedKernel() = default;
EmittedKernel::EmittedKernel(EmittedKernel&&) noexcept = default;
EmittedKernel& EmittedKernel::operator=(EmittedKernel&&) noexcept = default;
EmittedKernel::~EmittedKernel() {
  module.reset();  // the module before its context
}

std::string KernelSymbol(std::string_view name) { return Cat("scjit_kernel_", name); }

std::string PartSymbol(const KernelDef& part) {
  if (part.part == 0) return KernelSymbol(part.name);
  return Cat(KernelSymbol(part.name), "__part", part.part);
}

absl::StatusOr<EmittedKernel> EmitKernel(const KernelDef& kernel, KernelInfo& info, const EmitOptions& options) {
  KernelInfo* infos[] = {&info};
  const KernelDef* parts[] = {&kernel};
  return EmitKernelParts(parts, infos, options);
}

absl::StatusOr<EmittedKernel> EmitKernelParts(std::span<const KernelDef* const> parts, std::span<KernelInfo* const> infos,
                                              const EmitOptions& options) {
  EmittedKernel out;
  out.context = std::make_unique<llvm::LLVMContext>();
  out.module = std::make_unique<llvm::Module>(Cat("scjit.", parts[0]->name), *out.context);
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string symbol = PartSymbol(*parts[i]);
    infos[i]->layout.entry = symbol;
    (i == 0 ? out.function : out.more_functions.emplace_back()) = symbol;
    emit::Emitter emitter(*parts[i], *infos[i], options, *out.context, *out.module);
    if (absl::Status s = emitter.Run(); !s.ok()) return s;
  }
  return out;
}

}  // namespace scjit
