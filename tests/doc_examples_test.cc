// Every `.scir` example of docs/ and the README does what its page says. Fenced
// blocks whose tag starts with `scir` are extracted and checked by their tag
// (docs/language.md §1 describes the tags to readers):
//
//   scir          a whole file: it compiles, and each of its kernels, launched with
//                 `iota` in every in/inout parameter (jit-run's default), runs
//                 without a finding
//   scir-prelude  the kernel that scir-ops fragments go into, open at its end (one,
//                 in docs/language.md); it compiles when closed
//   scir-ops      ops placed at the end of the prelude: they compile
//   scir-error    something scjit rejects, with `error[CODE]` in a comment: a
//                 fragment (in the prelude) or a whole kernel fails to compile with
//                 CODE as its first error, or a whole kernel that compiles reports
//                 CODE when launched
//
// Any other `scir` tag, or a word after the tag, is an error.
//
// Blocks are compiled under the page's name with their lines where the page has
// them, so a failure reads `docs/language.md:120:5: error[...]`.
#include <algorithm>
#include <regex>
#include <span>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scjit/scjit.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

struct Block {
  std::string page;  // relative to the repository root
  int line = 0;      // of the block's first line (after the opening fence)
  std::string tag;   // "scir", "scir-ops", ...
  std::string text;  // with the fence's indentation removed
};

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

// The blocks of `page` whose fence tag starts with `scir`. A malformed fence is
// added to `problems` (an unterminated block is dropped).
std::vector<Block> ScirBlocks(const std::string& page, std::vector<std::string>* problems) {
  static const std::regex kOpen(R"(^( *)```(scir[A-Za-z0-9_-]*)(.*)$)");
  static const std::regex kClose(R"(^ *``` *$)");
  std::vector<std::string> lines = SplitLines(testing::ReadFile(testing::SourceDir() + "/" + page));
  std::vector<Block> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, kOpen)) continue;
    Block b{page, static_cast<int>(i) + 2, m[2], ""};
    std::string rest = m[3];
    rest.erase(0, rest.find_first_not_of(' '));
    rest.erase(rest.find_last_not_of(' ') + 1);
    if (!rest.empty()) {
      problems->push_back(page + ":" + std::to_string(i + 1) + ": unknown words after the fence tag: '" + rest + "'");
    }
    size_t indent = m[1].length();
    size_t j = i + 1;
    for (; j < lines.size() && !std::regex_match(lines[j], kClose); ++j) {
      b.text += lines[j].substr(std::min(indent, lines[j].find_first_not_of(' ')));
      b.text += '\n';
    }
    if (j == lines.size()) {
      problems->push_back(page + ":" + std::to_string(i + 1) + ": the ```" + b.tag + " block is never closed");
      break;
    }
    out.push_back(std::move(b));
    i = j;
  }
  return out;
}

// Whether `text` is a whole file (a kernel or a target line first) rather than a
// fragment of ops.
bool IsWholeFile(const std::string& text) {
  static const std::regex kStart(R"(^(\s*//[^\n]*\n|\s*\n)*\s*(kernel|target)\b)");
  return std::regex_search(text, kStart);
}

std::vector<std::string> KernelNames(const std::string& text) {
  static const std::regex kKernel(R"(kernel\s+@([A-Za-z_][A-Za-z0-9_.]*))");
  std::vector<std::string> names;
  for (std::sregex_iterator it(text.begin(), text.end(), kKernel), end; it != end; ++it) names.push_back((*it)[1]);
  return names;
}

// `text` preceded by blank lines so that its first line is line `line`, when the
// lines before it (`used`) leave room; diagnostics then give page lines.
std::string AtLine(const std::string& before, const std::string& text, int line) {
  int used = static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  int pad = line - 1 - used;
  return before + std::string(pad > 0 ? pad : 0, '\n') + text;
}

class DocExamples : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pages_ = new std::vector<std::string>();
    for (const std::string& path : testing::FilesIn("docs", ".md")) {
      pages_->push_back(path.substr(testing::SourceDir().size() + 1));
    }
    pages_->push_back("README.md");
    blocks_ = new std::vector<Block>();
    problems_ = new std::vector<std::string>();
    for (const std::string& page : *pages_) {
      for (Block& b : ScirBlocks(page, problems_)) blocks_->push_back(std::move(b));
    }
  }

  // The source of block `b`: a whole file as it is, a fragment inside the
  // prelude and closed.
  static std::string SourceOf(const Block& b, const std::string& prelude) {
    if (IsWholeFile(b.text)) return AtLine("", b.text, b.line);
    return AtLine(prelude, b.text, b.line) + "}\n";
  }

  // The prelude's text (one block, in docs/language.md); "" if there is none.
  static std::string Prelude() {
    std::string prelude;
    for (const Block& b : *blocks_) {
      if (b.tag == "scir-prelude") prelude = b.text;
    }
    return prelude;
  }

  static absl::StatusOr<Kernel> Compile(const Block& b, const std::string& source, const std::string& kernel) {
    static Compiler* compiler = new Compiler();
    CompileOptions options;
    options.kernel = kernel;
    return compiler->Compile(Source{b.page, source}, options);
  }

  // Launches `k` with iota in every in/inout parameter (the rest zero; `out`
  // buffers start as poison whatever they hold).
  static absl::StatusOr<LaunchResult> LaunchWithIota(const Kernel& k) {
    absl::StatusOr<std::vector<Buffer>> buffers = k.AllocateParams();
    if (!buffers.ok()) return buffers.status();
    std::span<const ParamInfo> params = k.params();
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].semaphore || params[i].direction == ParamDirection::kOut) continue;
      absl::StatusOr<Buffer> iota = Generate("iota", params[i].dtype, params[i].shape);
      if (!iota.ok()) return iota.status();
      (*buffers)[i] = *std::move(iota);
    }
    LaunchOptions options;
    options.threads = 2;
    options.time_limit_seconds = 120;
    return k.Launch(*buffers, options);
  }

  static std::string Where(const Block& b) { return b.page + ":" + std::to_string(b.line); }

  static std::vector<std::string>* pages_;
  static std::vector<Block>* blocks_;
  static std::vector<std::string>* problems_;  // malformed fences
};

std::vector<std::string>* DocExamples::pages_ = nullptr;
std::vector<Block>* DocExamples::blocks_ = nullptr;
std::vector<std::string>* DocExamples::problems_ = nullptr;

TEST_F(DocExamples, EveryFenceIsWellFormed) {
  for (const std::string& problem : *problems_) ADD_FAILURE() << problem;
  static const std::vector<std::string> kTags = {"scir", "scir-prelude", "scir-ops", "scir-error"};
  int preludes = 0;
  for (const Block& b : *blocks_) {
    bool known = std::find(kTags.begin(), kTags.end(), b.tag) != kTags.end();
    EXPECT_TRUE(known) << Where(b) << ": unknown fence tag ```" << b.tag << " (the tags are scir, scir-prelude, scir-ops, scir-error)";
    if (b.tag == "scir-prelude") {
      ++preludes;
      EXPECT_EQ(b.page, "docs/language.md") << Where(b) << ": the prelude belongs to docs/language.md";
    }
  }
  EXPECT_EQ(preludes, 1) << "docs/language.md states the names of scir-ops fragments in one scir-prelude block";
}

TEST_F(DocExamples, PreludeCompiles) {
  std::string prelude = Prelude();
  ASSERT_FALSE(prelude.empty());
  Block b{"docs/language.md", 1, "scir-prelude", prelude};
  absl::StatusOr<Kernel> k = Compile(b, prelude + "}\n", "");
  EXPECT_TRUE(k.ok()) << k.status().message();
}

TEST_F(DocExamples, WholeKernelsCompileAndRunWithoutFindings) {
  int kernels = 0;
  for (const Block& b : *blocks_) {
    if (b.tag != "scir") continue;
    EXPECT_TRUE(IsWholeFile(b.text)) << Where(b) << ": a ```scir block is a whole file; fragments are ```scir-ops";
    std::vector<std::string> names = KernelNames(b.text);
    EXPECT_FALSE(names.empty()) << Where(b) << ": no kernel";
    for (const std::string& name : names) {
      ++kernels;
      absl::StatusOr<Kernel> k = Compile(b, SourceOf(b, ""), name);
      if (!k.ok()) {
        ADD_FAILURE() << Where(b) << " @" << name << " does not compile:\n" << k.status().message();
        continue;
      }
      absl::StatusOr<LaunchResult> run = LaunchWithIota(*k);
      if (!run.ok()) {
        ADD_FAILURE() << Where(b) << " @" << name << " did not run: " << run.status().message();
        continue;
      }
      EXPECT_TRUE(run->findings.empty()) << Where(b) << " @" << name << " ran with findings:\n"
                                         << run->RenderFindings();
    }
  }
  EXPECT_GE(kernels, 8);  // so that a bug in finding blocks cannot make this vacuous
}

TEST_F(DocExamples, FragmentsCompileInThePrelude) {
  std::string prelude = Prelude();
  ASSERT_FALSE(prelude.empty());
  int fragments = 0;
  for (const Block& b : *blocks_) {
    if (b.tag != "scir-ops") continue;
    ++fragments;
    EXPECT_FALSE(IsWholeFile(b.text)) << Where(b) << ": a whole kernel belongs in a ```scir block";
    absl::StatusOr<Kernel> k = Compile(b, SourceOf(b, prelude), "");
    EXPECT_TRUE(k.ok()) << Where(b) << ": the fragment does not compile in the prelude:\n" << k.status().message();
  }
  EXPECT_GE(fragments, 10);
}

TEST_F(DocExamples, RejectedExamplesReportTheirCode) {
  static const std::regex kCode(R"(//.*error\[([A-Z0-9]+(-[A-Z0-9]+)*)\])");
  std::string prelude = Prelude();
  int errors = 0;
  for (const Block& b : *blocks_) {
    if (b.tag != "scir-error") continue;
    ++errors;
    std::smatch m;
    if (!std::regex_search(b.text, m, kCode)) {
      ADD_FAILURE() << Where(b) << ": a ```scir-error block names its code in a comment: // error[CODE]";
      continue;
    }
    std::string code = m[1];
    bool whole = IsWholeFile(b.text);
    std::vector<std::string> names = whole ? KernelNames(b.text) : std::vector<std::string>{""};
    for (const std::string& name : names) {
      absl::StatusOr<Kernel> k = Compile(b, SourceOf(b, prelude), name);
      if (!k.ok()) {
        EXPECT_EQ(DiagnosticCodeOf(k.status()), code) << Where(b) << ":\n" << k.status().message();
        continue;
      }
      if (!whole) {
        ADD_FAILURE() << Where(b) << ": the fragment compiles, but the page says it is error[" << code << "]";
        continue;
      }
      absl::StatusOr<LaunchResult> run = LaunchWithIota(*k);
      ASSERT_TRUE(run.ok()) << Where(b) << ": " << run.status().message();
      std::string codes;
      bool found = false;
      for (const Diagnostic& d : run->findings) {
        codes += " " + d.code;
        found = found || d.code == code;
      }
      EXPECT_TRUE(found) << Where(b) << " @" << name << ": compiles, and its launch reports [" << codes
                         << " ] instead of " << code;
    }
  }
  EXPECT_GE(errors, 5);
}

}  // namespace
}  // namespace scjit
