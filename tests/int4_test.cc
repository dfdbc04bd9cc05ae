// The 4-bit integers i4 and u4: types and constants through the front end, and
// kernels through the public API (DMAs, convert, arithmetic wrapping to 4 bits,
// compares, a DMA add, debug_print, generators' iota), memory holding one element
// per byte in the low nibble. Against ml_dtypes: tests/python/test_int4.py.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/ir/printer.h"
#include "tests/ir_loader.h"
#include "tests/kernel_runner.h"

namespace scjit {
namespace {

// i4/u4 types and literals parse and print back as they were written, but for
// literals spelled as patterns (0xF), which print as numbers.
TEST(Int4FrontEndTest, ParsePrintRoundTrip) {
  constexpr char kText[] = R"(kernel @k(in %x: hbm<64xi4>, out %o: vmem<4x16xu4>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%b: vmem<64xi4>, %s: smem<8xu4>)
{
  %a = const -8 : i4
  %c = const 0xF : u4
  %v = const dense<7> : vector<64xi4>
  %w = const dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xu4>
  %i = convert %v : vector<64xi32>
}
)";
  testing::Loaded first = testing::Load(kText);
  ASSERT_NE(first.module, nullptr) << first.diagnostics;
  std::string printed = Print(*first.module);
  std::string want = kText;
  want.replace(want.find("0xF"), 3, "15");  // a pattern prints as its number
  EXPECT_EQ(printed, want);
  testing::Loaded second = testing::Load(printed);
  ASSERT_NE(second.module, nullptr) << second.diagnostics;
  EXPECT_EQ(Print(*second.module), printed);
}

// A literal takes the signed or the unsigned range of 4 bits (-8..15), like the
// other integers; outside it, IR-LITERAL at the literal.
TEST(Int4FrontEndTest, ConstantsOutOfRangeAreLocatedErrors) {
  testing::Checked c = testing::Check(R"(kernel @k(in %x: hbm<64xi4>)
    mesh vector(cores = 1, subcores = 1)
{
  %a = const 16 : i4
  %b = const dense<-9> : vector<64xu4>
  %c = const 15 : i4
  %d = const -8 : u4
}
)");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.diagnostics, R"(k.scir:4:14: error[IR-LITERAL]: literal 16 does not fit in i4
    4 |   %a = const 16 : i4
      |              ^~
k.scir:5:20: error[IR-LITERAL]: literal -9 does not fit in u4
    5 |   %b = const dense<-9> : vector<64xu4>
      |                    ^~
)");
}

// 16 int4 values, one per byte (the low nibble), and their meaning.
const std::vector<uint8_t> kX = {0x00, 0x01, 0x07, 0x08, 0x0F, 0x0E, 0x09, 0x03,
                                 0x04, 0x05, 0x06, 0x0A, 0x0B, 0x0C, 0x0D, 0x02};
// 0, 1, 7, -8, -1, -2, -7, 3, 4, 5, 6, -6, -5, -4, -3, 2 as i4.

// HBM -> VMEM, convert to i32, add, convert back, VMEM -> HBM; the u4 view of
// the same bits; 4-bit arithmetic wraps; compares are signed for i4.
TEST(Int4KernelTest, DmaConvertAddConvertBack) {
  testing::Run run = testing::RunText(R"(kernel @k(in %x: hbm<16xi4>, out %o: hbm<16xi4>, out %w: vmem<16xi32>,
          out %u: vmem<16xu4>, out %s: vmem<16xi4>, out %lt: vmem<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%b: vmem<16xi4>, %sem: dma_sem)
{
  dma_start %x -> %b, %sem
  dma_wait %x -> %b, %sem
  %v = get %b : vector<16xi4>
  %i = convert %v : vector<16xi32>
  store %w, %i
  %k = const dense<5> : vector<16xi32>
  %a = add %i, %k : vector<16xi32>
  %n = convert %a : vector<16xi4>
  store %b, %n
  dma_start %b -> %o, %sem
  dma_wait %b -> %o, %sem
  %q = convert %v : vector<16xu4>
  store %u, %q
  %five = const dense<5> : vector<16xi4>
  %m = add %v, %five : vector<16xi4>
  store %s, %m
  %c = cmp lt %v, %five : vector<16xi1>
  %one = const dense<1> : vector<16xi32>
  %zero = const dense<0> : vector<16xi32>
  %l = select %c, %one, %zero : vector<16xi32>
  store %lt, %l
}
)",
                                      {{"x", kX}});
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  EXPECT_EQ(run.As<int32_t>("w"), (std::vector<int32_t>{0, 1, 7, -8, -1, -2, -7, 3, 4, 5, 6, -6, -5, -4, -3, 2}));
  // +5 in i32, then the low 4 bits: 5, 6, 12 -> -4, -3, 4, 3, -2, 8 -> -8, ...
  std::vector<uint8_t> want = {0x05, 0x06, 0x0C, 0x0D, 0x04, 0x03, 0x0E, 0x08,
                               0x09, 0x0A, 0x0B, 0x0F, 0x00, 0x01, 0x02, 0x07};
  EXPECT_EQ(run.params.at("o"), want);
  EXPECT_EQ(run.params.at("s"), want);  // the same sum, wrapped in 4 bits
  EXPECT_EQ(run.params.at("u"), kX);    // i4 -> u4 keeps the bits
  EXPECT_EQ(run.As<int32_t>("lt"), (std::vector<int32_t>{1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1}));
}

// Division follows the other integers' definition (x / 0 = -1, MIN / -1 = MIN),
// u4 is unsigned, floats saturate to the 4-bit range (f32 -> u4 is Pallas' EL-2:
// through i32, which keeps the low 4 bits), and a high nibble that is not 0 is
// ignored by every op.
TEST(Int4KernelTest, DivisionUnsignedFloatsAndHighNibbles) {
  testing::Run run = testing::RunText(R"(kernel @k(in %x: smem<8xi4>, in %y: smem<8xi4>, in %f: smem<8xf32>,
          out %q: smem<8xi4>, out %uq: smem<8xu4>, out %fi: smem<8xi4>, out %fu: smem<8xu4>, out %neg: smem<8xi4>)
    mesh scalar(cores = 1)
{
  for %j = 0 to 8 step 1 {
    %a = get %x[%j] : i4
    %b = get %y[%j] : i4
    %d = div %a, %b : i4
    store %q[%j], %d
    %ua = convert %a : u4
    %ub = convert %b : u4
    %ud = div %ua, %ub : u4
    store %uq[%j], %ud
    %g = get %f[%j] : f32
    %gi = convert %g : i4
    store %fi[%j], %gi
    %gs = convert %g : i32
    %gu = convert %gs : u4
    store %fu[%j], %gu
    %n = neg %a : i4
    store %neg[%j], %n
  }
}
)",
                                      {{"x", {0x08, 0x07, 0x0F, 0x06, 0xF5, 0x08, 0x00, 0x03}},
                                       {"y", {0x0F, 0x00, 0x02, 0x0D, 0x02, 0x01, 0x05, 0x0F}},
                                       {"f", testing::Bytes(std::vector<float>{-100.f, -8.5f, -1.9f, 0.9f, 7.9f, 15.9f,
                                                                               100.f, __builtin_nanf("")})}});
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  // x = -8, 7, -1, 6, 5 (0xF5: high nibble ignored), -8, 0, 3; y = -1, 0, 2, -3, 2, 1, 5, -1.
  EXPECT_EQ(run.params.at("q"), (std::vector<uint8_t>{0x08, 0x0F, 0x00, 0x0E, 0x02, 0x08, 0x00, 0x0D}));
  // As u4: 8/15 = 0, 7/0 = 15, 15/2 = 7, 6/13 = 0, 5/2 = 2, 8/1 = 8, 0/5 = 0, 3/15 = 0.
  EXPECT_EQ(run.params.at("uq"), (std::vector<uint8_t>{0x00, 0x0F, 0x07, 0x00, 0x02, 0x08, 0x00, 0x00}));
  // Toward zero, saturating: -8, -8, -1, 0, 7, 7, 7, NaN -> 0; through i32 (-100,
  // -8, -1, 0, 7, 15, 100, 0) to u4, the low 4 bits: 12, 8, 15, 0, 7, 15, 4, 0.
  EXPECT_EQ(run.params.at("fi"), (std::vector<uint8_t>{0x08, 0x08, 0x0F, 0x00, 0x07, 0x07, 0x07, 0x00}));
  EXPECT_EQ(run.params.at("fu"), (std::vector<uint8_t>{0x0C, 0x08, 0x0F, 0x00, 0x07, 0x0F, 0x04, 0x00}));
  // -(-8) wraps to -8.
  EXPECT_EQ(run.params.at("neg"), (std::vector<uint8_t>{0x08, 0x09, 0x01, 0x0A, 0x0B, 0x08, 0x00, 0x0D}));
}

// An adding DMA sums modulo 16; debug_print shows values; iota counts in 4 bits.
TEST(Int4KernelTest, AddingDmaPrintAndIota) {
  testing::Run run = testing::RunText(R"(kernel @k(in %x: hbm<1x16xi4>, inout %o: hbm<1x16xi4>, out %io: vmem<16xi4>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%row: vmem<1x16xi4>)
{
  copy %x -> %row
  %v = get %row[0] : vector<16xi4>
  debug_print "v" %v
  %ids = const dense<0> : vector<1xi32>
  copy %row -> %o[idx(%ids)] add
  %t = iota : vector<16xi4>
  store %io, %t
}
)",
                                      {{"x", kX}, {"o", std::vector<uint8_t>(16, 0x07)}});
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  EXPECT_EQ(run.log, "[core 0, subcore 0] v, data: s4[16]: 0, 1, 7, -8, -1, -2, -7, 3, 4, 5, 6, -6, -5, -4, -3, 2\n");
  std::vector<uint8_t> sum;
  for (uint8_t b : kX) sum.push_back(static_cast<uint8_t>((b + 7) & 0x0F));
  EXPECT_EQ(run.params.at("o"), sum);
  std::vector<uint8_t> iota;  // 0..7, then -8..-1
  for (int i = 0; i < 16; ++i) iota.push_back(static_cast<uint8_t>(i));
  EXPECT_EQ(run.params.at("io"), iota);
}

// Reductions and scans compute in 8 bits and wrap to 4; max, min and sort order
// i4 as they order the other narrow integers, by their bits as unsigned (0..7,
// then -8..-1).
TEST(Int4KernelTest, ReductionsAndScans) {
  testing::Run run = testing::RunText(R"(kernel @k(in %x: vmem<16xi4>, out %r: smem<3xi32>, out %c: vmem<16xi4>)
    mesh vector(cores = 1, subcores = 1)
{
  %v = get %x : vector<16xi4>
  %sum = reduce_sum %v : i4
  %max = reduce_max %v : i4
  %min = reduce_min %v : i4
  %sum32 = convert %sum : i32
  %max32 = convert %max : i32
  %min32 = convert %min : i32
  store %r[0], %sum32
  store %r[1], %max32
  store %r[2], %min32
  %cs = cumsum %v : vector<16xi4>
  store %c, %cs
}
)",
                                      {{"x", kX}});
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  // The values sum to 0 + 1 + 7 - 8 - 1 - 2 - 7 + 3 + 4 + 5 + 6 - 6 - 5 - 4 - 3 + 2 = -8.
  // max and min order signed integers narrower than 32 bits as unsigned, as the
  // hardware's scan does (sc-semantics.md §3.11): -1 (0xF) is the largest, 0 the least.
  EXPECT_EQ(run.As<int32_t>("r"), (std::vector<int32_t>{-8, -1, 0}));
  std::vector<uint8_t> running;
  int acc = 0;
  for (uint8_t b : kX) {
    acc += b;
    running.push_back(static_cast<uint8_t>(acc & 0x0F));
  }
  EXPECT_EQ(run.params.at("c"), running);
}

// Mosaic's tpu.sort takes 32-bit keys only (JAX 0.12.1 and later say so first, SORT-10).
TEST(Int4KernelTest, SortKeysOf4BitsAreMosaicsError) {
  testing::Checked c = testing::Check(R"(kernel @k(in %x: vmem<16xi4>, out %s: vmem<16xi4>)
    mesh vector(cores = 1, subcores = 1)
{
  %v = get %x : vector<16xi4>
  %so = sort %v : vector<16xi4>
  store %s, %so
}
)");
  EXPECT_EQ(c.codes, std::vector<std::string>{"GEN-3"});
  EXPECT_NE(c.diagnostics.find("Error details: 'tpu.sort' op operand #0 must be vector of 32-bit signless integer or "
                               "32-bit float values, but got 'vector<16xi4>'\n"),
            std::string::npos)
      << c.diagnostics;
}

// What is not implemented yet says so, naming the op, its line and the kernel.
TEST(Int4KernelTest, BitcastsAreNotImplementedYet) {
  testing::Run run = testing::RunText(R"(kernel @k(in %x: vmem<16xi4>)
    mesh vector(cores = 1, subcores = 1)
{
  %v = get %x : vector<16xi4>
  %s = bitcast %v : vector<16xi8>
}
)");
  EXPECT_EQ(run.status.code(), absl::StatusCode::kUnimplemented) << run.diagnostics;
  EXPECT_EQ(run.status.message(),
            "not implemented yet: bitcast from vector<16xi4> to vector<16xi8> (4-bit types) (bitcast at line 5, "
            "kernel @k)");
}

}  // namespace
}  // namespace scjit
