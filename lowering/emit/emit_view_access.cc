// Element access through views that strides alone do not describe (emit_views.cc):
// views whose elements are made of units a row apart (RefVal::pieces) and
// chains of stages (RefVal::chain).
//
// The generated code computes the address of each unit of each element from
// its indices: vector integer arithmetic (divisions by constants, mostly) that
// walks the chain back to a strided view. A get or store of a view whose
// addresses are known when the kernel is compiled loads or stores each run of
// adjacent units as one vector; otherwise, and for large values (a chunk loop),
// it is a masked gather or scatter of units. An element of k units is joined
// from k such vectors (unit 0 holds the lowest bits), so a widened view of a
// row-major i16 scratch reads two rows and interleaves them with shifts. DMAs
// through these views split into one runtime transfer per run of equally
// spaced units on both sides (a strided view with pieces goes as one transfer
// in units instead, emit_views.cc MatchDims).
#include "lowering/emit/emitter.h"
#include "llvm/IR/Constants.h"
#include "runtime/abi.h"

namespace scjit::emit {
namespace {

llvm::Type* WithElement(llvm::Type* like, llvm::Type* elem) {
  if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(like)) return llvm::FixedVectorType::get(elem, v->getNumElements());
  return elem;
}

}  // namespace

llvm::Value* Emitter::Fit(llvm::Value* v, llvm::Type* ty) {
  v = b_.CreateSExtOrTrunc(v, ty->getScalarType());
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(ty)) return b_.CreateVectorSplat(vt->getNumElements(), v);
  return v;
}

std::vector<llvm::Value*> Emitter::Coordinates(const RefVal& r, llvm::Value* linear) {
  std::vector<llvm::Value*> idx(r.dims());
  for (int d = r.dims() - 1; d > 0; --d) {
    llvm::Value* size = Fit(DimSize(r, d), linear->getType());
    idx[d] = b_.CreateURem(linear, size);
    linear = b_.CreateUDiv(linear, size);
  }
  if (!idx.empty()) idx[0] = linear;
  return idx;
}

llvm::Value* Emitter::UnitOffsets(const RefVal& r, std::vector<llvm::Value*> idx, int unit_index, int bits,
                                  llvm::Type* ty) {
  auto k = [&](int64_t c) { return llvm::ConstantInt::get(ty, static_cast<uint64_t>(c)); };
  llvm::Value* u = k(unit_index);
  const RefVal* base = &r;
  if (r.chain != nullptr) {
    // Back through the stages: each maps its indices (and unit) to the ones
    // before it.
    const RefChain& c = *r.chain;
    base = &c.base;
    for (size_t s = c.stages.size(); s-- > 0;) {
      const RefStage& st = c.stages[s];
      std::vector<llvm::Value*> before;
      if (s > 0) {
        before = c.stages[s - 1].sizes;
      } else {
        for (int d = 0; d < c.base.dims(); ++d) before.push_back(DimSize(c.base, d));
      }
      ElementType prev = s > 0 ? c.stages[s - 1].element : c.base.element;
      std::vector<llvm::Value*> next(before.size());
      switch (st.kind) {
        case RefStage::Kind::kIndex:
          for (size_t d = 0; d < before.size(); ++d) {
            next[d] = Fit(st.starts[d], ty);
            if (st.kept[d] >= 0) next[d] = b_.CreateAdd(next[d], idx[st.kept[d]]);
          }
          break;
        case RefStage::Kind::kReshape: {  // the same row-major position
          llvm::Value* linear = k(0);
          for (size_t d = 0; d < idx.size(); ++d) linear = b_.CreateAdd(b_.CreateMul(linear, Fit(st.sizes[d], ty)), idx[d]);
          for (size_t d = before.size(); d-- > 1;) {
            next[d] = b_.CreateURem(linear, Fit(before[d], ty));
            linear = b_.CreateUDiv(linear, Fit(before[d], ty));
          }
          if (!next.empty()) next[0] = linear;
          break;
        }
        case RefStage::Kind::kBitcast: {  // sc-semantics.md §2.2, along the second-minor dimension
          next = idx;
          int from = BitWidth(prev), to = BitWidth(st.element);
          llvm::Value*& row = next[next.size() - 2];
          if (from > to) {  // y[r*n + j] is piece j of x[r]
            int64_t n = from / to;
            u = b_.CreateAdd(b_.CreateMul(b_.CreateURem(row, k(n)), k(to / bits)), u);
            row = b_.CreateUDiv(row, k(n));
          } else if (from < to) {  // piece j of y[r] is x[r*n + j]
            int64_t n = to / from, per = from / bits;
            row = b_.CreateAdd(b_.CreateMul(row, k(n)), b_.CreateUDiv(u, k(per)));
            u = b_.CreateURem(u, k(per));
          }
          break;
        }
      }
      idx = std::move(next);
    }
  }
  // A strided view: the mixed-radix digits of each index times their strides,
  // then the element's unit among its pieces, then the part of that unit.
  const RefVal& v = *base;
  llvm::Value* offset = k(0);
  for (int d = 0; d < v.dims(); ++d) {
    llvm::Value* i = idx[d];
    int p = v.first(d);
    for (int j = p + v.span(d) - 1; j >= p; --j) {
      llvm::Value* digit = i;
      if (j > p) {
        digit = b_.CreateURem(i, Fit(v.sizes[j], ty));
        i = b_.CreateUDiv(i, Fit(v.sizes[j], ty));
      }
      offset = b_.CreateAdd(offset, b_.CreateMul(digit, Fit(v.strides[j], ty)));
    }
  }
  int per = UnitBits(v) / bits;
  llvm::Value* unit = per > 1 ? b_.CreateUDiv(u, k(per)) : u;
  for (int j = v.rank() - 1; j >= v.rank() - v.pieces; --j) {
    llvm::Value* digit = j > v.rank() - v.pieces ? b_.CreateURem(unit, Fit(v.sizes[j], ty)) : unit;
    unit = b_.CreateUDiv(unit, Fit(v.sizes[j], ty));
    offset = b_.CreateAdd(offset, b_.CreateMul(digit, Fit(v.strides[j], ty)));
  }
  if (per > 1) offset = b_.CreateAdd(b_.CreateMul(offset, k(per)), b_.CreateURem(u, k(per)));
  return offset;
}

llvm::Value* Emitter::JoinUnits(const std::vector<llvm::Value*>& units, ElementType e) {
  int w = BitWidth(e), bits = static_cast<int>(units[0]->getType()->getScalarSizeInBits());
  llvm::Type* wide = WithElement(units[0]->getType(), b_.getIntNTy(static_cast<unsigned>(w)));
  llvm::Value* acc = b_.CreateZExt(units[0], wide);
  for (size_t u = 1; u < units.size(); ++u) {
    llvm::Value* shift = llvm::ConstantInt::get(wide, static_cast<uint64_t>(u) * static_cast<uint64_t>(bits));
    acc = b_.CreateOr(acc, b_.CreateShl(b_.CreateZExt(units[u], wide), shift));
  }
  if (e == ElementType::kI1) return b_.CreateICmpNE(acc, llvm::Constant::getNullValue(wide));
  return b_.CreateBitCast(acc, WithElement(wide, ElemTy(e)));
}

std::vector<llvm::Value*> Emitter::SplitUnits(llvm::Value* v, ElementType e, int bits) {
  int w = BitWidth(e);
  llvm::Type* wide = WithElement(v->getType(), b_.getIntNTy(static_cast<unsigned>(w)));
  llvm::Type* unit = WithElement(v->getType(), b_.getIntNTy(static_cast<unsigned>(bits)));
  v = e == ElementType::kI1 ? b_.CreateZExt(v, wide) : b_.CreateBitCast(v, wide);
  std::vector<llvm::Value*> units;
  for (int u = 0; u < w / bits; ++u) {
    llvm::Value* shifted = u == 0 ? v : b_.CreateLShr(v, llvm::ConstantInt::get(wide, static_cast<uint64_t>(u * bits)));
    units.push_back(b_.CreateTrunc(shifted, unit));
  }
  return units;
}

namespace {

// The offsets in a constant vector, or nothing.
std::optional<std::vector<int64_t>> ConstantOffsets(llvm::Value* v, int64_t n) {
  auto* c = llvm::dyn_cast<llvm::Constant>(v);
  if (c == nullptr) return std::nullopt;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    auto* e = llvm::dyn_cast_or_null<llvm::ConstantInt>(c->getAggregateElement(static_cast<unsigned>(i)));
    if (e == nullptr) return std::nullopt;
    out.push_back(e->getSExtValue());
  }
  return out;
}

// Calls run(first, offset, length) for each run of adjacent offsets.
void ForEachRun(const std::vector<int64_t>& offsets, const std::function<void(int64_t, int64_t, int64_t)>& run) {
  for (size_t i = 0; i < offsets.size();) {
    size_t j = i + 1;
    while (j < offsets.size() && offsets[j] == offsets[j - 1] + 1) ++j;
    run(static_cast<int64_t>(i), offsets[i], static_cast<int64_t>(j - i));
    i = j;
  }
}

}  // namespace

llvm::Value* Emitter::LoadUnits(const RefVal& r, const Type& t, llvm::Value* lanes_on) {
  int64_t n = t.is_vector() ? t.NumElements() : 1;
  int bits = UnitBits(r);
  llvm::Type* unit = b_.getIntNTy(static_cast<unsigned>(bits));
  llvm::Type* units_ty = llvm::FixedVectorType::get(unit, static_cast<unsigned>(n));
  llvm::Type* lanes = llvm::FixedVectorType::get(b_.getInt32Ty(), static_cast<unsigned>(n));
  llvm::Align align(static_cast<uint64_t>(bits / 8));
  std::vector<llvm::Value*> idx = Coordinates(r, b_.CreateStepVector(lanes));
  std::vector<llvm::Value*> units;
  for (int u = 0; u < BitWidth(r.element) / bits; ++u) {
    llvm::Value* offsets = UnitOffsets(r, idx, static_cast<int>(u), bits, lanes);
    std::optional<std::vector<int64_t>> known;
    if (lanes_on == nullptr) known = ConstantOffsets(offsets, n);
    if (known) {
      // Each run is one load, through a stack temporary LLVM turns into shuffles.
      llvm::Value* tmp = EntryAlloca(units_ty);
      ForEachRun(*known, [&](int64_t first, int64_t offset, int64_t len) {
        llvm::Type* ty = len == 1 ? unit : llvm::FixedVectorType::get(unit, static_cast<unsigned>(len));
        llvm::Value* v = b_.CreateAlignedLoad(ty, b_.CreateConstGEP1_64(unit, r.ptr, static_cast<uint64_t>(offset)), align);
        b_.CreateAlignedStore(v, b_.CreateConstGEP1_64(unit, tmp, static_cast<uint64_t>(first)), align);
      });
      units.push_back(b_.CreateAlignedLoad(units_ty, tmp, align));
    } else {
      llvm::Value* on = lanes_on != nullptr ? lanes_on
                        : llvm::ConstantInt::getTrue(llvm::FixedVectorType::get(b_.getInt1Ty(), static_cast<unsigned>(n)));
      units.push_back(b_.CreateMaskedGather(units_ty, b_.CreateGEP(unit, r.ptr, b_.CreateFreeze(offsets)), align, on));
    }
  }
  llvm::Value* v = JoinUnits(units, r.element);
  return t.is_vector() ? v : b_.CreateExtractElement(v, uint64_t{0});
}

void Emitter::StoreUnits(const RefVal& r, llvm::Value* v, const Type& t, llvm::Value* lanes_on) {
  int64_t n = t.is_vector() ? t.NumElements() : 1;
  if (!t.is_vector()) v = b_.CreateVectorSplat(1, v);
  int bits = UnitBits(r);
  llvm::Type* unit = b_.getIntNTy(static_cast<unsigned>(bits));
  llvm::Type* lanes = llvm::FixedVectorType::get(b_.getInt32Ty(), static_cast<unsigned>(n));
  llvm::Align align(static_cast<uint64_t>(bits / 8));
  std::vector<llvm::Value*> idx = Coordinates(r, b_.CreateStepVector(lanes));
  std::vector<llvm::Value*> units = SplitUnits(v, r.element, bits);
  for (size_t u = 0; u < units.size(); ++u) {
    llvm::Value* offsets = UnitOffsets(r, idx, static_cast<int>(u), bits, lanes);
    std::optional<std::vector<int64_t>> known;
    if (lanes_on == nullptr) known = ConstantOffsets(offsets, n);
    if (known) {
      llvm::Value* tmp = EntryAlloca(units[u]->getType());
      b_.CreateAlignedStore(units[u], tmp, align);
      ForEachRun(*known, [&](int64_t first, int64_t offset, int64_t len) {
        llvm::Type* ty = len == 1 ? unit : llvm::FixedVectorType::get(unit, static_cast<unsigned>(len));
        llvm::Value* part = b_.CreateAlignedLoad(ty, b_.CreateConstGEP1_64(unit, tmp, static_cast<uint64_t>(first)), align);
        b_.CreateAlignedStore(part, b_.CreateConstGEP1_64(unit, r.ptr, static_cast<uint64_t>(offset)), align);
      });
    } else {
      llvm::Value* on = lanes_on != nullptr ? lanes_on
                        : llvm::ConstantInt::getTrue(llvm::FixedVectorType::get(b_.getInt1Ty(), static_cast<unsigned>(n)));
      b_.CreateMaskedScatter(units[u], b_.CreateGEP(unit, r.ptr, b_.CreateFreeze(offsets)), align, on);
    }
  }
}

void Emitter::CopyUnits(const RefVal& r, llvm::Value* buffer, llvm::Value* count, bool to_buffer) {
  int bits = UnitBits(r), w = BitWidth(r.element);
  unsigned width = static_cast<unsigned>(kChunkElements);
  llvm::Type* unit = b_.getIntNTy(static_cast<unsigned>(bits));
  llvm::Type* wide = b_.getIntNTy(static_cast<unsigned>(w));  // the buffer's elements, as bits (i1 as a byte)
  llvm::Type* lanes = llvm::FixedVectorType::get(b_.getInt32Ty(), width);
  llvm::Type* units_ty = llvm::FixedVectorType::get(unit, width);
  llvm::Align align(static_cast<uint64_t>(bits / 8)), buffer_align(static_cast<uint64_t>(w / 8));
  llvm::Value* chunks = b_.CreateUDiv(b_.CreateAdd(count, I64(width - 1)), I64(width));
  Loop(chunks, [&](llvm::Value* chunk) {
    llvm::Value* first = b_.CreateMul(chunk, I64(width));
    llvm::Value* linear = b_.CreateAdd(Fit(first, lanes), b_.CreateStepVector(lanes));
    llvm::Value* active = b_.CreateICmpULT(linear, Fit(count, lanes));
    std::vector<llvm::Value*> idx = Coordinates(r, linear);
    llvm::Value* slot = b_.CreateGEP(wide, buffer, first);
    std::vector<llvm::Value*> units;
    if (!to_buffer) {
      llvm::Value* v = b_.CreateMaskedLoad(llvm::FixedVectorType::get(wide, width), slot, buffer_align, active);
      units = SplitUnits(v, IntOfBits(w), bits);
    }
    for (int u = 0; u < w / bits; ++u) {
      llvm::Value* offsets = b_.CreateFreeze(UnitOffsets(r, idx, static_cast<int>(u), bits, lanes));
      llvm::Value* ptrs = b_.CreateGEP(unit, r.ptr, offsets);
      if (to_buffer) {
        units.push_back(b_.CreateMaskedGather(units_ty, ptrs, align, active));
      } else {
        b_.CreateMaskedScatter(units[u], ptrs, align, active);
      }
    }
    if (to_buffer) b_.CreateMaskedStore(JoinUnits(units, IntOfBits(w)), slot, buffer_align, active);
  });
}

// ------------------------------------------------------------------------------------
// DMAs.

namespace {

// True when the dimensions of `a` and `b` other than the size-1 ones are the
// same (the runtime's shape rule, runtime.md §4), as an i1.
llvm::Value* SameSqueezedShape(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& a,
                               const std::vector<llvm::Value*>& c) {
  auto statics = [](const std::vector<llvm::Value*>& s) {
    std::vector<int64_t> out;
    for (llvm::Value* v : s) {
      int64_t n = StaticInt(v);
      if (n < 0) return std::optional<std::vector<int64_t>>();
      if (n != 1) out.push_back(n);
    }
    return std::optional<std::vector<int64_t>>(out);
  };
  auto sa = statics(a), sc = statics(c);
  if (sa && sc) return b.getInt1(*sa == *sc);
  // Dynamic sizes: compare the sequences of sizes other than 1, pairing the
  // k-th such size of each side (`pick` finds it by a running count).
  auto pick = [&](const std::vector<llvm::Value*>& s, int64_t k) {
    llvm::Value* count = b.getInt64(0);
    llvm::Value* found = b.getInt64(-1);
    for (llvm::Value* v : s) {
      llvm::Value* big = b.CreateICmpNE(v, b.getInt64(1));
      found = b.CreateSelect(b.CreateAnd(big, b.CreateICmpEQ(count, b.getInt64(k))), v, found);
      count = b.CreateAdd(count, b.CreateZExt(big, b.getInt64Ty()));
    }
    return found;
  };
  llvm::Value* same = b.getTrue();
  for (size_t k = 0; k < std::max(a.size(), c.size()); ++k) {
    same = b.CreateAnd(same, b.CreateICmpEQ(pick(a, static_cast<int64_t>(k)), pick(c, static_cast<int64_t>(k))));
  }
  return same;
}

}  // namespace

absl::Status Emitter::DmaRuns(const Op& op, const RefVal& src, const RefVal& dst, llvm::Value* sem, int site) {
  int bits = std::min(UnitBits(src), UnitBits(dst));
  int per = BitWidth(dst.element) / bits;
  if (op.dma_add && per > 1) {
    // Adds need whole elements; an add DMA needs an idx(...) list (DMA-12/13),
    // which the indirect DMAs take on plain views only.
    return Unsupported(kernel_, op, "an add DMA between views that a view_bitcast widened");
  }
  ElementType unit = per > 1 ? IntOfBits(bits) : dst.element;
  std::vector<llvm::Value*> src_sizes, dst_sizes;
  for (int d = 0; d < src.dims(); ++d) src_sizes.push_back(DimSize(src, d));
  for (int d = 0; d < dst.dims(); ++d) dst_sizes.push_back(DimSize(dst, d));
  llvm::Value* n = I64(1);
  for (llvm::Value* s : dst_sizes) n = b_.CreateMul(n, s);
  // A one-dimensional descriptor of `count` units from unit `offset` of r.
  auto run = [&](const RefVal& r, llvm::Value* offset, llvm::Value* count, llvm::Value* stride) {
    RefVal v;
    v.space = r.space;
    v.element = unit;
    v.ptr = b_.CreateGEP(b_.getIntNTy(static_cast<unsigned>(bits)), r.ptr, offset);
    v.sizes = {count};
    v.strides = {stride};
    return v;
  };
  // dma_wait only needs the byte count.
  if (op.kind == OpKind::kDmaWait) {
    llvm::Value* units = b_.CreateMul(n, I64(per));
    return IssueDma(op, run(src, I64(0), units, I64(0)), run(dst, I64(0), units, I64(0)), sem, site);
  }
  // Shapes that differ go to the runtime as they are, for its report.
  llvm::BasicBlock* differ = llvm::BasicBlock::Create(ctx_, "dma_shapes_differ", fn_);
  llvm::BasicBlock* same = llvm::BasicBlock::Create(ctx_, "dma_runs", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "dma_runs_done", fn_);
  b_.CreateCondBr(SameSqueezedShape(b_, src_sizes, dst_sizes), same, differ);
  b_.SetInsertPoint(differ);
  auto shape = [&](const RefVal& r, const std::vector<llvm::Value*>& sizes) {
    RefVal v = run(r, I64(0), I64(1), I64(0));
    v.sizes.assign(sizes.begin(), sizes.begin() + std::min<size_t>(sizes.size(), SCJIT_MAX_RANK));
    v.strides.assign(v.sizes.size(), I64(0));
    return v;
  };
  if (absl::Status s = IssueDma(op, shape(src, src_sizes), shape(dst, dst_sizes), sem, site); !s.ok()) return s;
  b_.CreateBr(done);
  b_.SetInsertPoint(same);
  // The current run: first units, steps and length (0: none yet).
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Value* len_slot = ScalarSlot(i64, I64(0));
  llvm::Value* src_slot = ScalarSlot(i64, I64(0));
  llvm::Value* dst_slot = ScalarSlot(i64, I64(0));
  llvm::Value* src_step_slot = ScalarSlot(i64, I64(0));
  llvm::Value* dst_step_slot = ScalarSlot(i64, I64(0));
  absl::Status status;
  auto issue = [&] {
    llvm::Value* len = b_.CreateLoad(i64, len_slot);
    absl::Status s = IssueDma(op, run(src, b_.CreateLoad(i64, src_slot), len, b_.CreateLoad(i64, src_step_slot)),
                              run(dst, b_.CreateLoad(i64, dst_slot), len, b_.CreateLoad(i64, dst_step_slot)), sem, site);
    if (status.ok()) status = s;
  };
  // Unit by unit of the elements (their runs then follow the rows), element
  // by element in row-major order.
  for (int u = 0; u < per; ++u) {
    b_.CreateStore(I64(0), len_slot);
    Loop(n, [&](llvm::Value* e) {
      llvm::Value* so = UnitOffsets(src, Coordinates(src, e), static_cast<int>(u), bits, i64);
      llvm::Value* dof = UnitOffsets(dst, Coordinates(dst, e), static_cast<int>(u), bits, i64);
      llvm::Value* len = b_.CreateLoad(i64, len_slot);
      llvm::Value* s0 = b_.CreateLoad(i64, src_slot);
      llvm::Value* d0 = b_.CreateLoad(i64, dst_slot);
      llvm::Value* ss = b_.CreateLoad(i64, src_step_slot);
      llvm::Value* ds = b_.CreateLoad(i64, dst_step_slot);
      llvm::Value* first = b_.CreateICmpEQ(len, I64(0));
      llvm::Value* second = b_.CreateICmpEQ(len, I64(1));
      // A second element sets the steps (descriptors have no negative strides);
      // later ones must keep them.
      llvm::Value* ascending = b_.CreateAnd(b_.CreateICmpSGE(so, s0), b_.CreateICmpSGE(dof, d0));
      llvm::Value* keeps = b_.CreateAnd(b_.CreateICmpEQ(so, b_.CreateAdd(s0, b_.CreateMul(len, ss))),
                                        b_.CreateICmpEQ(dof, b_.CreateAdd(d0, b_.CreateMul(len, ds))));
      llvm::Value* breaks = b_.CreateAnd(b_.CreateNot(first), b_.CreateSelect(second, b_.CreateNot(ascending), b_.CreateNot(keeps)));
      When(breaks, issue);
      llvm::Value* restart = b_.CreateOr(first, breaks);
      b_.CreateStore(b_.CreateSelect(restart, so, s0), src_slot);
      b_.CreateStore(b_.CreateSelect(restart, dof, d0), dst_slot);
      b_.CreateStore(b_.CreateSelect(restart, I64(0), b_.CreateSelect(second, b_.CreateSub(so, s0), ss)), src_step_slot);
      b_.CreateStore(b_.CreateSelect(restart, I64(0), b_.CreateSelect(second, b_.CreateSub(dof, d0), ds)), dst_step_slot);
      b_.CreateStore(b_.CreateSelect(restart, I64(1), b_.CreateAdd(len, I64(1))), len_slot);
    });
    When(b_.CreateICmpNE(b_.CreateLoad(i64, len_slot), I64(0)), issue);
  }
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return status;
}

}  // namespace scjit::emit
