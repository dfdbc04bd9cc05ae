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
//   time_limit  seconds (f64); 0: none. A launch that runs longer fails with
//               RT-TIMEOUT, as a failed check does
//   shared      0, or the address of the call site's SharedLaunch when the kernel
//               has a device mesh and every device of a jax.shard_map calls with
//               the same (gathered) operands: one of them runs the launch, the
//               others take copies of its results (shared_launch.h)
// debug_print output goes to stderr; warnings become Python warnings
// (scjit.errors.RunWarning, through warn_findings: the GIL is taken for it, as
// jax's host callbacks do); a failed check is an error whose message is every
// finding, rendered. A warning filter that makes them errors fails the call.
//
// int4/uint4 are the exception to "without copies": XLA packs them two to a byte
// (low nibble first), scjit's memory holds one per byte (docs/language.md, "4-bit
// integers"), so they are unpacked into a buffer of the launch's before it and
// packed back into XLA's after it.
#include "python/src/ffi_launch.h"
#include "python/src/interrupt.h"

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "python/src/shared_launch.h"
#include "scjit/scjit.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace scjit {
namespace {

namespace py = pybind11;

// The launch's warnings as Python warnings (scjit.errors.warn_findings).
ffi::Error WarnFindings(const std::vector<Diagnostic>& findings) {
  bool any = false;
  for (const Diagnostic& d : findings) any |= d.severity == Severity::kWarning;
  if (!any) return ffi::Error::Success();
  py::gil_scoped_acquire gil;
  try {
    py::module_::import("scjit.errors").attr("warn_findings")(findings, 1);
  } catch (py::error_already_set& e) {  // a filter made the warning an error
    std::string type = py::str(e.type().attr("__name__"));
    std::string text = py::str(e.value());
    return ffi::Error(ffi::ErrorCode::kInternal, type + ": " + text);
  }
  return ffi::Error::Success();
}

ffi::Error Invalid(std::string message) { return ffi::Error(ffi::ErrorCode::kInvalidArgument, std::move(message)); }

bool IsPacked(const ffi::AnyBuffer& b) {
  return b.element_type() == ffi::DataType::S4 || b.element_type() == ffi::DataType::U4;
}

// The bytes XLA's buffer `b` holds: 4-bit types two to a byte (ffi's size_bytes
// counts one byte each).
size_t XlaBytes(const ffi::AnyBuffer& b) { return IsPacked(b) ? (b.element_count() + 1) / 2 : b.size_bytes(); }

// XLA's packed 4-bit elements (low nibble first) one per byte, in the low nibble.
void Unpack(const ffi::AnyBuffer& b, std::vector<uint8_t>* out) {
  const auto* packed = static_cast<const uint8_t*>(b.untyped_data());
  out->resize(b.element_count());
  for (size_t i = 0; i < out->size(); ++i) (*out)[i] = (packed[i / 2] >> (4 * (i % 2))) & 0x0F;
}

// The inverse of Unpack: the low nibble of each byte of `in`, two to a byte of `b`.
void Pack(const std::vector<uint8_t>& in, ffi::AnyBuffer b) {
  auto* packed = static_cast<uint8_t*>(b.untyped_data());
  std::memset(packed, 0, XlaBytes(b));
  for (size_t i = 0; i < in.size(); ++i) packed[i / 2] |= static_cast<uint8_t>((in[i] & 0x0F) << (4 * (i % 2)));
}

// Binds buffer `b` to parameter `p` (its dtype and shape; the byte count must
// agree, which the lowering guarantees). A packed 4-bit buffer binds through
// `unpacked`, which holds its elements one per byte.
absl::StatusOr<Buffer> Bind(const ParamInfo& p, const ffi::AnyBuffer& b, std::vector<uint8_t>* unpacked) {
  if (!IsPacked(b)) return Buffer::Wrap(p.dtype, p.shape, b.untyped_data(), b.size_bytes());
  Unpack(b, unpacked);
  return Buffer::Wrap(p.dtype, p.shape, unpacked->data(), unpacked->size());
}

// The launch options of the call's attributes.
struct CallOptions {
  int64_t threads;
  std::string_view checks;
  std::string_view dma;
  int64_t seed;
  double time_limit;
};

// Binds XLA's buffers to `kernel`'s parameters and launches it.
ffi::Error LaunchOnXlaBuffers(const Kernel* kernel, ffi::RemainingArgs args, ffi::RemainingRets rets,
                              const CallOptions& call) {
  std::span<const ParamInfo> params = kernel->params();
  std::vector<Buffer> buffers(params.size());
  std::vector<std::vector<uint8_t>> unpacked(params.size());  // 4-bit parameters' own memory
  std::vector<std::optional<ffi::AnyBuffer>> pack_into(params.size());  // their XLA results
  size_t next_arg = 0, next_ret = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamInfo& p = params[i];
    absl::StatusOr<Buffer> bound;
    if (p.direction == ParamDirection::kIn) {
      if (next_arg >= args.size()) return Invalid("scjit_launch: too few operands for @" + kernel->name());
      ffi::ErrorOr<ffi::AnyBuffer> arg = args.get<ffi::AnyBuffer>(next_arg++);
      if (!arg.has_value()) return arg.error();
      bound = Bind(p, *arg, &unpacked[i]);
    } else {
      if (next_ret >= rets.size()) return Invalid("scjit_launch: too few results for @" + kernel->name());
      ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> ret = rets.get<ffi::AnyBuffer>(next_ret++);
      if (!ret.has_value()) return ret.error();
      ffi::AnyBuffer out = **ret;
      if (p.direction == ParamDirection::kInOut) {
        if (next_arg >= args.size()) return Invalid("scjit_launch: too few operands for @" + kernel->name());
        ffi::ErrorOr<ffi::AnyBuffer> arg = args.get<ffi::AnyBuffer>(next_arg++);
        if (!arg.has_value()) return arg.error();
        if (arg->untyped_data() != out.untyped_data() && XlaBytes(*arg) == XlaBytes(out)) {
          std::memcpy(out.untyped_data(), arg->untyped_data(), XlaBytes(out));
        }
      }
      if (IsPacked(out)) pack_into[i] = out;
      bound = Bind(p, out, &unpacked[i]);
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
  options.threads = static_cast<int>(call.threads);
  if (call.seed >= 0) options.seed = static_cast<uint64_t>(call.seed);
  options.time_limit_seconds = call.time_limit;
  if (call.dma == "eager") options.dma = DmaMode::kEager;
  if (call.dma == "on_wait") options.dma = DmaMode::kOnWait;
  if (!call.checks.empty()) {
    absl::StatusOr<Checks> c = Checks::Parse(call.checks);
    if (!c.ok()) return Invalid(std::string(c.status().message()));
    options.checks = *c;
  }
  options.log = [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  };
  InterruptGuard guard;  // Ctrl-C stops the launch; Python raises KeyboardInterrupt after
  options.interrupt = guard.flag();
  absl::StatusOr<LaunchResult> result = kernel->Launch(buffers, options);
  if (!result.ok()) return Invalid(std::string(result.status().message()));
  if (result->failed()) return ffi::Error(ffi::ErrorCode::kInternal, result->RenderFindings());
  for (size_t i = 0; i < params.size(); ++i) {
    if (pack_into[i].has_value()) Pack(unpacked[i], *pack_into[i]);
  }
  return WarnFindings(result->findings);
}

// The outcome of a launch this device ran, for the devices sharing it.
SharedLaunch::Outcome OutcomeOf(const ffi::Error& error, ffi::RemainingRets rets) {
  SharedLaunch::Outcome outcome;
  if (error.failure()) {
    outcome.failed = true;
    outcome.error_code = static_cast<int>(error.errc().value_or(ffi::ErrorCode::kInternal));
    outcome.message = error.message();
    return outcome;
  }
  for (size_t i = 0; i < rets.size(); ++i) {
    ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> ret = rets.get<ffi::AnyBuffer>(i);
    if (!ret.has_value()) continue;
    const auto* bytes = static_cast<const uint8_t*>((**ret).untyped_data());
    outcome.results.emplace_back(bytes, bytes + XlaBytes(**ret));
  }
  return outcome;
}

// The outcome another device published, as this device's call's results.
ffi::Error TakeOutcome(const SharedLaunch::Outcome& outcome, ffi::RemainingRets rets) {
  if (outcome.failed) return ffi::Error(static_cast<ffi::ErrorCode>(outcome.error_code), outcome.message);
  if (outcome.results.size() != rets.size()) return Invalid("scjit_launch: a shared launch's results differ");
  for (size_t i = 0; i < rets.size(); ++i) {
    ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> ret = rets.get<ffi::AnyBuffer>(i);
    if (!ret.has_value()) return ret.error();
    if (XlaBytes(**ret) != outcome.results[i].size()) return Invalid("scjit_launch: a shared launch's results differ");
    std::memcpy((**ret).untyped_data(), outcome.results[i].data(), outcome.results[i].size());
  }
  return ffi::Error::Success();
}

ffi::Error LaunchFromXla(ffi::RunId run, int32_t device, ffi::RemainingArgs args, ffi::RemainingRets rets,
                         int64_t kernel_address, int64_t threads, std::string_view checks, std::string_view dma,
                         int64_t seed, double time_limit, int64_t shared) {
  const Kernel* kernel = reinterpret_cast<const Kernel*>(kernel_address);
  if (kernel == nullptr) return Invalid("scjit_launch: no kernel");
  CallOptions call{threads, checks, dma, seed, time_limit};
  if (shared == 0) return LaunchOnXlaBuffers(kernel, args, rets, call);
  auto* sharing = reinterpret_cast<SharedLaunch*>(shared);
  SharedLaunch::Turn turn = sharing->Arrive(run.run_id, device);
  ffi::Error error;
  if (turn.runs) {
    error = LaunchOnXlaBuffers(kernel, args, rets, call);
    sharing->Publish(turn, OutcomeOf(error, rets));
  } else {
    error = TakeOutcome(sharing->Await(turn), rets);
  }
  sharing->Leave(run.run_id, turn);
  return error;
}

}  // namespace
}  // namespace scjit

XLA_FFI_DEFINE_HANDLER_SYMBOL(ScjitLaunch, scjit::LaunchFromXla,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::RunId>()
                                  .Ctx<xla::ffi::DeviceOrdinal>()
                                  .RemainingArgs()
                                  .RemainingRets()
                                  .Attr<int64_t>("kernel")
                                  .Attr<int64_t>("threads")
                                  .Attr<std::string_view>("checks")
                                  .Attr<std::string_view>("dma")
                                  .Attr<int64_t>("seed")
                                  .Attr<double>("time_limit")
                                  .Attr<int64_t>("shared"));
