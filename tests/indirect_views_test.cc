// Indirect DMAs through view_bitcast and view_reshape views (docs/language.md,
// "Indirect DMAs through views"; lowering/analysis/indirect_views.h), against
// references written here from the view rules (kernel-ir.md §4.2,
// sc-semantics.md §2.2):
//   - a view_bitcast that widens k times makes element (..., r, c) of the
//     pieces (..., r*k + j, c), j = 0 lowest: packed bf16 or int8 rows are
//     gathered and scattered as 32-bit words by row index;
//   - a view_reshape keeps the row-major order;
//   - an add into a widened view adds whole words (integers wrap);
//   - entries equal to `ignore` and out-of-range entries move nothing, and the
//     latter are RT-BOUNDS when checked, against the view's first dimension;
//   - other views (a narrowing view_bitcast, a view of a reinterpreted view)
//     are "not implemented yet", with the same message in both engines.
// The run's engine is SCJIT_TEST_ENGINE's (CTest runs the file with both).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/kernel_runner.h"

namespace scjit::testing {
namespace {

constexpr int kWordRows = 16, kCols = 16, kList = 12;

std::vector<int32_t> List(uint32_t seed, int rows) {
  std::mt19937 rng(seed);
  std::vector<int32_t> ids(kList);
  for (int32_t& i : ids) i = static_cast<int32_t>(rng() % rows);
  ids[4] = ids[1];  // a duplicate
  ids[7] = -1;      // the ignore value of the kernels that take one
  return ids;
}

template <typename T>
std::vector<T> Iota(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(rng());
  return v;
}

// Word (r, c) of a table of narrow elements (pieces per word) viewed as 32-bit
// words: the pieces (r*k + j, c), lowest first.
template <typename T>
uint32_t Word(const std::vector<T>& narrow, int r, int c) {
  constexpr int k = 4 / sizeof(T);
  uint32_t w = 0;
  for (int j = 0; j < k; ++j) {
    auto piece = static_cast<uint32_t>(static_cast<std::make_unsigned_t<T>>(narrow[(r * k + j) * kCols + c]));
    w |= piece << (8 * sizeof(T) * j);
  }
  return w;
}

template <typename T>
void SetWord(std::vector<T>& narrow, int r, int c, uint32_t w) {
  constexpr int k = 4 / sizeof(T);
  for (int j = 0; j < k; ++j) narrow[(r * k + j) * kCols + c] = static_cast<T>(w >> (8 * sizeof(T) * j));
}

// --- Gathers --------------------------------------------------------------------------

// Rows of a bf16 (i16 here: the bytes are what matter) and an i8 table, gathered
// as words; `ignore = -1` leaves the row the buffer held (zeros).
constexpr const char kGatherPacked[] = R"(
kernel @gather(in %t16: hbm<32x16xi16>, in %t8: hbm<64x16xi8>, in %ids: hbm<12xi32>,
               out %o16: hbm<12x16xi32>, out %o8: hbm<12x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<12xi32>, %buf: vmem<12x16xi32>)
{
  copy %ids -> %iv
  %w16 = view_bitcast %t16 : hbm<16x16xi32>
  %w8 = view_bitcast %t8 : hbm<16x16xi32>
  %z = const dense<0> : vector<16xi32>
  for %r = 0 to 12 step 1 {
    store %buf[%r, :], %z
  }
  copy %w16[idx(%iv, ignore = -1)] -> %buf
  copy %buf -> %o16
  copy %w8[idx(%iv, ignore = -1)] -> %buf
  copy %buf -> %o8
}
)";

TEST(IndirectViewsTest, GathersPackedRowsAsWords) {
  std::vector<int16_t> t16 = Iota<int16_t>(32 * kCols, 1);
  std::vector<int8_t> t8 = Iota<int8_t>(64 * kCols, 2);
  std::vector<int32_t> ids = List(3, kWordRows);
  testing::Run run = RunText(kGatherPacked, {{"t16", Bytes(t16)}, {"t8", Bytes(t8)}, {"ids", Bytes(ids)}});
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  std::vector<uint32_t> o16 = run.As<uint32_t>("o16"), o8 = run.As<uint32_t>("o8");
  for (int i = 0; i < kList; ++i) {
    for (int c = 0; c < kCols; ++c) {
      uint32_t w16 = ids[i] < 0 ? 0 : Word(t16, ids[i], c), w8 = ids[i] < 0 ? 0 : Word(t8, ids[i], c);
      ASSERT_EQ(o16[i * kCols + c], w16) << "bf16 words, entry " << i << ", column " << c;
      ASSERT_EQ(o8[i * kCols + c], w8) << "int8 words, entry " << i << ", column " << c;
    }
  }
}

// A 3-D table (tokens, rows of 16, 16): its first dimension is the list's and
// the pieces of a word lie 16 elements apart within a token's block; the words
// land in a bf16 buffer viewed as words.
constexpr const char kGather3d[] = R"(
kernel @gather3d(in %t: hbm<16x4x16xi16>, in %ids: hbm<12xi32>, out %o: hbm<12x4x16xi16>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<12xi32>, %buf: vmem<12x4x16xi16>)
{
  copy %ids -> %iv
  %w = view_bitcast %t : hbm<16x2x16xi32>
  %bw = view_bitcast %buf : vmem<12x2x16xi32>
  copy %w[idx(%iv)] -> %bw
  copy %buf -> %o
}
)";

TEST(IndirectViewsTest, GathersTokensOfA3dTable) {
  std::vector<int16_t> t = Iota<int16_t>(16 * 4 * kCols, 4);
  std::vector<int32_t> ids = List(5, 16);
  ids[7] = 3;
  testing::Run run = RunText(kGather3d, {{"t", Bytes(t)}, {"ids", Bytes(ids)}});
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  std::vector<int16_t> o = run.As<int16_t>("o");
  // Both sides pack the same way: the token's block moves unchanged.
  for (int i = 0; i < kList; ++i) {
    for (int e = 0; e < 4 * kCols; ++e) {
      ASSERT_EQ(o[i * 4 * kCols + e], t[ids[i] * 4 * kCols + e]) << "entry " << i << ", element " << e;
    }
  }
}

// --- Scatters and adds ---------------------------------------------------------------------

// Words scattered into a packed bf16 table, then added into it (the adds wrap
// as 32-bit integers, across the two halves); a reshaped f32 table takes
// scatter-adds of its rows of 2x8.
constexpr const char kScatters[] = R"(
kernel @scatter(inout %t: hbm<32x16xi16>, inout %a: hbm<32x16xi16>, inout %f: hbm<16x16xf32>,
                in %ids: hbm<12xi32>, in %w: hbm<12x16xi32>, in %fr: hbm<12x2x8xf32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<12xi32>, %wb: vmem<12x16xi32>, %fb: vmem<12x2x8xf32>)
{
  copy %ids -> %iv
  copy %w -> %wb
  copy %fr -> %fb
  %tw = view_bitcast %t : hbm<16x16xi32>
  copy %wb -> %tw[idx(%iv, ignore = -1)]
  %aw = view_bitcast %a : hbm<16x16xi32>
  copy %wb -> %aw[idx(%iv, ignore = -1)] add
  %fv = view_reshape %f : hbm<16x2x8xf32>
  copy %fb -> %fv[idx(%iv, ignore = -1)] add
}
)";

TEST(IndirectViewsTest, ScattersAndAddsWordsIntoPackedRows) {
  std::vector<int16_t> t = Iota<int16_t>(32 * kCols, 6), a = Iota<int16_t>(32 * kCols, 7);
  std::vector<float> f(16 * kCols);
  for (size_t k = 0; k < f.size(); ++k) f[k] = static_cast<float>(k) * 0.25f;
  std::vector<int32_t> ids = List(8, kWordRows);
  std::vector<uint32_t> w = Iota<uint32_t>(kList * kCols, 9);
  w[0] = 0xFFFFFFFFu;  // a carry from the low half into the high one
  std::vector<float> fr(kList * kCols);
  for (size_t k = 0; k < fr.size(); ++k) fr[k] = static_cast<float>(k % 7) - 3.0f;
  testing::Run run = RunText(kScatters, {{"t", Bytes(t)}, {"a", Bytes(a)}, {"f", Bytes(f)}, {"ids", Bytes(ids)},
                                {"w", Bytes(w)}, {"fr", Bytes(fr)}});
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  std::vector<int16_t> wt = t, wa = a;
  std::vector<float> wf = f;
  for (int i = 0; i < kList; ++i) {
    if (ids[i] < 0) continue;
    for (int c = 0; c < kCols; ++c) {
      SetWord(wt, ids[i], c, w[i * kCols + c]);
      SetWord(wa, ids[i], c, Word(wa, ids[i], c) + w[i * kCols + c]);
      wf[ids[i] * kCols + c] += fr[i * kCols + c];
    }
  }
  EXPECT_EQ(run.As<int16_t>("t"), wt);
  EXPECT_EQ(run.As<int16_t>("a"), wa);
  EXPECT_EQ(run.As<float>("f"), wf);
}

// --- Findings and refusals -------------------------------------------------------------------

constexpr const char kOutside[] = R"(
kernel @outside(in %t: hbm<32x16xi16>, in %ids: hbm<12xi32>, out %o: hbm<12x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<12xi32>, %buf: vmem<12x16xi32>)
{
  copy %ids -> %iv
  %w = view_bitcast %t : hbm<16x16xi32>
  copy %w[idx(%iv)] -> %buf
  copy %buf -> %o
}
)";

TEST(IndirectViewsTest, AnEntryOutsideTheViewsRowsIsABoundsFinding) {
  std::vector<int32_t> ids = List(10, kWordRows);
  ids[7] = kWordRows;  // a row of the bf16 table, but not of its words
  testing::Run run = RunText(kOutside, {{"ids", Bytes(ids)}});
  ASSERT_TRUE(run.status.ok()) << run.status << run.diagnostics;
  ASSERT_EQ(run.findings.size(), 1u) << run.Findings();
  EXPECT_EQ(run.findings[0].code, "RT-BOUNDS");
  EXPECT_EQ(run.findings[0].message,
            "copy %w[idx(%iv)] -> %buf: entry 7 of the index list is 16, outside dimension 0 of the source (size 16)");
  EXPECT_EQ(run.findings[0].loc.line, 8);
}

TEST(IndirectViewsTest, AnUnwrittenEntryDecidesARow) {
  constexpr const char kUnwritten[] = R"(
kernel @unwritten(in %t: hbm<32x16xi16>, in %ids: hbm<12xi32>, out %o: hbm<12x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<12xi32>, %buf: vmem<12x16xi32>)
{
  copy %ids[0:8] -> %iv[0:8]
  %w = view_bitcast %t : hbm<16x16xi32>
  copy %w[idx(%iv)] -> %buf
  copy %buf -> %o
}
)";
  testing::Run run = RunText(kUnwritten, {{"ids", Bytes(List(11, kWordRows))}});
  ASSERT_TRUE(run.status.ok()) << run.status << run.diagnostics;
  ASSERT_EQ(run.findings.size(), 1u) << run.Findings();
  EXPECT_EQ(run.findings[0].code, "RT-INIT");
  EXPECT_EQ(run.findings[0].loc.line, 8);
}

struct Refused {
  const char* name;
  const char* view;  // the ops that make %v from %t: hbm<32x16xi32>
  const char* type;  // %v's rows: the buffer's type
  const char* what;
};

const Refused kRefused[] = {
    {"Narrowing", "%v = view_bitcast %t : hbm<64x16xi16>", "vmem<8x16xi16>",
     "an indirect DMA through a view_bitcast to a narrower element"},
    {"ReshapeOfABitcast",
     "%b = view_bitcast %t : hbm<32x16xf32>\n  %v = view_reshape %b : hbm<32x2x8xf32>", "vmem<8x2x8xf32>",
     "an indirect DMA through a view_reshape of a view_bitcast"},
    {"ASliceBeforeAReshape", "%s = view %t[0:16, :] : hbm<16x16xi32>\n  %v = view_reshape %s : hbm<16x2x8xi32>",
     "vmem<8x2x8xi32>", "an indirect DMA through a view and a view_bitcast or view_reshape"},
};

class RefusedViewTest : public ::testing::TestWithParam<Refused> {};

TEST_P(RefusedViewTest, IsNotImplementedYet) {
  const Refused& r = GetParam();
  std::string text = std::string(R"(
kernel @refused(in %t: hbm<32x16xi32>, in %ids: hbm<8xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<8xi32>, %buf: )") + r.type + R"()
{
  copy %ids -> %iv
  )" + r.view + R"(
  copy %v[idx(%iv)] -> %buf
}
)";
  testing::Run run = RunText(text);
  ASSERT_FALSE(run.status.ok()) << text;
  int line = 8 + (std::string(r.view).find('\n') != std::string::npos ? 1 : 0);
  EXPECT_EQ(std::string(run.status.message()),
            std::string("not implemented yet: ") + r.what +
                " (indirect DMAs move rows through view_reshapes of a whole ref and one view_bitcast to an element "
                "as wide or wider) (copy at line " +
                std::to_string(line) + ", kernel @refused)");
}

INSTANTIATE_TEST_SUITE_P(Views, RefusedViewTest, ::testing::ValuesIn(kRefused),
                         [](const ::testing::TestParamInfo<Refused>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace scjit::testing
