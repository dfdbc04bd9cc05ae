#include "lowering/base/float8.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace scjit {
namespace {

// One format: field widths, exponent bias, and which codes are special.
struct Format {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool has_inf;       // IEEE-style: exponent all ones is inf (mantissa 0) or NaN
  bool nan_is_neg0;   // "fnuz": the pattern of -0 is the one NaN, and no inf
};

// e4m3fn ("finite"): no inf; only S.1111.111 is NaN.
Format FormatOf(ElementType t) {
  switch (t) {
    case ElementType::kF8E5M2: return {5, 2, 15, true, false};
    case ElementType::kF8E4M3FN: return {4, 3, 7, false, false};
    default: return {4, 3, 11, false, true};  // kF8E4M3B11FNUZ
  }
}

// The largest exponent field of a finite number, and the largest mantissa at it.
int MaxExponentField(const Format& f) { return (1 << f.exponent_bits) - (f.has_inf ? 2 : 1); }
int MaxMantissaAtTop(const Format& f) {
  int all = (1 << f.mantissa_bits) - 1;
  return f.has_inf || f.nan_is_neg0 ? all : all - 1;  // e4m3fn: S.1111.111 is NaN
}

}  // namespace

bool IsFloat8(ElementType t) {
  return t == ElementType::kF8E5M2 || t == ElementType::kF8E4M3FN || t == ElementType::kF8E4M3B11FNUZ;
}

uint8_t Float8NaN(ElementType t) {
  Format f = FormatOf(t);
  if (f.nan_is_neg0) return 0x80;
  return f.has_inf ? 0x7E : 0x7F;  // e5m2: exponent all ones, top mantissa bit (quiet)
}

float Float8ToFloat(uint8_t bits, ElementType t) {
  Format f = FormatOf(t);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (f.nan_is_neg0 && bits == 0x80) return nan;
  bool negative = (bits & 0x80) != 0;
  int exponent = (bits >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  float magnitude;
  if (f.has_inf && exponent == (1 << f.exponent_bits) - 1) {
    magnitude = mantissa == 0 ? std::numeric_limits<float>::infinity() : nan;
  } else if (!f.has_inf && !f.nan_is_neg0 && exponent == (1 << f.exponent_bits) - 1 &&
             mantissa == (1 << f.mantissa_bits) - 1) {
    magnitude = nan;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), 1 - f.bias - f.mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa + (1 << f.mantissa_bits)), exponent - f.bias - f.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

uint8_t FloatToFloat8(double x, ElementType t) {
  Format f = FormatOf(t);
  if (std::isnan(x)) return f.nan_is_neg0 ? 0x80 : static_cast<uint8_t>((std::signbit(x) ? 0x80 : 0) | Float8NaN(t));
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  uint8_t overflow = f.has_inf ? static_cast<uint8_t>(sign | (MaxExponentField(f) + 1) << f.mantissa_bits)
                     : f.nan_is_neg0 ? 0x80
                                     : static_cast<uint8_t>(sign | 0x7F);
  double a = std::fabs(x);
  if (std::isinf(a)) return overflow;
  // The quantum (ulp) at a's binade, never below the subnormals' one; a / quantum
  // is exact (a power of two scaling), and nearbyint rounds it to nearest even.
  int min_exponent = 1 - f.bias;
  int exponent = a == 0 ? min_exponent : std::max(std::ilogb(a), min_exponent);
  double q = std::nearbyint(std::ldexp(a, f.mantissa_bits - exponent));
  if (q >= std::ldexp(1.0, f.mantissa_bits + 1)) {  // rounded up into the next binade
    q /= 2;
    ++exponent;
  }
  int code;
  if (q < std::ldexp(1.0, f.mantissa_bits)) {  // a subnormal (or zero)
    code = static_cast<int>(q);
  } else {
    int field = exponent + f.bias;
    int mantissa = static_cast<int>(q) - (1 << f.mantissa_bits);
    if (field > MaxExponentField(f) || (field == MaxExponentField(f) && mantissa > MaxMantissaAtTop(f))) {
      return overflow;
    }
    code = (field << f.mantissa_bits) | mantissa;
  }
  if (code == 0 && f.nan_is_neg0) return 0;  // no -0
  return static_cast<uint8_t>(sign | code);
}

}  // namespace scjit
