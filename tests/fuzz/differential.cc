// differential: random valid kernels (tests/fuzz/kernel_gen.h) run under every
// configuration of diff_run.cc, each compared with the first
// (docs/fuzzing.md, "Differential testing").
//
//   differential [--seeds A:B] [--configs O2,O0,...] [--save DIR] [--print]
//                [--nan-payloads bitwise|any] [--partial-writes PERCENT]
//   differential --kernel FILE... [--input-seed N] [--configs ...]
//                                  (a saved or minimised kernel; seed N's inputs)
//
// Per seed it generates the kernel, fills its inputs from the seed and runs
// every configuration through the public API (Compiler, Kernel, Buffer,
// LaunchOptions). A mismatch (outputs, findings, debug_print log or status), a
// kernel the compiler rejects, a kernel with an error finding (but RT-INIT in
// a kernel with partial writes, kPartialWritesMarker), or a crash prints the
// seed and the kernel and saves it to DIR; the exit status is 1 if any
// happened.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/fuzz/diff_run.h"
#include "tests/fuzz/kernel_gen.h"

namespace scjit::fuzz {
namespace {

struct Args {
  uint64_t first = 0, last = 100;  // seeds [first, last)
  std::vector<const Config*> configs;
  std::string save_dir;
  std::vector<std::string> kernels;
  bool print = false;
  uint64_t input_seed = 1;  // --kernel's inputs (a seed's kernel got the seed)
  // --nan-payloads any (the default): outputs that differ only in NaN payloads
  // or signs agree (which NaN an op makes is unspecified: docs/language.md,
  // "Floats"); bitwise: they do not.
  bool nan_payloads_any = true;
  GenOptions gen;  // --partial-writes PERCENT sets gen.partial_writes
};

// What a crash handler prints: the kernel being run and where.
std::string g_crash_note;
std::string g_crash_text;
std::string g_crash_path;

void OnCrash(int sig) {
  auto put = [](int fd, const std::string& s) { (void)!write(fd, s.data(), s.size()); };
  put(2, g_crash_note);
  put(2, g_crash_text);
  if (!g_crash_path.empty()) {
    int fd = open(g_crash_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      put(fd, g_crash_text);
      close(fd);
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

bool ParseArgs(int argc, char** argv, Args* args) {
  std::string configs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--seeds" && value(&v)) {
      std::vector<std::string> parts = absl::StrSplit(v, ':');
      if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &args->first) ||
          !absl::SimpleAtoi(parts[1], &args->last)) {
        return false;
      }
    } else if (a == "--configs" && value(&v)) {
      configs = v;
    } else if (a == "--save" && value(&v)) {
      args->save_dir = v;
    } else if (a == "--input-seed" && value(&v)) {
      if (!absl::SimpleAtoi(v, &args->input_seed)) return false;
    } else if (a == "--nan-payloads" && value(&v) && (v == "any" || v == "bitwise")) {
      args->nan_payloads_any = v == "any";
    } else if (a == "--partial-writes" && value(&v)) {
      if (!absl::SimpleAtoi(v, &args->gen.partial_writes)) return false;
    } else if (a == "--print") {
      args->print = true;
    } else if (a == "--kernel") {
      while (i + 1 < argc && argv[i + 1][0] != '-') args->kernels.push_back(argv[++i]);
    } else {
      return false;
    }
  }
  for (const Config& c : Configs()) {
    if (configs.empty()) args->configs.push_back(&c);
  }
  for (const std::string& name : std::vector<std::string>(absl::StrSplit(configs, ',', absl::SkipEmpty()))) {
    const Config* c = FindConfig(name);
    if (c == nullptr) {
      std::cerr << "differential: unknown config " << name << "\n";
      return false;
    }
    args->configs.push_back(c);
  }
  return !args->configs.empty();
}

struct Tally {
  int64_t kernels = 0, mismatched = 0, rejected = 0, with_findings = 0;
  int64_t nan_only = 0;  // kernels whose only differences are NaN payloads (counted in mismatched)
  // Kernels with partial writes; of them, those the first configuration
  // stopped at an RT-INIT error, and those it ran to their end with RT-INIT warnings.
  int64_t partial = 0, init_errors = 0, init_warnings = 0;
  int64_t failures() const { return rejected + with_findings + mismatched; }
  std::string Summary() const {
    return absl::StrCat(mismatched, " mismatched (", nan_only, " in NaN payloads only), ", rejected, " rejected, ",
                        with_findings, " with findings; ", partial, " with partial writes (", init_errors,
                        " stopped at an RT-INIT error, ", init_warnings, " with RT-INIT warnings)");
  }
};

void Save(const Args& args, const std::string& name, const std::string& header, const std::string& text) {
  if (args.save_dir.empty()) return;
  std::ofstream(args.save_dir + "/" + name) << header << text;
}

// Runs one kernel under every configuration; reports and counts what is wrong.
void Check(const Args& args, const std::string& label, const Source& source, uint64_t input_seed, Tally* tally) {
  ++tally->kernels;
  g_crash_note = absl::StrCat("\ndifferential: CRASH in ", label, "\n");
  g_crash_text = source.text;
  g_crash_path = args.save_dir.empty() ? "" : args.save_dir + "/crash-" + label + ".scir";
  Compiler compiler;  // one per kernel: the memory cache would keep every kernel's code
  std::vector<Outcome> outcomes;
  for (const Config* c : args.configs) {
    g_crash_note = absl::StrCat("\ndifferential: CRASH in ", label, " under ", c->name, "\n");
    outcomes.push_back(Run(compiler, source, *c, input_seed));
  }
  std::string report;
  const Outcome& base = outcomes[0];
  // RT-INIT is what a kernel with partial writes may find; anything else, or
  // RT-INIT in another kernel, is a generator bug.
  bool partial = source.text.find(kPartialWritesMarker) != std::string::npos;
  auto expected = [&](const std::set<std::string>& codes) {
    return std::all_of(codes.begin(), codes.end(), [&](const std::string& c) { return partial && c == "RT-INIT"; });
  };
  tally->partial += partial;
  if (base.rejected) {
    ++tally->rejected;
    report = absl::StrCat("REJECTED (a generator bug): ", base.error, "\n");
  } else if (!base.error.empty() || !expected(base.error_codes) ||
             (!partial && base.warning_codes.count("RT-INIT") > 0)) {
    ++tally->with_findings;
    report = absl::StrCat("FINDINGS under ", args.configs[0]->name, " (a generator bug unless configs disagree): ",
                          base.error, "\n");
    for (const std::string& f : base.findings) absl::StrAppend(&report, f);
  } else if (base.failed) {
    ++tally->init_errors;
  } else if (base.warning_codes.count("RT-INIT") > 0) {
    ++tally->init_warnings;
  }
  // Each configuration against the first whose outcome it may be compared
  // with, in each respect (diff_run.h, Compared).
  bool mismatch = false, nan_only = true;
  for (size_t i = 1; i < outcomes.size(); ++i) {
    std::map<size_t, std::vector<Difference>> against;  // by the reference's index
    for (Compared what : {Compared::kStatus, Compared::kFindings, Compared::kOutputs}) {
      size_t ref = 0;
      while (ref < i && !Comparable(outcomes[ref], outcomes[i], what)) ++ref;
      if (ref == i) continue;
      for (Difference& d : Compare(outcomes[ref], outcomes[i], what)) against[ref].push_back(std::move(d));
    }
    for (const auto& [ref, diffs] : against) {
      mismatch = true;
      absl::StrAppend(&report, "MISMATCH ", args.configs[ref]->name, " vs ", args.configs[i]->name, ":\n");
      for (const Difference& d : diffs) {
        absl::StrAppend(&report, "  ", d.text, "\n");
        nan_only = nan_only && d.nan_only;
      }
    }
  }
  if (mismatch && nan_only) ++tally->nan_only;
  if (mismatch && !(nan_only && args.nan_payloads_any)) ++tally->mismatched;
  if (mismatch && nan_only && args.nan_payloads_any && report.find("REJECTED") == std::string::npos &&
      report.find("FINDINGS") == std::string::npos) {
    std::cout << "=== " << label << ": outputs differ in NaN payloads only (--nan-payloads any accepts it)\n";
    return;
  }
  if (args.print) std::cout << "// " << label << "\n" << source.text;
  if (report.empty()) return;
  std::cout << "=== " << label << "\n" << report << source.text << std::endl;
  std::string header = absl::StrCat("// replay: differential --kernel FILE --input-seed ", input_seed, "\n");
  for (const std::string& line : std::vector<std::string>(absl::StrSplit(report, '\n', absl::SkipEmpty()))) {
    absl::StrAppend(&header, "// ", line, "\n");
  }
  Save(args, label + ".scir", header, source.text);
}

int Main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) {
    std::cerr << "usage: differential [--seeds A:B] [--configs NAME,...] [--save DIR] [--print]\n"
                 "                    [--nan-payloads bitwise|any] [--partial-writes PERCENT]\n"
                 "       differential --kernel FILE... [--input-seed N] [--configs NAME,...]\nconfigs:\n";
    for (const Config& c : Configs()) std::cerr << "  " << c.name << "  " << c.what << "\n";
    return 2;
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) signal(sig, OnCrash);
  Tally tally;
  auto start = std::chrono::steady_clock::now();
  for (const std::string& path : args.kernels) {
    absl::StatusOr<Source> source = Source::FromFile(path);
    if (!source.ok()) {
      std::cerr << source.status().message() << "\n";
      return 2;
    }
    Check(args, path, *source, args.input_seed, &tally);
  }
  if (args.kernels.empty()) {
    for (uint64_t seed = args.first; seed < args.last; ++seed) {
      std::string label = absl::StrCat("seed-", seed);
      Check(args, label, Source{label + ".scir", Generate(seed, args.gen).text}, seed, &tally);
      if ((seed + 1 - args.first) % 500 == 0) {
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cerr << "differential: " << tally.kernels << " kernels in " << s << " s: " << tally.Summary() << "\n";
      }
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string configs;
  for (const Config* c : args.configs) absl::StrAppend(&configs, configs.empty() ? "" : ",", c->name);
  std::cout << "differential: " << tally.kernels << " kernels (" << configs << ") in " << seconds
            << " s: " << tally.Summary() << (args.nan_payloads_any ? " [--nan-payloads any]" : "") << "\n";
  return tally.failures() == 0 ? 0 : 1;
}

}  // namespace
}  // namespace scjit::fuzz

int main(int argc, char** argv) { return scjit::fuzz::Main(argc, argv); }
