// Indirect DMAs (kernel-ir.md §4.2 `idx(...)`, §4.4; sc-semantics.md §4.4;
// runtime.md §4, §7.6, §7.7) against references written here from the spec:
//   - gather: dst[i] = src[idx[i]] (HBM or VMEM_SHARED into VMEM); with `add`,
//     dst[i] += src[idx[i]];
//   - scatter: dst[idx[i]] = src[i] (VMEM into HBM or VMEM_SHARED), duplicates:
//     the last entry wins; with `add`, dst[idx[i]] += src[i] in list order, and
//     the adds of several subcores all land (in subcore order: docs/runtime.md);
//   - entries equal to `ignore` move nothing (a gather's row keeps its contents)
//     and the semaphore is still credited with the full size;
//   - the list is a VMEM ref (whole, a row, a dynamically sized slice) or a
//     vector value, read when the DMA starts;
//   - an entry outside the indexed dimension is RT-BOUNDS when checked, and
//     touches no memory otherwise.
// Every kernel runs on both lane counts, in both DMA modes, on 1 and 4 threads.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "tests/float_reference.h"
#include "tests/kernel_runner.h"

namespace scjit::testing {
namespace {

constexpr int kRows = 64, kCols = 8, kList = 48;  // table rows, row length, list entries

enum class Dt { kI32, kF32 };
const char* Ir(Dt t) { return t == Dt::kI32 ? "i32" : "f32"; }

float F(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t B(float f) { return std::bit_cast<uint32_t>(f); }
// dst + src, as an adding DMA computes it (integers wrap).
uint32_t Add(Dt t, uint32_t dst, uint32_t src) { return t == Dt::kF32 ? B(F(dst) + F(src)) : dst + src; }
bool Same(Dt t, uint32_t a, uint32_t b) { return a == b || (t == Dt::kF32 && std::isnan(F(a)) && std::isnan(F(b))); }

// Random elements; floats of mixed magnitudes (so that the order of a sum
// changes its rounding), with ±0, infinity and NaN among them.
std::vector<uint32_t> Elements(Dt t, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (uint32_t& x : v) {
    if (t == Dt::kI32) {
      x = rng();
    } else {
      float mag = std::ldexp(1.0f, static_cast<int>(rng() % 40) - 20);
      x = B(mag * (static_cast<float>(rng() % 2001) / 1000.0f - 1.0f));
    }
  }
  if (t == Dt::kI32) {
    v[0] = 0x7FFFFFFFu;  // adds wrap
    v[1] = 0x80000000u;
  } else {
    v[0] = B(-0.0f);
    v[1] = B(INFINITY);
    v[n - 1] = 0x7FC00000u;
  }
  return v;
}

// `lists` lists of kList row numbers in [0, kRows), each with duplicates and
// with the value 7 (the tests' ignore value) at entries 9 and 30.
std::vector<int32_t> Lists(int lists, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> v(static_cast<size_t>(lists) * kList);
  for (int l = 0; l < lists; ++l) {
    int32_t* ids = &v[static_cast<size_t>(l) * kList];
    for (int i = 0; i < kList; ++i) ids[i] = static_cast<int32_t>(rng() % kRows);
    ids[5] = ids[2];
    ids[40] = ids[2];
    ids[9] = 7;
    ids[30] = 7;
  }
  return v;
}

std::string Replace(std::string text, const std::vector<std::pair<std::string, std::string>>& subs) {
  for (const auto& [from, to] : subs) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  }
  return text;
}

// Copies row `from` of `src` (kCols elements) onto row `to` of `dst`, or adds it.
void Row(Dt t, std::vector<uint32_t>& dst, int to, const std::vector<uint32_t>& src, int from, bool add) {
  for (int c = 0; c < kCols; ++c) {
    uint32_t& d = dst[static_cast<size_t>(to) * kCols + c];
    uint32_t s = src[static_cast<size_t>(from) * kCols + c];
    d = add ? Add(t, d, s) : s;
  }
}

void ExpectRows(Dt t, const std::vector<uint32_t>& got, const std::vector<uint32_t>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_TRUE(Same(t, got[k], want[k])) << what << ": row " << k / kCols << ", column " << k % kCols << ": got 0x"
                                          << std::hex << got[k] << ", want 0x" << want[k];
  }
}

std::vector<uint32_t> Part(const std::vector<uint32_t>& v, size_t first, size_t n) {
  return std::vector<uint32_t>(v.begin() + static_cast<long>(first), v.begin() + static_cast<long>(first + n));
}

struct Target {
  const char* id;
  int lanes;
};
const Target kTargets[] = {{"v7x", 16}, {"v5p", 8}};

using Config = std::tuple<int, int, DmaMode>;  // target, threads, DMA mode

class IndirectDmaTest : public ::testing::TestWithParam<Config> {
 protected:
  const Target& target() const { return kTargets[std::get<0>(GetParam())]; }
  std::string lanes_text() const { return std::to_string(target().lanes); }
  CompileOptions compile() const {
    CompileOptions o;
    o.target = target().id;
    return o;
  }
  LaunchOptions launch() const {
    LaunchOptions o;
    o.threads = std::get<1>(GetParam());
    o.dma = std::get<2>(GetParam());
    return o;
  }
};

// --- Gathers ------------------------------------------------------------------------

// Two subcores, each with its own list (row s of %ids): (a) an HBM gather by a
// VMEM ref, (b) a VMEM_SHARED gather by a vector value (the list's first L
// entries), (c) `ignore = 7` over rows holding %init, (d) a gather-add into
// %init, (e) %n entries of the other subcore's list from entry 3 on (a row and a
// dynamically sized slice of a 2-D list ref) into the first %n rows of %init.
constexpr const char kGathers[] = R"(
kernel @gathers(in %x: hbm<64x8x$T>, in %ids: hbm<2x48xi32>, in %init: hbm<48x8x$T>, in %n: smem<1xi32>,
                out %a: hbm<2x48x8x$T>, out %b: hbm<2x$Lx8x$T>, out %c: hbm<2x48x8x$T>,
                out %d: hbm<2x48x8x$T>, out %e: hbm<2x48x8x$T>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%iv: vmem<48xi32>, %buf: vmem<48x8x$T>, %sh: vmem_shared<64x8x$T>, %vb: vmem<$Lx8x$T>,
            %i2: vmem<2x48xi32>)
{
  %s = axis_index subcore : i32
  %first = cmp eq %s, 0 : i1
  if %first {
    copy %x -> %sh
  }
  copy %ids[%s] -> %iv
  copy %x[idx(%iv)] -> %buf
  copy %buf -> %a[%s]
  barrier
  %v = get %iv[ds(0, $L)] : vector<$Lxi32>
  copy %sh[idx(%v)] -> %vb
  copy %vb -> %b[%s]
  copy %init -> %buf
  copy %x[idx(%iv, ignore = 7)] -> %buf
  copy %buf -> %c[%s]
  copy %init -> %buf
  copy %x[idx(%iv)] -> %buf add
  copy %buf -> %d[%s]
  copy %ids -> %i2
  %cnt = get %n[0] : i32
  %o = xor %s, 1 : i32
  %lst = view %i2[%o, ds(3, %cnt)] : vmem<?xi32>
  %dst = view %buf[ds(0, %cnt), :] : vmem<?x8x$T>
  copy %init -> %buf
  copy %x[idx(%lst)] -> %dst
  copy %buf -> %e[%s]
}
)";

TEST_P(IndirectDmaTest, Gathers) {
  const int lanes = target().lanes;
  for (Dt t : {Dt::kI32, Dt::kF32}) {
    SCOPED_TRACE(Ir(t));
    std::vector<uint32_t> x = Elements(t, kRows * kCols, 1), init = Elements(t, kList * kCols, 2);
    std::vector<int32_t> ids = Lists(2, 3);
    const int32_t n = 37;
    testing::Run run = RunText(Replace(kGathers, {{"$T", Ir(t)}, {"$L", lanes_text()}}),
                      {{"x", Bytes(x)}, {"ids", Bytes(ids)}, {"init", Bytes(init)}, {"n", Bytes(std::vector<int32_t>{n})}},
                      compile(), launch());
    ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
    std::vector<uint32_t> a = run.As<uint32_t>("a"), b = run.As<uint32_t>("b"), c = run.As<uint32_t>("c"),
                          d = run.As<uint32_t>("d"), e = run.As<uint32_t>("e");
    const size_t block = kList * kCols;
    for (int s = 0; s < 2; ++s) {
      const int32_t* list = &ids[static_cast<size_t>(s) * kList];
      const int32_t* other = &ids[static_cast<size_t>(1 - s) * kList];
      std::vector<uint32_t> wa(block), wb(static_cast<size_t>(lanes) * kCols), wc = init, wd = init, we = init;
      for (int i = 0; i < kList; ++i) {
        Row(t, wa, i, x, list[i], false);
        if (list[i] != 7) Row(t, wc, i, x, list[i], false);
        Row(t, wd, i, x, list[i], true);
      }
      for (int i = 0; i < lanes; ++i) Row(t, wb, i, x, list[i], false);
      for (int i = 0; i < n; ++i) Row(t, we, i, x, other[3 + i], false);
      std::string who = " of subcore " + std::to_string(s);
      ExpectRows(t, Part(a, s * block, block), wa, "HBM gather by a ref" + who);
      ExpectRows(t, Part(b, s * wb.size(), wb.size()), wb, "VMEM_SHARED gather by a value" + who);
      ExpectRows(t, Part(c, s * block, block), wc, "ignore = 7" + who);
      ExpectRows(t, Part(d, s * block, block), wd, "gather-add" + who);
      ExpectRows(t, Part(e, s * block, block), we, "dynamically sized list" + who);
    }
  }
}

// --- Scatters -----------------------------------------------------------------------

// Four workers (2 cores x 2 subcores), worker w with rows x[w] and list ids[w]:
// worker 0 scatters into %p (ignore = 7, duplicates), worker 1 its first L rows
// into %p2 by a vector value; every worker scatter-adds into %q (HBM); the two
// subcores of each core scatter-add (async) into their core's VMEM_SHARED, which
// starts as %init and ends in %r[core].
constexpr const char kScatters[] = R"(
kernel @scatters(in %x: hbm<4x48x8x$T>, in %ids: hbm<4x48xi32>, in %init: hbm<64x8x$T>,
                 inout %p: hbm<64x8x$T>, inout %p2: hbm<64x8x$T>, inout %q: hbm<64x8x$T>,
                 out %r: hbm<2x64x8x$T>)
    mesh vector(cores = 2, subcores = 2)
    scratch(%iv: vmem<48xi32>, %buf: vmem<48x8x$T>, %sh: vmem_shared<64x8x$T>, %sem: dma_sem)
{
  %c = axis_index core : i32
  %s = axis_index subcore : i32
  %w2 = mul %c, 2 : i32
  %w = add %w2, %s : i32
  copy %ids[%w] -> %iv
  copy %x[%w] -> %buf
  %w0 = cmp eq %w, 0 : i1
  if %w0 {
    copy %buf -> %p[idx(%iv, ignore = 7)]
  }
  %w1 = cmp eq %w, 1 : i1
  if %w1 {
    %v = get %iv[ds(0, $L)] : vector<$Lxi32>
    copy %buf[0:$L] -> %p2[idx(%v)]
  }
  copy %buf -> %q[idx(%iv)] add
  %s0 = cmp eq %s, 0 : i1
  if %s0 {
    copy %init -> %sh
  }
  barrier
  dma_start %buf -> %sh[idx(%iv)], %sem add
  dma_wait %buf -> %sh[idx(%iv)], %sem
  barrier
  if %s0 {
    copy %sh -> %r[%c]
  }
}
)";

TEST_P(IndirectDmaTest, Scatters) {
  const int lanes = target().lanes;
  for (Dt t : {Dt::kI32, Dt::kF32}) {
    SCOPED_TRACE(Ir(t));
    std::vector<uint32_t> x = Elements(t, 4 * kList * kCols, 4), init = Elements(t, kRows * kCols, 5),
                          p = Elements(t, kRows * kCols, 6), p2 = Elements(t, kRows * kCols, 7),
                          q = Elements(t, kRows * kCols, 8);
    std::vector<int32_t> ids = Lists(4, 9);
    testing::Run run = RunText(Replace(kScatters, {{"$T", Ir(t)}, {"$L", lanes_text()}}),
                      {{"x", Bytes(x)}, {"ids", Bytes(ids)}, {"init", Bytes(init)}, {"p", Bytes(p)},
                       {"p2", Bytes(p2)}, {"q", Bytes(q)}},
                      compile(), launch());
    ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
    auto rows_of = [&](int w) { return Part(x, static_cast<size_t>(w) * kList * kCols, kList * kCols); };
    auto list_of = [&](int w) { return &ids[static_cast<size_t>(w) * kList]; };
    std::vector<uint32_t> wp = p, wp2 = p2, wq = q;
    for (int i = 0; i < kList; ++i) {  // in list order: the last duplicate wins
      if (list_of(0)[i] != 7) Row(t, wp, list_of(0)[i], rows_of(0), i, false);
    }
    for (int i = 0; i < lanes; ++i) Row(t, wp2, list_of(1)[i], rows_of(1), i, false);
    for (int w = 0; w < 4; ++w) {
      for (int i = 0; i < kList; ++i) Row(t, wq, list_of(w)[i], rows_of(w), i, true);
    }
    ExpectRows(t, run.As<uint32_t>("p"), wp, "scatter with ignore and duplicates");
    ExpectRows(t, run.As<uint32_t>("p2"), wp2, "scatter by a value");
    ExpectRows(t, run.As<uint32_t>("q"), wq, "scatter-add of 4 workers into HBM");
    std::vector<uint32_t> r = run.As<uint32_t>("r");
    for (int core = 0; core < 2; ++core) {
      std::vector<uint32_t> wr = init;
      for (int s = 0; s < 2; ++s) {
        for (int i = 0; i < kList; ++i) Row(t, wr, list_of(2 * core + s)[i], rows_of(2 * core + s), i, true);
      }
      ExpectRows(t, Part(r, static_cast<size_t>(core) * kRows * kCols, kRows * kCols), wr,
                 "scatter-add of 2 subcores into VMEM_SHARED of core " + std::to_string(core));
    }
  }
}

// --- The list is read at dma_start; semaphore credits ------------------------------

// One subcore: (1) the list of an async gather is overwritten before its wait:
// a race, and without the race check the DMA moves the rows the list named at
// its start (docs/runtime.md); (2) a
// gather with `ignore = 7` credits its DMA semaphore with all 48 rows' bytes;
// (3) a scatter by a slice of the list is waited for the bytes of its source. %counts records
// sem_read values: after each start, and after each wait.
constexpr const char kAsync[] = R"(
kernel @async(in %x: hbm<64x8xi32>, in %ids: hbm<48xi32>, out %o: hbm<48x8xi32>, out %o2: hbm<48x8xi32>,
              out %t: hbm<64x8xi32>, out %counts: hbm<8xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<48xi32>, %buf: vmem<48x8xi32>, %sem: dma_sem, %cnt: smem<8xi32>)
{
  copy %ids -> %iv
  dma_start %x[idx(%iv)] -> %buf, %sem
  %zero = const dense<0> : vector<$Lxi32>
  store %iv[ds(0, $L)], %zero
  %r0 = sem_read %sem : i32
  store %cnt[0], %r0
  dma_wait %x[idx(%iv)] -> %buf, %sem
  %r1 = sem_read %sem : i32
  store %cnt[1], %r1
  copy %buf -> %o
  copy %ids -> %iv
  copy %x[0:48] -> %buf
  dma_start %x[idx(%iv, ignore = 7)] -> %buf, %sem
  %r2 = sem_read %sem : i32
  store %cnt[2], %r2
  dma_wait %x[idx(%iv, ignore = 7)] -> %buf, %sem
  copy %buf -> %o2
  copy %x -> %t
  %head = view %iv[0:$L] : vmem<$Lxi32>
  dma_start %buf[0:$L] -> %t[idx(%head)], %sem
  %r3 = sem_read %sem : i32
  store %cnt[3], %r3
  dma_wait %buf[0:$L] -> %t[idx(%head)], %sem
  %r4 = sem_read %sem : i32
  store %cnt[4], %r4
  store %cnt[5], 0
  store %cnt[6], 0
  store %cnt[7], 0
  copy %cnt -> %counts
}
)";

TEST_P(IndirectDmaTest, ListIsReadAtStartAndCreditsFullSize) {
  const int lanes = target().lanes;
  std::vector<uint32_t> x = Elements(Dt::kI32, kRows * kCols, 10);
  std::vector<int32_t> ids = Lists(1, 11);
  for (int i = 0; i < lanes; ++i) ids[i] = (ids[i] + 1) % kRows;  // no zero among the entries overwritten
  // Rewriting the list before the wait is a race (runtime.md §4), which the
  // race check reports; without it the DMA moves the rows of its start.
  testing::Run raced =
      RunText(Replace(kAsync, {{"$L", lanes_text()}}), {{"x", Bytes(x)}, {"ids", Bytes(ids)}}, compile(), launch());
  EXPECT_NE(raced.Findings().find("RT-RACE]: store writes %iv[0] while the DMA of dma_start"), std::string::npos)
      << raced.Findings();
  LaunchOptions no_race = launch();
  Checks checks = Checks::All();
  checks.race = false;
  no_race.checks = checks;
  testing::Run run =
      RunText(Replace(kAsync, {{"$L", lanes_text()}}), {{"x", Bytes(x)}, {"ids", Bytes(ids)}}, compile(), no_race);
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<uint32_t> wo(kList * kCols), wo2 = Part(x, 0, kList * kCols), wt = x;
  for (int i = 0; i < kList; ++i) {
    Row(Dt::kI32, wo, i, x, ids[i], false);
    if (ids[i] != 7) Row(Dt::kI32, wo2, i, x, ids[i], false);
  }
  for (int i = 0; i < lanes; ++i) Row(Dt::kI32, wt, ids[i], wo2, i, false);
  ExpectRows(Dt::kI32, run.As<uint32_t>("o"), wo, "gather whose list changed after its start");
  ExpectRows(Dt::kI32, run.As<uint32_t>("o2"), wo2, "gather with ignore");
  ExpectRows(Dt::kI32, run.As<uint32_t>("t"), wt, "async scatter");
  const int32_t bytes = kList * kCols * 4, scatter_bytes = lanes * kCols * 4;
  EXPECT_EQ(run.As<int32_t>("counts"), (std::vector<int32_t>{bytes, 0, bytes, scatter_bytes, 0, 0, 0, 0}));
}

// --- A list held as a value larger than a register file's worth -----------------

// A 256-entry list computed as a vector value (kept in a stack buffer, not
// registers: 1 KiB), with `ignore = -1`: a gather from VMEM_SHARED with `add`.
constexpr const char kLargeList[] = R"(
kernel @large(in %x: hbm<64x8xi32>, in %ids: hbm<256xi32>, in %init: hbm<256x8xi32>, out %o: hbm<256x8xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<256xi32>, %buf: vmem<256x8xi32>, %sh: vmem_shared<64x8xi32>)
{
  copy %x -> %sh
  copy %ids -> %iv
  copy %init -> %buf
  %v = get %iv[:] : vector<256xi32>
  %c = const dense<63> : vector<256xi32>
  %w = sub %c, %v : vector<256xi32>
  copy %sh[idx(%w, ignore = 64)] -> %buf add
  copy %buf -> %o
}
)";

TEST_P(IndirectDmaTest, LargeValueList) {
  std::vector<uint32_t> x = Elements(Dt::kI32, kRows * kCols, 16), init = Elements(Dt::kI32, 256 * kCols, 17);
  std::mt19937 rng(18);
  std::vector<int32_t> ids(256);
  for (int32_t& id : ids) id = static_cast<int32_t>(rng() % kRows);
  ids[100] = -1;  // 63 - (-1) = 64: ignored
  ids[200] = -1;
  testing::Run run = RunText(kLargeList, {{"x", Bytes(x)}, {"ids", Bytes(ids)}, {"init", Bytes(init)}}, compile(), launch());
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<uint32_t> want = init;
  for (int i = 0; i < 256; ++i) {
    if (ids[i] != -1) Row(Dt::kI32, want, i, x, 63 - ids[i], true);
  }
  ExpectRows(Dt::kI32, run.As<uint32_t>("o"), want, "gather-add by a 256-entry value");
}

// --- 8- and 16-bit elements ----------------------------------------------------------

// Gather-add of 32-column rows, then a scatter-add of the result back by the
// same list (duplicates accumulate), for every narrow element type.
constexpr const char kNarrow[] = R"(
kernel @narrow(in %x: hbm<64x32x$T>, in %ids: hbm<48xi32>, in %init: hbm<48x32x$T>, inout %q: hbm<64x32x$T>,
               out %g: hbm<48x32x$T>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<48xi32>, %buf: vmem<48x32x$T>)
{
  copy %ids -> %iv
  copy %init -> %buf
  copy %x[idx(%iv)] -> %buf add
  copy %buf -> %g
  copy %buf -> %q[idx(%iv)] add
}
)";

struct Narrow {
  const char* ir;
  int bytes;
  const FloatFormat* format;  // null: an integer type (adds wrap)
};

// a + b in type `t`, on raw bits: integers wrap, floats round once to nearest even.
uint32_t NarrowAdd(const Narrow& t, uint32_t a, uint32_t b) {
  uint32_t mask = t.bytes == 1 ? 0xFFu : 0xFFFFu;
  if (t.format == nullptr) return (a + b) & mask;
  return RoundToFormat(*t.format, FloatValue(*t.format, a) + FloatValue(*t.format, b));
}

TEST_P(IndirectDmaTest, NarrowTypesAdd) {
  constexpr int kC = 32;
  const Narrow types[] = {{"i8", 1, nullptr},  {"u8", 1, nullptr},         {"i16", 2, nullptr},
                          {"u16", 2, nullptr}, {"bf16", 2, &kBf16Format}, {"f16", 2, &kF16Format}};
  for (const Narrow& t : types) {
    SCOPED_TRACE(t.ir);
    std::mt19937 rng(19);
    auto elements = [&](size_t n) {
      std::vector<uint32_t> v(n);
      for (uint32_t& e : v) {
        e = rng() & (t.bytes == 1 ? 0xFFu : 0xFFFFu);
        if (t.format != nullptr && (IsNanBits(*t.format, e) || (e & t.format->inf()) == t.format->inf())) e &= 0x3FFFu;
      }
      return v;
    };
    std::vector<uint32_t> x = elements(64 * kC), init = elements(48 * kC), q = elements(64 * kC);
    std::vector<int32_t> ids = Lists(1, 20);
    auto pack = [&](const std::vector<uint32_t>& v) {
      std::vector<uint8_t> b(v.size() * t.bytes);
      for (size_t i = 0; i < v.size(); ++i) std::memcpy(&b[i * t.bytes], &v[i], t.bytes);  // little-endian
      return b;
    };
    auto unpack = [&](const std::vector<uint8_t>& b) {
      std::vector<uint32_t> v(b.size() / t.bytes);
      for (size_t i = 0; i < v.size(); ++i) std::memcpy(&v[i], &b[i * t.bytes], t.bytes);
      return v;
    };
    testing::Run run = RunText(Replace(kNarrow, {{"$T", t.ir}}),
                               {{"x", pack(x)}, {"ids", Bytes(ids)}, {"init", pack(init)}, {"q", pack(q)}}, compile(),
                               launch());
    ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
    std::vector<uint32_t> g = init, wq = q;
    for (int i = 0; i < kList; ++i) {
      for (int c = 0; c < kC; ++c) g[i * kC + c] = NarrowAdd(t, g[i * kC + c], x[ids[i] * kC + c]);
    }
    for (int i = 0; i < kList; ++i) {  // in list order
      for (int c = 0; c < kC; ++c) wq[ids[i] * kC + c] = NarrowAdd(t, wq[ids[i] * kC + c], g[i * kC + c]);
    }
    EXPECT_EQ(unpack(run.params.at("g")), g) << "gather-add";
    EXPECT_EQ(unpack(run.params.at("q")), wq) << "scatter-add";
  }
}

// --- Bounds -------------------------------------------------------------------------

// A gather, then a scatter, by the same list (`ignore = -2` on the scatter).
constexpr const char kBounds[] = R"(kernel @bounds(in %x: hbm<64x8xi32>, in %ids: hbm<16xi32>, inout %o: hbm<16x8xi32>,
               inout %t: hbm<64x8xi32>, inout %guard: hbm<64xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<16xi32>, %buf: vmem<16x8xi32>)
{
  copy %ids -> %iv
  copy %o -> %buf
  copy %x[idx(%iv)] -> %buf
  copy %buf -> %o
  copy %buf -> %t[idx(%iv, ignore = -2)]
}
)";

struct BoundsRun {
  Run run;
  std::vector<uint32_t> x, o, t, guard;
  std::vector<int32_t> ids;
};

BoundsRun RunBounds(std::vector<int32_t> ids, bool checks, bool warn, const LaunchOptions& base,
                    const CompileOptions& compile) {
  BoundsRun b;
  b.ids = std::move(ids);
  b.x = Elements(Dt::kI32, kRows * kCols, 12);
  b.o = Elements(Dt::kI32, 16 * kCols, 13);
  b.t = Elements(Dt::kI32, kRows * kCols, 14);
  b.guard = Elements(Dt::kI32, 64, 15);
  LaunchOptions launch = base;
  launch.checks = checks ? Checks::All() : Checks::None();
  launch.checks->warn = warn;
  CompileOptions c = compile;
  c.checks.bounds = checks;
  b.run = RunText(kBounds, {{"x", Bytes(b.x)}, {"ids", Bytes(b.ids)}, {"o", Bytes(b.o)}, {"t", Bytes(b.t)}, {"guard", Bytes(b.guard)}},
                  c, launch);
  return b;
}

TEST_P(IndirectDmaTest, OutOfRangeEntriesAreReported) {
  std::vector<int32_t> ids(16);
  for (int i = 0; i < 16; ++i) ids[i] = 3 * i;
  ids[5] = -1;
  BoundsRun b = RunBounds(ids, true, false, launch(), compile());
  EXPECT_EQ(b.run.Findings(),
            R"(test.scir:8:3: error[RT-BOUNDS]: copy %x[idx(%iv)] -> %buf: entry 5 of the index list is -1, outside dimension 0 of the source (size 64)
    8 |   copy %x[idx(%iv)] -> %buf
      |   ^~~~
note: in kernel @bounds, subcore (core 0, subcore 0)
)");
}

TEST_P(IndirectDmaTest, ScatterEntryOutOfRangeIsReported) {
  std::vector<int32_t> ids(16);
  for (int i = 0; i < 16; ++i) ids[i] = 3 * i;
  // With findings as warnings the gather goes on (skipping its bad entries) and
  // the scatter reports its own: the first entry out of range that `ignore = -2`
  // does not cover. One finding per DMA.
  ids[4] = -2;
  ids[6] = 64;
  ids[7] = -5;
  BoundsRun b = RunBounds(ids, true, true, launch(), compile());
  EXPECT_EQ(b.run.Findings(),
            R"(test.scir:8:3: warning[RT-BOUNDS]: copy %x[idx(%iv)] -> %buf: entry 4 of the index list is -2, outside dimension 0 of the source (size 64)
    8 |   copy %x[idx(%iv)] -> %buf
      |   ^~~~
note: in kernel @bounds, subcore (core 0, subcore 0)
test.scir:10:3: warning[RT-BOUNDS]: copy %buf -> %t[idx(%iv, ignore = -2)]: entry 6 of the index list is 64, outside dimension 0 of the destination (size 64)
   10 |   copy %buf -> %t[idx(%iv, ignore = -2)]
      |   ^~~~
note: in kernel @bounds, subcore (core 0, subcore 0)
)");
}

// Unchecked (and with findings as warnings), bad entries move nothing: every
// byte outside the rows the good entries name keeps its value.
TEST_P(IndirectDmaTest, OutOfRangeEntriesTouchNoMemory) {
  std::vector<int32_t> ids(16);
  for (int i = 0; i < 16; ++i) ids[i] = 4 * i + 1;
  ids[1] = -1;
  ids[2] = 64;
  ids[3] = INT32_MIN;
  ids[4] = INT32_MAX;
  ids[5] = -2;  // ignored by the scatter, out of range for the gather
  for (bool warn : {false, true}) {
    BoundsRun b = RunBounds(ids, warn, warn, launch(), compile());
    ASSERT_TRUE(b.run.status.ok()) << b.run.Findings();
    EXPECT_EQ(b.run.findings.size(), warn ? 2u : 0u) << b.run.Findings();  // one per DMA
    std::vector<uint32_t> wo = b.o, wt = b.t;
    for (int i = 0; i < 16; ++i) {
      if (ids[i] >= 0 && ids[i] < kRows) Row(Dt::kI32, wo, i, b.x, ids[i], false);
    }
    for (int i = 0; i < 16; ++i) {
      if (ids[i] >= 0 && ids[i] < kRows) Row(Dt::kI32, wt, ids[i], wo, i, false);
    }
    ExpectRows(Dt::kI32, b.run.As<uint32_t>("o"), wo, "gather");
    ExpectRows(Dt::kI32, b.run.As<uint32_t>("t"), wt, "scatter");
    EXPECT_EQ(b.run.As<uint32_t>("x"), b.x);
    EXPECT_EQ(b.run.As<uint32_t>("guard"), b.guard);
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, IndirectDmaTest,
                         ::testing::Combine(::testing::Values(0, 1), ::testing::Values(1, 4),
                                            ::testing::Values(DmaMode::kEager, DmaMode::kOnWait)),
                         [](const ::testing::TestParamInfo<Config>& info) {
                           return std::string(std::get<0>(info.param) == 0 ? "v7x" : "v5p") + "_" +
                                  std::to_string(std::get<1>(info.param)) + "threads_" +
                                  (std::get<2>(info.param) == DmaMode::kEager ? "eager" : "on_wait");
                         });

}  // namespace
}  // namespace scjit::testing
