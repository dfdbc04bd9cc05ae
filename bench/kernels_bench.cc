// Benchmarks of real kernels through the public API, each beside the plain
// native C++ loop a user would write for the same work, and the compile latency.
//
//   build/bench/scjit_bench --benchmark_format=json > results.json
//
// docs/performance.md records the ratios of one run and how to reproduce them.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/all_to_all.h"
#include "scjit/scjit.h"

namespace scjit {
namespace {

// A kernel of bench/kernels/, or a path from the repository root ("examples/...").
Source KernelFile(const std::string& name) {
  std::string dir = name.find('/') == std::string::npos ? "/bench/kernels/" : "/";
  std::string path = std::string(SCJIT_SOURCE_DIR) + dir + name;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return Source{path, text.str()};
}

// Compiles `file` once per process (the compiler caches it): with every check
// compiled in, or (`checked` false) with none, as `jit-run --unchecked` does; for
// the JIT or the interpreter engine.
Kernel Compiled(const std::string& name, bool checked = false, Engine engine = Engine::kJit, int opt_level = 2) {
  static Compiler* compiler = new Compiler();
  CompileOptions options;
  options.opt_level = opt_level;
  options.engine = engine;
  options.checks = checked ? Checks::All() : Checks::None();
  absl::StatusOr<Kernel> k = compiler->Compile(KernelFile(name), options);
  if (!k.ok()) throw std::runtime_error(std::string(k.status().message()));
  return *k;
}

// The caller's arrays as the kernel's parameters, in order (no copies).
std::vector<Buffer> Buffers(const Kernel& kernel, std::initializer_list<const void*> data) {
  std::vector<Buffer> out;
  auto it = data.begin();
  for (const ParamInfo& p : kernel.params()) {
    absl::StatusOr<Buffer> b = Buffer::Wrap(p.dtype, p.shape, const_cast<void*>(*it++), p.bytes());
    if (!b.ok()) throw std::runtime_error(std::string(b.status().message()));
    out.push_back(*std::move(b));
  }
  return out;
}

LaunchOptions Unchecked(int threads) {
  LaunchOptions o;
  o.threads = threads;
  o.checks = Checks::None();
  o.dma = DmaMode::kEager;
  return o;
}

// The bytes one launch of each streaming workload's DMAs move (LaunchStats::
// dma_bytes; each benchmark checks its launches move this many): BM_DmaMemcpy
// copies as many with the host's memcpy (issue #14: within 1.5x of that).
constexpr int64_t kAddOneDmaBytes = 4194304;         // x in, o out
constexpr int64_t kGatherRowsDmaBytes = 134742016;   // rows in, rows out, index lists
constexpr int64_t kSegmentSumDmaBytes = 17563648;    // rows and ids in, rows added, zeros, sums out

void CheckDmaBytes(benchmark::State& state, const LaunchResult& r, int64_t want) {
  if (r.stats.dma_bytes != want) state.SkipWithError("the kernel's DMAs moved another number of bytes");
}

// Each kernel benchmark's arguments: {threads, checked, interp}. Checked runs
// compile every check in and launch as jit-run does by default (every check on,
// DMAs on wait); unchecked ones as `jit-run --unchecked` (eager DMAs). interp:
// on the interpreter engine (docs/interpreter.md), the in-project peer.
bool CheckedRun(const benchmark::State& state) { return state.range(1) != 0; }
Engine EngineOf(const benchmark::State& state) { return state.range(2) != 0 ? Engine::kInterp : Engine::kJit; }

LaunchOptions RunOptionsOf(const benchmark::State& state) {
  if (!CheckedRun(state)) return Unchecked(static_cast<int>(state.range(0)));
  LaunchOptions o;
  o.threads = static_cast<int>(state.range(0));
  return o;
}

// Registers a kernel benchmark at one and two threads unchecked, and checked.
void KernelArgs(benchmark::internal::Benchmark* b) {
  b->Args({1, 0, 0})->Args({2, 0, 0})->Args({1, 1, 0})->Args({1, 0, 1})->Args({1, 1, 1});
  b->ArgNames({"threads", "checked", "interp"});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

// --- A launch's fixed cost: 16 int32 on one subcore (bench/jax_overhead.py compares
// it with the same kernel called from jax.jit) ---------------------------------------

void BM_TinyLaunch(benchmark::State& state) {
  auto kernel = Compiled("tiny_add_one.scir", /*checked=*/true);
  std::vector<int32_t> x(16, 41), o(16);
  std::vector<Buffer> params = Buffers(kernel, {x.data(), o.data()});
  LaunchOptions options;  // as scjit.jax launches: checked, one host thread per core
  options.threads = 1;
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) state.SkipWithError("launch failed");
  }
  if (o[15] != 42) state.SkipWithError("wrong result");
}
BENCHMARK(BM_TinyLaunch)->Unit(benchmark::kMicrosecond)->UseRealTime();

// --- The host's memcpy of a launch's DMA bytes --------------------------------------

// One memcpy of `bytes` between two buffers of that size, touched once before.
void BM_DmaMemcpy(benchmark::State& state, int64_t bytes) {
  std::vector<uint8_t> src(static_cast<size_t>(bytes), 1), dst(static_cast<size_t>(bytes), 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK_CAPTURE(BM_DmaMemcpy, add_one, kAddOneDmaBytes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_DmaMemcpy, gather_rows, kGatherRowsDmaBytes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_DmaMemcpy, segment_sum, kSegmentSumDmaBytes)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- Add-one over 4096x128 int32 (v7x, 2 cores x 16 subcores) -----------------------

constexpr int64_t kAddOneElements = 4096 * 128;

void AddOneEmulated(benchmark::State& state, const std::string& file) {
  auto kernel = Compiled(file, CheckedRun(state), EngineOf(state));
  std::vector<int32_t> x(kAddOneElements), o(kAddOneElements);
  for (int64_t i = 0; i < kAddOneElements; ++i) x[i] = static_cast<int32_t>(i);
  std::vector<Buffer> params = Buffers(kernel, {x.data(), o.data()});
  LaunchOptions options = RunOptionsOf(state);
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) {
      state.SkipWithError("launch failed");
    } else if (file == "add_one_4096x128.scir") {
      CheckDmaBytes(state, *r, kAddOneDmaBytes);
    }
  }
  if (o[kAddOneElements - 1] != static_cast<int32_t>(kAddOneElements)) state.SkipWithError("wrong result");
  state.SetItemsProcessed(state.iterations() * kAddOneElements);
  state.SetBytesProcessed(state.iterations() * kAddOneElements * 8);  // read x, write o
}

// Software-pipelined by hand (dma_start/dma_wait, three buffers).
void BM_AddOne_Emulated(benchmark::State& state) { AddOneEmulated(state, "add_one_4096x128.scir"); }
BENCHMARK(BM_AddOne_Emulated)->Apply(KernelArgs);

// The same work with the `pipeline` op (the guide's sc_add_one, blocks [8, 128]).
void BM_PipelinedAddOne_Emulated(benchmark::State& state) { AddOneEmulated(state, "examples/pipelined_add_one.scir"); }
BENCHMARK(BM_PipelinedAddOne_Emulated)->Apply(KernelArgs);

// The loop a user would write.
void BM_AddOne_Native(benchmark::State& state) {
  std::vector<int32_t> x(kAddOneElements), o(kAddOneElements);
  for (int64_t i = 0; i < kAddOneElements; ++i) x[i] = static_cast<int32_t>(i);
  for (auto _ : state) {
    for (int64_t i = 0; i < kAddOneElements; ++i) o[i] = x[i] + 1;
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kAddOneElements);
  state.SetBytesProcessed(state.iterations() * kAddOneElements * 8);
}
BENCHMARK(BM_AddOne_Native)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- Barrier-heavy exchange (v7x, 2 x 16 subcores, 1000 rounds, 2 barriers each) ----

constexpr int kRounds = 1000;

std::vector<int32_t> ExchangeReference(const std::vector<int32_t>& x) {
  std::vector<int32_t> v = x, next(v.size());
  for (int round = 0; round < kRounds; ++round) {
    for (int core = 0; core < 2; ++core) {
      for (int s = 0; s < 16; ++s) {
        int n = core * 16 + (s + 1) % 16;
        for (int l = 0; l < 16; ++l) {
          uint32_t mixed = static_cast<uint32_t>(v[(core * 16 + s) * 16 + l] ^ v[n * 16 + l]) + 1u;
          next[(core * 16 + s) * 16 + l] = static_cast<int32_t>(mixed);
        }
      }
    }
    v.swap(next);
  }
  return v;
}

void BM_Exchange_Emulated(benchmark::State& state) {
  auto kernel = Compiled("exchange.scir", CheckedRun(state), EngineOf(state));
  std::vector<int32_t> x(32 * 16), o(32 * 16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i * 2654435761u);
  std::vector<Buffer> params = Buffers(kernel, {x.data(), o.data()});
  LaunchOptions options = RunOptionsOf(state);
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) state.SkipWithError("launch failed");
  }
  if (o != ExchangeReference(x)) state.SkipWithError("wrong result");
  state.SetItemsProcessed(state.iterations() * kRounds * 2 * 32);  // barrier arrivals
}
BENCHMARK(BM_Exchange_Emulated)->Apply(KernelArgs);

void BM_Exchange_Native(benchmark::State& state) {
  std::vector<int32_t> x(32 * 16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i * 2654435761u);
  for (auto _ : state) {
    std::vector<int32_t> v = ExchangeReference(x);
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * kRounds * 2 * 32);
}
BENCHMARK(BM_Exchange_Native)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- Gather-and-reduce (v7x, 2 x 16 subcores, 256 index vectors each) ----------------

constexpr int kWorkers = 32, kBags = 256, kTableRows = 1024;

struct GatherReduceData {
  std::vector<float> table = std::vector<float>(kTableRows * 16);
  std::vector<int32_t> idx = std::vector<int32_t>(kWorkers * kBags * 16);
  GatherReduceData() {
    uint32_t s = 1;
    auto next = [&] { return s = s * 1664525u + 1013904223u; };
    for (float& t : table) t = static_cast<float>(static_cast<int32_t>(next() >> 8)) / 65536.0f;
    for (int32_t& i : idx) i = static_cast<int32_t>((next() >> 8) % kTableRows);
  }
};

// The loop a user would write: each bag sums its 16 rows, row by row (the same
// left-to-right order per column as the kernel's reduce_sum).
void GatherReduceNative(const GatherReduceData& d, float* o) {
  for (int b = 0; b < kWorkers * kBags; ++b) {
    float acc[16];
    for (float& a : acc) a = -0.0f;
    for (int i = 0; i < 16; ++i) {
      const float* row = &d.table[d.idx[b * 16 + i] * 16];
      for (int c = 0; c < 16; ++c) acc[c] += row[c];
    }
    std::memcpy(o + b * 16, acc, sizeof(acc));
  }
}

void BM_GatherReduce_Emulated(benchmark::State& state) {
  auto kernel = Compiled("gather_reduce.scir", CheckedRun(state), EngineOf(state));
  GatherReduceData d;
  std::vector<float> o(kWorkers * kBags * 16), want(o.size());
  std::vector<Buffer> params = Buffers(kernel, {d.table.data(), d.idx.data(), o.data()});
  LaunchOptions options = RunOptionsOf(state);
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) state.SkipWithError("launch failed");
  }
  GatherReduceNative(d, want.data());
  if (std::memcmp(o.data(), want.data(), o.size() * 4) != 0) state.SkipWithError("wrong result");
  state.SetItemsProcessed(state.iterations() * kWorkers * kBags * 16 * 16);  // elements gathered
}
BENCHMARK(BM_GatherReduce_Emulated)->Apply(KernelArgs);

void BM_GatherReduce_Native(benchmark::State& state) {
  GatherReduceData d;
  std::vector<float> o(kWorkers * kBags * 16);
  for (auto _ : state) {
    GatherReduceNative(d, o.data());
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kWorkers * kBags * 16 * 16);
}
BENCHMARK(BM_GatherReduce_Native)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- Scatter-add into a 4096-bin VMEM table (v7x, 2 x 16 subcores, 512 x 16 each) ----

constexpr int kVectors = 512, kBins = 4096;

struct ScatterAddData {
  std::vector<int32_t> idx = std::vector<int32_t>(kWorkers * kVectors * 16);
  std::vector<float> x = std::vector<float>(idx.size());
  explicit ScatterAddData(int bins) {  // indices drawn from the first `bins` bins
    uint32_t s = 2;
    auto next = [&] { return s = s * 1664525u + 1013904223u; };
    for (int32_t& i : idx) i = static_cast<int32_t>((next() >> 8) % bins);
    for (float& v : x) v = static_cast<float>(static_cast<int32_t>(next() >> 8)) / 4096.0f;
  }
};

void ScatterAddNative(const ScatterAddData& d, float* o) {
  for (int w = 0; w < kWorkers; ++w) {
    float* h = o + w * kBins;
    std::memset(h, 0, kBins * 4);
    for (int k = 0; k < kVectors * 16; ++k) h[d.idx[w * kVectors * 16 + k]] += d.x[w * kVectors * 16 + k];
  }
}

// Args: the number of bins the indices use (4096: few lanes collide; 16: most
// do), checked and interp (one thread).
void BM_ScatterAdd_Emulated(benchmark::State& state) {
  auto kernel = Compiled("scatter_add.scir", CheckedRun(state), EngineOf(state));
  ScatterAddData d(static_cast<int>(state.range(0)));
  std::vector<float> o(kWorkers * kBins), want(o.size());
  std::vector<Buffer> params = Buffers(kernel, {d.idx.data(), d.x.data(), o.data()});
  LaunchOptions options = CheckedRun(state) ? LaunchOptions{} : Unchecked(1);
  options.threads = 1;
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) state.SkipWithError("launch failed");
  }
  ScatterAddNative(d, want.data());
  if (std::memcmp(o.data(), want.data(), o.size() * 4) != 0) state.SkipWithError("wrong result");
  state.SetItemsProcessed(state.iterations() * kWorkers * kVectors * 16);
}
BENCHMARK(BM_ScatterAdd_Emulated)
    ->Args({4096, 0, 0})
    ->Args({16, 0, 0})
    ->Args({4096, 1, 0})
    ->Args({4096, 0, 1})
    ->Args({4096, 1, 1})
    ->ArgNames({"bins", "checked", "interp"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_ScatterAdd_Native(benchmark::State& state) {
  ScatterAddData d(static_cast<int>(state.range(0)));
  std::vector<float> o(kWorkers * kBins);
  for (auto _ : state) {
    ScatterAddNative(d, o.data());
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kWorkers * kVectors * 16);
}
BENCHMARK(BM_ScatterAdd_Native)->Arg(4096)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- Histogram of 1M u32 in [0, 256) (v7x, 2 x 16 subcores, a private histogram each) --

constexpr int64_t kHistValues = 1 << 20, kHistBins = 256;
constexpr int64_t kHistPerWorker = kHistValues / kWorkers;

std::vector<uint32_t> HistogramInput() {
  std::vector<uint32_t> x(kHistValues);
  uint32_t s = 4;
  for (uint32_t& v : x) v = ((s = s * 1664525u + 1013904223u) >> 8) % kHistBins;
  return x;
}

// Each worker's 32768 values into its own 256 bins, as the kernel's output.
void HistogramNative(const std::vector<uint32_t>& x, int32_t* o) {
  std::memset(o, 0, kWorkers * kHistBins * 4);
  for (int64_t w = 0; w < kWorkers; ++w) {
    int32_t* h = o + w * kHistBins;
    for (int64_t k = 0; k < kHistPerWorker; ++k) ++h[x[w * kHistPerWorker + k]];
  }
}

void BM_Histogram_Emulated(benchmark::State& state) {
  auto kernel = Compiled("histogram_1m.scir", CheckedRun(state), EngineOf(state));
  std::vector<uint32_t> x = HistogramInput();
  std::vector<int32_t> o(kWorkers * kHistBins), want(o.size());
  std::vector<Buffer> params = Buffers(kernel, {x.data(), o.data()});
  LaunchOptions options = RunOptionsOf(state);
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) state.SkipWithError("launch failed");
  }
  HistogramNative(x, want.data());
  if (o != want) state.SkipWithError("wrong result");
  state.SetItemsProcessed(state.iterations() * kHistValues);
}
BENCHMARK(BM_Histogram_Emulated)->Apply(KernelArgs);

void BM_Histogram_Native(benchmark::State& state) {
  std::vector<uint32_t> x = HistogramInput();
  std::vector<int32_t> o(kWorkers * kHistBins);
  for (auto _ : state) {
    HistogramNative(x, o.data());
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kHistValues);
}
BENCHMARK(BM_Histogram_Native)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- Segment sum: 131072 rows of 16 f32 into 1024 segments per core (v7x, 2 x 16,
// adding DMAs into VMEM_SHARED, barriers) ---------------------------------------------

constexpr int64_t kSegRows = 131072, kSegWidth = 16, kSegments = 1024;

struct SegmentData {
  std::vector<float> x = std::vector<float>(kSegRows * kSegWidth);
  std::vector<int32_t> ids = std::vector<int32_t>(kSegRows);
  SegmentData() {  // integer-valued floats: the sums are exact in any order
    uint32_t s = 5;
    auto next = [&] { return s = s * 1664525u + 1013904223u; };
    for (float& v : x) v = static_cast<float>(static_cast<int32_t>(next() >> 24) - 128);
    for (int32_t& i : ids) i = static_cast<int32_t>((next() >> 8) % kSegments);
  }
};

// Core c sums the rows of its half.
void SegmentSumNative(const SegmentData& d, float* o) {
  std::memset(o, 0, 2 * kSegments * kSegWidth * 4);
  for (int64_t r = 0; r < kSegRows; ++r) {
    float* acc = o + ((r / (kSegRows / 2)) * kSegments + d.ids[r]) * kSegWidth;
    for (int64_t c = 0; c < kSegWidth; ++c) acc[c] += d.x[r * kSegWidth + c];
  }
}

void BM_SegmentSum_Emulated(benchmark::State& state) {
  auto kernel = Compiled("segment_sum_128k.scir", CheckedRun(state), EngineOf(state));
  SegmentData d;
  std::vector<float> o(2 * kSegments * kSegWidth), want(o.size());
  std::vector<Buffer> params = Buffers(kernel, {d.x.data(), d.ids.data(), o.data()});
  LaunchOptions options = RunOptionsOf(state);
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) {
      state.SkipWithError("launch failed");
    } else {
      CheckDmaBytes(state, *r, kSegmentSumDmaBytes);
    }
  }
  SegmentSumNative(d, want.data());
  if (std::memcmp(o.data(), want.data(), o.size() * 4) != 0) state.SkipWithError("wrong result");
  state.SetItemsProcessed(state.iterations() * kSegRows);
  state.SetBytesProcessed(state.iterations() * kSegRows * (kSegWidth * 4 + 4));
}
BENCHMARK(BM_SegmentSum_Emulated)->Apply(KernelArgs);

void BM_SegmentSum_Native(benchmark::State& state) {
  SegmentData d;
  std::vector<float> o(2 * kSegments * kSegWidth);
  for (auto _ : state) {
    SegmentSumNative(d, o.data());
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kSegRows);
  state.SetBytesProcessed(state.iterations() * kSegRows * (kSegWidth * 4 + 4));
}
BENCHMARK(BM_SegmentSum_Native)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- Many chips: a 64-chip all-to-all of embedding rows (issue #15) -------------------

using bench::AllToAllInput;
using bench::AllToAllNative;
using bench::kAllToAllBytes;
using bench::kChips;

void BM_AllToAll64_Emulated(benchmark::State& state) {
  auto kernel = Compiled("all_to_all_64.scir", CheckedRun(state), EngineOf(state));
  std::vector<float> x = AllToAllInput(), y(x.size()), want(x.size());
  AllToAllNative(x.data(), want.data());
  std::vector<Buffer> params = Buffers(kernel, {x.data(), y.data()});
  LaunchOptions options = RunOptionsOf(state);
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) state.SkipWithError("launch failed");
    if (r.ok()) CheckDmaBytes(state, *r, kAllToAllBytes);
  }
  if (y != want) state.SkipWithError("wrong result");
  state.SetBytesProcessed(state.iterations() * kAllToAllBytes);
  state.counters["remote_dmas"] = kChips * kChips * 2;
}
BENCHMARK(BM_AllToAll64_Emulated)
    ->Args({1, 0, 0})->Args({2, 0, 0})->Args({1, 1, 0})->Args({1, 0, 1})
    ->ArgNames({"threads", "checked", "interp"})->Unit(benchmark::kMillisecond)->UseRealTime();

using bench::BM_AllToAll64_Native;
BENCHMARK(BM_AllToAll64_Native)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- Indirect DMAs: the guide's gather and a scatter-add of rows (v7x, 2 x 16) -------

constexpr int kRowTable = 4096, kRowWidth = 128, kRowIndices = 131072;

struct RowsData {
  std::vector<float> table = std::vector<float>(size_t{kRowTable} * kRowWidth);
  std::vector<float> rows = std::vector<float>(size_t{kRowIndices} * kRowWidth);
  std::vector<int32_t> idx = std::vector<int32_t>(kRowIndices);
  RowsData() {  // integer-valued floats: the scatter-add's sums are exact in any order
    uint32_t s = 3;
    auto next = [&] { return s = s * 1664525u + 1013904223u; };
    for (float& t : table) t = static_cast<float>(static_cast<int32_t>(next() >> 16) - 32768);
    for (float& r : rows) r = static_cast<float>(static_cast<int32_t>(next() >> 24) - 128);
    for (int32_t& i : idx) i = static_cast<int32_t>((next() >> 8) % kRowTable);
  }
};

const RowsData& RowInputs() {
  static const RowsData* data = new RowsData();
  return *data;
}

// The loops a user would write: copy (or add) row idx[i] of one array to row i of
// the other.
void GatherRowsNative(const RowsData& d, float* o) {
  for (int i = 0; i < kRowIndices; ++i) {
    std::memcpy(o + size_t{kRowWidth} * i, &d.table[size_t{kRowWidth} * d.idx[i]], kRowWidth * 4);
  }
}

void ScatterAddRowsNative(const RowsData& d, float* o) {
  std::memcpy(o, d.table.data(), d.table.size() * 4);  // the kernel's table starts as d.table
  for (int i = 0; i < kRowIndices; ++i) {
    float* dst = o + size_t{kRowWidth} * d.idx[i];
    const float* src = &d.rows[size_t{kRowWidth} * i];
    for (int c = 0; c < kRowWidth; ++c) dst[c] += src[c];
  }
}

void GatherRowsEmulated(benchmark::State& state, const std::string& file) {
  auto kernel = Compiled(file, CheckedRun(state), EngineOf(state));
  const RowsData& d = RowInputs();
  std::vector<float> o(size_t{kRowIndices} * kRowWidth), want(o.size());
  std::vector<Buffer> params = Buffers(kernel, {d.table.data(), d.idx.data(), o.data()});
  LaunchOptions options = RunOptionsOf(state);
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) {
      state.SkipWithError("launch failed");
    } else if (file == "gather_rows.scir") {
      CheckDmaBytes(state, *r, kGatherRowsDmaBytes);
    }
  }
  GatherRowsNative(d, want.data());
  if (std::memcmp(o.data(), want.data(), o.size() * 4) != 0) state.SkipWithError("wrong result");
  state.SetBytesProcessed(state.iterations() * int64_t{kRowIndices} * kRowWidth * 4);  // rows delivered
}
// Pipelined by hand (two output buffers in flight).
void BM_GatherRows_Emulated(benchmark::State& state) { GatherRowsEmulated(state, "gather_rows.scir"); }
BENCHMARK(BM_GatherRows_Emulated)->Apply(KernelArgs);

// The guide's kernel as written, with the `pipeline` op.
void BM_GatherPipeline_Emulated(benchmark::State& state) { GatherRowsEmulated(state, "gather_pipeline.scir"); }
BENCHMARK(BM_GatherPipeline_Emulated)->Apply(KernelArgs);

void BM_GatherRows_Native(benchmark::State& state) {
  const RowsData& d = RowInputs();
  std::vector<float> o(size_t{kRowIndices} * kRowWidth);
  for (auto _ : state) {
    GatherRowsNative(d, o.data());
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * int64_t{kRowIndices} * kRowWidth * 4);
}
BENCHMARK(BM_GatherRows_Native)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ScatterAddRows_Emulated(benchmark::State& state) {
  auto kernel = Compiled("scatter_add_rows.scir", CheckedRun(state), EngineOf(state));
  const RowsData& d = RowInputs();
  std::vector<float> o(d.table.size()), want(o.size());
  std::vector<Buffer> params = Buffers(kernel, {d.rows.data(), d.idx.data(), o.data()});
  LaunchOptions options = RunOptionsOf(state);
  for (auto _ : state) {
    std::memcpy(o.data(), d.table.data(), o.size() * 4);  // inout: start from the table
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) state.SkipWithError("launch failed");
  }
  ScatterAddRowsNative(d, want.data());
  if (std::memcmp(o.data(), want.data(), o.size() * 4) != 0) state.SkipWithError("wrong result");
  state.SetBytesProcessed(state.iterations() * int64_t{kRowIndices} * kRowWidth * 4);  // rows added
}
BENCHMARK(BM_ScatterAddRows_Emulated)->Apply(KernelArgs);

void BM_ScatterAddRows_Native(benchmark::State& state) {
  const RowsData& d = RowInputs();
  std::vector<float> o(d.table.size());
  for (auto _ : state) {
    ScatterAddRowsNative(d, o.data());
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * int64_t{kRowIndices} * kRowWidth * 4);
}
BENCHMARK(BM_ScatterAddRows_Native)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- sort_key_val of rows of 16 (key, value) pairs (v7x, 2 x 16 subcores) ----------
//
// sort_rows.scir: 32768 rows, two buffers per array; sort_chunks_1m.scir (issue
// #14's sort_chunks): 65536 rows (1M pairs), three buffers per array.

constexpr int kSortLanes = 16;

struct SortData {
  int rows;
  std::vector<int32_t> keys, vals;
  int64_t elements() const { return int64_t{rows} * kSortLanes; }
};

template <int kRows>
const SortData& SortInputs() {
  static const SortData* data = [] {
    auto* d = new SortData{kRows, std::vector<int32_t>(int64_t{kRows} * kSortLanes),
                           std::vector<int32_t>(int64_t{kRows} * kSortLanes)};
    std::mt19937 rng(1);
    for (int64_t i = 0; i < d->elements(); ++i) {
      d->keys[i] = static_cast<int32_t>(rng() % 1000) - 500;  // negatives and duplicates
      d->vals[i] = static_cast<int32_t>(i);
    }
    return d;
  }();
  return *data;
}

// The loop a user would write: a stable insertion sort of each row's pairs.
void SortRowsNative(const SortData& in, std::vector<int32_t>& keys, std::vector<int32_t>& vals) {
  for (int r = 0; r < in.rows; ++r) {
    const int32_t* k = &in.keys[static_cast<size_t>(r) * kSortLanes];
    const int32_t* v = &in.vals[static_cast<size_t>(r) * kSortLanes];
    int32_t* ok = &keys[static_cast<size_t>(r) * kSortLanes];
    int32_t* ov = &vals[static_cast<size_t>(r) * kSortLanes];
    for (int i = 0; i < kSortLanes; ++i) {
      int j = i;
      for (; j > 0 && ok[j - 1] > k[i]; --j) {
        ok[j] = ok[j - 1];
        ov[j] = ov[j - 1];
      }
      ok[j] = k[i];
      ov[j] = v[i];
    }
  }
}

void SortEmulated(benchmark::State& state, const std::string& file, const SortData& in) {
  auto kernel = Compiled(file, CheckedRun(state), EngineOf(state));
  std::vector<int32_t> keys = in.keys, vals = in.vals, ok(in.elements()), ov(in.elements());
  std::vector<Buffer> params = Buffers(kernel, {keys.data(), vals.data(), ok.data(), ov.data()});
  LaunchOptions options = RunOptionsOf(state);
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed()) state.SkipWithError("launch failed");
  }
  std::vector<int32_t> want_k(in.elements()), want_v(in.elements());
  SortRowsNative(in, want_k, want_v);
  if (ok != want_k || ov != want_v) state.SkipWithError("wrong result");
  state.SetItemsProcessed(state.iterations() * in.rows);
}

void SortNative(benchmark::State& state, const SortData& in) {
  std::vector<int32_t> ok(in.elements()), ov(in.elements());
  for (auto _ : state) {
    SortRowsNative(in, ok, ov);
    benchmark::DoNotOptimize(ok.data());
    benchmark::DoNotOptimize(ov.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * in.rows);
}

void BM_SortRows_Emulated(benchmark::State& state) { SortEmulated(state, "sort_rows.scir", SortInputs<32768>()); }
BENCHMARK(BM_SortRows_Emulated)->Apply(KernelArgs);
void BM_SortRows_Native(benchmark::State& state) { SortNative(state, SortInputs<32768>()); }
BENCHMARK(BM_SortRows_Native)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SortChunks_Emulated(benchmark::State& state) {
  SortEmulated(state, "sort_chunks_1m.scir", SortInputs<65536>());
}
BENCHMARK(BM_SortChunks_Emulated)->Apply(KernelArgs);
void BM_SortChunks_Native(benchmark::State& state) { SortNative(state, SortInputs<65536>()); }
BENCHMARK(BM_SortChunks_Native)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- Compile latency ----------------------------------------------------------------

// Issue #14's six workloads, by index (the `kernel` argument below), and a
// kernel of five ops: what any compile costs.
constexpr const char* kWorkloads[] = {"add_one_4096x128.scir", "gather_rows.scir",   "segment_sum_128k.scir",
                                      "sort_chunks_1m.scir",   "histogram_1m.scir", "exchange.scir",
                                      "tiny_add_one.scir"};

// Cold: a fresh compiler each time (JIT session included), at the default
// options (every check compiled in) and -O2, or -O0.
void BM_Compile_Cold(benchmark::State& state) {
  const char* name = kWorkloads[state.range(0)];
  auto file = KernelFile(name);
  CompileOptions options;
  options.opt_level = static_cast<int>(state.range(1));
  for (auto _ : state) {
    Compiler compiler;
    if (!compiler.Compile(file, options).ok()) state.SkipWithError("compile failed");
  }
  state.SetLabel(name);
}
BENCHMARK(BM_Compile_Cold)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5, 6}, {2}})
    ->Args({0, 0})
    ->ArgNames({"kernel", "opt"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Cold in a session: the compile a process makes once its compiler has made
// its JIT session (the host's target machines and the JIT; a process compiles
// its kernels with one compiler). Each iteration compiles the kernel with
// another comment, which the cache does not know: every stage runs.
void BM_Compile_ColdInSession(benchmark::State& state) {
  const char* name = kWorkloads[state.range(0)];
  Source base = KernelFile(name);
  CompileOptions options;
  Compiler compiler;
  if (!compiler.Compile(base, options).ok()) state.SkipWithError("compile failed");  // makes the session
  int64_t i = 0;
  for (auto _ : state) {
    Source variant{base.name, base.text + "// variant " + std::to_string(i++) + "\n"};
    if (!compiler.Compile(variant, options).ok()) state.SkipWithError("compile failed");
  }
  state.SetLabel(name);
}
BENCHMARK(BM_Compile_ColdInSession)
    ->DenseRange(0, 6)
    ->ArgName("kernel")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Warm: the in-memory cache answers (the key hashes the source; no stage runs).
void BM_Compile_Warm(benchmark::State& state) {
  auto file = KernelFile("add_one_4096x128.scir");
  Compiler compiler;
  if (!compiler.Compile(file).ok()) state.SkipWithError("compile failed");
  for (auto _ : state) {
    if (!compiler.Compile(file).ok()) state.SkipWithError("compile failed");
  }
}
BENCHMARK(BM_Compile_Warm)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Warm from disk: a compiler whose JIT session exists meets a kernel it has not
// compiled, whose entry another process left in the disk cache. No stage runs:
// the key hashes the source, the object code is linked as it is. (Each
// iteration compiles a different kernel — the same one with another comment —
// so the memory cache never answers.)
constexpr int kWarmVariants = 40;

void BM_Compile_WarmFromDisk(benchmark::State& state) {
  Source base = KernelFile("add_one_4096x128.scir");
  std::string dir = std::filesystem::temp_directory_path() / ("scjit-bench-cache-" + std::to_string(getpid()));
  CompileOptions options;
  options.cache_dir = dir;
  std::vector<Source> variants;
  {
    Compiler filler;  // fills the cache: the cold compiles of another process
    for (int i = 0; i < kWarmVariants; ++i) {
      variants.push_back(Source{base.name, base.text + "// variant " + std::to_string(i) + "\n"});
      if (!filler.Compile(variants.back(), options).ok()) state.SkipWithError("compile failed");
    }
  }
  Compiler warm;
  CompileOptions other = options;
  other.opt_level = 1;
  if (!warm.Compile(base, other).ok()) state.SkipWithError("compile failed");  // creates the JIT session
  int i = 0;
  for (auto _ : state) {
    absl::StatusOr<Kernel> k = warm.Compile(variants[i++ % kWarmVariants], options);
    if (!k.ok() || !k->times().from_disk) state.SkipWithError("not a disk hit");
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Compile_WarmFromDisk)->Iterations(kWarmVariants)->Unit(benchmark::kMicrosecond)->UseRealTime();

// --- Peak memory of a launch ---------------------------------------------------------

// jit-run on sum_1gib.scir (1 GiB of input, a 2 KiB output, 36 KiB of arenas):
// the child's peak resident memory against the kernel's own data. The process
// itself (the binary, LLVM, the JIT) is part of the peak.
void BM_PeakMemory_1GiBInput(benchmark::State& state) {
  const double data = 32.0 * 8388608 * 4 + 32 * 16 * 4 + 32 * (1024 + 16) * 4;
  std::string kernel = std::string(SCJIT_SOURCE_DIR) + "/bench/kernels/sum_1gib.scir";
  for (auto _ : state) {
    pid_t pid = fork();
    if (pid == 0) {
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      execl(SCJIT_JIT_RUN, "jit-run", kernel.c_str(), "--unchecked", "--in", "x=fill:1", static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    struct rusage usage {};
    if (pid < 0 || wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("jit-run failed");
      return;
    }
    double peak = static_cast<double>(usage.ru_maxrss) * 1024;
    state.counters["peak_MiB"] = peak / (1 << 20);
    state.counters["data_MiB"] = data / (1 << 20);
    state.counters["peak_per_data"] = peak / data;
  }
}
BENCHMARK(BM_PeakMemory_1GiBInput)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace scjit

BENCHMARK_MAIN();
