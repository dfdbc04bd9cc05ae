// The two engines against each other: every kernel file of the repository
// (examples, the guide's, the IR tests', the catalog's fixed kernels, the bug
// kernels and the fuzzing corpus) compiled for the JIT and for the interpreter,
// launched with the same inputs and options, must give the same diagnostics,
// the same output bytes of every parameter, the same findings and the same
// debug_print output (docs/interpreter.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "scjit/scjit.h"
#include "tests/test_util.h"

namespace scjit::testing {
namespace {

// The kernel files, relative to the repository root, sorted.
std::vector<std::string> KernelFiles() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  const std::string root = SourceDir();
  auto add = [&](const std::string& dir, bool recursive, const std::string& suffix) {
    fs::path base = fs::path(root) / dir;
    if (!fs::is_directory(base)) return;  // tests/bugs/ may not exist yet
    auto take = [&](const fs::directory_entry& e) {
      std::string name = e.path().filename().string();
      if (!e.is_regular_file() || !name.ends_with(suffix)) return;
      out.push_back(fs::relative(e.path(), root).string());
    };
    if (recursive) {
      for (const auto& e : fs::recursive_directory_iterator(base)) take(e);
    } else {
      for (const auto& e : fs::directory_iterator(base)) take(e);
    }
  };
  add("examples", false, ".scir");
  add("examples/guide", true, ".scir");
  add("examples/errors", false, ".fixed.scir");
  add("tests/ir", true, ".scir");
  add("tests/bugs", false, ".scir");
  add("tests/fuzz/corpus", true, ".scir");
  std::sort(out.begin(), out.end());
  return out;
}

// The kernels a file defines, by name.
std::vector<std::string> KernelNames(const std::string& text) {
  std::vector<std::string> names;
  std::regex kernel(R"(^\s*kernel\s+@([A-Za-z0-9_.$-]+))", std::regex::multiline);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kernel); it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1];
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty()) names.push_back("");  // let the compiler say what is wrong
  return names;
}

// What one launch of one kernel gave.
struct Outcome {
  std::string compile;  // the compile error, if any
  std::vector<std::vector<uint8_t>> params;  // every parameter's bytes after the launch
  std::string findings, log, launch;         // findings rendered, debug_print output, a launch error
};

Compiler& SharedCompiler() {
  static Compiler* compiler = new Compiler();
  return *compiler;
}

// Compiles `kernel` of `source` for `engine` and launches it with every in/inout
// parameter made by the generator `inputs`.
Outcome RunOn(Engine engine, const Source& source, const std::string& kernel, const std::string& inputs,
              const LaunchOptions& launch) {
  Outcome out;
  CompileOptions options;
  options.kernel = kernel;
  options.engine = engine;
  absl::StatusOr<Kernel> compiled = SharedCompiler().Compile(source, options);
  if (!compiled.ok()) {
    out.compile = absl::IsUnimplemented(compiled.status()) ? "unimplemented" : std::string(compiled.status().message());
    if (absl::IsUnimplemented(compiled.status())) ADD_FAILURE() << compiled.status().message();
    return out;
  }
  std::vector<Buffer> buffers;
  for (const ParamInfo& p : compiled->params()) {
    DType dtype = p.semaphore ? DType::kI32 : p.dtype;
    absl::StatusOr<Buffer> b = p.direction == ParamDirection::kOut || p.semaphore ? Buffer::Allocate(dtype, p.shape)
                                                                                   : Generate(inputs, dtype, p.shape);
    if (!b.ok()) {
      out.launch = std::string(b.status().message());
      return out;
    }
    buffers.push_back(*std::move(b));
  }
  LaunchOptions o = launch;
  o.log = [&out](std::string_view text) { out.log += text; };
  absl::StatusOr<LaunchResult> result = compiled->Launch(buffers, o);
  if (!result.ok()) {
    out.launch = std::string(result.status().message());
    return out;
  }
  out.findings = result->RenderFindings();
  for (const Buffer& b : buffers) {
    const uint8_t* bytes = b.data();
    out.params.emplace_back(bytes, bytes + b.bytes());
  }
  return out;
}

class EnginesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(EnginesTest, InterpreterMatchesJit) {
  const std::string& path = GetParam();
  Source source{path, ReadFile(SourceDir() + "/" + path)};
  struct Setting {
    std::string inputs;
    LaunchOptions launch;
  };
  // A time limit stops the bug corpus's endless loop (its header asks for
  // `--time-limit 1`: RT-TIMEOUT at the same op on both engines) instead of the
  // default 600 s; other kernels get one a loaded machine does not reach.
  double limit = source.text.find("--time-limit 1") != std::string::npos ? 1 : 120;
  LaunchOptions one_thread;
  one_thread.threads = 1;
  one_thread.time_limit_seconds = limit;
  LaunchOptions seeded;
  seeded.threads = 2;
  seeded.seed = 5;
  seeded.time_limit_seconds = limit;
  const Setting settings[] = {{"iota", one_thread}, {"random:7", seeded}};
  for (const std::string& kernel : KernelNames(source.text)) {
    for (const Setting& s : settings) {
      SCOPED_TRACE("@" + kernel + " with " + s.inputs + " inputs");
      Outcome jit = RunOn(Engine::kJit, source, kernel, s.inputs, s.launch);
      Outcome interp = RunOn(Engine::kInterp, source, kernel, s.inputs, s.launch);
      EXPECT_EQ(interp.compile, jit.compile);
      EXPECT_EQ(interp.launch, jit.launch);
      EXPECT_EQ(interp.findings, jit.findings);
      EXPECT_EQ(interp.log, jit.log);
      ASSERT_EQ(interp.params.size(), jit.params.size());
      // A racing kernel's bytes depend on which thread wrote last (its findings
      // do not: they are checked between epochs).
      if (jit.findings.find("[RT-RACE]") != std::string::npos && s.launch.threads > 1) continue;
      for (size_t i = 0; i < jit.params.size(); ++i) EXPECT_TRUE(interp.params[i] == jit.params[i]) << "parameter " << i;
      if (!jit.compile.empty()) break;  // rejected: the inputs do not matter
    }
  }
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Files, EnginesTest, ::testing::ValuesIn(KernelFiles()), TestName);

}  // namespace
}  // namespace scjit::testing
