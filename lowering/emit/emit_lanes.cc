// Cross-lane value ops (kernel-ir.md §4.1; sc-semantics.md §3.10-3.12, §3.14;
// runtime.md §7.2, §7.3, §7.6, §7.10): reductions, cumulative ops, scan_count and
// the mask all-reduces.
//
// All of it is vector code: LLVM's vector.reduce intrinsics, scans as log2(L)
// shift-and-combine steps, scan_count as lane-shift compares (vpconflictd on hosts
// with AVX-512CD). Float sums are the
// exception: runtime.md §7.6 fixes their order (left to right), so they are a
// chain of adds. Large values (see Large) run chunk by chunk, carrying the
// running state from one chunk to the next.
#include "lowering/analysis/lane_ops.h"
#include "lowering/emit/emitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsX86.h"

namespace scjit::emit {
llvm::Value* Emitter::QuietNaNs(llvm::Value* v) {
  return b_.CreateSelect(b_.CreateFCmpUNO(v, v), b_.CreateFAdd(v, v), v);
}

llvm::Value* Emitter::FloatMinimum(llvm::Value* a, llvm::Value* b) {
  return b_.CreateMinimum(QuietNaNs(a), QuietNaNs(b));
}

llvm::Value* Emitter::FloatMaximum(llvm::Value* a, llvm::Value* b) {
  return b_.CreateMaximum(QuietNaNs(a), QuietNaNs(b));
}

llvm::Value* Emitter::CombineValues(Combine c, llvm::Value* a, llvm::Value* b, ElementType e) {
  if (IsNarrowFloat(e)) return FromF32(CombineValues(c, ToF32(a, e), ToF32(b, e), ElementType::kF32), e);
  if (IsInt4(e)) return NarrowInt4(CombineValues(c, WidenInt4(a, e), WidenInt4(b, e), Int4Compute(e)), e);
  bool fp = IsFloat(e);
  switch (c) {
    case Combine::kSum:
      return fp ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
    case Combine::kMax:
      if (fp) return FloatMaximum(a, b);
      return b_.CreateBinaryIntrinsic(SignedOrder(e) ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
    case Combine::kMin:
      if (fp) return FloatMinimum(a, b);
      return b_.CreateBinaryIntrinsic(SignedOrder(e) ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
    case Combine::kAnd:
      return b_.CreateAnd(a, b);
    case Combine::kOr:
      return b_.CreateOr(a, b);
  }
  return nullptr;
}

llvm::Constant* Emitter::Identity(Combine c, ElementType e) {
  llvm::Type* ty = ElemTy(e);
  bool fp = IsFloat(e);
  unsigned bits = ty->getScalarSizeInBits();
  switch (c) {
    case Combine::kSum:
      // -0.0 + x is x for every x, +0.0 included.
      return fp ? llvm::ConstantFP::getNegativeZero(ty) : llvm::ConstantInt::get(ty, 0);
    case Combine::kMax:
      if (fp) return llvm::ConstantFP::getInfinity(ty, /*Negative=*/true);
      return llvm::ConstantInt::get(ty, SignedOrder(e) ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt(bits, 0));
    case Combine::kMin:
      if (fp) return llvm::ConstantFP::getInfinity(ty, /*Negative=*/false);
      return llvm::ConstantInt::get(ty, SignedOrder(e) ? llvm::APInt::getSignedMaxValue(bits) : llvm::APInt::getMaxValue(bits));
    case Combine::kAnd:
      return llvm::Constant::getAllOnesValue(ty);
    case Combine::kOr:
      return llvm::Constant::getNullValue(ty);
  }
  return nullptr;
}

llvm::Value* Emitter::ShiftLanes(llvm::Value* v, int64_t k, int64_t row, llvm::Constant* fill) {
  auto* vty = llvm::cast<llvm::FixedVectorType>(v->getType());
  int64_t w = vty->getNumElements();
  std::vector<int> mask;
  for (int64_t i = 0; i < w; ++i) {
    int64_t col = i % row;
    int64_t from = col - k;
    mask.push_back(from >= 0 && from < row ? static_cast<int>(i - k) : static_cast<int>(w));
  }
  llvm::Value* fills = llvm::ConstantVector::getSplat(vty->getElementCount(), fill);
  return b_.CreateShuffleVector(v, fills, mask);
}

void Emitter::SetSplat(const Value* result, llvm::Value* scalar) {
  const Type& t = result->type;
  if (!Large(t)) {
    Set(result, Splat(scalar, t));
    return;
  }
  llvm::Value* buffer = NewBuffer(t);
  ForChunks(t.NumElements(), [&](llvm::Value* first, int64_t width) {
    StoreChunk(buffer, t.element(), first, b_.CreateVectorSplat(static_cast<unsigned>(width), scalar));
    return absl::OkStatus();
  }).IgnoreError();  // the body cannot fail
  SetBuffer(result, buffer);
}

llvm::Value* Emitter::ScalarSlot(llvm::Type* ty, llvm::Value* init) {
  llvm::Value* slot = EntryAlloca(ty);
  b_.CreateStore(init, slot);
  return slot;
}

absl::Status Emitter::EmitLaneOp(const Op& op) {
  switch (op.info().family) {
    case OpFamily::kReduction:
      return EmitReduce(op);
    case OpFamily::kScan:
      return op.kind == OpKind::kScanCount ? EmitScanCount(op) : EmitScan(op);
    case OpFamily::kMaskReduction:
      return EmitMaskReduce(op);
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

// reduce_*: a vector (rank 1, RED-1) to a scalar.
absl::Status Emitter::EmitReduce(const Op& op) {
  const Operand& x = op.operands[0];
  const Type& t = x.value->type;
  if (IsFloat8(t.element())) return Unsupported(kernel_, op, Cat(op.name(), " of ", IrName(t.element())));
  // 4-bit integers reduce widened to 8 bits; the result wraps back to 4.
  ElementType e = Int4Compute(t.element());
  auto in = [&](llvm::Value* v) { return WidenInt4(v, t.element()); };
  auto out = [&](llvm::Value* v) { return NarrowInt4(v, t.element()); };
  Combine c = CombineOf(op.kind);
  auto fold = [&](llvm::Value* acc, llvm::Value* v) -> llvm::Value* {
    // Without fast-math flags the fadd reduction is ordered: ((acc + v0) + v1) + ...
    if (c == Combine::kSum && IsFloat(e)) return b_.CreateFAddReduce(acc, v);
    llvm::Value* r = nullptr;
    switch (c) {
      case Combine::kSum:
        r = b_.CreateAddReduce(v);
        break;
      case Combine::kMax:
        r = IsFloat(e) ? b_.CreateFPMaximumReduce(QuietNaNs(v)) : b_.CreateIntMaxReduce(v, SignedOrder(e));
        break;
      case Combine::kMin:
        r = IsFloat(e) ? b_.CreateFPMinimumReduce(QuietNaNs(v)) : b_.CreateIntMinReduce(v, SignedOrder(e));
        break;
      case Combine::kAnd:
        r = b_.CreateAndReduce(v);
        break;
      case Combine::kOr:
        r = b_.CreateOrReduce(v);
        break;
    }
    return acc == nullptr ? r : CombineValues(c, acc, r, e);
  };
  if (!Large(t)) {
    Set(op.results[0], out(fold(c == Combine::kSum && IsFloat(e) ? Identity(c, e) : nullptr, in(ValueOf(x)))));
    if (HasShadow(x)) SetLaneShadows(op.results[0], AnyBit(ShadowOf(x)), OriginOf(x));
    return absl::OkStatus();
  }
  llvm::Value* acc = ScalarSlot(ElemTy(e), Identity(c, e));
  absl::Status s = ForChunks(t.NumElements(), [&](llvm::Value* first, int64_t width) {
    b_.CreateStore(fold(b_.CreateLoad(ElemTy(e), acc), in(ChunkOf(x, first, width))), acc);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  Set(op.results[0], out(b_.CreateLoad(ElemTy(e), acc)));
  if (HasShadow(x)) SetLaneShadows(op.results[0], AnyShadow(x), OriginOf(x));
  return absl::OkStatus();
}

// cumsum/cummax/cummin, with or without a mask (rank 1, CUM-1...5). With a
// mask, lanes before the first masked-in lane pass x through and masked-off
// lanes after it hold the running value (runtime.md §7.2).
absl::Status Emitter::EmitScan(const Op& op) {
  const Operand& x = op.operands[0];
  const Type& t = x.value->type;
  if (IsFloat8(t.element())) return Unsupported(kernel_, op, Cat(op.name(), " of ", IrName(t.element())));
  // 4-bit integers scan widened to 8 bits; the results wrap back to 4.
  ElementType e = Int4Compute(t.element());
  auto in = [&](llvm::Value* v) { return WidenInt4(v, t.element()); };
  auto out = [&](llvm::Value* v) { return NarrowInt4(v, t.element()); };
  Combine c = CombineOf(op.kind);
  bool masked = op.mask.has_value();
  llvm::Constant* identity = Identity(c, e);
  // One register (or chunk): x, its mask lanes (null: all set) and the state
  // before it (null: nothing before it) give the output and the state after it.
  struct State {
    llvm::Value* run = nullptr;   // the running value
    llvm::Value* seen = nullptr;  // i1: a masked-in lane came before
  };
  auto scan = [&](llvm::Value* xv, llvm::Value* m, State in, State* out) -> llvm::Value* {
    int64_t w = llvm::cast<llvm::FixedVectorType>(xv->getType())->getNumElements();
    if (c == Combine::kSum && IsFloat(e)) {
      // Left to right (runtime.md §7.6): a chain of adds.
      llvm::Value* acc = in.run != nullptr ? in.run : identity;
      llvm::Value* seen = in.seen != nullptr ? in.seen : b_.getFalse();
      llvm::Value* result = xv;
      for (int64_t i = 0; i < w; ++i) {
        llvm::Value* xi = b_.CreateExtractElement(xv, static_cast<uint64_t>(i));
        llvm::Value* sum = b_.CreateFAdd(acc, xi);
        llvm::Value* lane = sum;
        if (m != nullptr) {
          llvm::Value* mi = b_.CreateExtractElement(m, static_cast<uint64_t>(i));
          acc = b_.CreateSelect(mi, sum, acc);
          seen = b_.CreateOr(seen, mi);
          lane = b_.CreateSelect(seen, acc, xi);
        } else {
          acc = sum;
        }
        result = b_.CreateInsertElement(result, lane, static_cast<uint64_t>(i));
      }
      *out = {acc, seen};
      return result;
    }
    llvm::Value* s = m != nullptr ? b_.CreateSelect(m, xv, Splat(identity, Type::Vector(e, {w}))) : xv;
    for (int64_t k = 1; k < w; k *= 2) s = CombineValues(c, s, ShiftLanes(s, k, w, identity), e);
    if (in.run != nullptr) s = CombineValues(c, Splat(in.run, Type::Vector(e, {w})), s, e);
    llvm::Value* result = s;
    out->run = b_.CreateExtractElement(s, static_cast<uint64_t>(w - 1));
    if (m != nullptr) {
      llvm::Value* seen = m;
      for (int64_t k = 1; k < w; k *= 2) seen = b_.CreateOr(seen, ShiftLanes(seen, k, w, b_.getFalse()));
      if (in.seen != nullptr) seen = b_.CreateOr(seen, b_.CreateVectorSplat(static_cast<unsigned>(w), in.seen));
      result = b_.CreateSelect(seen, s, xv);
      out->seen = b_.CreateExtractElement(seen, static_cast<uint64_t>(w - 1));
    }
    return result;
  };
  // Init check: lane i is unwritten once a lane up to it (of x, or of the
  // mask) is; `bad_before` carries that from one chunk to the next.
  bool shadows = HasShadow(x) || (masked && HasShadow(*op.mask));
  llvm::Value* origin = shadows ? MarkComputed(FirstOrigin({OriginOf(x), masked ? OriginOf(*op.mask) : nullptr})) : nullptr;
  ElementType se = ShadowElem(t.element());
  auto scan_shadow = [&](llvm::Value* first, int64_t w, llvm::Value* bad_before) -> std::pair<llvm::Value*, llvm::Value*> {
    llvm::Value* sx = first == nullptr ? ShadowOf(x) : ShadowChunkOf(x, first, w);
    llvm::Value* bad = b_.CreateICmpNE(sx, llvm::Constant::getNullValue(sx->getType()));
    if (masked) {
      llvm::Value* sm = first == nullptr ? ShadowOf(*op.mask) : ShadowChunkOf(*op.mask, first, w);
      bad = b_.CreateOr(bad, sm);
    }
    for (int64_t k = 1; k < w; k *= 2) bad = b_.CreateOr(bad, ShiftLanes(bad, k, w, b_.getFalse()));
    if (bad_before != nullptr) bad = b_.CreateOr(bad, b_.CreateVectorSplat(static_cast<unsigned>(w), bad_before));
    return {Spread(bad, llvm::FixedVectorType::get(ElemTy(se), static_cast<unsigned>(w))),
            b_.CreateExtractElement(bad, static_cast<uint64_t>(w - 1))};
  };
  if (!Large(t)) {
    State after;
    Set(op.results[0], out(scan(in(ValueOf(x)), masked ? ValueOf(*op.mask) : nullptr, {}, &after)));
    if (shadows) SetShadow(op.results[0], scan_shadow(nullptr, t.NumElements(), nullptr).first, origin, false);
    return absl::OkStatus();
  }
  llvm::Value* run = ScalarSlot(ElemTy(e), identity);
  llvm::Value* seen = ScalarSlot(b_.getInt1Ty(), b_.getFalse());
  llvm::Value* bad_seen = shadows ? ScalarSlot(b_.getInt1Ty(), b_.getFalse()) : nullptr;
  llvm::Value* buffer = NewBuffer(t);
  llvm::Value* shadow = shadows ? NewShadowBuffer(t) : nullptr;
  absl::Status s = ForChunks(t.NumElements(), [&](llvm::Value* first, int64_t width) {
    State before{b_.CreateLoad(ElemTy(e), run), b_.CreateLoad(b_.getInt1Ty(), seen)}, after;
    llvm::Value* m = masked ? ChunkOf(*op.mask, first, width) : nullptr;
    StoreChunk(buffer, e, first, out(scan(in(ChunkOf(x, first, width)), m, before, &after)));
    b_.CreateStore(after.run, run);
    if (after.seen != nullptr) b_.CreateStore(after.seen, seen);
    if (shadows) {
      auto [sh, last] = scan_shadow(first, width, b_.CreateLoad(b_.getInt1Ty(), bad_seen));
      StoreChunk(shadow, se, first, sh);
      b_.CreateStore(last, bad_seen);
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  SetBuffer(op.results[0], buffer);
  if (shadows) SetShadowBuffer(op.results[0], shadow, origin, false);
  return absl::OkStatus();
}

// scan_count along the minor dimension (sc-semantics.md §3.10, runtime.md §7.3):
//   count[i] = mask[i] ? #{j <= i in i's row : mask[j] and x[j] == x[i]} : 1
//   last[i]  = mask[i] and no j > i in i's row has mask[j] and x[j] == x[i]
// with bitwise equality. Short rows compare each lane with the lanes k before and
// after it, for every k; long rows and large values loop over the row.
absl::Status Emitter::EmitScanCount(const Op& op) {
  if (absl::Status s = EmitScanCountValues(op); !s.ok()) return s;
  // Init check: a lane's count and flag depend on its whole row (of x, and
  // of the mask): one unwritten lane leaves the row's results unwritten.
  const Operand& x = op.operands[0];
  bool masked = op.mask.has_value();
  if (!HasShadow(x) && !(masked && HasShadow(*op.mask))) return absl::OkStatus();
  const Type& t = x.value->type;
  int64_t n = t.shape().back(), total = t.NumElements();
  llvm::Value* origin = MarkComputed(FirstOrigin({OriginOf(x), masked ? OriginOf(*op.mask) : nullptr}));
  // Each lane's "unwritten" as a byte, then each row's.
  llvm::Value* bad = NewBuffer(Type::Vector(ElementType::kU8, {total}));
  absl::Status s = ForChunks(total, [&](llvm::Value* first, int64_t w) {
    llvm::Value* sx = ShadowChunkOf(x, first, w);
    llvm::Value* lane = b_.CreateICmpNE(sx, llvm::Constant::getNullValue(sx->getType()));
    if (masked) lane = b_.CreateOr(lane, ShadowChunkOf(*op.mask, first, w));
    StoreChunk(bad, ElementType::kI1, first, lane);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  llvm::Value* shadows[2] = {NewShadowBuffer(op.results[0]->type), NewShadowBuffer(op.results[1]->type)};
  Loop(total / n, [&](llvm::Value* row) {
    llvm::Value* any = AnyByte(b_.CreateGEP(b_.getInt8Ty(), bad, b_.CreateMul(row, I64(n))), n);
    for (int k = 0; k < 2; ++k) {
      ElementType se = ShadowElem(op.results[k]->type.element());
      llvm::Type* ty = ElemTy(se);
      llvm::Value* ones = se == ElementType::kI1 ? b_.getTrue() : llvm::Constant::getAllOnesValue(ty);
      llvm::Value* lane = b_.CreateSelect(any, ones, llvm::Constant::getNullValue(ty));
      Loop(n, [&](llvm::Value* j) { StoreElement(shadows[k], se, b_.CreateAdd(b_.CreateMul(row, I64(n)), j), lane); });
    }
  });
  SetShadowFromBuffer(op.results[0], shadows[0], origin);
  SetShadowFromBuffer(op.results[1], shadows[1], origin);
  return absl::OkStatus();
}

absl::Status Emitter::EmitScanCountValues(const Op& op) {
  const Operand& x = op.operands[0];
  const Type& t = x.value->type;
  const Type& count_t = op.results[0]->type;
  const Type& last_t = op.results[1]->type;
  int64_t n = t.shape().back();
  int64_t total = t.NumElements();
  llvm::Type* int_ty = b_.getIntNTy(static_cast<unsigned>(BitWidth(t.element())));
  if (options_.conflict_detection && total == n && (n == 16 || n == 8) && BitWidth(t.element()) == 32 && !Large(t)) {
    EmitConflictScanCount(op);
    return absl::OkStatus();
  }
  constexpr int64_t kShortRow = 32;
  if (n <= kShortRow && !Large(t) && !Large(count_t)) {
    llvm::Value* bits = b_.CreateBitCast(ValueOf(x), llvm::FixedVectorType::get(int_ty, static_cast<unsigned>(total)));
    llvm::Value* m = op.mask ? ValueOf(*op.mask) : llvm::Constant::getAllOnesValue(ValueTy(last_t));
    llvm::Value* count = llvm::Constant::getNullValue(ValueTy(count_t));
    llvm::Value* later = llvm::Constant::getNullValue(ValueTy(last_t));
    llvm::Constant* zero = llvm::ConstantInt::get(int_ty, 0);
    for (int64_t k = 1; k < n; ++k) {
      for (int64_t dir : {k, -k}) {
        llvm::Value* other = ShiftLanes(bits, dir, n, zero);
        llvm::Value* other_m = ShiftLanes(m, dir, n, b_.getFalse());
        llvm::Value* eq = b_.CreateAnd(b_.CreateICmpEQ(bits, other), other_m);
        if (dir > 0) {
          count = b_.CreateAdd(count, b_.CreateZExt(eq, ValueTy(count_t)));
        } else {
          later = b_.CreateOr(later, eq);
        }
      }
    }
    llvm::Value* one = Splat(b_.getInt32(1), count_t);
    Set(op.results[0], b_.CreateSelect(m, b_.CreateAdd(count, one), one));
    Set(op.results[1], b_.CreateAnd(m, b_.CreateNot(later)));
    return absl::OkStatus();
  }
  llvm::Value* xb = AsBuffer(x);
  llvm::Value* mb = op.mask ? AsBuffer(*op.mask) : nullptr;
  llvm::Value* counts = NewBuffer(count_t);
  llvm::Value* lasts = NewBuffer(last_t);
  auto x_at = [&](llvm::Value* i) { return b_.CreateBitCast(LoadElement(xb, t.element(), i), int_ty); };
  auto m_at = [&](llvm::Value* i) { return mb != nullptr ? LoadElement(mb, ElementType::kI1, i) : b_.getTrue(); };
  Loop(total, [&](llvm::Value* i) {
    llvm::Value* row_start = b_.CreateMul(b_.CreateUDiv(i, I64(n)), I64(n));
    llvm::Value* xi = x_at(i);
    llvm::Value* count = ScalarSlot(b_.getInt32Ty(), b_.getInt32(0));
    llvm::Value* later = ScalarSlot(b_.getInt1Ty(), b_.getFalse());
    Loop(n, [&](llvm::Value* j) {
      llvm::Value* at = b_.CreateAdd(row_start, j);
      llvm::Value* eq = b_.CreateAnd(b_.CreateICmpEQ(x_at(at), xi), m_at(at));
      llvm::Value* before = b_.CreateAnd(eq, b_.CreateICmpULT(at, i));
      b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt32Ty(), count), b_.CreateZExt(before, b_.getInt32Ty())), count);
      llvm::Value* after = b_.CreateAnd(eq, b_.CreateICmpUGT(at, i));
      b_.CreateStore(b_.CreateOr(b_.CreateLoad(b_.getInt1Ty(), later), after), later);
    });
    llvm::Value* mi = m_at(i);
    llvm::Value* c = b_.CreateAdd(b_.CreateLoad(b_.getInt32Ty(), count), b_.getInt32(1));
    StoreElement(counts, ElementType::kI32, i, b_.CreateSelect(mi, c, b_.getInt32(1)));
    StoreElement(lasts, ElementType::kI1, i, b_.CreateAnd(mi, b_.CreateNot(b_.CreateLoad(b_.getInt1Ty(), later))));
  });
  SetFromBuffer(op.results[0], counts);
  SetFromBuffer(op.results[1], lasts);
  return absl::OkStatus();
}

// scan_count of one row of 8 or 16 32-bit lanes with AVX-512CD: vpconflictd gives
// each lane the bit set of the earlier lanes equal to it, so its count is the
// population of the masked-in ones plus one; run on the reversed row it gives
// the later lanes, and a lane with none masked in is the last of its value.
void Emitter::EmitConflictScanCount(const Op& op) {
  const Type& t = op.operands[0].value->type;
  auto lanes = static_cast<unsigned>(t.shape().back());
  auto* ints = llvm::FixedVectorType::get(b_.getInt32Ty(), lanes);
  llvm::Function* conflict = llvm::Intrinsic::getDeclaration(
      &module_, lanes == 16 ? llvm::Intrinsic::x86_avx512_conflict_d_512 : llvm::Intrinsic::x86_avx512_conflict_d_256);
  std::vector<int> reverse(lanes);
  for (unsigned i = 0; i < lanes; ++i) reverse[i] = static_cast<int>(lanes - 1 - i);
  llvm::Value* v = b_.CreateBitCast(ValueOf(op.operands[0]), ints);
  llvm::Value* earlier = b_.CreateCall(conflict, {v});
  llvm::Value* later_reversed = b_.CreateCall(conflict, {b_.CreateShuffleVector(v, reverse)});
  llvm::Value* m = op.mask ? ValueOf(*op.mask) : nullptr;
  if (m != nullptr) {
    // The masked-in lanes as a bit set, in every lane.
    auto lane_bits = [&](llvm::Value* mask) {
      llvm::Value* bits = b_.CreateBitCast(mask, b_.getIntNTy(lanes));
      return b_.CreateVectorSplat(lanes, b_.CreateZExt(bits, b_.getInt32Ty()));
    };
    earlier = b_.CreateAnd(earlier, lane_bits(m));
    later_reversed = b_.CreateAnd(later_reversed, lane_bits(b_.CreateShuffleVector(m, reverse)));
  }
  llvm::Value* one = b_.CreateVectorSplat(lanes, b_.getInt32(1));
  llvm::Value* count = b_.CreateAdd(b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, earlier), one);
  llvm::Value* later = b_.CreateICmpNE(b_.CreateShuffleVector(later_reversed, reverse), llvm::Constant::getNullValue(ints));
  llvm::Value* last = b_.CreateNot(later);
  if (m != nullptr) {
    count = b_.CreateSelect(m, count, one);
    last = b_.CreateAnd(m, last);
  }
  Set(op.results[0], count);
  Set(op.results[1], last);
}

// popcount_all / ffs_all (sc-semantics.md §3.14, runtime.md §7.10): every
// element of the result holds the whole mask's count, or its first set index
// (the mask's length when none is set).
absl::Status Emitter::EmitMaskReduce(const Op& op) {
  const Operand& x = op.operands[0];
  const Type& t = x.value->type;
  int64_t n = t.NumElements();
  bool popcount = op.kind == OpKind::kPopcountAll;
  auto reduce = [&](llvm::Value* m, int64_t width) -> llvm::Value* {
    if (popcount) {
      return b_.CreateAddReduce(b_.CreateZExt(m, llvm::FixedVectorType::get(b_.getInt32Ty(), static_cast<unsigned>(width))));
    }
    // cttz of the lanes as an integer: `width` when no lane is set.
    llvm::Value* bits = b_.CreateBitCast(m, b_.getIntNTy(static_cast<unsigned>(width)));
    llvm::Value* first = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, bits, b_.getFalse());
    return b_.CreateZExtOrTrunc(first, b_.getInt32Ty());
  };
  llvm::Value* result;
  if (!Large(t)) {
    result = reduce(ValueOf(x), n);
  } else {
    llvm::Value* acc = ScalarSlot(b_.getInt32Ty(), b_.getInt32(popcount ? 0 : static_cast<uint32_t>(n)));
    absl::Status s = ForChunks(n, [&](llvm::Value* first, int64_t width) {
      llvm::Value* r = reduce(ChunkOf(x, first, width), width);
      llvm::Value* old = b_.CreateLoad(b_.getInt32Ty(), acc);
      if (popcount) {
        b_.CreateStore(b_.CreateAdd(old, r), acc);
      } else {
        llvm::Value* found = b_.CreateICmpNE(r, b_.getInt32(static_cast<uint32_t>(width)));
        llvm::Value* index = b_.CreateAdd(b_.CreateTrunc(first, b_.getInt32Ty()), r);
        b_.CreateStore(b_.CreateSelect(found, b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, old, index), old), acc);
      }
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    result = b_.CreateLoad(b_.getInt32Ty(), acc);
  }
  SetSplat(op.results[0], result);
  if (HasShadow(x)) SetLaneShadows(op.results[0], AnyShadow(x), OriginOf(x));
  return absl::OkStatus();
}

}  // namespace scjit::emit
