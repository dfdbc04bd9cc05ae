// Example kernels of examples/ run as a user would, against references written
// here from each file's header (the expected-output paragraph).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/kernel_runner.h"

namespace scjit::testing {
namespace {

LaunchOptions With(int threads, DmaMode dma) {
  LaunchOptions o;
  o.threads = threads;
  o.dma = dma;
  return o;
}

std::vector<int32_t> Random(size_t n, uint32_t seed) {
  std::vector<int32_t> v(n);
  uint32_t s = seed;
  for (int32_t& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<int32_t>(s ^ (s >> 15));
  }
  return v;
}

// o[c, b] = #{(r, k): 16c <= r < 16c + 16, (x[r, k] & 63) == b}.
TEST(ExamplesTest, Histogram) {
  for (uint32_t seed : {1u, 2u}) {
    std::vector<int32_t> x = Random(32 * 1024, seed);
    if (seed == 2) {  // few distinct values: long runs of duplicates in each vector
      for (int32_t& v : x) v = v % 3 == 0 ? 7 : v % 5;
    }
    std::vector<int32_t> want(2 * 64, 0);
    for (int r = 0; r < 32; ++r) {
      for (int k = 0; k < 1024; ++k) ++want[(r / 16) * 64 + (x[r * 1024 + k] & 63)];
    }
    for (int threads : {1, 3}) {
      for (DmaMode dma : {DmaMode::kEager, DmaMode::kOnWait}) {
        SCOPED_TRACE(std::to_string(seed) + "/" + std::to_string(threads));
        testing::Run run = RunFile("examples/histogram.scir", {{"x", Bytes(x)}}, {}, With(threads, dma));
        ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
        EXPECT_EQ(run.As<int32_t>("o"), want);
      }
    }
  }
}

}  // namespace
}  // namespace scjit::testing
