// RT-INIT and RT-RACE on a subcore's own memories (runtime/local_accesses.h,
// lowering/emit/emit_access_checks.cc): reads of bytes nothing has written,
// and the kernel's accesses against the DMAs in flight on its buffers, with
// the exact findings; and the kernels that must stay silent.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernel_runner.h"

namespace scjit {
namespace {

using testing::RunText;

LaunchOptions Mode(DmaMode dma) {
  LaunchOptions o;
  o.dma = dma;
  return o;
}

// How each finding of a one-subcore kernel ends.
constexpr char kInitTail[] = R"(note: in kernel @k, subcore (core 0, subcore 0)
help: write the bytes before reading them, or read only the part that was written
)";
constexpr char kRaceTail[] = R"(note: in kernel @k, subcore (core 0, subcore 0)
help: wait for the DMA (dma_wait) before touching its buffers, or order the accesses with a barrier or semaphore
)";

// The findings of `text` in both DMA modes, which must agree.
std::string Findings(const std::string& text, const CompileOptions& compile = {}) {
  testing::Run on_wait = RunText(text, {}, compile, Mode(DmaMode::kOnWait));
  EXPECT_TRUE(on_wait.status.ok()) << on_wait.diagnostics;
  testing::Run eager = RunText(text, {}, compile, Mode(DmaMode::kEager));
  EXPECT_EQ(on_wait.Findings(), eager.Findings());
  return on_wait.Findings();
}

// --- RT-INIT: value-precise ------------------------------------------------------------

// Reading bytes nothing has written is no finding: the value carries them
// (its shadow), and they leave as they came.
TEST(InitCheckTest, ReadingUnwrittenBytesIsNoFinding) {
  testing::Run run = RunText(R"(kernel @k(out %o: hbm<2x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<2x16xi32>)
{
  %v = iota : vector<16xi32>
  store %buf[0, :], %v
  %w = get %buf[1, :] : vector<16xi32>
  store %buf[1, :], %w
  copy %buf -> %o
}
)");
  ASSERT_TRUE(run.ok()) << run.Findings();
  std::vector<uint32_t> o = run.As<uint32_t>("o");
  EXPECT_EQ(o[15], 15u);
  EXPECT_EQ(o[16], 0xBEBEBEBEu);
}

// A scalar DMA'd into lane 0 of a 16-lane buffer, the vector loaded and lane 0
// used as a DMA's size (Pallas: sync_copy(n_hbm.at[:1], n_vmem.at[:1]);
// n = n_vmem[...][0]): written where it decides. Lane 1 is not.
constexpr char kLaneZero[] = R"(kernel @k(in %n: hbm<16xi32>, in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%nv: vmem<16xi32>, %buf: vmem<64xi32>)
{
  copy %n[0:1] -> %nv[0:1]
  %v = get %nv : vector<16xi32>
  %cnt = extract %v[0] : i32
  %z = const dense<0> : vector<16xi32>
  for %i = 0 to 64 step 16 {
    store %buf[ds(%i, 16)], %z
  }
  copy %x[ds(0, %cnt)] -> %buf[ds(0, %cnt)]
  copy %buf -> %o
}
)";

TEST(InitCheckTest, LaneZeroOfAVectorWrittenInPart) {
  std::vector<int32_t> n(16, 40), x(64);
  for (int i = 0; i < 64; ++i) x[i] = i + 1;
  testing::Run run = RunText(kLaneZero, {{"n", testing::Bytes(n)}, {"x", testing::Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.Findings();
  std::vector<int32_t> o = run.As<int32_t>("o");
  EXPECT_EQ(o[39], 40);
  EXPECT_EQ(o[40], 0);
  std::string bug = kLaneZero;
  bug.replace(bug.find("extract %v[0]"), 13, "extract %v[1]");
  EXPECT_EQ(Findings(bug), R"(test.scir:12:17: error[RT-INIT]: the slice size of copy %x[ds(0, %cnt)] -> %buf[ds(0, %cnt)] is unwritten: %cnt was read from %nv[1] at test.scir:6:8, which nothing has written
   12 |   copy %x[ds(0, %cnt)] -> %buf[ds(0, %cnt)]
      |                 ^~~~
note: in kernel @k, subcore (core 0, subcore 0)
help: write the bytes before they decide anything, or keep only the lanes that hold values (jnp.where with a mask of them)
)");
}

// A first iteration's read of the window the last iteration filled, which a
// select discards (Pallas: prev = jnp.where(i == 0, -1, win[...][15])); the
// same value used unselected decides a branch.
constexpr char kFirstIteration[] = R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%win: vmem<16xi32>, %out: vmem<64xi32>)
{
  %z = const dense<0> : vector<16xi32>
  for %j = 0 to 64 step 16 {
    store %out[ds(%j, 16)], %z
  }
  %minus = const -1 : i32
  for %i = 0 to 4 step 1 {
    %pv = get %win : vector<16xi32>
    %p15 = extract %pv[15] : i32
    %first = cmp eq %i, 0 : i1
    %prev = select %first, %minus, %p15 : i32
    %off = mul %i, 16 : i32
    copy %x[ds(%off, 16)] -> %win
    %ok = cmp ge %prev, 0 : i1
    if %ok {
      %q = get %win : vector<16xi32>
      store %out[ds(%off, 16)], %q
    }
  }
  copy %out -> %o
}
)";

TEST(InitCheckTest, ASelectDiscardsWhatNothingWrote) {
  std::vector<int32_t> x(64);
  for (int i = 0; i < 64; ++i) x[i] = i;
  testing::Run run = RunText(kFirstIteration, {{"x", testing::Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.Findings();
  std::vector<int32_t> want(64, 0);
  for (int i = 16; i < 64; ++i) want[i] = i;
  EXPECT_EQ(run.As<int32_t>("o"), want);
  std::string bug = kFirstIteration;
  bug.replace(bug.find("cmp ge %prev"), 12, "cmp ge %p15");
  EXPECT_EQ(Findings(bug), R"(test.scir:18:8: error[RT-INIT]: the condition of if is unwritten: %ok was computed from %win[15], read at test.scir:11:11, which nothing had written
   18 |     if %ok {
      |        ^~~
note: in kernel @k, subcore (core 0, subcore 0)
help: write the bytes before they decide anything, or keep only the lanes that hold values (jnp.where with a mask of them)
)");
}

// A 16-lane window over a table whose padding nothing wrote: a mask of the
// lanes that hold values keeps the compressed store's mask written (a written
// 0 decides an `and`); without it, the mask decides which lanes move.
constexpr char kPaddedWindow[] = R"(kernel @k(in %x: hbm<20xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%tab: vmem<32xi32>, %out: vmem<16xi32>)
{
  copy %x -> %tab[0:20]
  %z = const dense<0> : vector<16xi32>
  store %out, %z
  %w = get %tab[ds(16, 16)] : vector<16xi32>
  %lane = iota : vector<16xi32>
  %four = const dense<4> : vector<16xi32>
  %valid = cmp lt %lane, %four : vector<16xi1>
  %ten = const dense<10> : vector<16xi32>
  %big = cmp gt %w, %ten : vector<16xi1>
  %keep = and %valid, %big : vector<16xi1>
  store_compressed %out[ds(0, 16)], %w mask %keep
  copy %out -> %o
}
)";

TEST(InitCheckTest, AMaskOfTheWrittenLanesDecides) {
  std::vector<int32_t> x(20);
  for (int i = 0; i < 20; ++i) x[i] = i;
  testing::Run run = RunText(kPaddedWindow, {{"x", testing::Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.Findings();
  EXPECT_EQ(run.As<int32_t>("o"), (std::vector<int32_t>{16, 17, 18, 19, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  std::string bug = kPaddedWindow;
  bug.replace(bug.find("mask %keep"), 10, "mask %big");
  EXPECT_EQ(Findings(bug), R"(test.scir:15:45: error[RT-INIT]: the mask of store_compressed %out[ds(0, 16)] is unwritten: %big was computed from %tab[20], read at test.scir:8:8, which nothing had written
   15 |   store_compressed %out[ds(0, 16)], %w mask %big
      |                                             ^~~~
note: in kernel @k, subcore (core 0, subcore 0)
help: write the bytes before they decide anything, or keep only the lanes that hold values (jnp.where with a mask of them)
)");
}

// The classic accumulator never zeroed: values computed from bytes nothing
// wrote reach an output, a warning when the launch ends (at the load that
// read them), an error when strict.
constexpr char kAccumulator[] = R"(kernel @k(in %x: hbm<4x16xf32>, out %o: hbm<16xf32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%xv: vmem<4x16xf32>, %acc: vmem<16xf32>)
{
  copy %x -> %xv
  for %r = 0 to 4 step 1 {
    %a = get %acc : vector<16xf32>
    %v = get %xv[%r, :] : vector<16xf32>
    %s = add %a, %v : vector<16xf32>
    store %acc, %s
  }
  copy %acc -> %o
}
)";

TEST(InitCheckTest, ComputedValuesReachingAnOutputAreAWarning) {
  constexpr char kWarning[] = R"(test.scir:7:10: warning[RT-INIT]: %o holds 16 elements computed from %acc[0], read here, which nothing had written (the first is %o[0])
    7 |     %a = get %acc : vector<16xf32>
      |          ^~~
help: write what the kernel computes with before it computes (an accumulator starts at zero), or compute only with the lanes that hold values
)";
  testing::Run run = RunText(kAccumulator);
  EXPECT_TRUE(run.status.ok());
  EXPECT_EQ(run.Findings(), kWarning);
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].severity, Severity::kWarning);
  LaunchOptions strict;
  strict.checks = *Checks::Parse("strict");
  run = RunText(kAccumulator, {}, {}, strict);
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].severity, Severity::kError);
  // Zeroed first, nothing to say.
  std::string fixed = kAccumulator;
  fixed.replace(fixed.find("  for %r"), 0, "  %zero = const dense<0.0> : vector<16xf32>\n  store %acc, %zero\n");
  run = RunText(fixed);
  EXPECT_TRUE(run.ok()) << run.Findings();
}

// DMAs carry the state: a region written in part goes to VMEM_SHARED and to
// HBM alike without a finding, and what comes back unwritten is so where it
// decides (the load that read it back names it).
TEST(InitCheckTest, DmasCarryTheState) {
  std::string text = R"(kernel @k(out %o: hbm<2x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<2x16xi32>, %shared: vmem_shared<2x16xi32>, %back: vmem<2x16xi32>)
{
  %v = iota : vector<16xi32>
  store %buf[0, :], %v
  copy %buf -> %shared
  copy %buf -> %o
  copy %shared -> %back
  %w = get %back[${ROW}, :] : vector<16xi32>
  %i = extract %w[3] : i32
  %r = get %back[0, ds(%i, 1)] : vector<1xi32>
}
)";
  auto with = [&](const std::string& row) {
    std::string t = text;
    t.replace(t.find("${ROW}"), 6, row);
    return t;
  };
  testing::Run run = RunText(with("0"));
  ASSERT_TRUE(run.ok()) << run.Findings();
  std::vector<uint32_t> o = run.As<uint32_t>("o");
  EXPECT_EQ(o[15], 15u);
  EXPECT_EQ(o[16], 0xBEBEBEBEu);
  EXPECT_EQ(Findings(with("1")), R"(test.scir:12:24: error[RT-INIT]: the slice start of get %back[0, ds(%i, 1)] is unwritten: %i was read from %back[1, 3] at test.scir:10:8, which nothing has written
   12 |   %r = get %back[0, ds(%i, 1)] : vector<1xi32>
      |                        ^~
note: in kernel @k, subcore (core 0, subcore 0)
help: write the bytes before they decide anything, or keep only the lanes that hold values (jnp.where with a mask of them)
)");
}

// An index list's entries decide which rows a DMA moves: each must be
// written when the DMA reads it.
TEST(InitCheckTest, IndexListEntriesMustBeWritten) {
  // Entries 0 and 1 written (a compressed store of two lanes), 2 and 3 not.
  EXPECT_EQ(Findings(R"(kernel @k(in %x: hbm<16x16xi32>, out %o: hbm<4x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%list: vmem<16xi32>, %rows: vmem<4x16xi32>)
{
  %v = iota : vector<16xi32>
  %two = const dense<2> : vector<16xi32>
  %m = cmp lt %v, %two : vector<16xi1>
  store_compressed %list[:], %v mask %m
  %l4 = view %list[0:4] : vmem<4xi32>
  copy %x[idx(%l4)] -> %rows
  copy %rows -> %o
}
)"),
            R"(test.scir:10:3: error[RT-INIT]: the index list of copy %x[idx(%l4)] -> %rows is unwritten: its entry %list[2] holds bytes nothing has written
   10 |   copy %x[idx(%l4)] -> %rows
      |   ^~~~
note: in kernel @k, subcore (core 0, subcore 0)
help: write the bytes before they decide anything, or keep only the lanes that hold values (jnp.where with a mask of them)
)");
}

TEST(InitCheckTest, ScopedAllocsStartUnwritten) {
  EXPECT_EQ(Findings(R"(kernel @k(out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  scoped {
    %a = alloc smem<2xi32>
    %n = get %a[1] : i32
    for %i = 0 to %n step 1 {
    }
  }
}
)"),
            R"(test.scir:7:19: error[RT-INIT]: the upper bound of for is unwritten: %n was read from %a[1] at test.scir:6:10, which nothing has written
    7 |     for %i = 0 to %n step 1 {
      |                   ^~
note: in kernel @k, subcore (core 0, subcore 0)
help: write the bytes before they decide anything, or keep only the lanes that hold values (jnp.where with a mask of them)
)");
}

TEST(InitCheckTest, SmemScalarsAndFetchAndAdd) {
  // fetch_and_add writes its word; the other word of %s is never written, and
  // what is computed from it reaches the output.
  testing::Run run = RunText(R"(kernel @k(out %o: smem<2xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%s: smem<2xi32>)
{
  store %s[0], 0
  %me = axis_index subcore : i32
  %old = fetch_and_add %s[0], 5 {subcore = %me} : i32
  %a = get %s[0] : i32
  %b = get %s[1] : i32
  %c = add %a, %b : i32
  store %o[0], %c
  store %o[1], %old
}
)");
  EXPECT_EQ(run.Findings(), R"(test.scir:9:8: warning[RT-INIT]: %o holds 1 element computed from %s[1], read here, which nothing had written (the first is %o[0])
    9 |   %b = get %s[1] : i32
      |        ^~~
help: write what the kernel computes with before it computes (an accumulator starts at zero), or compute only with the lanes that hold values
)");
  EXPECT_EQ(run.As<int32_t>("o")[1], 0);
}

TEST(InitCheckTest, OffWithoutTheCheck) {
  CompileOptions compile;
  compile.checks = *Checks::Parse("bounds,race,sync");
  std::string bug = kLaneZero;
  bug.replace(bug.find("extract %v[0]"), 13, "extract %v[1]");
  testing::Run run = RunText(bug, {}, compile);
  for (const Diagnostic& d : run.findings) EXPECT_NE(d.code, "RT-INIT") << run.Findings();
  EXPECT_EQ(Findings(kAccumulator, compile), "");
}

// --- Compressed and expanded windows --------------------------------------------------

// A top-k that appends its winners with store_compressed at a running offset
// into a buffer of 16 (Pallas: plsc.store_compressed(buf.at[pl.ds(n, 16)], ...)):
// the window passes the buffer's end, but the popcount(mask) elements it
// touches do not, and only those are checked, read and written.
constexpr char kAppend[] = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>, out %e: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%xv: vmem<16xi32>, %buf: vmem<16xi32>, %ev: vmem<16xi32>)
{
  copy %x -> %xv
  %v = get %xv : vector<16xi32>
  %z = const dense<0> : vector<16xi32>
  store %buf, %z
  %five = const dense<5> : vector<16xi32>
  %ten = const dense<10> : vector<16xi32>
  %m1 = cmp lt %v, %five : vector<16xi1>
  store_compressed %buf[ds(0, 16)], %v mask %m1
  %pc1 = popcount_all %m1 : vector<16xi32>
  %n1 = extract %pc1[0] : i32
  %m2 = cmp ge %v, %ten : vector<16xi1>
  store_compressed %buf[ds(%n1, 16)], %v mask %m2
  %pc2 = popcount_all %m2 : vector<16xi32>
  %n2x = extract %pc2[0] : i32
  %n2 = add %n1, %n2x : i32
  addupdate_compressed %buf[ds(%n2, 16)], %v mask %m1
  %ex = load_expanded %buf[ds(%n2, 16)] mask %m1 : vector<16xi32>
  %sel = select %m1, %ex, %z : vector<16xi32>
  store %ev, %sel
  copy %buf -> %o
  copy %ev -> %e
}
)";

TEST(CompressedWindowTest, OnlyTheTouchedElementsMustFit) {
  std::vector<int32_t> x(16);
  for (int i = 0; i < 16; ++i) x[i] = i;
  testing::Run run = RunText(kAppend, {{"x", testing::Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  // 0..4 at 0, 10..15 at 5, then 0..4 added at 11 and read back.
  EXPECT_EQ(run.As<int32_t>("o"), (std::vector<int32_t>{0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4}));
  EXPECT_EQ(run.As<int32_t>("e"), (std::vector<int32_t>{0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // Unchecked, nothing moves either.
  CompileOptions unchecked;
  unchecked.checks = Checks::None();
  LaunchOptions none;
  none.checks = Checks::None();
  testing::Run fast = RunText(kAppend, {{"x", testing::Bytes(x)}}, unchecked, none);
  ASSERT_TRUE(fast.ok()) << fast.Findings();
  EXPECT_EQ(fast.As<int32_t>("o"), run.As<int32_t>("o"));
}

TEST(CompressedWindowTest, TouchedElementsPastTheEndAreOutOfBounds) {
  // Six winners at offset 11 of 16: element 16 is touched.
  std::string bug = kAppend;
  bug.replace(bug.find("%m1 = cmp lt"), 12, "%m1 = cmp le");
  std::vector<int32_t> x(16);
  for (int i = 0; i < 16; ++i) x[i] = i;
  testing::Run run = RunText(bug, {{"x", testing::Bytes(x)}});
  EXPECT_EQ(run.Findings(),
            R"(test.scir:20:24: error[RT-BOUNDS]: a slice starting at 12 does not fit dimension 0 of %buf[ds(%n2, 16)] (valid starts are 0 to 10)
   20 |   addupdate_compressed %buf[ds(%n2, 16)], %v mask %m1
      |                        ^~~~~~~~~~~~~~~~~
note: addupdate_compressed touches the first popcount(mask) elements of its window, and only those must lie inside the ref: here they do not
note: in kernel @k, subcore (core 0, subcore 0)
)");
}

// --- RT-RACE: the kernel against the DMAs in flight on its buffers -------------------

TEST(LocalRaceTest, DestinationReadBeforeTheWait) {
  EXPECT_EQ(Findings(R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %sem: dma_sem)
{
  dma_start %x -> %buf, %sem
  %v = get %buf[:] : vector<16xi32>
  dma_wait %x -> %buf, %sem
  store %buf[:], %v
  copy %buf -> %o
}
)"),
            R"(test.scir:6:8: error[RT-RACE]: get reads %buf[0] while the DMA of dma_start at test.scir:5:3 may still be writing it
    6 |   %v = get %buf[:] : vector<16xi32>
      |        ^~~
note: the DMA (dma_start %x -> %buf) writes %buf[0] from its start until a wait on its semaphore retires it; wait before this op
)" + std::string(kRaceTail));
}

TEST(LocalRaceTest, SourceOverwrittenBeforeTheWait) {
  EXPECT_EQ(Findings(R"(kernel @k(out %o: hbm<2x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<2x16xi32>, %sem: dma_sem)
{
  %v = iota : vector<16xi32>
  store %buf[0, :], %v
  store %buf[1, :], %v
  dma_start %buf -> %o, %sem
  store %buf[1, :], %v
  dma_wait %buf -> %o, %sem
}
)"),
            R"(test.scir:9:3: error[RT-RACE]: store writes %buf[1, 0] while the DMA of dma_start at test.scir:8:3 may still be reading it
    9 |   store %buf[1, :], %v
      |   ^~~~~
note: the DMA (dma_start %buf -> %o) reads %buf[1, 0] from its start until a wait on its semaphore retires it; wait before this op
)" + std::string(kRaceTail));
}

// A push stream with a source semaphore (JAX 0.12's `src_sem`): its source may
// be reused once the wait on that semaphore (wait_read) returns, before the
// wait on the destination one; not before.
CompileOptions Jax0_12_1() {
  CompileOptions o;
  o.jax = "0.12.1";
  return o;
}

TEST(LocalRaceTest, APushStreamsSourceIsFreeAfterWaitRead) {
  std::string text = R"(kernel @k(out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %sem: dma_sem, %read: dma_sem)
{
  %v = iota : vector<16xi32>
  store %buf[:], %v
  dma_start %buf -> %o, %sem src_sem %read
  dma_wait %buf -> %o, %read
  %w = add %v, %v : vector<16xi32>
  store %buf[:], %w
  dma_wait %buf -> %o, %sem
}
)";
  EXPECT_EQ(Findings(text, Jax0_12_1()), "");
  for (DmaMode mode : {DmaMode::kEager, DmaMode::kOnWait}) {
    testing::Run run = RunText(text, {}, Jax0_12_1(), Mode(mode));
    ASSERT_TRUE(run.status.ok()) << run.diagnostics;
    std::vector<int32_t> want(16);
    for (int i = 0; i < 16; ++i) want[i] = i;
    EXPECT_EQ(run.As<int32_t>("o"), want);
  }
}

TEST(LocalRaceTest, APushStreamsSourceIsBusyUntilWaitRead) {
  EXPECT_EQ(Findings(R"(kernel @k(out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %sem: dma_sem, %read: dma_sem)
{
  %v = iota : vector<16xi32>
  store %buf[:], %v
  dma_start %buf -> %o, %sem src_sem %read
  store %buf[:], %v
  dma_wait %buf -> %o, %sem src_sem %read
}
)",
                     Jax0_12_1()),
            R"(test.scir:8:3: error[RT-RACE]: store writes %buf[0] while the DMA of dma_start at test.scir:7:3 may still be reading it
    8 |   store %buf[:], %v
      |   ^~~~~
note: the DMA (dma_start %buf -> %o) reads %buf[0] from its start until a wait on its semaphore retires it; wait before this op
)" + std::string(kRaceTail));
}

TEST(LocalRaceTest, TwoDmasIntoOneBuffer) {
  EXPECT_EQ(Findings(R"(kernel @k(in %x: hbm<32xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %sems: dma_sem<2>)
{
  %a = view %sems[0] : dma_sem
  %b = view %sems[1] : dma_sem
  dma_start %x[0:16] -> %buf, %a
  dma_start %x[16:32] -> %buf, %b
  dma_wait %x[0:16] -> %buf, %a
  dma_wait %x[16:32] -> %buf, %b
  copy %buf -> %o
}
)"),
            R"(test.scir:8:3: error[RT-RACE]: dma_start %x[16:32] -> %buf writes %buf[0] while the DMA of dma_start at test.scir:7:3 may still be writing it
    8 |   dma_start %x[16:32] -> %buf, %b
      |   ^~~~~~~~~
note: the DMA (dma_start %x[0:16] -> %buf) writes %buf[0] from its start until a wait on its semaphore retires it; wait before this op
)" + std::string(kRaceTail));
}

TEST(LocalRaceTest, WaitsRetireByCountInStartOrder) {
  // Two copies on one semaphore: the first wait retires the first DMA only, so
  // reading the second buffer between the waits is a race, the first is not.
  std::string text = R"(kernel @k(in %x: hbm<32xi32>, out %o: hbm<32xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<32xi32>, %sem: dma_sem)
{
  dma_start %x[0:16] -> %buf[0:16], %sem
  dma_start %x[16:32] -> %buf[16:32], %sem
  dma_wait %x[0:16] -> %buf[0:16], %sem
  %v = get %buf[${SLICE}] : vector<16xi32>
  dma_wait %x[16:32] -> %buf[16:32], %sem
  store %buf[0:16], %v
  copy %buf -> %o
}
)";
  auto with = [&](const std::string& slice) {
    std::string t = text;
    t.replace(t.find("${SLICE}"), 8, slice);
    return Findings(t);
  };
  EXPECT_EQ(with("0:16"), "");
  EXPECT_NE(with("16:32").find("error[RT-RACE]: get reads %buf[16] while the DMA of dma_start at test.scir:6:3"),
            std::string::npos);
}

TEST(LocalRaceTest, WarningsLetTheRunGoOn) {
  CompileOptions compile;
  compile.checks = *Checks::Parse("warn");
  testing::Run run = RunText(R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %sem: dma_sem)
{
  dma_start %x -> %buf, %sem
  %v = get %buf[:] : vector<16xi32>
  dma_wait %x -> %buf, %sem
  copy %buf -> %o
}
)",
                             {}, compile);
  ASSERT_EQ(run.findings.size(), 1u) << run.Findings();
  EXPECT_EQ(run.findings[0].code, "RT-RACE");
  EXPECT_EQ(run.findings[0].severity, Severity::kWarning);
  EXPECT_TRUE(run.status.ok());
}

// --- Silent: correctly synchronised code ---------------------------------------------

TEST(AccessChecksTest, ExamplesRunClean) {
  for (const char* example : {"examples/add_one_manual.scir", "examples/gather_indirect.scir",
                              "examples/mpmd_rows.scir"}) {
    testing::Run run = testing::RunFile(example);
    EXPECT_TRUE(run.ok()) << example << ": " << run.diagnostics << run.Findings();
  }
}


// --- RT-RACE between subcores: DMAs into shared memory -------------------------------

// Two subcores copy into the same bytes of %o; `${ORDER}` goes between.
std::string TwoWriters(const std::string& value, const std::string& order) {
  std::string text = R"(kernel @k(out %o: hbm<16xi32>, out %r: hbm<2x16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%buf: vmem<16xi32>, %back: vmem<16xi32>)
{
  %me = axis_index subcore : i32
  %i = iota : vector<16xi32>
  %mv = broadcast %me : vector<16xi32>
  %v = ${VALUE}
  store %buf[:], %v
  ${ORDER}
  copy %buf -> %o
  barrier
  copy %o -> %back
  copy %back -> %r[%me]
}
)";
  text.replace(text.find("${VALUE}"), 8, value);
  text.replace(text.find("${ORDER}"), 8, order);
  return text;
}

TEST(SharedRaceTest, TwoSubcoresWriteTheSameBytes) {
  std::string f = Findings(TwoWriters("add %i, %mv : vector<16xi32>", ""));
  EXPECT_NE(f.find("test.scir:11:3: error[RT-RACE]: copy %buf -> %o writes %o[0] while the DMA of copy at "
                   "test.scir:11:3 on subcore (core 0, subcore 0) may still be writing it"),
            std::string::npos)
      << f;
  EXPECT_NE(f.find("note: the other DMA (copy %buf -> %o, retired by copy at test.scir:11:3) and this one are "
                   "not ordered"),
            std::string::npos)
      << f;
  EXPECT_NE(f.find("note: in kernel @k, subcore (core 0, subcore 1)"), std::string::npos) << f;
}

// Subcore 0 writes %o first, alone, then a barrier: the copies after it write
// what is already there.
constexpr char kSubcore0WritesFirst[] = R"(%z = cmp eq %me, 0 : i1
  if %z {
    copy %buf -> %o
  }
  barrier)";

TEST(SharedRaceTest, IdenticalBytesAndOrderedWritesAreNoRace) {
  EXPECT_EQ(Findings(TwoWriters("add %i, 0 : vector<16xi32>", "")), "");
  EXPECT_EQ(Findings(TwoWriters("add %i, 0 : vector<16xi32>", kSubcore0WritesFirst)), "");
}

// Subcore 0's second write finds its own first one's bytes (it changes
// nothing), subcore 1's changes them: which stays depends on the order, a race
// whichever of the two moved first.
TEST(SharedRaceTest, AWriteThatChangesNothingStillRacesOneThatDoes) {
  std::string f = Findings(TwoWriters("add %i, %mv : vector<16xi32>", kSubcore0WritesFirst));
  EXPECT_NE(f.find("test.scir:15:3: error[RT-RACE]: copy %buf -> %o writes %o[0] while the DMA of copy at "
                   "test.scir:15:3 on subcore (core 0, subcore 0) may still be writing it"),
            std::string::npos)
      << f;
}

// Two subcores sharing %o with nothing ordering them: subcore 0 runs `first`
// (line 8), subcore 1 `other` (from line 10).
std::string TwoSubcores(const std::string& first, const std::string& other) {
  return R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%buf: vmem<16xi32>)
{
  %me = axis_index subcore : i32
  %first = cmp eq %me, 0 : i1
  if %first {
    )" + first + R"(
  } else {
    )" + other + R"(
  }
}
)";
}

// Each subcore writes VMEM_SHARED, then reads it back, with nothing ordering
// the subcores: a read of bytes another subcore may be writing.
std::string EachWritesThenReads(const std::string& value) {
  std::string text = R"(kernel @k(out %o: hbm<2x16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%shared: vmem_shared<16xi32>, %buf: vmem<16xi32>)
{
  %me = axis_index subcore : i32
  %i = iota : vector<16xi32>
  %mv = broadcast %me : vector<16xi32>
  %v = ${VALUE}
  store %buf[:], %v
  copy %buf -> %shared
  copy %shared -> %buf
  copy %buf -> %o[%me]
}
)";
  text.replace(text.find("${VALUE}"), 8, value);
  return text;
}

// The same bytes from every subcore (JAX's test_parallel_subkernels: a table
// each copies into VMEM_SHARED before reading it): whatever the order, a read
// finds what its own write, ordered before it, left there.
TEST(SharedRaceTest, AReadOfBytesAnotherSubcoreRewritesIdenticallyIsNoRace) {
  EXPECT_EQ(Findings(EachWritesThenReads("add %i, 0 : vector<16xi32>")), "");
}

TEST(SharedRaceTest, AReadOfBytesAnotherSubcoreWritesDifferentlyIsARace) {
  std::string f = Findings(EachWritesThenReads("add %i, %mv : vector<16xi32>"));
  EXPECT_NE(f.find("test.scir:10:3: error[RT-RACE]: copy %buf -> %shared writes %shared[0]"), std::string::npos) << f;
}

TEST(SharedRaceTest, ReadAgainstWriteWithoutABarrier) {
  std::string f = Findings(TwoSubcores("copy %x -> %o", "\n    copy %o -> %buf"));
  EXPECT_NE(f.find("test.scir:11:5: error[RT-RACE]: copy %o -> %buf reads %o[0] while the DMA of copy at "
                   "test.scir:8:5 on subcore (core 0, subcore 0) may still be writing it"),
            std::string::npos)
      << f;
}

// The reader runs first and finds the bytes unwritten; the writer's DMA, checked
// after it, is the one reported. The read's RT-INIT is explained by the race
// too: with threads the reader may or may not see the writer's bytes, and the
// findings must not depend on it.
TEST(SharedRaceTest, AnUnwrittenReadThatRacesIsOnlyTheRace) {
  std::string f = Findings(TwoSubcores("copy %o -> %buf", "copy %x -> %o"));
  EXPECT_NE(f.find("test.scir:10:5: error[RT-RACE]: copy %x -> %o writes %o[0] while the DMA of copy at "
                   "test.scir:8:5 on subcore (core 0, subcore 0) may still be reading it"),
            std::string::npos)
      << f;
  EXPECT_EQ(f.find("RT-INIT"), std::string::npos) << f;
}

// Accesses before a barrier are forgotten once every subcore that reaches the
// memory is past it (each core's VMEM_SHARED: that core's, whatever the other
// core does); races after it are still found.
TEST(SharedRaceTest, RacesAfterABarrierAreStillFound) {
  std::string f = Findings(R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<2x16xi32>)
    mesh vector(cores = 2, subcores = 2)
    scratch(%acc: vmem_shared<16xi32>, %buf: vmem<16xi32>)
{
  %c = axis_index core : i32
  %me = axis_index subcore : i32
  %first = cmp eq %me, 0 : i1
  copy %x -> %buf
  if %first {
    copy %x -> %acc
  }
  barrier
  if %first {
    copy %acc -> %buf
    copy %buf -> %o[%c]
  } else {
    copy %buf -> %acc
  }
}
)");
  EXPECT_NE(f.find("test.scir:17:5: error[RT-RACE]: copy %buf -> %acc writes %acc[0] of core 0 while the DMA of copy at "
                   "test.scir:14:5 on "
                   "subcore (core 0, subcore 0) may still be reading it"),
            std::string::npos)
      << f;
}

TEST(SharedRaceTest, SemaphoreHandshakeOrders) {
  EXPECT_EQ(Findings(R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%buf: vmem<16xi32>, %ready: sem)
{
  %me = axis_index subcore : i32
  %first = cmp eq %me, 0 : i1
  if %first {
    copy %x -> %o
    %one = const 1 : i32
    sem_signal %ready, 1 {subcore = %one}
  } else {
    sem_wait %ready, 1
    copy %o -> %buf
  }
}
)"),
            "");
}

// --- fetch_and_add against plain accesses (runtime/atomic_words.h) -----------------

// Subcore 0 fetch_and_adds a counter in subcore 1's SMEM, subcore 1 stores it,
// and after a barrier reads it; `sync0` (before the add) and `sync1` (after the store) order
// them or not; `store_late`: the store comes after the add.
std::string CounterKernel(const std::string& sync0, const std::string& sync1, bool store_late) {
  std::string text = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<1xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%count: smem<4xi32>, %buf: vmem<16xi32>, %ready: sem)
{
  %me = axis_index subcore : i32
  %first = cmp eq %me, 0 : i1
  %one = const 1 : i32
  if %first {
    ${SYNC0}
    %old = fetch_and_add %count[2], 7 {subcore = %one} : i32
  } else {
    ${LATE}
    store %count[2], 5
    ${SYNC1}
  }
  barrier
  %second = cmp eq %me, 1 : i1
  if %second {
    %last = get %count[2] : i32
    %s = broadcast %last : vector<16xi32>
    store %buf, %s
    copy %buf[0:1] -> %o
  }
}
)";
  auto put = [&](const std::string& key, const std::string& value) { text.replace(text.find(key), key.size(), value); };
  put("${SYNC0}", sync0);
  put("${SYNC1}", sync1);
  // sem_read parks subcore 1 before its store, without ordering anything: the
  // fetch_and_add comes first.
  put("${LATE}", store_late ? "%r = sem_read %ready : i32" : "");
  return text;
}

constexpr char kAtomicNote[] =
    "note: a fetch_and_add is atomic only with respect to the other fetch_and_adds of its word; a barrier, or a "
    "semaphore signal and wait, between it and the subcore's own loads and stores of the word would order them\n";

TEST(AtomicRaceTest, FetchAndAddAgainstAnUnorderedStore) {
  std::string f = Findings(CounterKernel("", "", false));
  EXPECT_EQ(f.substr(0, f.find('\n')),
            "test.scir:10:26: error[RT-RACE]: fetch_and_add %count[2] adds into %count[2] of subcore (core 0, "
            "subcore 1) while that subcore's store at test.scir:13:5 may be writing it")
      << f;
  EXPECT_NE(f.find(kAtomicNote), std::string::npos) << f;
}

TEST(AtomicRaceTest, StoreAgainstAnUnorderedFetchAndAdd) {
  std::string f = Findings(CounterKernel("", "", true));
  EXPECT_EQ(f.substr(0, f.find('\n')),
            "test.scir:13:5: error[RT-RACE]: store writes %count[2] while the fetch_and_add of fetch_and_add at "
            "test.scir:10:26 on subcore (core 0, subcore 0) may be adding into it")
      << f;
  EXPECT_NE(f.find(kAtomicNote), std::string::npos) << f;
}

// Ordered by a semaphore handshake either way, or by the barrier before the
// last read: no finding; the counter's other words are not the race's.
TEST(AtomicRaceTest, OrderedAccessesAreNoRace) {
  // Subcore 1 stores, then signals; subcore 0 waits, then adds.
  std::string ordered =
      CounterKernel("sem_wait %ready, 1", "%zero = const 0 : i32\n    sem_signal %ready, 1 {subcore = %zero}", false);
  EXPECT_EQ(Findings(ordered), "");
  testing::Run run = RunText(ordered);
  EXPECT_EQ(run.As<int32_t>("o"), std::vector<int32_t>{12});
  // Without the wait, the same kernel races.
  EXPECT_NE(Findings(CounterKernel("", "%zero = const 0 : i32\n    sem_signal %ready, 1 {subcore = %zero}", false)),
            "");
}

// Every subcore adds into subcore 0's counter, then a barrier, then subcore 0
// reads it: the common pattern, clean; its value is the sum.
TEST(AtomicRaceTest, CountersReadAfterABarrier) {
  testing::Run run = RunText(R"(kernel @k(out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 4)
    scratch(%count: smem<1xi32>, %buf: vmem<16xi32>)
{
  %me = axis_index subcore : i32
  %first = cmp eq %me, 0 : i1
  if %first {
    store %count[0], 100
  }
  barrier
  %zero = const 0 : i32
  %old = fetch_and_add %count[0], %me {subcore = %zero} : i32
  barrier
  if %first {
    %total = get %count[0] : i32
    %s = broadcast %total : vector<16xi32>
    store %buf, %s
    copy %buf -> %o
  }
}
)");
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  EXPECT_EQ(run.As<int32_t>("o"), std::vector<int32_t>(16, 106));
}

// Which bytes a write changed decides a race of two writes: identical bytes
// are none, whether the memory held a value before or not (the first write
// into unwritten bytes changes them, the second finds them equal), in shared
// scratch as in HBM, by 64-byte blocks of a contiguous run and by elements of
// a strided one.
TEST(SharedRaceTest, IdenticalBytesInSharedScratchAndStridedRuns) {
  EXPECT_EQ(Findings(R"(kernel @k(out %o: hbm<16x2xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%buf: vmem<16xi32>, %slots: vmem_shared<16xi32>)
{
  %me = axis_index subcore : i32
  %i = iota : vector<16xi32>
  store %buf[:], %i
  copy %buf -> %slots
  copy %buf -> %o[:, 0]
  copy %buf -> %o[:, 1]
}
)"),
            "");
  // One lane differs: a block of a contiguous run races from its first byte, a
  // strided run at the element.
  std::string text = R"(kernel @k(out %o: hbm<16x2xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%buf: vmem<16xi32>, %slots: vmem_shared<16xi32>)
{
  %me = axis_index subcore : i32
  %i = iota : vector<16xi32>
  %last = cmp eq %i, 15 : vector<16xi1>
  %mv = broadcast %me : vector<16xi32>
  %v = select %last, %mv, %i : vector<16xi32>
  store %buf[:], %v
  ${COPY}
}
)";
  auto with = [&](const std::string& copy) {
    std::string t = text;
    t.replace(t.find("${COPY}"), 7, copy);
    return Findings(t);
  };
  std::string f = with("copy %buf -> %slots");
  EXPECT_NE(f.find("test.scir:11:3: error[RT-RACE]: copy %buf -> %slots writes %slots[0] of core 0 while the DMA of copy at "
                   "test.scir:11:3 on subcore (core 0, subcore 0) may still be writing it"),
            std::string::npos)
      << f;
  f = with("copy %buf -> %o[:, 1]");
  EXPECT_NE(f.find("test.scir:11:3: error[RT-RACE]: copy %buf -> %o[:, 1] writes %o[15, 1] while the DMA of copy at "
                   "test.scir:11:3 on subcore (core 0, subcore 0) may still be writing it"),
            std::string::npos)
      << f;
}

// A DMA of many strided elements in flight: the next DMA into its buffer is
// checked against its state bytes (too many spans to compare one by one).
TEST(LocalRaceTest, ManySpansInFlight) {
  std::string text = R"(kernel @k(in %x: hbm<160xi32>, out %o: hbm<80x2xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<80x2xi32>, %sems: dma_sem<2>)
{
  %a = view %sems[0] : dma_sem
  %b = view %sems[1] : dma_sem
  dma_start %x[0:80] -> %buf[:, 0], %a
  dma_start %x[80:160] -> %buf[:, ${COLUMN}], %b
  dma_wait %x[0:80] -> %buf[:, 0], %a
  dma_wait %x[80:160] -> %buf[:, ${COLUMN}], %b
  copy %buf -> %o
}
)";
  auto with = [&](const std::string& column) {
    std::string t = text;
    for (size_t at; (at = t.find("${COLUMN}")) != std::string::npos;) t.replace(at, 9, column);
    return Findings(t);
  };
  EXPECT_EQ(with("1"), "");
  EXPECT_NE(with("0").find("test.scir:8:3: error[RT-RACE]: dma_start %x[80:160] -> %buf[:, 0] writes %buf[0, 0] "
                           "while the DMA of dma_start at test.scir:7:3 may still be writing it"),
            std::string::npos)
      << with("0");
}

}  // namespace
}  // namespace scjit
