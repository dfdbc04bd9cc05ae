// Scale and liveness of the emulated machine (runtime.md §3–4): the largest mesh
// (v5p, 4 cores x 16 subcores) with thousands of barriers and semaphore
// handshakes within and across cores, at every thread count and DMA mode;
// reproducible seeded interleavings; RT-DEADLOCK, never a hang, when a launch
// cannot progress. References are written here from the kernels' meaning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tests/kernel_runner.h"

namespace scjit::testing {
namespace {

LaunchOptions With(int threads, DmaMode dma, std::optional<uint64_t> seed = std::nullopt) {
  LaunchOptions o;
  o.threads = threads;
  o.dma = dma;
  o.seed = seed;
  return o;
}

// Each of the 64 subcores, for 40 rounds: signal its twin on the next core,
// wait for the signal of its twin on the previous core, add the round's value
// it read from HBM by DMA, meet its core at a barrier, then signal its
// neighbour subcore on its own core and wait for its other neighbour. That is
// 40 * 64 barriers and 2 * 40 * 64 handshakes.
constexpr const char kHandshakes[] = R"(target "v5p"
kernel @handshakes(in %x: hbm<40x8xi32>, out %o: hbm<64x8xi32>)
    mesh vector(cores = 4, subcores = 16)
    scratch(%cross: sem, %ring: sem, %dsem: dma_sem, %row: vmem<8xi32>, %acc: vmem<8xi32>)
{
  %c = axis_index core : i32
  %s = axis_index subcore : i32
  %nc = axis_size core : i32
  %ns = axis_size subcore : i32
  %c1 = add %c, 1 : i32
  %next_core = rem %c1, %nc : i32
  %s1 = add %s, 1 : i32
  %next_sub = rem %s1, %ns : i32
  %zero = const dense<0> : vector<8xi32>
  store %acc[:], %zero
  for %r = 0 to 40 step 1 {
    sem_signal %cross, 1 {core = %next_core, subcore = %s}
    sem_wait %cross, 1
    dma_start %x[%r, :] -> %row, %dsem
    dma_wait %x[%r, :] -> %row, %dsem
    %v = get %row[:] : vector<8xi32>
    %a = get %acc[:] : vector<8xi32>
    %sum = add %a, %v : vector<8xi32>
    store %acc[:], %sum
    barrier
    sem_signal %ring, 1 {subcore = %next_sub}
    sem_wait %ring, 1
  }
  %me = mul %c, %ns : i32
  %id = add %me, %s : i32
  %a = get %acc[:] : vector<8xi32>
  %idv = broadcast %id : vector<8xi32>
  %out = add %a, %idv : vector<8xi32>
  store %acc[:], %out
  copy %acc -> %o[%id, :]
}
)";

TEST(LivenessTest, HandshakesAcrossCoresAtEveryThreadCountAndMode) {
  std::vector<int32_t> x(40 * 8);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<int32_t>(k * 7 % 101) - 50;
  std::vector<int32_t> want(64 * 8);
  for (int id = 0; id < 64; ++id) {
    for (int l = 0; l < 8; ++l) {
      int32_t sum = id;
      for (int r = 0; r < 40; ++r) sum += x[r * 8 + l];
      want[id * 8 + l] = sum;
    }
  }
  for (int threads : {1, 2, 3, 8}) {
    for (DmaMode dma : {DmaMode::kEager, DmaMode::kOnWait}) {
      for (std::optional<uint64_t> seed : {std::optional<uint64_t>{}, std::optional<uint64_t>{5}}) {
        SCOPED_TRACE(std::to_string(threads) + " threads, " + (dma == DmaMode::kEager ? "eager" : "on_wait") +
                     (seed ? ", seed 5" : ""));
        testing::Run run = RunText(kHandshakes, {{"x", Bytes(x)}}, {}, With(threads, dma, seed));
        ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
        EXPECT_EQ(run.As<int32_t>("o"), want);
        EXPECT_EQ(run.stats.subcores, 64);
        EXPECT_EQ(run.stats.ops.at("barrier"), 64 * 40);
        EXPECT_EQ(run.stats.ops.at("sem_signal"), 2 * 64 * 40);
      }
    }
  }
}

// 16 subcores fetch_and_add into subcore 0's SMEM word at once: the old values
// they see depend on the interleaving. Without a seed it is subcore order; with
// one it is a permutation fixed by the seed, the same at every thread count.
constexpr const char kRace[] = R"(kernel @race(out %o: hbm<16x16xi32>)
    mesh vector(cores = 1, subcores = 16)
    scratch(%w: smem<1xi32>, %v: vmem<16xi32>)
{
  %s = axis_index subcore : i32
  %z = const 0 : i32
  store %w[0], %z
  barrier
  %old = fetch_and_add %w[0], 1 {subcore = 0} : i32
  %ov = broadcast %old : vector<16xi32>
  store %v[:], %ov
  copy %v -> %o[%s, :]
}
)";

std::vector<int32_t> ArrivalOrder(const testing::Run& run) {
  std::vector<int32_t> o = run.As<int32_t>("o"), first;
  for (int s = 0; s < 16; ++s) first.push_back(o[s * 16]);
  return first;
}

TEST(LivenessTest, SeedsGiveReproducibleInterleavings) {
  std::vector<int32_t> in_order(16);
  for (int s = 0; s < 16; ++s) in_order[s] = s;
  for (int threads : {1, 4}) {
    testing::Run run = RunText(kRace, {}, {}, With(threads, DmaMode::kOnWait));
    ASSERT_TRUE(run.ok()) << run.status << run.Findings();
    EXPECT_EQ(ArrivalOrder(run), in_order);
  }
  std::set<std::vector<int32_t>> seen;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<int32_t> order;
    for (int threads : {1, 2, 5}) {
      for (DmaMode dma : {DmaMode::kEager, DmaMode::kOnWait}) {
        testing::Run run = RunText(kRace, {}, {}, With(threads, dma, seed));
        ASSERT_TRUE(run.ok()) << run.status << run.Findings();
        std::vector<int32_t> got = ArrivalOrder(run);
        // Each subcore saw a distinct count: the adds are atomic.
        std::vector<int32_t> sorted = got;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(sorted, in_order);
        if (order.empty()) order = got;
        EXPECT_EQ(got, order) << threads << " threads";
      }
    }
    seen.insert(order);
  }
  EXPECT_GT(seen.size(), 1u) << "six seeds gave one interleaving";
}

// Half the subcores of every core skip the last barrier: each blocked subcore
// is listed with its op and line, at every thread count, with and without a
// seed.
TEST(LivenessTest, BarrierNotEverySubcoreReachesIsADeadlock) {
  const char* text = R"(target "v5p"
kernel @k(in %x: hbm<8xi32>)
    mesh vector(cores = 4, subcores = 16)
{
  %s = axis_index subcore : i32
  for %r = 0 to 200 step 1 {
    barrier
  }
  %odd = rem %s, 2 : i32
  %skip = cmp eq %odd, 1 : i1
  if %skip {
  } else {
    barrier
  }
}
)";
  for (int threads : {1, 2, 7}) {
    for (std::optional<uint64_t> seed : {std::optional<uint64_t>{}, std::optional<uint64_t>{3}}) {
      SCOPED_TRACE(threads);
      testing::Run run = RunText(text, {}, {}, With(threads, DmaMode::kOnWait, seed));
      std::string f = run.Findings();
      EXPECT_EQ(f.substr(0, f.find('\n')),
                "test.scir:13:5: error[RT-DEADLOCK]: kernel @k cannot progress: 32 subcores are blocked");
      for (int c = 0; c < 4; ++c) {
        for (int s = 0; s < 16; s += 2) {
          std::string note = "note: subcore (core " + std::to_string(c) + ", subcore " + std::to_string(s) +
                             ") waits in barrier at test.scir:13:5 (8 subcores of its core have finished without reaching it)";
          EXPECT_NE(f.find(note), std::string::npos) << note << "\n" << f;
        }
      }
      EXPECT_EQ(run.stats.ops.at("barrier"), 64 * 200 + 32);
    }
  }
}

// A semaphore handshake that waits for one signal too many on the last round,
// across cores: the blocked subcores are listed with what they hold and need.
TEST(LivenessTest, MissingSignalAcrossCoresIsADeadlock) {
  const char* text = R"(target "v5p"
kernel @k(in %x: hbm<8xi32>)
    mesh vector(cores = 4, subcores = 1)
    scratch(%s: sem)
{
  %c = axis_index core : i32
  %c1 = add %c, 1 : i32
  %next = rem %c1, 4 : i32
  for %r = 0 to 1000 step 1 {
    sem_signal %s, 1 {core = %next, subcore = 0}
    sem_wait %s, 1
  }
  %last = cmp eq %c, 3 : i1
  if %last {
    sem_wait %s, 1
  }
}
)";
  for (int threads : {1, 3}) {
    testing::Run run = RunText(text, {}, {}, With(threads, DmaMode::kEager));
    EXPECT_EQ(run.Findings(), R"(test.scir:15:14: error[RT-DEADLOCK]: kernel @k cannot progress: 1 subcore is blocked
   15 |     sem_wait %s, 1
      |              ^~
note: subcore (core 3, subcore 0) waits in sem_wait at test.scir:15:14: %s holds 0, needs 1
note: 3 finished: (0, 0), (1, 0), (2, 0)
)") << threads;
  }
}

// Semaphore values (sc-semantics.md §4.6, runtime.md §4): a DMA semaphore counts
// the bytes of the copies that completed (a read completes the pending ones in
// on_wait mode), waits take bytes in any order, and regular semaphores add
// signals and subtract waits.
TEST(LivenessTest, SemaphoreValues) {
  const char* text = R"(kernel @k(in %x: hbm<48xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%d: dma_sem, %r: sem<2>, %a: vmem<16xi32>, %b: vmem<32xi32>, %res: vmem<16xi32>)
{
  %s = axis_index subcore : i32
  %first = cmp eq %s, 0 : i1
  if %first {
    dma_start %x[0:16] -> %a, %d
    dma_start %x[16:48] -> %b, %d
    %v0 = sem_read %d : i32
    dma_wait %x[16:48] -> %b, %d
    %v1 = sem_read %d : i32
    dma_wait %x[0:16] -> %a, %d
    %v2 = sem_read %d : i32
    sem_signal %r[1], 3 {subcore = 1}
    sem_wait %r[0], 1
    %v3 = sem_read %r[0] : i32
    %lane = iota : vector<16xi32>
    %z = const dense<0> : vector<16xi32>
    %e0 = insert %v0, %z[0] : vector<16xi32>
    %e1 = insert %v1, %e0[1] : vector<16xi32>
    %e2 = insert %v2, %e1[2] : vector<16xi32>
    %e3 = insert %v3, %e2[3] : vector<16xi32>
    store %res[:], %e3
    copy %res -> %o
  } else {
    sem_wait %r[1], 2
    %left = sem_read %r[1] : i32
    sem_signal %r[0], 1 {subcore = 0}
    sem_wait %r[1], %left
  }
}
)";
  for (DmaMode dma : {DmaMode::kEager, DmaMode::kOnWait}) {
    for (int threads : {1, 2}) {
      testing::Run run = RunText(text, {}, {}, With(threads, dma));
      ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
      std::vector<int32_t> o = run.As<int32_t>("o");
      EXPECT_EQ(std::vector<int32_t>(o.begin(), o.begin() + 4), (std::vector<int32_t>{192, 64, 0, 0}));
    }
  }
}

}  // namespace
}  // namespace scjit::testing
