// The 64-chip all-to-all (bench/kernels/all_to_all_64.scir) with its chips
// spread over MPI ranks, beside the native loop doing the same exchange in one
// process (issue #15, item 5):
//
//   mpirun -n 4 build/bench/scjit_mpi_bench      (1, 2 or 4 ranks; as root, and
//                                                 with more ranks than cores: see
//                                                 docs/performance.md)
//
// Every rank runs the same launches (a fixed number of iterations, so that the
// collectives match); rank 0 reports. Without mpirun it runs every chip in one
// process.
#include <benchmark/benchmark.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/all_to_all.h"
#include "runtime/mpi/mpi_link.h"
#include "scjit/scjit.h"

namespace scjit {
namespace {

using bench::AllToAllInput;
using bench::AllToAllNative;
using bench::kAllToAllBytes;

Kernel CompiledAllToAll() {
  std::string path = std::string(SCJIT_SOURCE_DIR) + "/bench/kernels/all_to_all_64.scir";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CompileOptions options;
  options.checks = Checks::None();
  absl::StatusOr<Kernel> k = Compiler().Compile(Source{path, text.str()}, options);
  if (!k.ok()) throw std::runtime_error(std::string(k.status().message()));
  return *k;
}

void BM_AllToAll64_OverRanks(benchmark::State& state, ChipLink* link) {
  Kernel kernel = CompiledAllToAll();
  std::vector<float> x = AllToAllInput(), y(x.size()), want(x.size());
  AllToAllNative(x.data(), want.data());
  std::vector<Buffer> params;
  for (auto [p, data] : {std::pair{0, x.data()}, std::pair{1, y.data()}}) {
    const ParamInfo& info = kernel.params()[static_cast<size_t>(p)];
    params.push_back(*Buffer::Wrap(info.dtype, info.shape, data, info.bytes()));
  }
  LaunchOptions options;
  options.threads = static_cast<int>(state.range(0));
  options.checks = Checks::None();
  options.dma = DmaMode::kEager;
  options.link = link;
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r = kernel.Launch(params, options);
    if (!r.ok() || r->failed() || r->stats.dma_bytes != kAllToAllBytes) state.SkipWithError("launch failed");
  }
  if (y != want) state.SkipWithError("wrong result");
  state.SetBytesProcessed(state.iterations() * kAllToAllBytes);
  state.counters["ranks"] = link != nullptr ? link->ranks() : 1;
}


// Ranks other than 0 run the launches and report nothing.
class Silent : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace
}  // namespace scjit

int main(int argc, char** argv) {
  std::unique_ptr<scjit::MpiChipLink> link;
  if (scjit::MpiChipLink::StartedByMpirun()) {
    absl::StatusOr<std::unique_ptr<scjit::MpiChipLink>> started = scjit::MpiChipLink::Start(&argc, &argv);
    if (!started.ok()) {
      fprintf(stderr, "%s\n", std::string(started.status().message()).c_str());
      return 2;
    }
    link = *std::move(started);
  }
  benchmark::Initialize(&argc, argv);
  bool root = link == nullptr || link->rank() == 0;
  benchmark::RegisterBenchmark("BM_AllToAll64_OverRanks", scjit::BM_AllToAll64_OverRanks, link.get())
      ->Arg(1)
      ->ArgName("threads")
      ->Iterations(20)
      ->Repetitions(3)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  if (root) {
    benchmark::RegisterBenchmark("BM_AllToAll64_Native", scjit::bench::BM_AllToAll64_Native)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  if (root) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    scjit::Silent silent;
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  benchmark::Shutdown();
  return 0;
}
