// Vector values larger than a register file's worth (kernel-ir.md §3, "any shape
// while layout_passes = true"): they live in stack buffers and every op on them
// runs as a loop over chunks. Each kernel here is checked against a plain C++
// reference, and the emitted LLVM IR is checked to stay small.
#include <cstdint>
#include <cstring>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernel_runner.h"

namespace scjit {
namespace {

using testing::Bytes;
using testing::RunText;

std::vector<int32_t> Ints(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> v(n);
  for (int32_t& x : v) x = static_cast<int32_t>(rng());
  v[0] = INT32_MAX;
  v[1] = INT32_MIN;
  return v;
}

std::vector<float> Floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  v[0] = 0.0f;
  v[1] = -0.0f;
  return v;
}

int32_t Wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

// Elementwise ops, compares, selects and conversions over 64x128 values (32 KiB each).
TEST(LargeValuesTest, ElementwiseChain) {
  std::vector<int32_t> x = Ints(64 * 128, 1);
  std::vector<float> y = Floats(64 * 128, 2);
  testing::Run run = RunText(R"(kernel @k(in %x: vmem<64x128xi32>, in %y: vmem<64x128xf32>,
          out %o: vmem<64x128xf32>, out %p: vmem<64x128xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %a = get %x[:, :] : vector<64x128xi32>
  %b = get %y[:, :] : vector<64x128xf32>
  %three = const dense<3> : vector<64x128xi32>
  %s = mul %a, %three : vector<64x128xi32>
  %f = convert %s : vector<64x128xf32>
  %zero = const dense<0.0> : vector<64x128xf32>
  %pos = cmp gt %b, %zero : vector<64x128xi1>
  %sum = add %f, %b : vector<64x128xf32>
  %r = select %pos, %sum, %b : vector<64x128xf32>
  store %o[:, :], %r
  %m = convert %pos : vector<64x128xi32>
  store %p[:, :], %m
}
)",
                             {{"x", Bytes(x)}, {"y", Bytes(y)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<float> o = run.As<float>("o");
  std::vector<int32_t> p = run.As<int32_t>("p");
  for (size_t i = 0; i < x.size(); ++i) {
    float f = static_cast<float>(Wrap(int64_t{x[i]} * 3));
    float want = y[i] > 0.0f ? f + y[i] : y[i];
    ASSERT_EQ(std::memcmp(&o[i], &want, 4), 0) << "at " << i << ": " << o[i] << " vs " << want;
    ASSERT_EQ(p[i], y[i] > 0.0f ? 1 : 0) << "at " << i;
  }
}

// get, swap and addupdate of large values through views whose rows are not
// contiguous in memory.
TEST(LargeValuesTest, StridedViews) {
  std::vector<int32_t> x = Ints(64 * 128, 3);
  std::vector<int32_t> acc = Ints(32 * 128, 4);
  testing::Run run = RunText(R"(kernel @k(in %x: vmem<64x128xi32>, inout %acc: vmem<32x128xi32>,
          out %old: vmem<32x64xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %a = get %x[8:40, 16:80] : vector<32x64xi32>
  addupdate %acc[:, 64:128], %a
  %o = swap %acc[:, 0:64], %a : vector<32x64xi32>
  store %old[:, :], %o
}
)",
                             {{"x", Bytes(x)}, {"acc", Bytes(acc)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<int32_t> got_acc = run.As<int32_t>("acc");
  std::vector<int32_t> got_old = run.As<int32_t>("old");
  for (int r = 0; r < 32; ++r) {
    for (int c = 0; c < 64; ++c) {
      int32_t a = x[(8 + r) * 128 + 16 + c];
      ASSERT_EQ(got_old[r * 64 + c], acc[r * 128 + c]) << r << "," << c;
      ASSERT_EQ(got_acc[r * 128 + c], a) << r << "," << c;
      ASSERT_EQ(got_acc[r * 128 + 64 + c], Wrap(int64_t{acc[r * 128 + 64 + c]} + a)) << r << "," << c;
    }
  }
}

// slice, concat, reshape, dynamic extract and insert, and dense constants.
TEST(LargeValuesTest, ShapeOps) {
  std::vector<int32_t> x = Ints(64 * 128, 5);
  std::string list;
  for (int i = 0; i < 256; ++i) list += (i ? ", " : "") + std::to_string(i * 7 - 100);
  testing::Run run = RunText(R"(kernel @k(in %x: vmem<64x128xi32>, out %o: vmem<128x64xi32>,
          out %e: smem<2xi32>, out %c: vmem<256xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %a = get %x[:, :] : vector<64x128xi32>
  %left = slice %a[:, 0:64] : vector<64x64xi32>
  %right = slice %a[:, 64:128] : vector<64x64xi32>
  %cat = concat %right, %left {axis = 0} : vector<128x64xi32>
  %flat = reshape %cat : vector<8192xi32>
  %k = const 4095 : i32
  %v = extract %flat[%k] : i32
  %neg = const -1 : i32
  %ins = insert %neg, %flat[%k] : vector<8192xi32>
  %back = reshape %ins : vector<128x64xi32>
  store %o[:, :], %back
  store %e[0], %v
  %w = extract %back[5, 7] : i32
  store %e[1], %w
  %list = const dense<[)" + list + R"(]> : vector<256xi32>
  store %c[:], %list
}
)",
                             {{"x", Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<int32_t> o = run.As<int32_t>("o");
  std::vector<int32_t> want(128 * 64);
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 64; ++c) {
      want[r * 64 + c] = x[r * 128 + 64 + c];
      want[(64 + r) * 64 + c] = x[r * 128 + c];
    }
  }
  int32_t extracted = want[4095];
  want[4095] = -1;
  EXPECT_EQ(o, want);
  EXPECT_EQ(run.As<int32_t>("e"), (std::vector<int32_t>{extracted, want[5 * 64 + 7]}));
  std::vector<int32_t> c = run.As<int32_t>("c");
  for (int i = 0; i < 256; ++i) ASSERT_EQ(c[i], i * 7 - 100);
}

// Large loop carries live in buffers of their own: a loop that swaps two carries
// each iteration must read both before writing either.
TEST(LargeValuesTest, LoopCarries) {
  std::vector<int32_t> x = Ints(2 * 32 * 32, 6);
  testing::Run run = RunText(R"(kernel @k(in %x: vmem<2x32x32xi32>, out %o: vmem<3x32x32xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %a = get %x[0] : vector<32x32xi32>
  %b = get %x[1] : vector<32x32xi32>
  %one = const dense<1> : vector<32x32xi32>
  %p, %q = for %i = 0 to 5 step 1 iter(%u = %a, %v = %b) : vector<32x32xi32>, vector<32x32xi32> {
    %u1 = add %u, %one : vector<32x32xi32>
    yield %v, %u1
  }
  store %o[0], %p
  store %o[1], %q
  %n, %s = while iter(%j = 0, %t = %a) : i32, vector<32x32xi32> cond {
    %go = cmp lt %j, 3 : i1
    condition %go
  } body {
    %j1 = add %j, 1 : i32
    %t1 = add %t, %t : vector<32x32xi32>
    yield %j1, %t1
  }
  %big = cmp gt %n, 2 : i1
  %r = if %big : vector<32x32xi32> {
    yield %s
  } else {
    yield %a
  }
  store %o[2], %r
}
)",
                             {{"x", Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<int32_t> o = run.As<int32_t>("o");
  // Five swaps-with-increment: p = b + 2 (iterations 2 and 4 add to b), q = a + 3.
  for (int i = 0; i < 32 * 32; ++i) {
    ASSERT_EQ(o[i], Wrap(int64_t{x[1024 + i]} + 2)) << i;
    ASSERT_EQ(o[1024 + i], Wrap(int64_t{x[i]} + 3)) << i;
    ASSERT_EQ(o[2048 + i], Wrap(int64_t{x[i]} * 8)) << i;
  }
}

// debug_print of a large value prints every element, flattened, as for a small one.
TEST(LargeValuesTest, DebugPrint) {
  testing::Run run = RunText(R"(kernel @k()
    mesh vector(cores = 1, subcores = 1)
{
  %v = const dense<2> : vector<2x130xi32>
  debug_print "v" %v
}
)");
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::string elems = "2";
  for (int i = 1; i < 260; ++i) elems += ", 2";
  EXPECT_EQ(run.log, "[core 0, subcore 0] v, data: s32[260]: " + elems + "\n");
}

// Compile time grows with the number of ops, not the size of values: the
// emitted LLVM IR of a kernel over 256 KiB values has no vector type wider
// than one chunk (64 elements) and stays short.
TEST(LargeValuesTest, EmittedIrStaysSmall) {
  const std::string text = R"(kernel @k(inout %x: vmem<512x128xf32>)
    mesh vector(cores = 1, subcores = 1)
{
  %a = get %x[:, :] : vector<512x128xf32>
  %b = mul %a, %a : vector<512x128xf32>
  %c = add %b, %a : vector<512x128xf32>
  store %x[:, :], %c
}
)";
  Compiler compiler;
  absl::StatusOr<std::string> llvm = compiler.Emit(Source{"big.scir", text}, Stage::kLlvmOpt);
  ASSERT_TRUE(llvm.ok()) << llvm.status();
  std::regex vec(R"(<(\d+) x )");
  int widest = 0;
  for (auto it = std::sregex_iterator(llvm->begin(), llvm->end(), vec); it != std::sregex_iterator(); ++it) {
    widest = std::max(widest, std::stoi((*it)[1]));
  }
  EXPECT_LE(widest, 64);
  EXPECT_GT(widest, 1);
  EXPECT_LT(llvm->size(), 40000u);  // (with the init check's shadows, chunk loops too)

  std::vector<float> x = Floats(512 * 128, 7);
  testing::Run run = RunText(text, {{"x", Bytes(x)}});
  ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
  std::vector<float> got = run.As<float>("x");
  for (size_t i = 0; i < x.size(); ++i) {
    float want = x[i] * x[i] + x[i];
    ASSERT_EQ(std::memcmp(&got[i], &want, 4), 0) << i;
  }
}

// Large values live on the subcore's stack: a kernel whose values need more than
// the default 1 MiB stack gets bigger stacks, on every thread count.
TEST(LargeValuesTest, FramesLargerThanTheDefaultStack) {
  const std::string text = R"(kernel @k(inout %x: vmem<512x128xf32>)
    mesh vector(cores = 1, subcores = 2)
{
  %a = get %x[:, :] : vector<512x128xf32>
  %b = add %a, %a : vector<512x128xf32>
  %c = mul %b, %a : vector<512x128xf32>
  %d = sub %c, %b : vector<512x128xf32>
  %e = add %d, %c : vector<512x128xf32>
  %f = mul %e, %d : vector<512x128xf32>
  %g = add %f, %a : vector<512x128xf32>
  store %x[:, :], %g
}
)";
  std::vector<float> x = Floats(512 * 128, 8);
  for (int threads : {1, 2}) {
    LaunchOptions launch;
    launch.threads = threads;
    CompileOptions compile;
    compile.opt_level = 0;  // no stack slot sharing: the frame is the sum of the values
    testing::Run run = RunText(text, {{"x", Bytes(x)}}, compile, launch);
    ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
    std::vector<float> got = run.As<float>("x");
    for (size_t i = 0; i < x.size(); ++i) {
      float a = x[i], b = a + a, c = b * a, d = c - b, e = d + c, f = e * d, want = f + a;
      ASSERT_EQ(std::memcmp(&got[i], &want, 4), 0) << i;
    }
  }
}

}  // namespace
}  // namespace scjit
