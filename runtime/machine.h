// The emulated SparseCore of one launch: memories, subcores, semaphores and
// the DMA queues (runtime.md §1-§6). RunKernel (launch.h) builds a Machine,
// runs it and returns its findings; the ABI functions (abi.cc) forward to the
// calling Subcore.
#ifndef SCJIT_RUNTIME_MACHINE_H_
#define SCJIT_RUNTIME_MACHINE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <random>
#include <set>
#include <span>
#include <utility>
#include <string>
#include <vector>

#include "lowering/base/diagnostic.h"
#include "lowering/base/launch_layout.h"
#include "runtime/abi.h"
#include "runtime/findings.h"
#include "runtime/launch.h"
#include "runtime/atomic_words.h"
#include "runtime/chip_wire.h"
#include "runtime/local_accesses.h"
#include "runtime/scheduler.h"
#include "runtime/memory_pool.h"
#include "runtime/poison.h"
#include "runtime/record_pool.h"
#include "runtime/init_origins.h"
#include "runtime/init_states.h"
#include "runtime/shared_init.h"
#include "runtime/shared_races.h"
#include "runtime/shared_writes.h"

namespace scjit {

class Machine;

// The runtime calls a launch counts (LaunchStats::ops), in kRuntimeOps order.
enum class RuntimeOp : uint8_t {
  kDmaStart, kDmaWait, kCopy, kSemSignal, kSemWait, kSemRead, kBarrier, kFetchAndAdd, kDebugPrint,
};
struct RuntimeOpInfo {
  std::string_view name;   // the op's .scir name
  std::string_view group;  // its class in LaunchStats::ops_by_class
};
inline constexpr RuntimeOpInfo kRuntimeOps[] = {
    {"dma_start", "dma"},      {"dma_wait", "dma"},        {"copy", "dma"},
    {"sem_signal", "semaphore"}, {"sem_wait", "semaphore"}, {"sem_read", "semaphore"},
    {"barrier", "barrier"},    {"fetch_and_add", "atomic"}, {"debug_print", "print"},
};

// Status codes a runtime call returns to generated code.
inline constexpr int32_t kStatusFailed = 1;     // this subcore made a finding
inline constexpr int32_t kStatusCancelled = 2;  // the launch stopped

// A started DMA: its descriptor, and for an indirect DMA the index list as it
// was at dma_start (runtime/abi.h).
struct StartedDma {
  // (A constructor, not aggregate initialization, which zeroes the large
  // descriptor before copying it.)
  StartedDma(const scjit_dma& d, int s, int64_t c, std::vector<int32_t> list = {})
      : dma(d), site(s), credit(c), indices(std::move(list)) {}
  scjit_dma dma;
  int site;
  int64_t credit;  // what it adds to its semaphore (Credit)
  std::vector<int32_t> indices;
  std::shared_ptr<SharedDma> shared;  // race check: its accesses to shared memory
};

// DMAs started and not yet moved, oldest first: a vector whose front
// advances (a deque of entries this large allocates for each one).
class PendingDmas {
 public:
  bool empty() const { return head_ == items_.size(); }
  StartedDma& front() { return items_[head_]; }
  const StartedDma& front() const { return items_[head_]; }
  // A new last entry, made in place (a descriptor is large).
  StartedDma& emplace_back(const scjit_dma& dma, int site, int64_t credit) {
    return items_.emplace_back(dma, site, credit);
  }
  void pop_back() { items_.pop_back(); }
  void pop_front() {
    StartedDma& d = items_[head_++];
    d.indices = {};
    d.shared = nullptr;
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= 64 && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  std::vector<StartedDma> items_;
  size_t head_ = 0;
};

// One semaphore of one subcore.
struct Semaphore {
  int64_t value = 0;
  PendingDmas pending;  // on_wait mode: started, not yet moved
  int64_t deferred = 0;            // credit of DMAs the machine applies at the next settle
  int last_site = -1;              // the op that last credited it (signal or DMA)
};

// An effect one subcore has on another, or on memory other subcores share,
// applied between epochs.
struct Effect {
  // kRemoteDma: a copy into the memory of `target`'s chip (`dma`'s destination
  // already there), crediting `target`'s semaphore `sem` and the issuer's
  // `send_sem` with `amount`.
  enum class Kind : uint8_t { kSignal, kFetchAndAdd, kSharedAdd, kRemoteDma } kind = Kind::kSignal;
  int target = 0;  // global subcore index
  int sem = 0;     // kSharedAdd: the semaphore to credit, -1 for none
  int64_t amount = 0;    // signal increment, fetch_and_add value, or credit
  int64_t offset = 0;    // fetch_and_add: byte offset in the target's SMEM
  int32_t* result = nullptr;  // fetch_and_add: where the old value goes
  std::shared_ptr<StartedDma> dma;  // kSharedAdd: an adding DMA into HBM/VMEM_SHARED
  int site = -1;                    // kSignal: the sem_signal
  std::shared_ptr<const Clock> clock;  // kSignal, race check: the signaller's clock
  int send_sem = -1;                   // kRemoteDma, kSharedAdd: the source semaphore
  // A signal or remote copy to a chip of another process (ChipLink): `target`
  // is -1, `remote` the target's global subcore index and `where` the copy's
  // destination in that subcore's buffers.
  int remote = -1;
  BufferAddress where;
};

// One part of a launch (a kernel of one part has one): its layout and code, and
// where its subcores are (runtime.md, "Several parts in one launch"). Its subcores' arenas follow the
// previous part's in the machine's memory.
struct MachinePart {
  const LaunchLayout* layout = nullptr;
  KernelFn kernel = nullptr;
  const void* program = nullptr;  // scjit_ctx::program of its subcores (PartCode)
  int index = 0;   // its position among the kernel's parts
  int device = 0;  // the chip it runs on (every chip runs every part)
  int first = 0;   // the global index of its first subcore
  uint8_t* vmem = nullptr;
  uint8_t* smem = nullptr;
  uint8_t* shared = nullptr;
  int64_t vmem_stride = 0, smem_stride = 0, shared_stride = 0;  // arena sizes, aligned
  std::vector<bool> param_semaphore;  // by semaphore index: a parameter's (it outlives the launch)

  int count() const { return layout->subcores_total(); }
  int64_t bytes() const { return (vmem_stride + smem_stride) * count() + shared_stride * layout->cores; }
};

// One vector (or scalar) subcore. Its methods are the ABI entry points and run
// on its own fiber; nothing else touches a Subcore during an epoch.
class Subcore {
 public:
  Subcore(Machine* machine, const MachinePart* part, int index, int core, int subcore);

  // The layout of this subcore's part.
  const LaunchLayout& layout() const { return *part_->layout; }

  int32_t Tick(int site);
  // A DMA of `bytes` at `site` is about to move: counts the work, and every
  // kWorkBetweenClocks bytes of it looks at the clock, as a loop's ticks do
  // (a loop of large copies ticks too seldom to honour a time limit).
  int32_t Spend(int64_t bytes, int site);
  int32_t DmaStart(const scjit_dma& dma, int site);
  int32_t DmaWait(const scjit_dma& dma, int site);
  int32_t Copy(const scjit_dma& dma, int site);
  int32_t SemSignal(int sem, int32_t n, int core, int subcore, int device, int part, int site);
  int32_t SemWait(int sem, int32_t n, int site);
  int32_t SemRead(int sem, int site, int32_t* value);
  int32_t Barrier(int site);
  int32_t FetchAndAdd(int64_t offset, int32_t value, int target, int site, int32_t* old);
  int32_t DebugPrint(int site, int kind, int dtype, const void* data, int64_t count, const scjit_ref* ref);
  int32_t Alloc(void* data, int64_t count, int dtype, int first_sem);
  int32_t AccessFault(int site, bool write, const uint8_t* addr, int64_t bytes);
  int32_t AccessCheck(int site, bool write, const uint8_t* addr, int64_t bytes);
  int32_t UnwrittenRead(int site, const uint8_t* addr, const uint8_t* lane0, int64_t lane_bytes, int32_t* origin);
  int32_t LaneOrigin(int32_t origin, int64_t lane, int32_t* out);
  int32_t StoredOrigin(int32_t origin, const uint8_t* addr, int64_t bytes);
  int32_t UnwrittenUse(int site, int32_t origin);
  int32_t CheckFailed(int site);
  int32_t BoundsError(int site, int what, int dim, int64_t index, int64_t limit);
  int32_t Warning(int site, int what);

  scjit_ctx ctx{};

 private:
  friend class Machine;

  enum class Wait : uint8_t { kNone, kTick, kBarrier, kSemWait, kDmaWait, kFetchAndAdd, kSemRead, kSharedAdd };

  // Waits (as `wait`: a DMA's or a semaphore's) until semaphore `sem` holds
  // `amount`, then takes it.
  int32_t WaitFor(int sem, int64_t amount, Wait wait, int site);
  // Suspends until the machine resumes this subcore; returns the status to give
  // the kernel (kStatusCancelled when the launch stopped meanwhile).
  int32_t Park(Wait wait, int site);
  // kStatusCancelled once the launch is interrupted; kStatusFailed with an
  // RT-TIMEOUT at `site` (the subcore `doing` something) once past its time
  // limit; else 0.
  int32_t OutOfTime(int site, std::string_view doing);
  // Records finding `d` of this subcore; returns kStatusFailed for an error.
  int32_t Fail(Diagnostic d);
  // A finding at `site` (the machine names the subcore when it merges them).
  Diagnostic Finding(DiagId id, int site, std::initializer_list<DiagArg> args) const;
  // A finding of check `id` (RT-BOUNDS: bounds, RT-SYNC: sync) when the launch
  // runs that check; the op it is about is refused (does nothing) either way,
  // so that no check, on or off, lets an op touch memory outside the kernel's
  // buffers. Returns the status to give the kernel.
  int32_t Refuse(DiagId id, int site, std::string detail);
  // False when the op is refused; `status` is then what to return.
  bool ValidSemaphore(int sem, int site, int32_t* status);
  bool ValidSemaphore(int sem, const MachinePart& part, int site, int32_t* status);  // one of `part`'s
  // False (RT-BOUNDS when checked) for a device id beyond the launch's chips.
  bool ValidDevice(int device, int site, int32_t* status);
  bool ValidDma(const scjit_dma& dma, int site, int32_t* status);
  // Copies an indirect DMA's index list into `out` and checks its entries
  // against the indexed dimension (RT-BOUNDS when checks are on).
  int32_t ReadIndices(const scjit_dma& dma, int site, std::vector<int32_t>* out);
  // Moves a DMA's bytes and credits semaphore `sem` (-1: none) with `credit`;
  // an adding DMA into memory other subcores share is instead handed to the
  // machine, which applies it at the next settle (`settling`: this is it).
  // Returns true when it was handed over.
  bool Execute(const scjit_dma& dma, int site, int64_t credit, std::vector<int32_t>* indices, int sem, bool settling,
               const std::shared_ptr<SharedDma>& shared = nullptr);
  // A copy to another chip (dma.device >= 0): checked here, moved at the next
  // settle (Effect::kRemoteDma).
  int32_t RemoteDmaStart(const scjit_dma& dma, int site);
  int32_t PushStreamStart(const scjit_dma& dma, int site, int64_t credit);
  // Race check of a remote copy: its record (*record; null without the race
  // check), and its source marked read in flight until the wait on %send; a
  // finding's status when that source is being written. `receiver`: the
  // global index of the subcore it lands on.
  int32_t StartRemoteAccesses(const scjit_dma& dma, int site, int64_t credit, int receiver,
                              std::shared_ptr<SharedDma>* record);

  // Moves pending DMAs of `s` (start order) until it holds, or will hold after
  // the next settle, `bytes` (or all).
  void Complete(int sem, int64_t bytes, bool settling = false);
  void Count(RuntimeOp op) { ++ops_[static_cast<size_t>(op)]; }
  // A wait at `site` took `amount` from semaphore `sem`: the checks retire
  // DMAs by it, and the subcore now knows what the signals to it knew.
  void Consumed(int sem, int64_t amount, int site);
  // Race check: this subcore's clock, and a tick of its own entry.
  Clock& clock();
  void TickClock() { ++clock()[static_cast<size_t>(index_)]; }
  // Race check: a record for a DMA started at `site` now, without its runs
  // (LocalAccesses::StartDma adds them); null when the check is off.
  // (Made in place: returned by value, the caller read it back with a
  // 16-byte load that waited on the two 8-byte stores that made it.)
  // `pooled`: from the subcore's RecordPool; a remote copy's record is not,
  // as its receiver, on another thread, may let it go last.
  void NewRecord(int site, std::shared_ptr<SharedDma>* record, bool pooled = true);
  // RT-INIT (an index list entry not written) or RT-RACE for `problem`, met
  // by the op at `site`.
  Diagnostic AccessFinding(const AccessProblem& problem, int site);
  // Init check: the origin of the value a load at `site` reads from byte p,
  // whose state (not written) is `state`.
  int32_t ReadOrigin(int site, const uint8_t* p, uint8_t state, const uint8_t* lane0 = nullptr, int64_t lane_bytes = 0);
  // "holds bytes nothing has written", or whence the computed value it holds came.
  std::string UnwrittenBytes(const uint8_t* p);
  // Race check: the kernel's access at `site` of words of its SMEM that other
  // subcores fetch_and_add (atomic_words.h), and the RT-RACE of a load or store
  // against an earlier fetch_and_add of another subcore.
  int32_t CheckAtomicWords(int site, bool write, const uint8_t* addr, int64_t bytes);
  // Checks and marks the bytes a starting DMA (sem -1: a copy) touches in this
  // subcore's memories.
  int32_t StartAccesses(const scjit_dma& dma, const std::vector<int32_t>& indices, int site, int sem, int64_t credit,
                        std::shared_ptr<SharedDma>* shared);
  // "%buf[3]" for a byte of this subcore's memories.
  std::string DescribeByte(const uint8_t* p) const;

  // A finding of this subcore (named by the machine when it merges them, unless
  // `name_subcore` is false).
  SubcoreFinding Made(Diagnostic d, bool name_subcore = true) const;

  Machine* machine_;
  const MachinePart* part_;
  int index_, core_, subcore_;
  std::vector<Semaphore> sems_;
  size_t pending_dmas_ = 0;  // over every semaphore's `pending`
  // Spend's count of bytes moved since the clock was last looked at; a DMA
  // counts kWorkPerCall more (its own cost, however few bytes it moves).
  static constexpr int64_t kWorkBetweenClocks = int64_t{16} << 20;
  static constexpr int64_t kWorkPerCall = 4096;
  int64_t work_ = 0;
  std::vector<Effect> outbox_;
  std::vector<SubcoreFinding> findings_;
  // Warnings of this epoch, by site; the machine keeps the first of each site.
  std::vector<std::pair<int, SubcoreFinding>> warnings_;
  std::string prints_;
  std::vector<int64_t> ops_;
  int64_t dma_bytes_ = 0;
  std::vector<int32_t> indices_;  // the index list of an eager or synchronous DMA
  std::unique_ptr<LocalAccesses> local_;  // init or race checks on
  std::unique_ptr<AtomicWords> atomic_words_;  // race check, SMEM that fetch_and_add targets
  RecordPool* records_ = nullptr;          // race check: where its SharedDma records live
  std::vector<std::shared_ptr<SharedDma>> shared_started_;  // race check: this epoch's

  Wait wait_ = Wait::kNone;
  int wait_site_ = -1;
  int wait_sem_ = -1;
  int64_t wait_amount_ = 0;
  bool cancelled_ = false;
  bool finished_ = false;
  bool end_checked_ = false;  // RT-SYNC done
  int32_t exit_status_ = 0;
};

class Machine {
 public:
  // `parts`: the code of each part of `layout` (LaunchLayout::Parts()).
  Machine(const LaunchLayout& layout, std::span<const PartCode> parts, const RunOptions& options);

  absl::StatusOr<LaunchResult> Run(std::span<const ParamBuffer> params);

  // The launch's layout (its first part's).
  const LaunchLayout& layout() const { return layout_; }
  // True when the launch runs a kernel of several parts.
  bool several_parts() const { return parts_per_device_ > 1; }
  const RunOptions& options() const { return options_; }
  bool stopping() const { return stopping_.load(std::memory_order_relaxed); }
  // True (once) when the launch has run past its time limit.
  bool PastDeadline();
  // True when RunOptions::interrupt is set; the launch then stops.
  bool Interrupted();
  SubcoreScheduler& scheduler() { return *scheduler_; }
  uint8_t* smem_of(int subcore) { return subcores_[subcore]->ctx.smem; }
  const Subcore& subcore(int i) const { return *subcores_[i]; }
  std::string SubcoreName(int i) const;
  // True when every byte of `r` lies inside one kernel buffer: an HBM parameter
  // of subcore `subcore`'s chip, or an arena of that subcore (its VMEM, its
  // SMEM, its core's shared of its part).
  bool Contains(const scjit_ref& r, int elem_bytes, int subcore) const;
  // The chips of the launch.
  int devices() const { return devices_; }
  // Part `index` of the kernel on chip `device` (one this process runs).
  const MachinePart& PartOn(int device, int index) const {
    return parts_[static_cast<size_t>(device - first_device_) * parts_per_device_ + static_cast<size_t>(index)];
  }
  // The global index of the subcore at the place of subcore `subcore` (same
  // part, core and subcore) on chip `device`.
  int Counterpart(int subcore, int device) const;
  // The index among this process's subcores of global subcore `global`, or -1
  // when another process (ChipLink) runs it. Without a link both are the same.
  int Local(int global) const {
    int i = global - first_subcore_;
    return i >= 0 && i < static_cast<int>(subcores_.size()) ? i : -1;
  }
  // Where the bytes `r` names in subcore `from`'s memory lie: an HBM parameter
  // of its chip or one of its arenas; none when `r` is not inside one buffer.
  std::optional<BufferAddress> Locate(const scjit_ref& r, int elem_bytes, int from) const;
  // The first byte of `where` for subcore `to` of this process.
  uint8_t* Resolve(const BufferAddress& where, int to) const;
  // True when `site` has made a warning in an earlier epoch (read during epochs,
  // written only between them).
  bool Warned(int part, int site) const { return warned_sites_.contains({part, site}); }
  // The writes into shared memory to order, when several threads run subcores.
  SharedWrites* shared_writes() { return shared_writes_.get(); }
  // The next number in the order of moves into shared memory (race check: of
  // two writes of the same bytes, the later decides what stays). Taken while
  // the move holds its SharedWrites stripes, so moves of the same bytes are
  // numbered in the order they happened.
  uint64_t NextSharedMove() { return shared_moves_.fetch_add(1, std::memory_order_relaxed) + 1; }
  // Race check (null when off): each subcore's vector clock, and each
  // semaphore's (what the signals to it knew), by subcore and index.
  std::vector<Clock>* clocks() { return races_ != nullptr ? &clocks_ : nullptr; }
  Clock& sem_clock(int subcore, int sem) { return sem_clocks_[subcore][sem]; }
  // True when every byte of `r` lies in an `in` parameter the kernel never
  // writes (ParamLayout::read_only) that no other parameter overlaps.
  bool ReadOnly(const scjit_ref& r, int elem_bytes) const;
  // Init check on shared memory, and what DMAs do to the init state (null when off).
  SharedInit* shared_init() { return shared_init_.get(); }
  InitStates* init_states() { return init_states_.get(); }
  InitOrigins* init_origins() { return init_origins_.get(); }
  // After `dma`, started at `site` by subcore `by`, moved its bytes: gives
  // them their init states (nothing without the init check).
  void CarryInitStates(const scjit_dma& dma, const int32_t* indices, int site, int by);
  // How the unwritten bytes of a value of `origin` came to be: "was read from
  // %idx[3] at k.scir:41:8, which nothing has written".
  std::string DescribeOrigin(int32_t origin) const;
  // The `out` parameters whose poison fill waits for the launch's end (null
  // when none does: runtime/poison.h).
  DeferredPoison* deferred_poison() { return deferred_poison_.get(); }
  // "%o[3, 0]" for a byte of an HBM parameter or a VMEM_SHARED arena.
  std::string DescribeShared(uintptr_t byte) const;

 private:
  // Between epochs (SubcoreScheduler's settle): see scheduler.h.
  absl::Status Settle();
  void FinishSubcore(Subcore& s, int32_t status);
  // Moves a remote copy's bytes into subcore `to`'s chip and credits its
  // receive semaphore `sem` with `amount` (between epochs).
  void LandRemoteDma(Subcore& to, const scjit_dma& d, const std::shared_ptr<SharedDma>& shared, int sem,
                     int64_t amount, int site, const Clock* clock);
  // RT-DEADLOCK naming every blocked subcore (of every process: collective).
  absl::Status ReportDeadlock();
  // Wakes the subcores whose wait is over (their semaphores taken); true if any.
  bool WakeReady();
  // Applies subcore `i`'s fetch_and_add `e`.
  void ApplyFetchAndAdd(int i, const Effect& e);
  // ChipLink: sends this epoch's effects on other processes' chips (crediting
  // the send semaphores of the copies) and receives those of other processes on
  // this one's, by sending subcore.
  absl::Status TradeEffects(RemoteInbox* inbox);
  // Applies an effect from another process.
  void ApplyFromAfar(const RemoteEffect& e);
  // ChipLink: every process's verdict on the epoch (and its debug_print
  // output, printed in rank order); `progress`, `unfinished` become the whole
  // launch's.
  absl::Status AgreeOnEpoch(std::string* prints, bool* progress, bool* unfinished);
  // ChipLink, when the launch ends: every chip's output rows, findings and
  // statistics on every process.
  absl::Status GatherResults(std::span<const ParamBuffer> params, std::vector<SubcoreStats>* stats,
                             std::vector<std::vector<int64_t>>* ops);
  // Race check between epochs: this epoch's DMAs against the live accesses.
  void CheckSharedAccesses();
  Diagnostic RaceFinding(const SharedRace& race);
  // RT-RACE of a fetch_and_add of `s` (`add`) against the target's own access `own`.
  Diagnostic FetchAndAddRace(const Subcore& s, const Effect& add, const AtomicWords::Access& own) const;
  // The memory subcores share: each parameter's in HBM (or host) memory (null
  // for staged ones), which every subcore reaches, and each core's VMEM_SHARED
  // arena, which that core's subcores reach ([first, first + count)).
  struct SharedBuffer {
    uint8_t* base;
    int64_t bytes;
    int first, count;
  };
  std::vector<SharedBuffer> SharedBuffers() const;
  // The init check's state of the memories subcores share.
  absl::Status TrackSharedInit();
  void Stage(std::span<const ParamBuffer> params, bool in);
  void StagePart(const MachinePart& part, std::span<const ParamBuffer> params, bool in);
  void StageSemaphores(std::span<const ParamBuffer> params, bool in);
  // Sizes and places every part's arenas in one allocation, poisoned as the
  // layouts say.
  absl::Status AllocateArenas();
  // IO-MEMORY when the subcores' stacks (each as large as the kernel's frame,
  // where large values live) would not fit the host together.
  absl::Status CheckStacks() const;
  // Fills `count` elements at `data` with the poison pattern, 16 MiB at a time,
  // checking the time limit before each; false when it ran out.
  bool PoisonInChunks(uint8_t* data, int64_t count, ElementType e);
  // Poisons the `out` parameters in HBM: now, or (a write-only one that no
  // other parameter overlaps) at the end of the launch, where it was not
  // written. The parameter whose fill the time limit cut, or -1.
  int PoisonOutParams(std::span<const ParamBuffer> params);
  // True when no other parameter's buffer overlaps parameter `p`'s.
  static bool Alone(std::span<const ParamBuffer> params, size_t p);
  // The end of the deferred fills; an RT-TIMEOUT finding if the time runs out.
  void FinishDeferredPoison();
  // Init check, when the launch ends: a warning (an error when strict) for
  // each output that holds values computed from bytes nothing had written.
  void WarnComputedOutputs();
  // The warning for output parameter `p`: `count` elements computed, the
  // first at `first` ("%o[3]"), from a value of `origin`.
  void ComputedOutput(size_t p, int64_t count, const std::string& first, int32_t origin);
  // Everything before the kernel runs: checks the buffers, allocates and fills
  // the arenas, stages the parameters. A result when the time ran out first.
  absl::StatusOr<std::optional<LaunchResult>> Prepare(std::span<const ParamBuffer> params,
                                                      std::chrono::steady_clock::time_point start);
  // The result of a launch whose time ran out `during` a step before the kernel
  // started: one RT-TIMEOUT finding.
  LaunchResult TimedOut(std::string_view during, std::chrono::steady_clock::time_point start);
  void AddSubcores(const MachinePart& part);
  // Wakes the subcores of each (part, core) that all wait at a barrier; true if any.
  bool OpenBarriers();

  const LaunchLayout& layout_;
  RunOptions options_;
  std::vector<MachinePart> parts_;
  MemoryPool::Block memory_;
  // A state byte for each byte of memory_ (SCJIT_SHADOW_*), with init or race
  // checks on, or code compiled with them.
  MemoryPool::Block shadow_;
  int64_t memory_bytes_ = 0;
  int devices_ = 1;
  size_t parts_per_device_ = 1;
  // ChipLink (null: every chip here): this process runs chips [first_device_,
  // first_device_ + owned_devices_), whose subcores are global subcores
  // [first_subcore_, ...); each chip has per_device_ subcores.
  ChipLink* link_ = nullptr;
  int first_device_ = 0;
  int owned_devices_ = 1;
  int first_subcore_ = 0;
  int per_device_ = 0;
  bool others_running_ = false;  // another process still has unfinished subcores
  // Each parameter's buffer on each chip, chip-major (ctx->hbm of a subcore is
  // its chip's row of layout_.params.size()).
  std::vector<uint8_t*> hbm_;
  std::vector<int64_t> hbm_bytes_;
  // One per subcore, for its race records; before every member that holds
  // records, so that it is destroyed after them.
  std::vector<std::unique_ptr<RecordPool>> record_pools_;
  std::vector<std::unique_ptr<Subcore>> subcores_;
  std::unique_ptr<SubcoreScheduler> scheduler_;
  std::unique_ptr<SharedWrites> shared_writes_;  // null on one thread
  std::vector<SubcoreFinding> findings_;  // merged per op when the launch ends
  std::set<std::pair<int, int>> warned_sites_;  // (part, site) whose warning was kept
  // Race check (runtime/shared_races.h).
  std::unique_ptr<SharedAccesses> races_;
  std::unique_ptr<SharedInit> shared_init_;  // init check (runtime/shared_init.h)
  std::unique_ptr<InitOrigins> init_origins_;  // init check (runtime/init_origins.h)
  std::unique_ptr<InitStates> init_states_;    // init check (runtime/init_states.h)
  std::unique_ptr<DeferredPoison> deferred_poison_;
  std::vector<size_t> deferred_params_;  // the parameter of each of its regions
  std::vector<std::pair<const uint8_t*, const uint8_t*>> read_only_;  // ReadOnly's [lo, hi)
  std::vector<Clock> clocks_;
  std::vector<std::vector<Clock>> sem_clocks_;
  std::map<std::pair<int, int64_t>, Clock> word_clocks_;  // fetch_and_add words
  int64_t settles_ = 0;
  bool barrier_opened_ = false;  // race check: since the last Forget
  std::vector<std::span<const uint32_t>> forget_bounds_;  // Forget's argument (kept: it runs after every barrier)
  std::atomic<bool> stopping_{false};
  std::atomic<bool> timed_out_{false};
  std::atomic<bool> interrupted_{false};
  std::atomic<uint64_t> shared_moves_{0};  // NextSharedMove
  std::chrono::steady_clock::time_point deadline_;
  std::mt19937_64 rng_;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_MACHINE_H_
