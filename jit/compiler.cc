// The compilation pipeline behind the public Compiler (scjit/compiler.h), top
// to bottom — one list of stages that Compile and Emit both run:
//
//   front end  parse -> verify -> SC rules -> pick the kernel   (Stage::kIr)
//   lower      plan memory -> emit LLVM IR                      (Stage::kLlvm)
//   optimize   the pass pipeline of the opt level               (Stage::kLlvmOpt)
//   codegen    host assembly (Emit) or object code in the JIT   (Stage::kAsm)
//
// With the interpreter engine (Engine::kInterp) lowering plans memory the same
// way and builds the interpreter's programs instead of LLVM IR; there is
// nothing to optimize or generate, and nothing for the disk cache.
//
// Compile first looks the kernel up in the memory cache, then in the disk
// cache (which skips every stage: the key covers the source), and stores what
// it compiled in both.
#include <charconv>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "jit/compiled_kernel.h"
#include "jit/disk_cache.h"
#include "jit/interp/interp.h"
#include "jit/jit_session.h"
#include "lowering/analysis/index_bounds.h"
#include "lowering/analysis/kernel_info.h"
#include "lowering/base/diagnostic.h"
#include "lowering/base/strings.h"
#include "lowering/emit/emit_llvm.h"
#include "lowering/ir/frontend.h"
#include "lowering/ir/parser.h"
#include "lowering/ir/printer.h"
#include "lowering/ir/verifier.h"
#include "lowering/base/jax_release.h"
#include "lowering/rules/sc_rules.h"
#include "llvm/Config/llvm-config.h"
#include "scjit/compiler.h"
#include "jit/build_id.h"
#include "scjit/version.h"

namespace scjit {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

absl::Status Usage(std::string detail) {
  return DiagnosticStatus(MakeDiagnostic(DiagId::kIoUsage, nullptr, Location{}, {{"detail", std::move(detail)}}));
}

std::string_view KernelName(std::string_view name) {
  if (!name.empty() && name.front() == '@') name.remove_prefix(1);
  return name;
}

// One compilation as it goes down the stages.
struct Compilation {
  Compilation(std::shared_ptr<const SourceFile> f, const CompileOptions& o) : file(std::move(f)), options(o) {}

  std::shared_ptr<const SourceFile> file;
  const CompileOptions& options;
  bool need_kernel = true;  // false: Emit(kIr) of a whole module
  JitSession* session = nullptr;

  DiagnosticSink sink;
  std::shared_ptr<Module> module;
  const KernelDef* kernel = nullptr;
  TargetId target = kDefaultTarget;
  JaxRelease jax = kCatalogJax;  // CompileOptions::jax, else the file's `jax "..."`
  KernelInfo info;
  EmittedKernel emitted;                               // Engine::kJit
  std::shared_ptr<const interp::Programs> programs;  // Engine::kInterp
  CompileTimes times;
};

// CompileOptions::devices applied to the kernels it is for (options.kernel, or
// every kernel of the module) before they are verified.
absl::Status OverrideDevices(Module& module, const CompileOptions& options) {
  if (options.devices.empty() || !module.complete) return absl::OkStatus();
  std::vector<DeviceAxis> axes;
  std::optional<int64_t> size;  // "N": the one axis' size
  auto bad = [&](std::string why) {
    return Usage(Cat("--devices '", options.devices, "': ", why, "; give a count (4) or every axis and its size (y=2,x=4)"));
  };
  auto number = [&](std::string_view text, int64_t* out) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > kMaxDevices) return false;
    *out = v;
    return true;
  };
  if (options.devices.find('=') == std::string::npos) {
    int64_t n = 0;
    if (!number(options.devices, &n)) return bad(Cat("not a count of 1 to ", kMaxDevices));
    size = n;
  } else {
    std::string_view rest = options.devices;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      size_t eq = item.find('=');
      DeviceAxis a;
      a.name = std::string(item.substr(0, eq));
      if (eq == std::string_view::npos || a.name.empty() || !number(item.substr(eq + 1), &a.size)) {
        return bad(Cat("'", item, "' is not AXIS=SIZE with a size of 1 to ", kMaxDevices));
      }
      axes.push_back(std::move(a));
    }
  }
  std::string_view only = KernelName(options.kernel);
  for (const auto& k : module.kernels) {
    if (!only.empty() && k->name != only) continue;
    if (!size) {
      k->devices = axes;  // the verifier checks the names and the total
      continue;
    }
    if (k->devices.size() != 1) {
      return Usage(Cat("--devices ", *size, " resizes the device axis of kernel @", k->name, ", which has ",
                       k->devices.empty() ? std::string("no device mesh")
                                          : Cat(k->devices.size(), " device axes"),
                       "; name the axes and their sizes: --devices ",
                       k->devices.size() > 1 ? Cat(k->devices[0].name, "=2,", k->devices[1].name, "=4") : "x=4"));
    }
    k->devices[0].size = *size;
  }
  return absl::OkStatus();
}

absl::Status FrontEnd(Compilation& c) {
  Clock::time_point t = Clock::now();
  c.module = Parse(c.file, c.sink);
  c.times.parse = Ms(t);
  t = Clock::now();
  if (absl::Status s = OverrideDevices(*c.module, c.options); !s.ok()) return s;
  if (c.module->complete) Verify(*c.module, c.sink);
  if (!c.options.target.empty()) {
    c.target = *TargetFromName(c.options.target);  // checked by Compile / Emit
  } else {
    c.target = c.module->target.value_or(kDefaultTarget);
  }
  c.jax = !c.options.jax.empty() ? *ParseJaxRelease(c.options.jax) : c.module->jax.value_or(kCatalogJax);  // checked
  if (!c.sink.has_errors()) CheckScRules(*c.module, c.target, c.sink, c.jax);
  if (!c.module->origins.empty()) c.sink.Update([&](Diagnostic& d) { c.module->origins.Relocate(d, *c.file); });
  c.times.verify = Ms(t);
  if (c.sink.has_errors()) return c.sink.ToStatus();
  if (!c.need_kernel && c.options.kernel.empty()) return absl::OkStatus();

  std::string file = c.module->source->name();
  std::string_view name = KernelName(c.options.kernel);
  if (!name.empty()) {
    c.kernel = c.module->FindKernel(name);
    if (c.kernel == nullptr) return Usage(Cat("'", file, "' has no kernel @", name));
    return absl::OkStatus();
  }
  if (c.module->kernels.size() == 1) {
    c.kernel = c.module->kernels[0].get();
    return absl::OkStatus();
  }
  std::string names;
  for (const auto& k : c.module->kernels) Append(&names, names.empty() ? "" : ", ", "@", k->name);
  return Usage(Cat("'", file, "' defines ", c.module->kernels.size(), " kernels (", names,
                   "); choose one with --kernel"));
}

// The memory plan of one part, with the index bounds of its parameters.
KernelInfo PlanPart(const Module& module, const KernelDef& part, TargetId target) {
  KernelInfo info = PlanKernel(module, part, target);
  std::vector<std::optional<IndexBound>> bounds = IndexBounds(part);
  for (size_t p = 0; p < bounds.size(); ++p) {
    if (!bounds[p]) continue;
    info.layout.params[p].index_bound = bounds[p]->size;
    info.layout.params[p].indexed_ref = bounds[p]->ref;
  }
  return info;
}

// A parameter used as an index by several parts is bounded by the smallest
// dimension any of them indexes with it (the first part's layout answers for
// the kernel's parameters).
void MergeIndexBounds(LaunchLayout& first, const LaunchLayout& other) {
  for (size_t p = 0; p < first.params.size(); ++p) {
    ParamLayout& a = first.params[p];
    const ParamLayout& b = other.params[p];
    if (!b.index_bound || (a.index_bound && *a.index_bound <= *b.index_bound)) continue;
    a.index_bound = b.index_bound;
    a.indexed_ref = b.indexed_ref;
  }
}

absl::Status Lower(Compilation& c) {
  std::vector<const KernelDef*> parts = c.kernel->Parts();
  std::vector<KernelInfo> infos;
  for (const KernelDef* part : parts) infos.push_back(PlanPart(*c.module, *part, c.target));
  // A part's `%s: sem @scalar` is the scalar part's semaphore %s: its slot there.
  for (size_t i = 0; i < parts.size(); ++i) {
    for (const Value* v : parts[i]->scratch) {
      if (v->other != nullptr) infos[i].slots[v] = infos[static_cast<size_t>(v->other_part)].slots.at(v->other);
    }
  }
  std::vector<KernelInfo*> info_ptrs;
  for (KernelInfo& info : infos) info_ptrs.push_back(&info);
  bool bounds_checks = c.options.checks.bounds;
  bool access_checks = c.options.checks.init || c.options.checks.race;
  bool signed_sort_keys = !(c.jax < JaxRelease{0, 12, 1});
  if (c.options.engine == Engine::kInterp) {
    absl::StatusOr<std::shared_ptr<const interp::Programs>> programs =
        interp::Build(c.module, parts, info_ptrs, interp::Options{bounds_checks, access_checks, c.options.checks.init, signed_sort_keys});
    if (!programs.ok()) return programs.status();
    c.programs = *std::move(programs);
  } else {
    EmitOptions emit;
    emit.bounds_checks = bounds_checks;
    emit.access_checks = access_checks;
    emit.init_shadows = c.options.checks.init;
    emit.conflict_detection = c.options.host_fast_paths && c.session->HasFeature("avx512cd");
    emit.signed_sort_keys = signed_sort_keys;
    absl::StatusOr<EmittedKernel> emitted = EmitKernelParts(parts, info_ptrs, emit);
    if (!emitted.ok()) return emitted.status();
    c.emitted = *std::move(emitted);
  }
  c.info = std::move(infos[0]);
  for (size_t i = 1; i < infos.size(); ++i) {
    MergeIndexBounds(c.info.layout, infos[i].layout);
    c.info.layout.more_parts.push_back(std::move(infos[i].layout));
  }
  return absl::OkStatus();
}

absl::Status Optimize(Compilation& c) {
  if (c.options.engine == Engine::kInterp) return absl::OkStatus();  // nothing to optimize
  absl::StatusOr<int64_t> frame = c.session->Optimize(c.emitted);
  if (!frame.ok()) return frame.status();
  // The subcores' stacks must hold what the backend's tier makes of the frame.
  c.info.layout.frame_bytes = std::max(c.info.layout.frame_bytes, *frame);
  for (LaunchLayout& part : c.info.layout.more_parts) part.frame_bytes = std::max(part.frame_bytes, *frame);
  return absl::OkStatus();
}

// The stages every compilation runs, in order, each timed into CompileTimes
// (the front end times parse and verify itself).
struct StageRow {
  Stage stage;
  absl::Status (*run)(Compilation&);
  double CompileTimes::*time;
};
constexpr StageRow kStages[] = {
    {Stage::kIr, FrontEnd, nullptr},
    {Stage::kLlvm, Lower, &CompileTimes::lower},
    {Stage::kLlvmOpt, Optimize, &CompileTimes::optimize},
};

absl::Status RunStages(Compilation& c, Stage last) {
  for (const StageRow& row : kStages) {
    if (row.stage > last) break;
    Clock::time_point t = Clock::now();
    if (absl::Status s = row.run(c); !s.ok()) return s;
    if (row.time != nullptr) c.times.*row.time = Ms(t);
  }
  return absl::OkStatus();
}

absl::Status CheckOptions(const CompileOptions& options) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    return Usage(Cat("optimization level ", options.opt_level, " (expected 0 to 3)"));
  }
  if (!options.target.empty() && !TargetFromName(options.target)) {
    return Usage(Cat("unknown target '", options.target, "'; expected one of ", TargetNameList()));
  }
  return ParseJaxRelease(options.jax).status();
}

constexpr std::pair<Engine, std::string_view> kEngines[] = {{Engine::kJit, "jit"}, {Engine::kInterp, "interp"}};

}  // namespace

std::string_view EngineName(Engine engine) {
  for (const auto& [e, name] : kEngines) {
    if (e == engine) return name;
  }
  return "?";
}

std::optional<Engine> EngineFromName(std::string_view name) {
  for (const auto& [e, n] : kEngines) {
    if (n == name) return e;
  }
  return std::nullopt;
}

std::string EngineNameList() {
  std::string out;
  for (const auto& [e, name] : kEngines) Append(&out, out.empty() ? "" : ", ", name);
  return out;
}

std::vector<ParamInfo> PublicParams(const LaunchLayout& layout) {
  std::vector<ParamInfo> out;
  for (const ParamLayout& p : layout.params) {
    ParamInfo info;
    info.name = p.name;
    info.direction = p.direction;
    info.semaphore = p.semaphore;
    info.dtype = p.dtype;
    // A kernel of a device mesh takes one array per chip: a leading device axis.
    info.shape = p.shape;
    info.type = p.type_text;
    if (!layout.device_axes.empty()) {
      info.shape.insert(info.shape.begin(), layout.devices());
      info.type = Cat(p.type_text, " on each of ", layout.devices(), " device", layout.devices() == 1 ? "" : "s");
    }
    info.space = p.space;
    info.index_bound = p.index_bound;
    info.indexed_ref = p.indexed_ref;
    out.push_back(std::move(info));
  }
  return out;
}

absl::StatusOr<Source> Source::FromFile(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const SourceFile>> file = ReadSourceFile(path);
  if (!file.ok()) return file.status();
  return Source{(*file)->name(), std::string((*file)->text())};
}

struct Compiler::Impl {
  absl::StatusOr<std::shared_ptr<JitSession>> Session(int opt_level);
  // Everything that decides the code of a compilation, as text (`session`: the
  // JIT's, null for the interpreter).
  std::string Key(const Source& source, const CompileOptions& options, const JitSession* session) const;
  absl::StatusOr<std::shared_ptr<const CompiledCode>> Build(std::shared_ptr<const SourceFile> file,
                                                           const CompileOptions& options,
                                                           std::shared_ptr<JitSession> session, CompileTimes* times,
                                                           std::string* object);
  std::shared_ptr<const CompiledCode> MakeCode(std::shared_ptr<JitSession> session,
                                               std::shared_ptr<const interp::Programs> programs,
                                               std::vector<PartCode> entries, LaunchLayout layout) const;

  mutable std::mutex mu;
  std::map<int, std::shared_ptr<JitSession>> sessions;  // by opt level
  std::map<std::string, std::shared_ptr<const CompiledCode>> memory;  // by key and file name
  CacheStats stats;
};

absl::StatusOr<std::shared_ptr<JitSession>> Compiler::Impl::Session(int opt_level) {
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<JitSession>& s = sessions[opt_level];
  if (s == nullptr) {
    absl::StatusOr<std::unique_ptr<JitSession>> created = JitSession::Create(opt_level);
    if (!created.ok()) return created.status();
    s = *std::move(created);
  }
  return s;
}

std::string Compiler::Impl::Key(const Source& source, const CompileOptions& options, const JitSession* session) const {
  return Cat("scjit ", kVersionString, " build ", kBuildId, "\nllvm ", LLVM_VERSION_STRING, "\nhost ",
             session != nullptr ? session->host() : "", "\nengine ", EngineName(options.engine), "\nkernel ",
             KernelName(options.kernel), "\ntarget ", options.target, "\ndevices ", options.devices, "\njax ", ParseJaxRelease(options.jax)->ToString(), "\nO", options.opt_level, "\nbounds ",
             options.checks.bounds ? "checked" : "clamped", "\naccesses ",
             options.checks.init || options.checks.race ? "checked" : "unchecked", "\nshadows ",
             options.checks.init ? "on" : "off", "\nfast paths ",
             options.host_fast_paths ? "host" : "portable", "\nsource ", Sha256Hex(source.text), " ",
             source.text.size(), "\n");
}

std::shared_ptr<const CompiledCode> Compiler::Impl::MakeCode(std::shared_ptr<JitSession> session,
                                                             std::shared_ptr<const interp::Programs> programs,
                                                             std::vector<PartCode> entries, LaunchLayout layout) const {
  auto code = std::make_shared<CompiledCode>();
  code->session = std::move(session);
  code->programs = std::move(programs);
  code->entries = std::move(entries);
  code->params = PublicParams(layout);
  code->stacks = std::make_unique<StackPool>(StackBytesFor(layout));
  code->layout = std::move(layout);
  return code;
}

absl::StatusOr<std::shared_ptr<const CompiledCode>> Compiler::Impl::Build(std::shared_ptr<const SourceFile> file,
                                                                          const CompileOptions& options,
                                                                          std::shared_ptr<JitSession> session,
                                                                          CompileTimes* times, std::string* object) {
  Compilation c(std::move(file), options);
  c.session = session.get();
  absl::Status status = RunStages(c, Stage::kLlvmOpt);
  *times = c.times;
  if (!status.ok()) return status;
  if (options.engine == Engine::kInterp) {
    std::vector<PartCode> parts = c.programs->Parts();
    return MakeCode(nullptr, std::move(c.programs), std::move(parts), std::move(c.info.layout));
  }
  Clock::time_point t = Clock::now();
  absl::StatusOr<std::vector<KernelFn>> entries = session->AddParts(std::move(c.emitted), object);
  if (!entries.ok()) return entries.status();
  times->codegen = Ms(t);
  std::vector<PartCode> parts;
  for (KernelFn fn : *entries) parts.push_back(PartCode{fn, nullptr});
  return MakeCode(std::move(session), nullptr, std::move(parts), std::move(c.info.layout));
}

Compiler::Compiler() : impl_(std::make_unique<Impl>()) {}
Compiler::~Compiler() = default;

Compiler::CacheStats Compiler::cache_stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->stats;
}

absl::StatusOr<Kernel> Compiler::CompileFile(const std::string& path, const CompileOptions& options) {
  absl::StatusOr<Source> source = Source::FromFile(path);
  if (!source.ok()) return source.status();
  return Compile(*source, options);
}

absl::StatusOr<Kernel> Compiler::Compile(const Source& source, const CompileOptions& options) {
  Clock::time_point start = Clock::now();
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  bool jit = options.engine == Engine::kJit;
  std::shared_ptr<JitSession> session;  // the JIT's; the interpreter needs none
  if (jit) {
    absl::StatusOr<std::shared_ptr<JitSession>> s = impl_->Session(options.opt_level);
    if (!s.ok()) return s.status();
    session = *std::move(s);
  }

  auto kernel = std::make_shared<internal::CompiledKernel>();
  kernel->checks = options.checks;
  std::string key = impl_->Key(source, options, session.get());
  std::string memory_key = Cat(key, "file ", source.name, "\n");
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (auto it = impl_->memory.find(memory_key); it != impl_->memory.end()) {
      ++impl_->stats.memory_hits;
      kernel->code = it->second;
      kernel->times.cache_hit = true;
      kernel->times.total = Ms(start);
      return Kernel(std::move(kernel));
    }
  }

  std::shared_ptr<const CompiledCode> code;
  std::optional<DiskCache> disk;
  if (!options.cache_dir.empty() && jit) disk.emplace(options.cache_dir);
  if (disk) {
    if (std::optional<DiskCache::Entry> entry = disk->Load(key, &kernel->warnings)) {
      std::vector<std::string> symbols;
      for (const LaunchLayout* part : entry->layout.Parts()) symbols.push_back(part->entry);
      absl::StatusOr<std::vector<KernelFn>> fn = session->AddObject(entry->object, symbols);
      if (fn.ok()) {
        // The same text, perhaps under another name.
        entry->layout.file = source.name;
        for (LaunchLayout& part : entry->layout.more_parts) part.file = source.name;
        std::vector<PartCode> parts;
        for (KernelFn f : *fn) parts.push_back(PartCode{f, nullptr});
        code = impl_->MakeCode(session, nullptr, std::move(parts), std::move(entry->layout));
        kernel->times.cache_hit = kernel->times.from_disk = true;
      } else {
        Diagnostic d = MakeDiagnostic(DiagId::kIoCache, nullptr, Location{},
                                      {{"path", disk->PathFor(key)},
                                       {"reason", Cat("is ignored: its object code does not link (",
                                                      std::string(fn.status().message()),
                                                      "); the kernel is compiled again")}});
        d.severity = Severity::kWarning;
        kernel->warnings.push_back(std::move(d));
      }
    }
  }
  if (code == nullptr) {
    std::string object;
    absl::StatusOr<std::shared_ptr<const CompiledCode>> built =
        impl_->Build(std::make_shared<const SourceFile>(source.name, source.text), options, session,
                     &kernel->times, disk ? &object : nullptr);
    if (!built.ok()) return built.status();
    code = *std::move(built);
    if (disk && !object.empty()) disk->Store(key, code->layout, object, &kernel->warnings);
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    ++(kernel->times.from_disk ? impl_->stats.disk_hits : impl_->stats.compiled);
    // Two threads compiling the same kernel at once both compile it; the first
    // to finish is kept.
    auto [it, inserted] = impl_->memory.emplace(memory_key, code);
    kernel->code = it->second;
  }
  kernel->times.total = Ms(start);
  return Kernel(std::move(kernel));
}

absl::StatusOr<std::string> Compiler::Emit(const Source& source, Stage stage, const CompileOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  if (options.engine == Engine::kInterp && stage > Stage::kIr) {
    return Usage("the interpreter has no LLVM IR or assembly to show; only the IR stage (--emit ir) applies to it");
  }
  Compilation c(std::make_shared<const SourceFile>(source.name, source.text), options);
  c.need_kernel = stage > Stage::kIr;
  std::shared_ptr<JitSession> session;
  if (stage >= Stage::kLlvm) {  // the host's features shape the LLVM IR too
    absl::StatusOr<std::shared_ptr<JitSession>> s = impl_->Session(options.opt_level);
    if (!s.ok()) return s.status();
    session = *s;
    c.session = session.get();
  }
  if (absl::Status s = RunStages(c, std::min(stage, Stage::kLlvmOpt)); !s.ok()) return s;
  switch (stage) {
    case Stage::kIr:
      return Print(*c.module);
    case Stage::kLlvm:
    case Stage::kLlvmOpt:
      return ModuleText(c.emitted);
    case Stage::kAsm:
      return session->Assembly(c.emitted);
  }
  return absl::InternalError("unknown stage");
}

}  // namespace scjit
