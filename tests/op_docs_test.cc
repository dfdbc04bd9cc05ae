// Every example of the op reference (lowering/ir/op_docs.def, printed in
// docs/ops.md) parses and verifies as written, inside a kernel that declares the
// names the examples use; and all but the TensorCore-only ops pass the SC rules.
#include <string>

#include "gtest/gtest.h"
#include "lowering/base/jax_release.h"
#include "lowering/ir/ir.h"
#include "lowering/rules/sc_rules.h"
#include "scjit/scjit.h"

namespace scjit {
namespace {

constexpr const char kPrelude[] = R"(kernel @k(in %x: hbm<64x16xi32>, out %o: hbm<64x16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%ref: vmem<16xi32>, %buf: vmem<16xi32>, %iv: vmem<16xi32>, %tab: vmem<64x16xi32>,
            %fref: vmem<16xf32>, %sh: vmem_shared<16xi32>, %shared: vmem_shared<8x128xi32>, %smem: smem<16xi32>,
            %sem: dma_sem, %sems: dma_sem<2>, %rsem: sem)
{
  %i = axis_index subcore : i32
  %n = const 4 : i32
  %c = cmp lt %i, %n : i1
  %v = get %ref : vector<16xi32>
  %w = get %buf : vector<16xi32>
  %idx = get %iv : vector<16xi32>
  %a = get %fref : vector<16xf32>
  %b = get %fref : vector<16xf32>
  %m = cmp lt %v, %w : vector<16xi1>
)";

struct Row {
  OpKind kind;
  const char* name;
  const char* example;
};

constexpr Row kRows[] = {
#define SCJIT_OP_DOC(Enum, example, pallas, types) {OpKind::Enum, #Enum, example},
#include "lowering/ir/op_docs.def"
};

TEST(OpDocsTest, EveryExampleCompiles) {
  Compiler compiler;
  for (const Row& row : kRows) {
    std::string text = std::string(kPrelude) + "  " + row.example + "\n}\n";
    // The catalog's release, or the first that lowers the op.
    JaxRelease since = SparseCoreRuleSince(row.kind);
    CompileOptions options;
    options.jax = (since < kCatalogJax ? kCatalogJax : since).ToString();
    absl::StatusOr<std::string> ir = compiler.Emit(Source{"example.scir", text}, Stage::kIr, options);
    if (Info(row.kind).has(kTcOnly)) {
      // Pallas rejects these for SparseCore, and so does scjit — by its SC rule.
      ASSERT_FALSE(ir.ok()) << row.name;
      EXPECT_EQ(DiagnosticCodeOf(ir.status()), "GEN-1") << row.name << "\n" << ir.status().message();
      continue;
    }
    EXPECT_TRUE(ir.ok()) << row.name << ": " << row.example << "\n" << ir.status().message();
  }
}

}  // namespace
}  // namespace scjit
