// The cross-lane value ops (reduce_*, cumsum/cummax/cummin, scan_count,
// popcount_all/ffs_all) on both lane counts, for every dtype they admit and every
// mask pattern (all, none, alternating, random), against scalar references
// written here from sc-semantics.md §3.10-3.14 and runtime.md §7:
//   - float sums accumulate left to right; float max/min propagate NaN, -0 < +0;
//   - int32 orders as signed, uint32 as unsigned;
//   - masked scans pass x through before the first masked-in lane, then hold the
//     running value on masked-off lanes;
//   - scan_count counts 1 on masked-off lanes, which are never "last"; equality
//     is bitwise.
// Each kernel runs its op on R rows of L lanes in a loop; the rows mix random
// data, small values (duplicates) and NaN, ±0, INT_MIN, INT_MAX.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tests/kernel_runner.h"
#include "tests/lane_types.h"

namespace scjit::testing {
namespace {

constexpr int kRows = 8;

// Row r's data and mask. Masks: all, none, alternating, then random.
std::vector<uint32_t> Data(Dt t, int rows, int lanes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(static_cast<size_t>(rows) * lanes);
  for (size_t i = 0; i < v.size(); ++i) {
    int row = static_cast<int>(i / lanes);
    bool small = row % 2 == 1;  // few distinct values: duplicates, ties
    if (t == Dt::kF32) {
      std::uniform_real_distribution<float> d(small ? -3.0f : -1e6f, small ? 3.0f : 1e6f);
      float f = d(rng);
      v[i] = B(small ? std::round(f) : f);
    } else {
      v[i] = small ? rng() % 5 - (t == Dt::kI32 ? 2 : 0) : rng();
    }
  }
  // Corners, in the rows that are not all small values.
  const std::vector<uint32_t> corners = t == Dt::kF32 ? std::vector<uint32_t>{B(NAN), B(-0.0f), B(0.0f), B(INFINITY)}
                                                      : std::vector<uint32_t>{0x80000000u, 0x7FFFFFFFu, 0, 0xFFFFFFFFu};
  size_t corner_row = rows > 2 ? 2 : 0;
  for (size_t k = 0; k < corners.size(); ++k) v[corner_row * lanes + k * 2] = corners[k];
  if (rows > 6) v[static_cast<size_t>(6 * lanes) + 1] = corners[0];  // a NaN / INT_MIN late in a row
  return v;
}

std::vector<uint32_t> Masks(int rows, int lanes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> m(static_cast<size_t>(rows) * lanes);
  for (int r = 0; r < rows; ++r) {
    for (int i = 0; i < lanes; ++i) {
      uint32_t bit = r == 0 ? 1 : r == 1 ? 0 : r == 2 ? i % 2 : rng() % 2;
      m[static_cast<size_t>(r) * lanes + i] = bit;
    }
  }
  return m;
}

// --- References -----------------------------------------------------------------

uint32_t Add(Dt t, uint32_t a, uint32_t b) { return t == Dt::kF32 ? B(F(a) + F(b)) : a + b; }

// max (want_max) or min: signed for i32, unsigned for u32, IEEE maximum/minimum for f32.
uint32_t Pick(Dt t, bool want_max, uint32_t a, uint32_t b) {
  if (t == Dt::kF32) {
    if (std::isnan(F(a))) return a;
    if (std::isnan(F(b))) return b;
    if (F(a) == F(b)) {  // ±0: -0 < +0
      bool a_neg = a >> 31;
      return want_max ? (a_neg ? b : a) : (a_neg ? a : b);
    }
    return (F(a) > F(b)) == want_max ? a : b;
  }
  bool greater = t == Dt::kI32 ? static_cast<int32_t>(a) > static_cast<int32_t>(b) : a > b;
  return greater == want_max ? a : b;
}

bool Same(Dt t, uint32_t a, uint32_t b) {
  if (t == Dt::kF32 && std::isnan(F(a)) && std::isnan(F(b))) return true;
  return a == b;
}

// --- Kernels --------------------------------------------------------------------

struct Launch {
  std::string body;    // uses %v (the row), %mask; defines the row result
  std::string result;  // "vector" (one row of out dtype), "scalar", "count"
};

std::string Kernel(const std::string& x_type, const std::string& out_param, int lanes, const std::string& body) {
  std::string L = std::to_string(lanes);
  return "kernel @k(in %x: vmem<" + std::to_string(kRows) + "x" + L + "x" + x_type + ">, in %m: vmem<" +
         std::to_string(kRows) + "x" + L + "xi32>, " + out_param +
         ")\n"
         "    mesh vector(cores = 1, subcores = 1)\n{\n"
         "  %zero = const dense<0> : vector<" + L + "xi32>\n"
         "  for %r = 0 to " + std::to_string(kRows) + " step 1 {\n"
         "    %v = get %x[%r, :] : vector<" + L + "x" + x_type + ">\n"
         "    %mi = get %m[%r, :] : vector<" + L + "xi32>\n"
         "    %mask = cmp ne %mi, %zero : vector<" + L + "xi1>\n" + body + "  }\n}\n";
}

testing::Run RunOn(const Target& target, const std::string& text, const std::vector<uint32_t>& x,
                   const std::vector<uint32_t>& m, bool host_fast_paths = true) {
  CompileOptions options;
  options.target = target.id;
  options.host_fast_paths = host_fast_paths;
  return RunText(text, {{"x", Bytes(x)}, {"m", Bytes(m)}}, options);
}

struct Param {
  Target target;
  Dt dt;
};

std::vector<Param> AllParams() {
  std::vector<Param> out;
  for (const Target& t : kTargets) {
    for (Dt d : {Dt::kI32, Dt::kU32, Dt::kF32}) out.push_back({t, d});
  }
  return out;
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return std::string(Ir(info.param.dt)) + "_" + info.param.target.name;
}

class LanesTest : public ::testing::TestWithParam<Param> {};

// reduce_sum/max/min of each row to one scalar.
TEST_P(LanesTest, Reductions) {
  const Param& p = GetParam();
  int L = p.target.lanes;
  std::vector<uint32_t> x = Data(p.dt, kRows, L, 1), m = Masks(kRows, L, 2);
  for (const char* op : {"reduce_sum", "reduce_max", "reduce_min"}) {
    SCOPED_TRACE(op);
    std::string body = std::string("    %s = ") + op + " %v : " + Ir(p.dt) + "\n    store %o[%r], %s\n";
    testing::Run run = RunOn(p.target, Kernel(Ir(p.dt), std::string("out %o: smem<") + std::to_string(kRows) + "x" +
                                                            Ir(p.dt) + ">", L, body),
                             x, m);
    ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
    std::vector<uint32_t> o = run.As<uint32_t>("o");
    for (int r = 0; r < kRows; ++r) {
      const uint32_t* row = &x[static_cast<size_t>(r) * L];
      uint32_t want = row[0];
      if (std::string(op) == "reduce_sum") {
        want = p.dt == Dt::kF32 ? B(-0.0f) : 0;
        for (int i = 0; i < L; ++i) want = Add(p.dt, want, row[i]);
      } else {
        for (int i = 1; i < L; ++i) want = Pick(p.dt, std::string(op) == "reduce_max", want, row[i]);
      }
      EXPECT_TRUE(Same(p.dt, o[r], want)) << "row " << r << ": got 0x" << std::hex << o[r] << ", want 0x" << want;
    }
  }
}

// cumsum (masked and unmasked), cummax and cummin (masked).
TEST_P(LanesTest, Scans) {
  const Param& p = GetParam();
  int L = p.target.lanes;
  std::string vec = "vector<" + std::to_string(L) + "x" + Ir(p.dt) + ">";
  std::vector<uint32_t> x = Data(p.dt, kRows, L, 3), m = Masks(kRows, L, 4);
  struct Scan {
    const char* op;
    bool masked;
  };
  for (Scan s : {Scan{"cumsum", false}, Scan{"cumsum", true}, Scan{"cummax", true}, Scan{"cummin", true},
                 Scan{"cummax", false}}) {
    SCOPED_TRACE(std::string(s.op) + (s.masked ? " masked" : ""));
    std::string body = std::string("    %s = ") + s.op + " %v" + (s.masked ? " mask %mask" : "") + " : " + vec +
                       "\n    store %o[%r, :], %s\n";
    testing::Run run = RunOn(p.target, Kernel(Ir(p.dt), "out %o: vmem<" + std::to_string(kRows) + "x" +
                                                            std::to_string(L) + "x" + Ir(p.dt) + ">", L, body),
                             x, m);
    ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
    std::vector<uint32_t> o = run.As<uint32_t>("o");
    for (int r = 0; r < kRows; ++r) {
      bool seen = false;
      uint32_t acc = 0;
      for (int i = 0; i < L; ++i) {
        size_t k = static_cast<size_t>(r) * L + i;
        bool in = !s.masked || m[k] != 0;
        if (in) {
          if (!seen) {
            acc = x[k];
          } else if (std::string(s.op) == "cumsum") {
            acc = Add(p.dt, acc, x[k]);
          } else {
            acc = Pick(p.dt, std::string(s.op) == "cummax", acc, x[k]);
          }
          seen = true;
        }
        uint32_t want = seen ? acc : x[k];
        ASSERT_TRUE(Same(p.dt, o[k], want)) << "row " << r << " lane " << i << ": got 0x" << std::hex << o[k]
                                            << ", want 0x" << want;
      }
    }
  }
}

// scan_count with and without a mask: running occurrence counts and the mask of
// last occurrences; on hosts with AVX-512CD both as vpconflictd and portably.
TEST_P(LanesTest, ScanCount) {
  const Param& p = GetParam();
  int L = p.target.lanes;
  std::string Ls = std::to_string(L);
  std::vector<uint32_t> x = Data(p.dt, kRows, L, 5), m = Masks(kRows, L, 6);
  for (auto [masked, fast] : {std::pair{false, true}, {true, true}, {false, false}, {true, false}}) {
    SCOPED_TRACE(std::string(masked ? "masked" : "unmasked") + (fast ? ", host fast paths" : ", portable"));
    std::string body = "    %c, %last = scan_count %v" + std::string(masked ? " mask %mask" : "") + " : vector<" + Ls +
                       "xi32>, vector<" + Ls + "xi1>\n    store %o[%r, :], %c\n    %li = convert %last : vector<" + Ls +
                       "xi32>\n    store %l[%r, :], %li\n";
    std::string rows = std::to_string(kRows);
    testing::Run run = RunOn(
        p.target,
        Kernel(Ir(p.dt), "out %o: vmem<" + rows + "x" + Ls + "xi32>, out %l: vmem<" + rows + "x" + Ls + "xi32>", L, body),
        x, m, fast);
    ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
    std::vector<int32_t> o = run.As<int32_t>("o"), l = run.As<int32_t>("l");
    for (int r = 0; r < kRows; ++r) {
      for (int i = 0; i < L; ++i) {
        size_t base = static_cast<size_t>(r) * L, k = base + i;
        auto in = [&](int j) { return !masked || m[base + j] != 0; };
        int count = 1;
        bool later = false;
        for (int j = 0; j < L; ++j) {
          if (j == i || !in(j) || x[base + j] != x[k]) continue;
          if (j < i) ++count;
          if (j > i) later = true;
        }
        ASSERT_EQ(o[k], in(i) ? count : 1) << "row " << r << " lane " << i;
        ASSERT_EQ(l[k], in(i) && !later ? 1 : 0) << "row " << r << " lane " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, LanesTest, ::testing::ValuesIn(AllParams()), ParamName);

class MaskLanesTest : public ::testing::TestWithParam<Target> {};

// reduce_and/reduce_or of i1 rows, and popcount_all/ffs_all with reduce 1 and 2.
TEST_P(MaskLanesTest, MaskReductions) {
  const Target& t = GetParam();
  int L = t.lanes;
  std::string Ls = std::to_string(L), half = std::to_string(L / 2), rows = std::to_string(kRows);
  std::vector<uint32_t> x(static_cast<size_t>(kRows) * L, 0), m = Masks(kRows, L, 8);
  m[static_cast<size_t>(3) * L + L - 1] = 1;  // a row whose first set lane is the last
  for (int i = 0; i < L - 1; ++i) m[static_cast<size_t>(3) * L + i] = 0;
  std::string body =
      "    %all = reduce_and %mask : i1\n    %any = reduce_or %mask : i1\n"
      "    %a = convert %all : i32\n    %b = convert %any : i32\n"
      "    store %s[%r, 0], %a\n    store %s[%r, 1], %b\n"
      "    %p = popcount_all %mask {reduce = 1} : vector<" + Ls + "xi32>\n    store %o[%r, 0, :], %p\n"
      "    %f = ffs_all %mask {reduce = 1} : vector<" + Ls + "xi32>\n    store %o[%r, 1, :], %f\n"
      "    %p2 = popcount_all %mask {reduce = 2} : vector<" + half + "xi32>\n"
      "    %f2 = ffs_all %mask {reduce = 2} : vector<" + half + "xi32>\n"
      "    %both = concat %p2, %f2 {axis = 0} : vector<" + Ls + "xi32>\n    store %o[%r, 2, :], %both\n";
  testing::Run run = RunOn(t,
                           Kernel("i32", "out %s: smem<" + rows + "x2xi32>, out %o: vmem<" + rows + "x3x" + Ls + "xi32>",
                                  L, body),
                           x, m);
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<int32_t> s = run.As<int32_t>("s"), o = run.As<int32_t>("o");
  for (int r = 0; r < kRows; ++r) {
    int pop = 0, first = L;
    for (int i = L - 1; i >= 0; --i) {
      if (m[static_cast<size_t>(r) * L + i] != 0) {
        ++pop;
        first = i;
      }
    }
    EXPECT_EQ(s[r * 2], pop == L ? 1 : 0) << "reduce_and, row " << r;
    EXPECT_EQ(s[r * 2 + 1], pop > 0 ? 1 : 0) << "reduce_or, row " << r;
    for (int i = 0; i < L; ++i) {
      size_t k = static_cast<size_t>(r) * 3 * L;
      ASSERT_EQ(o[k + i], pop) << "popcount_all, row " << r;
      ASSERT_EQ(o[k + L + i], first) << "ffs_all, row " << r;
      ASSERT_EQ(o[k + 2 * L + i], i < L / 2 ? pop : first) << "reduce = 2, row " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, MaskLanesTest, ::testing::ValuesIn(kTargets),
                         [](const ::testing::TestParamInfo<Target>& info) { return std::string(info.param.name); });

// Values longer than a register (sc-semantics.md §1.6 allows any length for these
// rank-1 ops): reductions and scans carry their state from chunk to chunk, and
// scan_count of long rows loops over the row.
TEST(LanesLargeTest, LongVectors) {
  constexpr int n = 1000;
  std::vector<uint32_t> xi = Data(Dt::kI32, 1, n, 9), xf = Data(Dt::kF32, 1, n, 10);
  for (int i = 0; i < n; i += 3) xi[i] %= 7;  // duplicates for scan_count
  std::vector<uint32_t> m(n);
  std::mt19937 rng(11);
  for (uint32_t& b : m) b = rng() % 2;
  for (int i = 0; i < 100; ++i) m[i] = 0;  // the first masked-in lane is in a later chunk
  testing::Run run = RunText(R"(kernel @k(in %xi: vmem<1000xi32>, in %xf: vmem<1000xf32>, in %m: vmem<1000xi32>,
          out %s: smem<4xi32>, out %sf: smem<1xf32>, out %cs: vmem<1000xi32>, out %cm: vmem<1000xf32>,
          out %cf: vmem<1000xf32>, out %cnt: vmem<1000xi32>, out %pf: vmem<2x1000xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %x = get %xi[:] : vector<1000xi32>
  %f = get %xf[:] : vector<1000xf32>
  %mi = get %m[:] : vector<1000xi32>
  %zero = const dense<0> : vector<1000xi32>
  %mask = cmp ne %mi, %zero : vector<1000xi1>
  %sum = reduce_sum %x : i32
  store %s[0], %sum
  %max = reduce_max %x : i32
  store %s[1], %max
  %fsum = reduce_sum %f : f32
  store %sf[0], %fsum
  %c1 = cumsum %x mask %mask : vector<1000xi32>
  store %cs[:], %c1
  %c2 = cummax %f mask %mask : vector<1000xf32>
  store %cm[:], %c2
  %c3 = cumsum %f : vector<1000xf32>
  store %cf[:], %c3
  %cnt4, %last4 = scan_count %x mask %mask : vector<1000xi32>, vector<1000xi1>
  store %cnt[:], %cnt4
  %p = popcount_all %mask {reduce = 1} : vector<1000xi32>
  store %pf[0, :], %p
  %ff = ffs_all %mask {reduce = 1} : vector<1000xi32>
  store %pf[1, :], %ff
}
)",
                             {{"xi", Bytes(xi)}, {"xf", Bytes(xf)}, {"m", Bytes(m)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<uint32_t> s = run.As<uint32_t>("s"), sf = run.As<uint32_t>("sf");
  uint32_t sum = 0, max = xi[0], fsum = B(-0.0f);
  for (int i = 0; i < n; ++i) {
    sum += xi[i];
    max = Pick(Dt::kI32, true, max, xi[i]);
    fsum = Add(Dt::kF32, fsum, xf[i]);
  }
  EXPECT_EQ(s[0], sum);
  EXPECT_EQ(s[1], max);
  EXPECT_TRUE(Same(Dt::kF32, sf[0], fsum)) << std::hex << sf[0] << " vs " << fsum;
  std::vector<uint32_t> cs = run.As<uint32_t>("cs"), cm = run.As<uint32_t>("cm"), cf = run.As<uint32_t>("cf");
  std::vector<int32_t> cnt = run.As<int32_t>("cnt"), pf = run.As<int32_t>("pf");
  bool seen = false;
  uint32_t acc_s = 0, acc_m = 0, acc_f = B(-0.0f);
  int pop = 0, first = n;
  for (int i = 0; i < n; ++i) {
    acc_f = Add(Dt::kF32, acc_f, xf[i]);
    ASSERT_TRUE(Same(Dt::kF32, cf[i], acc_f)) << i;
    if (m[i] != 0) {
      acc_s = seen ? acc_s + xi[i] : xi[i];
      acc_m = seen ? Pick(Dt::kF32, true, acc_m, xf[i]) : xf[i];
      seen = true;
      ++pop;
      if (first == n) first = i;
    }
    ASSERT_EQ(cs[i], seen ? acc_s : xi[i]) << i;
    ASSERT_TRUE(Same(Dt::kF32, cm[i], seen ? acc_m : xf[i])) << i;
    int count = 1;
    for (int j = 0; j < i; ++j) count += m[i] != 0 && m[j] != 0 && xi[j] == xi[i];
    ASSERT_EQ(cnt[i], count) << i;
  }
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(pf[i], pop);
    ASSERT_EQ(pf[n + i], first);
  }
}

}  // namespace
}  // namespace scjit::testing
