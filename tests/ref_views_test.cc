// view_bitcast and view_reshape of refs (kernel-ir.md §4.2, sc-semantics.md §2.2)
// used by get/store, DMAs, gathers and further views, against references
// written here from the spec's element mapping:
//   - same width: the same elements reinterpreted, same shape;
//   - narrowing by k: the second-minor dimension grows k-fold and
//     y[r*k + j, c] is the j-th little-endian piece of x[r, c];
//   - widening: the inverse (of a ref that a view_bitcast narrowed);
//   - view_reshape: the same elements in row-major order;
//   - view_subcore_slice (JAX 0.12.0 on): subcore s of a chip with S subcores
//     sees columns [s*n, (s+1)*n) of a VMEM_SHARED ref of S*n columns.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/kernel_runner.h"

namespace scjit::testing {
namespace {

std::vector<uint32_t> Words(int n, uint32_t seed) {
  std::vector<uint32_t> v(n);
  uint32_t s = seed;
  for (uint32_t& x : v) {
    s = s * 1664525u + 1013904223u;
    x = s ^ (s >> 13);
  }
  return v;
}

// y[r*k + j, c] of a view narrowing x (R rows of C words) to pieces of 32/k bits.
template <typename T>
std::vector<T> Narrowed(const std::vector<uint32_t>& x, int R, int C) {
  constexpr int k = 4 / sizeof(T);
  std::vector<T> y(static_cast<size_t>(R) * k * C);
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < k; ++j) {
      for (int c = 0; c < C; ++c) y[(r * k + j) * C + c] = static_cast<T>(x[r * C + c] >> (j * 8 * sizeof(T)));
    }
  }
  return y;
}

TEST(RefViewsTest, SameWidthBitcastKeepsShapeAndBits) {
  testing::Run run = RunText(R"(kernel @k(in %x: vmem<2x16xf32>, out %o: vmem<2x16xu32>)
    mesh vector(cores = 1, subcores = 1)
{
  %u = view_bitcast %x : vmem<2x16xu32>
  %v = get %u[1, :] : vector<16xu32>
  store %o[0, :], %v
  %i = view_bitcast %x : vmem<2x16xi32>
  %w = get %i[0, :] : vector<16xi32>
  %wu = bitcast %w : vector<16xu32>
  store %o[1, :], %wu
}
)",
                             {{"x", Bytes(Words(32, 1))}});
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  std::vector<uint32_t> x = Words(32, 1), o = run.As<uint32_t>("o");
  for (int c = 0; c < 16; ++c) {
    EXPECT_EQ(o[c], x[16 + c]);
    EXPECT_EQ(o[16 + c], x[c]);
  }
}

// Narrowing by 2 and 4: whole reads, rows, static and dynamic slices, stores
// through the view, and widening back.
TEST(RefViewsTest, NarrowingBitcastPacksRowsInEachWord) {
  const char* text = R"(kernel @k(inout %x: vmem<2x16xi32>, in %h: vmem<2x16xi16>, in %s: smem<2xi32>,
          out %all: vmem<4x16xi16>, out %rows: vmem<4x16xi16>, out %bytes: vmem<8x16xi8>, out %back: vmem<2x16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %y = view_bitcast %x : vmem<4x16xi16>
  %a = get %y[:, :] : vector<4x16xi16>
  store %all[:, :], %a
  %i = get %s[0] : i32
  %r = get %y[%i, :] : vector<16xi16>
  store %rows[0, :], %r
  %d = get %s[1] : i32
  %two = get %y[ds(%d, 2), :] : vector<2x16xi16>
  store %rows[1:3, :], %two
  %hi = get %y[3:4, :] : vector<1x16xi16>
  store %rows[3:4, :], %hi
  %b = view_bitcast %x : vmem<8x16xi8>
  %bv = get %b[:, :] : vector<8x16xi8>
  store %bytes[:, :], %bv
  %n = get %h[:, :] : vector<2x16xi16>
  store %y[2:4, :], %n
  %w = view_bitcast %y : vmem<2x16xi32>
  %wv = get %w[:, :] : vector<2x16xi32>
  store %back[:, :], %wv
}
)";
  std::vector<uint32_t> x = Words(32, 2);
  std::vector<uint16_t> h(32);
  for (int k = 0; k < 32; ++k) h[k] = static_cast<uint16_t>(0x1000 + k);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    std::vector<int32_t> s = {i, 2};
    testing::Run run = RunText(text, {{"x", Bytes(x)}, {"h", Bytes(h)}, {"s", Bytes(s)}});
    ASSERT_TRUE(run.ok()) << run.status << run.Findings();
    std::vector<uint16_t> y = Narrowed<uint16_t>(x, 2, 16);
    EXPECT_EQ(run.As<uint16_t>("all"), y);
    std::vector<uint16_t> rows = run.As<uint16_t>("rows");
    for (int c = 0; c < 16; ++c) {
      EXPECT_EQ(rows[c], y[i * 16 + c]);
      EXPECT_EQ(rows[16 + c], y[32 + c]);
      EXPECT_EQ(rows[32 + c], y[48 + c]);
      EXPECT_EQ(rows[48 + c], y[48 + c]);  // y[3:4], within one group of two rows
    }
    EXPECT_EQ(run.As<uint8_t>("bytes"), Narrowed<uint8_t>(x, 2, 16));
    // y[2:4] = h rewrote the halves of x[1, :]: low halves from h's row 0.
    std::vector<uint32_t> want = x;
    for (int c = 0; c < 16; ++c) want[16 + c] = h[c] | static_cast<uint32_t>(h[16 + c]) << 16;
    EXPECT_EQ(run.As<uint32_t>("x"), want);
    EXPECT_EQ(run.As<uint32_t>("back"), want);
  }
  // A dynamic slice of whole groups must start at a multiple of the group.
  std::vector<int32_t> s = {0, 1};
  testing::Run run = RunText(text, {{"x", Bytes(x)}, {"h", Bytes(h)}, {"s", Bytes(s)}});
  EXPECT_EQ(run.Findings(), R"(test.scir:12:14: error[RT-BOUNDS]: a slice bound of 1 in dimension 0 of %y[ds(%d, 2), :] is not a multiple of 2: the view packs that dimension in groups of 2
   12 |   %two = get %y[ds(%d, 2), :] : vector<2x16xi16>
      |              ^~~~~~~~~~~~~~~~
note: in kernel @k, subcore (core 0, subcore 0)
)");
}

// Writing int16 ones through the int16 view of a (1, L) int32 ref gives 65537 in
// every word (Pallas' test_store_to_bitcast), on both lane counts.
TEST(RefViewsTest, StoreToBitcast) {
  for (auto [target, lanes] : {std::pair{"v7x", 16}, std::pair{"v5p", 8}}) {
    std::string L = std::to_string(lanes);
    CompileOptions options;
    options.target = target;
    testing::Run run = RunText("kernel @k(out %o: vmem<1x" + L + "xi32>)\n    mesh vector(cores = 1, subcores = 1)\n{\n" +
                                   "  %y = view_bitcast %o : vmem<2x" + L + "xi16>\n  %one = const dense<1> : vector<2x" + L +
                                   "xi16>\n  store %y[:, :], %one\n}\n",
                               {}, options);
    ASSERT_TRUE(run.ok()) << run.status << run.Findings();
    EXPECT_EQ(run.As<int32_t>("o"), std::vector<int32_t>(lanes, 65537));
  }
}

// DMAs into and out of a packed view move logical elements: HBM's row-major
// (4, 16) int16 rows land as the halves of the int32 words.
TEST(RefViewsTest, DmaThroughBitcastView) {
  testing::Run run = RunText(R"(kernel @k(in %h: hbm<4x16xi16>, out %o: hbm<2x16xi32>, out %back: hbm<4x16xi16>, out %part: hbm<2x16xi16>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%x: vmem<2x16xi32>, %sem: dma_sem)
{
  %y = view_bitcast %x : vmem<4x16xi16>
  copy %h -> %y
  copy %x -> %o
  dma_start %y -> %back, %sem
  dma_wait %y -> %back, %sem
  copy %y[2:4, :] -> %part
}
)",
                             {{"h", Bytes(Words(32, 3))}});
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  std::vector<uint32_t> hw = Words(32, 3);
  std::vector<uint16_t> h(64);
  std::memcpy(h.data(), hw.data(), 128);
  std::vector<uint32_t> want(32);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 16; ++c) want[r * 16 + c] = h[(2 * r) * 16 + c] | static_cast<uint32_t>(h[(2 * r + 1) * 16 + c]) << 16;
  }
  EXPECT_EQ(run.As<uint32_t>("o"), want);
  EXPECT_EQ(run.As<uint16_t>("back"), h);
  EXPECT_EQ(run.As<uint16_t>("part"), std::vector<uint16_t>(h.begin() + 32, h.end()));
}

// Large values (over 512 bytes) through a packed view, and its debug_print.
TEST(RefViewsTest, LargeValuesAndPrintThroughPackedView) {
  testing::Run run = RunText(R"(kernel @k(inout %x: vmem<16x16xi32>, out %o: vmem<32x16xi16>)
    mesh vector(cores = 1, subcores = 1)
{
  %y = view_bitcast %x : vmem<32x16xi16>
  %a = get %y[:, :] : vector<32x16xi16>
  store %o[:, :], %a
  %b = add %a, %a : vector<32x16xi16>
  store %y[:, :], %b
  %top = view %y[0:2, 0:3] : vmem<2x3xi16>
  debug_print "top" %top
}
)",
                             {{"x", Bytes(Words(256, 4))}});
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  std::vector<uint32_t> x = Words(256, 4);
  std::vector<uint16_t> y = Narrowed<uint16_t>(x, 16, 16);
  EXPECT_EQ(run.As<uint16_t>("o"), y);
  std::vector<uint32_t> want(256);
  for (int k = 0; k < 256; ++k) {
    want[k] = static_cast<uint16_t>(2 * (x[k] & 0xFFFF)) | static_cast<uint32_t>(static_cast<uint16_t>(2 * (x[k] >> 16))) << 16;
  }
  EXPECT_EQ(run.As<uint32_t>("x"), want);
  auto half = [&](int r, int c) { return std::to_string(static_cast<int16_t>(want[(r / 2) * 16 + c] >> (16 * (r % 2)))); };
  EXPECT_EQ(run.log, "[core 0, subcore 0] top, data: s16[2,3]: { " + half(0, 0) + ", " + half(0, 1) + ", " + half(0, 2) +
                         " } { " + half(1, 0) + ", " + half(1, 1) + ", " + half(1, 2) + " }\n");
}

// Widening a plain row-major ref: wide element (r, c) is made of the narrow
// (r*k + j, c), j = 0..k-1, piece 0 in the lowest bits (the inverse of the
// narrowing mapping). Whole and dynamic-row reads, a gather, a store, a
// scatter-add, and DMAs both ways, on both lane counts, from i16 and i8.
TEST(RefViewsTest, WideningAPlainRefReadsPiecesRowsApart) {
  for (auto [target, lanes] : {std::pair{"v7x", 16}, std::pair{"v5p", 8}}) {
    SCOPED_TRACE(lanes);
    const int L = lanes;
    std::string text = R"(kernel @k(inout %x: vmem<4xLxi16>, in %b: vmem<8xLxi8>, in %s: smem<1xi32>, in %v: vmem<Lxi32>,
          in %id: vmem<Lxi32>, in %h: hbm<1xLxi32>, out %o: vmem<3xLxi32>, out %g: vmem<Lxi32>, out %bo: vmem<2xLxi32>,
          out %hb: hbm<2xLxi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %w = view_bitcast %x : vmem<2xLxi32>
  %a = get %w[:, :] : vector<2xLxi32>
  store %o[0:2, :], %a
  %i = get %s[0] : i32
  %r = get %w[%i, :] : vector<Lxi32>
  store %o[2, :], %r
  %bw = view_bitcast %b : vmem<2xLxi32>
  %bv = get %bw[:, :] : vector<2xLxi32>
  store %bo[:, :], %bv
  %ids = get %id[:] : vector<Lxi32>
  %gv = load_gather %w[1, :] [%ids] : vector<Lxi32>
  store %g[:], %gv
  copy %w -> %hb
  %vv = get %v[:] : vector<Lxi32>
  addupdate_scatter %w[0, :] [%ids], %vv
  copy %h -> %w[1:2, :]
}
)";
    for (size_t at; (at = text.find("xLx")) != std::string::npos;) text.replace(at, 3, "x" + std::to_string(L) + "x");
    for (size_t at; (at = text.find("<Lx")) != std::string::npos;) text.replace(at, 3, "<" + std::to_string(L) + "x");
    std::vector<uint32_t> xw = Words(2 * L, 7), bw = Words(2 * L, 8), v = Words(L, 9), h = Words(L, 10);
    std::vector<uint16_t> x(4 * L);
    std::memcpy(x.data(), xw.data(), x.size() * 2);
    std::vector<uint8_t> b(8 * L);
    std::memcpy(b.data(), bw.data(), b.size());
    std::vector<int32_t> id(L);
    for (int c = 0; c < L; ++c) id[c] = (c * 3 + 1) % L;  // a permutation (L is 8 or 16)
    id[L - 1] = id[0];                                     // and a duplicate: both adds land
    auto wide16 = [&](const std::vector<uint16_t>& n, int r, int c) {
      return n[(2 * r) * L + c] | static_cast<uint32_t>(n[(2 * r + 1) * L + c]) << 16;
    };
    for (int row = 0; row < 2; ++row) {
      SCOPED_TRACE(row);
      CompileOptions options;
      options.target = target;
      testing::Run run = RunText(text,
                                 {{"x", Bytes(x)}, {"b", Bytes(b)}, {"s", Bytes(std::vector<int32_t>{row})},
                                  {"v", Bytes(v)}, {"id", Bytes(id)}, {"h", Bytes(h)}},
                                 options);
      ASSERT_TRUE(run.ok()) << run.status << run.Findings();
      std::vector<uint32_t> o = run.As<uint32_t>("o"), g = run.As<uint32_t>("g"), bo = run.As<uint32_t>("bo");
      std::vector<uint32_t> hb = run.As<uint32_t>("hb");
      for (int c = 0; c < L; ++c) {
        EXPECT_EQ(o[c], wide16(x, 0, c)) << c;
        EXPECT_EQ(o[L + c], wide16(x, 1, c)) << c;
        EXPECT_EQ(o[2 * L + c], wide16(x, row, c)) << c;
        EXPECT_EQ(g[c], wide16(x, 1, id[c])) << c;
        EXPECT_EQ(hb[c], wide16(x, 0, c)) << c;
        EXPECT_EQ(hb[L + c], wide16(x, 1, c)) << c;
        for (int r = 0; r < 2; ++r) {
          uint32_t want = 0;
          for (int j = 0; j < 4; ++j) want |= static_cast<uint32_t>(b[(4 * r + j) * L + c]) << (8 * j);
          EXPECT_EQ(bo[r * L + c], want) << r << "," << c;
        }
      }
      // x after the scatter-add into wide row 0 and the DMA into wide row 1.
      std::vector<uint32_t> w = {};
      for (int r = 0; r < 2; ++r) {
        for (int c = 0; c < L; ++c) w.push_back(wide16(x, r, c));
      }
      for (int c = 0; c < L; ++c) w[id[c]] += v[c];
      for (int c = 0; c < L; ++c) w[L + c] = h[c];
      std::vector<uint16_t> want(4 * L);
      for (int r = 0; r < 2; ++r) {
        for (int c = 0; c < L; ++c) {
          want[(2 * r) * L + c] = static_cast<uint16_t>(w[r * L + c]);
          want[(2 * r + 1) * L + c] = static_cast<uint16_t>(w[r * L + c] >> 16);
        }
      }
      EXPECT_EQ(run.As<uint16_t>("x"), want);
    }
  }
}

// Views no strided description fits: a static slice across the groups of a
// packed dimension (rows 1..2 of an int16 view of int32 words take the high
// half of word row 0 and the low half of word row 1), read, written, viewed
// again and moved by DMA; and a reshape of that slice.
TEST(RefViewsTest, SliceAcrossPackedGroups) {
  testing::Run run = RunText(R"(kernel @k(inout %x: vmem<2x16xi32>, in %n: vmem<2x16xi16>, out %o: vmem<2x16xi16>,
          out %one: vmem<16xi16>, out %hb: hbm<2x16xi16>, out %flat: vmem<4x8xi16>)
    mesh vector(cores = 1, subcores = 1)
{
  %y = view_bitcast %x : vmem<4x16xi16>
  %mid = view %y[1:3, :] : vmem<2x16xi16>
  %a = get %mid[:, :] : vector<2x16xi16>
  store %o[:, :], %a
  %r1 = get %mid[1, :] : vector<16xi16>
  store %one[:], %r1
  copy %mid -> %hb
  %q = view_reshape %mid : vmem<4x8xi16>
  %qa = get %q[:, :] : vector<4x8xi16>
  store %flat[:, :], %qa
  %nv = get %n[:, :] : vector<2x16xi16>
  store %mid[:, :], %nv
}
)",
                             {{"x", Bytes(Words(32, 11))}, {"n", Bytes(std::vector<uint16_t>(32, 0xBEEF))}});
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  std::vector<uint32_t> x = Words(32, 11);
  std::vector<uint16_t> y = Narrowed<uint16_t>(x, 2, 16);
  std::vector<uint16_t> mid(y.begin() + 16, y.begin() + 48);
  EXPECT_EQ(run.As<uint16_t>("o"), mid);
  EXPECT_EQ(run.As<uint16_t>("one"), std::vector<uint16_t>(mid.begin() + 16, mid.end()));
  EXPECT_EQ(run.As<uint16_t>("hb"), mid);
  EXPECT_EQ(run.As<uint16_t>("flat"), mid);
  std::vector<uint32_t> want = x;
  for (int c = 0; c < 16; ++c) {
    want[c] = (x[c] & 0xFFFF) | 0xBEEF0000u;
    want[16 + c] = (x[16 + c] & 0xFFFF0000u) | 0xBEEF;
  }
  EXPECT_EQ(run.As<uint32_t>("x"), want);
}

// A reshape of a column slice whose rows do not divide the new ones (6-element
// rows regrouped by 8): read, written and copied by DMA.
TEST(RefViewsTest, ReshapeAcrossStridedRows) {
  testing::Run run = RunText(R"(kernel @k(inout %t: vmem<4x16xi32>, out %o: vmem<3x8xi32>, out %hb: hbm<3x8xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %c = view %t[:, 0:6] : vmem<4x6xi32>
  %r = view_reshape %c : vmem<3x8xi32>
  %a = get %r[:, :] : vector<3x8xi32>
  store %o[:, :], %a
  copy %r -> %hb
  %row = get %r[1, :] : vector<8xi32>
  %two = add %row, %row : vector<8xi32>
  store %r[1, :], %two
}
)",
                             {{"t", Bytes(Words(64, 12))}});
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  std::vector<uint32_t> t = Words(64, 12), c;
  for (int r = 0; r < 4; ++r) {
    for (int k = 0; k < 6; ++k) c.push_back(t[r * 16 + k]);
  }
  EXPECT_EQ(run.As<uint32_t>("o"), c);
  EXPECT_EQ(run.As<uint32_t>("hb"), c);
  std::vector<uint32_t> want = t;
  for (int k = 8; k < 16; ++k) want[(k / 6) * 16 + k % 6] = 2 * c[k];
  EXPECT_EQ(run.As<uint32_t>("t"), want);
}

// view_reshape of a contiguous ref and of a strided one (a column slice), then
// get/store, a further view, a gather and DMAs through it.
TEST(RefViewsTest, ReshapeViews) {
  testing::Run run = RunText(R"(kernel @k(inout %t: vmem<4x16xi32>, in %h: hbm<2x16xi32>, in %s: smem<1xi32>,
          out %o: vmem<6x16xi32>, out %g: vmem<16xi32>, out %back: hbm<8x4xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %c = view %t[:, 0:8] : vmem<4x8xi32>
  %r = view_reshape %c : vmem<2x16xi32>
  %a = get %r[:, :] : vector<2x16xi32>
  store %o[0:2, :], %a
  %q = view_reshape %c : vmem<8x4xi32>
  %i = get %s[0] : i32
  %row = view %q[%i, :] : vmem<4xi32>
  %rv = get %row[:] : vector<4xi32>
  %z = const dense<0> : vector<12xi32>
  %rz = concat %rv, %z {axis = 0} : vector<16xi32>
  store %o[2, :], %rz
  %mid = get %q[2:6, :] : vector<4x4xi32>
  %m16 = reshape %mid : vector<16xi32>
  store %o[3, :], %m16
  %io = iota : vector<16xi32>
  %eight = const dense<8> : vector<16xi32>
  %four = const dense<4> : vector<16xi32>
  %i0 = rem %io, %eight : vector<16xi32>
  %i1 = div %io, %four : vector<16xi32>
  %gv = load_gather %q[:, :] [%i0, %i1] : vector<16xi32>
  store %g[:], %gv
  copy %q -> %back
  %flat = view_reshape %t : vmem<2x32xi32>
  copy %h -> %flat[:, 8:24]
  %f = get %t[0:2, :] : vector<2x16xi32>
  store %o[4:6, :], %f
}
)",
                             {{"t", Bytes(Words(64, 5))}, {"h", Bytes(Words(32, 6))}, {"s", Bytes(std::vector<int32_t>{5})}});
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  std::vector<uint32_t> t = Words(64, 5), h = Words(32, 6), o = run.As<uint32_t>("o");
  std::vector<uint32_t> c;  // the column slice, row-major
  for (int r = 0; r < 4; ++r) {
    for (int k = 0; k < 8; ++k) c.push_back(t[r * 16 + k]);
  }
  for (int k = 0; k < 32; ++k) EXPECT_EQ(o[k], c[k]) << k;
  for (int k = 0; k < 4; ++k) EXPECT_EQ(o[32 + k], c[5 * 4 + k]) << k;
  for (int k = 0; k < 16; ++k) EXPECT_EQ(o[48 + k], c[8 + k]) << k;
  std::vector<uint32_t> g = run.As<uint32_t>("g");
  for (int k = 0; k < 16; ++k) EXPECT_EQ(g[k], c[(k % 8) * 4 + k / 4]) << k;
  EXPECT_EQ(run.As<uint32_t>("back"), c);
  // %flat[:, 8:24] is t's rows 0..3, columns 8..15 then 0..7 of the next row.
  std::vector<uint32_t> want = t;
  for (int r = 0; r < 2; ++r) {
    for (int k = 0; k < 16; ++k) want[r * 32 + 8 + k] = h[r * 16 + k];
  }
  EXPECT_EQ(run.As<uint32_t>("t"), want);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(o[64 + k], want[k]) << k;
}

// examples/subcore_slices.scir: o[r, c] = x[r, c] + c / 8 + 1, each subcore
// adding into its own slice of the shared table with gathers and scatters.
TEST(RefViewsTest, SubcoreSlicesExample) {
  std::vector<uint32_t> x = Words(8 * 128, 17);
  std::vector<uint32_t> want(x.size());
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 128; ++c) want[r * 128 + c] = x[r * 128 + c] + c / 8 + 1;
  }
  for (int threads : {1, 3}) {  // (the file says `jax "0.12.0"`)
    LaunchOptions launch;
    launch.threads = threads;
    testing::Run run = RunFile("examples/subcore_slices.scir", {{"x", Bytes(x)}}, {}, launch);
    ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
    EXPECT_EQ(run.As<uint32_t>("o"), want) << threads << " threads";
  }
}

// Loads, stores and DMAs through the slices of a mesh that runs 4 of v7x's 16
// subcores on each of 2 cores (each core has its own VMEM_SHARED; the columns
// of the subcores that do not run keep their zeros), and a slice of a view of
// rows.
TEST(RefViewsTest, SubcoreSlicesOfSomeSubcoresAndOfARowView) {
  testing::Run run = RunText(R"(kernel @k(out %o: hbm<2x4x256xi32>, out %row2: hbm<2x4x16xi32>)
    mesh vector(cores = 2, subcores = 4)
    scratch(%shared: vmem_shared<4x256xi32>)
{
  %c = axis_index core : i32
  %s = axis_index subcore : i32
  %mine = view_subcore_slice %shared : vmem<4x16xi32>
  %c1000 = mul %c, 1000 : i32
  %s10 = mul %s, 10 : i32
  %base = add %c1000, %s10 : i32
  for %r = 0 to 4 step 1 {
    %v = add %base, %r : i32
    %w = broadcast %v : vector<16xi32>
    store %mine[%r, :], %w
  }
  %mid = view %shared[1:3, :] : vmem_shared<2x256xi32>
  %mid_mine = view_subcore_slice %mid : vmem<2x16xi32>
  copy %mid_mine[1] -> %row2[%c, %s]
  barrier
  %zero = cmp eq %s, 0 : i1
  if %zero {
    copy %shared -> %o[%c]
  }
}
)",
                             {}, [] {
                               CompileOptions o;
                               o.jax = "0.12.1";
                               return o;
                             }());
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  std::vector<int32_t> o = run.As<int32_t>("o"), row2 = run.As<int32_t>("row2");
  ASSERT_EQ(o.size(), 2u * 4 * 256);
  for (int c = 0; c < 2; ++c) {
    for (int r = 0; r < 4; ++r) {
      for (int col = 0; col < 256; ++col) {
        int s = col / 16;
        int32_t want = s < 4 ? c * 1000 + s * 10 + r : 0;
        ASSERT_EQ(o[(c * 4 + r) * 256 + col], want) << c << " " << r << " " << col;
      }
    }
    for (int s = 0; s < 4; ++s) {
      for (int l = 0; l < 16; ++l) EXPECT_EQ(row2[(c * 4 + s) * 16 + l], c * 1000 + s * 10 + 2) << c << " " << s;
    }
  }
}

}  // namespace
}  // namespace scjit::testing
