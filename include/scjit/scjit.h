// scjit's public API: compile SparseCore kernels written in the Kernel IR to host
// code, and launch them on the emulated SparseCore.
//
//   scjit::Compiler compiler;
//   scjit::DiagnosticSink diagnostics;
//   auto kernel = compiler.Compile(file, "add_one", {}, diagnostics);   // StatusOr
//   std::vector<scjit::ParamBuffer> args = {{x.data(), bytes}, {o.data(), bytes}};
//   auto result = scjit::Launch(**kernel, args, {});                      // StatusOr
//   if (result->failed()) ...  // result->findings: RT-* diagnostics
//
// Compile errors (parse, type, SC rule) are in the DiagnosticSink and in the
// returned status's message; run-time findings are in the LaunchResult.
#ifndef SCJIT_INCLUDE_SCJIT_SCJIT_H_
#define SCJIT_INCLUDE_SCJIT_SCJIT_H_

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "lowering/base/diagnostic.h"
#include "lowering/analysis/kernel_info.h"
#include "lowering/base/source.h"
#include "lowering/base/target.h"
#include "runtime/launch.h"

namespace scjit {

struct Module;
class JitSession;

// Compilation stages, in pipeline order (`jit-run --emit`).
enum class Stage : uint8_t { kIr, kLlvm, kLlvmOpt, kAsm };

struct CompileOptions {
  std::optional<TargetId> target;  // default: the file's `target`, else v7x
  int opt_level = 2;               // 0-3
  bool bounds_checks = true;       // compile run-time bounds checks (else clamp)
};

// Milliseconds spent in each stage of one compilation.
struct CompileTimes {
  double parse = 0, verify = 0, lower = 0, optimize = 0, codegen = 0, total = 0;
  bool cache_hit = false;
};

// A kernel compiled to host code. Immutable: launch it from any number of
// threads at once.
class CompiledKernel {
 public:
  const KernelInfo& info() const { return info_; }
  KernelFn entry() const { return entry_; }
  const CompileTimes& times() const { return times_; }

 private:
  friend class Compiler;
  std::shared_ptr<const Module> module_;  // kept alive: info_ points into it
  KernelInfo info_;
  KernelFn entry_ = nullptr;
  CompileTimes times_;
};

// Compiles kernels, caching them in memory by (source, kernel, target, options,
// host). Thread-safe.
class Compiler {
 public:
  Compiler();
  ~Compiler();

  // Compiles kernel `kernel` of `file` ("" picks the file's only kernel).
  absl::StatusOr<std::shared_ptr<const CompiledKernel>> Compile(std::shared_ptr<const SourceFile> file,
                                                                std::string_view kernel,
                                                                const CompileOptions& options, DiagnosticSink& sink);

  // The text of one stage for kernel `kernel` (kIr: the whole verified module).
  absl::StatusOr<std::string> Emit(std::shared_ptr<const SourceFile> file, std::string_view kernel,
                                   const CompileOptions& options, Stage stage, DiagnosticSink& sink);

  int64_t cache_hits() const;

 private:
  absl::StatusOr<JitSession*> Session(int opt_level);

  mutable std::mutex mu_;
  absl::flat_hash_map<int, std::unique_ptr<JitSession>> sessions_;  // by opt level
  absl::flat_hash_map<std::string, std::shared_ptr<const CompiledKernel>> cache_;
  int64_t cache_hits_ = 0;
};

// Runs `kernel` once on every subcore of its mesh with the given parameters
// (one buffer per parameter, in order).
absl::StatusOr<LaunchResult> Launch(const CompiledKernel& kernel, std::span<const ParamBuffer> params,
                                    const LaunchOptions& options);

}  // namespace scjit

#endif  // SCJIT_INCLUDE_SCJIT_SCJIT_H_
