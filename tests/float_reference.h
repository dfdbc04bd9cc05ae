// Reference float formats for tests, written from IEEE 754's definitions (the
// nearest representable value, ties to an even mantissa, overflow to inf), not
// with runtime/half.*: what f32, bf16 and f16 bit patterns mean, and rounding
// to them.
#ifndef SCJIT_TESTS_FLOAT_REFERENCE_H_
#define SCJIT_TESTS_FLOAT_REFERENCE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace scjit::testing {

// A binary float format of `bits` bits: `mant` stored mantissa bits, exponent
// bias `emax` (the largest exponent; the smallest normal one is 1 - emax).
struct FloatFormat {
  int bits, mant, emax;
  int ebits() const { return bits - 1 - mant; }
  uint32_t inf() const { return ((1u << ebits()) - 1) << mant; }
};
inline constexpr FloatFormat kF32Format{32, 23, 127};
inline constexpr FloatFormat kBf16Format{16, 7, 127};
inline constexpr FloatFormat kF16Format{16, 10, 15};

inline bool IsNanBits(FloatFormat f, uint32_t b) {
  return (b & f.inf()) == f.inf() && (b & ((1u << f.mant) - 1)) != 0;
}

// The value of a bit pattern (exact in a double).
inline double FloatValue(FloatFormat f, uint32_t b) {
  uint32_t e = (b & f.inf()) >> f.mant, m = b & ((1u << f.mant) - 1);
  double sign = (b >> (f.bits - 1)) & 1 ? -1.0 : 1.0;
  if (e == (1u << f.ebits()) - 1) return m ? std::nan("") : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(static_cast<double>(m), 1 - f.emax - f.mant);
  return sign * std::ldexp(static_cast<double>(m + (1u << f.mant)), static_cast<int>(e) - f.emax - f.mant);
}

// `x` rounded to format `f`: the nearest value, ties to the even mantissa, ±inf
// at and past 2^(emax+1) after rounding. NaN gives the quiet NaN of x's sign.
inline uint32_t RoundToFormat(FloatFormat f, double x) {
  uint32_t sign = std::signbit(x) ? 1u << (f.bits - 1) : 0;
  if (std::isnan(x)) return sign | f.inf() | (1u << (f.mant - 1));
  double a = std::fabs(x);
  if (std::isinf(a)) return sign | f.inf();
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);                         // a in [2^(e-1), 2^e)
  int exp = std::max(e - 1, 1 - f.emax);     // subnormals share the smallest exponent
  double q = std::ldexp(1.0, exp - f.mant);  // the spacing of values near a
  double r = std::nearbyint(a / q) * q;      // ties to even (the default rounding mode)
  if (r >= std::ldexp(1.0, f.emax + 1)) return sign | f.inf();
  if (r < std::ldexp(1.0, 1 - f.emax)) return sign | static_cast<uint32_t>(r / q);  // subnormal
  std::frexp(r, &e);
  uint32_t m = static_cast<uint32_t>(std::ldexp(r, f.mant - (e - 1))) - (1u << f.mant);
  return sign | (static_cast<uint32_t>(e - 1 + f.emax) << f.mant) | m;
}

}  // namespace scjit::testing

#endif  // SCJIT_TESTS_FLOAT_REFERENCE_H_
