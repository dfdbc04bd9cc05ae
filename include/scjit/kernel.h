// Kernel: a compiled SparseCore kernel, ready to launch; Args: the buffers a
// launch binds to its parameters.
//
//   scjit::Args args;
//   args.Set("x", *x).Set("o", *o);             // by name (with or without '%')
//   absl::StatusOr<scjit::LaunchResult> r = kernel->Launch(args);
//   // or by position: kernel->Launch({*x, *o});
//
// Thread safety: a Kernel is an immutable handle (copies share the compiled
// code) and may be launched from any number of threads at once, with distinct
// buffers for what each launch writes. Args is a plain value.
#ifndef SCJIT_INCLUDE_SCJIT_KERNEL_H_
#define SCJIT_INCLUDE_SCJIT_KERNEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "scjit/buffer.h"
#include "scjit/launch.h"
#include "scjit/types.h"

namespace scjit {

// One parameter of a kernel, as its header declares it.
struct ParamInfo {
  std::string name;  // without '%'
  ParamDirection direction = ParamDirection::kIn;
  // A semaphore ref (dma_sem, sem<4>): its buffer is int32, one count per
  // semaphore, which every subcore's copy starts from (an `out` one from 0)
  // and the last subcore's ends in; DMAs still in flight on it at the end land
  // and credit it (so a later launch can wait for them).
  bool semaphore = false;
  DType dtype = DType::kI32;
  // The array a launch binds to it: the parameter's shape, with a leading
  // axis of one entry per chip when the kernel has a device mesh (`devices`).
  std::vector<int64_t> shape;
  MemorySpace space = MemorySpace::kHbm;
  std::string type;  // as written in .scir: "hbm<4096x128xi32>" (and " on each of 4 devices")
  // For an integer parameter whose values the kernel uses as indices (idx(...)
  // lists of indirect DMAs and pipeline blocks, gather/scatter index vectors):
  // the smallest dimension size they index, and the ref it belongs to (without
  // '%'). Values outside [0, index_bound) are out of range. A static analysis,
  // conservative: empty when the kernel computes its indices or stages them
  // in ways it does not follow.
  std::optional<int64_t> index_bound;
  std::string indexed_ref;

  int64_t num_elements() const;
  int64_t bytes() const;
};

// Milliseconds spent in each stage of one compilation.
struct CompileTimes {
  double parse = 0, verify = 0, lower = 0, optimize = 0, codegen = 0, total = 0;
  bool cache_hit = false;  // the code came from a cache (memory or disk)
  bool from_disk = false;  // ... from the disk cache
};

// The buffers of one launch, bound by name or by position.
class Args {
 public:
  Args() = default;
  Args(std::initializer_list<std::pair<std::string_view, Buffer>> named);

  Args& Set(std::string_view name, Buffer buffer);
  Args& Set(int position, Buffer buffer);

 private:
  friend class Kernel;
  std::vector<std::pair<std::string, Buffer>> named_;
  std::vector<std::pair<int, Buffer>> positional_;
};

namespace internal {
struct CompiledKernel;
}  // namespace internal

class Kernel {
 public:
  const std::string& name() const;       // without '@'
  std::string_view target() const;       // "v7x"
  // The mesh; of a kernel of several meshes (MPMD), its first part's.
  MeshKind mesh() const;
  int cores() const;
  int subcores() const;                  // per core (1 on a scalar mesh)
  int devices() const;                   // chips of its device mesh (1 without one)
  std::span<const ParamInfo> params() const;
  // The parameter named `name` (with or without '%'), or null.
  const ParamInfo* param(std::string_view name) const;
  const CompileTimes& times() const;
  // Warnings of the compilation (a cache entry that could not be used, ...).
  const std::vector<Diagnostic>& warnings() const;

  // Runs the kernel once on every subcore of its mesh. Every parameter with
  // data is bound exactly once, to a buffer of its dtype and shape: a missing,
  // unknown, repeated or mismatched binding is InvalidArgument (IO-PARAM,
  // IO-DTYPE, IO-SHAPE) and nothing runs. `in`/`inout` buffers are read, `out`
  // buffers start as poison, `out`/`inout` buffers hold the results. What the
  // kernel did wrong is in the result's findings; an error status means it did
  // not run (bad arguments, no memory for its arenas).
  absl::StatusOr<LaunchResult> Launch(const Args& args, const LaunchOptions& options = {}) const;
  // The same with one buffer per parameter, in order.
  absl::StatusOr<LaunchResult> Launch(std::span<const Buffer> buffers, const LaunchOptions& options = {}) const;
  absl::StatusOr<LaunchResult> Launch(std::initializer_list<Buffer> buffers, const LaunchOptions& options = {}) const {
    return Launch(std::span<const Buffer>(buffers.begin(), buffers.size()), options);
  }

  // A zero-filled buffer for every parameter, in order.
  absl::StatusOr<std::vector<Buffer>> AllocateParams() const;

 private:
  friend class Compiler;
  explicit Kernel(std::shared_ptr<const internal::CompiledKernel> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const internal::CompiledKernel> impl_;
};

}  // namespace scjit

#endif  // SCJIT_INCLUDE_SCJIT_KERNEL_H_
