// Compiler: .scir source in, a launchable Kernel out.
//
//   scjit::Compiler compiler;
//   scjit::CompileOptions options;
//   options.target = "v6e";
//   absl::StatusOr<scjit::Kernel> kernel = compiler.CompileFile("add_one.scir", options);
//   if (!kernel.ok()) std::cerr << kernel.status().message();  // every diagnostic
//
// Compiled kernels are cached in memory by (source, kernel, target, options,
// host), and on disk too when CompileOptions::cache_dir names a directory: a
// later process compiling the same kernel loads its code from there instead of
// compiling it (several processes may share a directory).
//
// Thread safety: a Compiler is thread-safe: any number of threads may compile
// (the same or different kernels) through one at once. Kernels it returns stay
// valid after it is destroyed.
#ifndef SCJIT_INCLUDE_SCJIT_COMPILER_H_
#define SCJIT_INCLUDE_SCJIT_COMPILER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "scjit/kernel.h"
#include "scjit/launch.h"

namespace scjit {

// A kernel file's text and the name diagnostics call it by.
struct Source {
  std::string name;  // "add_one.scir"
  std::string text;

  // Reads `path` (IO-OPEN when it cannot be read, IR-LIMIT beyond 64 MiB).
  static absl::StatusOr<Source> FromFile(const std::string& path);
};

// The stages of a compilation, in order (`jit-run --emit`).
enum class Stage : uint8_t {
  kIr,       // the verified, rule-checked Kernel IR, printed
  kLlvm,     // LLVM IR as emitted
  kLlvmOpt,  // LLVM IR after the optimization pipeline
  kAsm,      // host assembly
};

// What runs a compiled kernel (docs/interpreter.md).
enum class Engine : uint8_t {
  kJit,     // host code compiled by LLVM's ORC JIT
  kInterp,  // the interpreter of the verified IR: the JIT's reference, slower
};
// "jit", "interp".
std::string_view EngineName(Engine engine);
// The engine called `name`, if any.
std::optional<Engine> EngineFromName(std::string_view name);
// "jit, interp", for messages.
std::string EngineNameList();

struct CompileOptions {
  std::string kernel;      // the kernel to compile ("@name" or "name"); "": the file's only one
  std::string target;      // "v7x", ...; "": the file's `target`, else v7x
  // The device mesh, overriding the kernel's `devices` clause: "4" resizes its
  // one device axis, "y=2,x=4" names every axis and its size; "": the file's.
  std::string devices;
  int opt_level = 2;       // 0-3
  // The JAX release whose words the SC rules' messages use ("0.12.1"; docs/jax.md,
  // "Versions"); "": the oldest scjit answers for, 0.10.2.
  std::string jax;
  // The run-time checks the code carries (bounds checks of indices are compiled
  // in; without them indices are clamped) and its launches' default.
  Checks checks = Checks::All();
  std::string cache_dir;   // a directory for the disk cache; "": memory only (the JIT's code only)
  Engine engine = Engine::kJit;
  // Instructions of this host beyond x86-64's baseline (today: AVX-512CD's
  // conflict detection for scan_count) where it has them; false: the portable
  // lowering everywhere (the same results; tests compare the two).
  bool host_fast_paths = true;
};

class Compiler {
 public:
  Compiler();
  ~Compiler();
  Compiler(const Compiler&) = delete;
  Compiler& operator=(const Compiler&) = delete;

  // Compiles one kernel of `source`. A rejected kernel is InvalidArgument whose
  // message holds every diagnostic (DiagnosticsOf gives them as values).
  absl::StatusOr<Kernel> Compile(const Source& source, const CompileOptions& options = {});
  absl::StatusOr<Kernel> CompileFile(const std::string& path, const CompileOptions& options = {});

  // The text of one stage of compiling `source` (kIr: the whole module, or the
  // kernel options.kernel names).
  absl::StatusOr<std::string> Emit(const Source& source, Stage stage, const CompileOptions& options = {});

  // Compilations answered from memory, from disk, and compiled.
  struct CacheStats {
    int64_t memory_hits = 0;
    int64_t disk_hits = 0;
    int64_t compiled = 0;
  };
  CacheStats cache_stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace scjit

#endif  // SCJIT_INCLUDE_SCJIT_COMPILER_H_
