// How a compiled kernel is launched on the emulated SparseCore, and what a
// launch reports: its options, its checks, its statistics and findings.
//
// Thread safety: plain values. A LaunchOptions may be shared by concurrent
// launches; its `log` is then called from each of them (see below).
#ifndef SCJIT_INCLUDE_SCJIT_LAUNCH_H_
#define SCJIT_INCLUDE_SCJIT_LAUNCH_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "scjit/chip_link.h"
#include "scjit/diagnostic.h"
#include "scjit/types.h"

namespace scjit {

// Which run-time checks are on (`jit-run --check`). A finding is an RT-* error
// of the launch (or a warning with `warn`).
struct Checks {
  bool bounds = true;  // RT-BOUNDS: indices, slices, lanes and DMA index lists
  bool sync = true;    // RT-SYNC: DMAs never waited, semaphores left non-zero
  bool init = true;    // RT-INIT: reads of bytes nothing has written
  bool race = true;    // RT-RACE: unordered accesses to the same bytes, one a write
  bool warn = false;   // findings are warnings: the launch goes on
  // With init: an output holding values computed from bytes nothing had
  // written is an error (else a warning; unwritten bytes copied there as they
  // are never are).
  bool strict = false;

  // Every check.
  static Checks All() { return Checks{}; }
  static Checks None() { return Checks{false, false, false, false, false, false}; }
  // "all", "none", "warn" (all, as warnings), "strict" (all, strict) or a
  // comma list of bounds, init, race, sync, strict. InvalidArgument
  // (IO-USAGE) for anything else.
  static absl::StatusOr<Checks> Parse(std::string_view text);

  bool any() const { return bounds || sync || init || race; }
  // The text Parse reads back: "all", "none", "warn" or a list.
  std::string ToString() const;
  friend bool operator==(const Checks&, const Checks&) = default;
};

// The time limit of a launch when none is given, the same from every
// interface (jit-run's --time-limit, LaunchOptions, the Python module,
// scjit.jax): a kernel that runs away stops with RT-TIMEOUT after ten minutes
// instead of holding the host until it is killed.
inline constexpr double kDefaultTimeLimitSeconds = 600;

// The most host threads a launch takes (LaunchOptions::threads).
inline constexpr int kMaxLaunchThreads = 1024;

// A time limit that several steps share: `seconds` (0: none) counted from
// `start`. jit-run's --time-limit is one: it bounds generating the inputs
// (Generate) and the launch (LaunchOptions::time_limit_start) together.
struct TimeLimit {
  double seconds = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  // True once `seconds` have passed since `start` (never with 0 seconds).
  bool Passed() const {
    return seconds > 0 && std::chrono::steady_clock::now() - start >= std::chrono::duration<double>(seconds);
  }
};

// When a DMA moves its bytes.
enum class DmaMode : uint8_t {
  kEager,   // at dma_start
  kOnWait,  // when its semaphore is waited on or read (exposes missing waits)
};

struct LaunchOptions {
  // Host threads running the subcores; 0: the host's cores. A launch may use
  // fewer when its epochs are too short to share (the result says how many).
  int threads = 0;
  // Randomizes, reproducibly, the order in which subcores' effects on each other
  // land; none: the fixed (core, subcore) order.
  std::optional<uint64_t> seed;
  // Default: kOnWait when any check is on, kEager otherwise.
  std::optional<DmaMode> dma;
  // Default: the checks the kernel was compiled with. Bounds checks of indices
  // are compiled into the code: a kernel compiled without them cannot have them
  // at launch.
  std::optional<Checks> checks;
  // Stops a launch that runs longer (RT-TIMEOUT); 0: no limit; a limit past
  // the clock's range (1e10, infinity) is none too. It bounds the
  // whole launch: the arenas, the poison fill of `out` buffers and the staging
  // of parameters as well as the kernel.
  double time_limit_seconds = kDefaultTimeLimitSeconds;
  // When the limit starts counting; default: when Launch is called. jit-run
  // gives the start of its TimeLimit, so that generating the inputs counts too.
  std::optional<std::chrono::steady_clock::time_point> time_limit_start;
  // Receives debug_print output, one or more whole lines per call, in a fixed
  // order (subcore order within each epoch); null: discarded. Called from the
  // launching thread only.
  std::function<void(std::string_view)> log;
  // The processes that run the other chips of a kernel on several devices
  // (scjit/chip_link.h; jit-run's MpiChipLink, runtime/mpi/mpi_link.h); null: this process
  // runs every chip. Not owned; it must outlive the launch. Only rank 0 calls
  // `log` (with every chip's output).
  ChipLink* link = nullptr;
  // Stops the launch soon after it becomes true, as the time limit does (at
  // the next loop tick or DMA), and Launch then returns a CANCELLED status.
  // A signal handler may set it (jit-run's SIGINT handler does, and the
  // Python module's: KeyboardInterrupt). Not owned; it must outlive the launch.
  const std::atomic<bool>* interrupt = nullptr;
};

struct SubcoreStats {
  int core = 0;
  int subcore = 0;
  int64_t dma_bytes = 0;  // bytes its DMAs moved
  int64_t ops = 0;        // runtime ops it executed
  // Its mesh: a kernel of several meshes (MPMD) has vector and scalar subcores.
  MeshKind mesh = MeshKind::kVector;
  int device = 0;  // its chip (0 without a device mesh)
};

struct LaunchStats {
  double wall_ms = 0;
  int64_t dma_bytes = 0;  // bytes moved by every DMA and copy
  // Runtime ops executed, by op (dma_start, dma_wait, copy, sem_signal,
  // sem_wait, sem_read, barrier, fetch_and_add, debug_print) and by class
  // (dma, semaphore, barrier, atomic, print).
  std::map<std::string, int64_t> ops;
  std::map<std::string, int64_t> ops_by_class;
  std::vector<SubcoreStats> per_subcore;  // in (core, subcore) order, part after part, chip after chip
  int subcores = 0;  // in the whole mesh
  int threads = 0;   // host threads the launch used
  int64_t epochs = 0;
};

struct LaunchResult {
  LaunchStats stats;
  // RT-* findings: errors end the launch (each subcore stops at its first);
  // warnings (and every finding under Checks::warn) let it go on.
  std::vector<Diagnostic> findings;

  // True when a finding is an error.
  bool failed() const;
  // Every finding, rendered.
  std::string RenderFindings() const;
};

}  // namespace scjit

#endif  // SCJIT_INCLUDE_SCJIT_LAUNCH_H_
