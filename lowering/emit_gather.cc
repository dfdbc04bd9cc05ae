// Gathers and scatters (kernel-ir.md §4.3; sc-semantics.md §3.5-3.7; runtime.md
// §7.1, §7.11): load_gather, store_scatter, addupdate_scatter.
//
// Vector code throughout: lane addresses are the view's base plus a vector of
// i32 element offsets, accessed with llvm.masked.gather / llvm.masked.scatter
// (AVX-512 vpgatherdd / vpscatterdd); addupdate_scatter's adds, whose order
// matters, walk the active lanes (see ScatterAdd). The bounds check is one
// vector compare per dimension and one branch to a cold path for the whole
// vector. Masked-off lanes are never checked and touch no memory; gathered ones
// read the poison value.
// Large values (scatters are not shape-checked, sc-errors.md §10) run in chunks,
// in lane order.
#include "lowering/emitter.h"
#include "lowering/printer.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "runtime/abi.h"

namespace scjit::emit {
namespace {

unsigned Width(llvm::Value* v) { return llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements(); }

}  // namespace

llvm::Value* Emitter::LaneOffsets(const RefVal& r, const std::vector<llvm::Value*>& idx, llvm::Value** active,
                                  llvm::Value* first, const std::vector<int>& sites) {
  unsigned w = Width(*active);
  int dims = r.dims();
  std::vector<llvm::Value*> sizes, in, bad;
  for (int d = 0; d < dims; ++d) {
    sizes.push_back(DimSize(r, d));
    llvm::Value* size32 = b_.CreateTrunc(sizes[d], b_.getInt32Ty());
    // Unsigned: negative indices are out of range too.
    in.push_back(b_.CreateICmpULT(idx[d], b_.CreateVectorSplat(w, size32)));
    bad.push_back(b_.CreateAnd(*active, b_.CreateNot(in[d])));
  }
  llvm::Type* bits_ty = b_.getIntNTy(w);
  llvm::Value* any_bad = b_.getFalse();
  for (llvm::Value* v : bad) any_bad = b_.CreateOr(any_bad, b_.CreateICmpNE(b_.CreateBitCast(v, bits_ty), llvm::ConstantInt::get(bits_ty, 0)));
  // The cold path reports the lowest bad lane of the first dimension that has one.
  ReportUnless(b_.CreateNot(any_bad), [&] {
    llvm::Value *site = I32(0), *what = I32(0), *dim = I32(0), *index = I64(0), *limit = I64(0);
    for (int d = dims - 1; d >= 0; --d) {
      llvm::Value* bits = b_.CreateBitCast(bad[d], bits_ty);
      llvm::Value* has = b_.CreateICmpNE(bits, llvm::ConstantInt::get(bits_ty, 0));
      llvm::Value* lane = b_.CreateZExtOrTrunc(b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, bits, b_.getTrue()),
                                               b_.getInt64Ty());
      llvm::Value* number = b_.CreateTrunc(b_.CreateAdd(first, lane), b_.getInt32Ty());
      site = b_.CreateSelect(has, I32(sites[d]), site);
      what = b_.CreateSelect(has, b_.CreateOr(b_.CreateShl(number, 8), I32(SCJIT_BOUNDS_LANE)), what);
      dim = b_.CreateSelect(has, I32(d), dim);
      index = b_.CreateSelect(has, b_.CreateSExt(b_.CreateExtractElement(idx[d], lane), b_.getInt64Ty()), index);
      limit = b_.CreateSelect(has, sizes[d], limit);
    }
    return std::vector<llvm::Value*>{site, what, dim, index, limit};
  });
  // Out-of-range lanes (unchecked, or findings as warnings) use the last element;
  // an empty dimension has none, so its lanes go off.
  llvm::Value* offsets = llvm::Constant::getNullValue(llvm::FixedVectorType::get(b_.getInt32Ty(), w));
  for (int d = 0; d < dims; ++d) {
    llvm::Value* size32 = b_.CreateTrunc(sizes[d], b_.getInt32Ty());
    llvm::Value* nonempty = b_.CreateICmpSGT(size32, I32(0));
    llvm::Value* last = b_.CreateSelect(nonempty, b_.CreateSub(size32, I32(1)), I32(0));
    llvm::Value* i = b_.CreateSelect(in[d], idx[d], b_.CreateVectorSplat(w, last));
    *active = b_.CreateAnd(*active, b_.CreateVectorSplat(w, nonempty));
    // A dimension spanning several physical ones is a mixed-radix index.
    int p = r.first(d);
    for (int j = p + r.span(d) - 1; j >= p; --j) {
      llvm::Value* stride = b_.CreateVectorSplat(w, b_.CreateTrunc(r.strides[j], b_.getInt32Ty()));
      llvm::Value* digit = i;
      if (j > p) {
        llvm::Value* size = b_.CreateVectorSplat(w, b_.CreateTrunc(r.sizes[j], b_.getInt32Ty()));
        digit = b_.CreateURem(i, size);
        i = b_.CreateUDiv(i, size);
      }
      offsets = b_.CreateAdd(offsets, b_.CreateMul(digit, stride));
    }
  }
  // The freeze hides that the offsets are non-negative: otherwise LLVM widens
  // them with a zext, which x86 cannot fold into vpgatherdd's sign-extended
  // 32-bit indices, and splits each gather into two 64-bit-index ones.
  return b_.CreateFreeze(offsets);
}

absl::Status Emitter::EmitGatherScatter(const Op& op) {
  const auto& ops = op.operands;
  bool gather = op.kind == OpKind::kLoadGather;
  int site = Site(op, Print(ops[0]), ops[0].loc);
  absl::StatusOr<RefVal> view = View(op, ops[0], site);
  if (!view.ok()) return view.status();
  const RefVal& r = *view;
  const Type& t = gather ? op.results[0]->type : ops[1].type();
  int64_t n = t.NumElements();
  // GS-4/5/6/7/9/11 make these hold; an unchecked kernel still must not reach
  // lanes that are not there.
  bool shaped = t.is_vector() && t.rank() == 1 && static_cast<int>(op.index_vectors.size()) == r.dims() &&
                (!op.mask || op.mask->type() == Type::Vector(ElementType::kI1, {n}));
  for (const Operand& iv : op.index_vectors) {
    shaped = shaped && iv.type().is_vector() && iv.type().shape() == t.shape() && IsInteger(iv.type().element());
  }
  if (!shaped) {
    return Unsupported(kernel_, op, Cat(op.name(), " whose index vectors, mask and value are not ", r.dims(),
                                        " integer, one i1 and one vector of one length"));
  }
  // One site per dimension, at its index vector, for RT-BOUNDS.
  std::vector<int> sites;
  for (const Operand& iv : op.index_vectors) sites.push_back(Site(op, Print(ops[0]), iv.loc));
  bool large = Large(t);
  llvm::Value* result = gather && large ? NewBuffer(t) : nullptr;
  llvm::Type* elem = ElemTy(r.element);
  llvm::Align align(static_cast<uint64_t>(ByteWidth(r.element)));

  // With large values, small vector operands (a mask of 200 lanes is 200 bytes)
  // are staged in buffers once, before the chunk loop.
  absl::flat_hash_map<const Operand*, llvm::Value*> buffers;
  if (large) {
    std::vector<const Operand*> all = {op.mask ? &*op.mask : nullptr, gather ? nullptr : &ops[1]};
    for (const Operand& iv : op.index_vectors) all.push_back(&iv);
    for (const Operand* o : all) {
      if (o != nullptr) buffers[o] = AsBuffer(*o);
    }
  }
  auto lanes = [&](llvm::Value* first, int64_t width) -> absl::Status {
    auto part = [&](const Operand& o) {
      return large ? LoadChunk(buffers.at(&o), o.type().element(), first, width) : ValueOf(o);
    };
    unsigned w = static_cast<unsigned>(width);
    llvm::Value* active = op.mask ? part(*op.mask) : llvm::ConstantInt::getTrue(llvm::FixedVectorType::get(b_.getInt1Ty(), w));
    std::vector<llvm::Value*> idx;
    for (const Operand& iv : op.index_vectors) {
      llvm::Value* v = part(iv);
      idx.push_back(IsUnsigned(iv.type().element()) ? b_.CreateZExtOrTrunc(v, llvm::FixedVectorType::get(b_.getInt32Ty(), w))
                                                    : b_.CreateSExtOrTrunc(v, llvm::FixedVectorType::get(b_.getInt32Ty(), w)));
    }
    llvm::Value* offsets = LaneOffsets(r, idx, &active, first, sites);
    llvm::Value* ptrs = b_.CreateGEP(elem, r.ptr, offsets);
    llvm::Type* vty = llvm::FixedVectorType::get(elem, w);
    if (gather) {
      Type chunk = Type::Vector(t.element(), {width});
      llvm::Value* v = b_.CreateMaskedGather(vty, ptrs, align, active, PoisonConstant(chunk));
      if (large) {
        StoreChunk(result, t.element(), first, v);
      } else {
        Set(op.results[0], v);
      }
      return absl::OkStatus();
    }
    llvm::Value* v = part(ops[1]);
    if (op.kind == OpKind::kStoreScatter) {
      // LangRef, llvm.masked.scatter: "Scatter with overlapping addresses is
      // guaranteed to be ordered from least-significant to most-significant
      // element" -- the highest lane wins, as sc-semantics.md §3.6 requires.
      b_.CreateMaskedScatter(v, ptrs, align, active);
      return absl::OkStatus();
    }
    ScatterAdd(r.ptr, offsets, active, v, t.element());
    return absl::OkStatus();
  };
  absl::Status s = large ? ForChunks(n, lanes) : lanes(I64(0), n);
  if (!s.ok()) return s;
  if (result != nullptr) SetBuffer(op.results[0], result);
  return absl::OkStatus();
}

// addupdate_scatter: duplicates add from the lowest lane to the highest
// (sc-semantics.md §3.7), which for floats fixes the rounding:
// ((old + v_lo) + v_hi). The adds walk the set bits of the mask, lowest first,
// each a scalar load-add-store. Measured against a vector path (find colliding
// lanes by w/2 rotate-and-compare steps; without collisions one gather, add and
// scatter, with them this walk), the walk alone was faster at every collision
// rate on the AVX-512 host (docs/performance.md), so it is the only path.
void Emitter::ScatterAdd(llvm::Value* base, llvm::Value* offsets, llvm::Value* active, llvm::Value* v,
                         ElementType e) {
  unsigned w = Width(active);
  llvm::Type* elem = ElemTy(e);
  llvm::Align align(static_cast<uint64_t>(ByteWidth(e)));
  llvm::Value* offset_buf = NewBuffer(Type::Vector(ElementType::kI32, {w}));
  llvm::Value* value_buf = NewBuffer(Type::Vector(e, {w}));
  StoreChunk(offset_buf, ElementType::kI32, I64(0), offsets);
  StoreChunk(value_buf, e, I64(0), v);
  llvm::Type* bits_ty = b_.getIntNTy(w);
  llvm::Value* zero = llvm::ConstantInt::get(bits_ty, 0);
  llvm::Value* bits = b_.CreateBitCast(active, bits_ty);
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "scatter_add_lane", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "scatter_add_done", fn_);
  b_.CreateCondBr(b_.CreateICmpNE(bits, zero), loop, done);
  b_.SetInsertPoint(loop);
  llvm::PHINode* left = b_.CreatePHI(bits_ty, 2);
  left->addIncoming(bits, pre);
  llvm::Value* lane = b_.CreateZExtOrTrunc(b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, left, b_.getTrue()),
                                           b_.getInt64Ty());
  llvm::Value* p = b_.CreateGEP(elem, base, LoadElement(offset_buf, ElementType::kI32, lane));
  llvm::Value* sum = CombineValues(Combine::kSum, b_.CreateAlignedLoad(elem, p, align), LoadElement(value_buf, e, lane), e);
  b_.CreateAlignedStore(sum, p, align);
  llvm::Value* rest = b_.CreateAnd(left, b_.CreateSub(left, llvm::ConstantInt::get(bits_ty, 1)));
  left->addIncoming(rest, loop);
  b_.CreateCondBr(b_.CreateICmpNE(rest, zero), loop, done);
  b_.SetInsertPoint(done);
}

}  // namespace scjit::emit
