#include "jit/interp/elements.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "lowering/base/float8.h"
#include "runtime/half.h"

namespace scjit::interp {
namespace {

Bits Mask(int width) { return width >= 64 ? ~Bits{0} : (Bits{1} << width) - 1; }

bool IsUnsignedOrBool(ElementType e) { return IsUnsigned(e) || IsBool(e); }

template <typename F>
F FromBits(Bits b) {
  if constexpr (sizeof(F) == 4) {
    return std::bit_cast<float>(static_cast<uint32_t>(b));
  } else {
    return std::bit_cast<double>(b);
  }
}

template <typename F>
Bits ToBits(F f) {
  if constexpr (sizeof(F) == 4) {
    return std::bit_cast<uint32_t>(f);
  } else {
    return std::bit_cast<uint64_t>(f);
  }
}

template <typename F>
F Minimum(F a, F b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

template <typename F>
F Maximum(F a, F b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <typename F>
Bits FloatBinary(OpKind kind, Bits a_bits, Bits b_bits) {
  F a = FromBits<F>(a_bits), b = FromBits<F>(b_bits);
  switch (kind) {
    case OpKind::kAdd:
      return ToBits<F>(a + b);
    case OpKind::kSub:
      return ToBits<F>(a - b);
    case OpKind::kMul:
      return ToBits<F>(a * b);
    case OpKind::kDiv:
      return ToBits<F>(a / b);
    case OpKind::kRem:
      return ToBits<F>(std::fmod(a, b));
    case OpKind::kMin:
      return ToBits<F>(Minimum(a, b));
    case OpKind::kMax:
      return ToBits<F>(Maximum(a, b));
    default:
      return 0;  // the verifier allows no other op on floats
  }
}

template <typename F>
Bits FloatUnary(OpKind kind, Bits a_bits) {
  F a = FromBits<F>(a_bits);
  Bits sign = Bits{1} << (sizeof(F) * 8 - 1);
  switch (kind) {
    case OpKind::kNeg:  // fneg and fabs touch the sign bit alone, NaN or not
      return a_bits ^ sign;
    case OpKind::kAbs:
      return a_bits & ~sign;
    case OpKind::kSign:
      return ToBits<F>(a < 0 ? F(-1) : a > 0 ? F(1) : a);
    case OpKind::kExp:
      return ToBits<F>(std::exp(a));
    case OpKind::kSqrt:
      return ToBits<F>(std::sqrt(a));
    case OpKind::kRsqrt:
      return ToBits<F>(F(1) / std::sqrt(a));
    case OpKind::kTanh:
      return ToBits<F>(std::tanh(a));
    case OpKind::kLog:
      return ToBits<F>(std::log(a));
    case OpKind::kLog2:
      return ToBits<F>(std::log2(a));
    case OpKind::kRound:  // halves away from zero; RoundEven for the other method
      return ToBits<F>(std::round(a));
    default:
      return 0;
  }
}

// A float's value truncated toward zero and saturated to an integer of `width`
// bits (NaN: 0), as llvm.fpto[su]i.sat.
Bits SaturatingToInt(double x, int width, bool is_unsigned) {
  if (std::isnan(x)) return 0;
  double t = std::trunc(x);
  if (is_unsigned) {
    double limit = std::ldexp(1.0, width);  // 2^width
    if (t <= 0) return 0;
    if (t >= limit) return Mask(width);
    return static_cast<Bits>(t);
  }
  double limit = std::ldexp(1.0, width - 1);
  if (t <= -limit) return (Bits{1} << (width - 1)) & Mask(width);  // the minimum
  if (t >= limit) return Mask(width - 1);
  return static_cast<Bits>(static_cast<int64_t>(t)) & Mask(width);
}

}  // namespace

uint64_t LoadBits(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, static_cast<size_t>(bytes));  // little-endian host
  return v;
}

void StoreBits(uint8_t* p, int bytes, Bits bits) { std::memcpy(p, &bits, static_cast<size_t>(bytes)); }

int ComputeBits(ElementType e) { return IsBool(e) ? 1 : BitWidth(e); }

int64_t SignExtend(Bits bits, int width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  uint64_t sign = uint64_t{1} << (width - 1);
  bits &= Mask(width);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

Bits WidenInt4(Bits v, ElementType e) {
  if (e == ElementType::kU4) return v & 0x0F;
  if (e == ElementType::kI4) return static_cast<Bits>(SignExtend(v & 0x0F, 4)) & 0xFF;
  return v;
}

bool IsNarrowFloat(ElementType e) {
  return e == ElementType::kBF16 || e == ElementType::kF16 || IsFloat8(e);
}

float ToF32(Bits bits, ElementType e) {
  switch (e) {
    case ElementType::kBF16:
      return Bf16ToFloat(static_cast<uint16_t>(bits));
    case ElementType::kF16:
      return F16ToFloat(static_cast<uint16_t>(bits));
    case ElementType::kF32:
      return std::bit_cast<float>(static_cast<uint32_t>(bits));
    default:
      return Float8ToFloat(static_cast<uint8_t>(bits), e);
  }
}

Bits FromF32(float f, ElementType e) {
  switch (e) {
    case ElementType::kBF16:
      return FloatToBf16(f);
    case ElementType::kF16:
      return FloatToF16(f);
    case ElementType::kF32:
      return F32Bits(f);
    default:
      return FloatToFloat8(f, e);
  }
}

float FMinimum(float a, float b) { return Minimum(a, b); }
float FMaximum(float a, float b) { return Maximum(a, b); }

Bits Literal(const Operand& o, ElementType e) {
  if (IsFloat(e)) {
    double v = o.kind == Operand::Kind::kFloat ? o.float_value : static_cast<double>(o.int_value);
    switch (e) {
      case ElementType::kBF16:
        return DoubleToBf16(v);
      case ElementType::kF16:
        return DoubleToF16(v);
      case ElementType::kF32:
        return F32Bits(static_cast<float>(v));
      case ElementType::kF64:
        return std::bit_cast<uint64_t>(v);
      default:
        return FloatToFloat8(v, e);
    }
  }
  if (IsInt4(e)) return static_cast<Bits>(o.int_value) & 0x0F;  // memory's form
  return static_cast<Bits>(o.int_value) & Mask(ComputeBits(e));
}

// The high half of the double-width product, at the type's own width (4-bit
// integers included).
Bits MulHi(Bits a, Bits b, ElementType e) {
  int w = BitWidth(e);
  Bits mask = Mask(w);
  if (IsUnsigned(e)) return (((a & mask) * (b & mask)) >> w) & mask;
  return static_cast<Bits>((SignExtend(a, w) * SignExtend(b, w)) >> w) & mask;
}

Bits RoundEven(Bits a, ElementType e) {
  if (IsNarrowFloat(e)) return FromF32(std::nearbyint(ToF32(a, e)), e);  // the default mode: to nearest even
  if (e == ElementType::kF64) return ToBits<double>(std::nearbyint(FromBits<double>(a)));
  return ToBits<float>(std::nearbyint(FromBits<float>(a)));
}

Bits Binary(OpKind kind, Bits a, Bits b, ElementType e) {
  if (IsNarrowFloat(e)) {  // computed in f32, rounded once
    Bits r = Binary(kind, F32Bits(ToF32(a, e)), F32Bits(ToF32(b, e)), ElementType::kF32);
    return FromF32(std::bit_cast<float>(static_cast<uint32_t>(r)), e);
  }
  if (kind == OpKind::kMulhi) return MulHi(a, b, e);
  if (IsInt4(e)) return NarrowInt4(Binary(kind, WidenInt4(a, e), WidenInt4(b, e), Int4Compute(e)), e);
  if (e == ElementType::kF32) return FloatBinary<float>(kind, a, b);
  if (e == ElementType::kF64) return FloatBinary<double>(kind, a, b);
  int w = ComputeBits(e);
  Bits mask = Mask(w);
  bool is_unsigned = IsUnsignedOrBool(e);
  int64_t sa = SignExtend(a, w), sb = SignExtend(b, w);
  switch (kind) {
    case OpKind::kAdd:
      return (a + b) & mask;
    case OpKind::kSub:
      return (a - b) & mask;
    case OpKind::kMul:
      return (a * b) & mask;
    case OpKind::kDiv:
    case OpKind::kRem: {
      // XLA's definition: x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
      bool div = kind == OpKind::kDiv;
      if ((b & mask) == 0) return div ? mask : a & mask;
      if (is_unsigned) return (div ? (a & mask) / (b & mask) : (a & mask) % (b & mask)) & mask;
      bool overflow = (a & mask) == (Bits{1} << (w - 1)) && (b & mask) == mask;
      if (overflow) return div ? a & mask : 0;
      return static_cast<Bits>(div ? sa / sb : sa % sb) & mask;
    }
    case OpKind::kMin:
    case OpKind::kMax: {
      bool a_less = is_unsigned ? (a & mask) < (b & mask) : sa < sb;
      bool take_a = kind == OpKind::kMin ? a_less : !a_less;
      return (take_a ? a : b) & mask;
    }
    case OpKind::kAnd:
      return a & b & mask;
    case OpKind::kOr:
      return (a | b) & mask;
    case OpKind::kXor:
      return (a ^ b) & mask;
    case OpKind::kShl:
    case OpKind::kShr: {
      // Amounts >= the width (unsigned: negative amounts are huge) give 0, or
      // the sign fill for a signed shift right.
      bool big = (b & mask) >= static_cast<Bits>(w);
      if (kind == OpKind::kShl) return big ? 0 : ((a & mask) << (b & mask)) & mask;
      if (is_unsigned) return big ? 0 : (a & mask) >> (b & mask);
      if (big) return static_cast<Bits>(sa < 0 ? -1 : 0) & mask;
      return static_cast<Bits>(sa >> (b & mask)) & mask;
    }
    default:
      return 0;
  }
}

Bits Unary(OpKind kind, Bits a, ElementType e) {
  if (IsNarrowFloat(e)) {
    Bits r = Unary(kind, F32Bits(ToF32(a, e)), ElementType::kF32);
    return FromF32(std::bit_cast<float>(static_cast<uint32_t>(r)), e);
  }
  if (IsInt4(e)) return NarrowInt4(Unary(kind, WidenInt4(a, e), Int4Compute(e)), e);
  if (e == ElementType::kF32) return FloatUnary<float>(kind, a);
  if (e == ElementType::kF64) return FloatUnary<double>(kind, a);
  int w = ComputeBits(e);
  Bits mask = Mask(w);
  int64_t sa = SignExtend(a, w);
  switch (kind) {
    case OpKind::kNeg:
      return (~a + 1) & mask;
    case OpKind::kAbs:  // llvm.abs: INT_MIN stays INT_MIN
      if (IsUnsigned(e)) return a & mask;
      return sa < 0 ? (~a + 1) & mask : a & mask;
    case OpKind::kSign:
      if (IsUnsignedOrBool(e)) return (a & mask) != 0 ? 1 : 0;
      return static_cast<Bits>(static_cast<int64_t>(sa > 0) - static_cast<int64_t>(sa < 0)) & mask;
    case OpKind::kNot:
      return ~a & mask;
    default:
      return 0;
  }
}

bool Compare(CmpPredicate p, Bits a, Bits b, ElementType e) {
  if (IsFloat(e)) {
    // Ordered compares: false whenever either side is NaN.
    double x = e == ElementType::kF64 ? FromBits<double>(a) : ToF32(a, e);
    double y = e == ElementType::kF64 ? FromBits<double>(b) : ToF32(b, e);
    switch (p) {
      case CmpPredicate::kEq:
        return x == y;
      case CmpPredicate::kNe:
        return x < y || x > y;
      case CmpPredicate::kLt:
        return x < y;
      case CmpPredicate::kLe:
        return x <= y;
      case CmpPredicate::kGt:
        return x > y;
      case CmpPredicate::kGe:
        return x >= y;
    }
    return false;
  }
  ElementType c = Int4Compute(e);
  int w = ComputeBits(c);
  a = WidenInt4(a, e) & Mask(w);
  b = WidenInt4(b, e) & Mask(w);
  bool less, equal = a == b;
  if (IsUnsignedOrBool(e)) {
    less = a < b;
  } else {
    less = SignExtend(a, w) < SignExtend(b, w);
  }
  switch (p) {
    case CmpPredicate::kEq:
      return equal;
    case CmpPredicate::kNe:
      return !equal;
    case CmpPredicate::kLt:
      return less;
    case CmpPredicate::kLe:
      return less || equal;
    case CmpPredicate::kGt:
      return !less && !equal;
    case CmpPredicate::kGe:
      return !less;
  }
  return false;
}

Bits Convert(Bits v, ElementType from, ElementType to) {
  if (from == to) return v;
  if (IsInt4(from)) return Convert(WidenInt4(v, from), Int4Compute(from), to);
  if (IsInt4(to)) {
    Bits wide = Convert(v, from, Int4Compute(to));
    if (IsFloat(from)) {  // saturate to the 4-bit range, as to the 8-bit one
      if (to == ElementType::kU4) {
        wide = std::min<Bits>(wide & 0xFF, 15);
      } else {
        int64_t s = std::clamp<int64_t>(SignExtend(wide, 8), -8, 7);
        wide = static_cast<Bits>(s);
      }
    }
    return wide & 0x0F;
  }
  if (IsNarrowFloat(from)) {  // exactly the same value as f32
    v = F32Bits(ToF32(v, from));
    from = ElementType::kF32;
  }
  bool from_f64 = from == ElementType::kF64;
  if (IsBool(to)) {
    // x -> i1 is x != 0; float compares are ordered: NaN -> false.
    if (IsFloat(from)) {
      double x = from_f64 ? FromBits<double>(v) : FromBits<float>(v);
      return (x < 0 || x > 0) ? 1 : 0;
    }
    return (v & Mask(ComputeBits(from))) != 0 ? 1 : 0;
  }
  bool from_unsigned = IsUnsignedOrBool(from);
  if (IsFloat(from) && IsFloat(to)) {
    if (to == ElementType::kF64) return ToBits<double>(FromBits<float>(v));
    if (from_f64) return FromF32(static_cast<float>(FromBits<double>(v)), to);
    return FromF32(FromBits<float>(v), to);
  }
  if (IsFloat(from)) {
    // Truncate toward zero, saturate, NaN -> 0 (llvm.fpto[su]i.sat).
    double x = from_f64 ? FromBits<double>(v) : FromBits<float>(v);
    return SaturatingToInt(x, ComputeBits(to), IsUnsigned(to));
  }
  int from_bits = ComputeBits(from);
  if (IsFloat(to)) {
    // Through f32, as Pallas lowers it: an int32 -> bf16/f16 rounds twice.
    if (to == ElementType::kF64) {
      return ToBits<double>(from_unsigned ? static_cast<double>(v & Mask(from_bits))
                                          : static_cast<double>(SignExtend(v, from_bits)));
    }
    float f = from_unsigned ? static_cast<float>(v & Mask(from_bits)) : static_cast<float>(SignExtend(v, from_bits));
    return FromF32(f, to);
  }
  int to_bits = ComputeBits(to);
  if (to_bits <= from_bits) return v & Mask(to_bits);
  return (from_unsigned ? v & Mask(from_bits) : static_cast<Bits>(SignExtend(v, from_bits))) & Mask(to_bits);
}

}  // namespace scjit::interp
