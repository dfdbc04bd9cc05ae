// The value ops of kernel-ir.md §4.1 and the memory ops of §4.3, run through the
// public API on both lane counts (v7x: 16 lanes, v5p: 8) and compared with a scalar
// C++ reference written here. Nothing in this file calls scjit to compute an
// expectation: the references follow the spec's text (integer wrap, XLA's division
// rules, shift amounts >= the width, ordered float compares, saturating float->int
// conversion, runtime.md §7's NaN-propagating min/max and poison/compress policies).
//
// Every kernel streams hbm buffers through vmem scratch in chunks of L lanes:
// `get` the operands, apply the op, `store` the result. Each elementwise op also runs
// in a "scalar" form that extracts lane k of the operands, applies the op to scalars
// and inserts the result, so both the vector and the scalar lowering are covered.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernel_runner.h"

namespace scjit::testing {
namespace {

// ------------------------------------------------------------------------------------
// Types, bits and targets.

enum class Dt { kI32, kU32, kF32, kI1 };

std::string Ir(Dt t) {
  switch (t) {
    case Dt::kI32:
      return "i32";
    case Dt::kU32:
      return "u32";
    case Dt::kF32:
      return "f32";
    case Dt::kI1:
      return "i1";
  }
  return "?";
}

// i1 is never in memory: its values travel as i32 0/1.
Dt Mem(Dt t) { return t == Dt::kI1 ? Dt::kI32 : t; }

float F(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t B(float f) { return std::bit_cast<uint32_t>(f); }
int32_t S(uint32_t b) { return static_cast<int32_t>(b); }
uint32_t U(int32_t v) { return static_cast<uint32_t>(v); }
bool IsNan(uint32_t b) { return std::isnan(F(b)); }

constexpr uint32_t kIntMin = 0x80000000u;
constexpr uint32_t kIntMax = 0x7FFFFFFFu;
constexpr uint32_t kPoisonF32 = 0x7FC00000u;  // runtime.md §5/§7: the fill pattern
constexpr uint32_t kPoisonInt = 0xBEBEBEBEu;

uint32_t Poison(Dt t) { return t == Dt::kF32 ? kPoisonF32 : kPoisonInt; }

struct Target {
  const char* id;
  int lanes;
  const char* name;
};
const Target kTargets[] = {{"v7x", 16, "v7x"}, {"v5p", 8, "v5p"}};

std::string Vec(int lanes, Dt t) { return "vector<" + std::to_string(lanes) + "x" + Ir(t) + ">"; }

std::string Show(Dt t, uint32_t b) {
  char buf[64];
  switch (t) {
    case Dt::kI32:
      std::snprintf(buf, sizeof buf, "%d (0x%08x)", S(b), b);
      break;
    case Dt::kU32:
      std::snprintf(buf, sizeof buf, "%u (0x%08x)", b, b);
      break;
    case Dt::kF32:
      std::snprintf(buf, sizeof buf, "%.9g (0x%08x)", static_cast<double>(F(b)), b);
      break;
    case Dt::kI1:
      std::snprintf(buf, sizeof buf, "%u", b);
      break;
  }
  return buf;
}

std::string Replace(std::string s, const std::vector<std::pair<std::string, std::string>>& kv) {
  for (const auto& [k, v] : kv) {
    for (size_t pos = s.find(k); pos != std::string::npos; pos = s.find(k, pos + v.size())) s.replace(pos, k.size(), v);
  }
  return s;
}

uint64_t Fnv(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

// ------------------------------------------------------------------------------------
// Comparison.

enum class Cmp {
  kBits,   // bit for bit
  kFloat,  // bit for bit, except that any NaN matches a NaN (payloads are not specified)
  kUlp,    // transcendentals: NaN/inf/zero exact, else within kMaxUlp
};
constexpr int64_t kMaxUlp = 4;

int64_t Ordered(uint32_t b) {
  int64_t mag = b & 0x7FFFFFFFu;
  return (b & 0x80000000u) ? -mag : mag;
}

bool Same(Cmp c, uint32_t got, uint32_t want) {
  switch (c) {
    case Cmp::kBits:
      return got == want;
    case Cmp::kFloat:
      return IsNan(want) ? IsNan(got) : got == want;
    case Cmp::kUlp: {
      if (IsNan(want) || IsNan(got)) return IsNan(want) && IsNan(got);
      if (std::isinf(F(want)) || std::isinf(F(got))) return got == want;
      if (F(want) == 0 && F(got) == 0) return got == want;
      int64_t d = Ordered(got) - Ordered(want);
      return (d < 0 ? -d : d) <= kMaxUlp;
    }
  }
  return false;
}

// Expects got == want under `cmp`; `inputs(i)` describes element i's inputs.
void ExpectSame(const std::string& what, Dt t, Cmp cmp, const std::vector<uint32_t>& got,
                const std::vector<uint32_t>& want, const std::function<std::string(size_t)>& inputs = nullptr) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  std::string report;
  for (size_t i = 0; i < want.size(); ++i) {
    if (Same(cmp, got[i], want[i])) continue;
    if (++bad <= 10) {
      report += "  [" + std::to_string(i) + "]" + (inputs ? " " + inputs(i) : "") + ": got " + Show(t, got[i]) +
                ", want " + Show(t, want[i]) + "\n";
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << want.size() << " elements differ\n" << report;
}

// ------------------------------------------------------------------------------------
// Kernels that stream buffers through vmem.

struct Param {
  std::string name;
  Dt dt;  // the value type; memory holds Mem(dt)
};

// A kernel on one vector subcore: every `in` is copied hbm -> vmem, then for each
// chunk of L elements the body sees %x_<in> (vector<L x dt>) and defines %y_<out>,
// which is stored; finally every `out` is copied vmem -> hbm.
struct Streamed {
  int lanes = 16;
  int64_t n = 0;  // elements per buffer, a multiple of lanes
  std::vector<Param> ins, outs;
  std::string prologue;  // ops before the loop
  std::string body;      // ops per chunk; `%i` is the chunk's first element
};

std::string Text(const Streamed& k) {
  std::string L = std::to_string(k.lanes), N = std::to_string(k.n);
  std::string params, scratch, copy_in, loads, stores, copy_out;
  auto append = [](std::string& s, const std::string& item) { s += (s.empty() ? "" : ", ") + item; };
  for (const Param& p : k.ins) {
    std::string mem = "<" + N + "x" + Ir(Mem(p.dt)) + ">";
    append(params, "in %" + p.name + ": hbm" + mem);
    append(scratch, "%" + p.name + "_v: vmem" + mem);
    copy_in += "  copy %" + p.name + " -> %" + p.name + "_v\n";
    if (p.dt == Dt::kI1) {
      loads += "    %r_" + p.name + " = get %" + p.name + "_v[ds(%i, " + L + ")] : " + Vec(k.lanes, Dt::kI32) + "\n";
      loads += "    %x_" + p.name + " = cmp ne %r_" + p.name + ", %zero_i32 : " + Vec(k.lanes, Dt::kI1) + "\n";
    } else {
      loads += "    %x_" + p.name + " = get %" + p.name + "_v[ds(%i, " + L + ")] : " + Vec(k.lanes, p.dt) + "\n";
    }
  }
  for (const Param& p : k.outs) {
    std::string mem = "<" + N + "x" + Ir(Mem(p.dt)) + ">";
    append(params, "out %" + p.name + ": hbm" + mem);
    append(scratch, "%" + p.name + "_v: vmem" + mem);
    std::string value = "%y_" + p.name;
    if (p.dt == Dt::kI1) {
      stores += "    %w_" + p.name + " = select %y_" + p.name + ", %one_i32, %zero_i32 : " + Vec(k.lanes, Dt::kI32) + "\n";
      value = "%w_" + p.name;
    }
    stores += "    store %" + p.name + "_v[ds(%i, " + L + ")], " + value + "\n";
    copy_out += "  copy %" + p.name + "_v -> %" + p.name + "\n";
  }
  return "kernel @k(" + params + ")\n    mesh vector(cores = 1, subcores = 1)\n    scratch(" + scratch + ")\n{\n" +
         "  %zero_i32 = const dense<0> : " + Vec(k.lanes, Dt::kI32) + "\n" +
         "  %one_i32 = const dense<1> : " + Vec(k.lanes, Dt::kI32) + "\n" + copy_in + k.prologue +
         "  for %i = 0 to " + N + " step " + L + " {\n" + loads + k.body + stores + "  }\n" + copy_out + "}\n";
}

using Buffers = std::map<std::string, std::vector<uint32_t>>;
using KernelRun = Run;  // (gtest's Test::Run hides the name inside test bodies)

// Compiles and runs `text` for `target`; returns the outputs, or fails the test.
KernelRun Execute(const std::string& text, const Buffers& inputs, const Target& target, const std::string& jax = "") {
  std::map<std::string, std::vector<uint8_t>> bytes;
  for (const auto& [name, v] : inputs) bytes[name] = Bytes(v);
  CompileOptions options;
  options.target = target.id;
  options.jax = jax;
  KernelRun run = RunText(text, bytes, options);
  EXPECT_TRUE(run.ok()) << run.diagnostics << run.Findings() << "\nkernel:\n" << text;
  return run;
}

// ------------------------------------------------------------------------------------
// Inputs.

std::vector<uint32_t> Specials(Dt t) {
  switch (t) {
    case Dt::kI32:
    case Dt::kU32:
      return {0u,         1u,          U(-1),      2u,         U(-2),      3u,         7u,          U(-7),
              16u,        31u,         32u,        33u,        40u,        U(-40),     kIntMin,     kIntMin + 1,
              kIntMax,    kIntMax - 1, 0x55555555, 0xAAAAAAAA, 65536u,     1000000007, U(-1000000007),
              0xFFFF0000u};
    case Dt::kF32:
      return {kPoisonF32, 0xFFC00000u, 0x7FC12345u, 0x7F800001u,  // NaNs: quiet, negative, payload, signaling
              B(0.0f),    B(-0.0f),    B(INFINITY), B(-INFINITY), B(1.0f),     B(-1.0f),    B(0.5f),
              B(-0.5f),   B(2.5f),     B(-2.5f),    B(3.0f),      B(-0.75f),   B(100.0f),   B(88.75f),
              B(-104.0f), B(1e-30f),   B(std::numeric_limits<float>::max()), B(-std::numeric_limits<float>::max()),
              B(std::numeric_limits<float>::min()), 0x00000001u, 0x80000001u,  // smallest normal, denormals
              0x4EFFFFFFu, 0x4F000000u, 0xCF000000u, 0xCF000001u,  // 2^31 - 128, 2^31, -2^31, just below -2^31
              0x4F7FFFFFu, 0x4F800000u, B(16777216.0f), B(-16777217.0f), B(1.5e9f), B(-3.7e9f), B(0.1f)};
    case Dt::kI1:
      return {0u, 1u};
  }
  return {};
}

using Gen = std::function<uint32_t(std::mt19937&)>;

uint32_t RandomOf(Dt t, std::mt19937& rng) {
  uint32_t r = rng(), k = rng() % 10;
  switch (t) {
    case Dt::kI32:
    case Dt::kU32:
      if (k < 4) return r;
      if (k < 7) return U(static_cast<int32_t>(r % 201) - 100);
      return U(S(r) >> (rng() % 32));
    case Dt::kF32: {
      if (k < 2) return r;  // any bit pattern, NaNs included
      if (k < 4) return B(static_cast<float>(static_cast<int32_t>(r % 20001) - 10000) / 1000.0f);  // [-10, 10]
      if (k < 6) return B(std::uniform_real_distribution<float>(-1000.0f, 1000.0f)(rng));
      float m = std::uniform_real_distribution<float>(1.0f, 2.0f)(rng);
      float v = std::ldexp(m, static_cast<int>(rng() % 80) - 40);  // up to 2^40: saturating conversions
      return B((r & 1) ? -v : v);
    }
    case Dt::kI1:
      return (r & 3) == 0 ? 0u : (r & 3) == 1 ? 1u : (r & 3) == 2 ? U(-1) : 0u;  // any non-zero is true
  }
  return r;
}

// n tuples of operands: the cross product of the special values first, then random
// values (some special, some repeating an earlier tuple or element).
std::vector<std::vector<uint32_t>> MakeInputs(const std::string& seed_name, const std::vector<Dt>& args,
                                              const std::vector<std::vector<uint32_t>>& specials,
                                              const std::vector<Gen>& gens, int64_t n) {
  std::mt19937 rng(static_cast<uint32_t>(Fnv(seed_name)));
  size_t arity = args.size();
  std::vector<std::vector<uint32_t>> cols(arity, std::vector<uint32_t>(static_cast<size_t>(n)));
  auto special = [&](size_t a) { return specials[a][rng() % specials[a].size()]; };
  auto random = [&](size_t a) { return a < gens.size() && gens[a] ? gens[a](rng) : RandomOf(args[a], rng); };
  int64_t i = 0;
  if (arity == 1) {
    for (uint32_t v : specials[0]) {
      if (i < n) cols[0][static_cast<size_t>(i++)] = v;
    }
  } else if (arity == 2) {
    for (uint32_t x : specials[0]) {
      for (uint32_t y : specials[1]) {
        if (i < n) cols[0][static_cast<size_t>(i)] = x, cols[1][static_cast<size_t>(i++)] = y;
      }
    }
  } else {
    for (; i < n / 4; ++i) {
      for (size_t a = 0; a < arity; ++a) cols[a][static_cast<size_t>(i)] = special(a);
    }
  }
  for (; i < n; ++i) {
    uint32_t k = rng() % 16;
    for (size_t a = 0; a < arity; ++a) {
      size_t at = static_cast<size_t>(i);
      if (k == 0 && i > 0) {
        cols[a][at] = cols[a][static_cast<size_t>(i - 1 - rng() % std::min<int64_t>(i, 50))];  // repeated element
      } else if (k < 3) {
        cols[a][at] = special(a);
      } else {
        cols[a][at] = random(a);
      }
    }
    if (k == 15 && i > 0) {  // a whole tuple repeated
      int64_t j = static_cast<int64_t>(rng() % static_cast<uint32_t>(i));
      for (size_t a = 0; a < arity; ++a) cols[a][static_cast<size_t>(i)] = cols[a][static_cast<size_t>(j)];
    }
  }
  return cols;
}

// ------------------------------------------------------------------------------------
// The scalar reference.

uint32_t Add(Dt t, uint32_t a, uint32_t b) { return t == Dt::kF32 ? B(F(a) + F(b)) : a + b; }

// runtime.md §7.12: NaN propagates, -0 < +0.
uint32_t FMin(uint32_t a, uint32_t b) {
  if (IsNan(a) || IsNan(b)) return kPoisonF32;
  if (F(a) == 0 && F(b) == 0) return (a | b);  // -0 if either is -0
  return F(a) < F(b) ? a : b;
}
uint32_t FMax(uint32_t a, uint32_t b) {
  if (IsNan(a) || IsNan(b)) return kPoisonF32;
  if (F(a) == 0 && F(b) == 0) return (a & b);  // +0 if either is +0
  return F(a) > F(b) ? a : b;
}

uint32_t Min(Dt t, uint32_t a, uint32_t b) {
  switch (t) {
    case Dt::kI32:
      return U(std::min(S(a), S(b)));
    case Dt::kF32:
      return FMin(a, b);
    default:
      return std::min(a, b);
  }
}
uint32_t Max(Dt t, uint32_t a, uint32_t b) {
  switch (t) {
    case Dt::kI32:
      return U(std::max(S(a), S(b)));
    case Dt::kF32:
      return FMax(a, b);
    default:
      return std::max(a, b);
  }
}

// XLA's division: x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
uint32_t Div(Dt t, uint32_t a, uint32_t b) {
  if (t == Dt::kF32) return B(F(a) / F(b));
  if (b == 0) return 0xFFFFFFFFu;
  if (t == Dt::kU32) return a / b;
  if (a == kIntMin && b == 0xFFFFFFFFu) return kIntMin;
  return U(S(a) / S(b));
}
uint32_t Rem(Dt t, uint32_t a, uint32_t b) {
  if (t == Dt::kF32) return B(std::fmod(F(a), F(b)));
  if (b == 0) return a;
  if (t == Dt::kU32) return a % b;
  if (a == kIntMin && b == 0xFFFFFFFFu) return 0;
  return U(S(a) % S(b));
}

// Shift amounts are read as unsigned: negative ones are >= the width.
uint32_t Shl(uint32_t a, uint32_t b) { return b >= 32 ? 0 : a << b; }
uint32_t Shr(Dt t, uint32_t a, uint32_t b) {
  if (t == Dt::kU32) return b >= 32 ? 0 : a >> b;
  if (b >= 32) return S(a) < 0 ? 0xFFFFFFFFu : 0u;
  return U(S(a) >> b);
}

enum class Pred { kEq, kNe, kLt, kLe, kGt, kGe };
const char* kPredNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};

template <typename X>
bool Apply(Pred p, X x, X y) {
  switch (p) {
    case Pred::kEq: return x == y;
    case Pred::kNe: return x != y;
    case Pred::kLt: return x < y;
    case Pred::kLe: return x <= y;
    case Pred::kGt: return x > y;
    case Pred::kGe: return x >= y;
  }
  return false;
}

bool Compare(Dt t, Pred p, uint32_t a, uint32_t b) {
  if (t == Dt::kF32) {
    if (IsNan(a) || IsNan(b)) return false;  // ordered compares, `ne` included
    return Apply(p, F(a), F(b));
  }
  if (t == Dt::kI32) return Apply(p, S(a), S(b));
  return Apply(p, a, b);  // u32, and i1 with false < true
}

// convert: float -> int truncates toward zero and saturates, NaN -> 0; x -> i1 is
// x != 0, an ordered compare for floats: NaN -> false (sc-semantics.md §6.1).
uint32_t Convert(Dt from, Dt to, uint32_t a) {
  if (to == Dt::kI1) return from == Dt::kF32 ? (F(a) != 0.0f && !IsNan(a)) : a != 0;
  if (from == Dt::kF32) {
    float x = F(a);
    if (to == Dt::kF32) return a;
    if (std::isnan(x)) return 0;
    double t = std::trunc(static_cast<double>(x));
    if (to == Dt::kI32) {
      if (t >= 2147483648.0) return kIntMax;
      if (t <= -2147483648.0) return kIntMin;
      return U(static_cast<int32_t>(t));
    }
    if (t >= 4294967296.0) return 0xFFFFFFFFu;
    if (t <= 0.0) return 0;
    return static_cast<uint32_t>(t);
  }
  if (to == Dt::kF32) {
    // Through double, which holds every 32-bit integer exactly: one rounding (to nearest even).
    double d = from == Dt::kI32 ? static_cast<double>(S(a)) : static_cast<double>(a);
    return B(static_cast<float>(d));
  }
  return a;  // between i32, u32 and from i1 (0 or 1): the same bits
}

// ------------------------------------------------------------------------------------
// Elementwise ops: one kernel per (op, type, target, form).

using RefFn = std::function<uint32_t(const std::vector<uint32_t>&)>;

struct OpCase {
  std::string name;  // unique; the test's name
  std::string line;  // "{r} = add {0}, {1} : {R}"
  std::vector<Dt> args;
  Dt out;
  RefFn ref;
  Cmp cmp = Cmp::kBits;
  std::vector<std::vector<uint32_t>> specials;  // per operand; default Specials(type)
  std::vector<Gen> gens;                        // per operand; default RandomOf(type)
  bool scalar_only = false;                     // the line has a literal operand
  std::string jax;                              // the JAX release that lowers it ("" = the catalog's)
};

OpCase Case(std::string name, std::string line, std::vector<Dt> args, Dt out, RefFn ref, Cmp cmp = Cmp::kBits) {
  OpCase c;
  c.name = std::move(name);
  c.line = std::move(line);
  c.args = std::move(args);
  c.out = out;
  c.ref = std::move(ref);
  c.cmp = cmp;
  return c;
}

std::vector<uint32_t> ShiftAmounts() {
  std::vector<uint32_t> v;
  for (int s = 0; s <= 40; ++s) v.push_back(static_cast<uint32_t>(s));
  for (int s : {-1, -2, -8, -31, -32, -33}) v.push_back(U(s));
  v.push_back(kIntMin);
  v.push_back(kIntMax);
  return v;
}

uint32_t RandomShift(std::mt19937& rng) {
  uint32_t k = rng() % 8;
  if (k < 6) return U(static_cast<int32_t>(rng() % 51) - 8);  // -8 .. 42
  return rng();
}

std::vector<OpCase> ElementwiseCases() {
  std::vector<OpCase> cs;
  auto bin = [&](const std::string& op, Dt t, std::function<uint32_t(uint32_t, uint32_t)> f, Cmp cmp = Cmp::kBits) {
    cs.push_back(Case(op + "_" + Ir(t), "{r} = " + op + " {0}, {1} : {R}", {t, t}, t,
                  [f](const std::vector<uint32_t>& v) { return f(v[0], v[1]); }, cmp));
  };
  auto un = [&](const std::string& op, Dt t, std::function<uint32_t(uint32_t)> f, Cmp cmp = Cmp::kBits) {
    cs.push_back(Case(op + "_" + Ir(t), "{r} = " + op + " {0} : {R}", {t}, t,
                  [f](const std::vector<uint32_t>& v) { return f(v[0]); }, cmp));
  };

  for (Dt t : {Dt::kI32, Dt::kU32, Dt::kF32}) {
    Cmp c = t == Dt::kF32 ? Cmp::kFloat : Cmp::kBits;
    bin("add", t, [t](uint32_t a, uint32_t b) { return Add(t, a, b); }, c);
    bin("sub", t, [t](uint32_t a, uint32_t b) { return t == Dt::kF32 ? B(F(a) - F(b)) : a - b; }, c);
    bin("mul", t, [t](uint32_t a, uint32_t b) { return t == Dt::kF32 ? B(F(a) * F(b)) : a * b; }, c);
    bin("div", t, [t](uint32_t a, uint32_t b) { return Div(t, a, b); }, c);
    bin("rem", t, [t](uint32_t a, uint32_t b) { return Rem(t, a, b); }, c);
    bin("min", t, [t](uint32_t a, uint32_t b) { return Min(t, a, b); }, c);
    bin("max", t, [t](uint32_t a, uint32_t b) { return Max(t, a, b); }, c);
    un("neg", t, [t](uint32_t a) { return t == Dt::kF32 ? a ^ 0x80000000u : 0u - a; }, c);
    un("sign", t, [t](uint32_t a) -> uint32_t {
      if (t == Dt::kU32) return a != 0;
      if (t == Dt::kI32) return U((S(a) > 0) - (S(a) < 0));
      if (IsNan(a) || F(a) == 0) return a;  // ±0 and NaN are kept
      return B(F(a) > 0 ? 1.0f : -1.0f);
    }, c);
    un("abs", t, [t](uint32_t a) -> uint32_t {
      if (t == Dt::kF32) return a & 0x7FFFFFFFu;
      if (t == Dt::kU32) return a;
      return S(a) < 0 ? 0u - a : a;  // INT_MIN stays INT_MIN
    }, c);
  }
  for (Dt t : {Dt::kI32, Dt::kU32}) {
    bin("and", t, [](uint32_t a, uint32_t b) { return a & b; });
    bin("or", t, [](uint32_t a, uint32_t b) { return a | b; });
    bin("xor", t, [](uint32_t a, uint32_t b) { return a ^ b; });
    bin("shl", t, [](uint32_t a, uint32_t b) { return Shl(a, b); });
    cs.back().specials = {Specials(t), ShiftAmounts()};
    cs.back().gens = {nullptr, RandomShift};
    bin("shr", t, [t](uint32_t a, uint32_t b) { return Shr(t, a, b); });
    cs.back().specials = {Specials(t), ShiftAmounts()};
    cs.back().gens = {nullptr, RandomShift};
    un("not", t, [](uint32_t a) { return ~a; });
  }
  // i1: the bitwise ops (min and max of bools are EL-11 in Pallas).
  bin("and", Dt::kI1, [](uint32_t a, uint32_t b) { return a & b; });
  bin("or", Dt::kI1, [](uint32_t a, uint32_t b) { return a | b; });
  bin("xor", Dt::kI1, [](uint32_t a, uint32_t b) { return a ^ b; });
  un("not", Dt::kI1, [](uint32_t a) { return a ^ 1u; });

  // Transcendentals (f32): the reference is the double-precision function, rounded once.
  auto trans = [&](const std::string& op, double (*f)(double)) {
    un(op, Dt::kF32, [f](uint32_t a) { return B(static_cast<float>(f(static_cast<double>(F(a))))); }, Cmp::kUlp);
  };
  trans("exp", [](double x) { return std::exp(x); });
  trans("sqrt", [](double x) { return std::sqrt(x); });
  trans("rsqrt", [](double x) { return 1.0 / std::sqrt(x); });
  trans("tanh", [](double x) { return std::tanh(x); });
  trans("log", [](double x) { return std::log(x); });

  // The ops later JAX releases lower (these kernels compile as JAX 0.12.1's).
  size_t later = cs.size();
  trans("log2", [](double x) { return std::log2(x); });
  un("round", Dt::kF32, [](uint32_t a) { return B(std::round(F(a))); }, Cmp::kFloat);  // halves away from zero
  cs.push_back(Case("round_even_f32", "{r} = round {0} {rounding_method = \"to_nearest_even\"} : {R}", {Dt::kF32},
                    Dt::kF32, [](const std::vector<uint32_t>& v) { return B(std::nearbyint(F(v[0]))); },
                    Cmp::kFloat));
  bin("mulhi", Dt::kI32, [](uint32_t a, uint32_t b) { return U(static_cast<int32_t>((int64_t{S(a)} * S(b)) >> 32)); });
  bin("mulhi", Dt::kU32, [](uint32_t a, uint32_t b) { return static_cast<uint32_t>((uint64_t{a} * b) >> 32); });
  cs.push_back(Case("fmuladd_f32", "{r} = fmuladd {0}, {1}, {2} : {R}", {Dt::kF32, Dt::kF32, Dt::kF32}, Dt::kF32,
                    [](const std::vector<uint32_t>& v) {
                      volatile float product = F(v[0]) * F(v[1]);  // rounded before the sum
                      return B(product + F(v[2]));
                    },
                    Cmp::kFloat));
  for (size_t k = later; k < cs.size(); ++k) cs[k].jax = "0.12.1";

  // cmp: every predicate on every type.
  for (Dt t : {Dt::kI32, Dt::kU32, Dt::kF32, Dt::kI1}) {
    for (int p = 0; p < 6; ++p) {
      std::string pred = kPredNames[p];
      cs.push_back(Case("cmp_" + pred + "_" + Ir(t), "{r} = cmp " + pred + " {0}, {1} : {R}", {t, t}, Dt::kI1,
                    [t, p](const std::vector<uint32_t>& v) -> uint32_t {
                      return Compare(t, static_cast<Pred>(p), v[0], v[1]);
                    }));
    }
  }
  // select (an i1 condition of the operands' shape; the scalar form has a scalar one).
  for (Dt t : {Dt::kI32, Dt::kU32, Dt::kF32, Dt::kI1}) {
    cs.push_back(Case("select_" + Ir(t), "{r} = select {0}, {1}, {2} : {R}", {Dt::kI1, t, t}, t,
                  [](const std::vector<uint32_t>& v) { return v[0] ? v[1] : v[2]; }));
  }
  // clamp %lo, %x, %hi = min(max(x, lo), hi).
  for (Dt t : {Dt::kI32, Dt::kU32, Dt::kF32}) {
    cs.push_back(Case("clamp_" + Ir(t), "{r} = clamp {0}, {1}, {2} : {R}", {t, t, t}, t,
                  [t](const std::vector<uint32_t>& v) { return Min(t, Max(t, v[1], v[0]), v[2]); },
                  t == Dt::kF32 ? Cmp::kFloat : Cmp::kBits));
  }
  // convert (u32 <-> f32 has no lowering in Pallas: EL-2).
  const std::pair<Dt, Dt> conversions[] = {
      {Dt::kI32, Dt::kF32}, {Dt::kF32, Dt::kI32}, {Dt::kI32, Dt::kU32},
      {Dt::kU32, Dt::kI32}, {Dt::kI32, Dt::kI1},  {Dt::kU32, Dt::kI1},  {Dt::kF32, Dt::kI1},  {Dt::kI1, Dt::kI32},
      {Dt::kI1, Dt::kU32},  {Dt::kI1, Dt::kF32},  {Dt::kI32, Dt::kI32}, {Dt::kF32, Dt::kF32}};
  for (auto [from, to] : conversions) {
    cs.push_back(Case("convert_" + Ir(from) + "_to_" + Ir(to), "{r} = convert {0} : {R}", {from}, to,
                  [from, to](const std::vector<uint32_t>& v) { return Convert(from, to, v[0]); }));
  }
  // bitcast between the 32-bit types: the bits are kept, NaN payloads included.
  const std::pair<Dt, Dt> bitcasts[] = {{Dt::kF32, Dt::kI32}, {Dt::kI32, Dt::kF32}, {Dt::kF32, Dt::kU32},
                                        {Dt::kU32, Dt::kF32}, {Dt::kI32, Dt::kU32}, {Dt::kU32, Dt::kI32}};
  for (auto [from, to] : bitcasts) {
    cs.push_back(Case("bitcast_" + Ir(from) + "_to_" + Ir(to), "{r} = bitcast {0} : {R}", {from}, to,
                  [](const std::vector<uint32_t>& v) { return v[0]; }));
  }

  // Literal operands (scalar form only): the literal takes the operand's type.
  auto lit = [&](const std::string& name, Dt t, const std::string& line, std::function<uint32_t(uint32_t)> f,
                 Cmp cmp = Cmp::kBits) {
    cs.push_back(Case(name, line, {t}, t, [f](const std::vector<uint32_t>& v) { return f(v[0]); }, cmp));
    cs.back().scalar_only = true;
  };
  lit("lit_add_i32", Dt::kI32, "{r} = add {0}, -3 : {R}", [](uint32_t a) { return a - 3; });
  lit("lit_div0_i32", Dt::kI32, "{r} = div {0}, 0 : {R}", [](uint32_t) { return 0xFFFFFFFFu; });
  lit("lit_divm1_i32", Dt::kI32, "{r} = div {0}, -1 : {R}", [](uint32_t a) { return Div(Dt::kI32, a, U(-1)); });
  lit("lit_rem0_i32", Dt::kI32, "{r} = rem {0}, 0 : {R}", [](uint32_t a) { return a; });
  lit("lit_remm1_i32", Dt::kI32, "{r} = rem {0}, -1 : {R}", [](uint32_t) { return 0u; });
  lit("lit_rem7_i32", Dt::kI32, "{r} = rem {0}, -7 : {R}", [](uint32_t a) { return Rem(Dt::kI32, a, U(-7)); });
  lit("lit_shr40_i32", Dt::kI32, "{r} = shr {0}, 40 : {R}", [](uint32_t a) { return Shr(Dt::kI32, a, 40); });
  lit("lit_shl32_i32", Dt::kI32, "{r} = shl {0}, 32 : {R}", [](uint32_t) { return 0u; });
  lit("lit_shl31_i32", Dt::kI32, "{r} = shl {0}, 31 : {R}", [](uint32_t a) { return a << 31; });
  lit("lit_shrm1_i32", Dt::kI32, "{r} = shr {0}, -1 : {R}", [](uint32_t a) { return Shr(Dt::kI32, a, U(-1)); });
  lit("lit_xor_i32", Dt::kI32, "{r} = xor {0}, 0xFFFFFFFF : {R}", [](uint32_t a) { return ~a; });
  lit("lit_div_u32", Dt::kU32, "{r} = div {0}, 0x80000000 : {R}", [](uint32_t a) { return a / 0x80000000u; });
  lit("lit_shr_u32", Dt::kU32, "{r} = shr {0}, 31 : {R}", [](uint32_t a) { return a >> 31; });
  lit("lit_max_u32", Dt::kU32, "{r} = max {0}, 4294967295 : {R}", [](uint32_t) { return 0xFFFFFFFFu; });
  lit("lit_min_u32", Dt::kU32, "{r} = min {0}, -1 : {R}", [](uint32_t a) { return a; });  // -1 : u32 = 0xFFFFFFFF
  lit("lit_min_f32", Dt::kF32, "{r} = min {0}, -0.0 : {R}", [](uint32_t a) { return FMin(a, B(-0.0f)); },
      Cmp::kFloat);
  lit("lit_max_f32", Dt::kF32, "{r} = max {0}, 0.0 : {R}", [](uint32_t a) { return FMax(a, B(0.0f)); }, Cmp::kFloat);
  lit("lit_mul_f32", Dt::kF32, "{r} = mul {0}, 3 : {R}", [](uint32_t a) { return B(F(a) * 3.0f); }, Cmp::kFloat);
  lit("lit_div_f32", Dt::kF32, "{r} = div {0}, -inf : {R}", [](uint32_t a) { return B(F(a) / -INFINITY); },
      Cmp::kFloat);
  return cs;
}

const std::vector<OpCase>& AllCases() {
  static const std::vector<OpCase>* cases = new std::vector<OpCase>(ElementwiseCases());
  return *cases;
}

constexpr int64_t kElems = 2048;  // per elementwise kernel: every special pair fits

// The kernel of one case. Operands are %a, %b, %c; the result %o.
std::string ElementwiseText(const OpCase& c, int lanes, bool scalar) {
  static const char* kNames[] = {"a", "b", "c"};
  Streamed k;
  k.lanes = lanes;
  k.n = kElems;
  std::vector<std::pair<std::string, std::string>> subst;
  for (size_t a = 0; a < c.args.size(); ++a) {
    k.ins.push_back({kNames[a], c.args[a]});
    subst.push_back({"{" + std::to_string(a) + "}", (scalar ? "%s_" : "%x_") + std::string(kNames[a])});
  }
  k.outs.push_back({"o", c.out});
  if (!scalar) {
    subst.push_back({"{r}", "%y_o"});
    subst.push_back({"{R}", Vec(lanes, c.out)});
    k.body = "    " + Replace(c.line, subst) + "\n";
    return Text(k);
  }
  // Lane by lane: extract (dynamic index), the op on scalars, insert. Pallas
  // extracts only 32-bit scalars (EL-3), so i1 lanes are extracted from the i32
  // row in memory and compared with 0, and i1 results travel as i32.
  bool bool_out = c.out == Dt::kI1;
  Dt acc = bool_out ? Dt::kI32 : c.out;
  std::string zero = acc == Dt::kF32 ? "0.0" : "0";
  k.prologue = "  %init = const dense<" + zero + "> : " + Vec(lanes, acc) + "\n";
  std::string body = std::string("    ") + (bool_out ? "%y_acc" : "%y_o") + " = for %k = 0 to " +
                     std::to_string(lanes) + " step 1 iter(%acc = %init) : " + Vec(lanes, acc) + " {\n";
  for (size_t a = 0; a < c.args.size(); ++a) {
    std::string name = kNames[a];
    if (c.args[a] == Dt::kI1) {
      body += "      %raw_" + name + " = extract %r_" + name + "[%k] : i32\n";
      body += "      %s_" + name + " = cmp ne %raw_" + name + ", 0 : i1\n";
    } else {
      body += "      %s_" + name + " = extract %x_" + name + "[%k] : " + Ir(c.args[a]) + "\n";
    }
  }
  subst.push_back({"{r}", "%s_r"});
  subst.push_back({"{R}", Ir(c.out)});
  body += "      " + Replace(c.line, subst) + "\n";
  std::string lane = "%s_r";
  if (bool_out) {
    body += "      %s_w = convert %s_r : i32\n";
    lane = "%s_w";
  }
  body += "      %next = insert " + lane + ", %acc[%k] : " + Vec(lanes, acc) + "\n      yield %next\n    }\n";
  if (bool_out) body += "    %y_o = cmp ne %y_acc, %zero_i32 : " + Vec(lanes, Dt::kI1) + "\n";
  k.body = body;
  return Text(k);
}

struct ElementwiseParam {
  size_t index;  // into AllCases()
  int target;    // into kTargets
  bool scalar;
};

class ElementwiseTest : public ::testing::TestWithParam<ElementwiseParam> {};

TEST_P(ElementwiseTest, MatchesReference) {
  const OpCase& c = AllCases()[GetParam().index];
  const Target& target = kTargets[GetParam().target];
  static const char* kNames[] = {"a", "b", "c"};
  std::vector<std::vector<uint32_t>> specials = c.specials;
  for (size_t a = specials.size(); a < c.args.size(); ++a) specials.push_back(Specials(c.args[a]));
  std::vector<std::vector<uint32_t>> cols = MakeInputs(c.name, c.args, specials, c.gens, kElems);
  Buffers inputs;
  for (size_t a = 0; a < c.args.size(); ++a) inputs[kNames[a]] = cols[a];
  std::vector<uint32_t> want(kElems);
  for (size_t i = 0; i < want.size(); ++i) {
    std::vector<uint32_t> v;
    for (size_t a = 0; a < c.args.size(); ++a) v.push_back(c.args[a] == Dt::kI1 ? cols[a][i] != 0 : cols[a][i]);
    want[i] = c.ref(v);
  }
  std::string text = ElementwiseText(c, target.lanes, GetParam().scalar);
  KernelRun run = Execute(text, inputs, target, c.jax);
  if (!run.ok()) return;
  ExpectSame(c.line, c.out, c.cmp, run.As<uint32_t>("o"), want, [&](size_t i) {
    std::string s = "(";
    for (size_t a = 0; a < c.args.size(); ++a) s += (a ? ", " : "") + Show(c.args[a], cols[a][i]);
    return s + ")";
  });
}

std::vector<ElementwiseParam> ElementwiseParams() {
  std::vector<ElementwiseParam> ps;
  for (size_t i = 0; i < AllCases().size(); ++i) {
    for (int t = 0; t < 2; ++t) {
      if (!AllCases()[i].scalar_only) ps.push_back({i, t, false});
      ps.push_back({i, t, true});
    }
  }
  return ps;
}

INSTANTIATE_TEST_SUITE_P(Ops, ElementwiseTest, ::testing::ValuesIn(ElementwiseParams()),
                         [](const ::testing::TestParamInfo<ElementwiseParam>& info) {
                           return AllCases()[info.param.index].name + "_" + kTargets[info.param.target].name +
                                  (info.param.scalar ? "_scalar" : "_vector");
                         });

// ------------------------------------------------------------------------------------
// Constants, iota, broadcast, extract/insert, select with a scalar condition.

class TypedTest : public ::testing::TestWithParam<std::tuple<Dt, int>> {
 protected:
  Dt type() const { return std::get<0>(GetParam()); }
  const Target& target() const { return kTargets[std::get<1>(GetParam())]; }
  int lanes() const { return target().lanes; }
};

std::string TypedName(const ::testing::TestParamInfo<std::tuple<Dt, int>>& info) {
  return Ir(std::get<0>(info.param)) + "_" + kTargets[std::get<1>(info.param)].name;
}

// Literal spellings and the bits they denote, per type (at least 16 of each).
struct Literal {
  std::string text;
  uint32_t bits;
};
std::vector<Literal> Literals(Dt t) {
  switch (t) {
    case Dt::kI32:
      return {{"0", 0},           {"-7", U(-7)},        {"0x1F", 31},          {"-2147483648", kIntMin},
              {"2147483647", kIntMax}, {"0xFFFFFFFF", U(-1)}, {"0x80000000", kIntMin}, {"-1", U(-1)},
              {"42", 42},         {"1000000", 1000000}, {"-1000000", U(-1000000)}, {"0xDEADBEEF", 0xDEADBEEFu},
              {"65535", 65535},   {"3", 3},             {"-3", U(-3)},         {"0x7FFFFFFF", kIntMax}};
    case Dt::kU32:
      return {{"0", 0},           {"4294967295", 0xFFFFFFFFu}, {"0x80000000", kIntMin}, {"2147483648", kIntMin},
              {"-1", 0xFFFFFFFFu}, {"-2147483648", kIntMin},   {"7", 7},                {"0xFFFF", 0xFFFF},
              {"123456789", 123456789}, {"0xDEADBEEF", 0xDEADBEEFu}, {"1", 1},         {"31", 31},
              {"3000000000", 3000000000u}, {"65536", 65536}, {"2", 2},                  {"0x7FFFFFFF", kIntMax}};
    case Dt::kF32:
      return {{"0.0", B(0.0f)},    {"-0.0", B(-0.0f)},   {"1.5", B(1.5f)},           {"-2e-3", B(-2e-3f)},
              {"inf", B(INFINITY)}, {"-inf", B(-INFINITY)}, {"nan", kPoisonF32},      {"3", B(3.0f)},
              {"3.4028234663852886e38", B(std::numeric_limits<float>::max())},
              {"1e-45", 0x00000001u},  // rounds to the smallest denormal
              {"0.1", B(0.1f)},     {"-7", B(-7.0f)},     {"16777217", B(16777216.0f)},  // ties to even
              {"1.17549435e-38", B(std::numeric_limits<float>::min())}, {"-0.333333343", B(-0.333333343f)},
              {"2147483648", 0x4F000000u}};
    case Dt::kI1:
      return {{"true", 1}, {"false", 0}, {"1", 1}, {"0", 0}, {"true", 1}, {"0", 0}, {"true", 1}, {"1", 1},
              {"0", 0},    {"false", 0}, {"true", 1}, {"0", 0}, {"1", 1}, {"1", 1},   {"false", 0}, {"true", 1}};
  }
  return {};
}

Cmp ValueCmp(Dt t) { return t == Dt::kF32 ? Cmp::kFloat : Cmp::kBits; }

TEST_P(TypedTest, Constants) {
  const int L = lanes();
  const Dt t = type();
  std::vector<Literal> lits = Literals(t);
  Streamed k;
  k.lanes = L;
  k.n = L;
  k.outs = {{"scalars", t}, {"splat", t}, {"splat2", t}, {"list", t}};
  std::string V = Vec(L, t);
  // Scalar constants: the first broadcast, the next L-1 inserted at static lanes.
  for (int j = 0; j < L; ++j) k.prologue += "  %c" + std::to_string(j) + " = const " + lits[j].text + " : " + Ir(t) + "\n";
  k.prologue += "  %v0 = broadcast %c0 : " + V + "\n";
  for (int j = 1; j < L; ++j) {
    k.prologue += "  %v" + std::to_string(j) + " = insert %c" + std::to_string(j) + ", %v" + std::to_string(j - 1) +
                  "[" + std::to_string(j) + "] : " + V + "\n";
  }
  k.prologue += "  %y_scalars = insert %c0, %v" + std::to_string(L - 1) + "[0] : " + V + "\n";
  std::string list;
  for (int j = 0; j < L; ++j) list += (j ? ", " : "") + lits[(j * 5 + 3) % lits.size()].text;
  k.prologue += "  %y_splat = const dense<" + lits[1].text + "> : " + V + "\n";
  k.prologue += "  %y_splat2 = const dense<" + lits[6].text + "> : " + V + "\n";
  k.prologue += "  %y_list = const dense<[" + list + "]> : " + V + "\n";
  KernelRun run = Execute(Text(k), {}, target());
  if (!run.ok()) return;
  std::vector<uint32_t> scalars, splat(L, lits[1].bits), splat2(L, lits[6].bits), listed;
  for (int j = 0; j < L; ++j) scalars.push_back(lits[j].bits);
  for (int j = 0; j < L; ++j) listed.push_back(lits[(j * 5 + 3) % lits.size()].bits);
  ExpectSame("scalar const + broadcast/insert", t, ValueCmp(t), run.As<uint32_t>("scalars"), scalars);
  ExpectSame("const dense<" + lits[1].text + ">", t, ValueCmp(t), run.As<uint32_t>("splat"), splat);
  ExpectSame("const dense<" + lits[6].text + ">", t, ValueCmp(t), run.As<uint32_t>("splat2"), splat2);
  ExpectSame("const dense<[" + list + "]>", t, ValueCmp(t), run.As<uint32_t>("list"), listed);
}

TEST_P(TypedTest, Iota) {
  const Dt t = type();
  if (t == Dt::kI1) GTEST_SKIP() << "iota of i1 is not a meaningful value";
  Streamed k;
  k.lanes = lanes();
  k.n = 4 * lanes();
  k.outs = {{"o", t}};
  k.body = "    %y_o = iota : " + Vec(lanes(), t) + "\n";
  KernelRun run = Execute(Text(k), {}, target());
  if (!run.ok()) return;
  std::vector<uint32_t> want;
  for (int64_t i = 0; i < k.n; ++i) {
    uint32_t j = static_cast<uint32_t>(i % lanes());
    want.push_back(t == Dt::kF32 ? B(static_cast<float>(j)) : j);
  }
  ExpectSame("iota", t, Cmp::kBits, run.As<uint32_t>("o"), want);
}

// extract/insert with static and dynamic lane indices, and broadcast of the result.
TEST_P(TypedTest, ExtractInsertBroadcast) {
  const int L = lanes();
  const Dt t = type();
  if (t == Dt::kI1) GTEST_SKIP() << "Pallas extracts only 32-bit scalars (EL-3)";
  const int64_t n = 32 * L;
  std::string V = Vec(L, t), T = Ir(t);
  Streamed k;
  k.lanes = L;
  k.n = n;
  k.ins = {{"a", t}, {"v", t}, {"p", Dt::kI32}};
  k.outs = {{"ext_static", t}, {"ext_last", t}, {"ext_dyn", t}, {"ins_static", t}, {"ins_dyn", t}, {"ins_first", t}};
  k.body = "    %pj = extract %x_p[0] : i32\n"
           "    %pk = extract %x_p[1] : i32\n"
           "    %es = extract %x_a[3] : " + T + "\n"
           "    %y_ext_static = broadcast %es : " + V + "\n"
           "    %el = extract %x_a[" + std::to_string(L - 1) + "] : " + T + "\n"
           "    %y_ext_last = broadcast %el : " + V + "\n"
           "    %ed = extract %x_a[%pj] : " + T + "\n"
           "    %y_ext_dyn = broadcast %ed : " + V + "\n"
           "    %vs = extract %x_v[%pk] : " + T + "\n"
           "    %y_ins_static = insert %vs, %x_a[5] : " + V + "\n"
           "    %y_ins_dyn = insert %vs, %x_a[%pj] : " + V + "\n"
           "    %y_ins_first = insert %vs, %x_a[0] : " + V + "\n";
  std::vector<std::vector<uint32_t>> cols = MakeInputs("lanes_" + T, {t, t}, {Specials(t), Specials(t)}, {}, n);
  std::mt19937 rng(7);
  std::vector<uint32_t> p(n);
  for (uint32_t& x : p) x = rng() % static_cast<uint32_t>(L);
  const std::vector<uint32_t>& a = cols[0];
  const std::vector<uint32_t>& v = cols[1];
  KernelRun run = Execute(Text(k), {{"a", a}, {"v", v}, {"p", p}}, target());
  if (!run.ok()) return;
  auto norm = [&](uint32_t x) { return t == Dt::kI1 ? static_cast<uint32_t>(x != 0) : x; };
  std::map<std::string, std::vector<uint32_t>> want;
  for (int64_t c = 0; c < n; c += L) {
    uint32_t pj = p[c], pk = p[c + 1];
    for (int j = 0; j < L; ++j) {
      want["ext_static"].push_back(norm(a[c + 3]));
      want["ext_last"].push_back(norm(a[c + L - 1]));
      want["ext_dyn"].push_back(norm(a[c + pj]));
      want["ins_static"].push_back(norm(j == 5 ? v[c + pk] : a[c + j]));
      want["ins_dyn"].push_back(norm(static_cast<uint32_t>(j) == pj ? v[c + pk] : a[c + j]));
      want["ins_first"].push_back(norm(j == 0 ? v[c + pk] : a[c + j]));
    }
  }
  for (const auto& [name, w] : want) ExpectSame(name, t, Cmp::kBits, run.As<uint32_t>(name), w);
}

// select with a scalar i1 condition and vector operands.
TEST_P(TypedTest, SelectScalarCondition) {
  const int L = lanes();
  const Dt t = type();
  const int64_t n = 32 * L;
  Streamed k;
  k.lanes = L;
  k.n = n;
  k.ins = {{"c", Dt::kI1}, {"a", t}, {"b", t}};
  k.outs = {{"o", t}};
  // (i1 lanes cannot be extracted, EL-3: the condition comes from the i32 row.)
  k.body = "    %r0 = extract %r_c[0] : i32\n    %c0 = cmp ne %r0, 0 : i1\n    %y_o = select %c0, %x_a, %x_b : " +
           Vec(L, t) + "\n";
  std::vector<std::vector<uint32_t>> cols = MakeInputs("select_scalar_" + Ir(t), {Dt::kI1, t, t},
                                                       {Specials(Dt::kI1), Specials(t), Specials(t)}, {}, n);
  KernelRun run = Execute(Text(k), {{"c", cols[0]}, {"a", cols[1]}, {"b", cols[2]}}, target());
  if (!run.ok()) return;
  std::vector<uint32_t> want(n);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x = cols[0][(i / L) * L] ? cols[1][i] : cols[2][i];
    want[i] = t == Dt::kI1 ? x != 0 : x;
  }
  ExpectSame("select with a scalar condition", t, Cmp::kBits, run.As<uint32_t>("o"), want);
}

INSTANTIATE_TEST_SUITE_P(Ops, TypedTest,
                         ::testing::Combine(::testing::Values(Dt::kI32, Dt::kU32, Dt::kF32, Dt::kI1),
                                            ::testing::Values(0, 1)),
                         TypedName);

// ------------------------------------------------------------------------------------
// Memory ops (§4.3) on vmem views.

class MemoryTest : public TypedTest {};

std::string MemType(int64_t n, Dt t) { return "<" + std::to_string(n) + "x" + Ir(t) + ">"; }

// Random data for memory tests: moves must keep every bit (NaN payloads included).
std::vector<uint32_t> MemoryData(Dt t, int64_t n, uint32_t seed) {
  std::vector<std::vector<uint32_t>> cols = MakeInputs("memory" + std::to_string(seed), {t}, {Specials(t)}, {}, n);
  return cols[0];
}

// A random start in [0, n - L] in element c*L of each chunk c (the rest is noise).
std::vector<uint32_t> Starts(int64_t n, int lanes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = (i % lanes == 0) ? rng() % static_cast<uint32_t>(n - lanes + 1) : rng();
  return p;
}

// get/swap/store on a whole rank-1 ref (no indexer and `[:]`).
TEST_P(MemoryTest, FullView) {
  if (type() == Dt::kI1) GTEST_SKIP() << "i1 is never in memory";
  const int L = lanes();
  const Dt t = type();
  std::string M = MemType(L, t), V = Vec(L, t);
  std::string text = "kernel @k(in %a: hbm" + M + ", in %b: hbm" + M + ", out %o1: hbm" + M + ", out %o2: hbm" + M +
                     ", out %o3: hbm" + M + ")\n    mesh vector(cores = 1, subcores = 1)\n    scratch(%f: vmem" + M +
                     ", %g: vmem" + M + ", %h: vmem" + M + ")\n{\n  copy %a -> %f\n  copy %b -> %g\n"
                     "  %v = get %f : " + V + "\n"
                     "  %w = get %g[:] : " + V + "\n"
                     "  %old = swap %f[:], %w : " + V + "\n"
                     "  store %g, %old\n"
                     "  store %h[0:" + std::to_string(L) + "], %v\n"
                     "  copy %f -> %o1\n  copy %g -> %o2\n  copy %h -> %o3\n}\n";
  std::vector<uint32_t> a = MemoryData(t, L, 1), b = MemoryData(t, L, 2);
  KernelRun run = Execute(text, {{"a", a}, {"b", b}}, target());
  if (!run.ok()) return;
  ExpectSame("swap %f[:] stores b", t, Cmp::kBits, run.As<uint32_t>("o1"), b);
  ExpectSame("swap returns the old a; store %g", t, Cmp::kBits, run.As<uint32_t>("o2"), a);
  ExpectSame("get %f (no indexer)", t, Cmp::kBits, run.As<uint32_t>("o3"), a);
}

// get/swap/store/addupdate at ds(%i, L) with loop-variable starts, and at random
// unaligned dynamic starts (overlapping stores land in program order).
TEST_P(MemoryTest, DynamicSlices) {
  if (type() == Dt::kI1) GTEST_SKIP() << "i1 is never in memory";
  const int L = lanes();
  const Dt t = type();
  const int64_t n = 32 * L;
  std::string M = MemType(n, t), V = Vec(L, t), Ls = std::to_string(L), Ns = std::to_string(n);
  std::string text =
      "kernel @k(in %a: hbm" + M + ", in %b: hbm" + M + ", in %p: hbm" + MemType(n, Dt::kI32) +
      ", out %swapped: hbm" + M + ", out %old: hbm" + M + ", out %unaligned_get: hbm" + M +
      ", out %unaligned_store: hbm" + M + ", out %upd: hbm" + M + ", out %unaligned_upd: hbm" + M +
      ")\n    mesh vector(cores = 1, subcores = 1)\n"
      "    scratch(%av: vmem" + M + ", %bv: vmem" + M + ", %pv: vmem" + MemType(n, Dt::kI32) + ", %ov: vmem" + M +
      ", %lv: vmem" + M + ", %sv: vmem" + M + ", %uv: vmem" + M + ", %wv: vmem" + M + ")\n{\n"
      "  copy %a -> %av\n  copy %b -> %bv\n  copy %p -> %pv\n  copy %b -> %sv\n  copy %b -> %uv\n  copy %b -> %wv\n"
      "  for %i = 0 to " + Ns + " step " + Ls + " {\n"
      "    %v = get %av[ds(%i, " + Ls + ")] : " + V + "\n"
      "    %o = swap %bv[ds(%i, " + Ls + ")], %v : " + V + "\n"
      "    store %ov[ds(%i, " + Ls + ")], %o\n"
      "    addupdate %uv[ds(%i, " + Ls + ")], %v\n"
      "    %pc = get %pv[ds(%i, " + Ls + ")] : " + Vec(L, Dt::kI32) + "\n"
      "    %s = extract %pc[0] : i32\n"
      "    %u = get %av[ds(%s, " + Ls + ")] : " + V + "\n"
      "    store %lv[ds(%i, " + Ls + ")], %u\n"
      "    store %sv[ds(%s, " + Ls + ")], %v\n"
      "    addupdate %wv[ds(%s, " + Ls + ")], %v\n"
      "  }\n"
      "  copy %bv -> %swapped\n  copy %ov -> %old\n  copy %lv -> %unaligned_get\n  copy %sv -> %unaligned_store\n"
      "  copy %uv -> %upd\n  copy %wv -> %unaligned_upd\n}\n";
  std::vector<uint32_t> a = MemoryData(t, n, 3), b = MemoryData(t, n, 4), p = Starts(n, L, 5);
  KernelRun run = Execute(text, {{"a", a}, {"b", b}, {"p", p}}, target());
  if (!run.ok()) return;
  std::vector<uint32_t> lv(n), sv = b, uv = b, wv = b;
  for (int64_t i = 0; i < n; i += L) {
    uint32_t s = p[i];
    for (int j = 0; j < L; ++j) {
      uv[i + j] = Add(t, uv[i + j], a[i + j]);
      lv[i + j] = a[s + j];
      sv[s + j] = a[i + j];
    }
    for (int j = 0; j < L; ++j) wv[s + j] = Add(t, wv[s + j], a[i + j]);
  }
  Cmp add_cmp = ValueCmp(t);
  ExpectSame("swap stores", t, Cmp::kBits, run.As<uint32_t>("swapped"), a);
  ExpectSame("swap returns the old value", t, Cmp::kBits, run.As<uint32_t>("old"), b);
  ExpectSame("get at an unaligned dynamic start", t, Cmp::kBits, run.As<uint32_t>("unaligned_get"), lv);
  ExpectSame("store at an unaligned dynamic start", t, Cmp::kBits, run.As<uint32_t>("unaligned_store"), sv);
  ExpectSame("addupdate", t, add_cmp, run.As<uint32_t>("upd"), uv);
  ExpectSame("addupdate at an unaligned dynamic start", t, add_cmp, run.As<uint32_t>("unaligned_upd"), wv);
}

// 2-D refs: an integer row index (dynamic and static) with a dynamic column slice, a
// whole row, a view of a row, and a non-contiguous 2 x L block.
TEST_P(MemoryTest, TwoDimensional) {
  if (type() == Dt::kI1) GTEST_SKIP() << "i1 is never in memory";
  const int L = lanes();
  const Dt t = type();
  const int R = 6, W = 4 * L;
  std::string M = "<" + std::to_string(R) + "x" + std::to_string(W) + "x" + Ir(t) + ">";
  std::string V = Vec(L, t), Ls = std::to_string(L), Ws = std::to_string(W), Rs = std::to_string(R);
  std::string text =
      "kernel @k(in %m: hbm" + M + ", in %b: hbm" + M + ", out %copied: hbm" + M + ", out %swapped: hbm" + M +
      ", out %old: hbm" + M + ", out %upd: hbm" + M + ", out %rows: hbm" + M + ", out %viewed: hbm" + M +
      ", out %blocks: hbm" + M + ", out %static: hbm" + M + ")\n    mesh vector(cores = 1, subcores = 1)\n"
      "    scratch(%mv: vmem" + M + ", %cv: vmem" + M + ", %bv: vmem" + M + ", %ov: vmem" + M + ", %uv: vmem" + M +
      ", %rv: vmem" + M + ", %vv: vmem" + M + ", %kv: vmem" + M + ", %sv: vmem" + M + ")\n{\n"
      "  copy %m -> %mv\n  copy %b -> %bv\n  copy %b -> %uv\n  copy %b -> %kv\n  copy %b -> %sv\n"
      "  for %r = 0 to " + Rs + " step 1 {\n"
      "    %row = view %mv[%r, :] : vmem<" + Ws + "x" + Ir(t) + ">\n"
      "    for %c = 0 to " + Ws + " step " + Ls + " {\n"
      "      %v = get %mv[%r, ds(%c, " + Ls + ")] : " + V + "\n"
      "      store %cv[%r, ds(%c, " + Ls + ")], %v\n"
      "      %o = swap %bv[%r, ds(%c, " + Ls + ")], %v : " + V + "\n"
      "      store %ov[%r, ds(%c, " + Ls + ")], %o\n"
      "      addupdate %uv[%r, ds(%c, " + Ls + ")], %v\n"
      "      %w = get %row[ds(%c, " + Ls + ")] : " + V + "\n"
      "      store %vv[%r, ds(%c, " + Ls + ")], %w\n"
      "    }\n"
      "    %whole = get %mv[%r, :] : " + Vec(W, t) + "\n"
      "    store %rv[%r], %whole\n"
      "  }\n"
      "  for %r = 0 to " + Rs + " step 2 {\n"
      "    %blk = get %mv[ds(%r, 2), ds(" + Ls + ", " + Ls + ")] : vector<2x" + Ls + "x" + Ir(t) + ">\n"
      "    store %kv[ds(%r, 2), " + std::to_string(2 * L) + ":" + std::to_string(3 * L) + "], %blk\n"
      "  }\n"
      "  %s = get %mv[1, 0:" + Ls + "] : " + V + "\n"
      "  store %sv[4, " + Ls + ":" + std::to_string(2 * L) + "], %s\n"
      "  copy %cv -> %copied\n  copy %bv -> %swapped\n  copy %ov -> %old\n  copy %uv -> %upd\n"
      "  copy %rv -> %rows\n  copy %vv -> %viewed\n  copy %kv -> %blocks\n  copy %sv -> %static\n}\n";
  const int64_t n = R * W;
  std::vector<uint32_t> m = MemoryData(t, n, 6), b = MemoryData(t, n, 7);
  KernelRun run = Execute(text, {{"m", m}, {"b", b}}, target());
  if (!run.ok()) return;
  std::vector<uint32_t> upd(n), blocks = b, stat = b;
  for (int64_t i = 0; i < n; ++i) upd[i] = Add(t, b[i], m[i]);
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < L; ++j) blocks[r * W + 2 * L + j] = m[r * W + L + j];
  }
  for (int j = 0; j < L; ++j) stat[4 * W + L + j] = m[1 * W + j];
  ExpectSame("get/store %x[%r, ds(%c, L)]", t, Cmp::kBits, run.As<uint32_t>("copied"), m);
  ExpectSame("swap stores", t, Cmp::kBits, run.As<uint32_t>("swapped"), m);
  ExpectSame("swap returns the old value", t, Cmp::kBits, run.As<uint32_t>("old"), b);
  ExpectSame("addupdate %x[%r, ds(%c, L)]", t, ValueCmp(t), run.As<uint32_t>("upd"), upd);
  ExpectSame("get %x[%r, :] / store %x[%r]", t, Cmp::kBits, run.As<uint32_t>("rows"), m);
  ExpectSame("get through view %x[%r, :]", t, Cmp::kBits, run.As<uint32_t>("viewed"), m);
  ExpectSame("2 x L block get/store", t, Cmp::kBits, run.As<uint32_t>("blocks"), blocks);
  ExpectSame("static 2-D indices", t, Cmp::kBits, run.As<uint32_t>("static"), stat);
}

// Mask patterns per chunk of L: all set, none, alternating (both phases), first or
// last lane only, halves, then random densities. Non-zero values of every kind count
// as set (the kernel's mask is `cmp ne %m, 0`).
std::vector<uint32_t> Masks(int64_t n, int lanes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> m(n);
  for (int64_t c = 0; c < n / lanes; ++c) {
    for (int j = 0; j < lanes; ++j) {
      bool on = false;
      switch (c) {
        case 0: on = true; break;
        case 1: on = false; break;
        case 2: on = j % 2 == 0; break;
        case 3: on = j % 2 == 1; break;
        case 4: on = j == 0; break;
        case 5: on = j == lanes - 1; break;
        case 6: on = j < lanes / 2; break;
        case 7: on = j >= lanes / 2; break;
        default: on = rng() % 100 < (c % 3 == 0 ? 50u : c % 3 == 1 ? 20u : 80u);
      }
      const uint32_t kOn[] = {1u, U(-1), kIntMin, 7u};
      m[c * lanes + j] = on ? kOn[rng() % 4] : 0u;
    }
  }
  return m;
}

TEST_P(MemoryTest, MaskedExpandCompress) {
  if (type() == Dt::kI1) GTEST_SKIP() << "i1 is never in memory";
  const int L = lanes();
  const Dt t = type();
  const int64_t n = 32 * L;
  std::string M = MemType(n, t), MI = MemType(n, Dt::kI32), V = Vec(L, t), Ls = std::to_string(L);
  std::string M2 = "<2x" + std::to_string(n) + "x" + Ir(t) + ">";
  std::string text =
      "kernel @k(in %a: hbm" + M + ", in %b: hbm" + M + ", in %m: hbm" + MI + ", in %p: hbm" + MI +
      ", out %expanded: hbm" + M + ", out %compressed: hbm" + M + ", out %added: hbm" + M +
      ", out %expanded_u: hbm" + M + ", out %compressed_u: hbm" + M + ", out %added_u: hbm" + M +
      ", out %expanded_2d: hbm" + M + ", out %compressed_2d: hbm" + M + ", out %added_2d: hbm" + M +
      ")\n    mesh vector(cores = 1, subcores = 1)\n"
      "    scratch(%av: vmem" + M + ", %mv: vmem" + MI + ", %pv: vmem" + MI + ", %ev: vmem" + M + ", %cv: vmem" + M +
      ", %dv: vmem" + M + ", %euv: vmem" + M + ", %cuv: vmem" + M + ", %duv: vmem" + M + ", %e2v: vmem" + M +
      ", %t2: vmem" + M2 + ", %u2: vmem" + M2 + ")\n{\n"
      "  %zero = const dense<0> : " + Vec(L, Dt::kI32) + "\n"
      "  copy %a -> %av\n  copy %m -> %mv\n  copy %p -> %pv\n"
      "  copy %b -> %cv\n  copy %b -> %dv\n  copy %b -> %cuv\n  copy %b -> %duv\n"
      "  copy %a -> %t2[0]\n  copy %b -> %t2[1]\n  copy %b -> %u2[1]\n"
      "  for %i = 0 to " + std::to_string(n) + " step " + Ls + " {\n"
      "    %v = get %av[ds(%i, " + Ls + ")] : " + V + "\n"
      "    %mr = get %mv[ds(%i, " + Ls + ")] : " + Vec(L, Dt::kI32) + "\n"
      "    %mk = cmp ne %mr, %zero : " + Vec(L, Dt::kI1) + "\n"
      "    %e = load_expanded %av[ds(%i, " + Ls + ")] mask %mk : " + V + "\n"
      "    store %ev[ds(%i, " + Ls + ")], %e\n"
      "    store_compressed %cv[ds(%i, " + Ls + ")], %v mask %mk\n"
      "    addupdate_compressed %dv[ds(%i, " + Ls + ")], %v mask %mk\n"
      "    %pc = get %pv[ds(%i, " + Ls + ")] : " + Vec(L, Dt::kI32) + "\n"
      "    %s = extract %pc[0] : i32\n"
      "    %eu = load_expanded %av[ds(%s, " + Ls + ")] mask %mk : " + V + "\n"
      "    store %euv[ds(%i, " + Ls + ")], %eu\n"
      "    store_compressed %cuv[ds(%s, " + Ls + ")], %v mask %mk\n"
      "    addupdate_compressed %duv[ds(%s, " + Ls + ")], %v mask %mk\n"
      "    %e2 = load_expanded %t2[0, ds(%i, " + Ls + ")] mask %mk : " + V + "\n"
      "    store %e2v[ds(%i, " + Ls + ")], %e2\n"
      "    store_compressed %u2[1, ds(%i, " + Ls + ")], %v mask %mk\n"
      "    addupdate_compressed %t2[1, ds(%i, " + Ls + ")], %v mask %mk\n"
      "  }\n"
      "  copy %ev -> %expanded\n  copy %cv -> %compressed\n  copy %dv -> %added\n"
      "  copy %euv -> %expanded_u\n  copy %cuv -> %compressed_u\n  copy %duv -> %added_u\n"
      "  copy %e2v -> %expanded_2d\n  copy %u2[1] -> %compressed_2d\n  copy %t2[1] -> %added_2d\n}\n";
  std::vector<uint32_t> a = MemoryData(t, n, 8), b = MemoryData(t, n, 9), m = Masks(n, L, 10), p = Starts(n, L, 11);
  KernelRun run = Execute(text, {{"a", a}, {"b", b}, {"m", m}, {"p", p}}, target());
  if (!run.ok()) return;
  // runtime.md §7.1: masked-off lanes of load_expanded are the poison value; memory
  // past popcount(mask) is unchanged by the compressing stores.
  std::vector<uint32_t> ev(n), cv = b, dv = b, euv(n), cuv = b, duv = b;
  for (int64_t i = 0; i < n; i += L) {
    uint32_t s = p[i];
    int k = 0;
    for (int j = 0; j < L; ++j) {
      bool on = m[i + j] != 0;
      ev[i + j] = on ? a[i + k] : Poison(t);
      euv[i + j] = on ? a[s + k] : Poison(t);
      if (on) {
        cv[i + k] = a[i + j];
        dv[i + k] = Add(t, dv[i + k], a[i + j]);
        ++k;
      }
    }
    k = 0;
    for (int j = 0; j < L; ++j) {  // the unaligned stores, in program order
      if (m[i + j] == 0) continue;
      cuv[s + k] = a[i + j];
      ++k;
    }
    k = 0;
    for (int j = 0; j < L; ++j) {
      if (m[i + j] == 0) continue;
      duv[s + k] = Add(t, duv[s + k], a[i + j]);
      ++k;
    }
  }
  auto describe = [&](size_t i) { return "(chunk " + std::to_string(i / L) + ", mask lane " + std::to_string(i % L) + ")"; };
  ExpectSame("load_expanded", t, Cmp::kBits, run.As<uint32_t>("expanded"), ev, describe);
  ExpectSame("store_compressed", t, Cmp::kBits, run.As<uint32_t>("compressed"), cv, describe);
  ExpectSame("addupdate_compressed", t, ValueCmp(t), run.As<uint32_t>("added"), dv, describe);
  ExpectSame("load_expanded at unaligned starts", t, Cmp::kBits, run.As<uint32_t>("expanded_u"), euv, describe);
  ExpectSame("store_compressed at unaligned starts", t, Cmp::kBits, run.As<uint32_t>("compressed_u"), cuv, describe);
  ExpectSame("addupdate_compressed at unaligned starts", t, ValueCmp(t), run.As<uint32_t>("added_u"), duv, describe);
  ExpectSame("load_expanded on a row of a 2-D ref", t, Cmp::kBits, run.As<uint32_t>("expanded_2d"), ev, describe);
  ExpectSame("store_compressed on a row of a 2-D ref", t, Cmp::kBits, run.As<uint32_t>("compressed_2d"), cv, describe);
  ExpectSame("addupdate_compressed on a row of a 2-D ref", t, ValueCmp(t), run.As<uint32_t>("added_2d"), dv, describe);
}

INSTANTIATE_TEST_SUITE_P(Ops, MemoryTest,
                         ::testing::Combine(::testing::Values(Dt::kI32, Dt::kU32, Dt::kF32), ::testing::Values(0, 1)),
                         TypedName);

}  // namespace
}  // namespace scjit::testing
