// The SC rules: Pallas' exact texts for every implemented catalog ID, the seeds
// of sc-rules.md §2 in full, and the rejected/fixed kernels of examples/errors.
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "lowering/rules/sc_rules.h"
#include "scjit/scjit.h"
#include "tests/kernel_runner.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

using testing::Check;
using testing::Checked;


// --- examples/errors: one rejected kernel per code, and its fix -------------------

class ErrorExampleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ErrorExampleTest, FailsWithItsTextAndTheFixCompiles) {
  std::string path = GetParam();
  std::string text = testing::ReadFile(path);
  // First line: `// EXPECT: error[CODE]: Exception: message`.
  std::string expect = text.substr(0, text.find('\n'));
  ASSERT_EQ(expect.substr(0, 11), "// EXPECT: ") << path;
  expect = expect.substr(11);
  Checked bad = Check(text, "", "bad.scir");
  ASSERT_FALSE(bad.ok) << path;
  std::string first = bad.diagnostics.substr(0, bad.diagnostics.find('\n'));
  EXPECT_EQ(first.substr(first.find(' ') + 1), expect) << path;
  EXPECT_EQ(bad.codes.size(), 1u) << bad.diagnostics;

  std::string fixed = path.substr(0, path.size() - 5) + ".fixed.scir";
  Checked good = Check(testing::ReadFile(fixed), "", "fixed.scir");
  EXPECT_TRUE(good.ok) << fixed << "\n" << good.diagnostics;
}

std::vector<std::string> ErrorExamples() {
  std::vector<std::string> out;
  for (const std::string& f : testing::FilesIn("examples/errors", ".scir")) {
    if (f.find(".fixed.") == std::string::npos) out.push_back(f);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Examples, ErrorExampleTest, ::testing::ValuesIn(ErrorExamples()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(info.param.rfind('/') + 1);
                           name = name.substr(0, name.find('.'));
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

// --- The seeds in full: location, caret, note and fix -------------------------------

constexpr const char kHeader[] = R"(kernel @k(inout %acc: smem<16xi32>, in %x: vmem<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
)";

TEST(SeedRulesTest, MaskedScalarStore) {
  Checked c = Check(std::string(kHeader) + "  %m = const true : i1\n  store_compressed %acc[3], 7 mask %m\n}\n");
  EXPECT_EQ(c.diagnostics, R"(k.scir:5:20: error[SWAP-5]: NotImplementedError: Swap does not support masked scalar stores
    5 |   store_compressed %acc[3], 7 mask %m
      |                    ^~~~~~~
note: the target %acc[3] is a 0-d element of smem<16xi32>; the mask is %m : i1
help: use an unmasked scalar `store` inside `if %m { ... }`
)");
}

TEST(SeedRulesTest, AtomicScalarAdd) {
  Checked c = Check(std::string(kHeader) + "  %i = axis_index subcore : i32\n  addupdate %acc[%i], 1\n}\n");
  EXPECT_EQ(c.diagnostics, R"(k.scir:5:13: error[SWAP-6]: NotImplementedError: Swap does not support atomic scalar adds
    5 |   addupdate %acc[%i], 1
      |             ^~~~~~~~
note: the target %acc[%i] is a 0-d element of smem<16xi32>
help: read, add and write (`get`, `add`, `store`), or use `fetch_and_add`
)");
}

TEST(SeedRulesTest, StridedStore) {
  Checked c = Check(std::string(kHeader) +
                    "  %v = get %x[ds(0, 8)] : vector<8xi32>\n  store %x[ds(0, 8, stride = 2)], %v\n}\n");
  EXPECT_EQ(c.diagnostics,
            R"(k.scir:5:12: error[SWAP-2]: NotImplementedError: Swap only supports slices with stride 1, got {strides}
    5 |   store %x[ds(0, 8, stride = 2)], %v
      |            ^~~~~~~~~~~~~~~~~~~~
note: the slice %x[ds(0, 8, stride = 2)] has stride 2
help: store contiguously, or use `store_scatter` with the strided indices
)");
}

TEST(SeedRulesTest, StoreToHbm) {
  Checked c = Check(std::string(kHeader) + "  %v = get %x[:] : vector<16xi32>\n  store %o[:], %v\n}\n");
  EXPECT_EQ(c.diagnostics,
            R"(k.scir:5:9: error[SWAP-1]: NotImplementedError: Swap does not support storing to HBM. Copy the data to a core-local memory space, e.g. VMEM, via `pltpu.async_copy`.
    5 |   store %o[:], %v
      |         ^~~~~
note: %o is hbm<16xi32>
help: stage the value in a vmem scratch ref and `copy` it out, or use `dma_start`
)");
}

// Every error of a file is reported, in source order, one per op.
TEST(SeedRulesTest, AllErrorsInSourceOrder) {
  Checked c = Check(std::string(kHeader) +
                    "  %v = get %o[:] : vector<16xi32>\n  addupdate %acc[0], 1\n  store %o[:], %v\n}\n");
  EXPECT_EQ(c.codes, (std::vector<std::string>{"GET-1", "SWAP-6", "SWAP-1"}));
}

// SHAPE-1 depends on the target's lanes: (8,) is one register on v5p, not on v7x.
TEST(SeedRulesTest, RegisterShapesFollowTheTarget) {
  std::string text = R"(kernel @k(inout %x: vmem<16xi32>, inout %h: vmem<16xi16>)
    mesh vector(cores = 1, subcores = 1)
    attributes {layout_passes = false}
{
  %v = get %x[ds(0, 8)] : vector<8xi32>
  %w = get %h[:] : vector<16xi16>
}
)";
  Checked v7x = Check(text, "v7x");
  EXPECT_EQ(v7x.codes, (std::vector<std::string>{"SHAPE-1", "SHAPE-1"}));
  EXPECT_NE(v7x.diagnostics.find(
                "error[SHAPE-1]: NotImplementedError: Get only supports int32 arrays of shapes [(16,)], got (8,)"),
            std::string::npos);
  EXPECT_NE(v7x.diagnostics.find("error[SHAPE-1]: NotImplementedError: Get only supports int16 arrays of shapes "
                                 "[(32,), (2, 16)], got (16,)"),
            std::string::npos);
  Checked v5p = Check(text, "v5p");
  EXPECT_TRUE(v5p.ok) << v5p.diagnostics;
}

// --- The catalog -------------------------------------------------------------------

// Each implemented rule's catalog example fails with exactly its code, and the
// fixed kernel passes; every implemented rule has such an example.
// (A rule JAX added in a later release is checked with that release's rules.)
TEST(CatalogRulesTest, EveryImplementedRuleHasPassingExamples) {
  for (const ImplementedRule& r : ImplementedRules()) {
    const DiagInfo& info = Info(r.id);
    JaxRelease since = RuleSince(r.id);  // the catalog's rules, with the catalog's words
    std::string jax = (since < kCatalogJax ? kCatalogJax : since).ToString();
    ASSERT_FALSE(info.bad.empty()) << info.code << " has no example kernel";
    Checked bad = Check(std::string(info.bad), "", "k.scir", jax);
    ASSERT_FALSE(bad.codes.empty()) << info.code;
    EXPECT_EQ(bad.codes[0], info.code) << bad.diagnostics;
    Checked good = Check(std::string(info.good), "", "k.scir", jax);
    EXPECT_TRUE(good.ok) << info.code << "\n" << good.diagnostics;
  }
}

}  // namespace
}  // namespace scjit
