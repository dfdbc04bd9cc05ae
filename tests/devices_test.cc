// Kernels on a device mesh (`devices(...)`, language.md §5 and §12): several
// chips in one launch, each with its own HBM, SparseCores and semaphores; remote
// DMAs and semaphore signals between them; the rules and findings that name a
// device. Outputs are checked against references written from the kernels.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scjit/scjit.h"
#include "tests/kernel_runner.h"

namespace scjit {
namespace {

using testing::Bytes;
using testing::Check;
using testing::Checked;

using testing::RunFile;
using testing::RunText;

std::vector<int32_t> Iota(size_t n, int32_t scale = 1) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(i) * scale - 5;
  return v;
}

LaunchOptions Options(int threads, DmaMode dma, std::optional<uint64_t> seed = std::nullopt) {
  LaunchOptions o;
  o.threads = threads;
  o.dma = dma;
  o.seed = seed;
  return o;
}

// The run's only finding is an RT-RACE saying `message` (and `note` first,
// unless empty).
void ExpectRace(const testing::Run& run, const std::string& message, const std::string& note = "") {
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.findings.size(), 1u) << run.Findings();
  EXPECT_EQ(run.findings[0].code, "RT-RACE");
  EXPECT_EQ(run.findings[0].message, message);
  if (!note.empty()) EXPECT_EQ(run.findings[0].notes.at(0), note);
}

// The ring permute of examples/collective_permute.scir on `n` chips, `dir` 1
// (right) or n - 1 (left).
std::string Ring(int n, int dir) {
  return "kernel @ring(in %x: hbm<8x128xi32>, out %y: hbm<8x128xi32>)\n"
         "    mesh scalar(cores = 1)\n"
         "    devices(x = " + std::to_string(n) + ")\n"
         "    scratch(%ready: sem, %send: dma_sem, %recv: dma_sem)\n"
         "{\n"
         "  %me = axis_index x : i32\n"
         "  %n = axis_size x : i32\n"
         "  %me1 = add %me, " + std::to_string(dir) + " : i32\n"
         "  %to = rem %me1, %n : i32\n"
         "  sem_signal %ready, 1 {device = %to}\n"
         "  sem_wait %ready, 1\n"
         "  dma_start %x -> %y, %recv src_sem %send {device = %to}\n"
         "  dma_wait %x -> %y, %recv src_sem %send {device = %to}\n"
         "}\n";
}

TEST(DevicesTest, RingPermuteOnOneToEightChips) {
  constexpr int kBlock = 8 * 128;
  for (int n : {1, 2, 4, 8}) {
    for (int dir : {1, n - 1}) {
      std::vector<int32_t> x = Iota(static_cast<size_t>(n) * kBlock, 3);
      std::vector<int32_t> want(x.size());
      for (int d = 0; d < n; ++d) {
        int from = ((d - dir) % n + n) % n;  // the chip that sends to d
        std::copy_n(x.begin() + from * kBlock, kBlock, want.begin() + d * kBlock);
      }
      for (int threads : {1, 2}) {
        for (DmaMode dma : {DmaMode::kEager, DmaMode::kOnWait}) {
          SCOPED_TRACE(std::to_string(n) + " chips, dir " + std::to_string(dir) + ", " + std::to_string(threads) +
                       " threads");
          testing::Run run = RunText(Ring(n, dir), {{"x", Bytes(x)}}, {}, Options(threads, dma));
          ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
          EXPECT_EQ(run.As<int32_t>("y"), want);
          EXPECT_EQ(run.stats.subcores, n);
          EXPECT_EQ(run.stats.dma_bytes, int64_t{n} * kBlock * 4);
        }
      }
    }
  }
}

TEST(DevicesTest, SeededInterleavingsGiveTheSameBytes) {
  std::vector<int32_t> x = Iota(4 * 4 * 16 * 128);
  std::vector<float> xf(x.begin(), x.end());
  testing::Run first = RunFile("examples/all_to_all.scir", {{"x", Bytes(xf)}}, {}, Options(1, DmaMode::kOnWait));
  ASSERT_TRUE(first.ok()) << first.status << first.Findings();
  for (uint64_t seed : {1u, 2u, 3u}) {
    testing::Run again = RunFile("examples/all_to_all.scir", {{"x", Bytes(xf)}}, {}, Options(2, DmaMode::kOnWait, seed));
    ASSERT_TRUE(again.ok()) << again.Findings();
    EXPECT_EQ(again.params.at("y"), first.params.at("y"));
  }
}

// examples/all_to_all.scir: y[j, s] = x[s, j], blocks of 16x128 f32.
TEST(DevicesTest, AllToAllMovesEveryBlockToItsChip) {
  constexpr int kChips = 4, kBlock = 16 * 128;
  std::vector<float> x(kChips * kChips * kBlock);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 977) * 0.5f - 3.25f;
  std::vector<float> want(x.size());
  for (int j = 0; j < kChips; ++j) {
    for (int s = 0; s < kChips; ++s) {
      std::copy_n(x.begin() + (s * kChips + j) * kBlock, kBlock, want.begin() + (j * kChips + s) * kBlock);
    }
  }
  testing::Run run = RunFile("examples/all_to_all.scir", {{"x", Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  EXPECT_EQ(run.As<float>("y"), want);
  EXPECT_EQ(run.stats.subcores, kChips * 2);
}

// examples/mpmd_reduce_scatter.scir: acc[d, c, 1] = sum over chips s of
// x[s, c, d], its scalar and vector parts signalling each other's semaphores;
// the same on both engines, on 1 and 2 threads, and under seeds.
TEST(DevicesTest, MpmdReduceScatterSumsEveryChipsPart) {
  constexpr int kChips = 4, kCores = 2, kLen = 64;
  std::vector<int32_t> x(kChips * kCores * kChips * kLen);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>((i * 2654435761u) % 2001) - 1000;
  std::vector<int32_t> want(kChips * kCores * kLen);
  for (int d = 0; d < kChips; ++d) {
    for (int c = 0; c < kCores; ++c) {
      for (int e = 0; e < kLen; ++e) {
        int32_t sum = 0;
        for (int s = 0; s < kChips; ++s) sum += x[((s * kCores + c) * kChips + d) * kLen + e];
        want[(d * kCores + c) * kLen + e] = sum;
      }
    }
  }
  for (Engine engine : {Engine::kJit, Engine::kInterp}) {
    CompileOptions compile;
    compile.engine = engine;
    for (int threads : {1, 2}) {
      for (std::optional<uint64_t> seed : {std::optional<uint64_t>(), std::optional<uint64_t>(5)}) {
        testing::Run run = RunFile("examples/mpmd_reduce_scatter.scir", {{"x", Bytes(x)}}, compile,
                                   Options(threads, DmaMode::kOnWait, seed));
        ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
        std::vector<int32_t> acc = run.As<int32_t>("acc");
        std::vector<int32_t> got;
        for (int d = 0; d < kChips; ++d) {
          for (int c = 0; c < kCores; ++c) {
            auto block = acc.begin() + ((d * kCores + c) * 2 + 1) * kLen;
            got.insert(got.end(), block, block + kLen);
          }
        }
        EXPECT_EQ(got, want) << threads << " threads";
        EXPECT_EQ(run.stats.subcores, kChips * kCores * 2);
      }
    }
  }
}

// examples/collective_permute_2d.scir: o[4y + x] = x[4y + (x + 3) % 4].
TEST(DevicesTest, PermuteAlongOneAxisOfATwoDimensionalMesh) {
  constexpr int kBlock = 8 * 128;
  std::vector<int32_t> x = Iota(8 * kBlock, 7);
  std::vector<int32_t> want(x.size());
  for (int y = 0; y < 2; ++y) {
    for (int c = 0; c < 4; ++c) {
      std::copy_n(x.begin() + (4 * y + (c + 3) % 4) * kBlock, kBlock, want.begin() + (4 * y + c) * kBlock);
    }
  }
  testing::Run run = RunFile("examples/collective_permute_2d.scir", {{"x", Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.status << run.Findings();
  EXPECT_EQ(run.As<int32_t>("o"), want);
}

// examples/remote_vmem_shared.scir: o[d, s] = x[(d + 1) % 2, (s + 1) % 16] + 1.
TEST(DevicesTest, RemoteCopiesIntoVmemShared) {
  std::vector<int32_t> x = Iota(2 * 16 * 16, 11);
  std::vector<int32_t> want(x.size());
  for (int d = 0; d < 2; ++d) {
    for (int s = 0; s < 16; ++s) {
      for (int l = 0; l < 16; ++l) want[(d * 16 + s) * 16 + l] = x[(((d + 1) % 2) * 16 + (s + 1) % 16) * 16 + l] + 1;
    }
  }
  for (int threads : {1, 3}) {
    testing::Run run = RunFile("examples/remote_vmem_shared.scir", {{"x", Bytes(x)}}, {}, Options(threads, DmaMode::kOnWait));
    ASSERT_TRUE(run.ok()) << run.status << run.Findings();
    EXPECT_EQ(run.As<int32_t>("o"), want);
  }
}

// A device axis named in the attributes is a coordinate; the others are this
// chip's own (Pallas' dict device_id).
TEST(DevicesTest, NamedAxesKeepTheOtherCoordinates) {
  std::string text = R"(kernel @k(out %o: hbm<16xi32>)
    mesh scalar(cores = 1)
    devices(y = 2, x = 3)
    scratch(%buf: smem<16xi32>, %send: dma_sem, %recv: dma_sem)
{
  %y = axis_index y : i32
  %x = axis_index x : i32
  %ny = axis_size y : i32
  %nx = axis_size x : i32
  %ten = mul %y, 10 : i32
  %id = add %ten, %x : i32
  store %buf[0], %id
  store %buf[1], %ny
  store %buf[2], %nx
  %x1 = add %x, 1 : i32
  %to = rem %x1, %nx : i32
  dma_start %buf[0:3] -> %o[0:3], %recv src_sem %send {x = %to}
  dma_wait %buf[0:3] -> %o[0:3], %recv src_sem %send {x = %to}
}
)";
  testing::Run run = RunText(text);
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  std::vector<int32_t> o = run.As<int32_t>("o");
  ASSERT_EQ(o.size(), 6u * 16);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) {
      int chip = 3 * y + x, from = 3 * y + (x + 2) % 3;  // the chip on its left in its row
      SCOPED_TRACE(chip);
      EXPECT_EQ(o[chip * 16 + 0], 10 * y + (from % 3));
      EXPECT_EQ(o[chip * 16 + 1], 2);
      EXPECT_EQ(o[chip * 16 + 2], 3);
    }
  }
}

TEST(DevicesTest, ADeviceIdOutsideTheMeshIsAFinding) {
  std::string ring = Ring(4, 1);
  std::string bad = ring;
  bad.replace(bad.find("sem_signal %ready, 1 {device = %to}"), 35, "sem_signal %ready, 1 {device = %me1}");
  testing::Run run = RunText(bad);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.Findings(),
            "test.scir:10:14: error[RT-BOUNDS]: sem_signal %ready: device id 4 is outside the 4 devices of the mesh "
            "(devices(x = 4))\n"
            "   10 |   sem_signal %ready, 1 {device = %me1}\n"
            "      |              ^~~~~~\n"
            "note: in kernel @ring, scalar subcore (device 3, core 0)\n");

  std::string coord = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh scalar(cores = 1)
    devices(y = 2, x = 2)
    scratch(%send: dma_sem, %recv: dma_sem)
{
  %far = const 2 : i32
  dma_start %x -> %o, %recv src_sem %send {y = %far}
  dma_wait %x -> %o, %recv src_sem %send {y = %far}
}
)";
  run = RunText(coord);
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.findings.size(), 1u) << run.Findings();
  EXPECT_EQ(run.findings[0].code, "RT-BOUNDS");
  EXPECT_EQ(run.findings[0].message,
            "dma_start %x -> %o: coordinate 2 on device axis 'y' is outside its 2 devices (devices(y = 2, x = 2))");
  EXPECT_EQ(run.findings[0].notes.back(),
            "in kernel @k, 4 scalar subcores: devices 0–3 core 0");
}

// A remote copy carries the init state: unwritten bytes land unwritten on the
// other chip (no finding), and decide nothing there either.
TEST(DevicesTest, ARemoteCopyCarriesTheInitState) {
  std::string text = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    devices(x = 2)
    scratch(%buf: vmem<16xi32>, %back: vmem<16xi32>, %send: dma_sem, %recv: dma_sem)
{
  %me = axis_index x : i32
  %n = sub 1, %me : i32
  dma_start %buf -> %o, %recv src_sem %send {x = %n}
  dma_wait %buf -> %o, %recv src_sem %send {x = %n}
  copy %o -> %back
  %v = get %back : vector<16xi32>
  %i = extract %v[0] : i32
  %w = get %back[ds(%i, 16)] : vector<16xi32>
}
)";
  testing::Run run = RunText(text);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.Findings(),
            "test.scir:13:21: error[RT-INIT]: the slice start of get %back[ds(%i, 16)] is unwritten: %i was read "
            "from %back[0] at test.scir:11:8, which nothing has written\n"
            "   13 |   %w = get %back[ds(%i, 16)] : vector<16xi32>\n"
            "      |                     ^~\n"
            "note: in kernel @k, 2 subcores: devices 0–1 core 0 subcore 0\n"
            "help: write the bytes before they decide anything, or keep only the lanes that hold values (jnp.where "
            "with a mask of them)\n");
  // What a remote copy writes counts as written on the chip it lands on.
  std::string fixed = text;
  fixed.replace(fixed.find("  dma_start"), 0, "  copy %x -> %buf\n");
  run = RunText(fixed);
  EXPECT_TRUE(run.ok()) << run.status << run.Findings();
}

TEST(DevicesTest, RemoteCopiesRaceWithWhatTheyAreNotOrderedWith) {
  // Chips 0 and 1 copy different bytes into chip 2's %o, unordered.
  std::string text = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh scalar(cores = 1)
    devices(x = 3)
    scratch(%send: dma_sem, %recv: dma_sem)
{
  %me = axis_index x : i32
  %two = const 2 : i32
  %sender = cmp lt %me, %two : i1
  if %sender {
    dma_start %x -> %o, %recv src_sem %send {device = 2}
    dma_wait %x -> %o, %send                     // wait_send: nothing comes back
  } else {
    dma_wait %x -> %o, %recv                     // wait_recv, once per sender
    dma_wait %x -> %o, %recv
  }
}
)";
  std::vector<int32_t> x = Iota(3 * 16);
  testing::Run run = RunText(text, {{"x", Bytes(x)}});
  ExpectRace(run,
             "dma_start %x -> %o writes %o[0] of device 2 while the DMA of dma_start at test.scir:10:5 on scalar "
             "subcore (device 0, core 0) may still be writing it",
             "the other DMA (dma_start %x -> %o, retired by dma_wait at test.scir:11:5) and this one are not "
             "ordered: they run on different chips, which a barrier does not order; a semaphore signal and wait "
             "between them would");
  // Identical bytes are no race (runtime.md §5).
  std::vector<int32_t> same(3 * 16, 7);
  run = RunText(text, {{"x", Bytes(same)}});
  EXPECT_TRUE(run.ok()) << run.Findings();

  // The receiver reads what lands before its semaphore says it has.
  std::string early = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh scalar(cores = 1)
    devices(x = 2)
    scratch(%buf: smem<16xi32>, %send: dma_sem, %recv: dma_sem, %sem: dma_sem)
{
  %me = axis_index x : i32
  %zero = const 0 : i32
  %first = cmp eq %me, %zero : i1
  if %first {
    dma_start %x -> %o, %recv src_sem %send {device = 1}
    dma_wait %x -> %o, %send
  } else {
    copy %x -> %o
    copy %o -> %buf
    dma_wait %x -> %o, %recv
  }
}
)";
  run = RunText(early, {{"x", Bytes(Iota(2 * 16))}});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_FALSE(run.findings.empty());
  EXPECT_EQ(run.findings[0].code, "RT-RACE") << run.Findings();
}

// A remote copy reads its source until the sender's wait on %send (Pallas'
// wait_send): writing the source before then races with it, in HBM as in the
// sender's VMEM, and after that wait it does not.
TEST(DevicesTest, ASendersSourceIsReadUntilItsSendWait) {
  auto kernel = [](const std::string& source, const std::string& rewrite, bool wait_first) {
    std::string send = "  dma_start " + source + " -> %y, %recv src_sem %send {device = %to}\n";
    std::string wait = "  dma_wait " + source + " -> %y, %send\n";
    return "kernel @k(in %x: hbm<16xi32>, out %t: hbm<16xi32>, out %y: hbm<16xi32>)\n"
           "    mesh vector(cores = 1, subcores = 1)\n"
           "    devices(x = 2)\n"
           "    scratch(%buf: vmem<16xi32>, %ready: sem, %send: dma_sem, %recv: dma_sem)\n"
           "{\n"
           "  %me = axis_index x : i32\n"
           "  %me1 = add %me, 1 : i32\n"
           "  %to = rem %me1, 2 : i32\n"
           "  copy %x -> %t\n"
           "  copy %x -> %buf\n"
           "  sem_signal %ready, 1 {device = %to}\n"
           "  sem_wait %ready, 1\n" +
           send + (wait_first ? wait + rewrite : rewrite + wait) +
           "  dma_wait " + source + " -> %y, %recv\n"
           "}\n";
  };
  const std::string store = "  %c7 = const 7 : i32\n  %seven = broadcast %c7 : vector<16xi32>\n  store %buf[ds(0, 16)], %seven\n";
  // (Other bytes than %t holds: a write of the same bytes would not change what
  // the send reads, and is no race.)
  const std::string copy = store + "  copy %buf -> %t\n";
  std::vector<int32_t> x = Iota(2 * 16);
  testing::Run run = RunText(kernel("%t", copy, false), {{"x", Bytes(x)}});
  ExpectRace(run,
             "copy %buf -> %t writes %t[0] of device 0 while the DMA of dma_start at test.scir:13:3 on subcore "
             "(device 0, core 0, subcore 0) may still be reading it",
             "the other DMA (dma_start %t -> %y, a remote copy, done at its sender's wait on the send semaphore or its "
             "receiver's on the receive one) and this one are not ordered: its wait, before this op, would order them");
  run = RunText(kernel("%buf", store, false), {{"x", Bytes(x)}});
  ExpectRace(run,
             "store writes %buf[0] while the DMA of dma_start at test.scir:13:3 may still be reading it");
  // After the wait the copy has read its source: each chip's %y is its left
  // neighbour's %x.
  for (const auto& [source, rewrite] : {std::pair{"%t", copy}, std::pair{"%buf", store}}) {
    run = RunText(kernel(source, rewrite, true), {{"x", Bytes(x)}});
    ASSERT_TRUE(run.ok()) << source << ": " << run.Findings();
    std::vector<int32_t> y(2 * 16);
    for (int d = 0; d < 2; ++d) {
      for (int i = 0; i < 16; ++i) y[d * 16 + i] = x[(1 - d) * 16 + i];
    }
    EXPECT_EQ(run.As<int32_t>("y"), y) << source;
  }
}

// A remote copy's destination is written until its receiver's wait on %recv
// (or its sender's on %send): the receiver reading its VMEM before that races
// with it, though the bytes have landed; and a chip the sender signals after
// the dma_start is not ordered after the copy's writes.
TEST(DevicesTest, ARemoteCopysDestinationIsWrittenUntilAWaitRetiresIt) {
  auto receive = [](bool wait_first) {
    std::string wait = "    dma_wait %x -> %buf, %recv\n";
    std::string read = "    %v = get %buf[ds(0, 16)] : vector<16xi32>\n    store %buf2[ds(0, 16)], %v\n";
    return "kernel @k(in %x: hbm<16xi32>, out %y: hbm<16xi32>)\n"
           "    mesh vector(cores = 1, subcores = 1)\n"
           "    devices(x = 2)\n"
           "    scratch(%buf: vmem<16xi32>, %buf2: vmem<16xi32>, %sent: sem, %send: dma_sem, %recv: dma_sem)\n"
           "{\n"
           "  %me = axis_index x : i32\n"
           "  %zero = const 0 : i32\n"
           "  %first = cmp eq %me, %zero : i1\n"
           "  if %first {\n"
           "    dma_start %x -> %buf, %recv src_sem %send {device = 1}\n"
           "    dma_wait %x -> %buf, %send\n"
           "    sem_signal %sent, 1 {device = 1}\n"
           "  } else {\n"
           "    sem_wait %sent, 1\n" +
           (wait_first ? wait + read : read + wait) +
           "    copy %buf2 -> %y\n"
           "  }\n"
           "}\n";
  };
  std::vector<int32_t> x = Iota(2 * 16);
  testing::Run run = RunText(receive(false), {{"x", Bytes(x)}});
  ExpectRace(run,
             "get reads %buf[0] while the DMA of dma_start at test.scir:10:5 may still be writing it");
  run = RunText(receive(true), {{"x", Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.Findings();
  std::vector<int32_t> y = run.As<int32_t>("y");
  EXPECT_EQ(std::vector<int32_t>(y.begin() + 16, y.end()), std::vector<int32_t>(x.begin(), x.begin() + 16));

  // Chip 2 learns of chip 0's copy into chip 1's %o from a signal sent after
  // its dma_start, not from a wait that retired it: its own copy into the
  // same bytes races with it.
  std::string third = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh scalar(cores = 1)
    devices(x = 3)
    scratch(%go: sem, %send: dma_sem, %recv: dma_sem)
{
  %me = axis_index x : i32
  %zero = const 0 : i32
  %two = const 2 : i32
  %is0 = cmp eq %me, %zero : i1
  %is2 = cmp eq %me, %two : i1
  if %is0 {
    dma_start %x -> %o, %recv src_sem %send {device = 1}
    sem_signal %go, 1 {device = 2}
    dma_wait %x -> %o, %send
  }
  if %is2 {
    sem_wait %go, 1
    dma_start %x -> %o, %recv src_sem %send {device = 1}
    dma_wait %x -> %o, %send
  }
  %one = const 1 : i32
  %is1 = cmp eq %me, %one : i1
  if %is1 {
    dma_wait %x -> %o, %recv
    dma_wait %x -> %o, %recv
  }
}
)";
  run = RunText(third, {{"x", Bytes(Iota(3 * 16))}});
  ExpectRace(run,
             "dma_start %x -> %o writes %o[0] of device 1 while the DMA of dma_start at test.scir:12:5 on scalar "
             "subcore (device 0, core 0) may still be writing it");
}

TEST(DevicesTest, ADeadlockAcrossChipsNamesEachChip) {
  std::string ring = Ring(2, 1);
  std::string bad = ring;
  bad.replace(bad.find("  sem_signal %ready, 1 {device = %to}\n"), 38, "");
  testing::Run run = RunText(bad);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.Findings(),
            "test.scir:10:12: error[RT-DEADLOCK]: kernel @ring cannot progress: 2 subcores are blocked\n"
            "   10 |   sem_wait %ready, 1\n"
            "      |            ^~~~~~\n"
            "note: scalar subcore (device 0, core 0) waits in sem_wait at test.scir:10:12: %ready holds 0, needs 1\n"
            "note: scalar subcore (device 1, core 0) waits in sem_wait at test.scir:10:12: %ready holds 0, needs 1\n");
}

// On several chips a debug_print line names its chip, in launch order.
TEST(DevicesTest, PrintsNameTheirChip) {
  std::string ring = Ring(2, 1);
  ring.replace(ring.find("  sem_wait %ready, 1\n"), 0, "  debug_print \"me\" %me\n");
  testing::Run run = RunText(ring);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.log,
            "[device 0, core 0, subcore 0] me, data: s32[1]: 0\n"
            "[device 1, core 0, subcore 0] me, data: s32[1]: 1\n");
}

TEST(DevicesTest, ParametersTakeALeadingDeviceAxis) {
  absl::StatusOr<Kernel> k = Compiler().Compile(Source{"k.scir", Ring(4, 1)});
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->devices(), 4);
  EXPECT_EQ(k->param("x")->shape, (std::vector<int64_t>{4, 8, 128}));
  EXPECT_EQ(k->param("x")->type, "hbm<8x128xi32> on each of 4 devices");
  absl::StatusOr<Buffer> one = Buffer::Allocate(DType::kI32, {8, 128});
  absl::StatusOr<Buffer> y = Buffer::Allocate(DType::kI32, {4, 8, 128});
  ASSERT_TRUE(one.ok() && y.ok());
  absl::StatusOr<LaunchResult> r = k->Launch(Args{{"x", *one}, {"y", *y}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "error[IO-SHAPE]: shape mismatch for %x (hbm<8x128xi32> on each of 4 devices): the kernel expects (4, 8, "
            "128), the buffer bound to it has (8, 128)");
}

// --- The language: the devices clause, axes, device ids and their rules ---------

std::string WithBody(const std::string& header_extra, const std::string& body) {
  return "kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)\n"
         "    mesh scalar(cores = 1)\n" +
         header_extra +
         "    scratch(%send: dma_sem, %recv: dma_sem, %rs: sem, %sends: dma_sem<2>)\n"
         "{\n" +
         body + "}\n";
}

TEST(DevicesLanguageTest, TheDevicesClause) {
  Checked c = Check(WithBody("    devices(core = 2)\n", ""));
  EXPECT_EQ(c.codes, std::vector<std::string>{"IR-KERNEL"});
  EXPECT_NE(c.diagnostics.find("a device axis cannot be named 'core': that is an axis of the subcore mesh"),
            std::string::npos)
      << c.diagnostics;
  c = Check(WithBody("    devices(x = 2, x = 3)\n", ""));
  EXPECT_NE(c.diagnostics.find("k.scir:3:20: error[IR-KERNEL]: device axis 'x' is given twice"), std::string::npos)
      << c.diagnostics;
  c = Check(WithBody("    devices(x = 0)\n", ""));
  EXPECT_NE(c.diagnostics.find("device axis 'x' needs at least one device, got 0"), std::string::npos)
      << c.diagnostics;
  c = Check(WithBody("    devices(x = 64, y = 65)\n", ""));
  EXPECT_EQ(c.codes, std::vector<std::string>{"IR-LIMIT"});
  EXPECT_NE(c.diagnostics.find("a device mesh has at most 4096 devices"), std::string::npos) << c.diagnostics;
  c = Check(WithBody("    devices()\n", ""));
  EXPECT_EQ(c.codes, std::vector<std::string>{"IR-KERNEL"});
  c = Check(WithBody("    devices(x = 2)\n    devices(y = 2)\n", ""));
  EXPECT_NE(c.diagnostics.find("duplicate 'devices' clause"), std::string::npos) << c.diagnostics;
}

TEST(DevicesLanguageTest, AxesAndDeviceIds) {
  Checked c = Check(WithBody("", "  %i = axis_index x : i32\n"));
  EXPECT_EQ(c.diagnostics,
            "k.scir:5:19: error[IR-OPERAND]: 'axis_index' names axis 'x', which is neither a mesh axis nor a device "
            "axis of kernel @k\n"
            "    5 |   %i = axis_index x : i32\n"
            "      |                   ^\n"
            "help: the kernel's axes are: core, subcore (device axes come from its 'devices' clause)\n");
  // A device axis names an attribute only where `device` is accepted.
  c = Check(WithBody("    devices(x = 2)\n", "  sem_wait %rs, 1 {x = 0}\n"));
  EXPECT_EQ(c.codes, std::vector<std::string>{"IR-ATTR"});
  c = Check(WithBody("    devices(x = 2)\n", "  sem_signal %rs, 1 {device = 1, x = 0}\n"));
  EXPECT_EQ(c.codes, std::vector<std::string>{"IR-ATTR"});
  EXPECT_NE(c.diagnostics.find("'sem_signal' names its device twice"), std::string::npos) << c.diagnostics;
  // Every form, with the core and subcore of Pallas' dict.
  c = Check(WithBody("    devices(y = 2, x = 2)\n",
                   "  %i = axis_index y : i32\n"
                   "  sem_signal %rs, 1 {device = 3}\n"
                   "  sem_signal %rs, 1 {device = [%i, 0]}\n"
                   "  sem_signal %rs, 1 {x = 1, core = 0}\n"
                   "  sem_wait %rs, 3\n"));
  EXPECT_TRUE(c.ok) << c.diagnostics;
}

TEST(DevicesLanguageTest, RemoteCopyRules) {
  std::string devices = "    devices(x = 2)\n";
  // DMA-1: a device id without a send semaphore, and the other way round.
  Checked c = Check(WithBody(devices, "  dma_start %x -> %o, %recv {device = 1}\n  dma_wait %x -> %o, %recv\n"));
  EXPECT_EQ(c.diagnostics,
            "k.scir:6:30: error[DMA-1]: ValueError: Either both or neither `src_sem` and `device_id` can be set.\n"
            "    6 |   dma_start %x -> %o, %recv {device = 1}\n"
            "      |                              ^~~~~~\n"
            "note: the device id makes this a remote copy (make_async_remote_copy), which also needs a send "
            "semaphore\n"
            "help: add `src_sem %send`: a dma_sem of this subcore that the copy credits with the bytes it sent\n");
  c = Check(WithBody(devices, "  dma_start %x -> %o, %recv src_sem %send\n  dma_wait %x -> %o, %recv\n"));
  EXPECT_EQ(c.codes, std::vector<std::string>{"DMA-1"});
  // DMA-6: a send semaphore that is a value; DMA-5: an array of them.
  c = Check(WithBody(devices, "  %i = axis_index x : i32\n  dma_start %x -> %o, %recv src_sem %i {device = 1}\n"));
  EXPECT_EQ(c.codes, std::vector<std::string>{"DMA-6"});
  c = Check(WithBody(devices, "  dma_start %x -> %o, %recv src_sem %sends {device = 1}\n"));
  EXPECT_EQ(c.codes, std::vector<std::string>{"DMA-5"});
  EXPECT_NE(c.diagnostics.find("Cannot signal on a non-()-shaped semaphore: (2,)"), std::string::npos);
  // DMA-8: `.wait()` waits the send semaphore too, which must count bytes.
  c = Check(WithBody(devices, "  dma_start %x -> %o, %recv src_sem %rs {device = 1}\n"
                            "  dma_wait %x -> %o, %recv src_sem %rs {device = 1}\n"));
  EXPECT_EQ(c.codes, std::vector<std::string>{"DMA-8"});
  // SEM-5: device ids are i32.
  c = Check(WithBody(devices, "  %d = const 1 : i16\n  sem_signal %rs, 1 {device = %d}\n  sem_wait %rs, 1\n"));
  EXPECT_EQ(c.codes, std::vector<std::string>{"SEM-5"});
  // DEV-6: a list gives one coordinate per axis.
  c = Check(WithBody("", "  sem_signal %rs, 1 {device = [0]}\n  sem_wait %rs, 1\n"));
  EXPECT_EQ(c.codes, std::vector<std::string>{"DEV-6"});
  EXPECT_NE(c.diagnostics.find("but got 1 ids for a 0D mesh."), std::string::npos) << c.diagnostics;
  EXPECT_NE(c.diagnostics.find("help: drop `device`, or give the kernel a device mesh: `devices(x = 2)`"),
            std::string::npos)
      << c.diagnostics;
}

}  // namespace
}  // namespace scjit
