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

// --- RT-INIT ----------------------------------------------------------------------

TEST(InitCheckTest, ReadPastWhatWasWritten) {
  EXPECT_EQ(Findings(R"(kernel @k(out %o: hbm<2x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<2x16xi32>)
{
  %v = iota : vector<16xi32>
  store %buf[0, :], %v
  %w = get %buf[1, :] : vector<16xi32>
  store %buf[1, :], %w
  copy %buf -> %o
}
)"),
            R"(test.scir:7:8: error[RT-INIT]: get reads %buf[1, 0], which nothing has written
    7 |   %w = get %buf[1, :] : vector<16xi32>
      |        ^~~
)" + std::string(kInitTail));
}

TEST(InitCheckTest, CompressedStoresWriteOnlyTheirLanes) {
  // store_compressed writes elements 0-7; load_expanded of them is fine, a
  // full read meets element 8.
  EXPECT_EQ(Findings(R"(kernel @k(out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  %v = iota : vector<16xi32>
  %eight = const dense<8> : vector<16xi32>
  %m = cmp lt %v, %eight : vector<16xi1>
  store_compressed %buf[:], %v mask %m
  %lo = load_expanded %buf[:] mask %m : vector<16xi32>
  %all = get %buf[:] : vector<16xi32>
  store %buf[:], %lo
  copy %buf -> %o
}
)"),
            R"(test.scir:10:10: error[RT-INIT]: get reads %buf[8], which nothing has written
   10 |   %all = get %buf[:] : vector<16xi32>
      |          ^~~
)" + std::string(kInitTail));
}

TEST(InitCheckTest, DmaSourcePartlyWritten) {
  // Into VMEM_SHARED the copy is the finding; into HBM the bytes leave as they
  // are (a pipeline's writeback of a block written in part), poison included.
  std::string text = R"(kernel @k(out %o: hbm<2x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<2x16xi32>, %shared: vmem_shared<2x16xi32>)
{
  %v = iota : vector<16xi32>
  store %buf[0, :], %v
  copy %buf -> ${DST}
}
)";
  auto with = [&](const std::string& dst) {
    std::string t = text;
    t.replace(t.find("${DST}"), 6, dst);
    return t;
  };
  EXPECT_EQ(Findings(with("%shared")),
            R"(test.scir:7:3: error[RT-INIT]: copy %buf -> %shared copies %buf[1, 0], which nothing has written
    7 |   copy %buf -> %shared
      |   ^~~~
)" + std::string(kInitTail));
  testing::Run run = RunText(with("%o"));
  ASSERT_TRUE(run.ok()) << run.Findings();
  std::vector<uint32_t> o = run.As<uint32_t>("o");
  EXPECT_EQ(o[15], 15u);
  EXPECT_EQ(o[16], 0xBEBEBEBEu);
}

TEST(InitCheckTest, SharedMemoryStartsUnwritten) {
  // An out parameter in HBM and VMEM_SHARED scratch: what a DMA wrote there
  // reads back; the rest is a finding, the same with the race check off (then
  // reported at once, not when the epoch ends).
  std::string text = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<2x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %shared: vmem_shared<2x16xi32>)
{
  copy %x -> %o[0]
  copy %x -> %shared[1]
  copy %o[0] -> %buf
  copy %shared[1] -> %buf
  copy ${SRC} -> %buf
  copy %buf -> %o[1]
}
)";
  auto with = [&](const std::string& src) {
    std::string t = text;
    t.replace(t.find("${SRC}"), 6, src);
    return t;
  };
  EXPECT_EQ(Findings(with("%o[1]")),
            R"(test.scir:9:3: error[RT-INIT]: copy %o[1] -> %buf copies %o[1, 0], which nothing has written
    9 |   copy %o[1] -> %buf
      |   ^~~~
)" + std::string(kInitTail));
  Checks no_race = Checks::All();
  no_race.race = false;
  CompileOptions compile;
  compile.checks = no_race;
  EXPECT_EQ(Findings(with("%shared[0]"), compile),
            R"(test.scir:9:3: error[RT-INIT]: copy %shared[0] -> %buf copies %shared[0, 0] of core 0, which nothing has written
    9 |   copy %shared[0] -> %buf
      |   ^~~~
)" + std::string(kInitTail));
  EXPECT_EQ(Findings(with("%x")), "");
}

TEST(InitCheckTest, ScopedAllocsStartUnwritten) {
  EXPECT_EQ(Findings(R"(kernel @k(out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  scoped {
    %a = alloc vmem<16xi32>
    %v = get %a[:] : vector<16xi32>
    store %a[:], %v
    copy %a -> %o
  }
}
)"),
            R"(test.scir:6:10: error[RT-INIT]: get reads %a[0], which nothing has written
    6 |     %v = get %a[:] : vector<16xi32>
      |          ^~~
)" + std::string(kInitTail));
}

TEST(InitCheckTest, SmemScalarsAndFetchAndAdd) {
  // fetch_and_add writes its word; the other word of %s is never written.
  EXPECT_EQ(Findings(R"(kernel @k(out %o: smem<2xi32>)
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
)"),
            R"(test.scir:9:8: error[RT-INIT]: get reads %s[1], which nothing has written
    9 |   %b = get %s[1] : i32
      |        ^~~
)" + std::string(kInitTail));
}

TEST(InitCheckTest, OffWithoutTheCheck) {
  CompileOptions compile;
  compile.checks = *Checks::Parse("bounds,race,sync");
  EXPECT_EQ(Findings(R"(kernel @k(out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  %v = get %buf[:] : vector<16xi32>
  store %buf[:], %v
  copy %buf -> %o
}
)",
                     compile),
            "");
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

TEST(SharedRaceTest, IdenticalBytesAndOrderedWritesAreNoRace) {
  EXPECT_EQ(Findings(TwoWriters("add %i, 0 : vector<16xi32>", "")), "");
  // Subcore 1 writes after a barrier... the copies after it read what both wrote.
  std::string ordered = TwoWriters("add %i, %mv : vector<16xi32>", R"(%z = cmp eq %me, 0 : i1
  if %z {
    copy %buf -> %o
  }
  barrier)");
  EXPECT_EQ(Findings(ordered), "");
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
