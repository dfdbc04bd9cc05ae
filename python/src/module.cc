// scjit._scjit: the public C++ API (include/scjit/) for Python. A thin layer: it
// converts values and releases the GIL while kernels compile and run; errors
// come back as (status code, diagnostics) so that python/scjit/ turns them into
// the package's exception classes. numpy arrays are wrapped, never copied.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "scjit/scjit.h"
#ifdef SCJIT_XLA_FFI
#include "python/src/ffi_launch.h"
#include "python/src/interrupt.h"
#include "python/src/shared_launch.h"
#endif

namespace py = pybind11;

namespace scjit {
namespace {

// What a failed call returns to Python: absl's code name ("INVALID_ARGUMENT"),
// the message, and the diagnostics it carries (empty for plain errors).
struct Failure {
  std::string code;
  std::string message;
  std::vector<Diagnostic> diagnostics;
};

Failure FailureOf(const absl::Status& status) {
  return Failure{absl::StatusCodeToString(status.code()), std::string(status.message()), DiagnosticsOf(status)};
}

py::object Compile(Compiler& compiler, const std::string& name, const std::string& text, const std::string& kernel,
                   const std::string& target, int opt_level, const std::string& checks, const std::string& cache_dir,
                   const std::string& engine, const std::string& devices, const std::string& jax) {
  absl::StatusOr<Checks> parsed = Checks::Parse(checks);
  if (!parsed.ok()) return py::cast(FailureOf(parsed.status()));
  std::optional<Engine> e = EngineFromName(engine);
  if (!e) {
    return py::cast(FailureOf(DiagnosticStatus(CatalogDiagnostic(
        "IO-USAGE", {{"detail", "unknown engine '" + engine + "'; expected one of " + EngineNameList()}}))));
  }
  CompileOptions options;
  options.engine = *e;
  options.kernel = kernel;
  options.target = target;
  options.devices = devices;
  options.jax = jax;
  options.opt_level = opt_level;
  options.checks = *parsed;
  options.cache_dir = cache_dir;
  absl::StatusOr<Kernel> k;
  {
    py::gil_scoped_release release;
    k = compiler.Compile(Source{name, text}, options);
  }
  if (!k.ok()) return py::cast(FailureOf(k.status()));
  return py::cast(*std::move(k));
}

// The launch options Python passes: every field optional, as LaunchOptions.
LaunchOptions MakeLaunchOptions(int threads, std::optional<uint64_t> seed, const std::string& dma,
                                const std::string& checks, double time_limit, py::object log,
                                absl::Status* status) {
  LaunchOptions o;
  o.threads = threads;
  o.seed = seed;
  if (dma == "eager") {
    o.dma = DmaMode::kEager;
  } else if (dma == "on_wait") {
    o.dma = DmaMode::kOnWait;
  } else if (!dma.empty()) {
    *status = DiagnosticStatus(CatalogDiagnostic("IO-USAGE", {{"detail", "dma must be 'eager' or 'on_wait', got '" + dma + "'"}}));
  }
  if (!checks.empty()) {
    absl::StatusOr<Checks> c = Checks::Parse(checks);
    if (c.ok()) {
      o.checks = *c;
    } else {
      *status = c.status();
    }
  }
  o.time_limit_seconds = time_limit;
  if (!log.is_none()) {
    // Called from the launching thread while the GIL is released.
    o.log = [log](std::string_view text) {
      py::gil_scoped_acquire acquire;
      log(py::str(text.data(), text.size()));
    };
  }
  return o;
}

// One array a launch binds, as python/scjit/ describes a numpy array: its
// address, byte size, dtype name and shape. (Described rather than passed as an
// array, so that the binding needs no numpy C API; the caller keeps the array
// alive during the launch.)
struct ArrayRef {
  uintptr_t address = 0;
  size_t bytes = 0;
  std::string dtype;  // numpy's name: "int32", "bfloat16"
  std::vector<int64_t> shape;
};

// Launches `kernel` on `arrays`, one per parameter in order; their bytes are
// bound without a copy.
py::object Launch(const Kernel& kernel, const std::vector<ArrayRef>& arrays, int threads,
                  std::optional<uint64_t> seed, const std::string& dma, const std::string& checks,
                  double time_limit, py::object log) {
  absl::Status status;
  LaunchOptions options = MakeLaunchOptions(threads, seed, dma, checks, time_limit, log, &status);
  if (!status.ok()) return py::cast(FailureOf(status));
  std::span<const ParamInfo> params = kernel.params();
  if (arrays.size() != params.size()) {
    return py::cast(FailureOf(DiagnosticStatus(CatalogDiagnostic(
        "IO-PARAM", {{"detail", "kernel @" + kernel.name() + " takes " + std::to_string(params.size()) +
                                    " arrays, one per parameter, got " + std::to_string(arrays.size())}}))));
  }
  std::vector<Buffer> buffers(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const ArrayRef& a = arrays[i];
    // The array's own dtype, so that a mismatch is the launch's IO-DTYPE.
    std::optional<DType> d = DTypeFromName(a.dtype);
    if (!d) {
      return py::cast(FailureOf(DiagnosticStatus(
          CatalogDiagnostic("IO-DTYPE", {{"param", "%" + params[i].name},
                                         {"type", params[i].type},
                                         {"source", "the array"},
                                         {"want", std::string(DTypeName(params[i].dtype))},
                                         {"got", a.dtype}}))));
    }
    absl::StatusOr<Buffer> b = Buffer::Wrap(*d, a.shape, reinterpret_cast<void*>(a.address), a.bytes);
    if (!b.ok()) return py::cast(FailureOf(b.status()));
    buffers[i] = *std::move(b);
  }
  absl::StatusOr<LaunchResult> result;
  bool interrupted = false;
  {
    InterruptGuard guard;
    options.interrupt = guard.flag();
    py::gil_scoped_release release;
    result = kernel.Launch(buffers, options);
    interrupted = guard.interrupted();
  }
  // Ctrl-C stopped it: Python's own handler raises KeyboardInterrupt now
  // (or its replacement does what the program asked for).
  if (interrupted && PyErr_CheckSignals() != 0) throw py::error_already_set();
  if (!result.ok()) return py::cast(FailureOf(result.status()));
  return py::cast(*std::move(result));
}

py::dict TargetDict(const TargetInfo& t) {
  py::dict d;
  d["name"] = std::string(t.name);
  d["cores"] = t.cores;
  d["subcores"] = t.subcores;
  d["lanes"] = t.lanes;
  d["vmem_bytes"] = t.vmem_bytes;
  d["dma_granule_bytes"] = t.dma_granule_bytes;
  d["smem_bytes"] = t.smem_bytes;
  d["vmem_shared_bytes"] = t.vmem_shared_bytes;
  d["semaphores"] = t.semaphores;
  d["in_jax"] = t.in_jax;
  return d;
}

}  // namespace
}  // namespace scjit

PYBIND11_MODULE(_scjit, m) {
  using namespace scjit;
  m.doc() = "scjit's C++ API; use the scjit package, not this module.";
  m.attr("version") = std::string(kVersionString);
  m.attr("default_time_limit") = kDefaultTimeLimitSeconds;
  m.attr("max_threads") = kMaxLaunchThreads;

  py::class_<ArrayRef>(m, "ArrayRef")
      .def(py::init<uintptr_t, size_t, std::string, std::vector<int64_t>>(), py::arg("address"), py::arg("bytes"),
           py::arg("dtype"), py::arg("shape"));

  py::class_<Failure>(m, "Failure")
      .def_readonly("code", &Failure::code)
      .def_readonly("message", &Failure::message)
      .def_readonly("diagnostics", &Failure::diagnostics);

  py::class_<Diagnostic>(m, "Diagnostic")
      .def_readonly("code", &Diagnostic::code)
      .def_property_readonly("severity",
                             [](const Diagnostic& d) { return d.severity == Severity::kError ? "error" : "warning"; })
      .def_readonly("exception", &Diagnostic::exception)
      .def_readonly("file", &Diagnostic::file)
      .def_property_readonly("line", [](const Diagnostic& d) { return d.loc.line; })
      .def_property_readonly("column", [](const Diagnostic& d) { return d.loc.col; })
      .def_property_readonly("length", [](const Diagnostic& d) { return d.loc.length; })
      .def_readonly("source_line", &Diagnostic::source_line)
      .def_readonly("message", &Diagnostic::message)
      .def_readonly("notes", &Diagnostic::notes)
      .def_readonly("help", &Diagnostic::help)
      .def("render", &Diagnostic::Render)
      .def("__str__", &Diagnostic::Render);

  py::class_<ParamInfo>(m, "ParamInfo")
      .def_readonly("name", &ParamInfo::name)
      .def_property_readonly("direction", [](const ParamInfo& p) { return std::string(DirectionName(p.direction)); })
      .def_readonly("semaphore", &ParamInfo::semaphore)
      .def_property_readonly("dtype", [](const ParamInfo& p) { return std::string(DTypeName(p.dtype)); })
      .def_readonly("shape", &ParamInfo::shape)
      .def_property_readonly("space", [](const ParamInfo& p) { return std::string(MemorySpaceName(p.space)); })
      .def_readonly("type", &ParamInfo::type)
      .def_readonly("index_bound", &ParamInfo::index_bound);

  py::class_<CompileTimes>(m, "CompileTimes")
      .def_readonly("parse", &CompileTimes::parse)
      .def_readonly("verify", &CompileTimes::verify)
      .def_readonly("lower", &CompileTimes::lower)
      .def_readonly("optimize", &CompileTimes::optimize)
      .def_readonly("codegen", &CompileTimes::codegen)
      .def_readonly("total", &CompileTimes::total)
      .def_readonly("cache_hit", &CompileTimes::cache_hit)
      .def_readonly("from_disk", &CompileTimes::from_disk);

  py::class_<SubcoreStats>(m, "SubcoreStats")
      .def_readonly("core", &SubcoreStats::core)
      .def_readonly("subcore", &SubcoreStats::subcore)
      .def_readonly("device", &SubcoreStats::device)
      .def_readonly("dma_bytes", &SubcoreStats::dma_bytes)
      .def_readonly("ops", &SubcoreStats::ops)
      .def_property_readonly("mesh", [](const SubcoreStats& s) { return s.mesh == MeshKind::kVector ? "vector" : "scalar"; });

  py::class_<LaunchStats>(m, "LaunchStats")
      .def_readonly("wall_ms", &LaunchStats::wall_ms)
      .def_readonly("dma_bytes", &LaunchStats::dma_bytes)
      .def_readonly("ops", &LaunchStats::ops)
      .def_readonly("ops_by_class", &LaunchStats::ops_by_class)
      .def_readonly("per_subcore", &LaunchStats::per_subcore)
      .def_readonly("subcores", &LaunchStats::subcores)
      .def_readonly("threads", &LaunchStats::threads)
      .def_readonly("epochs", &LaunchStats::epochs);

  py::class_<LaunchResult>(m, "LaunchResult")
      .def_readonly("stats", &LaunchResult::stats)
      .def_readonly("findings", &LaunchResult::findings)
      .def("failed", &LaunchResult::failed);

  py::class_<Kernel>(m, "Kernel")
      .def_property_readonly("name", &Kernel::name)
      .def_property_readonly("target", [](const Kernel& k) { return std::string(k.target()); })
      .def_property_readonly("mesh", [](const Kernel& k) { return k.mesh() == MeshKind::kVector ? "vector" : "scalar"; })
      .def_property_readonly("cores", &Kernel::cores)
      .def_property_readonly("subcores", &Kernel::subcores)
      .def_property_readonly("devices", &Kernel::devices)
      .def_property_readonly("params",
                             [](const Kernel& k) { return std::vector<ParamInfo>(k.params().begin(), k.params().end()); })
      .def_property_readonly("times", &Kernel::times)
      // The object's address, which the FFI handler is given (scjit_launch).
      .def_property_readonly("address", [](const Kernel& k) { return reinterpret_cast<uintptr_t>(&k); })
      .def_property_readonly("warnings", &Kernel::warnings)
      .def("launch", &Launch, py::arg("arrays"), py::arg("threads"), py::arg("seed"), py::arg("dma"),
           py::arg("checks"), py::arg("time_limit"), py::arg("log"));

  // Thread-safe; the package keeps one whose memory cache serves every compile.
  py::class_<Compiler>(m, "Compiler")
      .def(py::init<>())
      .def("compile", &Compile, py::arg("name"), py::arg("text"), py::arg("kernel"), py::arg("target"),
           py::arg("opt_level"), py::arg("checks"), py::arg("cache_dir"), py::arg("engine"), py::arg("devices"),
           py::arg("jax") = "")
      .def_property_readonly("cache_stats", [](const Compiler& c) {
        Compiler::CacheStats s = c.cache_stats();
        py::dict d;
        d["memory_hits"] = s.memory_hits;
        d["disk_hits"] = s.disk_hits;
        d["compiled"] = s.compiled;
        return d;
      });
#ifdef SCJIT_XLA_FFI
  m.def("ffi_launch_handler", [] { return py::capsule(reinterpret_cast<void*>(&ScjitLaunch)); });
  // One per call site of a multi-chip kernel under jax.shard_map (thread-safe);
  // the FFI handler is given its address (shared_launch.h).
  py::class_<SharedLaunch>(m, "SharedLaunch")
      .def(py::init<int>(), py::arg("devices"))
      .def_property_readonly("devices", &SharedLaunch::devices)
      .def_property_readonly("address", [](const SharedLaunch& s) { return reinterpret_cast<uintptr_t>(&s); });
#endif
  m.def("read_source", [](const std::string& path) -> py::object {
    absl::StatusOr<Source> s = Source::FromFile(path);
    if (!s.ok()) return py::cast(FailureOf(s.status()));
    return py::make_tuple(s->name, s->text);
  });
  m.def("explain", [](const std::string& code) -> py::object {
    absl::StatusOr<std::string> text = Explain(code);
    if (!text.ok()) return py::cast(FailureOf(text.status()));
    return py::str(*text);
  });
  m.def("targets", [] {
    py::list out;
    for (const TargetInfo& t : Targets()) out.append(TargetDict(t));
    return out;
  });
  // The most memory a launch's arrays may take (physical, or the cgroup's limit),
  // which the package checks before it allocates them (IO-MEMORY).
  m.def("host_memory_bytes", [] { return Buffer::HostMemoryBytes(); });
  m.def("describe_target", [](const std::string& name) -> py::object {
    const TargetInfo* t = FindTarget(name);
    if (t == nullptr) return py::none();
    return py::str(DescribeTarget(*t));
  });
}
