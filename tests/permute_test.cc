// sort, sort_key_val, rev and the value gather on both lane counts, against
// scalar references written here from sc-semantics.md §3.13, §3.16 and
// runtime.md §7.5, §7.11 (and docs/runtime.md where the spec is open):
//   - sort_key_val: masked-in lanes first, stably ordered by key (ties keep their
//     index order in both directions), then the masked-out lanes in their
//     original order; out_mask[i] = i < popcount(mask); i32 keys order as signed,
//     u32 as unsigned, f32 numerically with -0 == +0 and NaN last in both
//     directions (numpy's argsort(±key, kind="stable"));
//   - sort (lax.sort): stable and ascending, integer keys compared as unsigned
//     (negative i32 keys land after the non-negative ones), with the
//     RT-SORT-SIGN warning in checked mode;
//   - rev: out[i] = x[L-1-i]; gather: out[.., i, ..] = x[.., idx[.., i, ..] mod M, ..]
//     with the index taken into [0, M) also when negative, never a finding.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/kernel_runner.h"
#include "tests/lane_types.h"

namespace scjit::testing {
namespace {

constexpr int kRows = 16;

CompileOptions On(const Target& t) {
  CompileOptions o;
  o.target = t.id;
  return o;
}

// Keys of kRows rows: row r / 4 picks random bits, a few small values
// (duplicates), the corner values, or one value repeated (all ties).
std::vector<uint32_t> Keys(Dt t, int lanes, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<uint32_t> corners =
      t == Dt::kF32   ? std::vector<uint32_t>{B(NAN), 0xFFC00000u /* -NaN */, B(INFINITY), B(-INFINITY), B(-0.0f),
                                            B(0.0f), B(1.0f), B(-1.0f)}
      : t == Dt::kI32 ? std::vector<uint32_t>{0x80000000u, 0x7FFFFFFFu, 0, 0xFFFFFFFFu, 1, 0xFFFFFFFEu}
                      : std::vector<uint32_t>{0, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 1};
  std::vector<uint32_t> v(static_cast<size_t>(kRows) * lanes);
  for (int r = 0; r < kRows; ++r) {
    uint32_t same = corners[rng() % corners.size()];
    for (int i = 0; i < lanes; ++i) {
      uint32_t& k = v[static_cast<size_t>(r) * lanes + i];
      switch (r / 4) {
        case 0:
          k = t == Dt::kF32 ? B(std::uniform_real_distribution<float>(-1e6f, 1e6f)(rng)) : rng();
          break;
        case 1:
          if (t == Dt::kF32) {
            float f = static_cast<float>(static_cast<int>(rng() % 5) - 2);
            k = f == 0 && rng() % 2 ? B(-0.0f) : B(f);
          } else {
            k = t == Dt::kI32 ? static_cast<uint32_t>(static_cast<int>(rng() % 5) - 2) : rng() % 3;
          }
          break;
        case 2:
          k = corners[rng() % corners.size()];
          break;
        default:
          k = same;
      }
    }
  }
  return v;
}

// Distinct payload bits per element (so a wrong permutation shows).
std::vector<uint32_t> Values(Dt t, int lanes) {
  std::vector<uint32_t> v(static_cast<size_t>(kRows) * lanes);
  for (size_t i = 0; i < v.size(); ++i) v[i] = t == Dt::kF32 ? B(static_cast<float>(i) + 0.5f) : 1000 + 7 * i;
  return v;
}

// Masks of each row: all, none, alternating, random (by r % 4).
std::vector<uint32_t> Masks(int lanes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> m(static_cast<size_t>(kRows) * lanes);
  for (int r = 0; r < kRows; ++r) {
    for (int i = 0; i < lanes; ++i) {
      m[static_cast<size_t>(r) * lanes + i] = r % 4 == 0 ? 1 : r % 4 == 1 ? 0 : r % 4 == 2 ? i % 2 : rng() % 2;
    }
  }
  return m;
}

// "a sorts before b" for sort_key_val: signed i32, unsigned u32, f32 numeric
// with NaN after every number in both directions and -0 == +0.
bool KeyValBefore(Dt t, bool descending, uint32_t a, uint32_t b) {
  if (t == Dt::kF32) {
    if (std::isnan(F(a))) return false;
    if (std::isnan(F(b))) return true;
    return descending ? F(a) > F(b) : F(a) < F(b);
  }
  if (t == Dt::kI32) {
    return descending ? static_cast<int32_t>(a) > static_cast<int32_t>(b) : static_cast<int32_t>(a) < static_cast<int32_t>(b);
  }
  return descending ? a > b : a < b;
}

// "a sorts before b" for lax.sort: integers as unsigned bits (the hardware), f32
// like sort_key_val ascending.
bool SortBefore(Dt t, uint32_t a, uint32_t b) { return t == Dt::kF32 ? KeyValBefore(t, false, a, b) : a < b; }

// The order a row's lanes end up in: the lanes `in` admits, stably sorted by
// `before` on their keys, then the others in index order.
std::vector<int> RowOrder(const uint32_t* keys, int lanes, const std::function<bool(int)>& in,
                          const std::function<bool(uint32_t, uint32_t)>& before) {
  std::vector<int> valid, rest;
  for (int i = 0; i < lanes; ++i) (in(i) ? valid : rest).push_back(i);
  std::stable_sort(valid.begin(), valid.end(), [&](int a, int b) { return before(keys[a], keys[b]); });
  valid.insert(valid.end(), rest.begin(), rest.end());
  return valid;
}

struct SortParam {
  Target target;
  Dt keys, values;
};

void PrintTo(const SortParam& p, std::ostream* os) { *os << Ir(p.keys) << " keys, " << Ir(p.values) << " values, " << p.target.name; }

std::vector<SortParam> SortParams() {
  std::vector<SortParam> out;
  for (const Target& t : kTargets) {
    for (Dt k : {Dt::kI32, Dt::kU32, Dt::kF32}) {
      for (Dt v : {Dt::kI32, Dt::kF32}) out.push_back({t, k, v});
    }
  }
  return out;
}

std::string SortParamName(const ::testing::TestParamInfo<SortParam>& info) {
  return std::string(Ir(info.param.keys)) + "_" + Ir(info.param.values) + "_" + info.param.target.name;
}

class SortKeyValTest : public ::testing::TestWithParam<SortParam> {};

// Four sorts of every row: ascending and descending, without and with the mask.
TEST_P(SortKeyValTest, StableMaskedBothDirections) {
  const SortParam& p = GetParam();
  int L = p.target.lanes;
  std::string Ls = std::to_string(L), R = std::to_string(kRows);
  std::string kv = "vector<" + Ls + "x" + Ir(p.keys) + ">", vv = "vector<" + Ls + "x" + Ir(p.values) + ">";
  std::string mv = "vector<" + Ls + "xi1>";
  std::string text = "kernel @k(in %x: vmem<" + R + "x" + Ls + "x" + Ir(p.keys) + ">, in %y: vmem<" + R + "x" + Ls +
                     "x" + Ir(p.values) + ">, in %m: vmem<" + R + "x" + Ls + "xi32>, out %o: vmem<4x" + R + "x" + Ls +
                     "x" + Ir(p.keys) + ">, out %p: vmem<4x" + R + "x" + Ls + "x" + Ir(p.values) +
                     ">, out %q: vmem<2x" + R + "x" + Ls + "xi32>)\n"
                     "    mesh vector(cores = 1, subcores = 1)\n{\n"
                     "  %zero = const dense<0> : vector<" + Ls + "xi32>\n"
                     "  for %r = 0 to " + R + " step 1 {\n"
                     "    %k = get %x[%r, :] : " + kv + "\n"
                     "    %v = get %y[%r, :] : " + vv + "\n"
                     "    %mi = get %m[%r, :] : vector<" + Ls + "xi32>\n"
                     "    %mask = cmp ne %mi, %zero : " + mv + "\n";
  for (int s = 0; s < 4; ++s) {
    std::string n = std::to_string(s), desc = s % 2 ? "true" : "false";
    bool masked = s >= 2;
    text += "    %a" + n + ", %b" + n + (masked ? ", %c" + n : "") + " = sort_key_val %k, %v" +
            (masked ? " mask %mask" : "") + " {descending = " + desc + "} : " + kv + ", " + vv +
            (masked ? ", " + mv : "") + "\n";
    text += "    store %o[" + n + ", %r, :], %a" + n + "\n    store %p[" + n + ", %r, :], %b" + n + "\n";
    if (masked) {
      text += "    %d" + n + " = convert %c" + n + " : vector<" + Ls + "xi32>\n    store %q[" + std::to_string(s - 2) +
              ", %r, :], %d" + n + "\n";
    }
  }
  text += "  }\n}\n";
  std::vector<uint32_t> x = Keys(p.keys, L, 1), y = Values(p.values, L), m = Masks(L, 2);
  testing::Run run = RunText(text, {{"x", Bytes(x)}, {"y", Bytes(y)}, {"m", Bytes(m)}}, On(p.target));
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<uint32_t> o = run.As<uint32_t>("o"), pv = run.As<uint32_t>("p"), q = run.As<uint32_t>("q");
  for (int s = 0; s < 4; ++s) {
    bool descending = s % 2 == 1, masked = s >= 2;
    for (int r = 0; r < kRows; ++r) {
      size_t base = static_cast<size_t>(r) * L;
      auto in = [&](int i) { return !masked || m[base + i] != 0; };
      std::vector<int> order = RowOrder(&x[base], L, in, [&](uint32_t a, uint32_t b) {
        return KeyValBefore(p.keys, descending, a, b);
      });
      int count = 0;
      for (int i = 0; i < L; ++i) count += in(i);
      for (int i = 0; i < L; ++i) {
        size_t at = static_cast<size_t>(s) * kRows * L + base + i;
        ASSERT_EQ(o[at], x[base + order[i]]) << "sort " << s << " row " << r << " lane " << i;
        ASSERT_EQ(pv[at], y[base + order[i]]) << "sort " << s << " row " << r << " lane " << i;
        if (masked) {
          ASSERT_EQ(q[static_cast<size_t>(s - 2) * kRows * L + base + i], i < count ? 1u : 0u)
              << "out mask, sort " << s << " row " << r << " lane " << i;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SortKeyValTest, ::testing::ValuesIn(SortParams()), SortParamName);

struct KeyParam {
  Target target;
  Dt keys;
};

void PrintTo(const KeyParam& p, std::ostream* os) { *os << Ir(p.keys) << " keys, " << p.target.name; }

std::vector<KeyParam> KeyParams() {
  std::vector<KeyParam> out;
  for (const Target& t : kTargets) {
    for (Dt k : {Dt::kI32, Dt::kU32, Dt::kF32}) out.push_back({t, k});
  }
  return out;
}

class SortTest : public ::testing::TestWithParam<KeyParam> {};

// lax.sort of keys alone, with one value and with two values.
TEST_P(SortTest, AscendingStableUnsignedIntegers) {
  const KeyParam& p = GetParam();
  int L = p.target.lanes;
  std::string Ls = std::to_string(L), R = std::to_string(kRows);
  std::string kv = "vector<" + Ls + "x" + Ir(p.keys) + ">", iv = "vector<" + Ls + "xi32>",
              fv = "vector<" + Ls + "xf32>";
  std::string rows = R + "x" + Ls;
  std::string text = "kernel @k(in %x: vmem<" + rows + "x" + Ir(p.keys) + ">, in %y: vmem<" + rows +
                     "xi32>, in %z: vmem<" + rows + "xf32>, out %o: vmem<3x" + rows + "x" + Ir(p.keys) +
                     ">, out %p: vmem<2x" + rows + "xi32>, out %q: vmem<" + rows + "xf32>)\n"
                     "    mesh vector(cores = 1, subcores = 1)\n{\n"
                     "  for %r = 0 to " + R + " step 1 {\n"
                     "    %k = get %x[%r, :] : " + kv + "\n"
                     "    %v = get %y[%r, :] : " + iv + "\n"
                     "    %w = get %z[%r, :] : " + fv + "\n"
                     "    %s0 = sort %k : " + kv + "\n"
                     "    store %o[0, %r, :], %s0\n"
                     "    %s1, %t1 = sort %k, %v : " + kv + ", " + iv + "\n"
                     "    store %o[1, %r, :], %s1\n    store %p[0, %r, :], %t1\n"
                     "    %s2, %t2, %u2 = sort %k, %v, %w {num_keys = 1} : " + kv + ", " + iv + ", " + fv + "\n"
                     "    store %o[2, %r, :], %s2\n    store %p[1, %r, :], %t2\n    store %q[%r, :], %u2\n"
                     "  }\n}\n";
  std::vector<uint32_t> x = Keys(p.keys, L, 3), y = Values(Dt::kI32, L), z = Values(Dt::kF32, L);
  testing::Run run = RunText(text, {{"x", Bytes(x)}, {"y", Bytes(y)}, {"z", Bytes(z)}}, On(p.target));
  ASSERT_TRUE(run.status.ok()) << run.diagnostics << run.status;
  // Signed keys with negatives warn, once per op and subcore; the run goes on.
  if (p.keys == Dt::kI32) {
    ASSERT_EQ(run.findings.size(), 3u) << run.Findings();
    for (const Diagnostic& d : run.findings) {
      EXPECT_EQ(d.code, "RT-SORT-SIGN");
      EXPECT_EQ(d.severity, Severity::kWarning);
    }
  } else {
    EXPECT_TRUE(run.findings.empty()) << run.Findings();
  }
  std::vector<uint32_t> o = run.As<uint32_t>("o"), pv = run.As<uint32_t>("p"), q = run.As<uint32_t>("q");
  size_t plane = static_cast<size_t>(kRows) * L;
  for (int r = 0; r < kRows; ++r) {
    size_t base = static_cast<size_t>(r) * L;
    std::vector<int> order = RowOrder(&x[base], L, [](int) { return true; },
                                      [&](uint32_t a, uint32_t b) { return SortBefore(p.keys, a, b); });
    for (int i = 0; i < L; ++i) {
      for (int s = 0; s < 3; ++s) ASSERT_EQ(o[s * plane + base + i], x[base + order[i]]) << s << " row " << r << " lane " << i;
      ASSERT_EQ(pv[base + i], y[base + order[i]]) << "row " << r << " lane " << i;
      ASSERT_EQ(pv[plane + base + i], y[base + order[i]]) << "row " << r << " lane " << i;
      ASSERT_EQ(q[base + i], z[base + order[i]]) << "row " << r << " lane " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SortTest, ::testing::ValuesIn(KeyParams()),
                         [](const ::testing::TestParamInfo<KeyParam>& info) {
                           return std::string(Ir(info.param.keys)) + "_" + info.param.target.name;
                         });

// The RT-SORT-SIGN warning: its text and location, none without negative keys or
// unchecked, and the kernel runs to its end either way.
TEST(SortSignTest, WarnsAboutNegativeKeysAndGoesOn) {
  const std::string text = R"(kernel @k(in %x: vmem<16xi32>, out %o: vmem<16xi32>, out %done: smem<1xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %k = get %x[:] : vector<16xi32>
  %s = sort %k : vector<16xi32>
  store %o[:], %s
  %one = const 1 : i32
  store %done[0], %one
}
)";
  std::vector<int32_t> x(16);
  std::iota(x.begin(), x.end(), -5);  // -5 ... 10
  std::vector<int32_t> want;          // unsigned order: 0 ... 10, then -5 ... -1
  for (int i = 0; i <= 10; ++i) want.push_back(i);
  for (int i = -5; i < 0; ++i) want.push_back(i);
  testing::Run run = RunText(text, {{"x", Bytes(x)}});
  ASSERT_TRUE(run.status.ok()) << run.diagnostics;
  EXPECT_EQ(run.Findings(),
            R"(test.scir:5:8: warning[RT-SORT-SIGN]: sort orders its i32 keys as unsigned, like SparseCore: the negative keys sort after the non-negative ones
    5 |   %s = sort %k : vector<16xi32>
      |        ^~~~
note: in kernel @k, subcore (core 0, subcore 0)
help: use sort_key_val, which orders i32 keys as signed, or make the keys non-negative
)");
  EXPECT_EQ(run.As<int32_t>("o"), want);
  EXPECT_EQ(run.As<int32_t>("done")[0], 1);
  // Unchecked: the same order, no finding.
  LaunchOptions unchecked;
  unchecked.checks = Checks::None();
  run = RunText(text, {{"x", Bytes(x)}}, {}, unchecked);
  EXPECT_TRUE(run.ok()) << run.Findings();
  EXPECT_EQ(run.As<int32_t>("o"), want);
  // No negative key, no finding.
  std::vector<int32_t> positive(16);
  for (int i = 0; i < 16; ++i) positive[i] = (i * 7) % 16;
  run = RunText(text, {{"x", Bytes(positive)}});
  EXPECT_TRUE(run.ok()) << run.Findings();
  std::sort(positive.begin(), positive.end());
  EXPECT_EQ(run.As<int32_t>("o"), positive);
  // One warning per op and launch, from the first subcore, at any thread count.
  std::string mesh = text;
  mesh.replace(mesh.find("subcores = 1"), 12, "subcores = 4");
  for (int threads : {1, 2}) {
    LaunchOptions launch;
    launch.threads = threads;
    run = RunText(mesh, {{"x", Bytes(x)}}, {}, launch);
    ASSERT_EQ(run.findings.size(), 1u) << run.Findings();
    EXPECT_EQ(run.findings[0].notes, std::vector<std::string>{"in kernel @k, subcore (core 0, subcore 0)"});
    EXPECT_EQ(run.As<int32_t>("o"), want);
  }
}

// JAX 0.12.1's lax.sort flips the sign bit of i32 keys around the hardware's
// unsigned sort: they order as signed, values with them, and nothing warns.
TEST(SortSignTest, SignedFromJax0121) {
  const std::string text = R"(kernel @k(in %x: vmem<16xi32>, in %y: vmem<16xi32>, out %o: vmem<16xi32>, out %p: vmem<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %k = get %x[:] : vector<16xi32>
  %v = get %y[:] : vector<16xi32>
  %s, %t = sort %k, %v : vector<16xi32>, vector<16xi32>
  store %o[:], %s
  store %p[:], %t
}
)";
  std::vector<int32_t> x(16), y(16);
  for (int i = 0; i < 16; ++i) {
    x[i] = (i * 5) % 16 - 8;  // -8 ... 7, shuffled
    y[i] = 100 + i;
  }
  std::vector<int> order(16);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return x[a] < x[b]; });
  std::vector<int32_t> keys, values;
  for (int i : order) {
    keys.push_back(x[i]);
    values.push_back(y[i]);
  }
  CompileOptions compile;
  compile.jax = "0.12.1";
  testing::Run run = RunText(text, {{"x", Bytes(x)}, {"y", Bytes(y)}}, compile);
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  EXPECT_EQ(run.As<int32_t>("o"), keys);
  EXPECT_EQ(run.As<int32_t>("p"), values);
  // 0.12.0: unsigned, and the warning.
  compile.jax = "0.12.0";
  run = RunText(text, {{"x", Bytes(x)}, {"y", Bytes(y)}}, compile);
  ASSERT_EQ(run.findings.size(), 1u) << run.Findings();
  EXPECT_EQ(run.findings[0].code, "RT-SORT-SIGN");
  EXPECT_EQ(run.As<int32_t>("o")[0], 0);
}

// The repository's sort_key_val example gives the output its comment states.
TEST(SortExampleTest, SortKeyValExample) {
  std::vector<int32_t> iota(16);
  std::iota(iota.begin(), iota.end(), 0);
  testing::Run run = RunFile("examples/sort_key_val.scir", {{"mask_in", Bytes(iota)}, {"keys", Bytes(iota)},
                                                            {"vals", Bytes(iota)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<int32_t> desc(16), mask(16, 1);
  for (int i = 0; i < 16; ++i) desc[i] = 15 - i;
  mask[15] = 0;
  EXPECT_EQ(run.As<int32_t>("okeys"), desc);
  EXPECT_EQ(run.As<int32_t>("ovals"), desc);
  EXPECT_EQ(run.As<int32_t>("omask"), mask);
}

// --- rev and gather ----------------------------------------------------------------

// x[.., idx mod m, ..] as take_along_axis with Mosaic's modulo.
int64_t Mod(int64_t i, int64_t m) { return ((i % m) + m) % m; }

class RegisterPermuteTest : public ::testing::TestWithParam<Target> {};

// (L,) rev of i32, f32 and i1; gathers of i32, f32 and i1 with in-range,
// duplicated, negative and far out-of-range i32 indices and u32 indices.
TEST_P(RegisterPermuteTest, RevAndGather) {
  const Target& t = GetParam();
  int L = t.lanes;
  std::string Ls = std::to_string(L);
  std::string iv = "vector<" + Ls + "xi32>", fv = "vector<" + Ls + "xf32>", mv = "vector<" + Ls + "xi1>";
  constexpr int kPatterns = 4;
  std::string P = std::to_string(kPatterns);
  std::string text = "kernel @k(in %xi: vmem<" + Ls + "xi32>, in %xf: vmem<" + Ls + "xf32>, in %idx: vmem<" + P + "x" +
                     Ls + "xi32>, out %ri: vmem<2x" + Ls + "xi32>, out %rf: vmem<" + Ls + "xf32>, out %gi: vmem<" +
                     P + "x3x" + Ls + "xi32>, out %gf: vmem<" + P + "x" + Ls + "xf32>)\n"
                     "    mesh vector(cores = 1, subcores = 1)\n{\n"
                     "  %a = get %xi[:] : " + iv + "\n"
                     "  %f = get %xf[:] : " + fv + "\n"
                     "  %two = const dense<2> : " + iv + "\n"
                     "  %lo = cmp lt %a, %two : " + mv + "\n"
                     "  %ra = rev %a {axis = 0} : " + iv + "\n"
                     "  store %ri[0, :], %ra\n"
                     "  %rm = rev %lo {axis = 0} : " + mv + "\n"
                     "  %rmi = convert %rm : " + iv + "\n"
                     "  store %ri[1, :], %rmi\n"
                     "  %rfv = rev %f {axis = 0} : " + fv + "\n"
                     "  store %rf[:], %rfv\n"
                     "  for %p = 0 to " + P + " step 1 {\n"
                     "    %i = get %idx[%p, :] : " + iv + "\n"
                     "    %g = gather %a, %i {axis = 0} : " + iv + "\n"
                     "    store %gi[%p, 0, :], %g\n"
                     "    %gm = gather %lo, %i {axis = 0} : " + mv + "\n"
                     "    %gmi = convert %gm : " + iv + "\n"
                     "    store %gi[%p, 1, :], %gmi\n"
                     "    %u = bitcast %i : vector<" + Ls + "xu32>\n"
                     "    %gu = gather %a, %u {axis = 0} : " + iv + "\n"
                     "    store %gi[%p, 2, :], %gu\n"
                     "    %g2 = gather %f, %i {axis = 0} : " + fv + "\n"
                     "    store %gf[%p, :], %g2\n"
                     "  }\n}\n";
  std::mt19937 rng(7);
  std::vector<int32_t> a(L), idx(static_cast<size_t>(kPatterns) * L);
  std::vector<float> f(L);
  for (int i = 0; i < L; ++i) {
    a[i] = static_cast<int32_t>(rng() % 5) - 1;
    f[i] = static_cast<float>(i) * 1.5f - 3.0f;
  }
  f[1] = NAN;
  f[2] = -0.0f;
  for (int i = 0; i < L; ++i) {
    idx[i] = static_cast<int32_t>(rng() % L);                       // in range, duplicates
    idx[L + i] = -1 - i;                                             // negative: -1 ... -L
    idx[2 * L + i] = static_cast<int32_t>(rng() % 100000) - 50000;  // far out of range
    idx[3 * L + i] = i % 2 ? INT_MIN + i : INT_MAX - i;
  }
  testing::Run run = RunText(text, {{"xi", Bytes(a)}, {"xf", Bytes(f)}, {"idx", Bytes(idx)}}, On(t));
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<int32_t> ri = run.As<int32_t>("ri"), gi = run.As<int32_t>("gi");
  std::vector<uint32_t> rf = run.As<uint32_t>("rf"), gf = run.As<uint32_t>("gf");
  for (int i = 0; i < L; ++i) {
    EXPECT_EQ(ri[i], a[L - 1 - i]) << i;
    EXPECT_EQ(ri[L + i], a[L - 1 - i] < 2 ? 1 : 0) << i;
    EXPECT_EQ(rf[i], B(f[L - 1 - i])) << i;
  }
  for (int p = 0; p < kPatterns; ++p) {
    for (int i = 0; i < L; ++i) {
      int32_t k = idx[static_cast<size_t>(p) * L + i];
      int64_t j = Mod(k, L), ju = static_cast<int64_t>(static_cast<uint32_t>(k) % static_cast<uint32_t>(L));
      size_t at = static_cast<size_t>(p) * 3 * L;
      EXPECT_EQ(gi[at + i], a[j]) << "pattern " << p << " lane " << i << " index " << k;
      EXPECT_EQ(gi[at + L + i], a[j] < 2 ? 1 : 0) << "pattern " << p << " lane " << i;
      EXPECT_EQ(gi[at + 2 * L + i], a[ju]) << "pattern " << p << " lane " << i;
      EXPECT_EQ(gf[static_cast<size_t>(p) * L + i], B(f[j])) << "pattern " << p << " lane " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, RegisterPermuteTest, ::testing::ValuesIn(kTargets),
                         [](const ::testing::TestParamInfo<Target>& info) { return std::string(info.param.name); });

// take_along_axis on (2,8,64) f32 and i32 values (large: they live in buffers)
// along each axis, on (3,10,40) (axes whose size is not a power of two) and with
// fewer indices than the axis; rev of (2,8,64) along axis 0.
TEST(LargePermuteTest, GatherAlongEveryAxis) {
  const std::string text = R"(kernel @k(in %xf: vmem<2x8x64xf32>, in %xi: vmem<2x8x64xi32>, in %y: vmem<3x10x40xf32>,
          in %i0: vmem<2x8x64xi32>, in %i1: vmem<2x8x64xi32>, in %i2: vmem<2x8x64xi32>,
          in %j0: vmem<3x10x40xi32>, in %j1: vmem<3x10x40xi32>, in %j2: vmem<3x10x40xu32>, in %k2: vmem<2x8x4xi32>,
          out %of: vmem<3x2x8x64xf32>, out %oi: vmem<3x2x8x64xi32>, out %oy: vmem<3x3x10x40xf32>,
          out %ok: vmem<2x8x4xi32>, out %rv: vmem<2x8x64xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %f = get %xf[:, :, :] : vector<2x8x64xf32>
  %x = get %xi[:, :, :] : vector<2x8x64xi32>
  %y3 = get %y[:, :, :] : vector<3x10x40xf32>
  %a0 = get %i0[:, :, :] : vector<2x8x64xi32>
  %a1 = get %i1[:, :, :] : vector<2x8x64xi32>
  %a2 = get %i2[:, :, :] : vector<2x8x64xi32>
  %b0 = get %j0[:, :, :] : vector<3x10x40xi32>
  %b1 = get %j1[:, :, :] : vector<3x10x40xi32>
  %b2 = get %j2[:, :, :] : vector<3x10x40xu32>
  %c2 = get %k2[:, :, :] : vector<2x8x4xi32>
  %f0 = gather %f, %a0 {axis = 0} : vector<2x8x64xf32>
  store %of[0, :, :, :], %f0
  %f1 = gather %f, %a1 {axis = 1} : vector<2x8x64xf32>
  store %of[1, :, :, :], %f1
  %f2 = gather %f, %a2 {axis = 2} : vector<2x8x64xf32>
  store %of[2, :, :, :], %f2
  %x0 = gather %x, %a0 {axis = 0} : vector<2x8x64xi32>
  store %oi[0, :, :, :], %x0
  %x1 = gather %x, %a1 {axis = 1} : vector<2x8x64xi32>
  store %oi[1, :, :, :], %x1
  %x2 = gather %x, %a2 {axis = 2} : vector<2x8x64xi32>
  store %oi[2, :, :, :], %x2
  %y0 = gather %y3, %b0 {axis = 0} : vector<3x10x40xf32>
  store %oy[0, :, :, :], %y0
  %y1 = gather %y3, %b1 {axis = 1} : vector<3x10x40xf32>
  store %oy[1, :, :, :], %y1
  %yu = gather %y3, %b2 {axis = 2} : vector<3x10x40xf32>
  store %oy[2, :, :, :], %yu
  %s = gather %x, %c2 {axis = 2} : vector<2x8x4xi32>
  store %ok[:, :, :], %s
  %r = rev %x {axis = 0} : vector<2x8x64xi32>
  store %rv[:, :, :], %r
}
)";
  std::mt19937 rng(9);
  auto ints = [&](size_t n, int lo, int hi) {
    std::vector<int32_t> v(n);
    for (int32_t& e : v) e = lo + static_cast<int32_t>(rng() % static_cast<uint32_t>(hi - lo + 1));
    return v;
  };
  const size_t n = 2 * 8 * 64, ny = 3 * 10 * 40;
  std::vector<float> f(n), y(ny);
  for (size_t i = 0; i < n; ++i) f[i] = static_cast<float>(i) * 0.25f - 100.0f;
  for (size_t i = 0; i < ny; ++i) y[i] = static_cast<float>(i) + 0.5f;
  std::vector<int32_t> x = ints(n, -1000000, 1000000);
  // Indices mix negatives and values far outside every axis.
  std::vector<int32_t> i0 = ints(n, -300, 300), i1 = ints(n, -300, 300), i2 = ints(n, -300, 300);
  std::vector<int32_t> j0 = ints(ny, -300, 300), j1 = ints(ny, -300, 300), k2 = ints(2 * 8 * 4, -300, 300);
  std::vector<int32_t> j2 = ints(ny, -300, 300);  // read as u32: huge for the negatives
  i0[5] = INT_MIN;
  j1[7] = INT_MIN;
  j1[8] = INT_MAX;
  testing::Run run = RunText(text, {{"xf", Bytes(f)}, {"xi", Bytes(x)}, {"y", Bytes(y)}, {"i0", Bytes(i0)},
                                    {"i1", Bytes(i1)}, {"i2", Bytes(i2)}, {"j0", Bytes(j0)}, {"j1", Bytes(j1)},
                                    {"j2", Bytes(j2)}, {"k2", Bytes(k2)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<float> of = run.As<float>("of"), oy = run.As<float>("oy");
  std::vector<int32_t> oi = run.As<int32_t>("oi"), ok = run.As<int32_t>("ok"), rv = run.As<int32_t>("rv");
  // Where output element (a, b, c) comes from in a source of shape (_, Bsrc, Csrc)
  // when its index along `axis` is j.
  auto source = [](int64_t a, int64_t b, int64_t c, int axis, int64_t j, int64_t Bsrc, int64_t Csrc) {
    if (axis == 0) return (j * Bsrc + b) * Csrc + c;
    if (axis == 1) return (a * Bsrc + j) * Csrc + c;
    return (a * Bsrc + b) * Csrc + j;
  };
  const std::vector<int32_t>* idx[] = {&i0, &i1, &i2};
  const int64_t sizes[] = {2, 8, 64};
  for (int axis = 0; axis < 3; ++axis) {
    for (int64_t a = 0; a < 2; ++a) {
      for (int64_t b = 0; b < 8; ++b) {
        for (int64_t c = 0; c < 64; ++c) {
          size_t k = static_cast<size_t>((a * 8 + b) * 64 + c);
          int64_t from = source(a, b, c, axis, Mod((*idx[axis])[k], sizes[axis]), 8, 64);
          ASSERT_EQ(B(of[axis * n + k]), B(f[from])) << "axis " << axis << " element " << k;
          ASSERT_EQ(oi[axis * n + k], x[from]) << "axis " << axis << " element " << k;
        }
      }
    }
  }
  const std::vector<int32_t>* jdx[] = {&j0, &j1, &j2};
  const int64_t ysizes[] = {3, 10, 40};
  for (int axis = 0; axis < 3; ++axis) {
    for (int64_t a = 0; a < 3; ++a) {
      for (int64_t b = 0; b < 10; ++b) {
        for (int64_t c = 0; c < 40; ++c) {
          size_t k = static_cast<size_t>((a * 10 + b) * 40 + c);
          int32_t raw = (*jdx[axis])[k];
          int64_t j = axis == 2 ? static_cast<int64_t>(static_cast<uint32_t>(raw) % 40u) : Mod(raw, ysizes[axis]);
          ASSERT_EQ(B(oy[axis * ny + k]), B(y[source(a, b, c, axis, j, 10, 40)]))
              << "axis " << axis << " element " << k;
        }
      }
    }
  }
  for (int64_t a = 0; a < 2; ++a) {
    for (int64_t b = 0; b < 8; ++b) {
      for (int64_t c = 0; c < 4; ++c) {
        size_t k = static_cast<size_t>((a * 8 + b) * 4 + c);
        ASSERT_EQ(ok[k], x[source(a, b, c, 2, Mod(k2[k], 64), 8, 64)]) << k;
      }
    }
  }
  for (size_t k = 0; k < n; ++k) ASSERT_EQ(rv[k], x[(k + n / 2) % n]) << k;
}

}  // namespace
}  // namespace scjit::testing
