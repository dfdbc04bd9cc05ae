// The compilation pipeline, top to bottom:
//
//   parse -> verify -> SC rules -> plan memory -> emit LLVM IR -> optimize -> JIT
//
// Each stage is one call; the timings of CompileTimes are taken around them.
#include <chrono>

#include "jit/jit_session.h"
#include "lowering/emit/emit_llvm.h"
#include "lowering/ir/parser.h"
#include "lowering/ir/printer.h"
#include "lowering/rules/sc_rules.h"
#include "lowering/base/strings.h"
#include "lowering/ir/verifier.h"
#include "scjit/scjit.h"

namespace scjit {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

absl::Status Usage(std::string detail) {
  return DiagnosticStatus(MakeDiagnostic(DiagId::kIoUsage, nullptr, Location{}, {{"detail", std::move(detail)}}));
}

// The front end: parse, verify, SC rules. The module is returned only when the
// sink holds no error.
absl::StatusOr<std::shared_ptr<Module>> FrontEnd(const std::shared_ptr<const SourceFile>& file,
                                                 const CompileOptions& options, DiagnosticSink& sink,
                                                 CompileTimes* times) {
  Clock::time_point t = Clock::now();
  std::shared_ptr<Module> module = Parse(file, sink);
  times->parse = Ms(t);
  t = Clock::now();
  if (module->complete) Verify(*module, sink);
  if (!sink.has_errors()) {
    TargetId target = options.target.value_or(module->target.value_or(kDefaultTarget));
    CheckScRules(*module, target, sink);
  }
  times->verify = Ms(t);
  if (sink.has_errors()) return sink.ToStatus();
  return module;
}

absl::StatusOr<const Kernel*> SelectKernel(const Module& module, std::string_view name) {
  std::string file = module.source->name();
  if (!name.empty()) {
    if (const Kernel* k = module.FindKernel(name)) return k;
    return Usage(Cat("'", file, "' has no kernel @", name));
  }
  if (module.kernels.size() == 1) return module.kernels[0].get();
  std::string names;
  for (const auto& k : module.kernels) Append(&names, names.empty() ? "" : ", ", "@", k->name);
  return Usage(Cat("'", file, "' defines ", module.kernels.size(), " kernels (", names,
                   "); choose one with --kernel"));
}

}  // namespace

Compiler::Compiler() = default;
Compiler::~Compiler() = default;

int64_t Compiler::cache_hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_hits_;
}

absl::StatusOr<JitSession*> Compiler::Session(int opt_level) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<JitSession>& s = sessions_[opt_level];
  if (s == nullptr) {
    absl::StatusOr<std::unique_ptr<JitSession>> created = JitSession::Create(opt_level);
    if (!created.ok()) return created.status();
    s = *std::move(created);
  }
  return s.get();
}

absl::StatusOr<std::shared_ptr<const CompiledKernel>> Compiler::Compile(std::shared_ptr<const SourceFile> file,
                                                                        std::string_view kernel_name,
                                                                        const CompileOptions& options,
                                                                        DiagnosticSink& sink) {
  Clock::time_point start = Clock::now();
  if (options.opt_level < 0 || options.opt_level > 3) return Usage(Cat("optimization level ", options.opt_level));
  auto compiled = std::make_shared<CompiledKernel>();
  CompileTimes& times = compiled->times_;
  absl::StatusOr<std::shared_ptr<Module>> module = FrontEnd(file, options, sink, &times);
  if (!module.ok()) return module.status();
  absl::StatusOr<const Kernel*> kernel = SelectKernel(**module, kernel_name);
  if (!kernel.ok()) return kernel.status();
  TargetId target = options.target.value_or((*module)->target.value_or(kDefaultTarget));
  absl::StatusOr<JitSession*> session = Session(options.opt_level);
  if (!session.ok()) return session.status();

  std::string key = Cat(std::hash<std::string_view>{}(file->text()), "/", file->text().size(), "/", (*kernel)->name,
                        "/", Info(target).name, "/O", options.opt_level, "/", options.bounds_checks ? "checked" : "clamped",
                        "/", (*session)->host());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) {
      ++cache_hits_;
      auto hit = std::make_shared<CompiledKernel>(*it->second);
      hit->times_ = times;
      hit->times_.cache_hit = true;
      hit->times_.total = Ms(start);
      return hit;
    }
  }

  compiled->module_ = *module;
  compiled->info_ = PlanKernel(**module, **kernel, target);
  Clock::time_point t = Clock::now();
  EmitOptions emit_options;
  emit_options.bounds_checks = options.bounds_checks;
  absl::StatusOr<EmittedKernel> emitted = EmitKernel(**kernel, compiled->info_, emit_options);
  if (!emitted.ok()) return emitted.status();
  times.lower = Ms(t);
  t = Clock::now();
  if (absl::Status s = (*session)->Optimize(*emitted); !s.ok()) return s;
  times.optimize = Ms(t);
  t = Clock::now();
  absl::StatusOr<KernelFn> entry = (*session)->Add(*std::move(emitted));
  if (!entry.ok()) return entry.status();
  compiled->entry_ = *entry;
  times.codegen = Ms(t);
  times.total = Ms(start);
  std::lock_guard<std::mutex> lock(mu_);
  cache_[key] = compiled;
  return compiled;
}

absl::StatusOr<std::string> Compiler::Emit(std::shared_ptr<const SourceFile> file, std::string_view kernel_name,
                                           const CompileOptions& options, Stage stage, DiagnosticSink& sink) {
  CompileTimes times;
  absl::StatusOr<std::shared_ptr<Module>> module = FrontEnd(file, options, sink, &times);
  if (!module.ok()) return module.status();
  if (stage == Stage::kIr && kernel_name.empty()) return Print(**module);
  absl::StatusOr<const Kernel*> kernel = SelectKernel(**module, kernel_name);
  if (!kernel.ok()) return kernel.status();
  if (stage == Stage::kIr) return Print(**module);
  TargetId target = options.target.value_or((*module)->target.value_or(kDefaultTarget));
  KernelInfo info = PlanKernel(**module, **kernel, target);
  EmitOptions emit_options;
  emit_options.bounds_checks = options.bounds_checks;
  absl::StatusOr<EmittedKernel> emitted = EmitKernel(**kernel, info, emit_options);
  if (!emitted.ok()) return emitted.status();
  if (stage == Stage::kLlvm) return ModuleText(*emitted);
  absl::StatusOr<JitSession*> session = Session(options.opt_level);
  if (!session.ok()) return session.status();
  if (absl::Status s = (*session)->Optimize(*emitted); !s.ok()) return s;
  if (stage == Stage::kLlvmOpt) return ModuleText(*emitted);
  return (*session)->Assembly(*emitted);
}

absl::StatusOr<LaunchResult> Launch(const CompiledKernel& kernel, std::span<const ParamBuffer> params,
                                    const LaunchOptions& options) {
  return RunKernel(kernel.info(), kernel.entry(), params, options);
}

}  // namespace scjit
