// load_gather, store_scatter and addupdate_scatter on both lane counts, for both
// dtypes they admit (GS-3: int32, float32), every mask pattern (all, none,
// alternating, random, and no mask), on 1-D and 2-D refs and on views of a row,
// against scalar references written here from sc-semantics.md §3.5-3.7 and
// runtime.md §7.1, §7.11:
//   - result[i] = ref[i0[i], i1[i]] for active lanes; masked-off lanes hold the
//     poison value (0xBEBEBEBE, or the quiet NaN 0x7FC00000 for f32);
//   - store_scatter: among duplicate indices the highest active lane wins;
//   - addupdate_scatter: duplicates add from the lowest lane to the highest, so
//     float sums round as ((old + v_lo) + v_hi);
//   - masked-off lanes touch nothing and are never bounds-checked; an active
//     lane out of range is RT-BOUNDS (checked) or clamped into the ref (unchecked).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/kernel_runner.h"

namespace scjit::testing {
namespace {

enum class Dt { kI32, kF32 };
const char* Ir(Dt t) { return t == Dt::kI32 ? "i32" : "f32"; }

float F(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t B(float f) { return std::bit_cast<uint32_t>(f); }
uint32_t Poison(Dt t) { return t == Dt::kF32 ? 0x7FC00000u : 0xBEBEBEBEu; }
uint32_t Add(Dt t, uint32_t a, uint32_t b) { return t == Dt::kF32 ? B(F(a) + F(b)) : a + b; }
bool Same(Dt t, uint32_t a, uint32_t b) {
  return a == b || (t == Dt::kF32 && std::isnan(F(a)) && std::isnan(F(b)));
}

struct Target {
  const char* id;
  int lanes;
  const char* name;
};
const Target kTargets[] = {{"v7x", 16, "v7x"}, {"v5p", 8, "v5p"}};

CompileOptions On(const Target& t) {
  CompileOptions o;
  o.target = t.id;
  return o;
}

std::string Vec(int lanes, const char* e) { return "vector<" + std::to_string(lanes) + "x" + e + ">"; }

// Random elements: for f32 a mix of magnitudes (so that the order of a sum
// changes its rounding), NaN, ±0 and infinities; for i32 any bits.
std::vector<uint32_t> Elements(Dt t, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (uint32_t& x : v) {
    if (t == Dt::kI32) {
      x = rng();
      continue;
    }
    std::uniform_int_distribution<int> exp(-12, 24);
    std::uniform_real_distribution<float> frac(1.0f, 2.0f);
    float f = std::ldexp(frac(rng), exp(rng)) * (rng() % 2 ? -1.0f : 1.0f);
    switch (rng() % 64) {
      case 0: f = NAN; break;
      case 1: f = -0.0f; break;
      case 2: f = 0.0f; break;
      case 3: f = INFINITY; break;
      default: break;
    }
    x = B(f);
  }
  if (t == Dt::kI32 && n > 3) v[3] = 0x80000000u;
  return v;
}

// --- The main matrix -------------------------------------------------------------

constexpr int kRows = 8;

// How the kernel addresses its tables.
enum class Shape { k1D, k2D, kRow, kView };
struct ShapeInfo {
  const char* name;
  std::vector<int64_t> table;  // the refs' shape
  std::vector<int64_t> dims;   // the gathered dimensions
  int rows_mod;                // row r uses table row r % rows_mod (kRow, kView)
};
ShapeInfo Info(Shape s) {
  switch (s) {
    case Shape::k1D: return {"1d", {40}, {40}, 1};
    case Shape::k2D: return {"2d", {5, 12}, {5, 12}, 1};
    case Shape::kRow: return {"row", {4, 24}, {24}, 4};
    case Shape::kView: return {"view", {3, 5, 12}, {5, 12}, 3};
  }
  return {};
}

std::string Dims(const std::vector<int64_t>& shape) {
  std::string out;
  for (int64_t d : shape) out += std::to_string(d) + "x";
  return out;
}

// Row r: load index vectors, mask and value; then the three ops on %g, %s, %a.
std::string MatrixKernel(Shape shape, Dt dt, int L, bool masked) {
  ShapeInfo s = Info(shape);
  const char* T = Ir(dt);
  std::string table = "vmem<" + Dims(s.table) + T + ">";
  int D = static_cast<int>(s.dims.size());
  std::string text = "kernel @k(in %g: " + table + ", inout %s: " + table + ", inout %a: " + table +
                     ", in %ix: vmem<" + std::to_string(D) + "x" + std::to_string(kRows) + "x" + std::to_string(L) +
                     "xi32>, in %m: vmem<" + std::to_string(kRows) + "x" + std::to_string(L) + "xi32>, in %x: vmem<" +
                     std::to_string(kRows) + "x" + std::to_string(L) + "x" + T + ">, out %o: vmem<" +
                     std::to_string(kRows) + "x" + std::to_string(L) + "x" + T + ">)\n" +
                     "    mesh vector(cores = 1, subcores = 1)\n{\n  %zero = const dense<0> : " + Vec(L, "i32") +
                     "\n  for %r = 0 to " + std::to_string(kRows) + " step 1 {\n";
  std::string idx;
  for (int d = 0; d < D; ++d) {
    text += "    %i" + std::to_string(d) + " = get %ix[" + std::to_string(d) + ", %r, :] : " + Vec(L, "i32") + "\n";
    idx += (d ? ", %i" : "%i") + std::to_string(d);
  }
  text += "    %mi = get %m[%r, :] : " + Vec(L, "i32") + "\n    %mask = cmp ne %mi, %zero : " + Vec(L, "i1") +
          "\n    %v = get %x[%r, :] : " + Vec(L, T) + "\n";
  if (s.rows_mod > 1) text += "    %q = rem %r, " + std::to_string(s.rows_mod) + " : i32\n";
  auto ref = [&](const std::string& t) {
    switch (shape) {
      case Shape::k1D: return "%" + t + "[:]";
      case Shape::k2D: return "%" + t + "[:, :]";
      case Shape::kRow: return "%" + t + "[%q, :]";
      case Shape::kView:
        text += "    %" + t + "v = view %" + t + "[%q, :, :] : vmem<5x12x" + T + ">\n";
        return "%" + t + "v[:, :]";
    }
    return std::string();
  };
  std::string mask = masked ? " mask %mask" : "";
  std::string g = ref("g"), sc = ref("s"), a = ref("a");
  text += "    %y = load_gather " + g + " [" + idx + "]" + mask + " : " + Vec(L, T) + "\n    store %o[%r, :], %y\n";
  text += "    store_scatter " + sc + " [" + idx + "], %v" + mask + "\n";
  text += "    addupdate_scatter " + a + " [" + idx + "], %v" + mask + "\n  }\n}\n";
  return text;
}

struct Param {
  Target target;
  Dt dt;
  Shape shape;
};

class GatherScatterTest : public ::testing::TestWithParam<Param> {};

TEST_P(GatherScatterTest, MatchesReference) {
  const Param& p = GetParam();
  int L = p.target.lanes;
  ShapeInfo s = Info(p.shape);
  int D = static_cast<int>(s.dims.size());
  int64_t table_size = 1;
  for (int64_t d : s.table) table_size *= d;
  int64_t row_size = table_size / s.rows_mod;  // elements per table row (kRow, kView)
  std::mt19937 rng(7);
  // Index vectors: even rows draw from the first 3 of each dimension (many
  // duplicates), odd rows from all of it.
  std::vector<int32_t> ix(static_cast<size_t>(D) * kRows * L);
  for (int d = 0; d < D; ++d) {
    for (int r = 0; r < kRows; ++r) {
      for (int i = 0; i < L; ++i) {
        int64_t range = r % 2 == 0 ? std::min<int64_t>(3, s.dims[d]) : s.dims[d];
        ix[(static_cast<size_t>(d) * kRows + r) * L + i] = static_cast<int32_t>(rng() % range);
      }
    }
  }
  // Masks: all, none, alternating, then random.
  std::vector<int32_t> m(static_cast<size_t>(kRows) * L);
  for (int r = 0; r < kRows; ++r) {
    for (int i = 0; i < L; ++i) m[static_cast<size_t>(r) * L + i] = r == 0 ? 1 : r == 1 ? 0 : r == 2 ? i % 2 : rng() % 2;
  }
  std::vector<uint32_t> x = Elements(p.dt, static_cast<size_t>(kRows) * L, 11);
  std::vector<uint32_t> g = Elements(p.dt, table_size, 12), s0 = Elements(p.dt, table_size, 13),
                        a0 = Elements(p.dt, table_size, 14);
  for (bool masked : {true, false}) {
    SCOPED_TRACE(masked ? "masked" : "no mask");
    testing::Run run = RunText(MatrixKernel(p.shape, p.dt, L, masked),
                               {{"g", Bytes(g)}, {"s", Bytes(s0)}, {"a", Bytes(a0)}, {"ix", Bytes(ix)}, {"m", Bytes(m)},
                                {"x", Bytes(x)}},
                               On(p.target));
    ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
    // The reference, row after row, lanes in increasing order.
    std::vector<uint32_t> o(static_cast<size_t>(kRows) * L), sw = s0, aw = a0;
    for (int r = 0; r < kRows; ++r) {
      for (int i = 0; i < L; ++i) {
        size_t k = static_cast<size_t>(r) * L + i;
        int64_t addr = (r % s.rows_mod) * row_size, stride = 1;
        for (int d = D - 1; d >= 0; --d) {
          addr += ix[(static_cast<size_t>(d) * kRows + r) * L + i] * stride;
          stride *= s.dims[d];
        }
        bool on = !masked || m[k] != 0;
        o[k] = on ? g[addr] : Poison(p.dt);
        if (!on) continue;
        sw[addr] = x[k];
        aw[addr] = Add(p.dt, aw[addr], x[k]);
      }
    }
    std::vector<uint32_t> got_o = run.As<uint32_t>("o"), got_s = run.As<uint32_t>("s"), got_a = run.As<uint32_t>("a");
    for (size_t k = 0; k < o.size(); ++k) {
      ASSERT_TRUE(Same(p.dt, got_o[k], o[k])) << "gather row " << k / L << " lane " << k % L << ": got 0x" << std::hex
                                              << got_o[k] << ", want 0x" << o[k];
    }
    for (int64_t k = 0; k < table_size; ++k) {
      ASSERT_TRUE(Same(p.dt, got_s[k], sw[k])) << "store_scatter element " << k << ": got 0x" << std::hex << got_s[k]
                                               << ", want 0x" << sw[k];
      ASSERT_TRUE(Same(p.dt, got_a[k], aw[k])) << "addupdate_scatter element " << k << ": got 0x" << std::hex
                                               << got_a[k] << ", want 0x" << aw[k];
    }
  }
}

std::vector<Param> AllParams() {
  std::vector<Param> out;
  for (const Target& t : kTargets) {
    for (Dt d : {Dt::kI32, Dt::kF32}) {
      for (Shape s : {Shape::k1D, Shape::k2D, Shape::kRow, Shape::kView}) out.push_back({t, d, s});
    }
  }
  return out;
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return std::string(Ir(info.param.dt)) + "_" + Info(info.param.shape).name + "_" + info.param.target.name;
}

INSTANTIATE_TEST_SUITE_P(All, GatherScatterTest, ::testing::ValuesIn(AllParams()), ParamName);

// Scatter values are not shape-checked (sc-errors.md §10): 200 lanes are a large
// value, scattered in chunks in lane order.
TEST(GatherScatterLargeTest, TwoHundredLanes) {
  const char* text = R"(kernel @k(inout %s: vmem<50xf32>, inout %a: vmem<50xf32>, in %ix: vmem<200xi32>, in %m: vmem<200xi32>, in %x: vmem<200xf32>)
    mesh vector(cores = 1, subcores = 1)
{
  %i = get %ix[:] : vector<200xi32>
  %mi = get %m[:] : vector<200xi32>
  %zero = const dense<0> : vector<200xi32>
  %mask = cmp ne %mi, %zero : vector<200xi1>
  %v = get %x[:] : vector<200xf32>
  store_scatter %s[:] [%i], %v mask %mask
  addupdate_scatter %a[:] [%i], %v mask %mask
}
)";
  std::mt19937 rng(21);
  std::vector<int32_t> ix(200), m(200);
  for (int k = 0; k < 200; ++k) {
    ix[k] = static_cast<int32_t>(k < 100 ? rng() % 50 : rng() % 6);  // the second half collides a lot
    m[k] = k % 7 == 0 ? 0 : 1;
  }
  std::vector<uint32_t> x = Elements(Dt::kF32, 200, 22), s0 = Elements(Dt::kF32, 50, 23), a0 = Elements(Dt::kF32, 50, 24);
  testing::Run run = RunText(text, {{"s", Bytes(s0)}, {"a", Bytes(a0)}, {"ix", Bytes(ix)}, {"m", Bytes(m)}, {"x", Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  std::vector<uint32_t> sw = s0, aw = a0;
  for (int k = 0; k < 200; ++k) {
    if (m[k] == 0) continue;
    sw[ix[k]] = x[k];
    aw[ix[k]] = Add(Dt::kF32, aw[ix[k]], x[k]);
  }
  std::vector<uint32_t> got_s = run.As<uint32_t>("s"), got_a = run.As<uint32_t>("a");
  for (int k = 0; k < 50; ++k) {
    EXPECT_TRUE(Same(Dt::kF32, got_s[k], sw[k])) << k;
    EXPECT_TRUE(Same(Dt::kF32, got_a[k], aw[k])) << k;
  }
  // Lanes are numbered across chunks.
  ix[150] = 50;
  run = RunText(text, {{"s", Bytes(s0)}, {"a", Bytes(a0)}, {"ix", Bytes(ix)}, {"m", Bytes(m)}, {"x", Bytes(x)}});
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].message, "index 50 in lane 150 is out of bounds for dimension 0 of %s[:] (size 50)");
}

// --- Bounds --------------------------------------------------------------------

const char* kGatherOob = R"(kernel @k(in %t: vmem<4x12xi32>, in %ix: vmem<2x16xi32>, in %m: vmem<16xi32>, out %o: vmem<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %zero = const dense<0> : vector<16xi32>
  %i0 = get %ix[0, :] : vector<16xi32>
  %i1 = get %ix[1, :] : vector<16xi32>
  %mi = get %m[:] : vector<16xi32>
  %mask = cmp ne %mi, %zero : vector<16xi1>
  %y = load_gather %t[:, :] [%i0, %i1] mask %mask : vector<16xi32>
  store %o[:], %y
}
)";

// The finding for lane `lane` of the index vector at column `col` of line 9. A
// gather's finding also quotes the TPU bounds checker's text (JAX's
// DebugCheckTest.test_trigger_bounds_checker looks for it).
std::string GatherFinding(int col, int index, int lane, int dim, int size) {
  return "test.scir:9:" + std::to_string(col) + ": error[RT-BOUNDS]: index " + std::to_string(index) + " in lane " +
         std::to_string(lane) + " is out of bounds for dimension " + std::to_string(dim) + " of %t[:, :] (size " +
         std::to_string(size) + ")\n    9 |   %y = load_gather %t[:, :] [%i0, %i1] mask %mask : vector<16xi32>\n      |" +
         std::string(col, ' ') +
         "^~~\nnote: on a TPU the bounds checker reports: Trying to perform an indexed vector load from out of bounds "
         "address.\nnote: in kernel @k, subcore (core 0, subcore 0)\n";
}

// Only active lanes are checked: the first dimension with a bad lane, its lowest
// bad lane, is reported at that dimension's index vector.
TEST(GatherScatterBoundsTest, ActiveLanesAreCheckedMaskedOffOnesAreNot) {
  std::vector<int32_t> t(48), ix(32, 1), m(16, 1);
  for (int k = 0; k < 48; ++k) t[k] = 100 + k;
  ix[16 + 5] = 12;  // %i1, lane 5: one past dimension 1
  ix[3] = -1;       // %i0, lane 3
  ix[9] = 4;        // %i0, lane 9
  auto run = [&] { return RunText(kGatherOob, {{"t", Bytes(t)}, {"ix", Bytes(ix)}, {"m", Bytes(m)}}); };
  EXPECT_EQ(run().Findings(), GatherFinding(30, -1, 3, 0, 4));
  m[3] = 0;
  EXPECT_EQ(run().Findings(), GatherFinding(30, 4, 9, 0, 4));
  m[9] = 0;
  EXPECT_EQ(run().Findings(), GatherFinding(35, 12, 5, 1, 12));
  // With every bad lane masked off: no finding, and the active lanes gathered.
  m[5] = 0;
  testing::Run ok = run();
  ASSERT_TRUE(ok.ok()) << ok.status << ok.Findings();
  std::vector<int32_t> o = ok.As<int32_t>("o");
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(o[i], m[i] ? t[ix[i] * 12 + ix[16 + i]] : static_cast<int32_t>(0xBEBEBEBE)) << "lane " << i;
  }
}

// A scatter's finding stops the kernel before the scatter writes.
TEST(GatherScatterBoundsTest, ScatterFindingsNameTheLane) {
  const char* text = R"(kernel @k(inout %t: vmem<2x8xf32>, in %ix: vmem<8xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %i = get %ix[:] : vector<8xi32>
  %v = convert %i : vector<8xf32>
  addupdate_scatter %t[1, :] [%i], %v
}
)";
  std::vector<int32_t> ix = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<float> t(16, 1.0f);
  CompileOptions v5p;
  v5p.target = "v5p";
  testing::Run run = RunText(text, {{"t", Bytes(t)}, {"ix", Bytes(ix)}}, v5p);
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  for (int k = 0; k < 16; ++k) EXPECT_EQ(run.As<float>("t")[k], k < 8 ? 1.0f : 1.0f + (k - 8)) << k;
  ix[7] = 8;
  run = RunText(text, {{"t", Bytes(t)}, {"ix", Bytes(ix)}}, v5p);
  EXPECT_EQ(run.Findings(),
            R"(test.scir:6:31: error[RT-BOUNDS]: index 8 in lane 7 is out of bounds for dimension 0 of %t[1, :] (size 8)
    6 |   addupdate_scatter %t[1, :] [%i], %v
      |                               ^~
note: in kernel @k, subcore (core 0, subcore 0)
)");
  EXPECT_EQ(run.As<float>("t"), t);
}

// Unchecked (and warned) out-of-range lanes are clamped into the view: nothing
// outside it changes. The views are the middle of larger refs, whose other
// elements are guards.
TEST(GatherScatterBoundsTest, UncheckedNeverLeavesTheRef) {
  const char* text = R"(kernel @k(inout %a: vmem<3x16xi32>, inout %b: vmem<4x12xf32>, in %ix: vmem<2x16xi32>, out %o: vmem<2x16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %i0 = get %ix[0, :] : vector<16xi32>
  %i1 = get %ix[1, :] : vector<16xi32>
  %v = add %i0, %i1 : vector<16xi32>
  %f = convert %v : vector<16xf32>
  store_scatter %a[1, :] [%i0], %v
  addupdate_scatter %a[1, :] [%i1], %v
  %b2 = view %b[1:3, 2:10] : vmem<2x8xf32>
  store_scatter %b2[:, :] [%i0, %i1], %f
  addupdate_scatter %b2[:, :] [%i1, %i0], %f
  %g = load_gather %a[1, :] [%i1] : vector<16xi32>
  store %o[0, :], %g
  %h = load_gather %b2[:, :] [%i1, %i0] : vector<16xf32>
  %hi = bitcast %h : vector<16xi32>
  store %o[1, :], %hi
}
)";
  std::vector<int32_t> ix = {0,  1,  -1, 16, 1 << 30, -(1 << 30), 5,  15, 2,  3,  100, 7, 8,  -7, 9, 2147483647,
                             -1, 2, 17, 0,  -5,      8,          12, 3,  20, -2, 1,   1, 40, 6,  2, -2147483647 - 1};
  std::vector<int32_t> a(48);
  std::vector<float> b(48);
  for (int k = 0; k < 48; ++k) {
    a[k] = 1000 + k;
    b[k] = 0.5f + k;
  }
  auto guards_intact = [&](const testing::Run& run) {
    std::vector<int32_t> ga = run.As<int32_t>("a");
    std::vector<float> gb = run.As<float>("b");
    for (int k = 0; k < 48; ++k) {
      if (k < 16 || k >= 32) EXPECT_EQ(ga[k], a[k]) << "a[" << k << "]";
      int row = k / 12, col = k % 12;
      if (row < 1 || row > 2 || col < 2 || col >= 10) EXPECT_EQ(gb[k], b[k]) << "b[" << k << "]";
    }
  };
  CompileOptions unchecked;
  unchecked.checks.bounds = false;
  LaunchOptions off;
  off.checks = Checks::None();
  for (const Target& t : {kTargets[0]}) {
    unchecked.target = t.id;
    testing::Run run = RunText(text, {{"a", Bytes(a)}, {"b", Bytes(b)}, {"ix", Bytes(ix)}}, unchecked, off);
    ASSERT_TRUE(run.ok()) << run.status << run.Findings();
    guards_intact(run);
  }
  // Warnings: one per op with a bad lane, and the run goes on clamped.
  LaunchOptions warn;
  warn.checks = Checks::All();
  warn.checks->warn = true;
  testing::Run run = RunText(text, {{"a", Bytes(a)}, {"b", Bytes(b)}, {"ix", Bytes(ix)}}, {}, warn);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.findings.size(), 6u) << run.Findings();
  for (const Diagnostic& d : run.findings) EXPECT_EQ(d.severity, Severity::kWarning);
  guards_intact(run);
}

// The histogram idiom: scan_count, then addupdate_scatter of its counts at its
// last lanes (lowered as one +1 per counted lane, emit_gather.cc). With and
// without the scan's mask, on both lane counts, with many duplicates; the scatter
// writes row 1 of %h, rows 0 and 2 are guards. `fused = false` adds 0 to the
// counts first, which keeps the general walk: both must give the same bytes.
std::string HistogramKernel(int lanes, int rows, bool masked, bool fused) {
  std::string L = std::to_string(lanes), R = std::to_string(rows), V = "vector<" + L + "xi32>";
  std::string text = "kernel @k(inout %h: vmem<3x32xi32>, in %ix: vmem<" + R + "x" + L + "xi32>, in %mk: vmem<" + R +
                     "x" + L + "xi32>)\n    mesh vector(cores = 1, subcores = 1)\n{\n  for %r = 0 to " + R +
                     " step 1 {\n    %v = get %ix[%r, :] : " + V + "\n    %mi = get %mk[%r, :] : " + V +
                     "\n    %zero = const dense<0> : " + V + "\n    %m = cmp ne %mi, %zero : vector<" + L + "xi1>\n";
  text += "    %c, %last = scan_count %v" + std::string(masked ? " mask %m" : "") + " : " + V + ", vector<" + L + "xi1>\n";
  text += fused ? "    addupdate_scatter %h[1, :] [%v], %c mask %last\n"
                : "    %c0 = add %c, %zero : " + V + "\n    addupdate_scatter %h[1, :] [%v], %c0 mask %last\n";
  return text + "  }\n}\n";
}

TEST(CountingScatterTest, AddsOnePerCountedLane) {
  constexpr int kRows = 12;
  for (const Target& t : kTargets) {
    for (bool masked : {false, true}) {
      SCOPED_TRACE(std::string(t.id) + (masked ? ", masked scan" : ", unmasked scan"));
      std::mt19937 rng(31);
      std::vector<int32_t> ix(kRows * t.lanes), mk(ix.size()), h(96);
      for (size_t k = 0; k < ix.size(); ++k) {
        int row = static_cast<int>(k) / t.lanes;
        ix[k] = static_cast<int32_t>(rng() % (row % 3 == 0 ? 3 : row % 3 == 1 ? 32 : 8));  // few, all, some bins
        mk[k] = row == 1 ? 0 : row == 2 ? 1 : static_cast<int32_t>(rng() % 2);
      }
      for (int k = 0; k < 96; ++k) h[k] = 7 * k - 100;
      std::vector<int32_t> want = h;
      for (size_t k = 0; k < ix.size(); ++k) {
        if (!masked || mk[k] != 0) ++want[32 + ix[k]];
      }
      CompileOptions options;
      options.target = t.id;
      for (bool fused : {true, false}) {
        SCOPED_TRACE(fused ? "fused" : "general walk");
        testing::Run run = RunText(HistogramKernel(t.lanes, kRows, masked, fused),
                                   {{"h", Bytes(h)}, {"ix", Bytes(ix)}, {"mk", Bytes(mk)}}, options);
        ASSERT_TRUE(run.ok()) << run.status << run.Findings();
        EXPECT_EQ(run.As<int32_t>("h"), want);
      }
    }
  }
}

// An unmasked counting scan needs neither the scan's conflict compares nor a
// walk over the mask's bits: the emitted code has no walk loop; the general
// path keeps one.
TEST(CountingScatterTest, UnmaskedScanIsNotWalked) {
  Compiler compiler;
  for (bool fused : {true, false}) {
    absl::StatusOr<std::string> llvm =
        compiler.Emit(Source{"h.scir", HistogramKernel(16, 4, /*masked=*/false, fused)}, Stage::kLlvm);
    ASSERT_TRUE(llvm.ok()) << llvm.status();
    EXPECT_EQ(llvm->find("scatter_add_lane") == std::string::npos, fused) << *llvm;
  }
}

// Out-of-range bins: the finding names the lane the scatter's mask holds (the
// last of its value), and unchecked, every counted lane's +1 lands on the
// clamped last bin, as the counts would, and nothing outside the row changes.
TEST(CountingScatterTest, OutOfRangeBinsAreFoundAtTheLastLaneOrClamped) {
  std::vector<int32_t> ix(16), mk(16, 1), h(96, 5);
  for (int k = 0; k < 16; ++k) ix[k] = k;
  ix[2] = ix[9] = 40;
  ix[4] = -3;
  ix[6] = -3;
  mk[6] = 0;
  CompileOptions v7x;
  v7x.target = "v7x";
  std::string text = HistogramKernel(16, 1, /*masked=*/true, /*fused=*/true);
  testing::Run run = RunText(text, {{"h", Bytes(h)}, {"ix", Bytes(ix)}, {"mk", Bytes(mk)}}, v7x);
  std::string findings = run.Findings();
  EXPECT_EQ(findings.substr(0, findings.find('\n')),
            "test.scir:10:33: error[RT-BOUNDS]: index -3 in lane 4 is out of bounds for dimension 0 of %h[1, :] (size 32)");
  EXPECT_EQ(run.As<int32_t>("h"), h);
  ix[4] = 4;
  run = RunText(text, {{"h", Bytes(h)}, {"ix", Bytes(ix)}, {"mk", Bytes(mk)}}, v7x);
  findings = run.Findings();
  EXPECT_EQ(findings.substr(0, findings.find('\n')),
            "test.scir:10:33: error[RT-BOUNDS]: index 40 in lane 9 is out of bounds for dimension 0 of %h[1, :] (size 32)");
  CompileOptions unchecked = v7x;
  unchecked.checks.bounds = false;
  LaunchOptions off;
  off.checks = Checks::None();
  run = RunText(text, {{"h", Bytes(h)}, {"ix", Bytes(ix)}, {"mk", Bytes(mk)}}, unchecked, off);
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  std::vector<int32_t> want = h;
  for (int k = 0; k < 16; ++k) {
    if (k != 6) ++want[32 + std::clamp(ix[k], 0, 31)];  // -3 at lane 6 is masked off
  }
  EXPECT_EQ(run.As<int32_t>("h"), want);
}

}  // namespace
}  // namespace scjit::testing
