#include "tests/fuzz/stress_gen.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"

namespace scjit::fuzz {
namespace {

constexpr StressFamilyInfo kFamilies[] = {
    {StressFamily::kPiles, "piles"},
    {StressFamily::kLoops, "loops"},
    {StressFamily::kLines, "lines"},
    {StressFamily::kChips, "chips"},
};

// Draws that are the same on every standard library (the distributions of
// <random> are not).
class Draw {
 public:
  Draw(uint64_t seed, StressFamily family) : rng_(seed * 4 + static_cast<uint64_t>(family)) {}
  int64_t Below(int64_t n) { return n <= 1 ? 0 : static_cast<int64_t>(rng_() % static_cast<uint64_t>(n)); }
  int64_t Between(int64_t lo, int64_t hi) { return lo + Below(hi - lo + 1); }
  // Log-uniform in [lo, hi]: small and large sizes alike.
  int64_t Spread(int64_t lo, int64_t hi) {
    int bits = 0;
    while ((int64_t{1} << (bits + 1)) <= hi) ++bits;
    int64_t top = int64_t{1} << Below(bits + 1);
    return std::clamp(top + Below(top), lo, hi);
  }
  template <typename T, size_t N>
  const T& Of(const T (&items)[N]) { return items[Below(N)]; }

 private:
  std::mt19937_64 rng_;
};

int Lanes(const std::string& target) { return target == "v7x" || target == "v8i" ? 16 : 8; }

// Where a pile's DMAs land: HBM or VMEM_SHARED, each subcore's own rows or
// the same rows for all (the same bytes from every subcore: no race).
struct PileDest {
  const char* what;
  bool shared, overlap;
};
constexpr PileDest kPileDests[] = {
    {"hbm, own rows", false, false},
    {"hbm, shared rows", false, true},
    {"vmem_shared, own rows", true, false},
    {"vmem_shared, shared rows", true, true},
};

StressKernel Piles(Draw& d, const StressOptions& o) {
  StressKernel k;
  k.target = d.Below(2) ? "v7x" : "v6e";
  const int lanes = Lanes(k.target);
  const int subcores = 1 << d.Below(5);  // 1..16
  const int rows = 1 << d.Below(4);      // 1..8
  const PileDest& dest = d.Of(kPileDests);
  // Rounds of `batch` starts and `waited` waits; the rest waited at the end.
  const int64_t batch = d.Between(rows, std::max<int64_t>(rows, std::min<int64_t>(o.max_dmas, 1100)));
  const int64_t waited = d.Of({0, 1, 2}) == 0 ? batch : d.Below(2) ? 0 : d.Below(batch + 1);
  const int64_t rounds = d.Between(1, std::max<int64_t>(1, o.max_dmas / batch));
  const int64_t peak = (rounds - 1) * (batch - waited) + batch;
  k.expect = peak > 1024 ? Expect::kInFlight : Expect::kRuns;
  k.what = absl::StrCat(k.target, ", ", subcores, " subcores, ", rounds, " rounds of ", batch, " starts and ", waited,
                        " waits into ", dest.what, " (", rows, " rows): ", peak, " in flight at most");
  std::string row0 = dest.overlap ? "0" : "%base";
  std::string dst, dst0;
  if (dest.shared) {
    dst = dest.overlap ? "%sh[%row, :]" : "%sh[%at, :]";
    dst0 = absl::StrCat("%sh[", row0, ", :]");
  } else {
    dst = dest.overlap ? "%o[0, %row, :]" : "%o[%s, %row, :]";
    dst0 = dest.overlap ? "%o[0, 0, :]" : "%o[%s, 0, :]";
  }
  std::string vec = absl::StrCat(rows, "x", lanes, "xi32");
  absl::StrAppend(&k.text, "kernel @pile(in %x: hbm<", vec, ">, out %o: hbm<", subcores, "x", vec,
                  ">)\n    mesh vector(cores = 1, subcores = ", subcores, ")\n    scratch(%v: vmem<", vec,
                  ">, %sem: dma_sem");
  if (dest.shared) absl::StrAppend(&k.text, ", %sh: vmem_shared<", dest.overlap ? rows : subcores * rows, "x", lanes, "xi32>");
  absl::StrAppend(&k.text, ")\n{\n  %s = axis_index subcore : i32\n  %base = mul %s, ", rows, " : i32\n",
                  "  copy %x -> %v\n  for %r = 0 to ", rounds, " step 1 {\n    for %i = 0 to ", batch,
                  " step 1 {\n      %row = and %i, ", rows - 1, " : i32\n      %at = add %base, %row : i32\n",
                  "      dma_start %v[%row, :] -> ", dst, ", %sem\n    }\n");
  std::string wait = absl::StrCat("dma_wait %v[0, :] -> ", dst0, ", %sem\n");
  if (waited > 0) absl::StrAppend(&k.text, "    for %j = 0 to ", waited, " step 1 {\n      ", wait, "    }\n");
  absl::StrAppend(&k.text, "  }\n");
  if (int64_t rest = rounds * (batch - waited); rest > 0) {
    absl::StrAppend(&k.text, "  for %j = 0 to ", rest, " step 1 {\n    ", wait, "  }\n");
  }
  if (dest.shared) {
    absl::StrAppend(&k.text, "  barrier\n  copy %sh", dest.overlap ? "" : absl::StrCat("[ds(%base, ", rows, "), :]"),
                    " -> %o[%s, :, :]\n");
  }
  absl::StrAppend(&k.text, "}\n");
  return k;
}

StressKernel Loops(Draw& d, const StressOptions& o) {
  StressKernel k;
  k.target = d.Below(2) ? "v7x" : "v6e";
  k.expect = Expect::kRunsOrTimesOut;
  k.time_limit_seconds = d.Of({0.1, 0.25, 0.5, 1.0});
  const int64_t elements = d.Spread(16, std::max<int64_t>(16, o.max_copy_bytes / 4));
  const int64_t trips = d.Spread(1, 100000);
  const bool async = d.Below(2);
  k.source = {0};
  k.what = absl::StrCat(k.target, ", ", trips, " ", async ? "dma_start/dma_wait" : "copy", " of ", elements * 4,
                        " bytes, limit ", k.time_limit_seconds, " s");
  absl::StrAppend(&k.text, "kernel @loop(in %x: hbm<", elements, "xi32>, out %o: hbm<", elements,
                  "xi32>)\n    mesh scalar(cores = 1)\n", async ? "    scratch(%sem: dma_sem)\n" : "",
                  "{\n  for %i = 0 to ", trips, " step 1 {\n");
  if (async) {
    absl::StrAppend(&k.text, "    dma_start %x -> %o, %sem\n    dma_wait %x -> %o, %sem\n");
  } else {
    absl::StrAppend(&k.text, "    copy %x -> %o\n");
  }
  absl::StrAppend(&k.text, "  }\n}\n");
  return k;
}

// The ops of a line: binary ones take the row read and an earlier value or
// a constant, unary ones the row read.
struct LineOp {
  const char* name;
  bool binary;
};
constexpr LineOp kLineOps[] = {{"add", true}, {"sub", true}, {"mul", true}, {"xor", true}, {"and", true},
                               {"or", true},  {"max", true}, {"min", true}, {"neg", false}, {"abs", false},
                               {"not", false}};

StressKernel Lines(Draw& d, const StressOptions& o) {
  StressKernel k;
  k.target = d.Of({"v7x", "v6e", "v8i"});
  const int lanes = Lanes(k.target);
  const int rows = 1 << d.Below(4);
  const int64_t lines = d.Between(100, std::max(100, o.max_lines));
  k.what = absl::StrCat(k.target, ", ", lines, " get/op/store triples over ", rows, " rows");
  std::string vec = absl::StrCat("vector<", lanes, "xi32>");
  std::string ref = absl::StrCat(rows, "x", lanes, "xi32");
  absl::StrAppend(&k.text, "kernel @line(in %x: hbm<", ref, ">, out %o: hbm<", ref,
                  ">)\n    mesh vector(cores = 1, subcores = 1)\n    scratch(%v: vmem<", ref, ">)\n{\n  copy %x -> %v\n",
                  "  %c = const dense<3> : ", vec, "\n");
  for (int64_t i = 0; i < lines; ++i) {
    const LineOp& op = d.Of(kLineOps);
    absl::StrAppend(&k.text, "  %a", i, " = get %v[", d.Below(rows), ", :] : ", vec, "\n  %b", i, " = ", op.name,
                    " %a", i);
    if (op.binary) absl::StrAppend(&k.text, ", ", i > 0 && d.Below(2) ? absl::StrCat("%b", d.Below(i)) : "%c");
    absl::StrAppend(&k.text, " : ", vec, "\n  store %v[", d.Below(rows), ", :], %b", i, "\n");
  }
  absl::StrAppend(&k.text, "  copy %v -> %o\n}\n");
  return k;
}

StressKernel Chips(Draw& d, const StressOptions& o) {
  StressKernel k;
  k.target = d.Below(2) ? "v7x" : "v6e";
  const int chips = d.Between(2, 8);
  const int rows = d.Of({1, 2, 8});
  const int64_t rounds = d.Spread(1, o.max_rounds);
  // Pairs: chip d and d ^ 1 (an even count); a ring: each chip to the one
  // `shift` to its right.
  const bool pairs = chips % 2 == 0 && d.Below(2);
  const int shift = pairs ? 0 : d.Between(1, chips - 1);
  for (int c = 0; c < chips; ++c) k.source.push_back(pairs ? c ^ 1 : (c - shift + chips) % chips);
  k.what = absl::StrCat(k.target, ", ", chips, " chips ", pairs ? "in pairs" : absl::StrCat("on a ring, shift ", shift),
                        ", ", rounds, " exchanges of ", rows, "x128 i32");
  std::string block = absl::StrCat("hbm<", rows, "x128xi32>");
  absl::StrAppend(&k.text, "kernel @chips(in %x: ", block, ", out %y: ", block,
                  ")\n    mesh scalar(cores = 1)\n    devices(x = ", chips,
                  ")\n    scratch(%ready: sem, %send: dma_sem, %recv: dma_sem)\n{\n  %me = axis_index x : i32\n");
  if (pairs) {
    absl::StrAppend(&k.text, "  %odd = rem %me, 2 : i32\n  %other = sub 1, %odd : i32\n",
                    "  %even = sub %me, %odd : i32\n  %peer = add %even, %other : i32\n");
  } else {
    absl::StrAppend(&k.text, "  %moved = add %me, ", shift, " : i32\n  %peer = rem %moved, ", chips, " : i32\n");
  }
  absl::StrAppend(&k.text, "  for %i = 0 to ", rounds, " step 1 {\n    sem_signal %ready, 1 {device = %peer}\n",
                  "    sem_wait %ready, 1\n    dma_start %x -> %y, %recv src_sem %send {device = %peer}\n",
                  "    dma_wait %x -> %y, %recv src_sem %send {device = %peer}\n  }\n}\n");
  return k;
}

}  // namespace

std::span<const StressFamilyInfo> StressFamilies() { return kFamilies; }

StressKernel GenerateStress(StressFamily family, uint64_t seed, const StressOptions& options) {
  Draw d(seed, family);
  switch (family) {
    case StressFamily::kPiles: return Piles(d, options);
    case StressFamily::kLoops: return Loops(d, options);
    case StressFamily::kLines: return Lines(d, options);
    case StressFamily::kChips: return Chips(d, options);
  }
  return {};
}

}  // namespace scjit::fuzz
