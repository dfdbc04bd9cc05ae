// JitSession: ORC LLJIT for the host CPU (every feature it has, AVX-512 when
// present), the -O0...-O3 optimization pipeline, and host assembly for --emit.
//
// Runtime ABI functions are resolved by name from a JITDylib of absolute
// symbols (runtime/abi.def), so compiled objects hold no addresses and can be
// stored (the disk cache) and loaded into another process. Each kernel gets a
// JITDylib of its own, so kernels of the same name never collide.
#ifndef SCJIT_JIT_JIT_SESSION_H_
#define SCJIT_JIT_JIT_SESSION_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/emit/emit_llvm.h"
#include "runtime/launch.h"

namespace llvm {
class TargetMachine;
namespace orc {
class LLJIT;
class JITDylib;
}  // namespace orc
}  // namespace llvm

namespace scjit::jit_internal {
class ObjectCapture;
}  // namespace scjit::jit_internal

namespace scjit {

// Thread-safe: several threads may optimize and add kernels at once.
class JitSession {
 public:
  static absl::StatusOr<std::unique_ptr<JitSession>> Create(int opt_level);
  ~JitSession();

  // Prepares `kernel.module` for this host (triple, data layout, CPU features)
  // and runs the optimization pipeline of the session's level on it. A
  // large kernel (over kLargeKernelInstructions) is optimized at -O1 and
  // marked for the backend's linear tier, whose frame holds a slot for about
  // every value: the result is then the bytes of stack its functions may
  // need (a bound), else 0.
  absl::StatusOr<int64_t> Optimize(EmittedKernel& kernel);
  // The host assembly of an optimized module (the module is not changed).
  absl::StatusOr<std::string> Assembly(const EmittedKernel& kernel);
  // Compiles an optimized kernel to host code; returns its entry point, and
  // in *object (when not null) the object code it was compiled to.
  absl::StatusOr<KernelFn> Add(EmittedKernel kernel, std::string* object = nullptr);
  // Like Add, for a kernel of several parts: the entry point of each of its
  // functions (kernel.function, then kernel.more_functions).
  absl::StatusOr<std::vector<KernelFn>> AddParts(EmittedKernel kernel, std::string* object = nullptr);
  // Links object code Add returned (in this or another process) and returns
  // the entry points `symbols`, in order.
  absl::StatusOr<std::vector<KernelFn>> AddObject(std::string_view object, std::span<const std::string> symbols);

  int opt_level() const { return opt_level_; }
  // "skylake-avx512 +avx512f,+avx2,..." (part of the object cache key).
  const std::string& host() const { return host_; }
  // Whether the host has CPU feature `name` (LLVM's name, e.g. "avx512cd").
  bool HasFeature(std::string_view name) const;

 private:
  JitSession();
  absl::StatusOr<llvm::orc::JITDylib*> NewKernelDylib();
  // The addresses of `symbols` in `dylib` (compiling them if need be); `what`
  // prefixes a symbol in an error.
  absl::StatusOr<std::vector<KernelFn>> LookupAll(llvm::orc::JITDylib& dylib, std::span<const std::string> symbols,
                                                  std::string_view what);

  // The compile layer's ObjectCache (declared first: jit_ points to it).
  std::unique_ptr<jit_internal::ObjectCapture> objects_;
  int opt_level_ = 2;
  std::string host_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unique_ptr<llvm::TargetMachine> machine_;  // for optimization and assembly
  std::mutex machine_mu_;                         // guards machine_ (not thread-safe)
  llvm::orc::JITDylib* runtime_ = nullptr;        // owned by jit_
  std::atomic<int> next_dylib_{0};
};

// Every textual form of LLVM IR in one place.
std::string ModuleText(const EmittedKernel& kernel);

}  // namespace scjit

#endif  // SCJIT_JIT_JIT_SESSION_H_
