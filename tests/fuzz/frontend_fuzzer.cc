// libFuzzer target: arbitrary bytes as a .scir file through every stage of the
// front end that runs no JIT — lexer, parser, verifier, SC rules, the relocation
// of diagnostics to `loc(...)` origins — and, for a kernel that passes them, the
// memory plan (PlanKernel), the index bounds and the launch layout's
// serialization, as jit/compiler.cc's front end and lowering run them.
//
// Besides crashes, leaks and undefined behaviour it checks what the front end
// promises (docs/fuzzing.md):
//   - every input is accepted or rejected with coded diagnostics of the catalog
//     (lowering/base/diagnostics.def); a parse that stops always says why;
//   - an accepted module prints to text that parses and verifies again and
//     prints the same (the printer's round trip, printer.h);
//   - a launch layout deserializes to what was serialized.
// A broken promise aborts with a message, which libFuzzer reports as a crash.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lowering/analysis/index_bounds.h"
#include "lowering/analysis/kernel_info.h"
#include "lowering/base/diagnostic.h"
#include "lowering/base/launch_layout.h"
#include "lowering/base/source.h"
#include "lowering/base/strings.h"
#include "lowering/ir/parser.h"
#include "lowering/ir/printer.h"
#include "lowering/ir/verifier.h"
#include "lowering/rules/sc_rules.h"
#include "tests/fuzz/require.h"

namespace scjit {
namespace {

// Every diagnostic has a code of the catalog and a message.
void CheckDiagnostics(const DiagnosticSink& sink) {
  for (const Diagnostic& d : sink.diagnostics()) {
    Require(DiagIdFromCode(d.code).has_value(), "a diagnostic without a catalog code", d.Render());
    Require(!d.message.empty(), "a diagnostic without a message", d.Render());
  }
  absl::Status status = sink.ToStatus();
  Require(status.ok() != sink.has_errors(), "the sink's status disagrees with its error count",
          status.ToString());
  if (!status.ok()) Require(!DiagnosticCode(status).empty(), "an error status without a code", status.ToString());
}

// Parse and verify, as LoadModule does.
std::unique_ptr<Module> ParseAndVerify(std::shared_ptr<const SourceFile> file, DiagnosticSink& sink) {
  std::unique_ptr<Module> module = Parse(std::move(file), sink);
  Require(module->complete || sink.has_errors(), "the parser stopped without an error");
  if (module->complete) Verify(*module, sink);
  return module;
}

// The printer's output parses, verifies and prints the same.
void CheckRoundTrip(const Module& module) {
  std::string printed = Print(module);
  DiagnosticSink sink;
  std::unique_ptr<Module> again = ParseAndVerify(std::make_shared<const SourceFile>("printed.scir", printed), sink);
  Require(!sink.has_errors(), "the printed module does not parse and verify", Cat(printed, "\n", sink.Render()));
  std::string reprinted = Print(*again);
  Require(reprinted == printed, "printing the re-parsed module gives other text",
          Cat(printed, "\n--- re-printed:\n", reprinted));
}

// The memory plan and index bounds of every part, and the layout's bytes.
void CheckLowering(const Module& module, TargetId target) {
  for (const auto& kernel : module.kernels) {
    for (const KernelDef* part : kernel->Parts()) {
      KernelInfo info = PlanKernel(module, *part, target);
      info.layout.entry = "scjit_kernel_fuzz";  // what emission fills in
      Require(IndexBounds(*part).size() == part->params.size(), "IndexBounds gave a bound per parameter");
      absl::StatusOr<LaunchLayout> back = Deserialize(Serialize(info.layout));
      Require(back.ok(), "a serialized layout does not deserialize", back.status().ToString());
      Require(Serialize(*back) == Serialize(info.layout), "a layout changes through serialization");
    }
  }
}

void FuzzFrontEnd(std::string_view text) {
  auto file = std::make_shared<const SourceFile>("fuzz.scir", std::string(text));
  DiagnosticSink sink;
  std::unique_ptr<Module> module = ParseAndVerify(file, sink);
  TargetId target = module->target.value_or(kDefaultTarget);
  if (!sink.has_errors()) CheckScRules(*module, target, sink);
  if (!module->origins.empty()) sink.Update([&](Diagnostic& d) { module->origins.Relocate(d, *file); });
  CheckDiagnostics(sink);
  if (sink.has_errors()) return;
  CheckRoundTrip(*module);
  CheckLowering(*module, target);
}

}  // namespace
}  // namespace scjit

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  scjit::FuzzFrontEnd(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
