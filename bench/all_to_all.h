// The 64-chip all-to-all of embedding rows (bench/kernels/all_to_all_64.scir,
// issue #15): its input, and the native loop it is measured beside. Shared by
// scjit_bench (one process) and scjit_mpi_bench (over mpirun).
#ifndef SCJIT_BENCH_ALL_TO_ALL_H_
#define SCJIT_BENCH_ALL_TO_ALL_H_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace scjit::bench {

inline constexpr int kChips = 64, kBlockFloats = 16 * 128;
// Each chip's x, moved once.
inline constexpr int64_t kAllToAllBytes = int64_t{kChips} * kChips * kBlockFloats * 4;

inline std::vector<float> AllToAllInput() {
  std::vector<float> x(static_cast<size_t>(kChips) * kChips * kBlockFloats);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 8191) - 4095.0f;
  return x;
}

// y[j, s] = x[s, j]: what every chip receives, block by block.
inline void AllToAllNative(const float* x, float* y) {
  for (int j = 0; j < kChips; ++j) {
    for (int s = 0; s < kChips; ++s) {
      std::memcpy(y + (static_cast<size_t>(j) * kChips + s) * kBlockFloats,
                  x + (static_cast<size_t>(s) * kChips + j) * kBlockFloats, kBlockFloats * sizeof(float));
    }
  }
}

// The native loop's benchmark, the same in both suites.
inline void BM_AllToAll64_Native(benchmark::State& state) {
  std::vector<float> x = AllToAllInput(), y(x.size());
  for (auto _ : state) {
    AllToAllNative(x.data(), y.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kAllToAllBytes);
}

}  // namespace scjit::bench

#endif  // SCJIT_BENCH_ALL_TO_ALL_H_
