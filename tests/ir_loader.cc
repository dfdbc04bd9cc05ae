#include "tests/ir_loader.h"

#include "lowering/base/diagnostic.h"
#include "lowering/ir/frontend.h"

namespace scjit::testing {

Loaded Load(const std::string& text, const std::string& name) {
  DiagnosticSink sink;
  auto file = std::make_shared<const SourceFile>(name, text);
  absl::StatusOr<std::unique_ptr<Module>> module = LoadModule(file, sink);
  Loaded result;
  if (module.ok()) result.module = *std::move(module);
  result.diagnostics = sink.Render();
  for (const Diagnostic& d : sink.diagnostics()) result.codes.push_back(d.code);
  return result;
}

}  // namespace scjit::testing
