// The HOST memory space (`host<...>` refs, Pallas' pl.HOST): kernel parameters
// that are the caller's buffers, reached by DMA only; what the verifier and the SC
// rules report for anything else, with Pallas' text where Pallas has one.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernel_runner.h"

namespace scjit {
namespace {

using testing::Bytes;
using testing::Check;
using testing::RunText;

// Host parameters are used in place, like HBM ones: DMAs move between them and
// HBM (the scalar subcore's HOST<->HBM copies) or VMEM; an inout host buffer
// keeps what the kernel did not write.
TEST(HostMemoryTest, ParametersAreTheCallersBuffers) {
  testing::Run run = RunText(R"(kernel @k(in %x: host<2x16xi32>, out %h: hbm<2x16xi32>, inout %y: host<2x16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%b: vmem<16xi32>, %sem: dma_sem)
{
  %s = axis_index subcore : i32
  dma_start %x[%s] -> %h[%s], %sem
  dma_wait %x[%s] -> %h[%s], %sem
  copy %h[%s] -> %b
  %v = get %b : vector<16xi32>
  %w = add %v, %v : vector<16xi32>
  store %b, %w
  %first = cmp eq %s, 0 : i1
  if %first {
    copy %b -> %y[0]
  }
}
)",
                             {{"x", Bytes(std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                                               17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
                                                               31, 32})},
                              {"y", Bytes(std::vector<int32_t>(32, -5))}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<int32_t> h = run.As<int32_t>("h"), y = run.As<int32_t>("y");
  for (int i = 0; i < 32; ++i) EXPECT_EQ(h[i], i + 1) << i;
  for (int i = 0; i < 16; ++i) EXPECT_EQ(y[i], 2 * (i + 1)) << i;
  for (int i = 16; i < 32; ++i) EXPECT_EQ(y[i], -5) << i;
}

constexpr char kHeader[] = R"(kernel @k(in %x: host<16x16xi32>, out %o: hbm<16x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%b: vmem<16x16xi32>)
{
)";

std::string Diagnostics(const std::string& body) { return Check(kHeader + body + "}\n").diagnostics; }

TEST(HostMemoryTest, ComputeOpsReachItByDmaOnly) {
  EXPECT_EQ(Diagnostics("  %v = get %x[0] : vector<16xi32>\n"),
            R"(k.scir:5:12: error[IR-OPERAND]: 'get' cannot reach host memory (%x[0] : host<16xi32>): host refs are read and written by DMA only
    5 |   %v = get %x[0] : vector<16xi32>
      |            ^~~~~
help: copy it to VMEM first (`copy %host -> %vmem_buf`), as pltpu.sync_copy does
)");
  // A scalar is Pallas' own error, naming pl.HOST by its repr.
  EXPECT_EQ(Diagnostics("  %e = get %x[0, 3] : i32\n"),
            R"(k.scir:5:12: error[GET-6]: NotImplementedError: Get only supports loading scalars from SMEM. Trying to load a scalar from <MemorySpace.HOST: 'host'>.
    5 |   %e = get %x[0, 3] : i32
      |            ^~~~~~~~
note: the ref view %x[0, 3] : host<i32> is a scalar in <MemorySpace.HOST: 'host'>
help: read semaphores with `sem_read`; copy other data into SMEM first
)");
}

TEST(HostMemoryTest, NeitherScratchNorAllocation) {
  EXPECT_EQ(Check(R"(kernel @k(in %x: host<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%h: host<16xi32>)
{
}
)")
                .diagnostics,
            R"(k.scir:3:13: error[IR-KERNEL]: scratch %h is in host memory, which is the caller's: host refs are kernel parameters, never scratch or allocations
    3 |     scratch(%h: host<16xi32>)
      |             ^~
)");
  EXPECT_EQ(Diagnostics("  scoped {\n    %a = alloc host<16xi32>\n  }\n"),
            R"(k.scir:6:10: error[IR-TYPE]: 'alloc' host<16xi32> is in host memory, which is the caller's: host refs are kernel parameters, never scratch or allocations
    6 |     %a = alloc host<16xi32>
      |          ^~~~~
)");
}

// Pallas' DMA rules treat HOST as a space that is neither a gather's source nor a
// scatter's destination, and that adding DMAs do not reach.
TEST(HostMemoryTest, NoIndirectOrAddingDmas) {
  std::string d = Diagnostics("  %i = iota : vector<16xi32>\n  copy %x[idx(%i)] -> %b\n");
  EXPECT_EQ(d.substr(0, d.find('\n')),
            "k.scir:6:11: error[DMA-11]: NotImplementedError: Scatter/gather via `pltpu.async_copy` from "
            "<MemorySpace.HOST: 'host'> to VMEM is not supported");
  d = Diagnostics("  %i = iota : vector<16xi32>\n  copy %b -> %x[idx(%i)] add\n");
  EXPECT_EQ(d.substr(0, d.find('\n')),
            "k.scir:6:17: error[DMA-11]: NotImplementedError: Scatter/gather via `pltpu.async_copy` from VMEM to "
            "<MemorySpace.HOST: 'host'> is not supported");
  // The plain copies pass.
  EXPECT_EQ(Diagnostics("  copy %x -> %b\n  copy %b -> %x\n  copy %x -> %o\n"), "");
}

}  // namespace
}  // namespace scjit
