// Conversions between float/double and the 16-bit float formats bfloat16 and
// IEEE binary16 (float16), held as their bit patterns in uint16_t.
//
// Narrowing conversions round to nearest, ties to even (the hardware's rounding
// and what numpy/ml_dtypes do), overflow to ±inf, keep the sign of zero, produce
// correctly rounded float16 subnormals, and turn every NaN into a quiet NaN of
// the same sign that keeps the top payload bits. Widening conversions are exact
// (every bf16/f16 value is a float); NaN payloads carry over.
//
// The double variants round once, directly from the double (no double rounding
// through float), so a literal or an integer converts as if with infinite
// intermediate precision from the double.
#ifndef SCJIT_RUNTIME_HALF_H_
#define SCJIT_RUNTIME_HALF_H_

#include <bit>
#include <cstdint>

namespace scjit {

// bfloat16: 1 sign bit, 8 exponent bits (bias 127), 7 mantissa bits; the top
// half of a float.
uint16_t FloatToBf16(float f);
inline float Bf16ToFloat(uint16_t h) {
  return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}
uint16_t DoubleToBf16(double d);

// float16 (IEEE binary16): 1 sign bit, 5 exponent bits (bias 15), 10 mantissa
// bits; largest finite 65504, smallest subnormal 2^-24.
uint16_t FloatToF16(float f);
float F16ToFloat(uint16_t h);
uint16_t DoubleToF16(double d);

// `d` rounded to float with round-to-odd (truncate, then set the lowest mantissa
// bit if anything was lost). Rounding that result to nearest-even at 22 or fewer
// significand bits equals rounding `d` directly, which is how the double
// variants above avoid double rounding. Exposed for the JIT's constant folding.
float DoubleToFloatRoundToOdd(double d);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_HALF_H_
