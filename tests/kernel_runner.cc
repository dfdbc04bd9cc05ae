#include "tests/kernel_runner.h"

#include <sstream>

#include "tests/test_util.h"

namespace scjit::testing {
namespace {

// One compiler for the whole test binary, so kernels compiled twice hit its cache.
Compiler& SharedCompiler() {
  static Compiler* compiler = new Compiler();
  return *compiler;
}

Run RunSource(std::shared_ptr<const SourceFile> file, const std::map<std::string, std::vector<uint8_t>>& inputs,
              const CompileOptions& compile, LaunchOptions launch, const std::string& kernel) {
  Run run;
  DiagnosticSink sink;
  absl::StatusOr<std::shared_ptr<const CompiledKernel>> compiled =
      SharedCompiler().Compile(std::move(file), kernel, compile, sink);
  run.diagnostics = sink.Render();
  if (!compiled.ok()) {
    run.status = compiled.status();
    return run;
  }
  const KernelInfo& info = (*compiled)->info();
  std::vector<ParamBuffer> buffers;
  for (const ParamInfo& p : info.params) {
    std::vector<uint8_t>& bytes = run.params[p.name];
    auto it = inputs.find(p.name);
    if (it != inputs.end()) {
      bytes = it->second;
    } else {
      bytes.assign(static_cast<size_t>(p.bytes()), 0);
    }
    if (static_cast<int64_t>(bytes.size()) != p.bytes()) {
      run.status = absl::InvalidArgumentError("input %" + p.name + " has the wrong size");
      return run;
    }
    buffers.push_back(ParamBuffer{bytes.data(), static_cast<int64_t>(bytes.size())});
  }
  std::ostringstream log;
  launch.log = &log;
  absl::StatusOr<LaunchResult> result = Launch(**compiled, buffers, launch);
  run.log = log.str();
  if (!result.ok()) {
    run.status = result.status();
    return run;
  }
  run.findings = result->findings;
  run.stats = result->stats;
  return run;
}

}  // namespace

std::string Run::Findings() const {
  std::string out = status.ok() ? "" : std::string(status.message()) + "\n";
  for (const Diagnostic& d : findings) out += d.Render();
  return out;
}

Run RunText(const std::string& text, const std::map<std::string, std::vector<uint8_t>>& inputs,
            const CompileOptions& compile, LaunchOptions launch, const std::string& kernel) {
  return RunSource(std::make_shared<const SourceFile>("test.scir", text), inputs, compile, launch, kernel);
}

Run RunFile(const std::string& path, const std::map<std::string, std::vector<uint8_t>>& inputs,
            const CompileOptions& compile, LaunchOptions launch, const std::string& kernel) {
  return RunSource(std::make_shared<const SourceFile>(path, ReadFile(SourceDir() + "/" + path)), inputs, compile,
                   launch, kernel);
}

Checked Check(const std::string& text, std::optional<TargetId> target, const std::string& name) {
  Compiler compiler;
  DiagnosticSink sink;
  CompileOptions options;
  options.target = target;
  absl::StatusOr<std::string> ir =
      compiler.Emit(std::make_shared<const SourceFile>(name, text), "", options, Stage::kIr, sink);
  Checked c;
  c.ok = ir.ok();
  c.diagnostics = sink.Render();
  for (const Diagnostic& d : sink.diagnostics()) c.codes.push_back(std::string(d.code()));
  return c;
}

}  // namespace scjit::testing
