// Tests for runtime/half.h: float <-> bfloat16 / float16 conversions.
#include "runtime/half.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace scjit {
namespace {

uint32_t Bits(float f) { return std::bit_cast<uint32_t>(f); }
float FromBits(uint32_t b) { return std::bit_cast<float>(b); }

bool IsBf16Nan(uint16_t h) { return (h & 0x7F80) == 0x7F80 && (h & 0x007F) != 0; }
bool IsF16Nan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }

// The value of a float16 bit pattern, computed independently of the code under
// test (in double, from the definition of the format).
double F16Value(uint16_t h) {
  int sign = h >> 15;
  int exp = (h >> 10) & 0x1F;
  int mant = h & 0x3FF;
  double magnitude;
  if (exp == 0x1F) {
    magnitude = mant == 0 ? std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::quiet_NaN();
  } else if (exp == 0) {
    magnitude = std::ldexp(mant, -24);
  } else {
    magnitude = std::ldexp(1024 + mant, exp - 25);
  }
  return sign ? -magnitude : magnitude;
}

// Reference float16 rounding: the nearest of all finite float16 values, ties
// to the even bit pattern, and inf at or beyond 65520 (where the next, 65536,
// would be).
uint16_t ReferenceF16(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(x);
  if (a >= 65520.0) return sign | 0x7C00;
  // Binary search the largest pattern whose value is <= a.
  uint16_t lo = 0, hi = 0x7BFF;
  while (lo < hi) {
    uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
    if (F16Value(mid) <= a) {
      lo = mid;
    } else {
      hi = static_cast<uint16_t>(mid - 1);
    }
  }
  if (lo == 0x7BFF) return sign | 0x7BFF;  // between 65504 and 65520
  double below = F16Value(lo);
  double above = F16Value(static_cast<uint16_t>(lo + 1));
  uint16_t pick;
  if (a - below < above - a) {
    pick = lo;
  } else if (a - below > above - a) {
    pick = static_cast<uint16_t>(lo + 1);
  } else {
    pick = (lo & 1) ? static_cast<uint16_t>(lo + 1) : lo;
  }
  return sign | pick;
}

TEST(Bf16Test, AllPatternsRoundTrip) {
  for (uint32_t i = 0; i <= 0xFFFF; ++i) {
    uint16_t h = static_cast<uint16_t>(i);
    float f = Bf16ToFloat(h);
    ASSERT_EQ(Bits(f), i << 16);
    uint16_t back = FloatToBf16(f);
    if (IsBf16Nan(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << i;
      ASSERT_TRUE(IsBf16Nan(back)) << std::hex << i;
      ASSERT_EQ(back & 0x8000, h & 0x8000) << std::hex << i;
      ASSERT_NE(back & 0x0040, 0) << "not quiet: " << std::hex << i;
    } else {
      ASSERT_EQ(back, h) << std::hex << i;
    }
  }
}

TEST(Bf16Test, TiesRoundToEven) {
  EXPECT_EQ(FloatToBf16(FromBits(0x3F808000)), 0x3F80);  // tie, 0x3F80 even
  EXPECT_EQ(FloatToBf16(FromBits(0x3F818000)), 0x3F82);  // tie, 0x3F82 even
  EXPECT_EQ(FloatToBf16(FromBits(0x3F808001)), 0x3F81);  // just above the tie
  EXPECT_EQ(FloatToBf16(FromBits(0x3F807FFF)), 0x3F80);  // just below
  EXPECT_EQ(FloatToBf16(FromBits(0xBF818000)), 0xBF82);  // negative tie
  EXPECT_EQ(FloatToBf16(FromBits(0x3F817FFF)), 0x3F81);
}

TEST(Bf16Test, EveryMidpointAndNeighbours) {
  // For every pair of adjacent finite bf16 values: the midpoint goes to the
  // even one, one float ulp either side goes to the nearer one.
  for (uint32_t h = 0; h < 0x7F7F; ++h) {
    for (uint32_t sign : {0u, 0x8000u}) {
      uint32_t mid = ((sign | h) << 16) | 0x8000;
      uint16_t even = (h & 1) ? static_cast<uint16_t>(sign | (h + 1)) : static_cast<uint16_t>(sign | h);
      ASSERT_EQ(FloatToBf16(FromBits(mid)), even) << std::hex << mid;
      ASSERT_EQ(FloatToBf16(FromBits(mid - 1)), sign | h) << std::hex << mid;
      ASSERT_EQ(FloatToBf16(FromBits(mid + 1)), sign | (h + 1)) << std::hex << mid;
    }
  }
}

TEST(Bf16Test, OverflowInfAndZeros) {
  EXPECT_EQ(FloatToBf16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(FloatToBf16(-std::numeric_limits<float>::max()), 0xFF80);
  EXPECT_EQ(FloatToBf16(FromBits(0x7F7F7FFF)), 0x7F7F);  // below the overflow tie
  EXPECT_EQ(FloatToBf16(FromBits(0x7F7F8000)), 0x7F80);  // tie to even: inf
  EXPECT_EQ(FloatToBf16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(FloatToBf16(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_EQ(FloatToBf16(0.0f), 0x0000);
  EXPECT_EQ(FloatToBf16(-0.0f), 0x8000);
  EXPECT_EQ(FloatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBf16(FromBits(0x00000001)), 0x0000);  // float denormal min
  EXPECT_EQ(FloatToBf16(FromBits(0x00008000)), 0x0000);  // tie to even zero
  EXPECT_EQ(FloatToBf16(FromBits(0x00018000)), 0x0002);  // tie to even 2
}

TEST(Bf16Test, NanStaysQuietNan) {
  EXPECT_EQ(FloatToBf16(FromBits(0x7FC00000)), 0x7FC0);
  EXPECT_EQ(FloatToBf16(FromBits(0xFFC00000)), 0xFFC0);
  // Signaling NaN whose payload is only in the dropped bits: still NaN.
  EXPECT_EQ(FloatToBf16(FromBits(0x7F800001)), 0x7FC0);
  EXPECT_EQ(FloatToBf16(FromBits(0x7F810000)), 0x7FC1);
  // Payload that would carry into the exponent when rounded.
  EXPECT_EQ(FloatToBf16(FromBits(0x7FFFFFFF)), 0x7FFF);
}

TEST(F16Test, AllPatternsWidenExactly) {
  for (uint32_t i = 0; i <= 0xFFFF; ++i) {
    uint16_t h = static_cast<uint16_t>(i);
    float f = F16ToFloat(h);
    double want = F16Value(h);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << i;
      ASSERT_EQ(std::signbit(f), (i & 0x8000) != 0);
    } else {
      ASSERT_EQ(static_cast<double>(f), want) << std::hex << i;
      ASSERT_EQ(std::signbit(f), (i & 0x8000) != 0) << std::hex << i;
    }
  }
}

TEST(F16Test, AllPatternsRoundTrip) {
  for (uint32_t i = 0; i <= 0xFFFF; ++i) {
    uint16_t h = static_cast<uint16_t>(i);
    uint16_t back = FloatToF16(F16ToFloat(h));
    if (IsF16Nan(h)) {
      ASSERT_TRUE(IsF16Nan(back)) << std::hex << i;
      ASSERT_EQ(back & 0x8000, h & 0x8000);
      ASSERT_NE(back & 0x0200, 0) << "not quiet: " << std::hex << i;
      if (h & 0x0200) {
        ASSERT_EQ(back, h);  // quiet NaNs keep their payload
      }
    } else {
      ASSERT_EQ(back, h) << std::hex << i;
    }
  }
}

TEST(F16Test, EveryMidpointAndNeighbours) {
  // Midpoints between adjacent float16 values (including subnormals, and
  // 65504..65536 where the upper neighbour is inf) are exact floats.
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    for (uint32_t sign : {0u, 0x8000u}) {
      double lo = F16Value(static_cast<uint16_t>(h));
      double hi = h == 0x7BFF ? 65536.0 : F16Value(static_cast<uint16_t>(h + 1));
      float mid = static_cast<float>((lo + hi) / 2);
      ASSERT_EQ(static_cast<double>(mid), (lo + hi) / 2);
      if (sign) mid = -mid;
      uint16_t even = (h & 1) ? static_cast<uint16_t>(sign | (h + 1)) : static_cast<uint16_t>(sign | h);
      ASSERT_EQ(FloatToF16(mid), even) << std::hex << h;
      float toward_zero = std::nextafter(mid, 0.0f);
      float away = std::nextafter(mid, sign ? -INFINITY : INFINITY);
      ASSERT_EQ(FloatToF16(toward_zero), sign | h) << std::hex << h;
      ASSERT_EQ(FloatToF16(away), sign | (h + 1)) << std::hex << h;
    }
  }
}

TEST(F16Test, MatchesReferenceOnSampledFloats) {
  // About a million float bit patterns spread over the whole range.
  for (uint64_t b = 0; b <= 0xFFFFFFFFull; b += 4093) {
    float f = FromBits(static_cast<uint32_t>(b));
    if (std::isnan(f)) {
      ASSERT_TRUE(IsF16Nan(FloatToF16(f)));
      continue;
    }
    ASSERT_EQ(FloatToF16(f), ReferenceF16(f)) << std::hex << b;
  }
}

TEST(F16Test, Specials) {
  EXPECT_EQ(FloatToF16(0.0f), 0x0000);
  EXPECT_EQ(FloatToF16(-0.0f), 0x8000);
  EXPECT_EQ(FloatToF16(1.0f), 0x3C00);
  EXPECT_EQ(FloatToF16(-2.0f), 0xC000);
  EXPECT_EQ(FloatToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToF16(65519.996f), 0x7BFF);
  EXPECT_EQ(FloatToF16(65520.0f), 0x7C00);  // tie with 65536: even is inf
  EXPECT_EQ(FloatToF16(1e10f), 0x7C00);
  EXPECT_EQ(FloatToF16(-1e10f), 0xFC00);
  EXPECT_EQ(FloatToF16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(FloatToF16(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(FloatToF16(std::numeric_limits<float>::max()), 0x7C00);
}

TEST(F16Test, Subnormals) {
  EXPECT_EQ(FloatToF16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToF16(std::ldexp(1.0f, -25)), 0x0000);  // tie: even is 0
  EXPECT_EQ(FloatToF16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(FloatToF16(-std::ldexp(1.0f, -25)), 0x8000);
  EXPECT_EQ(FloatToF16(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 units
  EXPECT_EQ(FloatToF16(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 units: tie to 2
  EXPECT_EQ(FloatToF16(std::ldexp(5.0f, -25)), 0x0002);  // 2.5 units: tie to 2
  EXPECT_EQ(FloatToF16(std::ldexp(1023.0f, -24)), 0x03FF);  // largest subnormal
  EXPECT_EQ(FloatToF16(std::ldexp(2047.0f, -25)), 0x0400);  // tie: up to 2^-14
  EXPECT_EQ(FloatToF16(std::ldexp(1.0f, -14)), 0x0400);     // smallest normal
  EXPECT_EQ(FloatToF16(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(FloatToF16(FromBits(0x00000001)), 0x0000);
  EXPECT_EQ(F16ToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(F16ToFloat(0x83FF), -std::ldexp(1023.0f, -24));
}

TEST(F16Test, NanStaysQuietNan) {
  EXPECT_EQ(FloatToF16(FromBits(0x7FC00000)), 0x7E00);
  EXPECT_EQ(FloatToF16(FromBits(0xFFC00000)), 0xFE00);
  EXPECT_EQ(FloatToF16(FromBits(0x7F800001)), 0x7E00);  // payload only in low bits
  EXPECT_EQ(FloatToF16(FromBits(0x7F802000)), 0x7E01);
  EXPECT_TRUE(std::isnan(F16ToFloat(0x7C01)));
  EXPECT_TRUE(std::isnan(F16ToFloat(0xFE00)));
}

TEST(DoubleConversionTest, RoundsOnceFromDouble) {
  // 1 + 2^-8 is the midpoint between bf16 1.0 and 1 + 2^-7; a double just
  // above it rounds to float exactly onto the midpoint, so float-then-bf16
  // would tie to 1.0. Rounding once from the double gives the right answer.
  double above = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  double below = 1.0 + std::ldexp(1.0, -8) - std::ldexp(1.0, -30);
  EXPECT_EQ(FloatToBf16(static_cast<float>(above)), 0x3F80);  // double rounding
  EXPECT_EQ(DoubleToBf16(above), 0x3F81);
  EXPECT_EQ(DoubleToBf16(below), 0x3F80);
  EXPECT_EQ(DoubleToBf16(1.0 + std::ldexp(1.0, -8)), 0x3F80);        // exact tie
  EXPECT_EQ(DoubleToBf16(1.0 + std::ldexp(3.0, -8)), 0x3F82);        // exact tie
  EXPECT_EQ(DoubleToBf16(-(1.0 + std::ldexp(1.0, -8) + 1e-12)), 0xBF81);

  double f16_above = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(FloatToF16(static_cast<float>(f16_above)), 0x3C00);
  EXPECT_EQ(DoubleToF16(f16_above), 0x3C01);
  EXPECT_EQ(DoubleToF16(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  // Subnormal float16 from a double between two float16 subnormals.
  EXPECT_EQ(DoubleToF16(std::ldexp(1.0, -25) + std::ldexp(1.0, -60)), 0x0001);
  EXPECT_EQ(DoubleToF16(std::ldexp(1.0, -25)), 0x0000);
}

TEST(DoubleConversionTest, Extremes) {
  EXPECT_EQ(DoubleToBf16(1e300), 0x7F80);
  EXPECT_EQ(DoubleToBf16(-1e300), 0xFF80);
  EXPECT_EQ(DoubleToF16(1e300), 0x7C00);
  EXPECT_EQ(DoubleToBf16(1e-300), 0x0000);
  EXPECT_EQ(DoubleToBf16(-1e-300), 0x8000);
  EXPECT_EQ(DoubleToF16(-1e-300), 0x8000);
  EXPECT_EQ(DoubleToBf16(std::numeric_limits<double>::infinity()), 0x7F80);
  EXPECT_EQ(DoubleToF16(-std::numeric_limits<double>::infinity()), 0xFC00);
  EXPECT_TRUE(IsBf16Nan(DoubleToBf16(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_TRUE(IsF16Nan(DoubleToF16(std::numeric_limits<double>::quiet_NaN())));
  // Exactly representable values convert exactly.
  EXPECT_EQ(DoubleToBf16(0.765625), 0x3F44);
  EXPECT_EQ(DoubleToF16(65504.0), 0x7BFF);
  EXPECT_EQ(DoubleToF16(65520.0), 0x7C00);
  EXPECT_EQ(DoubleToF16(65519.999999), 0x7BFF);
  EXPECT_EQ(DoubleToBf16(0.1), 0x3DCD);
  EXPECT_EQ(DoubleToF16(0.1), 0x2E66);
}

TEST(DoubleConversionTest, RoundToOdd) {
  EXPECT_EQ(Bits(DoubleToFloatRoundToOdd(1.0)), 0x3F800000u);
  EXPECT_EQ(Bits(DoubleToFloatRoundToOdd(1.0 + 1e-12)), 0x3F800001u);
  EXPECT_EQ(Bits(DoubleToFloatRoundToOdd(-1.0 - 1e-12)), 0xBF800001u);
  // Just below 1.0 + 2 ulp: truncates to 1 + 1 ulp (already odd).
  EXPECT_EQ(Bits(DoubleToFloatRoundToOdd(1.0 + std::ldexp(2.0, -23) - 1e-15)), 0x3F800001u);
  EXPECT_EQ(Bits(DoubleToFloatRoundToOdd(1e300)), 0x7F7FFFFFu);
  EXPECT_EQ(Bits(DoubleToFloatRoundToOdd(1e-300)), 0x00000001u);
  EXPECT_EQ(Bits(DoubleToFloatRoundToOdd(-1e-300)), 0x80000001u);
  EXPECT_EQ(Bits(DoubleToFloatRoundToOdd(-0.0)), 0x80000000u);
}

}  // namespace
}  // namespace scjit
