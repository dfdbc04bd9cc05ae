// jit-run: compiles and runs a .scir kernel (interfaces.md §1).
//
// Exit codes: 0 success; 1 the kernel ran and failed; 2 usage or input error;
// 3 the kernel was rejected (parse, type or SC rule error).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "lowering/diagnostic.h"
#include "lowering/frontend.h"
#include "lowering/printer.h"
#include "lowering/strings.h"
#include "runtime/generators.h"
#include "runtime/npy.h"
#include "tools/cli_options.h"

namespace scjit {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitRejected = 3;

int UsageError(std::string detail) {
  std::cerr << MakeDiagnostic(DiagId::kIoUsage, nullptr, Location{}, {{"detail", std::move(detail)}}).Render();
  return kExitUsage;
}

int PrintStatus(const absl::Status& status, int exit_code) {
  std::cerr << status.message() << "\n";
  return exit_code;
}

std::string ParamList(const Kernel& k) {
  std::string out;
  for (const Param& p : k.params) Append(&out, out.empty() ? "" : ", ", "%", p.value->name);
  return out.empty() ? std::string("none") : out;
}

// Picks the kernel to run: --kernel, or the file's only kernel.
const Kernel* SelectKernel(const Module& module, const CliOptions& options, std::string* error) {
  if (options.kernel_name) {
    if (const Kernel* k = module.FindKernel(*options.kernel_name)) return k;
    *error = Cat("'", options.kernel_file, "' has no kernel @", *options.kernel_name);
    return nullptr;
  }
  if (module.kernels.size() == 1) return module.kernels[0].get();
  std::string names;
  for (const auto& k : module.kernels) Append(&names, names.empty() ? "" : ", ", "@", k->name);
  *error = Cat("'", options.kernel_file, "' defines ", module.kernels.size(), " kernels (", names,
               "); choose one with --kernel");
  return nullptr;
}

// Reads or generates every --in binding and checks it against its parameter.
int CheckInputs(const Kernel& kernel, const CliOptions& options) {
  for (const Binding& b : options.inputs) {
    const Param* param = nullptr;
    for (const Param& p : kernel.params) {
      if (p.value->name == b.name) param = &p;
    }
    if (param == nullptr) {
      return UsageError(Cat("kernel @", kernel.name, " has no parameter %", b.name, " (its parameters: ",
                            ParamList(kernel), ")"));
    }
    if (param->direction == ParamDirection::kOut) {
      return UsageError(Cat("%", b.name, " is an out parameter; --in binds in and inout parameters"));
    }
    const Type& type = param->value->type;
    if (!type.is_ref()) return UsageError(Cat("%", b.name, " is a semaphore; it takes no input"));
    if (IsGeneratorSpec(b.value)) {
      absl::StatusOr<NpyArray> generated = Generate(b.value, type.element(), type.shape());
      if (!generated.ok()) return PrintStatus(generated.status(), kExitUsage);
      continue;
    }
    absl::StatusOr<NpyArray> array = ReadNpy(b.value);
    if (!array.ok()) return PrintStatus(array.status(), kExitUsage);
    absl::Status matches = CheckNpyMatches(*array, b.value, Cat("%", b.name), type);
    if (!matches.ok()) return PrintStatus(matches, kExitUsage);
  }
  return kExitOk;
}

int Main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  absl::StatusOr<CliOptions> parsed = ParseCommandLine(args);
  if (!parsed.ok()) return PrintStatus(parsed.status(), kExitUsage);
  const CliOptions& options = *parsed;

  if (options.help) {
    std::cout << UsageText();
    return kExitOk;
  }
  if (options.explain) {
    std::optional<DiagId> id = DiagIdFromCode(*options.explain);
    if (!id) return UsageError(Cat("unknown diagnostic code '", *options.explain, "'"));
    std::cout << Explain(*id);
    return kExitOk;
  }
  // Options whose machinery does not exist yet are refused, never ignored.
  if (std::vector<std::string> missing = UnimplementedOptions(options); !missing.empty()) {
    std::cerr << "jit-run: not implemented yet: " << missing[0] << "\n";
    return kExitUsage;
  }

  absl::StatusOr<std::shared_ptr<const SourceFile>> file = ReadSourceFile(options.kernel_file);
  if (!file.ok()) return PrintStatus(file.status(), kExitUsage);
  DiagnosticSink sink;
  absl::StatusOr<std::unique_ptr<Module>> module = LoadModule(*file, sink);
  if (!module.ok()) {
    std::cerr << sink.Render();
    return kExitRejected;
  }

  // --emit ir prints the whole module; a kernel is chosen only to run it (or
  // when --kernel names one, which must exist).
  std::string error;
  const Kernel* kernel = nullptr;
  if (!options.emit || options.kernel_name) {
    kernel = SelectKernel(**module, options, &error);
    if (kernel == nullptr) return UsageError(error);
  }

  if (options.emit) {
    if (*options.emit != Stage::kIr) {
      std::cerr << "jit-run: not implemented yet: --emit "
                << (*options.emit == Stage::kLlvm ? "llvm" : *options.emit == Stage::kLlvmOpt ? "llvm-opt" : "asm")
                << "\n";
      return kExitUsage;
    }
    std::cout << Print(**module);
    return kExitOk;
  }

  if (int status = CheckInputs(*kernel, options); status != kExitOk) return status;
  std::cerr << "jit-run: not implemented yet: kernel execution (available: --emit ir, --explain)\n";
  return kExitUsage;
}

}  // namespace
}  // namespace scjit

int main(int argc, char** argv) { return scjit::Main(argc, argv); }
