// jit-run: compiles and runs a .scir kernel (interfaces.md §1), through the
// public API alone (include/scjit/), and under mpirun through a ChipLink over
// MPI (runtime/mpi/mpi_link.h): each rank runs a block of the kernel's chips,
// rank 0 reads the inputs and writes the outputs (docs/jit-run.md).
//
// Exit codes: 0 success; 1 the kernel ran and failed (a finding, a mismatch
// with --expect); 2 usage or input error; 3 the kernel was rejected (parse,
// type or SC rule error).
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "lowering/base/strings.h"  // Cat, Append (base: every layer may use it)
#include "scjit/scjit.h"
#include "tools/cli_options.h"
#ifdef SCJIT_HAVE_MPI
#include "runtime/mpi/mpi_link.h"
#endif

namespace scjit {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it
constexpr int kExitRejected = 3;

absl::Status Usage(std::string detail) {
  return DiagnosticStatus(CatalogDiagnostic("IO-USAGE", {{"detail", std::move(detail)}}));
}

int PrintStatus(const absl::Status& status, int exit_code) {
  std::cerr << status.message() << "\n";
  return exit_code;
}

// Compile failures: diagnostics of the kernel (exit 3), usage and input errors
// (IO-*, exit 2), and what the compiler does not handle yet (exit 2, "not
// implemented yet").
int CompileFailure(const absl::Status& status) {
  if (absl::IsUnimplemented(status)) {
    std::cerr << "jit-run: " << status.message() << "\n";
    return kExitUsage;
  }
  std::cerr << status.message() << "\n";
  return DiagnosticCodeOf(status).substr(0, 3) == "IO-" ? kExitUsage : kExitRejected;
}

// The exit code of a run that stopped before or at its launch: 1 for a run-time
// finding (RT-TIMEOUT while generating the inputs), 2 for what it was given
// (IO-*: files, buffers, options, the host's memory), else 1.
int FailureExit(const absl::Status& status) {
  std::string code = DiagnosticCodeOf(status);
  if (code.starts_with("RT-")) return kExitFailed;
  return absl::IsInvalidArgument(status) || code.starts_with("IO-") ? kExitUsage : kExitFailed;
}

void PrintWarnings(const std::vector<Diagnostic>& warnings) {
  for (const Diagnostic& d : warnings) std::cerr << d.Render();
}

std::string ParamList(const Kernel& k) {
  std::string out;
  for (const ParamInfo& p : k.params()) Append(&out, out.empty() ? "" : ", ", "%", p.name);
  return out.empty() ? std::string("none") : out;
}

const Binding* FindBinding(const std::vector<Binding>& list, std::string_view name) {
  for (const Binding& b : list) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

// Checks every binding names a parameter of the right direction.
absl::Status CheckBindings(const Kernel& kernel, const CliOptions& options) {
  for (const auto* list : {&options.inputs, &options.outputs, &options.expects}) {
    std::string_view option = list == &options.inputs ? "--in" : list == &options.outputs ? "--out" : "--expect";
    for (const Binding& b : *list) {
      const ParamInfo* p = kernel.param(b.name);
      if (p == nullptr) {
        return Usage(Cat("kernel @", kernel.name(), " has no parameter %", b.name, " (its parameters: ",
                         ParamList(kernel), ")"));
      }
      if (option == "--in" && p->direction == ParamDirection::kOut) {
        return Usage(Cat("%", b.name, " is an out parameter; --in binds in and inout parameters"));
      }
      if (option != "--in" && p->direction == ParamDirection::kIn) {
        return Usage(Cat("%", b.name, " is an in parameter; ", option, " binds out and inout parameters"));
      }
    }
  }
  return absl::OkStatus();
}

// IO-INDEX: an integer parameter left to the default iota whose values the
// kernel uses as indices (ParamInfo::index_bound) and which iota would take
// out of range. iota wraps into the dtype's range when it has more elements
// than the dtype has non-negative values.
std::vector<Diagnostic> DefaultIndexWarnings(const Kernel& kernel, const CliOptions& options) {
  std::vector<Diagnostic> out;
  for (const ParamInfo& p : kernel.params()) {
    if (!p.index_bound || p.direction == ParamDirection::kOut || FindBinding(options.inputs, p.name) != nullptr) {
      continue;
    }
    int bits = 8 * DTypeBytes(p.dtype);
    bool is_unsigned = DTypeName(p.dtype).starts_with("uint");
    int64_t top = bits >= 63      ? std::numeric_limits<int64_t>::max()  // iota cannot wrap
                  : is_unsigned ? (int64_t{1} << bits) - 1
                                : (int64_t{1} << (bits - 1)) - 1;
    int64_t n = p.num_elements();
    if (n == 0) continue;
    int64_t hi = std::min(n - 1, top);
    int64_t lo = n - 1 > top && !is_unsigned ? -top - 1 : 0;
    if (lo >= 0 && hi < *p.index_bound) continue;
    Diagnostic d = CatalogDiagnostic("IO-INDEX", {{"param", Cat("%", p.name)},
                                                  {"range", Cat(lo, " .. ", hi)},
                                                  {"bound", Cat(*p.index_bound)},
                                                  {"ref", Cat("%", p.indexed_ref)}});
    d.severity = Severity::kWarning;
    d.help = Cat("pass --in ", p.name, "=randint:0:", *p.index_bound, " (or a .npy file)");
    out.push_back(std::move(d));
  }
  return out;
}

// The parameters' buffers: each input read or generated (default: iota) and
// launched on as it is; `pristine` keeps a copy of the inputs when the kernel is
// launched more than once (it may write them), to restage each launch.
struct Buffers {
  std::vector<Buffer> live;      // per parameter (empty for semaphores)
  std::vector<Buffer> pristine;  // per parameter, only with restaging

  absl::Status Restage() {
    for (size_t p = 0; p < pristine.size(); ++p) {
      if (!pristine[p].empty()) std::memcpy(live[p].data(), pristine[p].data(), live[p].bytes());
    }
    return absl::OkStatus();
  }
};

// Set by SIGINT (Ctrl-C) while a launch runs: the launch stops at its next
// loop tick or DMA (LaunchOptions::interrupt) and jit-run exits 130, as a
// shell expects of a command stopped by SIGINT. (A signal handler can only
// reach a flag of static storage.)
std::atomic<bool> interrupted{false};

void OnInterrupt(int) { interrupted.store(true, std::memory_order_relaxed); }

// Writes `text` to `path`, or an IO-WRITE error with the system's reason: a
// full disk shows at the flush before fclose, which an ofstream hides.
absl::Status WriteText(const std::string& path, std::string_view text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  int error = f == nullptr ? errno : 0;
  if (f != nullptr) {
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fflush(f) != 0) error = errno;
    if (std::fclose(f) != 0 && error == 0) error = errno;
  }
  if (error == 0) return absl::OkStatus();
  return DiagnosticStatus(CatalogDiagnostic("IO-WRITE", {{"path", path}, {"reason", std::strerror(error)}}));
}

// --save-inputs DIR: DIR, created if missing, or a located IO-WRITE error.
absl::Status MakeDirectory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec && !std::filesystem::is_directory(dir, ec)) ec = std::make_error_code(std::errc::not_a_directory);
  if (!ec) return absl::OkStatus();
  return DiagnosticStatus(CatalogDiagnostic("IO-WRITE", {{"path", dir}, {"reason", ec.message()}}));
}

// IO-MEMORY when the buffers jit-run would hold at once — every parameter's, a
// pristine copy of each input when relaunching, each --expect array — exceed
// the host's memory: refused before any is allocated, rather than left to the
// host's out-of-memory killer.
absl::Status CheckBuffersFit(const Kernel& kernel, const CliOptions& options, bool restage) {
  int64_t total = 0;
  for (const ParamInfo& p : kernel.params()) {
    if (p.semaphore) continue;
    int copies = 1 + (restage && p.direction != ParamDirection::kOut) + (FindBinding(options.expects, p.name) != nullptr);
    total += p.bytes() * copies;
  }
  int64_t host = Buffer::HostMemoryBytes();
  if (total <= host) return absl::OkStatus();
  return DiagnosticStatus(CatalogDiagnostic(
      "IO-MEMORY", {{"bytes", Cat(total)},
                    {"what", Cat("the buffers of kernel @", kernel.name(), restage ? " (with a copy of each input)" : "")},
                    {"reason", Cat("the host has ", host, " bytes of memory")}}));
}

absl::StatusOr<Buffers> PrepareBuffers(const Kernel& kernel, const CliOptions& options, bool restage,
                                       const TimeLimit& limit) {
  if (absl::Status s = CheckBuffersFit(kernel, options, restage); !s.ok()) return s;
  if (options.save_inputs) {
    if (absl::Status s = MakeDirectory(*options.save_inputs); !s.ok()) return s;
  }
  Buffers buffers;
  for (const ParamInfo& p : kernel.params()) {
    absl::StatusOr<Buffer> live = Buffer();
    if (p.direction == ParamDirection::kOut) {
      live = Buffer::Allocate(p.dtype, p.shape);
    } else {
      // A semaphore parameter's input is its counts: zero unless given.
      const Binding* b = FindBinding(options.inputs, p.name);
      std::string source = b != nullptr ? b->value : p.semaphore ? "zeros" : "iota";
      if (IsGeneratorSpec(source)) {
        live = Generate(source, p.dtype, p.shape, limit);
      } else {
        live = ReadNpy(source, p.dtype);
        if (live.ok()) {
          if (absl::Status s = CheckFits(*live, source, p); !s.ok()) live = s;
        }
      }
    }
    if (!live.ok()) return live.status();
    if (options.save_inputs && p.direction != ParamDirection::kOut) {
      absl::Status s = WriteNpy(Cat(*options.save_inputs, "/", p.name, ".npy"), *live);
      if (!s.ok()) return s;
    }
    Buffer pristine;
    if (restage && p.direction != ParamDirection::kOut) {
      absl::StatusOr<Buffer> copy = Buffer::Allocate(p.dtype, p.shape);
      if (!copy.ok()) return copy.status();
      std::memcpy(copy->data(), live->data(), live->bytes());
      pristine = *std::move(copy);
    }
    buffers.live.push_back(*std::move(live));
    buffers.pristine.push_back(std::move(pristine));
  }
  return buffers;
}

// Under mpirun: rank 0 prepares the buffers (reads or generates the inputs)
// and sends them to every rank; a failure there ends every rank with rank 0's
// exit code. Returns the exit code to end with, or -1 to go on.
int ShareBuffers(ChipLink& link, const Kernel& kernel, const CliOptions& options, bool restage,
                 const TimeLimit& limit, Buffers* buffers) {
  std::vector<uint8_t> verdict(1, 0);  // rank 0's exit code, 0: ready
  if (link.rank() == 0) {
    absl::StatusOr<Buffers> made = PrepareBuffers(kernel, options, restage, limit);
    if (made.ok()) {
      *buffers = *std::move(made);
    } else {
      verdict[0] = static_cast<uint8_t>(PrintStatus(made.status(), FailureExit(made.status())));
    }
  }
  if (absl::Status s = link.Broadcast(verdict); !s.ok()) return PrintStatus(s, kExitFailed);
  if (verdict[0] != 0) return verdict[0];
  for (size_t p = 0; p < kernel.params().size(); ++p) {
    const ParamInfo& param = kernel.params()[p];
    if (link.rank() != 0) {
      absl::StatusOr<Buffer> live = Buffer::Allocate(param.dtype, param.shape);
      if (!live.ok()) return PrintStatus(live.status(), FailureExit(live.status()));
      buffers->live.push_back(*std::move(live));
      buffers->pristine.emplace_back();
    }
    if (param.direction == ParamDirection::kOut) continue;
    Buffer& live = buffers->live[p];
    if (absl::Status s = link.Broadcast({live.data(), live.bytes()}); !s.ok()) return PrintStatus(s, kExitFailed);
    if (restage && link.rank() != 0) {
      absl::StatusOr<Buffer> copy = Buffer::Allocate(param.dtype, param.shape);
      if (!copy.ok()) return PrintStatus(copy.status(), FailureExit(copy.status()));
      std::memcpy(copy->data(), live.data(), live.bytes());
      buffers->pristine[p] = *std::move(copy);
    }
  }
  return -1;
}

// "%o: int32 (32, 1024) = [1, 2, 3, 4, ..., 32768] fnv1a64=0x..."
std::string Summary(const ParamInfo& p, const Buffer& a) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < a.bytes(); ++i) hash = (hash ^ a.data()[i]) * 0x100000001b3ull;
  int64_t n = a.num_elements();
  std::string values;
  for (int64_t i = 0; i < n; ++i) {
    if (n > 8 && i == 4) {
      values += ", ...";
      i = n - 4;
    }
    Append(&values, i == 0 ? "" : ", ", ElementText(a, i));
  }
  return absl::StrFormat("%%%s: %s = [%s] fnv1a64=0x%016x", p.name, a.Describe(), values, hash);
}

// Compares an output with an expected array: exact (floats bitwise), or within
// atol + rtol * |expected| when a tolerance is given. IO-EXPECT when they differ,
// with a note for each of the first five differences.
std::optional<Diagnostic> Compare(const ParamInfo& p, const Buffer& got, const Buffer& want, const CliOptions& options) {
  int64_t n = got.num_elements();
  DType t = got.dtype();
  bool is_float = t == DType::kF32 || t == DType::kF16 || t == DType::kBF16 || t == DType::kF64;
  bool tolerant = is_float && (options.rtol || options.atol);
  int w = DTypeBytes(t);
  std::vector<int64_t> bad;
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool equal = std::memcmp(got.data() + i * w, want.data() + i * w, static_cast<size_t>(w)) == 0;
    if (!equal && tolerant) {
      double g = ElementAsDouble(got, i), e = ElementAsDouble(want, i);
      equal = std::abs(g - e) <= options.atol.value_or(0) + options.rtol.value_or(0) * std::abs(e) ||
              (std::isnan(g) && std::isnan(e));
    }
    if (equal) continue;
    ++count;
    if (bad.size() < 5) bad.push_back(i);
  }
  if (count == 0) return std::nullopt;
  Diagnostic d = CatalogDiagnostic("IO-EXPECT", {{"param", Cat("%", p.name)}, {"count", Cat(count)}, {"total", Cat(n)}});
  for (int64_t i : bad) {
    // The flat index as a multi-index.
    const std::vector<int64_t>& shape = got.shape();
    std::vector<int64_t> parts(shape.size());
    int64_t rem = i;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      parts[d] = rem % shape[d];
      rem /= shape[d];
    }
    std::string idx;
    for (size_t d = 0; d < parts.size(); ++d) Append(&idx, d ? ", " : "", parts[d]);
    d.notes.push_back(Cat("at [", idx, "]: got ", ElementText(got, i), ", expected ", ElementText(want, i)));
  }
  return d;
}

std::string Json(double v) { return absl::StrFormat("%.6f", v); }

std::string ReportJson(const Kernel& kernel, const LaunchResult& result, const std::vector<double>& times) {
  const CompileTimes& ct = kernel.times();
  const LaunchStats& stats = result.stats;
  std::string ops;
  for (const auto& [name, count] : stats.ops) Append(&ops, ops.empty() ? "" : ", ", "\"", name, "\": ", count);
  double median = times.empty() ? 0 : times[times.size() / 2];
  return absl::StrFormat(
      "{\"kernel\": \"@%s\", \"target\": \"%s\", \"compile_ms\": {\"parse\": %s, \"verify\": %s, \"lower\": %s, "
      "\"optimize\": %s, \"codegen\": %s, \"total\": %s}, \"cache_hit\": %s, \"cache\": \"%s\", \"run_ms\": "
      "{\"median\": %s, \"min\": %s, \"max\": %s}, \"repeat\": %d, \"dma_bytes\": %d, \"ops\": {%s}, \"subcores\": "
      "%d, \"threads\": %d, \"epochs\": %d}\n",
      kernel.name(), std::string(kernel.target()), Json(ct.parse), Json(ct.verify), Json(ct.lower), Json(ct.optimize),
      Json(ct.codegen), Json(ct.total), ct.cache_hit ? "true" : "false",
      ct.from_disk ? "disk" : ct.cache_hit ? "memory" : "none", Json(median), Json(times.empty() ? 0 : times.front()),
      Json(times.empty() ? 0 : times.back()), static_cast<int>(times.size()), stats.dma_bytes, ops, stats.subcores,
      stats.threads, stats.epochs);
}

// The processes of an mpirun launch (null: this one alone).
struct Ranks {
#ifdef SCJIT_HAVE_MPI
  std::unique_ptr<MpiChipLink> link;
#else
  std::unique_ptr<ChipLink> link;
#endif
  std::streambuf* cerr = nullptr;  // rank > 0: std::cerr, silenced

  // Ranks other than 0 print nothing: every failure, theirs too, reaches rank
  // 0 (the launch gathers findings, and a rank that cannot start names itself
  // to the others).
  void Quiet() {
    if (link != nullptr && link->rank() != 0) cerr = std::cerr.rdbuf(nullptr);
  }
  ~Ranks() {
    if (cerr != nullptr) std::cerr.rdbuf(cerr);
  }
};

int Main(int argc, char** argv) {
  Ranks ranks;
#ifdef SCJIT_HAVE_MPI
  if (MpiChipLink::StartedByMpirun()) {
    absl::StatusOr<std::unique_ptr<MpiChipLink>> link = MpiChipLink::Start(&argc, &argv);
    if (!link.ok()) return PrintStatus(link.status(), kExitUsage);
    ranks.link = *std::move(link);
  }
#endif
  ranks.Quiet();
  std::vector<std::string_view> args(argv + 1, argv + argc);
  absl::StatusOr<CliOptions> parsed = ParseCommandLine(args);
  if (!parsed.ok()) return PrintStatus(parsed.status(), kExitUsage);
  const CliOptions& options = *parsed;

  if (options.help) {
    std::cout << UsageText();
    return kExitOk;
  }
  if (options.explain) {
    absl::StatusOr<std::string> text = Explain(*options.explain);
    if (!text.ok()) return PrintStatus(Usage(std::string(text.status().message())), kExitUsage);
    std::cout << *text;
    return kExitOk;
  }
  if (options.target_info) {
    std::string text;
    for (const TargetInfo& t : Targets()) {
      if (options.target_info->empty() || t.name == *options.target_info) {
        Append(&text, text.empty() ? "" : "\n", DescribeTarget(t));
      }
    }
    std::cout << text;
    return kExitOk;
  }
  // Options whose machinery does not exist yet are refused, never ignored.
  if (std::vector<std::string> missing = UnimplementedOptions(options); !missing.empty()) {
    std::cerr << "jit-run: not implemented yet: " << missing[0] << "\n";
    return kExitUsage;
  }
  absl::StatusOr<Checks> checks = options.unchecked ? Checks::None() : Checks::Parse(options.check);
  if (!checks.ok()) {
    if (absl::IsUnimplemented(checks.status())) {
      std::cerr << "jit-run: " << checks.status().message() << "\n";
      return kExitUsage;
    }
    return PrintStatus(checks.status(), kExitUsage);
  }

  absl::StatusOr<Source> source = Source::FromFile(options.kernel_file);
  if (!source.ok()) return PrintStatus(source.status(), kExitUsage);
  CompileOptions compile;
  compile.kernel = options.kernel_name.value_or("");
  compile.target = options.target;
  compile.devices = options.devices;
  compile.jax = options.jax;
  compile.opt_level = options.opt_level;
  compile.checks = *checks;
  compile.engine = options.engine;
  if (options.cache_dir) {
    compile.cache_dir = *options.cache_dir;
  } else if (const char* env = std::getenv("SCJIT_CACHE_DIR"); env != nullptr) {
    compile.cache_dir = env;
  }
  Compiler compiler;

  if (options.emit) {
    absl::StatusOr<std::string> text = compiler.Emit(*source, *options.emit, compile);
    if (!text.ok()) return CompileFailure(text.status());
    std::cout << *text;
    return kExitOk;
  }

  // --time-limit bounds the compile (judged once it ends: LLVM cannot be
  // stopped half way), then the first launch with its inputs. (Under mpirun
  // every rank compiles; the launches' deadlines stop them together.)
  TimeLimit compile_limit{options.time_limit};
  absl::StatusOr<Kernel> kernel = compiler.Compile(*source, compile);
  if (!kernel.ok()) return CompileFailure(kernel.status());
  if (ranks.link == nullptr && compile_limit.Passed()) {
    Diagnostic d = CatalogDiagnostic("RT-TIMEOUT", {{"what", Cat("compiling kernel @", kernel->name())},
                                                    {"seconds", absl::StrFormat("%g", compile_limit.seconds)}});
    d.help = "raise the limit with --time-limit";
    return PrintStatus(DiagnosticStatus(d), kExitFailed);
  }
  PrintWarnings(kernel->warnings());
  if (absl::Status s = CheckBindings(*kernel, options); !s.ok()) return PrintStatus(s, kExitUsage);
  PrintWarnings(DefaultIndexWarnings(*kernel, options));

  // With --repeat or --time: one uncounted warm-up launch, then N timed ones,
  // each on freshly staged inputs.
  int launches = options.repeat + (options.repeat > 1 || options.time ? 1 : 0);
  // The first launch's limit counts from here: generating its inputs counts.
  TimeLimit limit{options.time_limit};
  absl::StatusOr<Buffers> buffers = Buffers();
  if (ranks.link != nullptr) {
    if (int code = ShareBuffers(*ranks.link, *kernel, options, launches > 1, limit, &*buffers); code >= 0) return code;
  } else {
    buffers = PrepareBuffers(*kernel, options, launches > 1, limit);
  }
  if (!buffers.ok()) return PrintStatus(buffers.status(), FailureExit(buffers.status()));
  std::span<const ParamInfo> params = kernel->params();
  std::vector<Buffer> expected(params.size());
  for (const Binding& b : options.expects) {
    for (size_t p = 0; p < params.size(); ++p) {
      if (params[p].name != b.name) continue;
      absl::StatusOr<Buffer> array = ReadNpy(b.value, params[p].dtype);
      if (array.ok()) {
        if (absl::Status s = CheckFits(*array, b.value, params[p]); !s.ok()) array = s;
      }
      if (!array.ok()) return PrintStatus(array.status(), kExitUsage);
      expected[p] = *std::move(array);
    }
  }

  LaunchOptions launch;
  if (ranks.link != nullptr && checks->race && (options.check == "all" || options.check == "warn")) {
    // The race check needs every chip in one process: under mpirun "all" is
    // every other check (an explicit --check race is refused by the launch).
    launch.checks = *checks;
    launch.checks->race = false;
  }
  launch.threads = options.threads.value_or(0);
  launch.seed = options.seed;
  launch.dma = options.dma;
  launch.time_limit_seconds = options.time_limit;
  launch.time_limit_start = limit.start;
  launch.log = [](std::string_view text) { std::cerr << text; };
  launch.link = ranks.link.get();
  launch.interrupt = &interrupted;
  std::signal(SIGINT, OnInterrupt);

  std::vector<double> times;
  LaunchResult result;
  for (int l = 0; l < launches; ++l) {
    if (l > 0) (void)buffers->Restage();
    absl::StatusOr<LaunchResult> r = kernel->Launch(buffers->live, launch);
    if (!r.ok() && absl::IsCancelled(r.status()) && interrupted) {
      std::cerr << "jit-run: interrupted\n";
      return kExitInterrupted;
    }
    if (!r.ok()) return PrintStatus(r.status(), FailureExit(r.status()));
    result = *std::move(r);
    if (l > 0 || launches == 1) times.push_back(result.stats.wall_ms);
    if (result.failed()) break;
    launch.log = nullptr;               // print once
    launch.time_limit_start.reset();    // each further launch has the whole limit
  }
  std::cerr << result.RenderFindings();
  if (result.failed()) return kExitFailed;
  // Every rank holds every chip's outputs now: rank 0 reports them.
  if (ranks.link != nullptr && ranks.link->rank() != 0) return kExitOk;

  int exit_code = kExitOk;
  for (size_t p = 0; p < params.size(); ++p) {
    const ParamInfo& param = params[p];
    if (param.direction == ParamDirection::kIn) continue;
    if (!expected[p].empty()) {
      if (std::optional<Diagnostic> diff = Compare(param, buffers->live[p], expected[p], options)) {
        std::cerr << diff->Render();
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
  const CompileTimes& ct = kernel->times();
  if (options.time) {
    int64_t elements = 0;
    for (const ParamInfo& p : params) elements += p.semaphore ? 0 : p.num_elements();
    double seconds = median / 1000;
    std::cout << absl::StrFormat(
        "compile: parse %.3f ms, verify %.3f ms, lower %.3f ms, optimize %.3f ms, codegen %.3f ms, total %.3f ms%s\n",
        ct.parse, ct.verify, ct.lower, ct.optimize, ct.codegen, ct.total,
        ct.from_disk ? " (from the disk cache)" : "");
    std::cout << absl::StrFormat(
        "run: median %.3f ms, min %.3f ms, max %.3f ms over %d launch%s; %.3g elements/s, %.3g DMA bytes/s\n", median,
        times.front(), times.back(), static_cast<int>(times.size()), times.size() == 1 ? "" : "es",
        seconds > 0 ? elements / seconds : 0.0, seconds > 0 ? result.stats.dma_bytes / seconds : 0.0);
  }
  if (options.report) {
    if (absl::Status s = WriteText(*options.report, ReportJson(*kernel, result, times)); !s.ok()) {
      return PrintStatus(s, kExitUsage);
    }
  }
  return exit_code;
}

}  // namespace
}  // namespace scjit

int main(int argc, char** argv) { return scjit::Main(argc, argv); }
