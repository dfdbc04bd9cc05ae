// The generated reference pages in docs/ match the tables they come from.
#include <string>

#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

void ExpectGenerated(const std::string& what, const std::string& page) {
  testing::CommandResult r = testing::RunCommand("'" SCJIT_DOCS "' " + what);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::ReadFile(testing::SourceDir() + "/" + page), r.out)
      << page << " is stale: regenerate it with `build/scjit-docs " << what << " > " << page << "`";
}

TEST(DocsTest, OpReferenceIsCurrent) { ExpectGenerated("ops", "docs/ops.md"); }
TEST(DocsTest, DiagnosticCodesAreCurrent) { ExpectGenerated("codes", "docs/diagnostics.md"); }
TEST(DocsTest, ScRulesAreCurrent) { ExpectGenerated("rules", "docs/sc-rules.md"); }
TEST(DocsTest, TargetsAreCurrent) { ExpectGenerated("targets", "docs/targets.md"); }

}  // namespace
}  // namespace scjit
