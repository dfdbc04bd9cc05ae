// stress: kernels that stress scjit's bounds in time and memory (issue #34;
// tests/fuzz/stress_gen.h, docs/fuzzing.md "Stress") run through the public
// API, checked and unchecked, on the JIT and the interpreter.
//
//   stress [--seeds A:B] [--families piles,loops,lines,chips] [--max-rss-mb N]
//          [--time-margin S] [--max-dmas N] [--max-lines N] [--max-copy-bytes N]
//          [--max-rounds N] [--print] [--save DIR]
//
// Every launch must end in one of the outcomes its kernel allows (Expect): ran
// without a finding, the RT-SYNC in-flight finding, or RT-TIMEOUT; never a
// crash, an exception (bad_alloc) or another finding. The launches that ran
// must agree byte for byte (and with the bytes the family knows: a ring's
// blocks moved, a copy's source); each launch must end within its time limit
// plus a margin; the process's peak RSS must stay under a bound. One summary
// line per family; the exit status is 1 after any failure.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "scjit/scjit.h"
#include "tests/fuzz/diff_run.h"
#include "tests/fuzz/stress_gen.h"

namespace scjit::fuzz {
namespace {

constexpr char kInFlight[] = "in flight (started, not yet waited); scjit follows at most 1024 per subcore";

// The launches of each kernel. The first is the reference the others' bytes
// are compared with.
struct Mode {
  const char* name;
  bool checked;
  Engine engine;
};
constexpr Mode kModes[] = {
    {"jit", true, Engine::kJit},
    {"unchecked", false, Engine::kJit},
    {"interp", true, Engine::kInterp},
};

struct Args {
  uint64_t first = 0, last = 20;
  std::vector<StressFamily> families;
  StressOptions gen;
  int64_t max_rss_mb = 2048;
  double time_margin = 2;  // seconds past a launch's limit it may take
  bool print = false;
  std::string save_dir;
};

std::string g_crash_note, g_crash_text;

void OnCrash(int sig) {
  auto put = [](const std::string& s) { (void)!write(2, s.data(), s.size()); };
  put(g_crash_note);
  put(g_crash_text);
  signal(sig, SIG_DFL);
  raise(sig);
}

int64_t PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;  // KiB on Linux
}

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One launch: how it ended and what it left.
struct Launched {
  std::string outcome;  // "ran", "in-flight", "timeout", or what went wrong
  bool bad = false;     // outcome is none of the three
  std::vector<std::vector<uint8_t>> outputs;
  double compile_s = 0, launch_s = 0;
};

std::string Classify(const LaunchResult& r) {
  if (r.findings.empty()) return "ran";
  const Diagnostic* first = &r.findings[0];
  for (const Diagnostic& f : r.findings) {
    if (f.severity == Severity::kError) {
      first = &f;
      break;
    }
  }
  if (first->code == "RT-SYNC" && first->message.find(kInFlight) != std::string::npos) return "in-flight";
  if (first->code == "RT-TIMEOUT") return "timeout";
  return "finding: " + first->Render();
}

Launched LaunchOnce(const StressKernel& k, const Mode& mode, uint64_t seed) {
  Launched out;
  CompileOptions compile;
  compile.target = k.target;
  compile.engine = mode.engine;
  if (!mode.checked) compile.checks = Checks::None();
  LaunchOptions launch;
  launch.time_limit_seconds = k.time_limit_seconds;
  Compiler compiler;  // one per launch: nothing cached between kernels
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Kernel> kernel = compiler.Compile(Source{"stress.scir", k.text}, compile);
  out.compile_s = Since(start);
  if (!kernel.ok()) {
    out.outcome = absl::StrCat("rejected: ", kernel.status().message());
    out.bad = true;
    return out;
  }
  std::vector<ParamInfo> params(kernel->params().begin(), kernel->params().end());
  std::vector<std::vector<uint8_t>> inputs = MakeInputs(params, seed);
  std::vector<Buffer> buffers;
  for (size_t p = 0; p < params.size(); ++p) {
    absl::StatusOr<Buffer> b = params[p].direction == ParamDirection::kOut
                                   ? Buffer::Allocate(params[p].dtype, params[p].shape)
                                   : Buffer::Adopt(params[p].dtype, params[p].shape, inputs[p]);
    if (!b.ok()) {
      out.outcome = absl::StrCat("buffer: ", b.status().message());
      out.bad = true;
      return out;
    }
    buffers.push_back(*std::move(b));
  }
  start = std::chrono::steady_clock::now();
  absl::StatusOr<LaunchResult> r = kernel->Launch(std::span<const Buffer>(buffers), launch);
  out.launch_s = Since(start);
  if (!r.ok()) {
    out.outcome = absl::StrCat("launch failed: ", r.status().message());
    out.bad = true;
    return out;
  }
  out.outcome = Classify(*r);
  out.bad = out.outcome.starts_with("finding");
  for (const Buffer& b : buffers) out.outputs.emplace_back(b.data(), b.data() + b.bytes());
  return out;
}

// Whether `mode` may end as `outcome` for a kernel that expects `expect`.
bool Allowed(Expect expect, const Mode& mode, const std::string& outcome) {
  switch (expect) {
    case Expect::kRuns: return outcome == "ran";
    case Expect::kInFlight: return outcome == (mode.checked ? "in-flight" : "ran");
    case Expect::kRunsOrTimesOut: return outcome == "ran" || outcome == "timeout";
  }
  return false;
}

// What the family knows of the bytes: parameter 1 (the output) holds, per
// chip d, parameter 0's block of chip source[d].
std::string KnownBytes(const StressKernel& k, const Launched& l) {
  if (k.source.empty()) return "";
  const std::vector<uint8_t>& x = l.outputs[0];
  const std::vector<uint8_t>& y = l.outputs[1];
  size_t block = x.size() / k.source.size();
  if (y.size() != x.size()) return "the output's size differs from the input's";
  for (size_t d = 0; d < k.source.size(); ++d) {
    if (std::memcmp(&y[d * block], &x[k.source[d] * block], block) != 0) {
      return absl::StrCat("chip ", d, "'s output is not chip ", k.source[d], "'s input");
    }
  }
  return "";
}

struct FamilyTally {
  int64_t kernels = 0, failures = 0;
  std::map<std::string, int64_t> outcomes;  // per launch
  double max_launch_s = 0, max_compile_s = 0;
  std::string slowest;  // the kernel and mode of the longest launch
};

// Runs one kernel in every mode; returns what is wrong, if anything.
std::string Check(const Args& args, const std::string& label, const StressKernel& k, uint64_t seed,
                  FamilyTally* tally) {
  std::string report;
  const Launched* ref = nullptr;
  std::vector<Launched> runs;
  runs.reserve(std::size(kModes));
  for (const Mode& mode : kModes) {
    g_crash_note = absl::StrCat("\nstress: CRASH under ", mode.name, " in\n");
    Launched& l = runs.emplace_back();
    try {
      l = LaunchOnce(k, mode, seed);
    } catch (const std::exception& e) {
      l.outcome = absl::StrCat("exception: ", e.what());
      l.bad = true;
    }
    ++tally->outcomes[l.bad ? "other" : l.outcome];
    tally->max_compile_s = std::max(tally->max_compile_s, l.compile_s);
    if (l.launch_s > tally->max_launch_s) {
      tally->max_launch_s = l.launch_s;
      tally->slowest = absl::StrCat(label, " ", mode.name);
    }
    if (l.bad || !Allowed(k.expect, mode, l.outcome)) {
      absl::StrAppend(&report, mode.name, ": ", l.outcome, "\n");
    }
    if (l.launch_s > k.time_limit_seconds + args.time_margin) {
      absl::StrAppend(&report, mode.name, ": the launch took ", l.launch_s, " s, past its limit of ",
                      k.time_limit_seconds, " s and the margin\n");
    }
    if (l.outcome != "ran") continue;
    if (std::string known = KnownBytes(k, l); !known.empty()) absl::StrAppend(&report, mode.name, ": ", known, "\n");
    if (ref == nullptr) {
      ref = &l;
    } else if (l.outputs != ref->outputs) {
      absl::StrAppend(&report, mode.name, ": its bytes differ from the first launch that ran\n");
    }
  }
  if (int64_t rss = PeakRssMb(); rss > args.max_rss_mb) {
    absl::StrAppend(&report, "peak RSS ", rss, " MB, over the bound of ", args.max_rss_mb, " MB\n");
  }
  return report;
}

bool ParseArgs(int argc, char** argv, Args* args) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string v = i + 1 < argc ? argv[i + 1] : "";
    auto number = [&](auto* out) { return i + 1 < argc && absl::SimpleAtoi(argv[++i], out); };
    if (a == "--seeds" && i + 1 < argc) {
      ++i;
      std::vector<std::string> parts = absl::StrSplit(v, ':');
      if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &args->first) ||
          !absl::SimpleAtoi(parts[1], &args->last)) {
        return false;
      }
    } else if (a == "--families" && i + 1 < argc) {
      ++i;
      for (const std::string& name : std::vector<std::string>(absl::StrSplit(v, ','))) {
        auto f = std::find_if(StressFamilies().begin(), StressFamilies().end(),
                              [&](const StressFamilyInfo& info) { return name == info.name; });
        if (f == StressFamilies().end()) return false;
        args->families.push_back(f->family);
      }
    } else if (a == "--max-rss-mb") {
      if (!number(&args->max_rss_mb)) return false;
    } else if (a == "--time-margin") {
      if (i + 1 >= argc || !absl::SimpleAtod(argv[++i], &args->time_margin)) return false;
    } else if (a == "--max-dmas") {
      if (!number(&args->gen.max_dmas)) return false;
    } else if (a == "--max-lines") {
      if (!number(&args->gen.max_lines)) return false;
    } else if (a == "--max-copy-bytes") {
      if (!number(&args->gen.max_copy_bytes)) return false;
    } else if (a == "--max-rounds") {
      if (!number(&args->gen.max_rounds)) return false;
    } else if (a == "--save" && i + 1 < argc) {
      args->save_dir = argv[++i];
    } else if (a == "--print") {
      args->print = true;
    } else {
      return false;
    }
  }
  if (args->families.empty()) {
    for (const StressFamilyInfo& f : StressFamilies()) args->families.push_back(f.family);
  }
  return true;
}

const char* FamilyName(StressFamily family) {
  for (const StressFamilyInfo& f : StressFamilies()) {
    if (f.family == family) return f.name;
  }
  return "?";
}

int Main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) {
    std::cerr << "usage: stress [--seeds A:B] [--families piles,loops,lines,chips] [--max-rss-mb N]\n"
                 "              [--time-margin S] [--max-dmas N] [--max-lines N] [--max-copy-bytes N]\n"
                 "              [--max-rounds N] [--print] [--save DIR]\n";
    return 2;
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) signal(sig, OnCrash);
  int64_t failures = 0;
  for (StressFamily family : args.families) {
    FamilyTally tally;
    for (uint64_t seed = args.first; seed < args.last; ++seed) {
      StressKernel k = GenerateStress(family, seed, args.gen);
      std::string label = absl::StrCat(FamilyName(family), "-", seed);
      g_crash_text = absl::StrCat("// ", label, ": ", k.what, "\n", k.text);
      if (args.print) std::cout << g_crash_text;
      ++tally.kernels;
      std::string report = Check(args, label, k, seed, &tally);
      if (report.empty()) continue;
      ++tally.failures;
      std::cout << "=== " << label << " (" << k.what << ")\n" << report << k.text << std::endl;
      if (!args.save_dir.empty()) std::ofstream(args.save_dir + "/" + label + ".scir") << "// " << report << k.text;
    }
    std::vector<std::string> outcomes;
    for (const auto& [name, n] : tally.outcomes) outcomes.push_back(absl::StrCat(n, " ", name));
    std::cout << "stress " << FamilyName(family) << ": " << tally.kernels << " kernels (seeds " << args.first << ".."
              << args.last - 1 << "), launches: " << absl::StrJoin(outcomes, ", ") << "; " << tally.failures
              << " failed; peak RSS " << PeakRssMb() << " MB (bound " << args.max_rss_mb << " MB); longest launch "
              << tally.max_launch_s << " s (" << tally.slowest << "), longest compile " << tally.max_compile_s << " s" << std::endl;
    failures += tally.failures;
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace scjit::fuzz

int main(int argc, char** argv) { return scjit::fuzz::Main(argc, argv); }
