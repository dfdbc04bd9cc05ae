// The examples built on indirect DMAs (examples/*.scir) against references written
// here from their headers: the Pallas guide's gather and scatter at full table size,
// the segment sum and the 16-subcore scatter-add into VMEM_SHARED, the embedding bag.
// Each runs on both lane counts, in both DMA modes, on 1 and 4 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "tests/kernel_runner.h"

namespace scjit::testing {
namespace {

using Config = std::tuple<std::string, int, DmaMode>;  // target, threads, DMA mode

class IndirectExamplesTest : public ::testing::TestWithParam<Config> {
 protected:
  testing::Run RunExample(const std::string& name, const std::map<std::string, std::vector<uint8_t>>& inputs) const {
    CompileOptions c;
    c.target = std::get<0>(GetParam());
    LaunchOptions l;
    l.threads = std::get<1>(GetParam());
    l.dma = std::get<2>(GetParam());
    return RunFile("examples/" + name, inputs, c, l);
  }
};

std::vector<int32_t> RandomIds(size_t n, int32_t lo, int32_t hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> d(lo, hi - 1);
  std::vector<int32_t> v(n);
  for (int32_t& x : v) x = d(rng);
  return v;
}

std::vector<int32_t> RandomInts(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> v(n);
  for (int32_t& x : v) x = static_cast<int32_t>(rng());
  v[0] = INT32_MAX;  // sums wrap
  v[1] = INT32_MIN;
  return v;
}

// --- The guide's gather and scatter (4096x128 table, 4096 indices) ------------------

constexpr int kTableRows = 4096, kWidth = 128;

TEST_P(IndirectExamplesTest, GuideGather) {
  std::vector<int32_t> x = RandomInts(size_t{kTableRows} * kWidth, 1);
  std::vector<int32_t> ids = RandomIds(kTableRows, 0, kTableRows, 2);  // duplicates, misses
  ids[7] = 0;
  ids[4095] = kTableRows - 1;
  testing::Run run = RunExample("gather_indirect.scir", {{"x", Bytes(x)}, {"ids", Bytes(ids)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<int32_t> o = run.As<int32_t>("o");
  for (int i = 0; i < kTableRows; ++i) {
    for (int c = 0; c < kWidth; ++c) {
      ASSERT_EQ(o[static_cast<size_t>(i) * kWidth + c], x[size_t(ids[i]) * kWidth + c]) << "o[" << i << ", " << c << "]";
    }
  }
}

TEST_P(IndirectExamplesTest, GuideScatter) {
  // The guide's use: scatter back what the gather produced (x = data[ids]), ids
  // with duplicates; and a permutation with arbitrary rows.
  std::vector<int32_t> data = RandomInts(size_t{kTableRows} * kWidth, 3);
  std::vector<int32_t> dup = RandomIds(kTableRows, 0, kTableRows, 4), perm(kTableRows);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(5));
  for (const std::vector<int32_t>* ids : {&dup, &perm}) {
    std::vector<int32_t> x(data.size());
    std::vector<int32_t> want(data.size());
    std::vector<bool> hit(kTableRows);
    for (int i = 0; i < kTableRows; ++i) {
      const int32_t r = (*ids)[i];
      for (int c = 0; c < kWidth; ++c) {
        // dup: row i is data[r]; perm: row i is any row (here data[i]).
        int32_t v = ids == &dup ? data[size_t(r) * kWidth + c] : data[static_cast<size_t>(i) * kWidth + c];
        x[static_cast<size_t>(i) * kWidth + c] = v;
        want[size_t(r) * kWidth + c] = v;
      }
      hit[r] = true;
    }
    testing::Run run = RunExample("scatter_indirect.scir", {{"x", Bytes(x)}, {"ids", Bytes(*ids)}});
      ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
    std::vector<int32_t> o = run.As<int32_t>("o");
    int rows = 0;
    for (int r = 0; r < kTableRows; ++r) {
      if (!hit[r]) continue;  // keeps the fill pattern
      ++rows;
      for (int c = 0; c < kWidth; ++c) {
        ASSERT_EQ(o[size_t(r) * kWidth + c], want[size_t(r) * kWidth + c]) << "o[" << r << ", " << c << "]";
      }
    }
    EXPECT_EQ(rows == kTableRows, ids == &perm);
  }
}

// --- Segment sum by scatter-add into VMEM_SHARED -------------------------------------

TEST_P(IndirectExamplesTest, SegmentSum) {
  constexpr int kRows = 4096, kCols = 32;
  // Ids: mostly a few hot segments (many duplicates within and across subcores),
  // some anywhere in [0, 4096), some -1 (padding). Integer-valued floats keep every
  // sum exact whatever the order the adds land in.
  std::mt19937 rng(6);
  std::vector<int32_t> ids(kRows);
  for (int32_t& id : ids) {
    uint32_t k = rng() % 8;
    id = k == 0 ? -1 : k < 3 ? static_cast<int32_t>(rng() % kRows) : static_cast<int32_t>(rng() % 40);
  }
  std::vector<float> x(size_t{kRows} * kCols);
  for (float& v : x) v = static_cast<float>(static_cast<int>(rng() % 20001) - 10000);
  x[5] = -0.0f;
  testing::Run run = RunExample("segment_sum.scir", {{"x", Bytes(x)}, {"ids", Bytes(ids)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<double> want(size_t{kRows} * kCols, 0.0);
  for (int i = 0; i < kRows; ++i) {
    if (ids[i] < 0) continue;
    for (int d = 0; d < kCols; ++d) want[size_t(ids[i]) * kCols + d] += x[static_cast<size_t>(i) * kCols + d];
  }
  std::vector<float> o = run.As<float>("o");
  for (size_t k = 0; k < o.size(); ++k) {
    ASSERT_EQ(o[k], static_cast<float>(want[k])) << "o[" << k / kCols << ", " << k % kCols << "]";
  }
}

// An id outside [0, 4096) that is not -1 is a located RT-BOUNDS finding.
TEST_P(IndirectExamplesTest, SegmentSumBadId) {
  std::vector<int32_t> ids(4096, 3);
  ids[1000] = 4096;
  testing::Run run = RunExample("segment_sum.scir", {{"ids", Bytes(ids)}});
  EXPECT_EQ(run.Findings(),
            R"(examples/segment_sum.scir:58:5: error[RT-BOUNDS]: copy %rows -> %acc[idx(%iv, ignore = -1)] add: entry 104 of the index list is 4096, outside dimension 0 of the destination (size 4096)
   58 |     copy %rows -> %acc[idx(%iv, ignore = -1)] add
      |     ^~~~
note: in kernel @segment_sum, subcore (core 0, subcore 3)
)");
}

// --- 16 subcores scatter-add one row each into VMEM_SHARED ---------------------------

TEST_P(IndirectExamplesTest, ScatterAddShared) {
  std::vector<int32_t> x = RandomInts(16 * 1024, 7), ids = RandomIds(1024, 0, 1024, 8);
  testing::Run run = RunExample("scatter_add_shared.scir", {{"x", Bytes(x)}, {"ids", Bytes(ids)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<uint32_t> want(1024);
  for (int j = 0; j < 1024; ++j) want[j] = static_cast<uint32_t>(x[j]);
  for (int s = 0; s < 16; ++s) {
    for (int i = 0; i < 1024; ++i) want[ids[i]] += static_cast<uint32_t>(x[s * 1024 + i]);
  }
  EXPECT_EQ(run.As<uint32_t>("o"), want);
}

// --- Embedding bag: gathers of 8 rows, summed left to right in f32 -------------------

TEST_P(IndirectExamplesTest, EmbeddingBag) {
  constexpr int kV = 4096, kD = 64, kB = 512, kK = 8;
  std::mt19937 rng(9);
  std::vector<float> table(size_t{kV} * kD);
  for (float& t : table) t = std::ldexp(static_cast<float>(rng() % 2000001) / 1e6f - 1.0f, static_cast<int>(rng() % 30) - 15);
  table[3] = -0.0f;
  std::vector<int32_t> ids = RandomIds(size_t{kB} * kK, 0, kV, 10);
  testing::Run run = RunExample("embedding_bag.scir", {{"table", Bytes(table)}, {"ids", Bytes(ids)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<float> o = run.As<float>("o");
  for (int b = 0; b < kB; ++b) {
    for (int d = 0; d < kD; ++d) {
      float acc = table[size_t(ids[b * kK]) * kD + d];
      for (int k = 1; k < kK; ++k) acc = acc + table[size_t(ids[b * kK + k]) * kD + d];
      ASSERT_EQ(std::bit_cast<uint32_t>(o[static_cast<size_t>(b) * kD + d]), std::bit_cast<uint32_t>(acc))
          << "o[" << b << ", " << d << "]";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, IndirectExamplesTest,
                         ::testing::Combine(::testing::Values("v7x", "v5p"), ::testing::Values(1, 4),
                                            ::testing::Values(DmaMode::kEager, DmaMode::kOnWait)),
                         [](const ::testing::TestParamInfo<Config>& info) {
                           return std::string(std::get<0>(info.param) == "v7x" ? "v7x" : "v5p") + "_" +
                                  std::to_string(std::get<1>(info.param)) + "threads_" +
                                  (std::get<2>(info.param) == DmaMode::kEager ? "eager" : "on_wait");
                         });

}  // namespace
}  // namespace scjit::testing
