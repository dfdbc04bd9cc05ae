#include "runtime/half.h"

#include <cmath>

namespace scjit {
namespace {

constexpr uint32_t kF32SignMask = 0x80000000u;
constexpr uint32_t kF32AbsMask = 0x7FFFFFFFu;
constexpr uint32_t kF32Inf = 0x7F800000u;

constexpr uint16_t kF16Inf = 0x7C00u;
constexpr uint16_t kF16QuietBit = 0x0200u;

}  // namespace

uint16_t FloatToBf16(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & kF32AbsMask) > kF32Inf) {
    // NaN: keep sign and top payload bits, force the quiet bit so that a
    // payload living only in the dropped low bits cannot turn into inf.
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  // Round to nearest even on the 16 dropped bits. A carry out of the mantissa
  // bumps the exponent, which is exactly the right result (up to inf).
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7FFFu + lsb;
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t FloatToF16(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((bits & kF32SignMask) >> 16);
  uint32_t abs = bits & kF32AbsMask;

  if (abs > kF32Inf) {  // NaN
    return static_cast<uint16_t>(sign | kF16Inf | kF16QuietBit | ((abs >> 13) & 0x3FFu));
  }
  if (abs >= 0x38800000u) {
    // |f| >= 2^-14: a normal float16 unless it rounds up to overflow. Rebias
    // the exponent (127 -> 15) and round the 13 dropped mantissa bits.
    if (abs >= 0x47800000u) return sign | kF16Inf;  // |f| >= 2^16 (or inf)
    uint32_t h = (abs - (112u << 23)) >> 13;
    uint32_t rem = abs & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    if (h >= kF16Inf) return sign | kF16Inf;
    return static_cast<uint16_t>(sign | h);
  }
  // |f| < 2^-14: a float16 subnormal (units of 2^-24) or zero. Anything at or
  // below 2^-25 (half the smallest subnormal; the tie goes to even, 0) is 0.
  if (abs <= 0x33000000u) return sign;
  uint32_t exp = abs >> 23;  // 102..112, always a normal float here
  uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
  uint32_t shift = 126u - exp;  // 14..24
  uint32_t h = mant >> shift;
  uint32_t rem = mant & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (h & 1u))) ++h;  // may become 0x400: 2^-14
  return static_cast<uint16_t>(sign | h);
}

float F16ToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1Fu) {  // inf or NaN: payload carries over
    return std::bit_cast<float>(sign | kF32Inf | (mant << 13));
  }
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    float magnitude = std::ldexp(static_cast<float>(mant), -24);
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

float DoubleToFloatRoundToOdd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || std::isinf(d)) return f;
  if (static_cast<double>(f) == d) return f;
  // Inexact: step back toward zero if the conversion rounded away from zero
  // (this also turns an overflow to inf into FLT_MAX), then mark the loss in
  // the lowest bit.
  // f is non-zero there, and decrementing the bit pattern of a non-zero float
  // moves it one step toward zero, keeping its sign.
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) --bits;
  return std::bit_cast<float>(bits | 1u);
}

uint16_t DoubleToBf16(double d) { return FloatToBf16(DoubleToFloatRoundToOdd(d)); }

uint16_t DoubleToF16(double d) { return FloatToF16(DoubleToFloatRoundToOdd(d)); }

}  // namespace scjit
