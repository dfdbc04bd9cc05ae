#include "tools/cli_options.h"

#include <charconv>
#include <cmath>

#include "lowering/base/jax_release.h"
#include "lowering/base/strings.h"  // Cat, Append (base: every layer may use it)

namespace scjit {
namespace {

absl::Status Usage(std::string detail) {
  return DiagnosticStatus(CatalogDiagnostic("IO-USAGE", {{"detail", std::move(detail)}}));
}

std::string TargetNames() {
  std::string out;
  for (const TargetInfo& t : Targets()) Append(&out, out.empty() ? "" : ", ", std::string(t.name));
  return out;
}

template <typename T>
absl::StatusOr<T> ParseNumber(std::string_view option, std::string_view text) {
  T v{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return Usage(Cat("option '", option, "' needs a number, got '", text, "'"));
  }
  return v;
}

absl::StatusOr<Binding> ParseBinding(std::string_view option, std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    return Usage(Cat("option '", option, "' takes NAME=", option == "--in" ? "SOURCE" : "FILE.npy", ", got '", text, "'"));
  }
  std::string_view name = text.substr(0, eq);
  if (name.front() == '%') name.remove_prefix(1);
  return Binding{std::string(name), std::string(text.substr(eq + 1))};
}

using Apply = absl::Status (*)(CliOptions&, std::string_view option, std::string_view value);

// One row per option. `implemented` is false for options whose machinery comes
// later; jit-run refuses them rather than ignoring them.
struct OptionSpec {
  std::string_view name;
  bool takes_value;
  bool repeatable;
  bool implemented;
  std::string_view value_help;
  std::string_view help;
  Apply apply;
  // The value may be left out; then it is the next argument only when that
  // does not start with '-' (`--target-info`, `--target-info v6e`).
  bool optional_value = false;
};

absl::Status SetKernel(CliOptions& o, std::string_view, std::string_view v) {
  if (v.front() == '@') v.remove_prefix(1);
  if (v.empty()) return Usage("option '--kernel' needs a kernel name such as @add_one");
  o.kernel_name = std::string(v);
  return absl::OkStatus();
}

absl::Status SetDevices(CliOptions& o, std::string_view, std::string_view v) {
  if (v.empty()) return Usage("option '--devices' needs a count such as 4, or axes such as y=2,x=4");
  o.devices = std::string(v);  // checked by the compiler against the kernel's mesh
  return absl::OkStatus();
}

absl::Status SetJax(CliOptions& o, std::string_view, std::string_view v) {
  // (Checked here, so that `--jax k.scir` names the option, not a missing file.)
  if (v.empty() || !ParseJaxRelease(v).ok()) {
    return Usage(Cat("option '--jax' takes a JAX release from ", kOldestJax.ToString(), " to ", kNewestJax.ToString(),
                     v.empty() ? std::string() : Cat(", not '", v, "'")));
  }
  o.jax = std::string(v);
  return absl::OkStatus();
}

absl::Status SetTarget(CliOptions& o, std::string_view, std::string_view v) {
  if (FindTarget(v) == nullptr) return Usage(Cat("unknown target '", v, "'; expected one of ", TargetNames()));
  o.target = std::string(v);
  return absl::OkStatus();
}

absl::Status SetTargetInfo(CliOptions& o, std::string_view, std::string_view v) {
  if (!v.empty() && FindTarget(v) == nullptr) {
    return Usage(Cat("unknown target '", v, "'; expected one of ", TargetNames()));
  }
  o.target_info = std::string(v);
  return absl::OkStatus();
}

absl::Status AddBinding(CliOptions& o, std::string_view option, std::string_view v) {
  absl::StatusOr<Binding> b = ParseBinding(option, v);
  if (!b.ok()) return b.status();
  std::vector<Binding>& list = option == "--in" ? o.inputs : option == "--out" ? o.outputs : o.expects;
  for (const Binding& existing : list) {
    if (existing.name == b->name) return Usage(Cat("option '", option, "' binds %", b->name, " twice"));
  }
  list.push_back(*std::move(b));
  return absl::OkStatus();
}

absl::Status SetEngine(CliOptions& o, std::string_view, std::string_view v) {
  std::optional<Engine> engine = EngineFromName(v);
  if (!engine) return Usage(Cat("option '--engine' takes one of ", EngineNameList(), ", got '", v, "'"));
  o.engine = *engine;
  return absl::OkStatus();
}

absl::Status SetThreads(CliOptions& o, std::string_view option, std::string_view v) {
  absl::StatusOr<int> n = ParseNumber<int>(option, v);
  if (!n.ok()) return n.status();
  if (*n < 1 || *n > 1024) return Usage(Cat("option '--threads' takes 1 to 1024 threads, got ", *n));
  o.threads = *n;
  return absl::OkStatus();
}

absl::Status SetDeterministic(CliOptions& o, std::string_view, std::string_view) {
  o.deterministic = true;
  return absl::OkStatus();
}

absl::Status SetSeed(CliOptions& o, std::string_view option, std::string_view v) {
  absl::StatusOr<uint64_t> n = ParseNumber<uint64_t>(option, v);
  if (!n.ok()) return n.status();
  o.seed = *n;
  return absl::OkStatus();
}

absl::Status SetDma(CliOptions& o, std::string_view, std::string_view v) {
  if (v == "eager") {
    o.dma = DmaMode::kEager;
  } else if (v == "on_wait") {
    o.dma = DmaMode::kOnWait;
  } else {
    return Usage(Cat("option '--dma' takes eager or on_wait, got '", v, "'"));
  }
  return absl::OkStatus();
}

absl::Status SetCheck(CliOptions& o, std::string_view, std::string_view v) {
  // The library's parser says what --check takes (IO-USAGE otherwise).
  if (absl::StatusOr<Checks> checks = Checks::Parse(v); !checks.ok()) return checks.status();
  o.check = std::string(v);
  return absl::OkStatus();
}

absl::Status SetUnchecked(CliOptions& o, std::string_view, std::string_view) {
  o.unchecked = true;
  return absl::OkStatus();
}

absl::Status SetEmit(CliOptions& o, std::string_view, std::string_view v) {
  if (v == "ir") {
    o.emit = Stage::kIr;
  } else if (v == "llvm") {
    o.emit = Stage::kLlvm;
  } else if (v == "llvm-opt") {
    o.emit = Stage::kLlvmOpt;
  } else if (v == "asm") {
    o.emit = Stage::kAsm;
  } else {
    return Usage(Cat("option '--emit' takes ir, llvm, llvm-opt or asm, got '", v, "'"));
  }
  return absl::OkStatus();
}

absl::Status SetTime(CliOptions& o, std::string_view, std::string_view) {
  o.time = true;
  return absl::OkStatus();
}

absl::Status SetRepeat(CliOptions& o, std::string_view option, std::string_view v) {
  absl::StatusOr<int> n = ParseNumber<int>(option, v);
  if (!n.ok()) return n.status();
  if (*n < 1) return Usage(Cat("option '--repeat' takes a positive count, got ", *n));
  o.repeat = *n;
  return absl::OkStatus();
}

absl::Status SetReport(CliOptions& o, std::string_view, std::string_view v) {
  o.report = std::string(v);
  return absl::OkStatus();
}

absl::Status SetCacheDir(CliOptions& o, std::string_view, std::string_view v) {
  o.cache_dir = std::string(v);
  return absl::OkStatus();
}

absl::Status SetSaveInputs(CliOptions& o, std::string_view, std::string_view v) {
  o.save_inputs = std::string(v);
  return absl::OkStatus();
}

absl::Status SetExplain(CliOptions& o, std::string_view, std::string_view v) {
  o.explain = std::string(v);
  return absl::OkStatus();
}

absl::Status SetTolerance(CliOptions& o, std::string_view option, std::string_view v) {
  absl::StatusOr<double> x = ParseNumber<double>(option, v);
  if (!x.ok()) return x.status();
  if (!(*x >= 0) || std::isinf(*x)) return Usage(Cat("option '", option, "' takes a finite non-negative number"));
  (option == "--rtol" ? o.rtol : o.atol) = *x;
  return absl::OkStatus();
}

absl::Status SetTimeLimit(CliOptions& o, std::string_view option, std::string_view v) {
  absl::StatusOr<double> x = ParseNumber<double>(option, v);
  if (!x.ok()) return x.status();
  if (!(*x >= 0) || std::isinf(*x)) return Usage("option '--time-limit' takes a finite number of seconds >= 0");
  o.time_limit = *x;
  return absl::OkStatus();
}

absl::Status SetHelp(CliOptions& o, std::string_view, std::string_view) {
  o.help = true;
  return absl::OkStatus();
}

constexpr OptionSpec kOptions[] = {
    {"--kernel", true, false, true, "@NAME", "the kernel to run when the file holds several", SetKernel},
    {"--target", true, false, true, "CHIP", "v5p, v6e, v7x (default), v8i or v8t; overrides the file's target",
     SetTarget},
    {"--devices", true, false, true, "N|AXIS=N,...",
     "the device mesh: N chips on the kernel's one device axis, or every axis and its size (y=2,x=4); overrides "
     "the file's `devices` clause. Under `mpirun -n R` each rank runs N/R of the chips",
     SetDevices},
    {"--jax", true, false, true, "RELEASE",
     "the JAX release whose words the SC rules' messages use, 0.10.2 (default) to 0.12.1 (docs/jax.md, "
     "\"Versions\")",
     SetJax},
    {"--in", true, true, true, "NAME=SOURCE",
     "an input: FILE.npy, zeros, ones, iota, random[:SEED], randint:LO:HI[:SEED] or fill:VALUE (default iota)",
     AddBinding},
    {"--save-inputs", true, false, true, "DIR",
     "write every in/inout parameter's input as DIR/NAME.npy (DIR is created if missing)", SetSaveInputs},
    {"--out", true, true, true, "NAME=FILE.npy", "write an out/inout parameter after the run", AddBinding},
    {"--expect", true, true, true, "NAME=FILE.npy", "compare an out/inout parameter with a file (mismatch: exit 1)",
     AddBinding},
    {"--rtol", true, false, true, "X", "relative tolerance of --expect for floats (default: bitwise)", SetTolerance},
    {"--atol", true, false, true, "X", "absolute tolerance of --expect for floats", SetTolerance},
    {"--engine", true, false, true, "jit|interp",
     "the execution engine: the JIT (default) or the interpreter of the IR, its reference (docs/interpreter.md)",
     SetEngine},
    {"-O", true, false, true, "0-3", "LLVM optimization level: -O0 ... -O3 (default -O2)", nullptr},
    {"--threads", true, false, true, "N", "host threads running the subcores (default: the host's cores)",
     SetThreads},
    {"--deterministic", false, false, true, "", "a fixed interleaving and DMA order (the default)", SetDeterministic},
    {"--seed", true, false, true, "N", "a randomized but reproducible interleaving", SetSeed},
    {"--dma", true, false, true, "eager|on_wait", "when DMAs complete (default on_wait, eager with --unchecked)",
     SetDma},
    {"--check", true, false, true, "all|none|warn|strict|LIST",
     "run-time checks: bounds,init,race,sync (default all); strict: an output computed from unwritten bytes is an error",
     SetCheck},
    {"--unchecked", false, false, true, "", "no run-time checks (fastest)", SetUnchecked},
    {"--emit", true, false, true, "ir|llvm|llvm-opt|asm", "print a compilation stage and exit", SetEmit},
    {"--time", false, false, true, "", "print compile and run times", SetTime},
    {"--repeat", true, false, true, "N", "time N launches after one warm-up", SetRepeat},
    {"--report", true, false, true, "FILE.json", "write timings and launch statistics as JSON", SetReport},
    {"--time-limit", true, false, true, "SECONDS", "stop a run taking longer, inputs included (RT-TIMEOUT; default 600, 0: none)",
     SetTimeLimit},
    {"--cache-dir", true, false, true, "DIR", "cache compiled kernels on disk (default: $SCJIT_CACHE_DIR, else none)",
     SetCacheDir},
    {"--explain", true, false, true, "CODE", "explain a diagnostic code (IR-*, IO-*, RT-*, SC rules)", SetExplain},
    {"--target-info", true, false, true, "[CHIP]",
     "print a chip's geometry and capacities (every chip's without CHIP) and exit", SetTargetInfo, true},
    {"--help", false, false, true, "", "this text", SetHelp},
};

const OptionSpec* FindOption(std::string_view name) {
  for (const OptionSpec& spec : kOptions) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<CliOptions> ParseCommandLine(const std::vector<std::string_view>& args) {
  CliOptions o;
  std::vector<std::string_view> positional;
  std::vector<std::string_view> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      positional.push_back(arg);
      continue;
    }
    // -O0 ... -O3
    if (arg.substr(0, 2) == "-O") {
      std::string_view level = arg.substr(2);
      if (level.size() != 1 || level[0] < '0' || level[0] > '3') {
        return Usage(Cat("unknown option '", arg, "'; optimization levels are -O0, -O1, -O2 and -O3"));
      }
      for (std::string_view s : seen) {
        if (s == "-O") return Usage("the optimization level is given twice");
      }
      seen.push_back("-O");
      o.opt_level = level[0] - '0';
      o.given.push_back(std::string(arg));
      continue;
    }
    std::string_view name = arg;
    std::optional<std::string_view> value;
    if (size_t eq = arg.find('='); eq != std::string_view::npos && arg.substr(0, 2) == "--") {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    const OptionSpec* spec = FindOption(name);
    if (spec == nullptr || spec->apply == nullptr) return Usage(Cat("unknown option '", name, "'"));
    if (!spec->repeatable) {
      for (std::string_view s : seen) {
        if (s == spec->name) return Usage(Cat("option '", spec->name, "' is given twice"));
      }
    }
    seen.push_back(spec->name);
    if (spec->takes_value && !value && spec->optional_value) {
      if (i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-') value = args[++i];
    } else if (spec->takes_value && !value) {
      if (i + 1 >= args.size()) return Usage(Cat("option '", name, "' needs a value: ", spec->name, " ", spec->value_help));
      value = args[++i];
    } else if (!spec->takes_value && value) {
      return Usage(Cat("option '", name, "' takes no value"));
    }
    if (absl::Status s = spec->apply(o, spec->name, value.value_or("")); !s.ok()) return s;
    o.given.push_back(std::string(spec->name));
  }
  if (o.deterministic && o.seed) return Usage("--deterministic and --seed exclude each other");
  if (o.help || o.explain || o.target_info) return o;
  if (positional.empty()) return Usage("no kernel file given: jit-run KERNEL.scir [options]");
  if (positional.size() > 1) {
    return Usage(Cat("one kernel file is run at a time, got '", positional[0], "' and '", positional[1], "'"));
  }
  o.kernel_file = std::string(positional[0]);
  return o;
}

std::vector<std::string> UnimplementedOptions(const CliOptions& options) {
  std::vector<std::string> out;
  for (const std::string& given : options.given) {
    const OptionSpec* spec = FindOption(given.substr(0, 2) == "-O" ? "-O" : given);
    if (spec != nullptr && !spec->implemented) out.push_back(given);
  }
  return out;
}

std::string UsageText() {
  std::string out =
      "usage: jit-run KERNEL.scir [options]\n"
      "       jit-run --explain CODE\n"
      "       jit-run --target-info [CHIP]\n\n"
      "Runs a SparseCore kernel written in the scjit Kernel IR on this host.\n\n"
      "options:\n";
  for (const OptionSpec& spec : kOptions) {
    std::string left = Cat("  ", spec.name);
    if (spec.takes_value) Append(&left, spec.name == "-O" ? "" : " ", spec.value_help);
    if (left.size() < 30) left.append(30 - left.size(), ' ');
    Append(&out, left, " ", spec.help, spec.implemented ? "" : " [not implemented yet]", "\n");
  }
  out +=
      "\nexit codes: 0 success; 1 the kernel ran and failed; 2 usage or input error;\n"
      "3 the kernel was rejected (parse, type or SC rule error)\n";
  return out;
}

}  // namespace scjit
