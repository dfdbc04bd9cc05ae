// Every kernel a page of docs/ shows (a fenced block marked `scir`) compiles, so
// a documented example can be copied and run as it is.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scjit/scjit.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

struct Example {
  std::string page;
  int line;  // of the opening fence
  std::string text;
};

std::vector<Example> ScirBlocks(const std::string& page) {
  std::vector<Example> out;
  std::string text = testing::ReadFile(page);
  size_t pos = 0, counted = 0;
  int line = 1;
  while (true) {
    size_t open = text.find("```scir\n", pos);
    if (open == std::string::npos) break;
    size_t body = open + 8;
    size_t close = text.find("\n```", body);
    if (close == std::string::npos) break;
    for (; counted < open; ++counted) line += text[counted] == '\n';
    out.push_back(Example{page, line, text.substr(body, close - body + 1)});
    pos = close + 4;
  }
  return out;
}

TEST(DocExamplesTest, EveryScirBlockCompiles) {
  std::vector<std::string> pages = testing::FilesIn("docs", ".md");
  pages.push_back(testing::SourceDir() + "/README.md");
  Compiler compiler;
  int count = 0;
  for (const std::string& page : pages) {
    for (const Example& e : ScirBlocks(page)) {
      ++count;
      absl::StatusOr<Kernel> k = compiler.Compile(Source{e.page + ":" + std::to_string(e.line), e.text});
      EXPECT_TRUE(k.ok()) << e.page << " line " << e.line << ":\n" << k.status().message();
    }
  }
  EXPECT_GE(count, 1);
}

}  // namespace
}  // namespace scjit
