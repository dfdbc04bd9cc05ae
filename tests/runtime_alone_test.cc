// The runtime without the compiler: this binary links scjit_runtime (and
// scjit_base) only — no IR, no rules, no LLVM — and launches a "kernel" written
// in C++ against the C ABI, with a launch layout built by hand, as the compiler
// would hand it over. It also checks the layout's serialization (the disk
// cache's format).
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/base/launch_layout.h"
#include "runtime/abi.h"
#include "runtime/launch.h"

namespace scjit {
namespace {

constexpr int kRow = 32;

// in %x: hbm<2x32xi32>, out %o: hbm<2x32xi32>, scratch %buf: vmem<32xi32>,
// %sem: dma_sem, on a mesh of 1 core x 2 subcores.
LaunchLayout AddOneLayout() {
  LaunchLayout l;
  l.kernel = "add_one";
  l.file = "k.scir";
  l.cores = 1;
  l.subcores = 2;
  l.params = {
      ParamLayout{"x", ParamDirection::kIn, false, ElementType::kI32, {2, kRow}, MemorySpace::kHbm, "hbm<2x32xi32>"},
      ParamLayout{"o", ParamDirection::kOut, false, ElementType::kI32, {2, kRow}, MemorySpace::kHbm, "hbm<2x32xi32>"},
  };
  l.vmem_bytes = kRow * 4;
  l.semaphores = 1;
  l.semaphore_names = {"%sem"};
  l.poison = {PoisonRange{MemorySpace::kVmem, 0, kRow, ElementType::kI32}};
  l.sites = {
      Site{"dma_start", Location{7, 3, 9}, "  dma_start %x[%s] -> %buf, %sem", "%x[%s] -> %buf, %sem"},
      Site{"dma_wait", Location{8, 3, 8}, "  dma_wait %x[%s] -> %buf, %sem", "%x[%s] -> %buf, %sem"},
      Site{"copy", Location{11, 3, 4}, "  copy %buf -> %o[%s]", "%buf -> %o[%s]"},
  };
  l.entry = "scjit_kernel_add_one";
  return l;
}

scjit_ref Row(uint8_t* base, int64_t n) {
  scjit_ref r{};
  r.base = base;
  r.rank = 1;
  r.sizes[0] = n;
  r.strides[0] = 1;
  return r;
}

scjit_dma Dma(scjit_ref src, scjit_ref dst, int32_t sem) {
  scjit_dma d{};
  d.src = src;
  d.dst = dst;
  d.elem_bytes = 4;
  d.dtype = static_cast<int32_t>(ElementType::kI32);
  d.sem = sem;
  return d;
}

// What the emitter would generate for the layout above: DMA my row of %x into
// VMEM, add one, copy it to my row of %o.
int32_t AddOneKernel(scjit_ctx* ctx) {
  uint8_t* x = ctx->hbm[0] + ctx->subcore * kRow * 4;
  uint8_t* o = ctx->hbm[1] + ctx->subcore * kRow * 4;
  scjit_dma in = Dma(Row(x, kRow), Row(ctx->vmem, kRow), 0);
  if (int32_t s = scjit_rt_dma_start(ctx, &in, 0)) return s;
  if (int32_t s = scjit_rt_dma_wait(ctx, &in, 1)) return s;
  auto* v = reinterpret_cast<int32_t*>(ctx->vmem);
  for (int i = 0; i < kRow; ++i) v[i] += 1;
  scjit_dma out = Dma(Row(ctx->vmem, kRow), Row(o, kRow), -1);
  return scjit_rt_copy(ctx, &out, 2);
}

// A kernel whose DMA names a semaphore it does not have.
int32_t BadSemaphoreKernel(scjit_ctx* ctx) {
  scjit_dma in = Dma(Row(ctx->hbm[0], kRow), Row(ctx->vmem, kRow), 5);
  return scjit_rt_dma_start(ctx, &in, 0);
}

TEST(RuntimeAloneTest, RunsAKernelFromALayoutAndAnEntryPoint) {
  LaunchLayout layout = AddOneLayout();
  std::vector<int32_t> x(2 * kRow), o(2 * kRow, 0);
  std::iota(x.begin(), x.end(), 10);
  std::vector<ParamBuffer> params = {{reinterpret_cast<uint8_t*>(x.data()), 2 * kRow * 4},
                                     {reinterpret_cast<uint8_t*>(o.data()), 2 * kRow * 4}};
  for (int threads : {1, 2}) {
    RunOptions options;
    options.threads = threads;
    absl::StatusOr<LaunchResult> r = RunKernel(layout, AddOneKernel, params, options);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->failed()) << r->RenderFindings();
    for (int i = 0; i < 2 * kRow; ++i) ASSERT_EQ(o[i], x[i] + 1) << i;
    EXPECT_EQ(r->stats.ops.at("dma_start"), 2);
    EXPECT_EQ(r->stats.ops.at("copy"), 2);
    EXPECT_EQ(r->stats.dma_bytes, 4 * kRow * 4);
  }
}

TEST(RuntimeAloneTest, FindingsNameTheSiteOfTheLayout) {
  LaunchLayout layout = AddOneLayout();
  layout.subcores = 1;
  std::vector<int32_t> x(2 * kRow), o(2 * kRow);
  std::vector<ParamBuffer> params = {{reinterpret_cast<uint8_t*>(x.data()), 2 * kRow * 4},
                                     {reinterpret_cast<uint8_t*>(o.data()), 2 * kRow * 4}};
  absl::StatusOr<LaunchResult> r = RunKernel(layout, BadSemaphoreKernel, params, RunOptions());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->RenderFindings(),
            "k.scir:7:3: error[RT-BOUNDS]: semaphore index 5 is outside the 1 semaphores of this subcore\n"
            "    7 |   dma_start %x[%s] -> %buf, %sem\n"
            "      |   ^~~~~~~~~\n"
            "note: in kernel @add_one, subcore (core 0, subcore 0)\n");
  // Buffers of the wrong size never reach the kernel.
  params[1].bytes = 4;
  EXPECT_EQ(RunKernel(layout, BadSemaphoreKernel, params, RunOptions()).status().message(),
            "error[IO-PARAM]: parameter %o needs 256 bytes, got 4\n"
            "help: bind one buffer to each parameter that has data, by name or by position");
}

TEST(RuntimeAloneTest, LayoutsRoundTripAndCorruptionIsDetected) {
  LaunchLayout layout = AddOneLayout();
  layout.frame_bytes = 4096;
  std::string bytes = Serialize(layout);
  absl::StatusOr<LaunchLayout> back = Deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(Serialize(*back), bytes);
  EXPECT_EQ(back->kernel, "add_one");
  EXPECT_EQ(back->params[1].type_text, "hbm<2x32xi32>");
  EXPECT_EQ(back->sites[2].loc, (Location{11, 3, 4}));
  EXPECT_EQ(back->frame_bytes, 4096);
  // Every truncation, and a byte changed anywhere in the header fields, is
  // refused or gives a layout that serializes differently — never a crash.
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(Deserialize(std::string_view(bytes).substr(0, n)).ok()) << n;
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5A);
    absl::StatusOr<LaunchLayout> l = Deserialize(flipped);
    if (l.ok()) EXPECT_NE(Serialize(*l), bytes) << i;
  }
  EXPECT_FALSE(Deserialize(bytes + "x").ok());
}

// Found by frontend_fuzzer: a host<...> parameter (MemorySpace::kHost, the last
// space) made Deserialize refuse the layout, so the disk cache never reloaded
// such kernels.
TEST(RuntimeAloneTest, LayoutsOfEveryMemorySpaceRoundTrip) {
  LaunchLayout layout = AddOneLayout();
  layout.params[1].space = MemorySpace::kHost;
  layout.params[1].type_text = "host<2x32xi32>";
  layout.poison.push_back(PoisonRange{MemorySpace::kHost, 0, 1, ElementType::kI32});
  std::string bytes = Serialize(layout);
  absl::StatusOr<LaunchLayout> back = Deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->params[1].space, MemorySpace::kHost);
  EXPECT_EQ(back->poison.back().space, MemorySpace::kHost);
  EXPECT_EQ(Serialize(*back), bytes);
}

}  // namespace
}  // namespace scjit
