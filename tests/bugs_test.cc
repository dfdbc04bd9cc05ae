// The planted-bug corpus of tests/bugs/ (tests/bugs/README.md): every bug kernel
// run by jit-run must fail with the finding its `// expect: CODE LINE:COL` header
// names as its first finding, and its `.fixed.scir` twin must run clean.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

constexpr char kCorpusDir[] = "tests/bugs";
constexpr char kFixedSuffix[] = ".fixed.scir";

// How the corpus is run. Everything that differs between engines is here, so the
// interpreter runs the same corpus through the same RunKernel.
struct CorpusOptions {
  // jit-run --engine NAME; empty: jit-run's default (jit), without the option.
  std::string engine;
  std::string extra_args;      // further jit-run options, for every kernel
};

// What one run of a corpus kernel gave.
struct Outcome {
  int exit_code = -1;
  std::string err;  // jit-run's whole stderr
  // The first diagnostic on stderr ("FILE:LINE:COL: error[CODE]: ..."), if any.
  std::optional<std::string> first_code, first_location, first_severity;
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Basename(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// The text after `// KEY:` on the first line that starts so, trimmed; none if no
// line does.
std::optional<std::string> Header(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line, prefix = "// " + key + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) {
      std::string value = line.substr(prefix.size());
      value.erase(0, value.find_first_not_of(' '));
      value.erase(value.find_last_not_of(' ') + 1);
      return value;
    }
  }
  return std::nullopt;
}

// Runs the corpus kernel at `path` (under the repository) with jit-run, the
// options of its `// args:` header and `options`, from the kernel's directory.
Outcome RunKernel(const std::string& path, const CorpusOptions& options) {
  std::filesystem::path p(testing::SourceDir() + "/" + path);
  std::string args = Header(testing::ReadFile(p.string()), "args").value_or("");
  testing::CommandResult r =
      testing::RunCommand("cd '" + p.parent_path().string() + "' && '" SCJIT_JIT_RUN "' '" + p.filename().string() +
                          "' " + (options.engine.empty() ? "" : "--engine " + options.engine + " ") + args + " " +
                          options.extra_args);
  Outcome out;
  out.exit_code = r.exit_code;
  out.err = r.err;
  static const std::regex kDiagnostic(R"(^[^:]+:(\d+):(\d+): (error|warning)\[([A-Z0-9-]+)\]: )");
  std::istringstream lines(r.err);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, kDiagnostic)) {
      out.first_location = m[1].str() + ":" + m[2].str();
      out.first_severity = m[3];
      out.first_code = m[4];
      break;
    }
  }
  return out;
}

// The corpus: tests/bugs/*.scir, relative to the repository root, sorted.
std::vector<std::string> CorpusFiles() {
  std::vector<std::string> out;
  for (const std::string& full : testing::FilesIn(kCorpusDir, ".scir")) {
    out.push_back(std::string(kCorpusDir) + "/" + Basename(full));
  }
  return out;
}

class BugCorpusTest : public ::testing::TestWithParam<std::string> {};

// Each kernel on both engines (docs/interpreter.md): the same finding at the same op.
TEST_P(BugCorpusTest, Runs) {
  const std::string& path = GetParam();
  std::string text = testing::ReadFile(testing::SourceDir() + "/" + path);
  for (const char* engine : {"jit", "interp"}) {
    SCOPED_TRACE(std::string("--engine ") + engine);
    Outcome run = RunKernel(path, CorpusOptions{.engine = engine});
    if (EndsWith(path, kFixedSuffix)) {
      EXPECT_FALSE(Header(text, "expect").has_value()) << path << ": a fixed kernel expects no finding";
      EXPECT_EQ(run.exit_code, 0) << path << "\n" << run.err;
      EXPECT_EQ(run.err, "") << path << ": a fixed kernel must run without any finding";
      continue;
    }
    std::optional<std::string> expect = Header(text, "expect");
    ASSERT_TRUE(expect.has_value()) << path << " has no `// expect: CODE LINE:COL` header";
    std::smatch m;
    ASSERT_TRUE(std::regex_match(*expect, m, std::regex(R"(([A-Z0-9-]+) (\d+:\d+))")))
        << path << ": malformed header `// expect: " << *expect << "`";
    EXPECT_EQ(run.exit_code, 1) << path << "\n" << run.err;
    ASSERT_TRUE(run.first_code.has_value()) << path << ": no finding\n" << run.err;
    EXPECT_EQ(*run.first_severity, "error") << run.err;
    EXPECT_EQ(*run.first_code, m[1].str()) << run.err;
    EXPECT_EQ(*run.first_location, m[2].str()) << run.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, BugCorpusTest, ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = Basename(info.param);
                           name = name.substr(0, name.size() - 5);  // ".scir"
                           std::replace_if(
                               name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                               '_');
                           return name;
                         });

TEST(BugCorpusLayoutTest, EveryBugHasAFixedVersionAndViceVersa) {
  std::set<std::string> files;
  for (const std::string& path : CorpusFiles()) files.insert(Basename(path));
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    if (EndsWith(f, kFixedSuffix)) {
      std::string bug = f.substr(0, f.size() - std::string(kFixedSuffix).size()) + ".scir";
      EXPECT_TRUE(files.count(bug)) << f << " has no bug kernel " << bug;
    } else {
      std::string fixed = f.substr(0, f.size() - 5) + kFixedSuffix;
      EXPECT_TRUE(files.count(fixed)) << f << " has no fixed version " << fixed;
    }
  }
}

// A row of a README table naming a kernel: | what | `file.scir` | `CODE` | ...
struct Row {
  std::string what, file, code;
};

// The rows of README.md's tables under the `## heading` section, up to the next.
std::vector<Row> ReadmeRows(const std::string& heading) {
  std::istringstream in(testing::ReadFile(testing::SourceDir() + "/" + kCorpusDir + "/README.md"));
  static const std::regex kRow(R"(^\| *([^|]*[^| ]) *\| *`([^`]+\.scir)` *\| *`([A-Z0-9-]+)` *\|)");
  std::vector<Row> rows;
  std::string line, section;
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) section = line.substr(3);
    if (section == heading && std::regex_search(line, m, kRow)) rows.push_back({m[1], m[2], m[3]});
  }
  return rows;
}

// README.md's corpus table lists each class with its kernel and the code the
// kernel expects; every bug kernel of the corpus is in the table.
TEST(BugCorpusLayoutTest, ReadmeListsEveryClassAndKernel) {
  std::vector<Row> rows = ReadmeRows("The corpus");
  ASSERT_FALSE(rows.empty()) << "no table under `## The corpus` in tests/bugs/README.md";
  std::set<std::string> listed;
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    std::string path = testing::SourceDir() + "/" + kCorpusDir + "/" + row.file;
    ASSERT_TRUE(std::filesystem::exists(path)) << row.file << " is not in " << kCorpusDir;
    EXPECT_FALSE(EndsWith(row.file, kFixedSuffix)) << "the table names bug kernels, not fixed ones";
    std::optional<std::string> expect = Header(testing::ReadFile(path), "expect");
    ASSERT_TRUE(expect.has_value()) << row.file;
    EXPECT_EQ(expect->substr(0, expect->find(' ')), row.code) << row.file;
    listed.insert(row.file);
  }
  for (const std::string& path : CorpusFiles()) {
    std::string f = Basename(path);
    if (!EndsWith(f, kFixedSuffix)) {
      EXPECT_TRUE(listed.count(f)) << f << " is missing from README.md's table";
    }
  }
}

// The known gaps (README.md, `## Known gaps`) are kernels scjit does not yet
// report as they expect; they live in gaps/, out of the corpus the test runs.
TEST(BugCorpusLayoutTest, KnownGapsAreKeptApart) {
  for (const Row& row : ReadmeRows("Known gaps")) {
    EXPECT_TRUE(std::filesystem::exists(testing::SourceDir() + "/" + kCorpusDir + "/gaps/" + row.file)) << row.file;
    EXPECT_FALSE(std::filesystem::exists(testing::SourceDir() + "/" + kCorpusDir + "/" + row.file))
        << row.file << " is both a known gap and in the corpus";
  }
}

}  // namespace
}  // namespace scjit
