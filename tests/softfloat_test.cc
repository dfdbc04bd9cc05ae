// The soft-float helpers of runtime/softfloat.h: called directly with the psABI's
// _Float16 register convention, and through the JIT from code compiled for a
// baseline x86-64 CPU (no F16C, no AVX512-BF16), where LLVM legalizes every
// f16/bf16 conversion with a call to them. References: tests/float_reference.h.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "jit/jit_session.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "runtime/softfloat.h"
#include "tests/float_reference.h"

namespace scjit {
namespace {

using testing::FloatValue;
using testing::IsNanBits;
using testing::kBf16Format;
using testing::kF16Format;
using testing::RoundToFormat;

uint16_t RoundF16(double x) { return static_cast<uint16_t>(RoundToFormat(kF16Format, x)); }
uint16_t RoundBf16(double x) { return static_cast<uint16_t>(RoundToFormat(kBf16Format, x)); }
double F16Value(uint16_t h) { return FloatValue(kF16Format, h); }

template <typename Fn>
Fn Helper(std::string_view name) {
  for (const SoftFloatSymbol& s : SoftFloatSymbols()) {
    if (s.name == name) return reinterpret_cast<Fn>(const_cast<void*>(s.address));
  }
  return nullptr;
}

// Floats whose rounding to 16 bits is interesting: every exponent with mantissas
// around the ties of both formats, and random patterns.
std::vector<float> Floats() {
  std::vector<float> v;
  const uint32_t low[] = {0, 1, 0xFFF, 0x1000, 0x1001, 0x3000, 0x7FFF, 0x8000, 0x8001, 0x18000, 0x7FFFFF, 0x400000};
  for (uint32_t e = 0; e < 256; ++e) {
    for (uint32_t m : low) {
      for (uint32_t sign : {0u, 0x80000000u}) v.push_back(std::bit_cast<float>(sign | e << 23 | m));
    }
  }
  std::mt19937 rng(1);
  for (int i = 0; i < 4096; ++i) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  return v;
}

TEST(SoftFloatTest, HelpersDirectly) {
  auto extend_hf = Helper<float (*)(_Float16)>("__extendhfsf2");
  auto extend_hf_df = Helper<double (*)(_Float16)>("__extendhfdf2");
  auto extend_bf = Helper<float (*)(_Float16)>("__extendbfsf2");
  auto trunc_hf = Helper<_Float16 (*)(float)>("__truncsfhf2");
  auto trunc_df_hf = Helper<_Float16 (*)(double)>("__truncdfhf2");
  auto trunc_bf = Helper<_Float16 (*)(float)>("__truncsfbf2");
  auto trunc_df_bf = Helper<_Float16 (*)(double)>("__truncdfbf2");
  ASSERT_TRUE(extend_hf && extend_hf_df && extend_bf && trunc_hf && trunc_df_hf && trunc_bf && trunc_df_bf);
  for (uint32_t i = 0; i < 65536; ++i) {
    auto h = static_cast<uint16_t>(i);
    _Float16 arg = std::bit_cast<_Float16>(h);
    float f = extend_hf(arg);
    if (IsNanBits(kF16Format, h)) {
      ASSERT_EQ(std::bit_cast<uint32_t>(f), (h & 0x8000u) << 16 | 0x7F800000u | (h & 0x3FFu) << 13) << i;
    } else {
      ASSERT_EQ(f, F16Value(h)) << i;
      ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << i;
      ASSERT_EQ(extend_hf_df(arg), F16Value(h)) << i;
    }
    ASSERT_EQ(std::bit_cast<uint32_t>(extend_bf(arg)), i << 16) << i;
  }
  for (float f : Floats()) {
    uint32_t b = std::bit_cast<uint32_t>(f);
    uint16_t hf = std::bit_cast<uint16_t>(trunc_hf(f)), bf = std::bit_cast<uint16_t>(trunc_bf(f));
    if (std::isnan(f)) {
      ASSERT_TRUE(IsNanBits(kF16Format, hf) && IsNanBits(kBf16Format, bf)) << std::hex << b;
      ASSERT_EQ(bf, (b >> 16) | 0x40) << std::hex << b;
      continue;
    }
    ASSERT_EQ(hf, RoundF16(f)) << std::hex << b;
    ASSERT_EQ(bf, RoundBf16(f)) << std::hex << b;
    ASSERT_EQ(std::bit_cast<uint16_t>(trunc_df_hf(f)), RoundF16(f)) << std::hex << b;
    ASSERT_EQ(std::bit_cast<uint16_t>(trunc_df_bf(f)), RoundBf16(f)) << std::hex << b;
  }
  // From a double, one rounding: 1 + 2^-8 + 2^-30 is just above a bf16 tie
  // (rounding through float first would land on the tie and go to even).
  double d = 1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(std::bit_cast<uint16_t>(trunc_df_bf(d)), 0x3F81);
  EXPECT_EQ(std::bit_cast<uint16_t>(trunc_df_hf(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))), 0x3C01);
}

// A module compiled for a baseline x86-64 (its functions say so, which overrides
// the host CPU the session would use): LLVM turns each conversion into a call to
// a helper, which the JIT must resolve. Debian 12's libgcc has no bf16 helpers.
TEST(SoftFloatTest, BaselineCpuCodeLinksAndRounds) {
  absl::StatusOr<std::unique_ptr<JitSession>> session = JitSession::Create(2);
  ASSERT_TRUE(session.ok()) << session.status();
  EmittedKernel k;
  k.context = std::make_unique<llvm::LLVMContext>();
  k.module = std::make_unique<llvm::Module>("softfloat", *k.context);
  k.function = "softfloat_conversions";
  llvm::IRBuilder<> b(*k.context);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy()}, false),
                                    llvm::Function::ExternalLinkage, k.function, *k.module);
  fn->addFnAttr("target-cpu", "x86-64");
  fn->addFnAttr("target-features", "+sse2,-f16c,-avx512bf16,-avx512fp16");
  b.SetInsertPoint(llvm::BasicBlock::Create(*k.context, "entry", fn));
  // Layout of the buffer: 8 floats | 4 doubles | 8 f16 | 8 bf16 | 4 f16 | 4 bf16 | 8 floats | 8 floats
  llvm::Value* p = fn->getArg(0);
  auto at = [&](int offset) { return b.CreateConstGEP1_32(b.getInt8Ty(), p, offset); };
  auto vec = [&](llvm::Type* t, unsigned n) { return llvm::FixedVectorType::get(t, n); };
  llvm::Value* f = b.CreateLoad(vec(b.getFloatTy(), 8), at(0));
  llvm::Value* d = b.CreateLoad(vec(b.getDoubleTy(), 4), at(32));
  llvm::Value* h = b.CreateFPTrunc(f, vec(b.getHalfTy(), 8));
  llvm::Value* bf = b.CreateFPTrunc(f, vec(b.getBFloatTy(), 8));
  b.CreateStore(h, at(64));
  b.CreateStore(bf, at(80));
  b.CreateStore(b.CreateFPTrunc(d, vec(b.getHalfTy(), 4)), at(96));
  b.CreateStore(b.CreateFPTrunc(d, vec(b.getBFloatTy(), 4)), at(104));
  b.CreateStore(b.CreateFPExt(h, vec(b.getFloatTy(), 8)), at(112));
  b.CreateStore(b.CreateFPExt(bf, vec(b.getFloatTy(), 8)), at(144));
  b.CreateRet(b.getInt32(0));
  absl::StatusOr<KernelFn> entry = (*session)->Add(std::move(k));
  ASSERT_TRUE(entry.ok()) << entry.status();
  auto run = reinterpret_cast<int32_t (*)(void*)>(*entry);

  const float in[8] = {1.0f + 0x1p-8f, 1.0f + 0x1p-11f, 0x1p-134f, 65520.0f, -0.0f, 0x1p-25f * 3, -3.14159f, 1e-30f};
  const double din[4] = {1 + 0x1p-8 + 0x1p-30, 1 + 0x1p-11 + 0x1p-40, -1e6, 0x1p-26};
  alignas(64) uint8_t buf[176] = {};
  std::memcpy(buf, in, sizeof(in));
  std::memcpy(buf + 32, din, sizeof(din));
  ASSERT_EQ(run(buf), 0);
  auto load = [&](auto v, int offset) {
    std::memcpy(&v, buf + offset, sizeof(v));
    return v;
  };
  for (int i = 0; i < 8; ++i) {
    uint16_t hf = load(uint16_t{}, 64 + 2 * i), bf = load(uint16_t{}, 80 + 2 * i);
    EXPECT_EQ(hf, RoundF16(in[i])) << i;
    EXPECT_EQ(bf, RoundBf16(in[i])) << i;
    EXPECT_EQ(load(float{}, 112 + 4 * i), F16Value(hf)) << i;
    EXPECT_EQ(load(uint32_t{}, 144 + 4 * i), static_cast<uint32_t>(bf) << 16) << i;
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(load(uint16_t{}, 96 + 2 * i), RoundF16(din[i])) << i;
    EXPECT_EQ(load(uint16_t{}, 104 + 2 * i), RoundBf16(din[i])) << i;
  }
}

}  // namespace
}  // namespace scjit
