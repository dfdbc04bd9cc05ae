// The 8-bit floats: lowering/base/float8.h against the formats' definitions, and
// kernels of f8 types through the public API (constants, arithmetic in f32
// rounded after each op, conversions, a DMA add, debug_print, sort). The whole
// range against ml_dtypes is tests/python/test_export.py's
// float8_arithmetic_and_conversions.
#include "lowering/base/float8.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernel_runner.h"

namespace scjit {
namespace {

using E = ElementType;
constexpr E kTypes[] = {E::kF8E5M2, E::kF8E4M3FN, E::kF8E4M3B11FNUZ};

// The largest finite value, the smallest subnormal, and the pattern of 1.0, by
// each format's definition (e5m2: bias 15; e4m3fn: bias 7, S.1111.111 NaN;
// e4m3b11fnuz: bias 11, 0x80 the only NaN).
struct Facts {
  E type;
  double max;
  uint8_t max_bits;
  double tiny;
  uint8_t one;
};
constexpr Facts kFacts[] = {
    {E::kF8E5M2, 57344, 0x7B, 0x1p-16, 0x3C},
    {E::kF8E4M3FN, 448, 0x7E, 0x1p-9, 0x38},
    {E::kF8E4M3B11FNUZ, 30, 0x7F, 0x1p-13, 0x58},
};

TEST(Float8Test, FormatLandmarks) {
  for (const Facts& f : kFacts) {
    SCOPED_TRACE(std::string(IrName(f.type)));
    EXPECT_EQ(Float8ToFloat(f.max_bits, f.type), f.max);
    EXPECT_EQ(FloatToFloat8(f.max, f.type), f.max_bits);
    EXPECT_EQ(Float8ToFloat(0x01, f.type), f.tiny);
    EXPECT_EQ(FloatToFloat8(f.tiny, f.type), 0x01);
    EXPECT_EQ(FloatToFloat8(1.0, f.type), f.one);
    EXPECT_EQ(Float8ToFloat(f.one, f.type), 1.0);
    EXPECT_EQ(FloatToFloat8(-1.0, f.type), f.one | 0x80);
    // Half the smallest subnormal is a tie: to even, zero; a bit more rounds up.
    EXPECT_EQ(FloatToFloat8(f.tiny / 2, f.type), 0x00);
    EXPECT_EQ(FloatToFloat8(f.tiny * 0.75, f.type), 0x01);
  }
}

TEST(Float8Test, OverflowNanAndZeros) {
  // e5m2 has infinities: past max + half an ulp (61440) is inf.
  EXPECT_EQ(FloatToFloat8(61439, E::kF8E5M2), 0x7B);
  EXPECT_EQ(FloatToFloat8(61440, E::kF8E5M2), 0x7C);
  EXPECT_EQ(FloatToFloat8(-INFINITY, E::kF8E5M2), 0xFC);
  EXPECT_TRUE(std::isinf(Float8ToFloat(0x7C, E::kF8E5M2)));
  EXPECT_TRUE(std::isnan(Float8ToFloat(0x7D, E::kF8E5M2)));
  // e4m3fn: 464 is a tie between 448 and 480 (the NaN pattern): to even, 448;
  // above it NaN, and inf too.
  EXPECT_EQ(FloatToFloat8(464, E::kF8E4M3FN), 0x7E);
  EXPECT_EQ(FloatToFloat8(465, E::kF8E4M3FN), 0x7F);
  EXPECT_EQ(FloatToFloat8(-INFINITY, E::kF8E4M3FN), 0xFF);
  EXPECT_TRUE(std::isnan(Float8ToFloat(0xFF, E::kF8E4M3FN)));
  EXPECT_EQ(Float8ToFloat(0x78, E::kF8E4M3FN), 256);  // exponent all ones is a number
  // e4m3b11fnuz: no -0, no inf; 0x80 is NaN.
  EXPECT_EQ(FloatToFloat8(-0.0, E::kF8E4M3B11FNUZ), 0x00);
  EXPECT_EQ(FloatToFloat8(-1e-9, E::kF8E4M3B11FNUZ), 0x00);
  EXPECT_EQ(FloatToFloat8(1000, E::kF8E4M3B11FNUZ), 0x80);
  EXPECT_EQ(FloatToFloat8(NAN, E::kF8E4M3B11FNUZ), 0x80);
  EXPECT_TRUE(std::isnan(Float8ToFloat(0x80, E::kF8E4M3B11FNUZ)));
  EXPECT_EQ(FloatToFloat8(-0.0, E::kF8E5M2), 0x80);
}

// Every pattern that is a number converts back to itself.
TEST(Float8Test, EveryNumberRoundTrips) {
  for (E t : kTypes) {
    for (int b = 0; b < 256; ++b) {
      float v = Float8ToFloat(static_cast<uint8_t>(b), t);
      if (std::isnan(v)) continue;
      EXPECT_EQ(FloatToFloat8(v, t), b) << IrName(t) << " " << b;
    }
  }
}

// Arithmetic is in f32 rounded once per op; a constant rounds to nearest even;
// convert through f32; a DMA add sums in f32; debug_print shows the values.
TEST(Float8KernelTest, ComputeConvertAddAndPrint) {
  testing::Run run = testing::RunText(R"(kernel @k(in %x: hbm<16xf8e4m3fn>, out %o: hbm<1x16xf8e4m3fn>, out %w: vmem<16xf8e5m2>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%b: vmem<16xf8e4m3fn>, %row: vmem<1x16xf8e4m3fn>)
{
  copy %x -> %b
  %v = get %b : vector<16xf8e4m3fn>
  %k = const dense<1.1> : vector<16xf8e4m3fn>
  %m = mul %v, %k : vector<16xf8e4m3fn>
  %f = convert %m : vector<16xf32>
  %e = convert %f : vector<16xf8e5m2>
  store %w, %e
  store %b, %m
  debug_print "m" %m
  copy %b -> %o[0]
  %ids = const dense<0> : vector<1xi32>
  copy %b -> %row[0]
  copy %row -> %o[idx(%ids)] add
}
)",
                                      {{"x", std::vector<uint8_t>{0x38, 0x40, 0x44, 0x7E, 0xB8, 0x00, 0x01, 0x7F,
                                                                  0x30, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F}}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  // 1.1 is 1.125 (0x39); 1 * 1.125, 2 * 1.125 = 2.25, 3 * 1.125 = 3.375 -> 3.25 or
  // 3.5 (a tie: to even, 3.5), 448 * 1.125 -> NaN, -1.125, 0, tiny * 1.125 -> tiny,
  // ..., 1.875 * 1.125 = 2.109375 -> 2 (the grid steps by 0.25 above 2).
  EXPECT_EQ(run.log,
            "[core 0, subcore 0] m, data: f8e4m3fn[16]: 1.125, 2.25, 3.5, nan, -1.125, 0, 0.00195312, nan, 0.5625, "
            "1.25, 1.375, 1.5, 1.75, 1.875, 2, 2\n");
  // e5m2 keeps 2 mantissa bits: 1.125 -> 1 (tie to even), 2.25 -> 2, 3.5 -> 3.5.
  std::vector<uint8_t> w = run.params.at("w");
  EXPECT_EQ(w[0], 0x3C);
  EXPECT_EQ(w[1], 0x40);
  EXPECT_EQ(w[2], 0x43);
  EXPECT_EQ(w[3], 0x7E);  // NaN
  // o = m + m (the scatter-add of the row onto itself): 2.25, 4.5, 7, NaN, ...
  std::vector<uint8_t> o = run.params.at("o");
  EXPECT_EQ(Float8ToFloat(o[0], E::kF8E4M3FN), 2.25);
  EXPECT_EQ(Float8ToFloat(o[1], E::kF8E4M3FN), 4.5);
  EXPECT_EQ(Float8ToFloat(o[2], E::kF8E4M3FN), 7);
  EXPECT_TRUE(std::isnan(Float8ToFloat(o[3], E::kF8E4M3FN)));
  EXPECT_EQ(Float8ToFloat(o[4], E::kF8E4M3FN), -2.25);
}

// sort orders 8-bit float keys numerically (-0 == +0, NaN last).
// Mosaic's tpu.sort takes 32-bit keys only (JAX 0.12.1 and later say so first, SORT-10).
TEST(Float8KernelTest, SortKeysOf8BitsAreMosaicsError) {
  testing::Checked c = testing::Check(R"(kernel @k(in %x: vmem<16xf8e5m2>, out %o: vmem<16xf8e5m2>)
    mesh vector(cores = 1, subcores = 1)
{
  %v = get %x : vector<16xf8e5m2>
  %s = sort %v : vector<16xf8e5m2>
  store %o, %s
}
)");
  EXPECT_EQ(c.codes, std::vector<std::string>{"GEN-3"});
  EXPECT_NE(c.diagnostics.find("Error details: 'tpu.sort' op operand #0 must be vector of 32-bit signless integer or "
                               "32-bit float values, but got 'vector<16xf8E5M2>'\n"),
            std::string::npos)
      << c.diagnostics;
}

// Reductions and scans of 8-bit floats are not implemented yet: the compile says so.
TEST(Float8KernelTest, ReductionsAreNotImplementedYet) {
  testing::Run run = testing::RunText(R"(kernel @k(in %x: vmem<16xf8e5m2>, out %o: smem<1xf32>)
    mesh vector(cores = 1, subcores = 1)
{
  %v = get %x : vector<16xf8e5m2>
  %s = reduce_sum %v : f8e5m2
  %f = convert %s : f32
  store %o[0], %f
}
)");
  EXPECT_EQ(run.status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(run.status.message(), "not implemented yet: reduce_sum of f8e5m2 (reduce_sum at line 5, kernel @k)");
}

}  // namespace
}  // namespace scjit
