// scjit_launch: the XLA FFI handler through which jax.jit programs on the CPU run
// scjit kernels (scjit.jax). XLA calls it with the kernel's input buffers and its
// output buffers; it binds them, without copies, to the parameters of a compiled
// scjit::Kernel and launches it.
//
// Operands are the kernel's `in` and `inout` parameters in parameter order,
// results its `out` and `inout` parameters in parameter order; an inout
// parameter's result is aliased to its operand (when XLA could not alias them,
// the operand is copied into the result first). Semaphore parameters are int32
// counts, like JAX's physical semaphores. Attributes:
//   kernel      the address of the scjit::Kernel (the Python side keeps it alive
//               for the life of the process)
//   threads     host threads (0: the host's cores)
//   checks      "" (as compiled), "all", "none", "warn", "bounds,sync"...
//   dma         "" (default), "eager", "on_wait"
//   seed        -1 for none
// debug_print output and warnings go to stderr; a failed check is an error whose
// message is every finding, rendered.
#include "python/src/ffi_launch.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "scjit/scjit.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace scjit {
namespace {

ffi::Error Invalid(std::string message) { return ffi::Error(ffi::ErrorCode::kInvalidArgument, std::move(message)); }

// Binds buffer `b` to parameter `p` (its dtype and shape; the byte count must
// agree, which the lowering guarantees).
absl::StatusOr<Buffer> Bind(const ParamInfo& p, const ffi::AnyBuffer& b) {
  return Buffer::Wrap(p.dtype, p.shape, b.untyped_data(), b.size_bytes());
}

ffi::Error LaunchFromXla(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t kernel_address, int64_t threads,
                         std::string_view checks, std::string_view dma, int64_t seed) {
  const Kernel* kernel = reinterpret_cast<const Kernel*>(kernel_address);
  if (kernel == nullptr) return Invalid("scjit_launch: no kernel");
  std::span<const ParamInfo> params = kernel->params();
  std::vector<Buffer> buffers(params.size());
  size_t next_arg = 0, next_ret = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamInfo& p = params[i];
    absl::StatusOr<Buffer> bound;
    if (p.direction == ParamDirection::kIn) {
      if (next_arg >= args.size()) return Invalid("scjit_launch: too few operands for @" + kernel->name());
      ffi::ErrorOr<ffi::AnyBuffer> arg = args.get<ffi::AnyBuffer>(next_arg++);
      if (!arg.has_value()) return arg.error();
      bound = Bind(p, *arg);
    } else {
      if (next_ret >= rets.size()) return Invalid("scjit_launch: too few results for @" + kernel->name());
      ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> ret = rets.get<ffi::AnyBuffer>(next_ret++);
      if (!ret.has_value()) return ret.error();
      ffi::AnyBuffer out = **ret;
      if (p.direction == ParamDirection::kInOut) {
        if (next_arg >= args.size()) return Invalid("scjit_launch: too few operands for @" + kernel->name());
        ffi::ErrorOr<ffi::AnyBuffer> arg = args.get<ffi::AnyBuffer>(next_arg++);
        if (!arg.has_value()) return arg.error();
        if (arg->untyped_data() != out.untyped_data() && arg->size_bytes() == out.size_bytes()) {
          std::memcpy(out.untyped_data(), arg->untyped_data(), out.size_bytes());
        }
      }
      bound = Bind(p, out);
    }
    if (!bound.ok()) return Invalid(std::string(bound.status().message()));
    buffers[i] = *std::move(bound);
  }
  if (next_arg != args.size() || next_ret != rets.size()) {
    return Invalid("scjit_launch: @" + kernel->name() + " takes " + std::to_string(next_arg) + " operands and " +
                   std::to_string(next_ret) + " results, got " + std::to_string(args.size()) + " and " +
                   std::to_string(rets.size()));
  }

  LaunchOptions options;
  options.threads = static_cast<int>(threads);
  if (seed >= 0) options.seed = static_cast<uint64_t>(seed);
  if (dma == "eager") options.dma = DmaMode::kEager;
  if (dma == "on_wait") options.dma = DmaMode::kOnWait;
  if (!checks.empty()) {
    absl::StatusOr<Checks> c = Checks::Parse(checks);
    if (!c.ok()) return Invalid(std::string(c.status().message()));
    options.checks = *c;
  }
  options.log = [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  };
  absl::StatusOr<LaunchResult> result = kernel->Launch(buffers, options);
  if (!result.ok()) return Invalid(std::string(result.status().message()));
  std::string findings = result->RenderFindings();
  if (result->failed()) return ffi::Error(ffi::ErrorCode::kInternal, findings);
  if (!findings.empty()) std::fwrite(findings.data(), 1, findings.size(), stderr);  // warnings
  return ffi::Error::Success();
}

}  // namespace
}  // namespace scjit

XLA_FFI_DEFINE_HANDLER_SYMBOL(ScjitLaunch, scjit::LaunchFromXla,
                              xla::ffi::Ffi::Bind()
                                  .RemainingArgs()
                                  .RemainingRets()
                                  .Attr<int64_t>("kernel")
                                  .Attr<int64_t>("threads")
                                  .Attr<std::string_view>("checks")
                                  .Attr<std::string_view>("dma")
                                  .Attr<int64_t>("seed"));
