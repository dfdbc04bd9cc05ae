// jit-run: compiles and runs a .scir kernel (interfaces.md §1).
//
// Exit codes: 0 success; 1 the kernel ran and failed (a finding, a mismatch
// with --expect); 2 usage or input error; 3 the kernel was rejected (parse,
// type or SC rule error).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "lowering/base/diagnostic.h"
#include "lowering/ir/frontend.h"
#include "lowering/base/strings.h"
#include "runtime/element_text.h"
#include "runtime/generators.h"
#include "runtime/half.h"
#include "runtime/npy.h"
#include "scjit/scjit.h"
#include "tools/cli_options.h"

namespace scjit {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitRejected = 3;

int UsageError(std::string detail) {
  std::cerr << MakeDiagnostic(DiagId::kIoUsage, nullptr, Location{}, {{"detail", std::move(detail)}}).Render();
  return kExitUsage;
}

int PrintStatus(const absl::Status& status, int exit_code) {
  std::cerr << status.message() << "\n";
  return exit_code;
}

// Compile failures: diagnostics of the kernel (exit 3), usage errors (exit 2),
// and ops the compiler does not handle yet (exit 2, "not implemented yet").
int CompileFailure(const absl::Status& status, const DiagnosticSink& sink) {
  if (sink.has_errors()) {
    std::cerr << sink.Render();
    return kExitRejected;
  }
  if (absl::IsUnimplemented(status)) {
    std::cerr << "jit-run: " << status.message() << "\n";
    return kExitUsage;
  }
  std::cerr << status.message() << "\n";
  return DiagnosticCode(status).substr(0, 3) == "IO-" ? kExitUsage : kExitRejected;
}

std::string ParamList(const KernelInfo& k) {
  std::string out;
  for (const ParamInfo& p : k.params) Append(&out, out.empty() ? "" : ", ", "%", p.name);
  return out.empty() ? std::string("none") : out;
}

const Binding* FindBinding(const std::vector<Binding>& list, std::string_view name) {
  for (const Binding& b : list) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

// The parameters' host memory: the inputs as given (kept to restage every
// launch) and the buffers the kernel runs on.
struct Buffers {
  std::vector<NpyArray> inputs;  // per parameter (empty for out / semaphores)
  std::vector<NpyArray> live;    // per parameter
  std::vector<ParamBuffer> params;

  void Restage() {
    for (size_t p = 0; p < live.size(); ++p) {
      if (!inputs[p].data.empty()) live[p].data = inputs[p].data;
    }
  }
};

// Checks every binding names a parameter of the right direction, then reads or
// generates each input (default: iota).
absl::StatusOr<Buffers> PrepareBuffers(const KernelInfo& kernel, const CliOptions& options, int* exit_code) {
  auto usage = [&](std::string detail) {
    *exit_code = kExitUsage;
    return DiagnosticStatus(MakeDiagnostic(DiagId::kIoUsage, nullptr, Location{}, {{"detail", std::move(detail)}}));
  };
  auto find_param = [&](const Binding& b) -> const ParamInfo* {
    for (const ParamInfo& p : kernel.params) {
      if (p.name == b.name) return &p;
    }
    return nullptr;
  };
  for (const auto* list : {&options.inputs, &options.outputs, &options.expects}) {
    std::string_view option = list == &options.inputs ? "--in" : list == &options.outputs ? "--out" : "--expect";
    for (const Binding& b : *list) {
      const ParamInfo* p = find_param(b);
      if (p == nullptr) {
        return usage(Cat("kernel @", kernel.name, " has no parameter %", b.name, " (its parameters: ",
                         ParamList(kernel), ")"));
      }
      if (!p->type.is_ref()) return usage(Cat("%", b.name, " is a semaphore; it has no data"));
      if (option == "--in" && p->direction == ParamDirection::kOut) {
        return usage(Cat("%", b.name, " is an out parameter; --in binds in and inout parameters"));
      }
      if (option != "--in" && p->direction == ParamDirection::kIn) {
        return usage(Cat("%", b.name, " is an in parameter; ", option, " binds out and inout parameters"));
      }
    }
  }
  Buffers buffers;
  for (const ParamInfo& p : kernel.params) {
    NpyArray input, live;
    if (p.type.is_ref()) {
      live = NpyArray{p.type.element(), p.type.shape(), std::vector<uint8_t>(static_cast<size_t>(p.bytes()))};
      if (p.direction != ParamDirection::kOut) {
        const Binding* b = FindBinding(options.inputs, p.name);
        std::string source = b != nullptr ? b->value : "iota";
        absl::StatusOr<NpyArray> array = IsGeneratorSpec(source) ? Generate(source, p.type.element(), p.type.shape())
                                                                   : ReadNpy(source);
        if (array.ok() && !IsGeneratorSpec(source)) {
          if (absl::Status s = CheckNpyMatches(*array, source, Cat("%", p.name), p.type); !s.ok()) array = s;
        }
        if (!array.ok()) {
          *exit_code = kExitUsage;
          return array.status();
        }
        input = *std::move(array);
      }
    }
    buffers.inputs.push_back(std::move(input));
    buffers.live.push_back(std::move(live));
  }
  buffers.Restage();
  for (NpyArray& a : buffers.live) {
    buffers.params.push_back(ParamBuffer{a.data.data(), static_cast<int64_t>(a.data.size())});
  }
  return buffers;
}

// One element of `a` as text.
std::string Element(const NpyArray& a, int64_t i) {
  return ElementText(a.data.data() + i * ByteWidth(a.dtype), a.dtype, 9);
}

// "%o: int32 (32, 1024) = [1, 2, 3, 4, ..., 32768] fnv1a64=0x..."
std::string Summary(const ParamInfo& p, const NpyArray& a) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint8_t byte : a.data) hash = (hash ^ byte) * 0x100000001b3ull;
  int64_t n = a.NumElements();
  std::string values;
  for (int64_t i = 0; i < n; ++i) {
    if (n > 8 && i == 4) {
      values += ", ...";
      i = n - 4;
    }
    Append(&values, i == 0 ? "" : ", ", Element(a, i));
  }
  return absl::StrFormat("%%%s: %s %s = [%s] fnv1a64=0x%016x", p.name, NumpyName(a.dtype), ShapeRepr(a.shape), values,
                         hash);
}

// Compares an output with an expected array: exact (floats bitwise), or within
// atol + rtol * |expected| when a tolerance is given. Returns "" when equal.
std::string Compare(const ParamInfo& p, const NpyArray& got, const NpyArray& want, const CliOptions& options) {
  int64_t n = got.NumElements();
  bool tolerant = IsFloat(got.dtype) && (options.rtol || options.atol);
  auto as_double = [](const NpyArray& a, int64_t i) {
    const uint8_t* q = a.data.data() + i * ByteWidth(a.dtype);
    uint16_t h;
    float f;
    switch (a.dtype) {
      case ElementType::kBF16: std::memcpy(&h, q, 2); return static_cast<double>(Bf16ToFloat(h));
      case ElementType::kF16: std::memcpy(&h, q, 2); return static_cast<double>(F16ToFloat(h));
      default: std::memcpy(&f, q, 4); return static_cast<double>(f);
    }
  };
  int w = ByteWidth(got.dtype);
  std::vector<int64_t> bad;
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool equal = std::memcmp(got.data.data() + i * w, want.data.data() + i * w, static_cast<size_t>(w)) == 0;
    if (!equal && tolerant) {
      double g = as_double(got, i), e = as_double(want, i);
      equal = std::abs(g - e) <= options.atol.value_or(0) + options.rtol.value_or(0) * std::abs(e) ||
              (std::isnan(g) && std::isnan(e));
    }
    if (equal) continue;
    ++count;
    if (bad.size() < 5) bad.push_back(i);
  }
  if (count == 0) return "";
  std::string out = Cat("%", p.name, ": ", count, " of ", n, " elements differ from the expectation");
  for (int64_t i : bad) {
    // The flat index as a multi-index.
    std::string idx;
    int64_t rem = i;
    std::vector<int64_t> parts(got.shape.size());
    for (int d = static_cast<int>(got.shape.size()) - 1; d >= 0; --d) {
      parts[d] = rem % got.shape[d];
      rem /= got.shape[d];
    }
    for (size_t d = 0; d < parts.size(); ++d) Append(&idx, d ? ", " : "", parts[d]);
    Append(&out, "\n  at [", idx, "]: got ", Element(got, i), ", expected ", Element(want, i));
  }
  return out;
}

std::string Json(double v) { return absl::StrFormat("%.6f", v); }

int Main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  absl::StatusOr<CliOptions> parsed = ParseCommandLine(args);
  if (!parsed.ok()) return PrintStatus(parsed.status(), kExitUsage);
  const CliOptions& options = *parsed;

  if (options.help) {
    std::cout << UsageText();
    return kExitOk;
  }
  if (options.explain) {
    std::optional<DiagId> id = DiagIdFromCode(*options.explain);
    if (!id) return UsageError(Cat("unknown diagnostic code '", *options.explain, "'"));
    std::cout << Explain(*id);
    return kExitOk;
  }
  // Options whose machinery does not exist yet are refused, never ignored.
  if (std::vector<std::string> missing = UnimplementedOptions(options); !missing.empty()) {
    std::cerr << "jit-run: not implemented yet: " << missing[0] << "\n";
    return kExitUsage;
  }
  bool checks = !options.unchecked && options.check != "none";
  for (std::string_view wanted : {"init", "race"}) {
    if (options.check.find(wanted) != std::string::npos) {
      std::cerr << "jit-run: not implemented yet: --check " << wanted << "\n";
      return kExitUsage;
    }
  }

  absl::StatusOr<std::shared_ptr<const SourceFile>> file = ReadSourceFile(options.kernel_file);
  if (!file.ok()) return PrintStatus(file.status(), kExitUsage);
  CompileOptions compile;
  compile.target = options.target;
  compile.opt_level = options.opt_level;
  compile.bounds_checks = checks && (options.check == "all" || options.check == "warn" ||
                                     options.check.find("bounds") != std::string::npos);
  Compiler compiler;
  DiagnosticSink sink;
  std::string kernel_name = options.kernel_name.value_or("");

  if (options.emit) {
    absl::StatusOr<std::string> text = compiler.Emit(*file, kernel_name, compile, *options.emit, sink);
    if (!text.ok()) return CompileFailure(text.status(), sink);
    std::cout << *text;
    return kExitOk;
  }

  absl::StatusOr<std::shared_ptr<const CompiledKernel>> kernel = compiler.Compile(*file, kernel_name, compile, sink);
  if (!kernel.ok()) return CompileFailure(kernel.status(), sink);
  const KernelInfo& info = (*kernel)->info();

  int exit_code = kExitOk;
  absl::StatusOr<Buffers> buffers = PrepareBuffers(info, options, &exit_code);
  if (!buffers.ok()) return PrintStatus(buffers.status(), exit_code);
  std::vector<NpyArray> expected(info.params.size());
  for (const Binding& b : options.expects) {
    for (size_t p = 0; p < info.params.size(); ++p) {
      if (info.params[p].name != b.name) continue;
      absl::StatusOr<NpyArray> array = ReadNpy(b.value);
      if (array.ok()) {
        if (absl::Status s = CheckNpyMatches(*array, b.value, Cat("%", b.name), info.params[p].type); !s.ok()) {
          array = s;
        }
      }
      if (!array.ok()) return PrintStatus(array.status(), kExitUsage);
      expected[p] = *std::move(array);
    }
  }

  LaunchOptions launch;
  launch.threads = options.threads.value_or(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  launch.seed = options.seed;
  launch.dma = options.dma.value_or(checks ? DmaMode::kOnWait : DmaMode::kEager);
  launch.checks = checks;
  launch.warn = options.check == "warn";
  launch.time_limit_seconds = options.time_limit;
  launch.log = &std::cerr;
  StackPool stacks;  // reused by the --repeat launches
  launch.stacks = &stacks;

  // With --repeat: one uncounted warm-up launch, then N timed ones, each on
  // freshly staged inputs.
  int launches = options.repeat + (options.repeat > 1 || options.time ? 1 : 0);
  std::vector<double> times;
  LaunchResult result;
  for (int l = 0; l < launches; ++l) {
    buffers->Restage();
    absl::StatusOr<LaunchResult> r = Launch(**kernel, buffers->params, launch);
    if (!r.ok()) return PrintStatus(r.status(), kExitFailed);
    result = *std::move(r);
    if (l > 0 || launches == 1) times.push_back(result.stats.wall_ms);
    if (result.failed()) break;
    launch.log = nullptr;  // print once
  }
  for (const Diagnostic& d : result.findings) std::cerr << d.Render();
  if (result.failed()) return kExitFailed;

  for (size_t p = 0; p < info.params.size(); ++p) {
    const ParamInfo& param = info.params[p];
    if (!param.type.is_ref() || param.direction == ParamDirection::kIn) continue;
    if (!expected[p].data.empty()) {
      std::string diff = Compare(param, buffers->live[p], expected[p], options);
      if (!diff.empty()) {
        std::cerr << "jit-run: " << diff << "\n";
        exit_code = kExitFailed;
      }
    }
    if (const Binding* out = FindBinding(options.outputs, param.name)) {
      if (absl::Status s = WriteNpy(out->value, buffers->live[p]); !s.ok()) return PrintStatus(s, kExitUsage);
    } else if (options.outputs.empty()) {
      std::cout << Summary(param, buffers->live[p]) << "\n";
    }
  }

  std::sort(times.begin(), times.end());
  double median = times.empty() ? 0 : times[times.size() / 2];
  const CompileTimes& ct = (*kernel)->times();
  if (options.time) {
    int64_t elements = 0;
    for (const ParamInfo& p : info.params) elements += p.type.is_ref() ? p.type.NumElements() : 0;
    double seconds = median / 1000;
    std::cout << absl::StrFormat(
        "compile: parse %.3f ms, verify %.3f ms, lower %.3f ms, optimize %.3f ms, codegen %.3f ms, total %.3f ms\n",
        ct.parse, ct.verify, ct.lower, ct.optimize, ct.codegen, ct.total);
    std::cout << absl::StrFormat(
        "run: median %.3f ms, min %.3f ms, max %.3f ms over %d launch%s; %.3g elements/s, %.3g DMA bytes/s\n", median,
        times.front(), times.back(), static_cast<int>(times.size()), times.size() == 1 ? "" : "es",
        seconds > 0 ? elements / seconds : 0.0, seconds > 0 ? result.stats.dma_bytes / seconds : 0.0);
  }
  if (options.report) {
    std::string ops;
    for (const auto& [name, count] : result.stats.ops) Append(&ops, ops.empty() ? "" : ", ", "\"", name, "\": ", count);
    std::string json = absl::StrFormat(
        "{\"kernel\": \"@%s\", \"target\": \"%s\", \"compile_ms\": {\"parse\": %s, \"verify\": %s, \"lower\": %s, "
        "\"optimize\": %s, \"codegen\": %s, \"total\": %s}, \"cache_hit\": %s, \"run_ms\": {\"median\": %s, \"min\": "
        "%s, \"max\": %s}, \"repeat\": %d, \"dma_bytes\": %d, \"ops\": {%s}, \"subcores\": %d, \"threads\": %d, "
        "\"epochs\": %d}\n",
        info.name, Info(info.target).name, Json(ct.parse), Json(ct.verify), Json(ct.lower), Json(ct.optimize),
        Json(ct.codegen), Json(ct.total), ct.cache_hit ? "true" : "false", Json(median),
        Json(times.empty() ? 0 : times.front()), Json(times.empty() ? 0 : times.back()),
        static_cast<int>(times.size()), result.stats.dma_bytes, ops, result.stats.subcores, result.stats.threads,
        result.stats.epochs);
    std::ofstream out(*options.report);
    out << json;
    if (!out) {
      return PrintStatus(DiagnosticStatus(MakeDiagnostic(DiagId::kIoWrite, nullptr, Location{},
                                                         {{"path", *options.report}, {"reason", "write failed"}})),
                         kExitUsage);
    }
  }
  return exit_code;
}

}  // namespace
}  // namespace scjit

int main(int argc, char** argv) { return scjit::Main(argc, argv); }
