#include "tests/fuzz/diff_run.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace scjit::fuzz {
namespace {

// The configurations, compared with the first.
constexpr Config kConfigs[] = {
    {"O2", "opt level 2, 1 thread, DMAs on wait, every check", [](CompileOptions&, LaunchOptions&) {}},
    {"interp", "the interpreter engine (docs/interpreter.md)",
     [](CompileOptions& c, LaunchOptions&) { c.engine = Engine::kInterp; }},
    {"O0", "opt level 0", [](CompileOptions& c, LaunchOptions&) { c.opt_level = 0; }},
    {"threads4", "4 host threads", [](CompileOptions&, LaunchOptions& l) { l.threads = 4; }},
    {"eager", "DMAs move at dma_start", [](CompileOptions&, LaunchOptions& l) { l.dma = DmaMode::kEager; }},
    {"shuffle", "subcores' effects on each other land in a seeded order, 4 threads",
     [](CompileOptions&, LaunchOptions& l) {
       l.seed = 0x5eed;
       l.threads = 4;
     }},
    {"unchecked", "compiled and run without checks (DMAs eager)",
     [](CompileOptions& c, LaunchOptions& l) {
       c.checks = Checks::None();
       l.dma.reset();
     }},
    // Findings as warnings: the launch goes on past what would stop it (an
    // RT-INIT error of a kernel with partial writes), computing what
    // `unchecked` computes; the two engines must report every finding alike.
    {"warn", "every check, findings as warnings (the launch goes on)",
     [](CompileOptions&, LaunchOptions& l) { l.checks = Checks::Parse("warn").value(); }},
    {"interp-warn", "the interpreter, findings as warnings",
     [](CompileOptions& c, LaunchOptions& l) {
       c.engine = Engine::kInterp;
       l.checks = Checks::Parse("warn").value();
     }},
};

uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Bit patterns worth meeting often: NaNs (quiet, signalling, negative, with
// payloads), infinities, signed zeros, the smallest and largest subnormals and
// the largest finite value.
const std::vector<uint32_t>& Specials(DType t) {
  static const std::vector<uint32_t> kF32 = {0x7FC00000, 0xFFC00001, 0x7FA00000, 0x7F800001, 0x7F800000,
                                             0xFF800000, 0x00000001, 0x80000000, 0x007FFFFF, 0x7F7FFFFF};
  static const std::vector<uint32_t> kBF16 = {0x7FC0, 0xFFC1, 0x7FA0, 0x7F81, 0x7F80, 0xFF80, 0x0001, 0x8000,
                                              0x007F, 0x7F7F};
  static const std::vector<uint32_t> kF16 = {0x7E00, 0xFE01, 0x7D00, 0x7C01, 0x7C00, 0xFC00, 0x0001, 0x8000,
                                             0x03FF, 0x7BFF};
  static const std::vector<uint32_t> kNone;
  switch (t) {
    case DType::kF32: return kF32;
    case DType::kBF16: return kBF16;
    case DType::kF16: return kF16;
    default: return kNone;
  }
}

// A small value of the type's kind, as bits: an integer in [-8, 8] (floats:
// the float of that integer, or that halved).
uint32_t Small(DType t, uint64_t r) {
  int v = static_cast<int>(r % 17) - 8;
  bool half = (r >> 8) & 1;
  float f = half ? v / 2.0f : static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  switch (t) {
    case DType::kF32: return bits;
    case DType::kBF16: return bits >> 16;  // exact: a few significant bits
    case DType::kF16: {
      if (f == 0) return std::signbit(f) ? 0x8000 : 0;
      int e = std::ilogb(f);
      uint32_t mant = static_cast<uint32_t>(std::ldexp(std::fabs(f), 10 - e)) & 0x3FF;
      return (f < 0 ? 0x8000u : 0u) | static_cast<uint32_t>(e + 15) << 10 | mant;
    }
    case DType::kU4: return static_cast<uint32_t>(v) & 0xF;
    case DType::kI4: return static_cast<uint32_t>(v) & 0xF;
    default: return static_cast<uint32_t>(v);
  }
}

std::string Hex(const uint8_t* p, int bytes) {
  std::string s = "0x";
  for (int i = bytes - 1; i >= 0; --i) absl::StrAppendFormat(&s, "%02x", p[i]);
  return s;
}

bool IsNan(DType t, const uint8_t* p) {
  uint32_t v = 0;
  std::memcpy(&v, p, DTypeBytes(t));
  switch (t) {
    case DType::kF32: return (v & 0x7F800000) == 0x7F800000 && (v & 0x7FFFFF) != 0;
    case DType::kBF16: return (v & 0x7F80) == 0x7F80 && (v & 0x7F) != 0;
    case DType::kF16: return (v & 0x7C00) == 0x7C00 && (v & 0x3FF) != 0;
    case DType::kF8E5M2: return (v & 0x7C) == 0x7C && (v & 0x3) != 0;
    case DType::kF8E4M3FN: return (v & 0x7F) == 0x7F;
    case DType::kF8E4M3B11FNUZ: return v == 0x80;
    default: return false;
  }
}

}  // namespace

std::span<const Config> Configs() { return kConfigs; }

const Config* FindConfig(std::string_view name) {
  for (const Config& c : kConfigs) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

std::vector<std::vector<uint8_t>> MakeInputs(const std::vector<ParamInfo>& params, uint64_t seed) {
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t p = 0; p < params.size(); ++p) {
    const ParamInfo& info = params[p];
    std::vector<uint8_t>& bytes = inputs.emplace_back();
    if (info.direction == ParamDirection::kOut) continue;
    int width = DTypeBytes(info.dtype);
    bytes.resize(static_cast<size_t>(info.bytes()));
    const std::vector<uint32_t>& specials = Specials(info.dtype);
    uint64_t state = Mix(seed * 1000003 + p);
    for (size_t at = 0; at + width <= bytes.size(); at += width) {
      state = Mix(state);
      uint32_t bits = static_cast<uint32_t>(state >> 32);
      int kind = static_cast<int>(state & 7);
      if (kind < 2) {
        bits = Small(info.dtype, state >> 8);
      } else if (kind == 2 && !specials.empty()) {
        bits = specials[(state >> 8) % specials.size()];
      }
      if (info.dtype == DType::kI4 || info.dtype == DType::kU4) bits &= 0xF;
      std::memcpy(&bytes[at], &bits, width);
    }
  }
  return inputs;
}

Outcome Run(Compiler& compiler, const Source& source, const Config& config, uint64_t input_seed) {
  Outcome out;
  CompileOptions compile;
  LaunchOptions launch;
  launch.threads = 1;
  launch.dma = DmaMode::kOnWait;
  launch.time_limit_seconds = 60;
  launch.log = [&out](std::string_view text) { out.log.append(text); };
  config.apply(compile, launch);
  absl::StatusOr<Kernel> kernel = compiler.Compile(source, compile);
  if (!kernel.ok()) {
    out.rejected = true;
    out.error = std::string(kernel.status().message());
    return out;
  }
  out.params.assign(kernel->params().begin(), kernel->params().end());
  out.checks = launch.checks.value_or(compile.checks).ToString();
  std::vector<std::vector<uint8_t>> inputs = MakeInputs(out.params, input_seed);
  std::vector<Buffer> buffers;
  for (size_t p = 0; p < out.params.size(); ++p) {
    const ParamInfo& info = out.params[p];
    absl::StatusOr<Buffer> b = info.direction == ParamDirection::kOut
                                   ? Buffer::Allocate(info.dtype, info.shape)
                                   : Buffer::Adopt(info.dtype, info.shape, inputs[p]);
    if (!b.ok()) {
      out.error = absl::StrCat("buffer for %", info.name, ": ", b.status().message());
      return out;
    }
    buffers.push_back(*std::move(b));
  }
  absl::StatusOr<LaunchResult> result = kernel->Launch(std::span<const Buffer>(buffers), launch);
  if (!result.ok()) {
    out.error = std::string(result.status().message());
    return out;
  }
  for (const Diagnostic& d : result->findings) {
    out.findings.push_back(d.Render());
    (d.severity == Severity::kError ? out.error_codes : out.warning_codes).insert(d.code);
  }
  out.failed = result->failed();
  for (size_t p = 0; p < out.params.size(); ++p) {
    if (out.params[p].direction == ParamDirection::kIn) {
      out.outputs.emplace_back();
    } else {
      out.outputs.emplace_back(buffers[p].data(), buffers[p].data() + buffers[p].bytes());
    }
  }
  return out;
}

bool Comparable(const Outcome& a, const Outcome& b, Compared what) {
  switch (what) {
    case Compared::kStatus: return true;
    case Compared::kFindings: return a.checks == b.checks;
    case Compared::kOutputs: return a.failed == b.failed;
  }
  return false;
}

std::vector<Difference> Compare(const Outcome& a, const Outcome& b, Compared what) {
  std::vector<Difference> diffs;
  if (!Comparable(a, b, what)) return diffs;
  if (what == Compared::kStatus) {
    if (a.rejected != b.rejected || a.error != b.error) {
      diffs.push_back({absl::StrCat("status: ", a.error.empty() ? "ran" : a.error, " | ",
                                   b.error.empty() ? "ran" : b.error)});
    }
    return diffs;
  }
  if (!a.error.empty() || !b.error.empty() || a.rejected || b.rejected) return diffs;  // the status says it
  if (what == Compared::kFindings) {
    if (a.findings == b.findings) return diffs;
    // The first finding that differs, whole, then the counts.
    size_t i = 0;
    while (i < a.findings.size() && i < b.findings.size() && a.findings[i] == b.findings[i]) ++i;
    auto at = [&](const std::vector<std::string>& f) { return i < f.size() ? f[i] : std::string("(none)\n"); };
    diffs.push_back({absl::StrCat("findings differ (", a.findings.size(), " vs ", b.findings.size(),
                                  "; the first ", i, " agree); finding ", i + 1, ":\n", at(a.findings), "----\n",
                                  at(b.findings))});
    return diffs;
  }
  if (a.log != b.log) diffs.push_back({absl::StrCat("debug_print log differs:\n", a.log, "----\n", b.log)});
  for (size_t p = 0; p < a.outputs.size() && p < b.outputs.size(); ++p) {
    const std::vector<uint8_t>& x = a.outputs[p];
    const std::vector<uint8_t>& y = b.outputs[p];
    if (x == y) continue;
    const ParamInfo& info = a.params[p];
    int width = DTypeBytes(info.dtype);
    int64_t differing = 0;
    bool nan_only = true;
    std::vector<std::string> shown;
    for (size_t at = 0; at + width <= x.size() && at < y.size(); at += width) {
      if (std::memcmp(&x[at], &y[at], width) == 0) continue;
      bool nans = IsNan(info.dtype, &x[at]) && IsNan(info.dtype, &y[at]);
      nan_only = nan_only && nans;
      if (++differing > 8) continue;
      shown.push_back(absl::StrCat("[", at / width, "] ", Hex(&x[at], width), " vs ", Hex(&y[at], width),
                                   nans ? " (both NaN)" : ""));
    }
    diffs.push_back({absl::StrCat("%", info.name, " (", info.type, "): ", differing, " elements differ: ",
                                  absl::StrJoin(shown, ", "), nan_only ? " [NaN payloads only]" : ""),
                     nan_only});
  }
  return diffs;
}

}  // namespace scjit::fuzz
