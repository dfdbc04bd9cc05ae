// Every catalog ID of sc-errors.md is either implemented as an SC rule (with its
// catalog example kernels, run by sc_rules_test's CatalogRulesTest) or listed as
// not expressible in .scir with a reason — never silently missing.
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "lowering/rules/sc_rules.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

// The spec lives beside the checkout (../shared/spec), or where SCJIT_SPEC_DIR says.
std::string SpecFile(const std::string& name) {
  const char* env = std::getenv("SCJIT_SPEC_DIR");
  std::string dir = env != nullptr ? env : testing::SourceDir() + "/../shared/spec";
  return dir + "/" + name;
}

// The IDs the catalog defines: `**GET-1**` headings and `| PIPE-1 |` table rows.
std::set<std::string> CatalogIds() {
  std::string text = testing::ReadFile(SpecFile("sc-errors.md"));
  std::set<std::string> ids;
  std::regex heading(R"(\*\*([A-Z]+-[0-9]+))"), row(R"(\n\| ([A-Z]+-[0-9]+) \|)");
  for (const std::regex& re : {heading, row}) {
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) ids.insert((*it)[1]);
  }
  return ids;
}

TEST(CatalogTest, EveryIdIsImplementedOrExplained) {
  if (!std::filesystem::exists(SpecFile("sc-errors.md"))) {
    GTEST_SKIP() << "the spec is not at " << SpecFile("sc-errors.md") << " (set SCJIT_SPEC_DIR)";
  }
  std::set<std::string> ids = CatalogIds();
  ASSERT_GT(ids.size(), 250u) << "the catalog's IDs could not be read";
  std::set<std::string> implemented, explained;
  for (const ImplementedRule& r : ImplementedRules()) implemented.insert(std::string(Info(r.id).code));
  for (const NotExpressible& n : NotExpressibleRules()) {
    EXPECT_TRUE(explained.insert(std::string(n.code)).second) << n.code << " is listed twice";
    EXPECT_FALSE(n.reason.empty()) << n.code;
  }
  for (const std::string& id : ids) {
    bool is_implemented = implemented.count(id) > 0, is_explained = explained.count(id) > 0;
    EXPECT_TRUE(is_implemented || is_explained) << id << " is neither implemented nor listed as not expressible";
    EXPECT_FALSE(is_implemented && is_explained) << id << " is implemented and listed as not expressible";
  }
  for (const std::string& id : explained) EXPECT_TRUE(ids.count(id)) << id << " is not a catalog ID";
}

}  // namespace
}  // namespace scjit
