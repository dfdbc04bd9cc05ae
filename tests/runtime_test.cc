// The emulated SparseCore end to end: the example kernels against independent
// C++ references, DMA modes, thread counts, determinism, deadlocks and the
// run-time findings.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/kernel_runner.h"

namespace scjit {
namespace {

using testing::Bytes;
using testing::RunFile;
using testing::RunText;

std::vector<int32_t> RandomInts(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> v(n);
  for (int32_t& x : v) x = static_cast<int32_t>(rng());
  v[0] = INT32_MAX;  // wraps
  v[1] = INT32_MIN;
  return v;
}

CompileOptions On(std::string t) {
  CompileOptions o;
  o.target = t;
  return o;
}

LaunchOptions With(int threads, DmaMode dma = DmaMode::kOnWait) {
  LaunchOptions o;
  o.threads = threads;
  o.dma = dma;
  return o;
}

// --- The examples -------------------------------------------------------------------

struct Config {
  std::string target;
  int threads;
  DmaMode dma;
};

class AddOneManualTest : public ::testing::TestWithParam<Config> {};

// kernel-ir.md §5 (Pallas test_manual): o = x + 1, on 8- and 16-lane targets,
// in both DMA modes, at 1 and 2 threads.
TEST_P(AddOneManualTest, AddsOne) {
  const Config& c = GetParam();
  std::vector<int32_t> x = RandomInts(32 * 1024, 7);
  testing::Run run = RunFile("examples/add_one_manual.scir", {{"x", Bytes(x)}}, On(c.target), With(c.threads, c.dma));
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<int32_t> o = run.As<int32_t>("o");
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(o[i], static_cast<int32_t>(static_cast<uint32_t>(x[i]) + 1u)) << "at " << i;
  }
  EXPECT_EQ(run.stats.subcores, 32);
  EXPECT_EQ(run.stats.dma_bytes, 2 * 32 * 1024 * 4);
  EXPECT_EQ(run.stats.ops.at("dma_start"), 32 * 16);
  EXPECT_EQ(run.stats.ops.at("dma_wait"), 32 * 16);
}

INSTANTIATE_TEST_SUITE_P(Configs, AddOneManualTest,
                         ::testing::Values(Config{"v7x", 1, DmaMode::kOnWait},
                                           Config{"v7x", 2, DmaMode::kEager},
                                           Config{"v5p", 1, DmaMode::kEager},
                                           Config{"v5p", 2, DmaMode::kOnWait}));

// Pallas' scalar-subcore cumsum: each row's prefix sum, on the scalar subcores.
TEST(ExamplesTest, ScalarCumsum) {
  std::vector<int32_t> x = RandomInts(2 * 1024, 11);
  testing::Run run = RunFile("examples/scalar_cumsum.scir", {{"x", Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<int32_t> o = run.As<int32_t>("o");
  for (int r = 0; r < 2; ++r) {
    uint32_t sum = 0;
    for (int j = 0; j < 1024; ++j) {
      sum += static_cast<uint32_t>(x[r * 1024 + j]);
      ASSERT_EQ(o[r * 1024 + j], static_cast<int32_t>(sum)) << r << ", " << j;
    }
  }
  EXPECT_EQ(run.stats.subcores, 2);
}

// Pallas' test_fetch_and_add: each subcore adds 10 to its ring neighbour's SMEM.
TEST(ExamplesTest, FetchAndAddRing) {
  for (int threads : {1, 2}) {
    testing::Run run = RunFile("examples/fetch_and_add_ring.scir", {}, {}, With(threads));
    ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
    std::vector<int32_t> old_values = run.As<int32_t>("old"), new_values = run.As<int32_t>("new");
    for (int s = 0; s < 16; ++s) {
      for (int l = 0; l < 16; ++l) {
        EXPECT_EQ(old_values[16 * s + l], (s + 1) % 16);
        EXPECT_EQ(new_values[16 * s + l], s + 10);
      }
    }
  }
}

// --- Scale, determinism, liveness ---------------------------------------------------

// 64 subcores (v5p: 4 cores x 16) pass a token around a semaphore ring and meet
// at barriers, on a single host thread.
constexpr const char kRing[] = R"(target "v5p"
kernel @ring(out %o: hbm<64x8xi32>)
    mesh vector(cores = 4, subcores = 16)
    scratch(%token: sem, %buf: vmem<8xi32>)
{
  %c = axis_index core : i32
  %s = axis_index subcore : i32
  %n = axis_size subcore : i32
  %me = mul %c, %n : i32
  %id = add %me, %s : i32
  %s1 = add %s, 1 : i32
  %next = rem %s1, %n : i32
  %first = cmp eq %s, 0 : i1
  // Subcore 0 of each core starts; each subcore waits for the token, then
  // passes it on. 100 rounds, with a barrier after each.
  %z = const 0 : i32
  %hops = for %round = 0 to 100 step 1 iter(%count = %z) : i32 {
    if %first {
      sem_signal %token, 1 {subcore = %next}
      sem_wait %token, 1
    } else {
      sem_wait %token, 1
      sem_signal %token, 1 {subcore = %next}
    }
    barrier
    %more = add %count, 1 : i32
    yield %more
  }
  %v = broadcast %hops : vector<8xi32>
  %idv = broadcast %id : vector<8xi32>
  %w = add %v, %idv : vector<8xi32>
  store %buf[:], %w
  copy %buf -> %o[%id]
}
)";

TEST(SchedulerTest, SixtyFourSubcoresOnOneThread) {
  for (int threads : {1, 2, 5}) {
    testing::Run run = RunText(kRing, {}, {}, With(threads));
    ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
    std::vector<int32_t> o = run.As<int32_t>("o");
    for (int id = 0; id < 64; ++id) {
      for (int l = 0; l < 8; ++l) ASSERT_EQ(o[id * 8 + l], 100 + id) << id;
    }
    EXPECT_EQ(run.stats.subcores, 64);
    EXPECT_EQ(run.stats.ops.at("barrier"), 64 * 100);
    EXPECT_EQ(run.stats.ops.at("sem_signal"), 64 * 100);
  }
}

// The same inputs give the same bytes, at every thread count and DMA mode.
TEST(SchedulerTest, RunsAreDeterministic) {
  std::vector<int32_t> x = RandomInts(32 * 1024, 3);
  std::vector<uint8_t> first;
  for (int threads : {1, 2, 3}) {
    for (DmaMode dma : {DmaMode::kEager, DmaMode::kOnWait}) {
      testing::Run run = RunFile("examples/add_one_manual.scir", {{"x", Bytes(x)}}, {}, With(threads, dma));
      ASSERT_TRUE(run.ok()) << run.Findings();
      if (first.empty()) first = run.params.at("o");
      EXPECT_EQ(run.params.at("o"), first) << threads << " threads";
    }
  }
  // debug_print output is ordered by subcore within each epoch, whatever thread
  // ran it.
  const char* printer = R"(kernel @p(in %x: hbm<8xi32>)
    mesh vector(cores = 2, subcores = 4)
{
  %c = axis_index core : i32
  %s = axis_index subcore : i32
  debug_print "core" %c
  barrier
  debug_print "subcore" %s
}
)";
  std::string log1 = RunText(printer, {}, {}, With(1)).log;
  EXPECT_EQ(RunText(printer, {}, {}, With(3)).log, log1);
  EXPECT_EQ(log1.substr(0, log1.find('\n')), "[core 0, subcore 0] core, data: s32[1]: 0");
}

// --- Findings -----------------------------------------------------------------------

std::string CatalogKernel(const char* code, bool bad) {
  const CatalogEntry& info = *FindCatalogEntry(code);
  return std::string(bad ? info.bad : info.good);
}

TEST(FindingsTest, DeadlockIsReportedNotHung) {
  for (int threads : {1, 2}) {
    testing::Run run = RunText(CatalogKernel("RT-DEADLOCK", true), {}, {}, With(threads));
    EXPECT_EQ(run.Findings(), R"(test.scir:8:5: error[RT-DEADLOCK]: kernel @k cannot progress: 1 subcore is blocked
    8 |     barrier
      |     ^~~~~~~
note: subcore (core 0, subcore 1) waits in barrier at test.scir:8:5 (1 subcore of its core has finished without reaching it)
note: 1 finished: (0, 0)
)");
  }
  // A wait nothing can satisfy.
  testing::Run run = RunText(R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%s: sem<2>)
{
  sem_wait %s[1], 3
}
)");
  EXPECT_EQ(run.Findings(), R"(test.scir:5:12: error[RT-DEADLOCK]: kernel @k cannot progress: 2 subcores are blocked
    5 |   sem_wait %s[1], 3
      |            ^~~~~
note: subcore (core 0, subcore 0) waits in sem_wait at test.scir:5:12: %s[1] holds 0, needs 3
note: subcore (core 0, subcore 1) waits in sem_wait at test.scir:5:12: %s[1] holds 0, needs 3
)");
}

TEST(FindingsTest, OutOfBoundsIsReportedOrClamped) {
  testing::Run run = RunText(CatalogKernel("RT-BOUNDS", true), {{"x", Bytes(RandomInts(16, 1))}});
  EXPECT_EQ(run.Findings(),
            R"(test.scir:8:12: error[RT-BOUNDS]: a slice starting at 8 does not fit dimension 0 of %buf[ds(%off, 16)] (the only valid start is 0)
    8 |   %v = get %buf[ds(%off, 16)] : vector<16xi32>
      |            ^~~~~~~~~~~~~~~~~~
note: in kernel @k, subcore (core 0, subcore 1)
)");
  // Unchecked: the slice is clamped into the buffer; no finding, no crash.
  CompileOptions unchecked;
  unchecked.checks.bounds = false;
  LaunchOptions launch;
  launch.checks = Checks::None();
  std::vector<int32_t> x = RandomInts(16, 1);
  run = RunText(CatalogKernel("RT-BOUNDS", true), {{"x", Bytes(x)}}, unchecked, launch);
  EXPECT_TRUE(run.ok()) << run.Findings();
  EXPECT_EQ(run.As<int32_t>("o"), x);
  // Warnings: reported, and the run goes on with the index clamped.
  launch = LaunchOptions();
  launch.checks = Checks::All();
  launch.checks->warn = true;
  run = RunText(CatalogKernel("RT-BOUNDS", true), {{"x", Bytes(x)}}, {}, launch);
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(run.As<int32_t>("o"), x);
}

TEST(FindingsTest, UnwaitedDmaIsReported) {
  testing::Run run = RunText(CatalogKernel("RT-SYNC", true), {}, {}, With(1, DmaMode::kOnWait));
  EXPECT_EQ(run.Findings(), R"(test.scir:5:3: error[RT-SYNC]: this DMA on %sem was started but never waited
    5 |   dma_start %x -> %buf, %sem
      |   ^~~~~~~~~
note: in kernel @k, subcore (core 0, subcore 0)
)");
  run = RunText(CatalogKernel("RT-SYNC", true), {}, {}, With(1, DmaMode::kEager));
  EXPECT_EQ(run.Findings(), R"(test.scir:5:3: error[RT-SYNC]: %sem still holds 64 at the end of the kernel; this op credited it last
    5 |   dma_start %x -> %buf, %sem
      |   ^~~~~~~~~
note: in kernel @k, subcore (core 0, subcore 0)
)");
}

// A DMA whose length is 0 at run time (Pallas' sync_copy of a tuple of
// pl.ds(0, n) slices with n == 0) moves nothing and credits nothing; it
// completes with the wait after it, in both DMA modes and with every check
// on, and a lone one never waited is still reported.
TEST(FindingsTest, EmptyDmasCompleteAtTheirWaits) {
  constexpr char kEmpty[] = R"(kernel @k(in %x: hbm<16xi32>, in %y: hbm<16xi32>, in %n: smem<1xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%a: vmem<16xi32>, %b: vmem<16xi32>, %sem: dma_sem)
{
  %len = get %n[0] : i32
  dma_start %x[ds(0, %len)] -> %a[ds(0, %len)], %sem
  dma_start %y[ds(0, %len)] -> %b[ds(0, %len)], %sem
  dma_wait %x[ds(0, %len)] -> %a[ds(0, %len)], %sem
  dma_wait %y[ds(0, %len)] -> %b[ds(0, %len)], %sem
  %z = const dense<0> : vector<16xi32>
  store %a, %z
  copy %a -> %o
}
)";
  std::vector<int32_t> x = RandomInts(16, 3);
  for (DmaMode dma : {DmaMode::kOnWait, DmaMode::kEager}) {
    for (int32_t n : {0, 16}) {
      testing::Run run = RunText(kEmpty, {{"x", Bytes(x)}, {"n", Bytes(std::vector<int32_t>{n})}}, {}, With(1, dma));
      EXPECT_TRUE(run.ok()) << "n = " << n << ": " << run.Findings();
      EXPECT_EQ(run.As<int32_t>("o"), std::vector<int32_t>(16, 0));
    }
  }
  // A wait completes every empty DMA started before it; with none after
  // them, they were started and never waited.
  std::string unwaited = kEmpty;
  unwaited.erase(unwaited.find("  dma_wait %x"), unwaited.find("  %z =") - unwaited.find("  dma_wait %x"));
  testing::Run run = RunText(unwaited, {{"n", Bytes(std::vector<int32_t>{0})}}, {}, With(1, DmaMode::kOnWait));
  EXPECT_EQ(run.Findings(), R"(test.scir:6:3: error[RT-SYNC]: this DMA on %sem was started but never waited
    6 |   dma_start %x[ds(0, %len)] -> %a[ds(0, %len)], %sem
      |   ^~~~~~~~~
note: in kernel @k, subcore (core 0, subcore 0)
)");
}

// A semaphore left set names the signal that credited it last, its own or
// another subcore's.
TEST(FindingsTest, SemaphoreLeftSetNamesItsLastSignal) {
  testing::Run run = RunText(R"(target "v7x"
kernel @k(out %o: hbm<16xi32>) mesh vector(cores = 1, subcores = 2) scratch(%r: sem) {
  %s = axis_index subcore : i32
  %first = cmp eq %s, 0 : i1
  if %first {
    sem_signal %r, 2 {core = 0, subcore = 1}
  } else {
    sem_signal %r, 1
  }
}
)",
                             {}, {}, With(1, DmaMode::kOnWait));
  // Subcore 0's signal lands between epochs, after subcore 1's own.
  EXPECT_EQ(run.Findings(), R"(test.scir:6:16: error[RT-SYNC]: %r still holds 3 at the end of the kernel; this op credited it last
    6 |     sem_signal %r, 2 {core = 0, subcore = 1}
      |                ^~
note: in kernel @k, subcore (core 0, subcore 1)
)");
}

// Each check is independent of the others (Checks): a kernel compiled with
// every check and launched with some of them makes the findings of those only.
// A refused op (a negative signal, a DMA whose sides differ) does nothing under
// every setting, so `warn` runs as `none` does and reports what `all` would.
constexpr char kTwoMistakes[] = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%sem: sem, %buf: vmem<16xi32>)
{
  %m = const -1 : i32
  sem_signal %sem, %m
  %i = const 20 : i32
  copy %x -> %o
  copy %x[ds(%i, 4)] -> %buf[0:4]
}
)";

TEST(FindingsTest, EachCheckIsIndependent) {
  const std::string sync = R"(test.scir:6:14: error[RT-SYNC]: sem_signal adds -1; semaphores only count up by signals
    6 |   sem_signal %sem, %m
      |              ^~~~
note: in kernel @k, subcore (core 0, subcore 0)
)";
  const std::string bounds =
      R"(test.scir:9:3: error[RT-BOUNDS]: a slice starting at 20 does not fit dimension 0 of %x[ds(%i, 4)] -> %buf[0:4] (valid starts are 0 to 12)
    9 |   copy %x[ds(%i, 4)] -> %buf[0:4]
      |   ^~~~
note: in kernel @k, subcore (core 0, subcore 0)
)";
  auto warning = [](std::string s) { return s.replace(s.find("error["), 5, "warning"); };
  struct Case {
    const char* checks;
    std::string findings;
  };
  const Case cases[] = {
      {"all", sync},  // the first error stops the launch
      {"sync", sync},
      {"bounds", bounds},
      {"none", ""},
      {"warn", warning(sync) + warning(bounds)},
  };
  std::vector<int32_t> x(16);
  for (int i = 0; i < 16; ++i) x[i] = 3 * i;
  for (const Case& c : cases) {
    LaunchOptions launch;
    launch.checks = *Checks::Parse(c.checks);
    testing::Run run = RunText(kTwoMistakes, {{"x", Bytes(x)}}, {}, launch);
    ASSERT_TRUE(run.status.ok()) << run.status;
    EXPECT_EQ(run.Findings(), c.findings) << "--check " << c.checks;
    if (run.findings.empty() || run.findings[0].severity == Severity::kWarning) {
      EXPECT_EQ(run.As<int32_t>("o"), x) << "--check " << c.checks;  // the run went on to its end
    }
  }
}

// A DMA whose sides differ in shape (sizes known only at run time) moves
// nothing, reported or not.
TEST(FindingsTest, RefusedDmaMovesNothing) {
  const std::string kernel = R"(kernel @k(in %x: hbm<16xi32>, in %n: smem<2xi32>, inout %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %a = get %n[0] : i32
  %b = get %n[1] : i32
  copy %x[ds(0, %a)] -> %o[ds(0, %b)]
}
)";
  std::vector<int32_t> x(16, 7), o(16, -1);
  for (const char* checks : {"warn", "none"}) {
    LaunchOptions launch;
    launch.checks = *Checks::Parse(checks);
    testing::Run run =
        RunText(kernel, {{"x", Bytes(x)}, {"n", Bytes(std::vector<int32_t>{4, 8})}, {"o", Bytes(o)}}, {}, launch);
    ASSERT_TRUE(run.status.ok()) << run.status;
    EXPECT_EQ(run.As<int32_t>("o"), o) << checks;
    EXPECT_EQ(run.Findings(),
              std::string(checks) == "none"
                  ? ""
                  : R"(test.scir:6:3: warning[RT-BOUNDS]: copy %x[ds(0, %a)] -> %o[ds(0, %b)] copies a source of shape (4,) into a destination of shape (8,)
    6 |   copy %x[ds(0, %a)] -> %o[ds(0, %b)]
      |   ^~~~
note: in kernel @k, subcore (core 0, subcore 0)
)")
        << checks;
  }
}

TEST(FindingsTest, EndlessLoopsAreStopped) {
  LaunchOptions launch;
  launch.time_limit_seconds = 0.2;
  testing::Run run = RunText(CatalogKernel("RT-TIMEOUT", true), {}, {}, launch);
  EXPECT_EQ(run.Findings(), R"(test.scir:5:8: error[RT-TIMEOUT]: kernel @k ran longer than 0.2 s and was stopped
    5 |   %n = while iter(%i = %z) : i32 cond {
      |        ^~~~~
note: subcore (core 0, subcore 0) was still in this loop
help: look for a loop whose condition never changes; raise the limit with --time-limit
)");
}

// The time limit bounds the whole launch: filling a large `out` buffer with the
// poison pattern checks it between chunks and stops before any subcore runs.
TEST(FindingsTest, TheTimeLimitBoundsThePoisonFill) {
  LaunchOptions launch;
  launch.time_limit_seconds = 0.001;
  testing::Run run = RunText(R"(kernel @k(out %o: hbm<67108864xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  copy %o[ds(0, 16)] -> %buf
}
)",
                             {}, {}, launch);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.Findings(), R"(test.scir: error[RT-TIMEOUT]: kernel @k ran longer than 0.001 s and was stopped
note: the time ran out while filling %o with the poison pattern, before any subcore ran
help: raise the limit with --time-limit, or give the kernel smaller buffers
)");
  EXPECT_EQ(run.stats.subcores, 0);
  // A limit counted from before the launch (jit-run's, from its inputs) that has
  // already passed stops it at the same place.
  launch.time_limit_seconds = 1;
  launch.time_limit_start = std::chrono::steady_clock::now() - std::chrono::seconds(2);
  run = RunText(R"(kernel @k(out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  copy %o -> %buf
}
)",
                {}, {}, launch);
  EXPECT_EQ(run.Findings(), R"(test.scir: error[RT-TIMEOUT]: kernel @k ran longer than 1 s and was stopped
note: the time ran out while filling %o with the poison pattern, before any subcore ran
help: raise the limit with --time-limit, or give the kernel smaller buffers
)");
  // The fill of an output the kernel only writes comes after it ran, where it
  // did not write, and the limit bounds it too. Whether the limit falls in that
  // fill depends on the host's speed, so each try must end in one of the three
  // ways a launch may, and some try (with a shorter limit) in the fill.
  const std::string fill_ran_out = R"(test.scir: error[RT-TIMEOUT]: kernel @k ran longer than LIMIT s and was stopped
note: the time ran out while filling the bytes of %o the kernel did not write with the poison pattern
help: raise the limit with --time-limit, or give the kernel smaller buffers
)";
  const std::string staging_ran_out = R"(test.scir: error[RT-TIMEOUT]: kernel @k ran longer than LIMIT s and was stopped
note: the time ran out while allocating the arenas and staging the parameters, before any subcore ran
help: raise the limit with --time-limit, or give the kernel smaller buffers
)";
  launch.time_limit_start = std::nullopt;
  bool stopped_in_fill = false;
  for (double limit : {0.02, 0.005, 0.002, 0.0005}) {
    launch.time_limit_seconds = limit;
    run = RunText(R"(kernel @k(out %o: hbm<134217728xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
)",
                  {}, {}, launch);
    std::string seconds = absl::StrFormat("%g", limit);
    std::string findings = run.Findings();
    if (findings == absl::StrReplaceAll(fill_ran_out, {{"LIMIT", seconds}})) {
      EXPECT_EQ(run.stats.subcores, 1);
      stopped_in_fill = true;
      break;
    }
    EXPECT_TRUE(findings.empty() || findings == absl::StrReplaceAll(staging_ran_out, {{"LIMIT", seconds}}))
        << findings;
  }
  EXPECT_TRUE(stopped_in_fill);
}

// debug_check (pl.debug_check): a false condition stops its subcore with RT-CHECK
// and the message; the subcore waiting at the barrier for it is cancelled, not
// reported as a deadlock; a true one runs on. The check holds under every --check.
constexpr char kRowCheck[] = R"k(kernel @k(in %x: hbm<4x16xi32>, out %o: hbm<4x16xi32>)
    mesh vector(cores = 1, subcores = 4)
    scratch(%buf: vmem<16xi32>)
{
  %s = axis_index subcore : i32
  copy %x[%s] -> %buf
  %v = get %buf : vector<16xi32>
  %first = extract %v[0] : i32
  %ok = cmp ge %first, 0 : i1
  debug_check %ok, "Check failure! (check at kernel)"
  barrier
  copy %buf -> %o[%s]
}
)k";

TEST(DebugCheckTest, FalseConditionStopsTheLaunch) {
  std::vector<int32_t> x(64, 5);
  x[16] = -1;  // row 1: subcore 1 fails, 0, 2 and 3 wait at the barrier
  x[48] = -2;  // row 3: subcore 3 fails too
  const std::string expected = R"k(test.scir:10:3: error[RT-CHECK]: debug_check failed: Check failure! (check at kernel)
   10 |   debug_check %ok, "Check failure! (check at kernel)"
      |   ^~~~~~~~~~~
note: in kernel @k, 2 subcores: core 0 subcores 1, 3
)k";
  for (const char* checks : {"all", "none", "warn"}) {
    LaunchOptions launch;
    launch.checks = *Checks::Parse(checks);
    testing::Run run = RunText(kRowCheck, {{"x", Bytes(x)}}, {}, launch);
    EXPECT_EQ(run.Findings(), expected) << "--check " << checks;
    ASSERT_EQ(run.findings.size(), 1u);
    EXPECT_EQ(run.findings[0].severity, Severity::kError);
  }
  // The rows pass: the kernel runs to its end.
  x[16] = 0;
  x[48] = 7;
  testing::Run run = RunText(kRowCheck, {{"x", Bytes(x)}}, {}, With(2));
  ASSERT_TRUE(run.ok()) << run.Findings();
  EXPECT_EQ(run.As<int32_t>("o"), x);
}

// A literal condition, and a check on the scalar subcore.
TEST(DebugCheckTest, LiteralConditionOnAScalarMesh) {
  testing::Run run = RunText(R"(kernel @k(out %o: hbm<8xi32>)
    mesh scalar(cores = 2)
{
  debug_check true, "Check success!"
  debug_check false, "Check failure!"
}
)");
  EXPECT_EQ(run.Findings(), R"(test.scir:5:3: error[RT-CHECK]: debug_check failed: Check failure!
    5 |   debug_check false, "Check failure!"
      |   ^~~~~~~~~~~
note: in kernel @k, 2 scalar subcores: cores 0–1
)");
}

// The catalog's run-time examples: the bad kernel makes its finding, the fixed
// one runs clean.
TEST(FindingsTest, CatalogExamples) {
  for (const CatalogEntry& info : Catalog()) {
    if (info.code.substr(0, 3) != "RT-" || info.bad.empty()) continue;
    LaunchOptions launch;
    launch.time_limit_seconds = 0.2;
    testing::Run bad = RunText(std::string(info.bad), {}, {}, launch);
    ASSERT_FALSE(bad.findings.empty()) << info.code;
    EXPECT_EQ(bad.findings[0].code, info.code);
    testing::Run good = RunText(std::string(info.good));
    EXPECT_TRUE(good.ok()) << info.code << ": " << good.Findings();
  }
}

// A semaphore ref prints its counts, row by row like a buffer.
TEST(DebugPrintTest, SemaphoresPrintTheirCounts) {
  testing::Run run = RunText(R"(kernel @k()
    mesh vector(cores = 1, subcores = 1)
    scratch(%s: sem<2x3>)
{
  %one = view %s[1, 2] : sem
  sem_signal %one, 5
  debug_print "sems" %s
  debug_print "row" %s[1]
  sem_wait %one, 5
}
)");
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  EXPECT_EQ(run.log,
            "[core 0, subcore 0] sems, data: s32[2,3]: { 0, 0, 0 } { 0, 0, 5 }\n"
            "[core 0, subcore 0] row, data: s32[3]: { 0, 0, 5 }\n");
}

TEST(DebugPrintTest, FormatsLikeTheLogRecorder) {
  testing::Run run = RunText(R"(kernel @k(in %x: hbm<2x4xf32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<2x4xf32>)
{
  copy %x -> %buf
  debug_print "hello"
  %i = const dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xi32>
  debug_print "vector" %i
  %m = cmp lt %i, %i : vector<8xi1>
  debug_print "mask" %m
  %f = const 1.5 : f32
  debug_print "scalar" %f
  debug_print "buffer" %buf
}
)",
                             {{"x", Bytes(std::vector<float>{0, 0.5, -1, 2, 3, 4, 5, 6})}});
  ASSERT_TRUE(run.ok()) << run.Findings();
  EXPECT_EQ(run.log, R"([core 0, subcore 0] hello
[core 0, subcore 0] vector, data: s32[8]: 0, 1, 2, 3, 4, 5, 6, 7
[core 0, subcore 0] mask, data: pred[8]: 0, 0, 0, 0, 0, 0, 0, 0
[core 0, subcore 0] scalar, data: f32[1]: 1.5
[core 0, subcore 0] buffer, data: f32[2,4]: { 0, 0.5, -1, 2 } { 3, 4, 5, 6 }
)");
}

// Staged parameters: every subcore gets its own copy; copies back go in
// (core, subcore) order, so the last subcore's wins.
TEST(MachineTest, StagedParametersLastSubcoreWins) {
  testing::Run run = RunText(R"(kernel @k(inout %v: vmem<16xi32>, inout %s: smem<2xi32>)
    mesh vector(cores = 2, subcores = 2)
{
  %c = axis_index core : i32
  %sc = axis_index subcore : i32
  %x = get %v[:] : vector<16xi32>
  %cv = broadcast %c : vector<16xi32>
  %y = add %x, %cv : vector<16xi32>
  store %v[:], %y
  %old = get %s[0] : i32
  %n = add %old, %sc : i32
  store %s[0], %n
}
)",
                             {{"v", Bytes(std::vector<int32_t>(16, 5))}, {"s", Bytes(std::vector<int32_t>{7, 9})}});
  ASSERT_TRUE(run.ok()) << run.Findings();
  EXPECT_EQ(run.As<int32_t>("v"), std::vector<int32_t>(16, 6));     // core 1 added 1
  EXPECT_EQ(run.As<int32_t>("s"), (std::vector<int32_t>{8, 9}));   // subcore 1 added 1
}

// copy and dma_start/dma_wait move bytes between every pair of memory spaces, with
// strided views on both sides.
TEST(MachineTest, DmaBetweenEverySpace) {
  const char* text = R"(kernel @k(in %x: hbm<4x16xi32>, out %o: hbm<8x16xi32>, out %h: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%v: vmem<2x16xi32>, %w: vmem<16xi32>, %sh: vmem_shared<3x16xi32>, %s: smem<16xi32>, %sem: dma_sem)
{
  copy %x[1] -> %h                                       // HBM -> HBM
  copy %x[0:2, :] -> %v                                  // HBM -> VMEM (2 rows)
  dma_start %v[1] -> %sh[2], %sem                        // VMEM -> VMEM_SHARED
  dma_wait %v[1] -> %sh[2], %sem
  copy %sh[2] -> %w                                      // VMEM_SHARED -> VMEM
  copy %w -> %s                                          // VMEM -> SMEM
  copy %s -> %o[0]                                       // SMEM -> HBM
  copy %x[2] -> %s                                       // HBM -> SMEM
  copy %s -> %w                                          // SMEM -> VMEM
  copy %w -> %o[1]                                       // VMEM -> HBM
  copy %x[3] -> %sh[0]                                   // HBM -> VMEM_SHARED
  copy %sh[0] -> %o[2]                                   // VMEM_SHARED -> HBM
  copy %v -> %o[ds(3, 2), :]                             // VMEM -> HBM (2 rows)
  copy %v[0] -> %w                                       // VMEM -> VMEM
  copy %w -> %o[5]
  copy %x[1:3, 4:12] -> %o[6:8, 0:8]                     // strided on both sides
  copy %x[1:3, 12:16] -> %o[6:8, 8:12]
  %four = const 4 : i32                                  // sizes known only at run time
  %two = const 2 : i32
  copy %x[0, ds(0, %four)] -> %o[6, ds(12, %two)]
}
)";
  std::vector<int32_t> x(4 * 16);
  for (int i = 0; i < 64; ++i) x[i] = 1000 + i;
  testing::Run run = RunText(text, {{"x", Bytes(x)}});
  // The last copy moves 4 elements into 2: its sizes differ at run time (a static
  // mismatch is GEN-3, rejected before the kernel runs).
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.findings[0].message,
            "copy %x[0, ds(0, %four)] -> %o[6, ds(12, %two)] copies a source of shape (4,) into a destination of "
            "shape (2,)");
  std::string fixed = text;
  const std::string bad_line = "  copy %x[0, ds(0, %four)] -> %o[6, ds(12, %two)]\n";
  fixed.replace(fixed.find(bad_line), bad_line.size(), "");
  run = RunText(fixed, {{"x", Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.Findings();
  auto row = [&](int r, int from, int n) { return std::vector<int32_t>(x.begin() + r * 16 + from, x.begin() + r * 16 + from + n); };
  std::vector<int32_t> o = run.As<int32_t>("o");
  auto out_row = [&](int r, int from, int n) { return std::vector<int32_t>(o.begin() + r * 16 + from, o.begin() + r * 16 + from + n); };
  EXPECT_EQ(run.As<int32_t>("h"), row(1, 0, 16));
  EXPECT_EQ(out_row(0, 0, 16), row(1, 0, 16));
  EXPECT_EQ(out_row(1, 0, 16), row(2, 0, 16));
  EXPECT_EQ(out_row(2, 0, 16), row(3, 0, 16));
  EXPECT_EQ(out_row(3, 0, 16), row(0, 0, 16));
  EXPECT_EQ(out_row(4, 0, 16), row(1, 0, 16));
  EXPECT_EQ(out_row(5, 0, 16), row(0, 0, 16));
  EXPECT_EQ(out_row(6, 0, 8), row(1, 4, 8));
  EXPECT_EQ(out_row(7, 0, 8), row(2, 4, 8));
  EXPECT_EQ(out_row(6, 8, 4), row(1, 12, 4));
  EXPECT_EQ(out_row(7, 8, 4), row(2, 12, 4));
}

// `out` buffers and scratch start as the poison pattern.
TEST(MachineTest, OutBuffersStartPoisoned) {
  testing::Run run = RunText(R"(kernel @k(out %o: hbm<16xi32>, out %f: hbm<16xf32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  copy %buf -> %o
}
)");
  ASSERT_TRUE(run.ok()) << run.Findings();
  EXPECT_EQ(run.As<uint32_t>("o"), std::vector<uint32_t>(16, 0xBEBEBEBEu));
  EXPECT_EQ(run.As<uint32_t>("f"), std::vector<uint32_t>(16, 0x7FC00000u));
}

// An `out` buffer the kernel only writes gets its fill pattern at the end of
// the launch, where nothing wrote it (runtime/poison.h): the bytes are those of
// an early fill, with a contiguous run, a strided column and a scatter written
// by two subcores, on one thread and two, checked and unchecked.
TEST(MachineTest, AWriteOnlyOutputHoldsThePatternWhereNothingWroteIt) {
  constexpr char kPartial[] = R"(kernel @k(in %x: hbm<64xi32>, in %y: hbm<2x4xi32>, in %rows: hbm<2xi32>,
                 out %o: hbm<64xi32>, out %p: hbm<8x8xi32>, out %q: hbm<8x4xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%buf: vmem<16xi32>, %col: vmem<8xi32>, %two: vmem<2x4xi32>, %list: vmem<2xi32>)
{
  %s = axis_index subcore : i32
  %start = mul %s, 32 : i32
  copy %x[ds(%start, 16)] -> %buf
  copy %buf -> %o[ds(%start, 16)]
  copy %x[ds(0, 8)] -> %col
  copy %col -> %p[:, %s]
  %second = cmp eq %s, 1 : i1
  if %second {
    copy %rows -> %list
    copy %y -> %two
    copy %two -> %q[idx(%list)]
  }
}
)";
  std::vector<int32_t> x(64);
  for (int i = 0; i < 64; ++i) x[i] = 1000 + i;
  std::vector<int32_t> y = {1, 2, 3, 4, 5, 6, 7, 8}, rows = {6, 1};
  constexpr int32_t kPoison = static_cast<int32_t>(0xBEBEBEBEu);
  std::vector<int32_t> o(64, kPoison), p(64, kPoison), q(32, kPoison);
  for (int i = 0; i < 16; ++i) {
    o[i] = x[i];
    o[32 + i] = x[32 + i];
  }
  for (int r = 0; r < 8; ++r) p[r * 8] = p[r * 8 + 1] = x[r];
  for (int j = 0; j < 4; ++j) {
    q[6 * 4 + j] = y[j];
    q[1 * 4 + j] = y[4 + j];
  }
  for (bool checked : {false, true}) {
    for (int threads : {1, 2}) {
      LaunchOptions launch = With(threads);
      if (!checked) launch.checks = Checks::None();
      testing::Run run = RunText(kPartial, {{"x", Bytes(x)}, {"y", Bytes(y)}, {"rows", Bytes(rows)}}, {}, launch);
      ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
      EXPECT_EQ(run.As<int32_t>("o"), o) << checked << threads;
      EXPECT_EQ(run.As<int32_t>("p"), p) << checked << threads;
      EXPECT_EQ(run.As<int32_t>("q"), q) << checked << threads;
    }
  }
}

// An `out` buffer the kernel reads holds the pattern from the start: a DMA
// of it reads the pattern (unchecked: checked, RT-INIT reports the read).
TEST(MachineTest, AnOutputTheKernelReadsIsPoisonedFirst) {
  testing::Run run = RunText(R"(kernel @k(out %o: hbm<16xi32>, out %seen: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  copy %o -> %buf
  copy %buf -> %seen
}
)",
                             {}, {}, [] {
                               LaunchOptions o = With(1);
                               o.checks = Checks::None();
                               return o;
                             }());
  ASSERT_TRUE(run.ok()) << run.Findings();
  EXPECT_EQ(run.As<uint32_t>("seen"), std::vector<uint32_t>(16, 0xBEBEBEBEu));
}

}  // namespace
}  // namespace scjit
