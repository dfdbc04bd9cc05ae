// The index-bound analysis (lowering/analysis/index_bounds.h): which parameters of
// each example and benchmark kernel index which dimension, as the public
// ParamInfo reports it (also from the disk cache), and the cases where the
// analysis must stay silent.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/analysis/index_bounds.h"
#include "lowering/analysis/kernel_info.h"
#include "scjit/scjit.h"
#include "tests/ir_loader.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

// "ids<4096 x": parameter ids indexes a dimension of size 4096 of %x; "o": no bound.
std::vector<std::string> Bounds(const Kernel& k) {
  std::vector<std::string> out;
  for (const ParamInfo& p : k.params()) {
    out.push_back(p.index_bound ? p.name + "<" + std::to_string(*p.index_bound) + " " + p.indexed_ref : p.name);
  }
  return out;
}

Kernel CompileRepoFile(const std::string& path, const CompileOptions& options = {}) {
  Compiler compiler;
  absl::StatusOr<Kernel> k = compiler.CompileFile(testing::SourceDir() + "/" + path, options);
  EXPECT_TRUE(k.ok()) << path << ": " << k.status();
  return *std::move(k);
}

TEST(IndexBoundsTest, ExamplesAndBenchmarks) {
  const std::map<std::string, std::vector<std::string>> want = {
      // idx() of a DMA, the list a pipeline block of the parameter.
      {"examples/gather_indirect.scir", {"x", "ids<4096 x", "o"}},
      {"examples/scatter_indirect.scir", {"x", "ids<4096 o", "o"}},
      // idx() in a nested pipeline's map, the list a view of the outer block.
      {"examples/embedding_lookup.scir", {"table", "ids<4096 table", "o"}},
      // The list staged into scratch by a copy; ignore = -1 does not matter.
      {"examples/segment_sum.scir", {"x", "ids<4096 acc", "o"}},
      {"examples/scatter_add_shared.scir", {"x", "ids<1024 shared", "o"}},
      {"examples/embedding_bag.scir", {"table", "ids<4096 table", "o"}},
      // store_scatter's second index vector: dimension 1 of %o[:, :].
      {"examples/store_scatter_2d.scir", {"x", "ids<16 o", "o"}},
      // The bins are `and %v, 63`: computed indices get no bound.
      {"examples/histogram.scir", {"x", "o"}},
      {"examples/sort_key_val.scir", {"mask_in", "keys", "vals", "okeys", "ovals", "omask"}},
      {"examples/add_one_manual.scir", {"x", "o"}},
      {"bench/kernels/gather_pipeline.scir", {"x", "ids<4096 x", "o"}},
      {"bench/kernels/gather_rows.scir", {"x", "ids<4096 x", "o"}},
      {"bench/kernels/scatter_add_rows.scir", {"x", "ids<4096 o", "o"}},
      // load_gather's first index vector, loaded with `get` from staged scratch.
      {"bench/kernels/gather_reduce.scir", {"table", "idx<1024 tab", "o"}},
      {"bench/kernels/scatter_add.scir", {"idx<4096 h", "x", "o"}},
  };
  for (const auto& [path, bounds] : want) EXPECT_EQ(Bounds(CompileRepoFile(path)), bounds) << path;
}

// The layout carries the bounds through the disk cache.
TEST(IndexBoundsTest, SurviveTheDiskCache) {
  CompileOptions options;
  options.cache_dir = testing::TempDir();
  Kernel cold = CompileRepoFile("examples/segment_sum.scir", options);
  Kernel warm = CompileRepoFile("examples/segment_sum.scir", options);
  EXPECT_FALSE(cold.times().from_disk);
  EXPECT_TRUE(warm.times().from_disk);
  EXPECT_EQ(Bounds(warm), (std::vector<std::string>{"x", "ids<4096 acc", "o"}));
}

// A gather of rows of %x (64) and %y (8) by the ids staged in %iv, with `extra`
// added to the body; the bound of %ids, or "none".
std::string IdsBound(const std::string& extra, const std::string& list = "%iv") {
  std::string text = R"(kernel @k(in %x: hbm<64x16xi32>, in %y: hbm<8x16xi32>, in %ids: hbm<16xi32>,
          in %more: hbm<16xi32>, out %o: hbm<16x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<16xi32>, %iv2: vmem<16xi32>, %rows: vmem<16x16xi32>)
{
  copy %ids -> %iv
)" + extra + "  copy %x[idx(" + list + ")] -> %rows\n  copy %rows -> %o\n}\n";
  testing::Loaded loaded = testing::Load(text);
  EXPECT_NE(loaded.module, nullptr) << loaded.diagnostics;
  if (loaded.module == nullptr) return "not loaded";
  std::optional<IndexBound> b = IndexBounds(*loaded.module->kernels.front())[2];
  return b ? std::to_string(b->size) + " " + b->ref : "none";
}

TEST(IndexBoundsTest, FollowsLoadsViewsAndStaging) {
  EXPECT_EQ(IdsBound(""), "64 x");
  EXPECT_EQ(IdsBound("  %v = get %iv[:] : vector<16xi32>\n", "%v"), "64 x");
  EXPECT_EQ(IdsBound("  %h = view %iv[ds(0, 8)] : vmem<8xi32>\n", "%h"), "64 x");
  // The smallest dimension wins.
  EXPECT_EQ(IdsBound("  copy %y[idx(%iv)] -> %rows\n"), "8 y");
}

TEST(IndexBoundsTest, SilentWhenUnsure) {
  // Arithmetic on the indices.
  EXPECT_EQ(IdsBound("  %v = get %iv[:] : vector<16xi32>\n  %w = add %v, %v : vector<16xi32>\n", "%w"), "none");
  // The staged list is also written by a store, or a second parameter, or a DMA that adds.
  EXPECT_EQ(IdsBound("  %z = const dense<0> : vector<16xi32>\n  store %iv[:], %z\n"), "none");
  EXPECT_EQ(IdsBound("  copy %more -> %iv add\n"), "none");
  // Two levels of staging, and a ref that select_ref may alias.
  EXPECT_EQ(IdsBound("  copy %iv -> %iv2\n", "%iv2"), "none");
  EXPECT_EQ(IdsBound("  %c = const 1 : i32\n  %s = select_ref %c, %iv, %iv2 : vmem<16xi32>\n"), "none");
}

TEST(IndexBoundsTest, EveryStagingSourceGetsTheBound) {
  testing::Loaded loaded = testing::Load(R"(kernel @k(in %x: hbm<64x16xi32>, in %a: hbm<16xi32>, in %b: hbm<16xi32>,
          out %o: hbm<16x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%iv: vmem<16xi32>, %rows: vmem<16x16xi32>)
{
  copy %a -> %iv
  copy %x[idx(%iv)] -> %rows
  copy %b -> %iv
  copy %x[idx(%iv)] -> %rows
  copy %rows -> %o
}
)");
  ASSERT_NE(loaded.module, nullptr) << loaded.diagnostics;
  std::vector<std::optional<IndexBound>> b = IndexBounds(*loaded.module->kernels.front());
  ASSERT_EQ(b.size(), 4u);
  EXPECT_FALSE(b[0]);
  ASSERT_TRUE(b[1] && b[2]);
  EXPECT_EQ(b[1]->size, 64);
  EXPECT_EQ(b[2]->ref, "x");
  EXPECT_FALSE(b[3]);
}

// The other facts the plan records of each HBM parameter (runtime/poison.h,
// docs/runtime.md §Memory): an `out` one the kernel never reads (its poison
// fill waits for the end of a launch), an `in` one it never writes (the checks
// skip DMAs from it). A DMA source is read, its destination written (an `add`
// reads it too), a wait touches nothing, any other use counts as both.
TEST(ParamFactsTest, WriteOnlyOutputsAndReadOnlyInputs) {
  testing::Loaded loaded = testing::Load(R"(kernel @k(in %x: hbm<16xi32>, in %y: hbm<16xi32>, out %o: hbm<16xi32>,
          out %p: hbm<16xi32>, out %q: hbm<16xi32>, inout %z: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %sem: dma_sem)
{
  %v = view %x[ds(0, 8)] : hbm<8xi32>
  dma_start %v -> %buf[ds(0, 8)], %sem
  dma_wait %v -> %buf[ds(0, 8)], %sem
  copy %buf -> %y
  copy %buf -> %o
  dma_wait %buf -> %p, %sem
  copy %q -> %buf
  copy %buf -> %z add
}
)");
  ASSERT_NE(loaded.module, nullptr) << loaded.diagnostics;
  KernelInfo info = PlanKernel(*loaded.module, *loaded.module->kernels.front(), TargetId::kV7x);
  std::string facts;
  for (const ParamLayout& p : info.layout.params) {
    facts += p.name + (p.read_only ? " read_only" : "") + (p.write_only ? " write_only" : "") + "; ";
  }
  EXPECT_EQ(facts, "x read_only; y; o write_only; p write_only; q; z; ");
}

}  // namespace
}  // namespace scjit
