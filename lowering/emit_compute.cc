// Value ops (kernel-ir.md §4.1): elementwise computation and conversions.
#include "lowering/emitter.h"
#include "lowering/printer.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "runtime/abi.h"

namespace scjit::emit {
// ------------------------------------------------------------------------------------
// Elementwise computation (kernel-ir.md §4.1).

absl::StatusOr<llvm::Value*> Emitter::Binary(const Op& op, OpKind kind, llvm::Value* a, llvm::Value* b,
                                             ElementType e) {
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
      llvm::Value* safe = b_.CreateSelect(b_.CreateOr(by_zero, overflow), llvm::ConstantInt::get(ty, 1), b);
      llvm::Value* q = div ? (is_unsigned ? b_.CreateUDiv(a, safe) : b_.CreateSDiv(a, safe))
                           : (is_unsigned ? b_.CreateURem(a, safe) : b_.CreateSRem(a, safe));
      // With the safe divisor 1: INT_MIN / 1 = INT_MIN and INT_MIN % 1 = 0, as wanted.
      return b_.CreateSelect(by_zero, div ? all_ones() : a, q);
    }
    case OpKind::kMin:
    case OpKind::kMax: {
      bool min = kind == OpKind::kMin;
      // Floats propagate NaN and order -0 < +0 (IEEE minimum/maximum).
      if (fp) return min ? b_.CreateMinimum(a, b) : b_.CreateMaximum(a, b);
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

absl::StatusOr<llvm::Value*> Emitter::Unary(const Op& op, llvm::Value* a, ElementType e) {
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
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

llvm::Value* Emitter::Convert(llvm::Value* v, ElementType from, const Type& to) {
  llvm::Type* ty = ValueTy(to);
  ElementType e = to.element();
  if (from == e) return v;
  if (IsBool(e)) {
    // x -> i1 is x != 0 (NaN != 0 too).
    if (IsFloat(from)) return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  bool from_unsigned = IsUnsigned(from) || IsBool(from);
  if (IsFloat(from) && IsFloat(e)) {
    return BitWidth(e) > BitWidth(from) ? b_.CreateFPExt(v, ty) : b_.CreateFPTrunc(v, ty);
  }
  if (IsFloat(from)) {
    // Truncate toward zero, saturate, NaN -> 0: exactly fpto[su]i.sat.
    return b_.CreateIntrinsic(IsUnsigned(e) ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat, {ty,
                              v->getType()}, {v});
  }
  if (IsFloat(e)) return from_unsigned ? b_.CreateUIToFP(v, ty) : b_.CreateSIToFP(v, ty);
  if (BitWidth(e) == BitWidth(from) || ty->getScalarSizeInBits() == v->getType()->getScalarSizeInBits()) return v;
  if (ty->getScalarSizeInBits() < v->getType()->getScalarSizeInBits()) return b_.CreateTrunc(v, ty);
  return from_unsigned ? b_.CreateZExt(v, ty) : b_.CreateSExt(v, ty);
}

absl::Status Emitter::EmitElementwise(const Op& op) {
  const auto& ops = op.operands;
  const Type& out = op.results[0]->type;
  switch (op.kind) {
    case OpKind::kCmp: {
      llvm::Value* a = ValueOf(ops[0]);
      llvm::Value* b = ValueOf(ops[1]);
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
      Set(op.results[0], IsFloat(e) ? b_.CreateFCmp(pred, a, b) : b_.CreateICmp(pred, a, b));
      return absl::OkStatus();
    }
    case OpKind::kSelect: {
      Set(op.results[0], b_.CreateSelect(ValueOf(ops[0]), ValueOf(ops[1]), ValueOf(ops[2])));
      return absl::OkStatus();
    }
    case OpKind::kClamp: {
      absl::StatusOr<llvm::Value*> lo = Binary(op, OpKind::kMax, ValueOf(ops[1]), ValueOf(ops[0]), out.element());
      if (!lo.ok()) return lo.status();
      absl::StatusOr<llvm::Value*> r = Binary(op, OpKind::kMin, *lo, ValueOf(ops[2]), out.element());
      if (!r.ok()) return r.status();
      Set(op.results[0], *r);
      return absl::OkStatus();
    }
    case OpKind::kConvert:
      Set(op.results[0], Convert(ValueOf(ops[0]), ops[0].type().element(), out));
      return absl::OkStatus();
    case OpKind::kBitcast:
      Set(op.results[0], b_.CreateBitCast(ValueOf(ops[0]), ValueTy(out)));
      return absl::OkStatus();
    default:
      break;
  }
  if (op.info().has(kTcOnly)) return Unsupported(kernel_, op, Cat("the TensorCore-only op ", op.name()));
  std::vector<llvm::Value*> args;
  for (const Operand& o : ops) args.push_back(ValueOf(o));
  absl::StatusOr<llvm::Value*> r = args.size() == 2 ? Binary(op, op.kind, args[0], args[1], out.element())
                                                    : Unary(op, args[0], out.element());
  if (!r.ok()) return r.status();
  Set(op.results[0], *r);
  return absl::OkStatus();
}

}  // namespace scjit::emit
