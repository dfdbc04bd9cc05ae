// Compiling and launching from many threads at once, through one Compiler and
// through several, the same kernel and different ones (the ThreadSanitizer
// build of .ci/run runs these). Every result is checked.
#include <atomic>
#include <filesystem>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "scjit/scjit.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

constexpr int kThreads = 8;

// o = x + `add`, over 4 subcores of 2 cores, with async DMAs and a barrier.
std::string AddKernel(int add) {
  return R"(kernel @add(in %x: hbm<8x64xi32>, out %o: hbm<8x64xi32>)
    mesh vector(cores = 2, subcores = 4)
    scratch(%buf: vmem<64xi32>, %sem: dma_sem)
{
  %c = axis_index core : i32
  %s = axis_index subcore : i32
  %base = mul %c, 4 : i32
  %row = add %base, %s : i32
  dma_start %x[%row] -> %buf, %sem
  dma_wait %x[%row] -> %buf, %sem
  %k = const dense<)" + std::to_string(add) + R"(> : vector<16xi32>
  for %i = 0 to 4 step 1 {
    %off = mul %i, 16 : i32
    %v = get %buf[ds(%off, 16)] : vector<16xi32>
    %w = add %v, %k : vector<16xi32>
    store %buf[ds(%off, 16)], %w
  }
  barrier
  copy %buf -> %o[%row]
}
)";
}

// Launches `k` on fresh buffers and checks o = x + add; returns "" or what was wrong.
std::string LaunchAndCheck(const Kernel& k, int add, int seed, int threads) {
  absl::StatusOr<Buffer> x = Buffer::Allocate(DType::kI32, {8, 64});
  absl::StatusOr<Buffer> o = Buffer::Allocate(DType::kI32, {8, 64});
  if (!x.ok() || !o.ok()) return "allocation failed";
  std::span<int32_t> xs = x->span<int32_t>();
  std::iota(xs.begin(), xs.end(), seed);
  LaunchOptions options;
  options.threads = threads;
  absl::StatusOr<LaunchResult> r = k.Launch({{"x", *x}, {"o", *o}}, options);
  if (!r.ok()) return std::string(r.status().message());
  if (r->failed()) return r->RenderFindings();
  std::span<int32_t> os = o->span<int32_t>();
  for (size_t i = 0; i < os.size(); ++i) {
    if (os[i] != xs[i] + add) return "wrong element " + std::to_string(i);
  }
  return "";
}

// Runs body(thread) on kThreads threads at once; returns the failures.
std::vector<std::string> OnThreads(const std::function<std::string(int)>& body) {
  std::vector<std::string> errors(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();  // start together
      errors[t] = body(t);
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<std::string> failed;
  for (int t = 0; t < kThreads; ++t) {
    if (!errors[t].empty()) failed.push_back("thread " + std::to_string(t) + ": " + errors[t]);
  }
  return failed;
}

std::string CompileLaunchCheck(Compiler& compiler, int add, int seed, const CompileOptions& options = {}) {
  absl::StatusOr<Kernel> k = compiler.Compile(Source{"add.scir", AddKernel(add)}, options);
  if (!k.ok()) return std::string(k.status().message());
  return LaunchAndCheck(*k, add, seed, 1 + seed % 2);
}

TEST(ConcurrencyTest, OneCompilerTheSameKernel) {
  Compiler compiler;
  std::vector<std::string> failed = OnThreads([&](int t) { return CompileLaunchCheck(compiler, 3, t); });
  EXPECT_TRUE(failed.empty()) << failed[0];
  Compiler::CacheStats s = compiler.cache_stats();
  EXPECT_EQ(s.memory_hits + s.compiled, kThreads);
  EXPECT_GE(s.compiled, 1);
}

TEST(ConcurrencyTest, OneCompilerDifferentKernels) {
  Compiler compiler;
  std::vector<std::string> failed = OnThreads([&](int t) {
    for (int round = 0; round < 2; ++round) {
      std::string e = CompileLaunchCheck(compiler, t, t * 10 + round);  // the second round hits the cache
      if (!e.empty()) return e;
    }
    return std::string();
  });
  EXPECT_TRUE(failed.empty()) << failed[0];
  Compiler::CacheStats s = compiler.cache_stats();
  EXPECT_EQ(s.compiled, kThreads);
  EXPECT_EQ(s.memory_hits, kThreads);
}

TEST(ConcurrencyTest, SeveralCompilers) {
  std::vector<std::string> failed = OnThreads([&](int t) {
    Compiler own;
    CompileOptions options;
    options.opt_level = t % 4;  // different JIT sessions too
    return CompileLaunchCheck(own, t % 3, t, options);
  });
  EXPECT_TRUE(failed.empty()) << failed[0];
}

TEST(ConcurrencyTest, OneKernelLaunchedFromEveryThread) {
  Compiler compiler;
  absl::StatusOr<Kernel> k = compiler.Compile(Source{"add.scir", AddKernel(5)});
  ASSERT_TRUE(k.ok()) << k.status();
  std::vector<std::string> failed = OnThreads([&](int t) {
    for (int round = 0; round < 4; ++round) {
      std::string e = LaunchAndCheck(*k, 5, t * 100 + round, 1 + (t + round) % 2);
      if (!e.empty()) return e;
    }
    return std::string();
  });
  EXPECT_TRUE(failed.empty()) << failed[0];
}

// Threads sharing one disk cache directory through separate compilers.
TEST(ConcurrencyTest, SeveralCompilersOneDiskCache) {
  std::string dir = testing::TempDir();
  std::vector<std::string> failed = OnThreads([&](int t) {
    Compiler own;
    CompileOptions options;
    options.cache_dir = dir;
    return CompileLaunchCheck(own, t % 2, t, options);
  });
  EXPECT_TRUE(failed.empty()) << failed[0];
  // Two kernels, two entries, each intact: fresh compilers load both.
  for (int add : {0, 1}) {
    Compiler fresh;
    CompileOptions options;
    options.cache_dir = dir;
    absl::StatusOr<Kernel> k = fresh.Compile(Source{"add.scir", AddKernel(add)}, options);
    ASSERT_TRUE(k.ok());
    EXPECT_TRUE(k->times().from_disk);
    EXPECT_TRUE(k->warnings().empty()) << k->warnings()[0].message;
    EXPECT_EQ(LaunchAndCheck(*k, add, 7, 2), "");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace scjit
