// Pallas spellings .scir accepts as they are (docs/pallas.md): `ref[...]` for the
// whole ref, `...` for the dimensions an indexer leaves unnamed, and a scalar
// literal broadcast against a vector (`x + 1`). Each computes what the explicit
// form computes, on 8 and 16 lanes.
#include <algorithm>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/kernel_runner.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

using testing::Bytes;
using testing::RunText;

std::vector<int32_t> Iota(int n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

class PallasSpellingsTest : public ::testing::TestWithParam<int> {
 protected:
  int lanes() const { return GetParam(); }
  std::string target() const { return lanes() == 8 ? "v6e" : "v7x"; }
  // `text` with L replaced by the lane count.
  std::string Kernel(const std::string& text) const {
    return absl::StrReplaceAll(text, {{"<L>", std::to_string(lanes())}, {"<T>", target()}});
  }
};

// o[0] = x[0] + 1 with `[...]` on every ref; o[1] = x[1] with `[1, ...]`.
TEST_P(PallasSpellingsTest, EllipsisIsTheWholeRefOrTheUnnamedDims) {
  testing::Run r = RunText(Kernel(R"(target "<T>"
kernel @k(in %x: hbm<2x<L>xi32>, out %o: hbm<2x<L>xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<2x<L>xi32>, %row: vmem<<L>xi32>, %sem: dma_sem)
{
  copy %x[...] -> %buf[...]
  %v = get %buf[0, ...] : vector<<L>xi32>
  %one = const dense<1> : vector<<L>xi32>
  %w = add %v, %one : vector<<L>xi32>
  store %row[...], %w
  dma_start %row[...] -> %o[0, ...], %sem
  dma_wait %row[...] -> %o[0, ...], %sem
  %u = get %buf[..., ds(0, <L>)] : vector<2x<L>xi32>
  %second = slice %u[1:2, ...] : vector<1x<L>xi32>
  %flat = reshape %second : vector<<L>xi32>
  store %row, %flat
  copy %row -> %o[1]
}
)"),
                           {{"x", Bytes(Iota(2 * lanes()))}});
  ASSERT_TRUE(r.ok()) << r.diagnostics << r.Findings();
  std::vector<int32_t> want = Iota(2 * lanes());
  for (int i = 0; i < lanes(); ++i) want[i] += 1;
  EXPECT_EQ(r.As<int32_t>("o"), want);
}

// Every elementwise form that takes a literal for a vector operand.
TEST_P(PallasSpellingsTest, ScalarLiteralsBroadcastAgainstVectors) {
  testing::Run r = RunText(Kernel(R"(target "<T>"
kernel @k(in %x: hbm<<L>xi32>, out %o: hbm<<L>xi32>, out %f: hbm<<L>xf32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<<L>xi32>, %fbuf: vmem<<L>xf32>)
{
  copy %x -> %buf
  %v = get %buf : vector<<L>xi32>
  %a = mul %v, 3 : vector<<L>xi32>          // 3x
  %b = sub 100, %a : vector<<L>xi32>        // 100 - 3x
  %m = cmp lt %b, 90 : vector<<L>xi1>       // x > 3
  %c = select %m, %b, -1 : vector<<L>xi32>  // x > 3 ? 100 - 3x : -1
  %d = clamp 0, %c, 0x50 : vector<<L>xi32>  // in [0, 80]
  store %buf, %d
  copy %buf -> %o
  %g = convert %v : vector<<L>xf32>
  %h = mul %g, 0.5 : vector<<L>xf32>
  %k = max %h, 2 : vector<<L>xf32>          // an integer literal stands for a float
  store %fbuf, %k
  copy %fbuf -> %f
}
)"),
                           {{"x", Bytes(Iota(lanes()))}});
  ASSERT_TRUE(r.ok()) << r.diagnostics << r.Findings();
  std::vector<int32_t> want_o;
  std::vector<float> want_f;
  for (int x = 0; x < lanes(); ++x) {
    int c = 100 - 3 * x < 90 ? 100 - 3 * x : -1;
    want_o.push_back(std::clamp(c, 0, 80));
    want_f.push_back(std::max(x * 0.5f, 2.0f));
  }
  EXPECT_EQ(r.As<int32_t>("o"), want_o);
  EXPECT_EQ(r.As<float>("f"), want_f);
}

INSTANTIATE_TEST_SUITE_P(Lanes, PallasSpellingsTest, ::testing::Values(8, 16),
                         [](const ::testing::TestParamInfo<int>& info) { return std::to_string(info.param) + "_lanes"; });

// A literal broadcast is an ordinary constant: it prints as one, and a literal
// out of the element type's range is reported where it is written.
TEST(PallasSpellingsIrTest, TheBroadcastPrintsAsAConstant) {
  std::string dir = testing::TempDir();
  {
    std::ofstream(dir + "/k.scir") << R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  copy %x[...] -> %buf
  %v = get %buf[...] : vector<16xi32>
  %w = add %v, 1 : vector<16xi32>
  store %buf[...], %w
  copy %buf -> %o
}
)";
  }
  testing::CommandResult r = testing::RunCommand("cd '" + dir + "' && '" SCJIT_JIT_RUN "' k.scir --emit ir");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  copy %x -> %buf
  %v = get %buf : vector<16xi32>
  %splat.7.16 = const dense<1> : vector<16xi32>
  %w = add %v, %splat.7.16 : vector<16xi32>
  store %buf, %w
  copy %buf -> %o
}
)");
  testing::Checked c = testing::Check(R"(kernel @k(out %o: hbm<16xi8>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi8>)
{
  %v = get %buf : vector<16xi8>
  %w = add %v, 300 : vector<16xi8>
}
)");
  EXPECT_EQ(c.diagnostics, R"(k.scir:6:16: error[IR-LITERAL]: literal 300 does not fit in i8
    6 |   %w = add %v, 300 : vector<16xi8>
      |                ^~~
)");
}

// `--explain` takes a code in any case.
TEST(PallasSpellingsIrTest, ExplainTakesAnyCase) {
  testing::CommandResult lower = testing::RunCommand("'" SCJIT_JIT_RUN "' --explain get-1");
  testing::CommandResult upper = testing::RunCommand("'" SCJIT_JIT_RUN "' --explain GET-1");
  EXPECT_EQ(lower.exit_code, 0);
  EXPECT_EQ(lower.out, upper.out);
  EXPECT_EQ(lower.out.rfind("GET-1: ", 0), 0u) << lower.out;
}

}  // namespace
}  // namespace scjit
