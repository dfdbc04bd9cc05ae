// Value ops (kernel-ir.md §4.1): elementwise computation and conversions.
#include "lowering/emit/emitter.h"
#include "lowering/ir/printer.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "runtime/abi.h"
#include "llvm/IR/GlobalVariable.h"

namespace scjit::emit {
// ------------------------------------------------------------------------------------
// Elementwise computation (kernel-ir.md §4.1).

absl::StatusOr<llvm::Value*> Emitter::Binary(const Op& op, OpKind kind, llvm::Value* a, llvm::Value* b,
                                             ElementType e) {
  if (IsNarrowFloat(e)) {  // computed in f32, rounded once
    absl::StatusOr<llvm::Value*> r = Binary(op, kind, ToF32(a, e), ToF32(b, e), ElementType::kF32);
    if (!r.ok()) return r;
    return FromF32(*r, e);
  }
  if (kind == OpKind::kMulhi) return MulHi(a, b, e);
  if (IsInt4(e)) {  // computed in 8 bits, wrapped to 4
    absl::StatusOr<llvm::Value*> r = Binary(op, kind, WidenInt4(a, e), WidenInt4(b, e), Int4Compute(e));
    if (!r.ok()) return r;
    return NarrowInt4(*r, e);
  }
  bool fp = IsFloat(e);
  bool is_unsigned = IsUnsigned(e) || IsBool(e);
  llvm::Type* ty = a->getType();
  auto all_ones = [&] { return llvm::Constant::getAllOnesValue(ty); };
  switch (kind) {
    case OpKind::kAdd:
      return fp ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
    case OpKind::kSub:
      return fp ? b_.CreateFSub(a, b) : b_.CreateSub(a, b);
    case OpKind::kMul:
      return fp ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
    case OpKind::kDiv:
    case OpKind::kRem: {
      bool div = kind == OpKind::kDiv;
      if (fp) return div ? b_.CreateFDiv(a, b) : b_.CreateFRem(a, b);
      // XLA's definition: x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN,
      // INT_MIN % -1 = 0; never a host trap.
      llvm::Value* zero = llvm::Constant::getNullValue(ty);
      llvm::Value* by_zero = b_.CreateICmpEQ(b, zero);
      // No overflow case for unsigned division; the constant must have by_zero's
      // (possibly vector) type, or the `or` below is invalid IR.
      llvm::Value* overflow = llvm::Constant::getNullValue(by_zero->getType());
      if (!is_unsigned) {
        llvm::Value* min = llvm::ConstantInt::get(ty, llvm::APInt::getSignedMinValue(ty->getScalarSizeInBits()));
        overflow = b_.CreateAnd(b_.CreateICmpEQ(a, min), b_.CreateICmpEQ(b, all_ones()));
      }
      // Through a volatile stack slot, which LLVM may not see through: when the
      // divisor is known (a constant, or a loop's constant result), LLVM 19's
      // InstCombine splits the division over this select's arms, one of them a
      // division by the zero lanes (poison), and folds the op into a constant
      // (differential seeds 201424 and 302555; a freeze did not stop it).
      llvm::Value* safe = b_.CreateSelect(b_.CreateOr(by_zero, overflow), llvm::ConstantInt::get(ty, 1), b);
      llvm::AllocaInst* slot = EntryAlloca(ty);
      b_.CreateStore(safe, slot, /*isVolatile=*/true);
      safe = b_.CreateLoad(ty, slot, /*isVolatile=*/true);
      llvm::Value* q = div ? (is_unsigned ? b_.CreateUDiv(a, safe) : b_.CreateSDiv(a, safe))
                           : (is_unsigned ? b_.CreateURem(a, safe) : b_.CreateSRem(a, safe));
      // With the safe divisor 1: INT_MIN / 1 = INT_MIN and INT_MIN % 1 = 0, as wanted.
      return b_.CreateSelect(by_zero, div ? all_ones() : a, q);
    }
    case OpKind::kMin:
    case OpKind::kMax: {
      bool min = kind == OpKind::kMin;
      // Floats propagate NaN and order -0 < +0 (IEEE minimum/maximum).
      if (fp) return min ? FloatMinimum(a, b) : FloatMaximum(a, b);
      llvm::Intrinsic::ID id = min ? (is_unsigned ? llvm::Intrinsic::umin : llvm::Intrinsic::smin)
                                   : (is_unsigned ? llvm::Intrinsic::umax : llvm::Intrinsic::smax);
      return b_.CreateBinaryIntrinsic(id, a, b);
    }
    case OpKind::kAnd:
      return b_.CreateAnd(a, b);
    case OpKind::kOr:
      return b_.CreateOr(a, b);
    case OpKind::kXor:
      return b_.CreateXor(a, b);
    case OpKind::kShl:
    case OpKind::kShr: {
      // Amounts >= the width (unsigned compare: negative amounts are huge) give 0,
      // or the sign fill for a signed shift right.
      unsigned bits = ty->getScalarSizeInBits();
      llvm::Value* width = llvm::ConstantInt::get(ty, bits);
      llvm::Value* big = b_.CreateICmpUGE(b, width);
      llvm::Value* safe = b_.CreateSelect(big, llvm::ConstantInt::get(ty, 0), b);
      if (kind == OpKind::kShl) {
        return b_.CreateSelect(big, llvm::Constant::getNullValue(ty), b_.CreateShl(a, safe));
      }
      if (is_unsigned) return b_.CreateSelect(big, llvm::Constant::getNullValue(ty), b_.CreateLShr(a, safe));
      llvm::Value* fill = b_.CreateAShr(a, llvm::ConstantInt::get(ty, bits - 1));
      return b_.CreateSelect(big, fill, b_.CreateAShr(a, safe));
    }
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

// The high half of the double-width product (MulSIExtended / MulUIExtended's
// high result); 4-bit integers are multiplied in their 8-bit containers.
llvm::Value* Emitter::MulHi(llvm::Value* a, llvm::Value* b, ElementType e) {
  bool int4 = IsInt4(e);
  if (int4) {
    a = WidenInt4(a, e);
    b = WidenInt4(b, e);
  }
  bool is_unsigned = IsUnsigned(e);
  llvm::Type* ty = a->getType();
  unsigned container = ty->getScalarSizeInBits();
  llvm::Type* wide = ty->getWithNewBitWidth(2 * container);
  llvm::Value* wa = is_unsigned ? b_.CreateZExt(a, wide) : b_.CreateSExt(a, wide);
  llvm::Value* wb = is_unsigned ? b_.CreateZExt(b, wide) : b_.CreateSExt(b, wide);
  llvm::Value* product = b_.CreateMul(wa, wb);
  llvm::Constant* width = llvm::ConstantInt::get(wide, int4 ? 4 : container);
  llvm::Value* high = b_.CreateTrunc(is_unsigned ? b_.CreateLShr(product, width) : b_.CreateAShr(product, width), ty);
  return int4 ? NarrowInt4(high, e) : high;
}

absl::StatusOr<llvm::Value*> Emitter::Unary(const Op& op, llvm::Value* a, ElementType e) {
  if (IsNarrowFloat(e)) {  // computed in f32, rounded once
    absl::StatusOr<llvm::Value*> r = Unary(op, ToF32(a, e), ElementType::kF32);
    if (!r.ok()) return r;
    return FromF32(*r, e);
  }
  if (IsInt4(e)) {  // computed in 8 bits, wrapped to 4
    absl::StatusOr<llvm::Value*> r = Unary(op, WidenInt4(a, e), Int4Compute(e));
    if (!r.ok()) return r;
    return NarrowInt4(*r, e);
  }
  bool fp = IsFloat(e);
  llvm::Type* ty = a->getType();
  switch (op.kind) {
    case OpKind::kNeg:
      return fp ? b_.CreateFNeg(a) : b_.CreateNeg(a);
    case OpKind::kAbs:
      if (fp) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a);
      if (IsUnsigned(e)) return a;
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a, b_.getFalse());
    case OpKind::kSign: {
      if (fp) {
        // -1, +1, or x itself for ±0 and NaN.
        llvm::Value* one = llvm::ConstantFP::get(ty, 1.0);
        llvm::Value* minus = llvm::ConstantFP::get(ty, -1.0);
        llvm::Value* zero = llvm::ConstantFP::get(ty, 0.0);
        llvm::Value* pos = b_.CreateSelect(b_.CreateFCmpOGT(a, zero), one, a);
        return b_.CreateSelect(b_.CreateFCmpOLT(a, zero), minus, pos);
      }
      llvm::Value* zero = llvm::Constant::getNullValue(ty);
      llvm::Value* gt = b_.CreateZExt(IsUnsigned(e) ? b_.CreateICmpUGT(a, zero) : b_.CreateICmpSGT(a, zero), ty);
      if (IsUnsigned(e)) return gt;
      return b_.CreateSub(gt, b_.CreateZExt(b_.CreateICmpSLT(a, zero), ty));
    }
    case OpKind::kNot:
      return b_.CreateNot(a);
    case OpKind::kExp:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, a);
    case OpKind::kSqrt:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a);
    case OpKind::kRsqrt:
      return b_.CreateFDiv(llvm::ConstantFP::get(ty, 1.0), b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a));
    case OpKind::kTanh:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::tanh, a);
    case OpKind::kLog:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::log, a);
    case OpKind::kLog2:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::log2, a);
    case OpKind::kRound:  // math.round or math.roundeven, as Pallas lowers lax.round_p
      return b_.CreateUnaryIntrinsic(op.RoundsToEven() ? llvm::Intrinsic::roundeven : llvm::Intrinsic::round, a);
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

llvm::Value* Emitter::Convert(llvm::Value* v, ElementType from, ElementType to) {
  if (from == to) return v;
  if (IsInt4(from)) return Convert(WidenInt4(v, from), Int4Compute(from), to);
  if (IsInt4(to)) {
    llvm::Value* wide = Convert(v, from, Int4Compute(to));
    if (IsFloat(from)) {  // saturate to the 4-bit range, as to the 8-bit one
      bool u = to == ElementType::kU4;
      llvm::Type* ty = wide->getType();
      wide = b_.CreateBinaryIntrinsic(u ? llvm::Intrinsic::umin : llvm::Intrinsic::smin, wide,
                                      llvm::ConstantInt::get(ty, u ? 15 : 7));
      if (!u) wide = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, wide, llvm::ConstantInt::get(ty, -8, true));
    }
    return NarrowInt4(wide, to);
  }
  llvm::Type* ty = v->getType()->getWithNewType(ElemTy(to));
  v = ToF32(v, from);  // 16-bit floats convert from f32 (exactly the same value)
  if (IsBool(to)) {
    // x -> i1 is x != 0, and float compares are ordered: NaN -> false
    // (sc-semantics.md §6.1: Pallas widens to f32 and compares with `one`).
    llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
    return IsFloat(from) ? b_.CreateFCmpONE(v, zero) : b_.CreateICmpNE(v, zero);
  }
  bool from_unsigned = IsUnsigned(from) || IsBool(from);
  if (IsFloat(from) && IsFloat(to)) return FromF32(v, to);
  if (IsFloat(from)) {
    // Truncate toward zero, saturate, NaN -> 0: exactly fpto[su]i.sat.
    return b_.CreateIntrinsic(IsUnsigned(to) ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat,
                              {ty, v->getType()}, {v});
  }
  if (IsFloat(to)) {
    // Through f32, as Pallas lowers it: an int32 -> bf16/f16 rounds twice.
    llvm::Type* f32 = v->getType()->getWithNewType(b_.getFloatTy());
    return FromF32(from_unsigned ? b_.CreateUIToFP(v, f32) : b_.CreateSIToFP(v, f32), to);
  }
  unsigned to_bits = ty->getScalarSizeInBits(), from_bits = v->getType()->getScalarSizeInBits();
  if (to_bits == from_bits) return v;
  if (to_bits < from_bits) return b_.CreateTrunc(v, ty);
  return from_unsigned ? b_.CreateZExt(v, ty) : b_.CreateSExt(v, ty);
}

absl::Status Emitter::Elementwise(
    const Op& op,
    const std::function<absl::StatusOr<llvm::Value*>(const std::vector<llvm::Value*>&, const Type&)>& compute,
    const ShadowFn& shadow, bool copies, llvm::Value* copies_when) {
  const Type& out = op.results[0]->type;
  // A small result of large operands (a cmp of 200 i32s is 200 bytes of i1) is
  // computed in chunks too, through a buffer.
  bool large_operand = std::any_of(op.operands.begin(), op.operands.end(),
                                   [](const Operand& o) { return o.is_value() && Large(o.value->type); });
  // Init check: only when some operand may be unwritten.
  bool shadows = std::any_of(op.operands.begin(), op.operands.end(), [&](const Operand& o) { return HasShadow(o); });
  llvm::Value* origin = nullptr;
  if (shadows) {
    for (const Operand& o : op.operands) origin = FirstOrigin({origin, OriginOf(o)});
    // (`copies_when`: an i1 that says at run time whether the op copies.)
    if (!copies) origin = copies_when != nullptr ? b_.CreateSelect(copies_when, origin, MarkComputed(origin))
                                                 : MarkComputed(origin);
  }
  // The operands' shadows, a scalar's splatted to a vector result.
  auto shadow_of = [&](const std::vector<llvm::Value*>& args, const std::vector<llvm::Value*>& shadow_args,
                       const Type& t) -> llvm::Value* {
    if (shadow) return shadow(args, shadow_args, t);
    llvm::Value* s = nullptr;
    for (llvm::Value* a : shadow_args) s = s == nullptr ? a : b_.CreateOr(s, a);
    return s;
  };
  if (!Large(out) && !large_operand) {
    std::vector<llvm::Value*> args, shadow_args;
    for (const Operand& o : op.operands) {
      args.push_back(ValueOf(o));
      if (shadows) shadow_args.push_back(o.type().is_vector() || !out.is_vector() ? ShadowOf(o) : Splat(ShadowOf(o), out));
    }
    absl::StatusOr<llvm::Value*> r = compute(args, out);
    if (!r.ok()) return r.status();
    Set(op.results[0], *r);
    if (shadows) SetShadow(op.results[0], shadow_of(args, shadow_args, out), origin, /*settle=*/shadow != nullptr);
    return absl::OkStatus();
  }
  llvm::Value* buffer = NewBuffer(out);
  llvm::Value* shadow_buffer = shadows ? NewShadowBuffer(out) : nullptr;
  absl::Status s = ForChunks(out.NumElements(), [&](llvm::Value* first, int64_t width) -> absl::Status {
    std::vector<llvm::Value*> args, shadow_args;
    for (const Operand& o : op.operands) {
      args.push_back(ChunkOf(o, first, width));
      if (shadows) shadow_args.push_back(ShadowChunkOf(o, first, width));
    }
    Type chunk = out.WithShape({width});
    absl::StatusOr<llvm::Value*> r = compute(args, chunk);
    if (!r.ok()) return r.status();
    StoreChunk(buffer, out.element(), first, *r);
    if (shadows) StoreChunk(shadow_buffer, ShadowElem(out.element()), first, shadow_of(args, shadow_args, chunk));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  SetFromBuffer(op.results[0], buffer);
  if (shadows) SetShadowFromBuffer(op.results[0], shadow_buffer, origin, /*settle=*/shadow != nullptr);
  return absl::OkStatus();
}

absl::Status Emitter::EmitElementwise(const Op& op) {
  const auto& ops = op.operands;
  switch (op.kind) {
    case OpKind::kCmp: {
      ElementType e = ops[0].type().element();
      static constexpr llvm::CmpInst::Predicate kFloat[] = {llvm::CmpInst::FCMP_OEQ, llvm::CmpInst::FCMP_ONE,
                                                            llvm::CmpInst::FCMP_OLT, llvm::CmpInst::FCMP_OLE,
                                                            llvm::CmpInst::FCMP_OGT, llvm::CmpInst::FCMP_OGE};
      static constexpr llvm::CmpInst::Predicate kSigned[] = {llvm::CmpInst::ICMP_EQ,  llvm::CmpInst::ICMP_NE,
                                                             llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_SLE,
                                                             llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_SGE};
      static constexpr llvm::CmpInst::Predicate kUnsigned[] = {llvm::CmpInst::ICMP_EQ,  llvm::CmpInst::ICMP_NE,
                                                               llvm::CmpInst::ICMP_ULT, llvm::CmpInst::ICMP_ULE,
                                                               llvm::CmpInst::ICMP_UGT, llvm::CmpInst::ICMP_UGE};
      int p = static_cast<int>(op.predicate);
      llvm::CmpInst::Predicate pred =
          IsFloat(e) ? kFloat[p] : (IsUnsigned(e) || IsBool(e)) ? kUnsigned[p] : kSigned[p];
      return Elementwise(
          op,
          [&](const std::vector<llvm::Value*>& a, const Type&) -> absl::StatusOr<llvm::Value*> {
            if (IsFloat(e)) return b_.CreateFCmp(pred, ToF32(a[0], e), ToF32(a[1], e));
            return b_.CreateICmp(pred, WidenInt4(a[0], e), WidenInt4(a[1], e));
          },
          [&](const std::vector<llvm::Value*>&, const std::vector<llvm::Value*>& s, const Type& t) {
            return Spread(b_.CreateOr(s[0], s[1]), ShadowTy(t));
          });
    }
    case OpKind::kSelect: {
      // A written condition picks an operand's bits as they are; an unwritten
      // one leaves unwritten every bit the operands may differ in.
      auto shadow = [&](const std::vector<llvm::Value*>& a, const std::vector<llvm::Value*>& s, const Type& t) {
        llvm::Type* ints = ShadowTy(t);
        llvm::Value* differ = b_.CreateXor(b_.CreateBitCast(a[1], ints), b_.CreateBitCast(a[2], ints));
        llvm::Value* unknown = b_.CreateOr(b_.CreateOr(s[1], s[2]), differ);
        llvm::Value* cond_unwritten = b_.CreateICmpNE(s[0], llvm::Constant::getNullValue(s[0]->getType()));
        return b_.CreateSelect(cond_unwritten, unknown, b_.CreateSelect(a[0], s[1], s[2]));
      };
      return Elementwise(
          op,
          [&](const std::vector<llvm::Value*>& a, const Type&) -> absl::StatusOr<llvm::Value*> {
            return b_.CreateSelect(a[0], a[1], a[2]);
          },
          // A copy when the whole condition is written (the interpreter's rule).
          shadow, /*copies=*/!HasShadow(ops[0]), HasShadow(ops[0]) ? b_.CreateNot(AnyShadow(ops[0])) : nullptr);
    }
    case OpKind::kClamp:
      return Elementwise(op, [&](const std::vector<llvm::Value*>& a, const Type& t) -> absl::StatusOr<llvm::Value*> {
        absl::StatusOr<llvm::Value*> lo = Binary(op, OpKind::kMax, a[1], a[0], t.element());
        if (!lo.ok()) return lo.status();
        return Binary(op, OpKind::kMin, *lo, a[2], t.element());
      });
    case OpKind::kFmuladd:  // arith.mulf then arith.addf: two roundings, as Pallas lowers it
      return Elementwise(op, [&](const std::vector<llvm::Value*>& a, const Type& t) -> absl::StatusOr<llvm::Value*> {
        absl::StatusOr<llvm::Value*> product = Binary(op, OpKind::kMul, a[0], a[1], t.element());
        if (!product.ok()) return product;
        return Binary(op, OpKind::kAdd, *product, a[2], t.element());
      });
    case OpKind::kConvert: {
      ElementType from = ops[0].type().element();
      return Elementwise(
          op,
          [&](const std::vector<llvm::Value*>& a, const Type& t) -> absl::StatusOr<llvm::Value*> {
            return Convert(a[0], from, t.element());
          },
          [&](const std::vector<llvm::Value*>&, const std::vector<llvm::Value*>& s, const Type& t) {
            return Spread(s[0], ShadowTy(t));
          });
    }
    case OpKind::kBitcast:
      return EmitBitcast(op);
    case OpKind::kAnd:
    case OpKind::kOr: {
      // A written 0 (and) or 1 (or) bit decides the result's bit whatever the
      // other operand's (MemorySanitizer's rule): `valid & (x > t)` is written
      // where `valid` is false.
      bool is_and = op.kind == OpKind::kAnd;
      auto shadow = [&](const std::vector<llvm::Value*>& a, const std::vector<llvm::Value*>& s, const Type& t) {
        llvm::Value* va = a[0]->getType() == s[0]->getType() ? a[0] : Splat(a[0], t);
        llvm::Value* vb = a[1]->getType() == s[1]->getType() ? a[1] : Splat(a[1], t);
        if (!is_and) {
          va = b_.CreateNot(va);
          vb = b_.CreateNot(vb);
        }
        return b_.CreateOr(b_.CreateOr(b_.CreateAnd(s[0], s[1]), b_.CreateAnd(va, s[1])), b_.CreateAnd(s[0], vb));
      };
      return Elementwise(
          op,
          [&](const std::vector<llvm::Value*>& a, const Type& t) -> absl::StatusOr<llvm::Value*> {
            return Binary(op, op.kind, a[0], a[1], t.element());
          },
          shadow);
    }
    default:
      break;
  }
  if (op.info().has(kTcOnly)) return Unsupported(kernel_, op, Cat("the TensorCore-only op ", op.name()));
  return Elementwise(op, [&](const std::vector<llvm::Value*>& a, const Type& t) -> absl::StatusOr<llvm::Value*> {
    return a.size() == 2 ? Binary(op, op.kind, a[0], a[1], t.element()) : Unary(op, a[0], t.element());
  });
}

llvm::Value* Emitter::AsBuffer(const Operand& o) {
  const Type& t = o.value->type;
  if (Large(t)) return BufferOf(o);
  llvm::Value* buffer = NewBuffer(t);
  llvm::Value* v = ValueOf(o);
  if (t.element() == ElementType::kI1) {
    v = b_.CreateZExt(v, llvm::FixedVectorType::get(b_.getInt8Ty(), static_cast<unsigned>(t.NumElements())));
  }
  b_.CreateStore(v, buffer);
  return buffer;
}

void Emitter::SetFromBuffer(const Value* result, llvm::Value* buffer) {
  const Type& t = result->type;
  if (Large(t)) {
    SetBuffer(result, buffer);
  } else {
    Set(result, LoadChunk(buffer, t.element(), I64(0), t.NumElements()));
  }
}

// slice and concat: shuffles of register values, or row copies between buffers
// when either side is large.
absl::Status Emitter::EmitShapeOp(const Op& op) {
  const auto& ops = op.operands;
  const Type& out = op.results[0]->type;
  bool large = Large(out);
  for (const Operand& o : ops) large = large || Large(o.value->type);
  llvm::Type* elem = BufferElemTy(out.element());
  uint64_t w = elem->getScalarSizeInBits() / 8;
  if (op.kind == OpKind::kSlice) {
    const Type& t = ops[0].value->type;
    auto lo = [&](int d) -> int64_t {
      return d < static_cast<int>(ops[0].index.size()) ? ops[0].index[d].lo.value_or(0) : 0;
    };
    if (!large) {
      // Each output element's row-major index, mapped back to the input.
      std::vector<int> mask;
      for (int64_t k = 0; k < out.NumElements(); ++k) {
        int64_t rem = k, src = 0, stride = 1;
        for (int d = t.rank() - 1; d >= 0; --d) {
          src += (rem % out.shape()[d] + lo(d)) * stride;
          rem /= out.shape()[d];
          stride *= t.shape()[d];
        }
        mask.push_back(static_cast<int>(src));
      }
      Set(op.results[0], b_.CreateShuffleVector(vals_[ops[0].value].value, mask));
      if (HasShadow(ops[0])) SetShadow(op.results[0], b_.CreateShuffleVector(ShadowOf(ops[0]), mask), OriginOf(ops[0]));
      return absl::OkStatus();
    }
    llvm::Value* src = AsBuffer(ops[0]);
    llvm::Value* dst = NewBuffer(out);
    bool shadows = HasShadow(ops[0]);
    llvm::Value* shadow_src = shadows ? ShadowAsBuffer(ops[0]) : nullptr;
    llvm::Value* shadow_dst = shadows ? NewShadowBuffer(out) : nullptr;
    int64_t row = out.shape().back();
    Loop(out.NumElements() / row, [&](llvm::Value* r) {
      // Output row r's first element in the input.
      llvm::Value* rem = r;
      llvm::Value* from = I64(lo(out.rank() - 1));
      int64_t stride = t.shape().back();
      for (int d = out.rank() - 2; d >= 0; --d) {
        llvm::Value* i = b_.CreateAdd(b_.CreateURem(rem, I64(out.shape()[d])), I64(lo(d)));
        from = b_.CreateAdd(from, b_.CreateMul(i, I64(stride)));
        rem = b_.CreateUDiv(rem, I64(out.shape()[d]));
        stride *= t.shape()[d];
      }
      b_.CreateMemCpy(b_.CreateGEP(elem, dst, b_.CreateMul(r, I64(row))), llvm::MaybeAlign(1),
                      b_.CreateGEP(elem, src, from), llvm::MaybeAlign(1), static_cast<uint64_t>(row) * w);
      if (shadows) {  // (the same bytes: a shadow's elements are as wide)
        b_.CreateMemCpy(b_.CreateGEP(elem, shadow_dst, b_.CreateMul(r, I64(row))), llvm::MaybeAlign(1),
                        b_.CreateGEP(elem, shadow_src, from), llvm::MaybeAlign(1), static_cast<uint64_t>(row) * w);
      }
    });
    SetFromBuffer(op.results[0], dst);
    if (shadows) SetShadowFromBuffer(op.results[0], shadow_dst, OriginOf(ops[0]));
    return absl::OkStatus();
  }
  // concat along `axis`: each operand's runs of len * inner elements land at
  // their offset in every run of the output.
  const Attribute* a = op.FindAttr("axis");
  int64_t axis = a != nullptr ? a->value.operand.int_value : 0;
  int64_t inner = 1;
  for (int d = static_cast<int>(axis) + 1; d < out.rank(); ++d) inner *= out.shape()[d];
  int64_t outer = out.NumElements() / (out.shape()[axis] * inner);
  llvm::Value* dst = NewBuffer(out);
  bool shadows = std::any_of(ops.begin(), ops.end(), [&](const Operand& o) { return HasShadow(o); });
  llvm::Value* shadow_dst = shadows ? NewShadowBuffer(out) : nullptr;
  llvm::Value* origin = nullptr;
  int64_t start = 0;
  for (const Operand& o : ops) {
    int64_t len = o.value->type.shape()[axis];
    llvm::Value* src = AsBuffer(o);
    llvm::Value* shadow_src = shadows ? ShadowAsBuffer(o) : nullptr;
    origin = FirstOrigin({origin, OriginOf(o)});
    int64_t begin = start;
    Loop(outer, [&](llvm::Value* i) {
      llvm::Value* to = b_.CreateAdd(b_.CreateMul(i, I64(out.shape()[axis] * inner)), I64(begin * inner));
      for (auto [d, sr] : {std::pair{dst, src}, std::pair{shadow_dst, shadow_src}}) {
        if (d == nullptr) continue;
        b_.CreateMemCpy(b_.CreateGEP(elem, d, to), llvm::MaybeAlign(1),
                        b_.CreateGEP(elem, sr, b_.CreateMul(i, I64(len * inner))), llvm::MaybeAlign(1),
                        static_cast<uint64_t>(len * inner) * w);
      }
    });
    start += len;
  }
  SetFromBuffer(op.results[0], dst);
  if (shadows) SetShadowFromBuffer(op.results[0], shadow_dst, origin, /*settle=*/false);
  return absl::OkStatus();
}

absl::Status Emitter::EmitValueOp(const Op& op) {
  const auto& ops = op.operands;
  switch (op.kind) {
    case OpKind::kConst: {
      const Type& t = op.results[0]->type;
      const ConstValue& c = op.constant;
      if (!t.is_vector()) {
        Set(op.results[0], LiteralConstant(c.elements[0], t.element()));
        return absl::OkStatus();
      }
      if (Large(t)) {
        // A list becomes a constant array; a splat is stored chunk by chunk.
        llvm::Value* buffer = NewBuffer(t);
        if (c.dense_list) {
          std::vector<llvm::Constant*> elems;
          for (const Operand& e : c.elements) {
            llvm::Constant* k = LiteralConstant(e, t.element());
            elems.push_back(t.element() == ElementType::kI1 ? llvm::ConstantInt::get(b_.getInt8Ty(), e.int_value != 0) : k);
          }
          auto* array_ty = llvm::ArrayType::get(BufferElemTy(t.element()), elems.size());
          auto* global = new llvm::GlobalVariable(module_, array_ty, true, llvm::GlobalValue::PrivateLinkage,
                                                  llvm::ConstantArray::get(array_ty, elems));
          CopyElements(buffer, global, t.element(), t.NumElements());
        } else {
          llvm::Constant* k = LiteralConstant(c.elements[0], t.element());
          absl::Status s = ForChunks(t.NumElements(), [&](llvm::Value* first, int64_t width) {
            StoreChunk(buffer, t.element(), first, b_.CreateVectorSplat(static_cast<unsigned>(width), k));
            return absl::OkStatus();
          });
          if (!s.ok()) return s;
        }
        SetBuffer(op.results[0], buffer);
        return absl::OkStatus();
      }
      if (!c.dense_list) {
        Set(op.results[0], llvm::ConstantVector::getSplat(
                               llvm::ElementCount::getFixed(static_cast<unsigned>(t.NumElements())),
                               LiteralConstant(c.elements[0], t.element())));
      } else {
        std::vector<llvm::Constant*> elems;
        for (const Operand& e : c.elements) elems.push_back(LiteralConstant(e, t.element()));
        Set(op.results[0], llvm::ConstantVector::get(elems));
      }
      return absl::OkStatus();
    }
    case OpKind::kIota: {
      const Type& t = op.results[0]->type;
      std::vector<llvm::Constant*> elems;
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        // 4-bit integers wrap (memory's form: the low nibble).
        uint64_t n = static_cast<uint64_t>(IsInt4(t.element()) ? i & 0x0F : i);
        elems.push_back(IsFloat(t.element()) ? llvm::ConstantFP::get(ElemTy(t.element()), static_cast<double>(i))
                                             : llvm::ConstantInt::get(ElemTy(t.element()), n));
      }
      Set(op.results[0], llvm::ConstantVector::get(elems));
      return absl::OkStatus();
    }
    case OpKind::kBroadcast:
      return Elementwise(
          op, [&](const std::vector<llvm::Value*>& a, const Type& t) -> absl::StatusOr<llvm::Value*> { return Splat(a[0], t); },
          nullptr, /*copies=*/true);
    case OpKind::kExtract:
    case OpKind::kInsert: {
      const Operand& vec = op.kind == OpKind::kExtract ? ops[0] : ops[1];
      const Type& t = vec.value->type;
      llvm::Value* flat = I64(0);
      int64_t stride = 1;
      int site = -1;
      for (int d = t.rank() - 1; d >= 0; --d) {
        llvm::Value* i = b_.CreateSExt(ValueOf(vec.index[d].start), b_.getInt64Ty());
        if (!llvm::isa<llvm::Constant>(i)) {
          if (site < 0) site = Site(op, Print(vec), vec.loc);
          i = CheckIndex(i, I64(t.shape()[d]), SCJIT_BOUNDS_INDEX, d, site);
        }
        flat = b_.CreateAdd(flat, b_.CreateMul(i, I64(stride)));
        stride *= t.shape()[d];
      }
      // Init check: the element's bits move with it (the vector's origin, or
      // for insert the element's first, as operands come).
      bool shadows = HasShadow(vec) || (op.kind == OpKind::kInsert && HasShadow(ops[0]));
      ElementType se = ShadowElem(t.element());
      llvm::Value* origin = op.kind == OpKind::kExtract ? OriginOf(vec) : FirstOrigin({OriginOf(ops[0]), OriginOf(vec)});
      if (Large(t)) {
        if (op.kind == OpKind::kExtract) {
          Set(op.results[0], LoadElement(BufferOf(vec), t.element(), flat));
          if (shadows) SetShadow(op.results[0], LoadElement(ShadowBufferOf(vec), se, flat), origin);
        } else {
          llvm::Value* buffer = NewBuffer(t);
          CopyElements(buffer, BufferOf(vec), t.element(), t.NumElements());
          StoreElement(buffer, t.element(), flat, ValueOf(ops[0]));
          SetBuffer(op.results[0], buffer);
          if (shadows) {
            llvm::Value* shadow = NewShadowBuffer(t);
            if (llvm::Value* from = ShadowBufferOf(vec)) {
              CopyElements(shadow, from, se, t.NumElements());
            } else {
              b_.CreateMemSet(shadow, b_.getInt8(0), static_cast<uint64_t>(t.NumElements() * std::max(1, ByteWidth(se))),
                              llvm::MaybeAlign(1));
            }
            StoreElement(shadow, se, flat, ShadowOf(ops[0]));
            SetShadowBuffer(op.results[0], shadow, origin);
          }
        }
        return absl::OkStatus();
      }
      llvm::Value* v = vals_[vec.value].value;
      Set(op.results[0], op.kind == OpKind::kExtract ? b_.CreateExtractElement(v, flat)
                                                     : b_.CreateInsertElement(v, ValueOf(ops[0]), flat));
      if (shadows) {
        llvm::Value* sv = ShadowOf(vec);
        if (op.kind == OpKind::kExtract) {
          llvm::Value* shadow = b_.CreateExtractElement(sv, flat);
          SetShadow(op.results[0], shadow, LaneOrigin(vec, origin, shadow, flat));
        } else {
          SetShadow(op.results[0], b_.CreateInsertElement(sv, ShadowOf(ops[0]), flat), origin);
        }
      }
      return absl::OkStatus();
    }
    case OpKind::kSlice:
    case OpKind::kConcat:
      return EmitShapeOp(op);
    case OpKind::kPack:
      return EmitPack(op);
    case OpKind::kUnpack:
      return EmitUnpack(op);
    case OpKind::kReshape: {
      // Values are row-major and flat: a reshape keeps the same elements (and bits).
      Val same = vals_[ops[0].value];
      vals_[op.results[0]] = std::move(same);
      return absl::OkStatus();
    }
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

}  // namespace scjit::emit
