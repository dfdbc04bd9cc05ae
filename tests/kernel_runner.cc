#include "tests/kernel_runner.h"

#include <cstdlib>

#include "tests/test_util.h"

namespace scjit::testing {
namespace {

// One compiler for the whole test binary, so kernels compiled twice hit its cache.
Compiler& SharedCompiler() {
  static Compiler* compiler = new Compiler();
  return *compiler;
}

Run RunSource(const Source& source, const std::map<std::string, std::vector<uint8_t>>& inputs,
              CompileOptions compile, LaunchOptions launch, const std::string& kernel) {
  Run run;
  if (!kernel.empty()) compile.kernel = kernel;
  // SCJIT_TEST_ENGINE=interp runs a test binary's kernels on the interpreter.
  if (const char* engine = std::getenv("SCJIT_TEST_ENGINE"); engine != nullptr && EngineFromName(engine)) {
    compile.engine = *EngineFromName(engine);
  }
  absl::StatusOr<Kernel> compiled = SharedCompiler().Compile(source, compile);
  if (!compiled.ok()) {
    run.status = compiled.status();
    // Rendered as the compiler reports them (sorted by location).
    if (!DiagnosticsOf(run.status).empty()) run.diagnostics = std::string(run.status.message()) + "\n";
    return run;
  }
  std::vector<Buffer> buffers;
  for (const ParamInfo& p : compiled->params()) {
    std::vector<uint8_t>& bytes = run.params[p.name];
    auto it = inputs.find(p.name);
    if (it != inputs.end()) {
      bytes = it->second;
    } else {
      bytes.assign(static_cast<size_t>(p.bytes()), 0);
    }
    if (p.semaphore) {
      buffers.emplace_back();
      continue;
    }
    absl::StatusOr<Buffer> b = Buffer::Wrap(p.dtype, p.shape, bytes.data(), bytes.size());
    if (!b.ok()) {
      run.status = absl::InvalidArgumentError("input %" + p.name + " has the wrong size");
      return run;
    }
    buffers.push_back(*std::move(b));
  }
  if (launch.threads == 0) launch.threads = 1;
  launch.log = [&run](std::string_view text) { run.log += text; };
  absl::StatusOr<LaunchResult> result = compiled->Launch(buffers, launch);
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
  return RunSource(Source{"test.scir", text}, inputs, compile, std::move(launch), kernel);
}

Run RunFile(const std::string& path, const std::map<std::string, std::vector<uint8_t>>& inputs,
            const CompileOptions& compile, LaunchOptions launch, const std::string& kernel) {
  return RunSource(Source{path, ReadFile(SourceDir() + "/" + path)}, inputs, compile, std::move(launch), kernel);
}

Checked Check(const std::string& text, const std::string& target, const std::string& name, const std::string& jax) {
  Compiler compiler;
  CompileOptions options;
  options.target = target;
  options.jax = jax;
  absl::StatusOr<std::string> ir = compiler.Emit(Source{name, text}, Stage::kIr, options);
  Checked c;
  c.ok = ir.ok();
  std::vector<Diagnostic> diagnostics = DiagnosticsOf(ir.status());
  // Rendered as the compiler reports them (sorted by location).
  c.diagnostics = ir.ok() ? "" : std::string(ir.status().message()) + "\n";
  for (const Diagnostic& d : diagnostics) c.codes.push_back(d.code);
  return c;
}

}  // namespace scjit::testing
