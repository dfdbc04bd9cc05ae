// Tests for runtime/generators.h: the `--in NAME=SOURCE` input generators.
#include "runtime/generators.h"

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/base/diagnostic.h"
#include "runtime/half.h"
#include "runtime/npy.h"

namespace scjit {
namespace {

const ElementType kAllTypes[] = {
#define SCJIT_DTYPE(Enum, ...) ElementType::Enum,
#include "scjit/dtype.def"
};

// The array `spec` generates, as CheckGenerator sizes it and GenerateInto fills it.
absl::StatusOr<NpyArray> GenerateArray(std::string_view spec, ElementType t, const Shape& shape) {
  absl::StatusOr<int64_t> count = CheckGenerator(spec, t, shape);
  if (!count.ok()) return count.status();
  NpyArray a;
  a.dtype = t;
  a.shape = shape;
  a.data.assign(static_cast<size_t>(*count * ByteWidth(t)), 0xAA);  // every byte is written
  if (absl::Status s = GenerateInto(spec, t, shape, a.data.data()); !s.ok()) return s;
  return a;
}

NpyArray Gen(std::string_view spec, ElementType t, const Shape& shape) {
  absl::StatusOr<NpyArray> r = GenerateArray(spec, t, shape);
  EXPECT_TRUE(r.ok()) << spec << ": " << r.status();
  if (!r.ok()) return NpyArray{};
  EXPECT_EQ(r->dtype, t);
  EXPECT_EQ(r->shape, shape);
  EXPECT_EQ(static_cast<int64_t>(r->data.size()), r->NumBytes());
  return *std::move(r);
}

// Element i of `a` as an unsigned bit pattern.
uint64_t At(const NpyArray& a, int64_t i) {
  int w = ByteWidth(a.dtype);
  uint64_t v = 0;
  for (int b = 0; b < w; ++b) v |= uint64_t{a.data[i * w + b]} << (8 * b);
  return v;
}

std::vector<uint64_t> All(const NpyArray& a) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < a.NumElements(); ++i) out.push_back(At(a, i));
  return out;
}

int64_t AsSigned(uint64_t bits, int width_bits) {
  if (width_bits == 64) return static_cast<int64_t>(bits);
  uint64_t sign = uint64_t{1} << (width_bits - 1);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

uint64_t F32(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t F64(double d) { return std::bit_cast<uint64_t>(d); }

std::string Error(std::string_view spec, ElementType t, const Shape& shape = {4}) {
  absl::StatusOr<NpyArray> r = GenerateArray(spec, t, shape);
  if (r.ok()) return "OK";
  EXPECT_EQ(DiagnosticCode(r.status()), "IO-USAGE");
  return std::string(r.status().message());
}

std::string Usage(std::string_view message) {
  return "error[IO-USAGE]: " + std::string(message) + "\nhelp: run `jit-run --help` for the options";
}

TEST(GeneratorsTest, IsGeneratorSpec) {
  for (const char* s : {"zeros", "ones", "iota", "random", "random:7", "randint:0:10", "randint",
                        "fill:1", "fill", "randint:5", "iota:3"}) {
    EXPECT_TRUE(IsGeneratorSpec(s)) << s;
  }
  for (const char* s : {"", "x.npy", "zeros.npy", "./zeros", "Zeros", "random.npy", "C:\\in.npy",
                        "/tmp/iota", " iota", "filler:1"}) {
    EXPECT_FALSE(IsGeneratorSpec(s)) << s;
  }
}

TEST(GeneratorsTest, ZerosAndOnes) {
  for (ElementType t : kAllTypes) {
    NpyArray z = Gen("zeros", t, {3, 2});
    EXPECT_EQ(z.data, std::vector<uint8_t>(6 * ByteWidth(t), 0)) << IrName(t);
  }
  EXPECT_EQ(All(Gen("ones", ElementType::kF32, {2})), (std::vector<uint64_t>{0x3F800000, 0x3F800000}));
  EXPECT_EQ(All(Gen("ones", ElementType::kBF16, {1})), (std::vector<uint64_t>{0x3F80}));
  EXPECT_EQ(All(Gen("ones", ElementType::kF16, {1})), (std::vector<uint64_t>{0x3C00}));
  EXPECT_EQ(All(Gen("ones", ElementType::kF64, {1})), (std::vector<uint64_t>{F64(1.0)}));
  EXPECT_EQ(All(Gen("ones", ElementType::kI1, {2})), (std::vector<uint64_t>{1, 1}));
  EXPECT_EQ(All(Gen("ones", ElementType::kI8, {1})), (std::vector<uint64_t>{1}));
  EXPECT_EQ(All(Gen("ones", ElementType::kU64, {1})), (std::vector<uint64_t>{1}));
}

TEST(GeneratorsTest, IotaIntegers) {
  EXPECT_EQ(All(Gen("iota", ElementType::kI32, {2, 3})), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5}));
  NpyArray i8 = Gen("iota", ElementType::kI8, {300});
  EXPECT_EQ(AsSigned(At(i8, 127), 8), 127);
  EXPECT_EQ(AsSigned(At(i8, 128), 8), -128);
  EXPECT_EQ(AsSigned(At(i8, 255), 8), -1);
  EXPECT_EQ(AsSigned(At(i8, 256), 8), 0);
  NpyArray u8 = Gen("iota", ElementType::kU8, {300});
  EXPECT_EQ(At(u8, 255), 255u);
  EXPECT_EQ(At(u8, 299), 43u);
  NpyArray i16 = Gen("iota", ElementType::kI16, {40000});
  EXPECT_EQ(AsSigned(At(i16, 32768), 16), -32768);
  EXPECT_EQ(AsSigned(At(i16, 39999), 16), 39999 - 65536);
  EXPECT_EQ(All(Gen("iota", ElementType::kI1, {5})), (std::vector<uint64_t>{0, 1, 0, 1, 0}));
  EXPECT_EQ(All(Gen("iota", ElementType::kU64, {3})), (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(All(Gen("iota", ElementType::kI32, {})), (std::vector<uint64_t>{0}));
  EXPECT_TRUE(Gen("iota", ElementType::kI32, {4, 0}).data.empty());
}

TEST(GeneratorsTest, IotaFloats) {
  NpyArray f32 = Gen("iota", ElementType::kF32, {4});
  EXPECT_EQ(All(f32), (std::vector<uint64_t>{F32(0), F32(1), F32(2), F32(3)}));
  EXPECT_EQ(All(Gen("iota", ElementType::kF64, {3})), (std::vector<uint64_t>{F64(0), F64(1), F64(2)}));
  NpyArray f16 = Gen("iota", ElementType::kF16, {65530});
  EXPECT_EQ(At(f16, 1), 0x3C00u);
  EXPECT_EQ(At(f16, 2048), 0x6800u);
  EXPECT_EQ(At(f16, 2049), 0x6800u);  // tie between 2048 and 2050: even
  EXPECT_EQ(At(f16, 2051), 0x6802u);  // tie between 2050 and 2052: even
  EXPECT_EQ(At(f16, 65504), 0x7BFFu);
  EXPECT_EQ(At(f16, 65519), 0x7BFFu);
  EXPECT_EQ(At(f16, 65520), 0x7C00u);  // inf
  NpyArray bf16 = Gen("iota", ElementType::kBF16, {300});
  EXPECT_EQ(At(bf16, 3), 0x4040u);
  EXPECT_EQ(At(bf16, 256), 0x4380u);
  EXPECT_EQ(At(bf16, 257), 0x4380u);  // tie: 256
  EXPECT_EQ(At(bf16, 259), 0x4382u);  // tie: 260
  EXPECT_EQ(At(bf16, 258), 0x4381u);
}

TEST(GeneratorsTest, RandomIsSplitMix64) {
  // splitmix64 from state 0: e220a8397b1dcdaf 6e789e6aa1b965f4 06c45d188009454f.
  std::vector<uint64_t> want = {0xE220A8397B1DCDAFull, 0x6E789E6AA1B965F4ull,
                                0x06C45D188009454Full};
  EXPECT_EQ(All(Gen("random", ElementType::kU64, {3})), want);
  EXPECT_EQ(All(Gen("random:0", ElementType::kU64, {3})), want);
  EXPECT_EQ(All(Gen("random", ElementType::kI32, {3})),
            (std::vector<uint64_t>{0x7B1DCDAF, 0xA1B965F4, 0x8009454F}));
  EXPECT_EQ(All(Gen("random:42", ElementType::kU32, {3})),
            (std::vector<uint64_t>{0x2FEB6E95, 0xB266F103, 0x130F9F52}));
  NpyArray i8 = Gen("random", ElementType::kI8, {4});
  EXPECT_EQ(AsSigned(At(i8, 0), 8), -81);
  EXPECT_EQ(AsSigned(At(i8, 1), 8), -12);
  EXPECT_EQ(All(Gen("random", ElementType::kI1, {6})), (std::vector<uint64_t>{1, 0, 0, 1, 0, 0}));
}

TEST(GeneratorsTest, RandomFloats) {
  // k = draw >> (63 - p), value = k * 2^-p - 1.
  EXPECT_EQ(All(Gen("random", ElementType::kF32, {3})),
            (std::vector<uint64_t>{0x3F444150, 0xBE0C3B10, 0xBF727746}));
  EXPECT_EQ(All(Gen("random", ElementType::kBF16, {3})),
            (std::vector<uint64_t>{0x3F44, 0xBE10, 0xBF73}));
  EXPECT_EQ(All(Gen("random", ElementType::kF16, {3})),
            (std::vector<uint64_t>{0x3A22, 0xB064, 0xBB94}));
  EXPECT_EQ(At(Gen("random", ElementType::kF64, {1}), 0),
            F64(std::ldexp(static_cast<double>(0xE220A8397B1DCDAFull >> 10), -53) - 1.0));
  // Range and grid over many values, for every float type.
  for (ElementType t : {ElementType::kBF16, ElementType::kF16, ElementType::kF32}) {
    NpyArray a = Gen("random:7", t, {20000});
    double lo = 2, hi = -2;
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      uint64_t bits = At(a, i);
      double v = t == ElementType::kBF16  ? Bf16ToFloat(static_cast<uint16_t>(bits))
                 : t == ElementType::kF16 ? F16ToFloat(static_cast<uint16_t>(bits))
                                          : std::bit_cast<float>(static_cast<uint32_t>(bits));
      ASSERT_GE(v, -1.0);
      ASSERT_LT(v, 1.0);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_LT(lo, -0.99) << IrName(t);
    EXPECT_GT(hi, 0.99) << IrName(t);
  }
}

TEST(GeneratorsTest, Determinism) {
  for (ElementType t : kAllTypes) {
    for (const char* spec : {"random", "random:99", "randint:0:100:5", "iota"}) {
      // randint:0:100 fits neither bool nor the 4-bit types (Int4 below).
      if (std::string(spec).rfind("randint", 0) == 0 && (t == ElementType::kI1 || IsInt4(t))) continue;
      NpyArray a = Gen(spec, t, {17, 3});
      NpyArray b = Gen(spec, t, {17, 3});
      EXPECT_EQ(a.data, b.data) << spec;
    }
  }
  EXPECT_NE(Gen("random:1", ElementType::kI32, {8}).data, Gen("random:2", ElementType::kI32, {8}).data);
  // The stream does not depend on the shape, only on the element count.
  EXPECT_EQ(Gen("random:3", ElementType::kI32, {2, 6}).data, Gen("random:3", ElementType::kI32, {12}).data);
  EXPECT_EQ(Gen("random:18446744073709551615", ElementType::kU8, {4}).data.size(), 4u);
}

// int4/uint4: one byte each, the value in the low nibble; integers wrap modulo
// 16, random keeps the low 4 bits of each draw, fill and randint check the 4-bit range.
TEST(GeneratorsTest, Int4) {
  EXPECT_EQ(All(Gen("iota", ElementType::kI4, {18})),
            (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1}));
  EXPECT_EQ(All(Gen("fill:-1", ElementType::kI4, {2})), (std::vector<uint64_t>{0x0F, 0x0F}));
  NpyArray r = Gen("random:7", ElementType::kU4, {64});
  NpyArray r8 = Gen("random:7", ElementType::kU8, {64});
  for (size_t i = 0; i < r.data.size(); ++i) EXPECT_EQ(r.data[i], r8.data[i] & 0x0F) << i;
  std::vector<int> seen(16, 0);
  for (uint64_t v : All(Gen("randint:-8:8", ElementType::kI4, {1000}))) ++seen[v];
  for (int i = 0; i < 16; ++i) EXPECT_GT(seen[i], 0) << i;
  EXPECT_EQ(Error("randint:0:17", ElementType::kU4),
            Usage("invalid input generator 'randint:0:17': the range [0, 17) does not fit in "
                  "uint4 (0 to 15)"));
  EXPECT_EQ(Error("fill:8", ElementType::kI4),
            Usage("invalid input generator 'fill:8': 8 does not fit in int4 (-8 to 7)"));
}

TEST(GeneratorsTest, Randint) {
  EXPECT_EQ(All(Gen("randint:0:10", ElementType::kI32, {8})),
            (std::vector<uint64_t>{5, 0, 9, 4, 7, 0, 3, 0}));
  NpyArray a = Gen("randint:-5:5:42", ElementType::kI32, {8});
  std::vector<int64_t> got;
  for (uint64_t v : All(a)) got.push_back(AsSigned(v, 32));
  EXPECT_EQ(got, (std::vector<int64_t>{-2, -4, 3, -1, -5, -3, 0, 3}));
  // The bounds are inclusive-exclusive and every value is reached.
  NpyArray b = Gen("randint:-128:128", ElementType::kI8, {5000});
  std::vector<int> seen(256, 0);
  for (uint64_t v : All(b)) ++seen[v];
  for (int i = 0; i < 256; ++i) EXPECT_GT(seen[i], 0) << i;
  NpyArray c = Gen("randint:3:4", ElementType::kU16, {5});
  EXPECT_EQ(All(c), (std::vector<uint64_t>{3, 3, 3, 3, 3}));
  // Full 64-bit ranges use the raw draws.
  EXPECT_EQ(At(Gen("randint:0:18446744073709551616", ElementType::kU64, {1}), 0),
            0xE220A8397B1DCDAFull);
  EXPECT_EQ(At(Gen("randint:-9223372036854775808:9223372036854775808", ElementType::kI64, {1}), 0),
            0xE220A8397B1DCDAFull ^ 0x8000000000000000ull);
  // 2^64 is a multiple of 2: no redraws, and the value is the draw's low bit.
  EXPECT_EQ(All(Gen("randint:0:2", ElementType::kI1, {6})), (std::vector<uint64_t>{1, 0, 1, 0, 1, 0}));
  // Floats: the integers, converted.
  EXPECT_EQ(All(Gen("randint:0:10", ElementType::kF32, {3})),
            (std::vector<uint64_t>{F32(5), F32(0), F32(9)}));
  EXPECT_EQ(All(Gen("randint:0:10", ElementType::kBF16, {3})),
            (std::vector<uint64_t>{0x40A0, 0x0000, 0x4110}));
  NpyArray big = Gen("randint:1000000:1000001", ElementType::kBF16, {1});
  EXPECT_EQ(At(big, 0), DoubleToBf16(1000000.0));
  NpyArray huge = Gen("randint:-18446744073709551616:-18446744073709551615", ElementType::kF32, {1});
  EXPECT_EQ(At(huge, 0), F32(-18446744073709551616.0f));
  // Beyond 2^53 a double rounds to nearest even: 2^53 + 1 -> 2^53, 2^53 + 3 -> 2^53 + 4.
  EXPECT_EQ(At(Gen("fill:9007199254740993", ElementType::kF64, {1}), 0), F64(9007199254740992.0));
  EXPECT_EQ(At(Gen("fill:9007199254740995", ElementType::kF64, {1}), 0), F64(9007199254740996.0));
  // A float rounds once, from the integer (not twice through a double):
  // 2^54 + 2^30 + 1 is just above f32's halfway point 2^54 + 2^30.
  EXPECT_EQ(At(Gen("fill:18014399583223809", ElementType::kF32, {1}), 0), F32(18014400656965632.0f));
}

TEST(GeneratorsTest, Fill) {
  EXPECT_EQ(All(Gen("fill:-1", ElementType::kI16, {2})), (std::vector<uint64_t>{0xFFFF, 0xFFFF}));
  EXPECT_EQ(All(Gen("fill:+3", ElementType::kI32, {1})), (std::vector<uint64_t>{3}));
  EXPECT_EQ(All(Gen("fill:1e3", ElementType::kI32, {1})), (std::vector<uint64_t>{1000}));
  EXPECT_EQ(All(Gen("fill:-2.0", ElementType::kI8, {1})), (std::vector<uint64_t>{0xFE}));
  EXPECT_EQ(All(Gen("fill:255", ElementType::kU8, {1})), (std::vector<uint64_t>{0xFF}));
  EXPECT_EQ(All(Gen("fill:-128", ElementType::kI8, {1})), (std::vector<uint64_t>{0x80}));
  EXPECT_EQ(All(Gen("fill:18446744073709551615", ElementType::kU64, {1})),
            (std::vector<uint64_t>{0xFFFFFFFFFFFFFFFFull}));
  EXPECT_EQ(All(Gen("fill:-9223372036854775808", ElementType::kI64, {1})),
            (std::vector<uint64_t>{0x8000000000000000ull}));
  EXPECT_EQ(All(Gen("fill:1", ElementType::kI1, {2})), (std::vector<uint64_t>{1, 1}));
  EXPECT_EQ(All(Gen("fill:0", ElementType::kI1, {1})), (std::vector<uint64_t>{0}));
  EXPECT_EQ(All(Gen("fill:1.5", ElementType::kF32, {1})), (std::vector<uint64_t>{0x3FC00000}));
  EXPECT_EQ(All(Gen("fill:.5", ElementType::kF32, {1})), (std::vector<uint64_t>{0x3F000000}));
  EXPECT_EQ(All(Gen("fill:-0.0", ElementType::kF32, {1})), (std::vector<uint64_t>{0x80000000}));
  EXPECT_EQ(All(Gen("fill:-0", ElementType::kF32, {1})), (std::vector<uint64_t>{0}));
  EXPECT_EQ(All(Gen("fill:0.1", ElementType::kF32, {1})), (std::vector<uint64_t>{0x3DCCCCCD}));
  EXPECT_EQ(All(Gen("fill:0.1", ElementType::kBF16, {1})), (std::vector<uint64_t>{0x3DCD}));
  EXPECT_EQ(All(Gen("fill:0.1", ElementType::kF16, {1})), (std::vector<uint64_t>{0x2E66}));
  EXPECT_EQ(All(Gen("fill:0.1", ElementType::kF64, {1})), (std::vector<uint64_t>{F64(0.1)}));
  EXPECT_EQ(All(Gen("fill:nan", ElementType::kF32, {1})), (std::vector<uint64_t>{0x7FC00000}));
  EXPECT_EQ(All(Gen("fill:NaN", ElementType::kBF16, {1})), (std::vector<uint64_t>{0x7FC0}));
  EXPECT_EQ(All(Gen("fill:inf", ElementType::kF16, {1})), (std::vector<uint64_t>{0x7C00}));
  EXPECT_EQ(All(Gen("fill:-inf", ElementType::kBF16, {1})), (std::vector<uint64_t>{0xFF80}));
  EXPECT_EQ(All(Gen("fill:-Infinity", ElementType::kF32, {1})), (std::vector<uint64_t>{0xFF800000}));
  EXPECT_EQ(All(Gen("fill:65520", ElementType::kF16, {1})), (std::vector<uint64_t>{0x7C00}));
  EXPECT_EQ(All(Gen("fill:65519", ElementType::kF16, {1})), (std::vector<uint64_t>{0x7BFF}));
  EXPECT_EQ(All(Gen("fill:1e40", ElementType::kF32, {1})), (std::vector<uint64_t>{0x7F800000}));
  EXPECT_EQ(All(Gen("fill:1e-45", ElementType::kF32, {1})), (std::vector<uint64_t>{0x00000001}));
  EXPECT_EQ(All(Gen("fill:1e-400", ElementType::kF64, {1})), (std::vector<uint64_t>{0}));
  EXPECT_EQ(All(Gen("fill:16777217", ElementType::kF32, {1})), (std::vector<uint64_t>{F32(16777216.0f)}));
  // 2^24 + 1 + tiny rounds up when rounded once from the text.
  EXPECT_EQ(All(Gen("fill:16777217.000001", ElementType::kF32, {1})),
            (std::vector<uint64_t>{F32(16777218.0f)}));
  EXPECT_EQ(All(Gen("fill:257", ElementType::kBF16, {1})), (std::vector<uint64_t>{0x4380}));
}

TEST(GeneratorsTest, Errors) {
  EXPECT_EQ(Error("bogus", ElementType::kI32),
            Usage("unknown input generator 'bogus' (expected zeros, ones, iota, random[:SEED], "
                  "randint:LO:HI[:SEED] or fill:VALUE)"));
  EXPECT_EQ(Error("iota:3", ElementType::kI32),
            Usage("invalid input generator 'iota:3': iota takes no arguments"));
  EXPECT_EQ(Error("zeros:", ElementType::kI32),
            Usage("invalid input generator 'zeros:': zeros takes no arguments"));
  EXPECT_EQ(Error("random:x", ElementType::kI32),
            Usage("invalid input generator 'random:x': the seed 'x' is not a decimal integer in "
                  "[0, 2^64)"));
  EXPECT_EQ(Error("random:-1", ElementType::kI32),
            Usage("invalid input generator 'random:-1': the seed '-1' is not a decimal integer "
                  "in [0, 2^64)"));
  EXPECT_EQ(Error("random:18446744073709551616", ElementType::kI32),
            Usage("invalid input generator 'random:18446744073709551616': the seed "
                  "'18446744073709551616' is not a decimal integer in [0, 2^64)"));
  EXPECT_EQ(Error("random:", ElementType::kI32),
            Usage("invalid input generator 'random:': the seed '' is not a decimal integer in "
                  "[0, 2^64)"));
  EXPECT_EQ(Error("random:1:2", ElementType::kI32),
            Usage("invalid input generator 'random:1:2': random takes at most one argument, a "
                  "seed (random:SEED)"));
  EXPECT_EQ(Error("randint:5", ElementType::kI32),
            Usage("invalid input generator 'randint:5': randint takes LO, HI and an optional "
                  "seed (randint:LO:HI[:SEED])"));
  EXPECT_EQ(Error("randint:0:1:2:3", ElementType::kI32),
            Usage("invalid input generator 'randint:0:1:2:3': randint takes LO, HI and an "
                  "optional seed (randint:LO:HI[:SEED])"));
  EXPECT_EQ(Error("randint:5:3", ElementType::kI32),
            Usage("invalid input generator 'randint:5:3': LO (5) must be less than HI (3); the "
                  "range [LO, HI) excludes HI"));
  EXPECT_EQ(Error("randint:3:3", ElementType::kI32),
            Usage("invalid input generator 'randint:3:3': LO (3) must be less than HI (3); the "
                  "range [LO, HI) excludes HI"));
  EXPECT_EQ(Error("randint:a:3", ElementType::kI32),
            Usage("invalid input generator 'randint:a:3': LO 'a' is not a decimal integer"));
  EXPECT_EQ(Error("randint:0:10x", ElementType::kI32),
            Usage("invalid input generator 'randint:0:10x': HI '10x' is not a decimal integer"));
  EXPECT_EQ(Error("randint:0:1.5", ElementType::kI32),
            Usage("invalid input generator 'randint:0:1.5': HI '1.5' is not a decimal integer"));
  EXPECT_EQ(Error("randint:0:99999999999999999999", ElementType::kF32),
            Usage("invalid input generator 'randint:0:99999999999999999999': HI "
                  "99999999999999999999 exceeds 2^64 in magnitude"));
  EXPECT_EQ(Error("randint:0:10:s", ElementType::kI32),
            Usage("invalid input generator 'randint:0:10:s': the seed 's' is not a decimal "
                  "integer in [0, 2^64)"));
  EXPECT_EQ(Error("randint:0:300", ElementType::kI8),
            Usage("invalid input generator 'randint:0:300': the range [0, 300) does not fit in "
                  "int8 (-128 to 127)"));
  EXPECT_EQ(Error("randint:-1:10", ElementType::kU32),
            Usage("invalid input generator 'randint:-1:10': the range [-1, 10) does not fit in "
                  "uint32 (0 to 4294967295)"));
  EXPECT_EQ(Error("randint:0:3", ElementType::kI1),
            Usage("invalid input generator 'randint:0:3': the range [0, 3) does not fit in bool "
                  "(0 to 1)"));
  EXPECT_EQ(Error("randint:-18446744073709551616:18446744073709551616", ElementType::kF32),
            Usage("invalid input generator 'randint:-18446744073709551616:18446744073709551616': "
                  "the range [LO, HI) is wider than 2^64"));
  EXPECT_EQ(Error("fill", ElementType::kI32),
            Usage("invalid input generator 'fill': fill takes one value (fill:VALUE, e.g. "
                  "fill:1.5)"));
  EXPECT_EQ(Error("fill:1:2", ElementType::kI32),
            Usage("invalid input generator 'fill:1:2': fill takes one value (fill:VALUE, e.g. "
                  "fill:1.5)"));
  for (const char* bad : {"abc", "", "1.5.5", "1e", "e5", "--1", "+-1", "0x10", "1,5", " 1", "1 ",
                          "nanx", "."}) {
    std::string spec = std::string("fill:") + bad;
    EXPECT_EQ(Error(spec, ElementType::kF32),
              Usage("invalid input generator '" + spec + "': the value '" + bad +
                    "' is not a number (an integer, a float, inf, -inf or nan)"));
  }
  EXPECT_EQ(Error("fill:300", ElementType::kI8),
            Usage("invalid input generator 'fill:300': 300 does not fit in int8 (-128 to 127)"));
  EXPECT_EQ(Error("fill:256", ElementType::kU8),
            Usage("invalid input generator 'fill:256': 256 does not fit in uint8 (0 to 255)"));
  EXPECT_EQ(Error("fill:-1", ElementType::kU16),
            Usage("invalid input generator 'fill:-1': -1 does not fit in uint16 (0 to 65535)"));
  EXPECT_EQ(Error("fill:2", ElementType::kI1),
            Usage("invalid input generator 'fill:2': 2 does not fit in bool (0 to 1)"));
  EXPECT_EQ(Error("fill:1e300", ElementType::kI64),
            Usage("invalid input generator 'fill:1e300': 1e300 does not fit in int64 "
                  "(-9223372036854775808 to 9223372036854775807)"));
  EXPECT_EQ(Error("fill:1.5", ElementType::kI32),
            Usage("invalid input generator 'fill:1.5': 1.5 is not an integer, which int32 needs"));
  EXPECT_EQ(Error("fill:nan", ElementType::kI32),
            Usage("invalid input generator 'fill:nan': nan is not an integer, which int32 needs"));
  EXPECT_EQ(Error("fill:-inf", ElementType::kU8),
            Usage("invalid input generator 'fill:-inf': -inf is not an integer, which uint8 "
                  "needs"));
  EXPECT_EQ(Error("fill:99999999999999999999", ElementType::kF32),
            Usage("invalid input generator 'fill:99999999999999999999': the value "
                  "99999999999999999999 exceeds 2^64 in magnitude"));
}

TEST(GeneratorsTest, ShapeErrors) {
  EXPECT_EQ(Error("iota", ElementType::kI32, {kDynamic, 4}),
            Usage("cannot generate 'iota' for shape (None, 4): it has a dynamic dimension"));
  EXPECT_EQ(Error("zeros", ElementType::kI32, {int64_t{1} << 40, int64_t{1} << 40}),
            Usage("cannot generate 'zeros' for shape (1099511627776, 1099511627776): the array "
                  "would hold 2^63 or more bytes"));
  // A zero dimension makes any other dimension harmless.
  EXPECT_EQ(Error("zeros", ElementType::kI32, {0, int64_t{1} << 62, int64_t{1} << 62}), "OK");
}

TEST(GeneratorsTest, CheckGeneratorSpec) {
  EXPECT_TRUE(CheckGeneratorSpec("randint:0:300").ok());  // fits some dtype; checked later
  EXPECT_TRUE(CheckGeneratorSpec("fill:1.5").ok());
  EXPECT_EQ(DiagnosticCode(CheckGeneratorSpec("randint:3:0")), "IO-USAGE");
  EXPECT_EQ(DiagnosticCode(CheckGeneratorSpec("nope")), "IO-USAGE");
}

// Generating checks its time limit between chunks of 2^20 elements: a limit
// already passed stops it with RT-TIMEOUT before the first; none lets it finish.
TEST(GeneratorsTest, StopsAtItsTimeLimit) {
  std::vector<uint8_t> out((size_t{1} << 21) * 4);
  TimeLimit passed{1, std::chrono::steady_clock::now() - std::chrono::seconds(2)};
  absl::Status s = GenerateInto("random:3", ElementType::kI32, {int64_t{1} << 21}, out.data(), passed);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.message(),
            "error[RT-TIMEOUT]: generating random:3 for int32 (2097152,) ran longer than 1 s and was stopped\n"
            "help: raise the limit with --time-limit, or generate a smaller input");
  TimeLimit none;
  EXPECT_TRUE(GenerateInto("random:3", ElementType::kI32, {int64_t{1} << 21}, out.data(), none).ok());
  EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.begin() + 64),
            Gen("random:3", ElementType::kI32, {16}).data);  // the same draws, chunk or not
}

}  // namespace
}  // namespace scjit
