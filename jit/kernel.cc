// The public Kernel (scjit/kernel.h): its description, and a launch — binding
// buffers to parameters, deciding the options' defaults, running the runtime.
#include <algorithm>
#include <thread>

#include "jit/compiled_kernel.h"
#include "lowering/base/diagnostic.h"
#include "lowering/base/strings.h"
#include "runtime/npy.h"
#include "scjit/kernel.h"

namespace scjit {
namespace {

absl::Status ParamError(std::string detail) {
  return DiagnosticStatus(MakeDiagnostic(DiagId::kIoParam, nullptr, Location{}, {{"detail", std::move(detail)}}));
}

std::string_view ParamName(std::string_view name) {
  if (!name.empty() && name.front() == '%') name.remove_prefix(1);
  return name;
}

std::string ParamList(const LaunchLayout& l) {
  std::string out;
  for (const ParamLayout& p : l.params) Append(&out, out.empty() ? "" : ", ", "%", p.name);
  return out.empty() ? std::string("none") : out;
}

int ParamIndex(const LaunchLayout& l, std::string_view name) {
  for (size_t i = 0; i < l.params.size(); ++i) {
    if (l.params[i].name == ParamName(name)) return static_cast<int>(i);
  }
  return -1;
}

// Checks that every parameter with data has a buffer of its dtype and shape,
// and semaphores none; returns the runtime's view of them.
absl::StatusOr<std::vector<ParamBuffer>> Resolve(const LaunchLayout& l, std::span<const ParamInfo> params,
                                                 const std::vector<const Buffer*>& bound) {
  std::vector<ParamBuffer> out;
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamInfo& p = params[i];  // its shape has the device axis, if any
    const Buffer* b = bound[i];
    if (b == nullptr || b->empty()) {
      return ParamError(Cat("parameter %", p.name, " (", DirectionName(p.direction), " ", p.type, ") of kernel @",
                            l.kernel, " is not bound to a buffer"));
    }
    if (absl::Status s = CheckFits(b->dtype(), b->shape(), "the buffer bound to it", Cat("%", p.name), p.dtype,
                                   p.shape, p.type);
        !s.ok()) {
      return s;
    }
    out.push_back(ParamBuffer{b->data(), static_cast<int64_t>(b->bytes())});
  }
  return out;
}

absl::StatusOr<RunOptions> Decide(const LaunchOptions& o, const internal::CompiledKernel& k) {
  auto usage = [](std::string detail) {
    return DiagnosticStatus(MakeDiagnostic(DiagId::kIoUsage, nullptr, Location{}, {{"detail", std::move(detail)}}));
  };
  if (o.threads < 0 || o.threads > kMaxLaunchThreads) {
    return usage(Cat("a launch takes 0 to ", kMaxLaunchThreads, " threads, got ", o.threads));
  }
  if (!(o.time_limit_seconds >= 0)) return usage("a launch's time limit must be 0 (none) or more seconds");
  RunOptions r;
  r.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  r.seed = o.seed;
  r.checks = o.checks.value_or(k.checks);
  r.dma = o.dma.value_or(r.checks.any() ? DmaMode::kOnWait : DmaMode::kEager);
  r.time_limit_seconds = o.time_limit_seconds;
  r.time_limit_start = o.time_limit_start;
  r.log = o.log;
  r.link = o.link;
  r.interrupt = o.interrupt;
  r.stacks = k.code->stacks.get();
  r.memory = k.code->memory.get();
  r.workers = k.code->workers.get();
  return r;
}

}  // namespace

int64_t ParamInfo::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t ParamInfo::bytes() const { return num_elements() * DTypeBytes(dtype); }

Args::Args(std::initializer_list<std::pair<std::string_view, Buffer>> named) {
  for (const auto& [name, buffer] : named) Set(name, buffer);
}

Args& Args::Set(std::string_view name, Buffer buffer) {
  named_.emplace_back(std::string(name), std::move(buffer));
  return *this;
}

Args& Args::Set(int position, Buffer buffer) {
  positional_.emplace_back(position, std::move(buffer));
  return *this;
}

const std::string& Kernel::name() const { return impl_->code->layout.kernel; }
std::string_view Kernel::target() const { return Info(impl_->code->layout.target).name; }
MeshKind Kernel::mesh() const { return impl_->code->layout.mesh; }
int Kernel::cores() const { return impl_->code->layout.cores; }
int Kernel::subcores() const { return impl_->code->layout.subcores; }
int Kernel::devices() const { return impl_->code->layout.devices(); }
std::span<const ParamInfo> Kernel::params() const { return impl_->code->params; }
const CompileTimes& Kernel::times() const { return impl_->times; }
const std::vector<Diagnostic>& Kernel::warnings() const { return impl_->warnings; }

const ParamInfo* Kernel::param(std::string_view name) const {
  int i = ParamIndex(impl_->code->layout, name);
  return i < 0 ? nullptr : &impl_->code->params[i];
}

absl::StatusOr<LaunchResult> Kernel::Launch(const Args& args, const LaunchOptions& options) const {
  const LaunchLayout& l = impl_->code->layout;
  std::vector<const Buffer*> bound(l.params.size(), nullptr);
  auto bind = [&](int i, const Buffer& b) -> absl::Status {
    if (bound[i] != nullptr) return ParamError(Cat("parameter %", l.params[i].name, " is bound twice"));
    bound[i] = &b;
    return absl::OkStatus();
  };
  for (const auto& [name, buffer] : args.named_) {
    int i = ParamIndex(l, name);
    if (i < 0) {
      return ParamError(
          Cat("kernel @", l.kernel, " has no parameter %", ParamName(name), " (its parameters: ", ParamList(l), ")"));
    }
    if (absl::Status s = bind(i, buffer); !s.ok()) return s;
  }
  for (const auto& [position, buffer] : args.positional_) {
    int n = static_cast<int>(l.params.size());
    if (position < 0 || position >= n) {
      return ParamError(Cat("kernel @", l.kernel, " has ", n, " parameter", n == 1 ? "" : "s", " (", ParamList(l),
                            "); position ", position, " is out of range"));
    }
    if (absl::Status s = bind(position, buffer); !s.ok()) return s;
  }
  absl::StatusOr<std::vector<ParamBuffer>> params = Resolve(l, impl_->code->params, bound);
  if (!params.ok()) return params.status();
  absl::StatusOr<RunOptions> run = Decide(options, *impl_);
  if (!run.ok()) return run.status();
  return RunKernel(l, impl_->code->entries, *params, *run);
}

absl::StatusOr<LaunchResult> Kernel::Launch(std::span<const Buffer> buffers, const LaunchOptions& options) const {
  const LaunchLayout& l = impl_->code->layout;
  if (buffers.size() != l.params.size()) {
    return ParamError(Cat("kernel @", l.kernel, " takes ", l.params.size(), " buffer", l.params.size() == 1 ? "" : "s",
                          " (one per parameter: ", ParamList(l), "), got ", buffers.size()));
  }
  std::vector<const Buffer*> bound;
  for (const Buffer& b : buffers) bound.push_back(&b);
  absl::StatusOr<std::vector<ParamBuffer>> params = Resolve(l, impl_->code->params, bound);
  if (!params.ok()) return params.status();
  absl::StatusOr<RunOptions> run = Decide(options, *impl_);
  if (!run.ok()) return run.status();
  return RunKernel(l, impl_->code->entries, *params, *run);
}

absl::StatusOr<std::vector<Buffer>> Kernel::AllocateParams() const {
  std::vector<Buffer> out;
  for (const ParamInfo& p : params()) {
    absl::StatusOr<Buffer> b = Buffer::Allocate(p.dtype, p.shape);
    if (!b.ok()) return b.status();
    out.push_back(*std::move(b));
  }
  return out;
}

}  // namespace scjit
